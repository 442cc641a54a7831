"""Kernel codes, kernel values, the diagonal, and one kernel column.

Kernels are named by integer codes (the Python layer maps names to them).  The
solvers and prediction use the blocked engine of :mod:`.blocks`; the single
column here is the reference path it replaced (measured against it in
``benchmarks/kernel_engine.py``).  A kernel column ``K(x_i, X)`` spreads
``x_i`` into a dense buffer and takes one sparse-or-dense dot per row, in
parallel over rows (``prange``); every entry is computed and written
independently, so the result does not depend on the number of threads.  RBF uses precomputed squared norms:
``||x - z||^2 = ||x||^2 + ||z||^2 - 2 <x, z>`` (clamped at 0).

With ``PRECOMPUTED`` the "rows" are the rows of a Gram matrix and
``K(x_i, x_j)`` is its entry ``[j, i]``.
"""

import math

import numpy as np
from numba import prange, types
from numba.extending import overload

from ._jit import njit, njit_parallel
from .rows import row_axpy, row_dot

LINEAR = 0
RBF = 1
POLY = 2
SIGMOID = 3
PRECOMPUTED = 4


def gram_entry(rows, j, i):
    """Entry [j, i] of a precomputed Gram matrix (dense rows only)."""
    return float(rows[j, i])


@overload(gram_entry)
def _gram_entry(rows, j, i):
    if isinstance(rows, types.Array):

        def impl(rows, j, i):
            return rows[j, i]

    else:  # never called: a Gram matrix is always dense

        def impl(rows, j, i):
            return np.nan

    return impl


@njit
def kernel_value(code, dot, sq_a, sq_b, gamma, coef0, degree):
    """K from the dot product and the squared norms of the two points."""
    if code == LINEAR:
        return dot
    if code == RBF:
        return math.exp(-gamma * max(sq_a + sq_b - 2.0 * dot, 0.0))
    if code == POLY:
        return (gamma * dot + coef0) ** degree
    return math.tanh(gamma * dot + coef0)


@njit
def _spread(rows, i, n_features):
    buf = np.zeros(n_features + 1)
    row_axpy(rows, i, 1.0, buf)
    return buf


@njit_parallel
def kernel_column(rows, n_features, i, sqnorm, code, gamma, coef0, degree, out):
    """out[j] = K(x_i, x_j) for every row j."""
    n = out.shape[0]
    if code == PRECOMPUTED:
        for j in prange(n):
            out[j] = gram_entry(rows, j, i)
        return
    buf = _spread(rows, i, n_features)
    sq_i = sqnorm[i]
    for j in prange(n):
        out[j] = kernel_value(code, row_dot(rows, j, buf), sq_i, sqnorm[j], gamma, coef0, degree)


@njit
def kernel_diagonal(rows, sqnorm, code, gamma, coef0, degree, n):
    """K(x_i, x_i) for every row."""
    out = np.empty(n)
    for i in range(n):
        if code == PRECOMPUTED:
            out[i] = gram_entry(rows, i, i)
        else:
            out[i] = kernel_value(code, sqnorm[i], sqnorm[i], sqnorm[i], gamma, coef0, degree)
    return out
