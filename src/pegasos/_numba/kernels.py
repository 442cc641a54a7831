"""Kernel codes, kernel values, the diagonal, and one kernel column.

Kernels are named by integer codes, and :data:`.codes.KERNEL_TABLE` is the one list of
them (the formulas here, in :func:`.blocks.transform` and in the small sets' NumPy
path branch on its codes; a code that no formula knows gives NaN, never another
kernel's value).  The
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
from typing import NamedTuple

import numpy as np
from numba import prange, types
from numba.extending import overload

from ._jit import njit, njit_parallel
from .codes import LINEAR, POLY, PRECOMPUTED, RBF, SIGMOID
from .rows import row_axpy, row_dot


class Kernel(NamedTuple):
    """A kernel as the compiled code reads it.

    ``code`` (one of the constants above), ``gamma``, ``coef0``, ``degree``
    as in :class:`sklearn.svm.SVC`, and ``bias2``: a constant added to every
    kernel value (the squared intercept feature, 0 for none) where the solvers
    update their responses.
    """

    code: int
    gamma: float
    coef0: float
    degree: int
    bias2: float = 0.0


class Points(NamedTuple):
    """Training or test rows as the compiled code reads them.

    ``rows``: a dense C-ordered (n, d) array or the CSR triplet
    ``(data, indices, indptr)`` (see :mod:`.rows`); ``n_features``: d;
    ``sqnorm``: the rows' squared norms (n,) (zeros for a Gram matrix).
    """

    rows: object
    n_features: int
    sqnorm: np.ndarray


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


# Numba's parallel regions (``prange`` bodies) take neither named tuples (its
# gufunc lowering cannot name their types) nor nested tuples as variables: a
# parallel function passes flat plain tuples into the region, and the function
# it calls there names them again.


@njit
def plain_kernel(kern):
    """``kern`` as a plain tuple, for a ``prange`` body (see :func:`named_kernel`)."""
    return kern.code, kern.gamma, kern.coef0, kern.degree, kern.bias2


@njit
def named_kernel(plain):
    """The :class:`Kernel` of :func:`plain_kernel`'s tuple."""
    return Kernel(plain[0], plain[1], plain[2], plain[3], plain[4])


@njit(inline="always")
def rbf_exponent(sq_a, sq_b, dot, gamma):
    """The rbf's exponent -gamma ||a - b||^2 from the squared norms and the inner product,
    in float64 (a float32 ``dot`` widened first), the squared distance clamped at 0."""
    return -gamma * max(sq_a + sq_b - 2.0 * np.float64(dot), 0.0)


@njit
def kernel_value(kern, dot, sq_a, sq_b):
    """K from the dot product and the squared norms of the two points (no ``bias2``)."""
    if kern.code == LINEAR:
        return dot
    if kern.code == RBF:
        return math.exp(rbf_exponent(sq_a, sq_b, dot, kern.gamma))
    if kern.code == POLY:
        return (kern.gamma * dot + kern.coef0) ** kern.degree
    if kern.code == SIGMOID:
        return math.tanh(kern.gamma * dot + kern.coef0)
    return math.nan  # a code missing here (see KERNEL_TABLE)


@njit
def _spread(rows, i, n_features):
    buf = np.zeros(n_features + 1)
    row_axpy(rows, i, 1.0, buf)
    return buf


@njit_parallel
def kernel_column(points, i, kern, out):
    """out[j] = K(x_i, x_j) for every row j (no ``bias2``)."""
    rows, sqnorm, kk = points.rows, points.sqnorm, plain_kernel(kern)
    n = out.shape[0]
    # np.int64(j): prange's index is unsigned, and the row helpers would compile
    # for it apart from the int64 index every other caller passes
    if kern.code == PRECOMPUTED:
        for j in prange(n):
            out[j] = gram_entry(rows, np.int64(j), i)
        return
    buf = _spread(rows, i, points.n_features)
    sq_i = sqnorm[i]
    for j in prange(n):
        out[j] = _value(kk, row_dot(rows, np.int64(j), buf), sq_i, sqnorm[j])


@njit
def _value(plain, dot, sq_a, sq_b):
    """:func:`kernel_value` of a plain kernel tuple (in a ``prange`` body)."""
    return kernel_value(named_kernel(plain), dot, sq_a, sq_b)


@njit
def kernel_diagonal(points, kern):
    """K(x_i, x_i) for every row (no ``bias2``)."""
    sqnorm = points.sqnorm
    out = np.empty(sqnorm.shape[0])
    for i in range(sqnorm.shape[0]):
        if kern.code == PRECOMPUTED:
            out[i] = gram_entry(points.rows, i, i)
        else:
            out[i] = kernel_value(kern, sqnorm[i], sqnorm[i], sqnorm[i])
    return out
