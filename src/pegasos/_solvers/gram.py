"""Small problems on a precomputed kernel matrix.

A training set of at most :data:`GRAM_ROWS` rows is trained on its kernel
matrix, computed once here with NumPy's (or SciPy's) matrix products, and a
prediction of at most :data:`PREDICT_ENTRIES` kernel values is computed the
same way.
The blocked engine (:mod:`pegasos._numba.blocks`) is compiled once per kind
of rows (dense or CSR, float64 or float32) and engine, and its solvers link the
kernel computation in: a first fit on a fresh install compiled for 15-30 s.
On the matrix the solvers' steps are the same functions, handed the matrix as
their engine (:class:`pegasos._numba.blocks.OnMatrix`): they read one float64
array whatever the rows are, link no kernel computation, and compile once per
install in a few seconds; prediction here compiles nothing.

The kernel values follow the engine's formulas: inner products in the rows'
dtype (float32 rows multiplied in float32, as the engine's ``sgemm``), widened
to float64, then the kernel's transform from float64 squared norms.  The
models equal the engine's up to rounding, not bit for bit.
"""

import contextlib
import contextvars
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
import scipy.sparse as sp

from .._numba.codes import LINEAR, POLY, PRECOMPUTED, RBF, SIGMOID
from .threads import one_blas_thread

#: Training rows up to which the kernel matrix is computed whole: 2048 rows are a
#: 32 MiB matrix.  Measured on digits (1,797 x 64, 10 classes, 2 cores) and on 2,000
#: rows of a9a: see docs/journal/compile_time.md.
GRAM_ROWS = 2048

#: Predictions of at most this many kernel values (test rows x support vectors) are
#: computed here, larger ones by the engine: 2^22 values cost tens of milliseconds
#: here (the engine, compiled, is 2-4x faster on them; docs/journal/compile_time.md).
PREDICT_ENTRIES = 1 << 22

#: Kernel values per block: each block (a fixed range of rows, whatever the number of
#: threads) is computed and transformed while it is in the cache, blocks in parallel.
BLOCK_ENTRIES = 1 << 17

#: Sparse rows of at most this many entries (rows x features) are multiplied densely.
DENSE_ENTRIES = 1 << 22


def use_gram(n_rows):
    """Whether a training set of ``n_rows`` rows trains on its kernel matrix: at most
    :data:`GRAM_ROWS`, outside :func:`engine_only`."""
    return n_rows <= GRAM_ROWS and not _ENGINE_ONLY.get()


def predicts_here(entries):
    """Whether a prediction of ``entries`` kernel values (test rows x support vectors) is
    computed here, by NumPy: at most :data:`PREDICT_ENTRIES`, outside
    :func:`engine_only`."""
    return entries <= PREDICT_ENTRIES and not _ENGINE_ONLY.get()


#: Whether the fits and predictions of this thread (or task) take the engine whatever
#: their size (:func:`engine_only`): a context variable, so that one thread's choice is
#: not another's.
_ENGINE_ONLY = contextvars.ContextVar("pegasos_engine_only", default=False)


@contextlib.contextmanager
def engine_only():
    """Every fit and prediction inside, in this thread, runs on the blocked engine,
    however small: ``pegasos compile`` compiles the engine's paths on small inputs with
    it.  The other threads' fits are not affected."""
    token = _ENGINE_ONLY.set(True)
    try:
        yield
    finally:
        _ENGINE_ONLY.reset(token)


def _matrix(rows):
    """Prepared rows (:class:`~pegasos._rows.Rows`) as a NumPy array, or as a SciPy CSR
    matrix over the same arrays; a CSR set of at most :data:`DENSE_ENTRIES` entries
    dense (its products by BLAS: SciPy's sparse product of two small sets that make a
    dense kernel matrix took 2-3x the fit, measured on digits)."""
    if isinstance(rows.kernel, np.ndarray):
        return rows.kernel
    data, indices, indptr = rows.kernel
    X = sp.csr_matrix((data, indices, indptr), shape=(rows.n_rows, rows.n_features))
    return X.toarray() if rows.n_rows * rows.n_features <= DENSE_ENTRIES else X


