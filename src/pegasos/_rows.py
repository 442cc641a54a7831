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

    The arrays handed on are read-only views (:func:`_read_only`): compiled code
    only reads the rows, and Numba types a read-only array apart from a writable
    one, so a read-only input (a memory map: ``np.load(mmap_mode="r")``, joblib's
    workers in ``GridSearchCV(n_jobs=...)``) would otherwise compile every solver
    again.  No copy is made for this.
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
        return Rows((_read_only(data), _read_only(indices), _read_only(indptr)), n, d)
    return Rows(_read_only(np.ascontiguousarray(X, dtype=dtype)), n, d)


def _read_only(arr):
    """A read-only view of ``arr`` (``arr`` itself, and the caller's array, unchanged)."""
    view = arr.view()
    view.flags.writeable = False
    return view


def _described(arr):
    if not isinstance(arr, np.ndarray):
        return type(arr).__name__
    order = "" if arr.flags.c_contiguous else ", not contiguous"
    return f"{arr.dtype}{list(arr.shape)}{order}"


def check_array(name, arr, shape, dtype=np.float64):
    """Refuse anything but a C-contiguous ``dtype`` array of ``shape`` (None: any length).

    What compiled code is handed is checked here, at the boundary: a state of
    the wrong width (a warm start on wider data, a loaded or hand-set state)
    would be read and written past its end.
    """
    ok = (isinstance(arr, np.ndarray) and arr.dtype == dtype and arr.flags.c_contiguous
          and arr.ndim == len(shape)
          and all(want is None or got == want for got, want in zip(arr.shape, shape)))
    if not ok:
        want = ", ".join("any" if s is None else str(s) for s in shape)
        raise ValueError(f"{name} must be a contiguous {np.dtype(dtype)} array of shape "
                         f"({want}); got {_described(arr)}.")


def check_draws(idx, n_rows):
    """Row indices for compiled code: int64, each in [0, n_rows)."""
    check_array("the drawn row indices", idx, (None,), np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= n_rows):
        raise ValueError(f"a drawn row index is outside [0, {n_rows}).")


def check_linear_state(rows, v, u, gamma, ugamma, scal, n_scalars):
    """One problem's linear Pegasos state (see ``pegasos.linear.PegasosState``) against rows."""
    d = rows.n_features
    if isinstance(v, np.ndarray) and v.ndim == 1 and v.shape[0] != d + 1:
        raise ValueError(f"The solver state holds weights for {v.shape[0] - 1} features but X "
                         f"has {d} features.")
    check_array("the weights v", v, (d + 1,))
    check_array("the averaged weights u", u, (d + 1,))
    check_array("the scalar state", scal, (n_scalars,))
    check_array("the expansion coefficients", gamma, (None,))
    if gamma.shape[0] not in (0, rows.n_rows):
        raise ValueError(f"The solver state's expansion coefficients cover {gamma.shape[0]} "
                         f"rows but X has {rows.n_rows}.")
    check_array("the averaged expansion coefficients", ugamma, gamma.shape)


def check_per_row(rows, **arrays):
    """Each named array holds one float64 per row (``name=arr``; underscores read as spaces)."""
    for name, arr in arrays.items():
        check_array(name.replace("_", " "), arr, (rows.n_rows,))


#: The blocked kernel engine copies rows densely, ``8 * n_features`` bytes
#: each; a sparse matrix whose dense row would take more than this reaches it
#: with its unused columns dropped (:func:`compact_columns`).
COMPACT_ROW_BYTES = 1 << 20


def compact_columns(*matrices):
    """CSR matrices over one column space, keeping only the columns any of them uses.

    Kernel values depend on the rows only through their dot products and
    norms, which columns holding no stored value do not change, so the engine
    may work on the used columns alone.  Without this, one row of a file whose
    largest feature index is 2**31 - 1 would be copied into 16 GB.  Dense
    input, and sparse input whose dense rows are small
    (:data:`COMPACT_ROW_BYTES`), are returned as they are.  The matrices must
    have passed :func:`check_sparse_structure`.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix(([1.0, 2.0], [5, 10**7], [0, 1, 2]), shape=(2, 10**7 + 1))
    >>> (Z,) = compact_columns(X)
    >>> Z.shape, Z.toarray().tolist()
    ((2, 2), [[1.0, 0.0], [0.0, 2.0]])
    """
    if (not all(sp.issparse(M) and M.format == "csr" for M in matrices)
            or 8 * matrices[0].shape[1] <= COMPACT_ROW_BYTES):
        return matrices
    used = np.unique(np.concatenate([M.indices[:M.indptr[-1]] for M in matrices]))
    out = []
    for M in matrices:
        nnz = int(M.indptr[-1])
        indices = np.searchsorted(used, M.indices[:nnz]).astype(M.indices.dtype)
        out.append(sp.csr_matrix((M.data[:nnz], indices, M.indptr),
                                 shape=(M.shape[0], max(used.shape[0], 1))))
    return tuple(out)


