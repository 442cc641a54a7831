"""What the kernel solvers share: compiled calls in blocks, the engine's memory
budget, and prediction by tiles (:mod:`pegasos._numba.blocks`)."""

import math
import time

import numpy as np
import scipy.sparse as sp

from .._base import BLOCK_DRAWS, check_finite_weights
from .._numba import blocks as _blocks
from .._numba.kernels import PRECOMPUTED, Kernel, Points, kernel_diagonal
from .._numba.linear import row_sqnorms
from .._rows import check_array
from . import gram as _gram
from .threads import one_blas_thread

#: Reports to ``callback`` per fit (the fit is the same with or without).
REPORTS = 20

#: Memory for the dense copy of a step's block of rows (columns x features float64).
BLOCK_BYTES = 128 * 2**20

#: Support vectors per block in prediction (each block is one pass over the test rows; a
#: tile is then 128 test rows).  Measured on 10,000 test rows against 7,709 support
#: vectors (Fashion-MNIST, dense) and 11,593 (Adult, CSR): 256-2048 within 10% of each
#: other, 512 the best on the dense set; 4096 and more 10-60% slower.
PREDICT_COLUMNS = 512


#: Rows of X from which the engine runs its tiles on Numba's threads
#: (:data:`~pegasos._numba.blocks.THREADS`); below, one after another in the calling thread
#: (:data:`~pegasos._numba.blocks.SERIAL`), the same values bit for bit.  A parallel
#: region costs seconds to compile, once per install and kind of rows; measured on
#: digits' first rows, warm (2 cores): up to 300 rows the two engines fit and predict
#: within 7% of each other, from 600 rows the threads are faster (fit 1.04-1.4x,
#: predict 1.2-1.7x).  So the estimators' checks and other small fits never compile it.
PARALLEL_ROWS = 512


def engine_for(n_rows):
    """The engine for X of ``n_rows`` rows: :data:`~pegasos._numba.blocks.THREADS` from
    :data:`PARALLEL_ROWS` rows, else :data:`~pegasos._numba.blocks.SERIAL`."""
    return _blocks.THREADS if n_rows >= PARALLEL_ROWS else _blocks.SERIAL


def add_block(engine, points, idx, kern, delta, g):
    """``g += (K(X, X[idx]) + bias2) @ delta`` by the compiled ``engine`` (:func:`engine_for`).

    What :func:`pegasos._numba.blocks.add_block` does inside compiled code,
    called from Python: the rows ``idx`` gathered, then one call of the engine.
    Returns K(X[idx], X[idx]) + bias2.  ``idx`` is made contiguous int64 here (any view
    would otherwise compile the engine once more, for its layout).
    """
    idx = np.ascontiguousarray(idx, dtype=np.int64)
    block = _blocks.gather_block(points, idx, kern)
    gram = np.empty((len(idx), len(idx)))
    _blocks.add(engine, points, block, kern, delta, g, gram)
    return gram


def kernel_block(points, idx, kern, dtype=None, engine=None):
    """K(X, X[idx]) as an (n, len(idx)) array (no ``bias2``), by the engine's
    :func:`~pegasos._numba.blocks.block_rows` or its serial twin (what
    :class:`~pegasos.DualSVC` compiles).

    ``dtype``: the result's (float64 or float32); by default the rows' own.
    ``engine``: by default :func:`engine_for` the rows.  ``idx`` is made contiguous
    int64, as in :func:`add_block`.
    """
    idx = np.ascontiguousarray(idx, dtype=np.int64)
    n = points.sqnorm.shape[0]
    out = np.empty((len(idx), n), dtype or dtype_of(points.rows))
    with one_blas_thread():
        _blocks.fill_rows(engine_for(n) if engine is None else engine, points, idx, kern, out,
                          np.arange(len(idx), dtype=np.int64))
    return out.T


