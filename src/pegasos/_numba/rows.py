"""Row access shared by the kernels: one source, one specialisation per layout.

A kernel takes ``rows``: either a dense C-ordered 2-D float64 array, or the CSR
triplet ``(data, indices, indptr)`` as a tuple.  ``row_dot``/``row_axpy``
pick their loop at compile time from that type (``numba.extending.overload``),
so a kernel is compiled once per layout -- dense, CSR with int32 indices, CSR
with int64 indices -- each with a branch-free inner loop, and each cached on
disk.  (A runtime ``dense`` flag inside the loop made the CSR path twice as
slow, and kernels that take compiled functions as arguments, or closures, are
never found in Numba's cache.)

A dense row adds exact zeros where a sparse row skips them, so dense and CSR
copies of the same data give the same floating-point results.

The plain-Python bodies below are what runs under ``NUMBA_DISABLE_JIT=1``.

Note for contributors: Numba's cache does not notice edits to this module
from the kernels that inline it; clear ``__pycache__`` after changing it.
"""

import numpy as np
from numba import types
from numba.extending import overload


def row_dot(rows, i, v):
    """<x_i, v[:d]>"""
    if isinstance(rows, np.ndarray):
        return float(rows[i] @ v[: rows.shape[1]])
    data, indices, indptr = rows
    sl = slice(indptr[i], indptr[i + 1])
    return float(data[sl] @ v[indices[sl]])


def row_axpy(rows, i, c, v):
    """v[:d] += c * x_i"""
    if isinstance(rows, np.ndarray):
        v[: rows.shape[1]] += c * rows[i]
    else:
        data, indices, indptr = rows
        sl = slice(indptr[i], indptr[i + 1])
        np.add.at(v, indices[sl], c * data[sl])


def row_sqnorm(rows, i):
    """||x_i||^2"""
    if isinstance(rows, np.ndarray):
        return float(rows[i] @ rows[i])
    data, _, indptr = rows
    sl = slice(indptr[i], indptr[i + 1])
    return float(data[sl] @ data[sl])


@overload(row_dot)
def _row_dot(rows, i, v):
    if isinstance(rows, types.Array):

        def impl(rows, i, v):
            s = 0.0
            for j in range(rows.shape[1]):
                s += rows[i, j] * v[j]
            return s

    else:

        def impl(rows, i, v):
            data, indices, indptr = rows
            s = 0.0
            for p in range(indptr[i], indptr[i + 1]):
                s += data[p] * v[indices[p]]
            return s

    return impl


@overload(row_axpy)
def _row_axpy(rows, i, c, v):
    if isinstance(rows, types.Array):

        def impl(rows, i, c, v):
            for j in range(rows.shape[1]):
                v[j] += c * rows[i, j]

    else:

        def impl(rows, i, c, v):
            data, indices, indptr = rows
            for p in range(indptr[i], indptr[i + 1]):
                v[indices[p]] += c * data[p]

    return impl


@overload(row_sqnorm)
def _row_sqnorm(rows, i):
    if isinstance(rows, types.Array):

        def impl(rows, i):
            s = 0.0
            for j in range(rows.shape[1]):
                s += rows[i, j] * rows[i, j]
            return s

    else:

        def impl(rows, i):
            data, _, indptr = rows
            s = 0.0
            for p in range(indptr[i], indptr[i + 1]):
                s += data[p] * data[p]
            return s

    return impl