def _sqnorms(X):
    """Every row's squared norm in float64 (what ``row_sqnorms`` computes, by NumPy), of
    :func:`_matrix`'s array or CSR matrix."""
    if sp.issparse(X):
        squares = X.multiply(X).astype(np.float64)
        return np.asarray(squares.sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", X, X, dtype=np.float64)


def training_matrix(rows, kern):
    """A training set's squared norms and kernel matrix K(X, X), (n, n) float64, without
    ``bias2``: the solvers on the matrix take both.

    ``rows``: prepared rows (:class:`~pegasos._rows.Rows`); ``kern`` a
    :class:`~pegasos._numba.kernels.Kernel`.  Each block of rows lo..hi-1 is
    computed against the rows from lo on and written, transposed, to its
    columns too: half the products and kernel transforms.  Symmetric outside
    the blocks on the diagonal; inside them the rbf's two norms are added in
    the other order for (j, i) than for (i, j), one rounding apart.  With ``PRECOMPUTED`` the rows are the Gram matrix,
    where K(x_i, x_j) is the entry [j, i] (as the engine reads it): the result
    is its transpose, and the norms zeros.  The rbf's diagonal K(x_i, x_i) is
    exactly 1, as the engine's ``kernel_diagonal`` and LIBSVM's (whose
    ``dot(x_i, x_i)`` is its ``x_square[i]``), where the product's own rounding
    (BLAS's, against the norms') left 1 - gamma * 1e-14 (a symmetric nu-SVC's
    intercept 2e-9, not 0, at gamma = 1e6).  Overflow gives inf or NaN without a
    warning, as in the engine: the estimators' checks of the kernel diagonal
    and the coefficients name it.
    """
    A = _matrix(rows)
    n = rows.n_rows
    if kern.code == PRECOMPUTED:
        return np.zeros(n), np.ascontiguousarray(A.T, dtype=np.float64)
    sq = _sqnorms(A)
    out = np.empty((n, n))

    # the rbf's K(x_i, x_i): exactly 1 (NaN where the norm is not finite), as the engine's
    # kernel_diagonal and LIBSVM's (whose dot(x_i, x_i) is its x_square[i])
    diagonal = np.where(np.isfinite(sq), 1.0, np.nan) if kern.code == RBF else None

    def block(lo, hi):
        part = _transform(A[lo:hi] @ A[lo:].T, sq[lo:hi], sq[lo:], kern)
        if diagonal is not None:
            part[np.arange(hi - lo), np.arange(hi - lo)] = diagonal[lo:hi]
        out[lo:hi, lo:] = part
        out[hi:, lo:hi] = part[:, hi - lo:].T

    _by_blocks(n, n, block)
    return sq, out


def decision_values(rows_x, rows_sv, coef, kern):
    """``(coef @ (K(SV, X) + bias2)).T``, (n_x, n_problems): what the engine's prediction
    (``engine.decision_values``) computes, block by block of test rows."""
    X, SV = _matrix(rows_x), _matrix(rows_sv)
    sq_x, sq_sv, SVt = _sqnorms(X), _sqnorms(SV), SV.T
    out = np.empty((rows_x.n_rows, coef.shape[0]))
    coef_t = coef.T

    def block(lo, hi):
        K = _transform(X[lo:hi] @ SVt, sq_x[lo:hi], sq_sv, kern)
        if kern.bias2 != 0.0:
            K += kern.bias2
        with np.errstate(over="ignore", invalid="ignore"):
            out[lo:hi] = K @ coef_t

    _by_blocks(rows_x.n_rows, rows_sv.n_rows, block)
    return out


def _by_blocks(n_rows, n_cols, work):
    """``work(lo, hi)`` for fixed blocks of rows of about :data:`BLOCK_ENTRIES` values,
    in parallel on Numba's number of threads (NumPy and BLAS release the GIL), BLAS at
    one thread meanwhile; the first error is raised."""
    per = max(1, BLOCK_ENTRIES // max(n_cols, 1))
    starts = range(0, n_rows, per)
    threads = min(numba.get_num_threads(), len(starts))
    with one_blas_thread():
        if threads <= 1:
            for lo in starts:
                work(lo, min(n_rows, lo + per))
            return
        with ThreadPoolExecutor(threads) as pool:
            for done in [pool.submit(work, lo, min(n_rows, lo + per)) for lo in starts]:
                done.result()


def _transform(products, sq_a, sq_b, kern):
    """Inner products (dense or sparse, in the rows' dtype) as the kernel's float64 values,
    by the engine's formulas."""
    out = products.toarray() if sp.issparse(products) else np.asarray(products)
    out = out.astype(np.float64, copy=False)
    with np.errstate(over="ignore", invalid="ignore"):
        if kern.code == RBF:
            out *= -2.0
            out += sq_a[:, None]
            out += sq_b[None, :]
            np.maximum(out, 0.0, out=out)
            out *= -kern.gamma
            np.exp(out, out=out)
        elif kern.code == POLY:
            out *= kern.gamma
            out += kern.coef0
            out **= kern.degree
        elif kern.code == SIGMOID:
            out *= kern.gamma
            out += kern.coef0
            np.tanh(out, out=out)
        elif kern.code != LINEAR:  # a code missing here (see _numba.codes.KERNEL_TABLE)
            out[:] = np.nan
    return out
