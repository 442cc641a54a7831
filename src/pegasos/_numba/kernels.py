"""The kernel engine: kernel values, one kernel column, decision values.

Kernels are named by integer codes (the Python layer maps names to them).  A
kernel column ``K(x_i, X)`` spreads ``x_i`` into a dense buffer and takes one
sparse-or-dense dot per row, in parallel over rows (``prange``); every entry
is computed and written independently, so the result does not depend on the
number of threads.  RBF uses precomputed squared norms:
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


@njit_parallel
def kernel_decision(
    rows_x, sq_x, rows_sv, sq_sv, n_features, coef, code, gamma, coef0, degree, out
):
    """out[r, c] = sum_s coef[c, s] K(sv_s, x_r): decision values without the kernel matrix.

    Parallel over the rows x_r; each row's sums run in the order of the
    support vectors, so the result does not depend on the number of threads.
    """
    n_x = out.shape[0]
    n_sv = coef.shape[1]
    for r in prange(n_x):
        buf = _spread(rows_x, r, n_features)
        for c in range(coef.shape[0]):
            out[r, c] = 0.0
        for s in range(n_sv):
            k = kernel_value(code, row_dot(rows_sv, s, buf), sq_x[r], sq_sv[s], gamma, coef0, degree)
            for c in range(coef.shape[0]):
                out[r, c] += coef[c, s] * k


@njit
def cached_column(rows, n_features, i, sqnorm, code, gamma, coef0, degree, cache, slot_of,
                  owner, stamp, clock, col):
    """K(x_i, .) through a least-recently-used cache of kernel columns.

    ``cache`` (slots, n) holds columns, ``slot_of`` (n,) the slot of each
    example's column (-1: not cached), ``owner`` (slots,) the example in each
    slot, ``stamp`` (slots,) when it was last used, ``clock`` (1,) the time.
    With no slots, the column is computed into ``col``.  Returns (the column,
    the number of kernel evaluations spent: 0 on a hit, n otherwise).  A
    cached column is the same array of numbers a recomputation would give.
    """
    n = col.shape[0]
    if cache.shape[0] == 0:
        kernel_column(rows, n_features, i, sqnorm, code, gamma, coef0, degree, col)
        return col, n
    clock[0] += 1
    s = slot_of[i]
    if s >= 0:
        stamp[s] = clock[0]
        return cache[s], 0
    s = 0
    for j in range(1, stamp.shape[0]):
        if stamp[j] < stamp[s]:
            s = j
    if owner[s] >= 0:
        slot_of[owner[s]] = -1
    kernel_column(rows, n_features, i, sqnorm, code, gamma, coef0, degree, cache[s])
    owner[s] = i
    slot_of[i] = s
    stamp[s] = clock[0]
    return cache[s], n