def block_columns(n_features):
    """How many rows of ``n_features`` values fit densely in :data:`BLOCK_BYTES` (at least 1)."""
    return max(1, BLOCK_BYTES // (8 * max(n_features, 1)))


def kernel_of(code, gamma, coef0, degree):
    """The :class:`~pegasos._numba.kernels.Kernel` the compiled code takes: the kernel's
    code (:data:`pegasos._numba.codes.KERNEL_TABLE`), its parameters as numbers, no
    ``bias2``."""
    return Kernel(code=code, gamma=float(gamma), coef0=float(coef0), degree=int(degree),
                  bias2=0.0)


def points(rows, sqnorm):
    """The :class:`~pegasos._numba.kernels.Points` of prepared rows and their squared norms."""
    return Points(rows=rows.kernel, n_features=rows.n_features, sqnorm=sqnorm)


def norms_and_diagonal(rows, kern):
    """The prepared rows' squared norms (zeros for a Gram matrix) and K's diagonal
    (no ``bias2``), checked finite (:func:`check_kernel_finite`)."""
    sqnorm = (np.zeros(rows.n_rows) if kern.code == PRECOMPUTED
              else row_sqnorms(rows.kernel, rows.n_rows))
    diag = kernel_diagonal(points(rows, sqnorm), kern)
    check_kernel_finite(sqnorm, diag)
    return sqnorm, diag


def check_kernel_finite(sqnorm, diag):
    """Refuse rows on which the kernel overflows: squared norms ``sqnorm`` or K(x, x)
    (``diag``) not finite in float64."""
    if not (np.all(np.isfinite(sqnorm)) and np.all(np.isfinite(diag))):
        raise ValueError(
            "The kernel overflows on this data: squared row norms or K(x, x) are not "
            "finite in float64. Scale the input (e.g. with StandardScaler or MaxAbsScaler)."
        )


def run_calls(T, draws_per_step, step, scal, report=None):
    """T iterations by compiled calls of about :data:`~pegasos._base.BLOCK_DRAWS` draws each: ``step(steps, t) -> (t, evals)``.

    With ``report``, the calls are shorter, so that ``report(t, done, evals,
    seconds)`` is called about :data:`REPORTS` times.  After each call the
    solver's scalar state ``scal`` is checked for overflow.  Returns the
    kernel evaluations.
    """
    chunk = max(1, BLOCK_DRAWS // draws_per_step)
    if report is not None:
        chunk = min(chunk, max(1, math.ceil(T / REPORTS)))
    t, done, seconds, evals = 1, 0, 0.0, 0
    while done < T:
        steps = min(chunk, T - done)
        tic = time.perf_counter()
        with one_blas_thread():
            t, e = step(steps, t)
        seconds += time.perf_counter() - tic
        evals += e
        done += steps
        check_finite_weights(f"iteration {t - 1}", scal)
        if report is not None:
            report(t, done, evals, seconds)
    return evals


def decision_values(rows_x, rows_sv, coef, kern):
    """``(coef @ K(SV, X)).T``: (n_x, n_problems) decision values without intercept.

    ``rows_x``, ``rows_sv``: prepared rows (:class:`~pegasos._rows.Rows`) of
    the same width and dtype; ``coef`` (n_problems, n_SV) float64; ``kern`` a
    :class:`~pegasos._numba.kernels.Kernel`.  The support vectors are copied
    densely, :data:`PREDICT_COLUMNS` at a time at most (and within
    :data:`BLOCK_BYTES`), and each such block is one call of the engine
    (:func:`engine_for` the test rows: :func:`~pegasos._numba.blocks.add_gathered`
    or ``add_tiles``) with the test rows as X: the function a fit compiles for
    rows of this kind, so a first prediction compiles nothing new.  A prediction of
    at most :data:`~.gram.PREDICT_ENTRIES` kernel values (test rows x support vectors;
    :func:`~.gram.predicts_here`) is computed by NumPy's matrix products instead (:func:`.gram.decision_values`):
    nothing compiled, so a small fit's first prediction does not wait for the compiler.
    """
    if rows_x.n_features != rows_sv.n_features:
        raise ValueError(f"X has {rows_x.n_features} features but the support vectors have "
                         f"{rows_sv.n_features}.")
    if dtype_of(rows_x) != dtype_of(rows_sv):
        raise ValueError(f"X is {dtype_of(rows_x)} but the support vectors are "
                         f"{dtype_of(rows_sv)}.")
    check_array("dual_coef_", coef, (None, rows_sv.n_rows))
    if _gram.predicts_here(rows_x.n_rows * rows_sv.n_rows):
        return _gram.decision_values(rows_x, rows_sv, coef, kern)
    out = np.zeros((rows_x.n_rows, coef.shape[0]))
    x = points(rows_x, row_sqnorms(rows_x.kernel, rows_x.n_rows))
    sv_sqnorm = row_sqnorms(rows_sv.kernel, rows_sv.n_rows)
    per = min(PREDICT_COLUMNS, block_columns(rows_sv.n_features))
    no_gram = np.empty((0, 0))
    engine = engine_for(rows_x.n_rows)
    # The engine multiplies dense test rows by the block's Z and CSR ones by its Zt
    # (blocks.products): only that one is copied, the other is left empty.  Z and the
    # coefficients are always new writable arrays (a memory-mapped model's are read-only):
    # the types of the fit's gathered block, so prediction compiles nothing new.
    dense_x = isinstance(rows_x.kernel, np.ndarray)
    unused = np.empty((0, 0), dtype_of(rows_sv))
    with one_blas_thread():
        for lo in range(0, rows_sv.n_rows, per):
            hi = min(rows_sv.n_rows, lo + per)
            Z = _dense(rows_sv, lo, hi, transposed=not dense_x)
            block = _blocks.Block(np.full(hi - lo, -1, np.int64), Z if dense_x else unused,
                                  unused if dense_x else Z,
                                  np.ascontiguousarray(sv_sqnorm[lo:hi]))
            _blocks.add(engine, x, block, kern, np.array(coef[:, lo:hi].T, order="C"), out,
                        no_gram)
    return out


def _dense(rows, lo, hi, transposed=False):
    """Rows lo..hi-1 of prepared rows (or their transpose) as a new dense C-ordered array
    of their dtype: writable, as the block a fit gathers in compiled code is, so that
    prediction runs the function the fit compiled (the rows are read-only views)."""
    if isinstance(rows.kernel, np.ndarray):
        part = rows.kernel[lo:hi]
        return np.array(part.T if transposed else part, order="C")
    data, indices, indptr = rows.kernel
    part = slice(indptr[lo], indptr[hi])
    block = sp.csr_matrix((data[part], indices[part], indptr[lo : hi + 1] - indptr[lo]),
                          shape=(hi - lo, rows.n_features))
    return (block.T if transposed else block).toarray(order="C")


def dtype_of(rows):
    """The value dtype (float64 or float32) of prepared rows (:class:`~pegasos._rows.Rows`)
    or of their compiled form (``Rows.kernel``, ``Points.rows``: an array or a CSR tuple)."""
    values = getattr(rows, "kernel", rows)
    return (values[0] if isinstance(values, tuple) else values).dtype