def stack_rows(blocks, width=None):
    """CSR blocks of one column space (rows read a block at a time, each block as wide as
    its largest index) stacked into one CSR matrix ``width`` columns wide (by default the
    widest block's), without copying a block to widen it; dense blocks, all ``width``
    wide, into one dense array.

    >>> import scipy.sparse as sp
    >>> stack_rows([sp.csr_matrix([[1.0]]), sp.csr_matrix([[0.0, 2.0]])]).toarray().tolist()
    [[1.0, 0.0], [0.0, 2.0]]
    """
    width = max(B.shape[1] for B in blocks) if width is None else width
    if all(isinstance(B, np.ndarray) for B in blocks):  # dense blocks (a BlockStream's)
        for B in blocks:
            if B.shape[1] != width:
                raise ValueError(f"dense rows {B.shape[1]} features wide among rows {width} "
                                 "wide: dense blocks must all be as wide")
        return blocks[0] if len(blocks) == 1 else np.concatenate(blocks)
    return sp.vstack([sp.csr_matrix((B.data, B.indices, B.indptr), shape=(B.shape[0], width))
                      for B in blocks], format="csr")


def rows_of(X, y, index, width):
    """Rows ``index`` (increasing) of a CSR matrix (a cache's, mapped) and their labels,
    copied into memory: float64 values, ``width`` columns.

    >>> import numpy as np, scipy.sparse as sp
    >>> X = sp.csr_matrix(np.array([[1, 0], [0, 2], [3, 0]], np.float32))
    >>> A, y = rows_of(X, np.array([1.0, -1.0, 1.0]), np.array([0, 2]), 3)
    >>> A.toarray().tolist(), A.dtype, y.tolist()
    ([[1.0, 0.0, 0.0], [3.0, 0.0, 0.0]], dtype('float64'), [1.0, 1.0])
    """
    part = X[index]
    part = sp.csr_matrix((part.data.astype(np.float64, copy=False), part.indices, part.indptr),
                         shape=part.shape)
    return stack_rows([part], width), np.asarray(y[index], dtype=np.float64)


def at_width(X, n_features):
    """CSR rows as a model ``n_features`` wide reads them, ``(X, n_dropped)``: the stored
    values of a column beyond it dropped (and counted, as LIBSVM's and LIBLINEAR's
    ``predict`` ignore them), fewer columns widened without copying; None: as they are.
    The one width rule of a text file (:func:`pegasos.datasets.read_svmlight`) and a
    cache (:func:`pegasos.load_cache`, ``pegasos predict``).

    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix([[1.0, 0.0, 2.0]])
    >>> [(A.shape, n) for A, n in (at_width(X, 2), at_width(X, 5))]
    [((1, 2), 1), ((1, 5), 0)]
    """
    if n_features is None or X.shape[1] == n_features:
        return X, 0
    if X.shape[1] > n_features:
        return X[:, :n_features].tocsr(), int(np.count_nonzero(X.indices >= n_features))
    return sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], n_features),
                         copy=False), 0


def check_width(width, limit, where="a row of the stream"):
    """Refuse rows ``width`` features wide beyond a stream's ``limit`` (its n_features)."""
    if width > limit:
        raise ValueError(f"{where} is {width} features wide, beyond the stream's "
                         f"n_features={limit}: give n_features >= {width} (pegasos train: "
                         "--n-features; by default, the width of the first buffer's rows)")


def column_products(X, columns, coef):
    """``X[:, columns] @ coef.T`` without allocating anything as wide as X.

    SciPy's column indexing of a CSR matrix allocates an array of X's width, and a
    precomputed kernel's model names that width itself (``n_features_in_``, the
    training rows): a model file claiming 10**18 of them would make prediction
    allocate exabytes.  Here the columns are matched to X's stored indices by a
    sorted search, in O(nnz log len(columns)); repeated columns add their
    coefficients.  Dense X is indexed as it is.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> X = sp.csr_matrix(([1.0, 2.0, 3.0], [0, 7, 10**15], [0, 2, 3]), shape=(2, 10**18))
    >>> column_products(X, np.array([10**15, 7]), np.array([[1.0, 10.0]])).tolist()
    [[20.0], [3.0]]
    """
    coef = np.asarray(coef, dtype=np.float64)
    if not sp.issparse(X):
        return np.asarray(X[:, columns] @ coef.T)
    unique, inverse = np.unique(np.asarray(columns, dtype=np.int64), return_inverse=True)
    merged = np.zeros((unique.size, coef.shape[0]))
    np.add.at(merged, inverse, coef.T)
    nnz = int(X.indptr[-1])
    indices = X.indices[:nnz]
    at = np.minimum(np.searchsorted(unique, indices), max(unique.size - 1, 0))
    hit = unique[at] == indices if unique.size else np.zeros(nnz, bool)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    picked = sp.csr_matrix((X.data[:nnz][hit], (rows[hit], at[hit])),
                           shape=(X.shape[0], unique.size))
    return np.asarray(picked @ merged)
