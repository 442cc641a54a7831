"""The boundary between estimators and kernels: fixed dtypes, one row format,
and sparse structure checked before any compiled code (or SciPy's) reads it."""

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp


class Rows(NamedTuple):
    """Training rows as the kernels take them (see ``pegasos._numba.rows``)."""

    #: a dense C-ordered float64 (or float32) 2-D array, or the CSR triplet
    #: (data of the same float dtype, indices int32|int64, indptr of the same dtype)
    kernel: object
    n_rows: int
    n_features: int


def _bad(fmt, what):
    return ValueError(f"X is a malformed sparse {fmt.upper()} matrix: {what}.")


def _check_compressed(fmt, indptr, indices, n_data, n_major, n_minor, major, minor):
    """indptr: n_major + 1 non-decreasing offsets from 0; indices in [0, n_minor)."""
    for name, arr in (("indptr", indptr), ("indices", indices)):
        if arr.ndim != 1 or arr.dtype.kind not in "iu":
            raise _bad(fmt, f"{name} must be a 1-D integer array; got {arr.dtype} of shape "
                            f"{arr.shape}")
    if indptr.shape[0] != n_major + 1:
        raise _bad(fmt, f"indptr has {indptr.shape[0]} entries; {n_major} {major}s need "
                        f"{n_major + 1}")
    if indptr[0] != 0:
        raise _bad(fmt, f"indptr starts at {indptr[0]}, not 0")
    if n_major and np.any(indptr[1:] < indptr[:-1]):
        at = int(np.flatnonzero(indptr[1:] < indptr[:-1])[0])
        raise _bad(fmt, f"indptr decreases at {major} {at} ({indptr[at]} then "
                        f"{indptr[at + 1]}); it must be non-decreasing")
    nnz = int(indptr[-1])
    if nnz > indices.shape[0] or nnz > n_data:
        raise _bad(fmt, f"indptr ends at {nnz} but there are {indices.shape[0]} indices and "
                        f"{n_data} stored values")
    used = indices[:nnz]
    if nnz and (used.min() < 0 or used.max() >= n_minor):
        at = int(np.flatnonzero((used < 0) | (used >= n_minor))[0])
        raise _bad(fmt, f"{minor} index {used[at]} at position {at} is outside [0, {n_minor}) "
                        f"(the matrix has {n_minor} {minor}s)")


def check_sparse_structure(X):
    """Refuse a SciPy sparse matrix whose stored structure is inconsistent.

    SciPy checks only the cheap invariants when a matrix is built from raw
    arrays (``csr_matrix((data, indices, indptr))``), and its arrays can be
    changed afterwards; an index out of range then makes compiled code (ours
    or SciPy's) read and write outside its arrays.  This O(nnz) check runs
    once per ``fit``/``predict``/``duality_gap``, before any conversion.
    Dense input and formats whose structure is held in Python objects (DOK,
    LIL) pass through.

    Raises
    ------
    ValueError
        Naming the first inconsistency found.
    """
    if not sp.issparse(X):
        return
    fmt = X.format
    n_rows, n_cols = X.shape
    if fmt == "csr":
        _check_compressed(fmt, X.indptr, X.indices, X.data.shape[0], n_rows, n_cols,
                          "row", "column")
    elif fmt == "csc":
        _check_compressed(fmt, X.indptr, X.indices, X.data.shape[0], n_cols, n_rows,
                          "column", "row")
    elif fmt == "bsr":
        r, c = X.blocksize
        _check_compressed(fmt, X.indptr, X.indices, X.data.shape[0], n_rows // r, n_cols // c,
                          "block row", "block column")
    elif fmt == "coo":
        coords = X.coords if hasattr(X, "coords") else (X.row, X.col)
        for name, arr, size in zip(("row", "column"), coords, X.shape):
            if arr.shape != X.data.shape:
                raise _bad(fmt, f"{arr.shape[0]} {name} indices for {X.data.shape[0]} values")
            if arr.size and (arr.min() < 0 or arr.max() >= size):
                at = int(np.flatnonzero((arr < 0) | (arr >= size))[0])
                raise _bad(fmt, f"{name} index {arr[at]} at position {at} is outside "
                                f"[0, {size})")
    elif fmt == "dia":
        if X.offsets.shape[0] != X.data.shape[0]:
            raise _bad(fmt, f"{X.offsets.shape[0]} offsets for {X.data.shape[0]} diagonals")


def as_rows(X, dtype=np.float64) -> Rows:
    """Wrap validated input (C-ordered dense or CSR) for the kernels.

    Values become ``dtype``: float64, or float32 for the kernel estimators'
    float32 input (their blocked engine then multiplies in float32).  CSR
    input is checked (:func:`check_sparse_structure`) and brought to
    canonical form (duplicates summed) so that row norms are exact; its index
    dtype is kept, so int32 and int64 each compile once.
    """
    if dtype not in (np.float64, np.float32):
        raise ValueError(f"rows are float64 or float32, not {dtype}")
    n, d = X.shape
    if sp.issparse(X):
        X = sp.csr_matrix(X) if X.format != "csr" else X
        check_sparse_structure(X)
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        nnz = int(X.indptr[-1])
        indices = X.indices[:nnz] if X.indices.shape[0] != nnz else X.indices
        if indices.dtype not in (np.int32, np.int64):
            indices = indices.astype(np.int64)
        if nnz > np.iinfo(indices.dtype).max:
            indices = indices.astype(np.int64)
        indptr = X.indptr.astype(indices.dtype, copy=False)
        data = np.asarray(X.data[:nnz], dtype=dtype)
        return Rows((data, indices, indptr), n, d)
    return Rows(np.ascontiguousarray(X, dtype=dtype), n, d)
