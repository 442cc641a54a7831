"""What the kernel solvers share: compiled calls in blocks, the engine's memory
budget, and prediction by tiles (:mod:`pegasos._numba.blocks`)."""

import math
import time

from .._base import check_finite_weights
from .._numba import blocks as _blocks
from .._numba.kernels import Points
from .._numba.linear import row_sqnorms
from .._rows import check_array

#: Reports to ``callback`` per fit (the fit is the same with or without).
REPORTS = 20

#: Memory for the dense copy of a step's block of rows (columns x features float64).
BLOCK_BYTES = 128 * 2**20

#: Memory for one tile of (rows x support vectors) kernel values in prediction.
PREDICT_TILE_BYTES = 8 * 2**20


def block_columns(n_features):
    """How many rows of ``n_features`` values fit densely in :data:`BLOCK_BYTES` (at least 1)."""
    return max(1, BLOCK_BYTES // (8 * max(n_features, 1)))


def points(rows, sqnorm):
    """The :class:`~pegasos._numba.kernels.Points` of prepared rows and their squared norms."""
    return Points(rows=rows.kernel, n_features=rows.n_features, sqnorm=sqnorm)


def run_calls(T, draws_per_step, step, scal, report=None):
    """T iterations by compiled calls of about 65,536 draws each: ``step(steps, t) -> (t, evals)``.

    With ``report``, the calls are shorter, so that ``report(t, done, evals,
    seconds)`` is called about :data:`REPORTS` times.  After each call the
    solver's scalar state ``scal`` is checked for overflow.  Returns the
    kernel evaluations.
    """
    chunk = max(1, (1 << 16) // draws_per_step)
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
    """``(coef @ K(SV, X)).T`` by tiles of X's rows (:func:`~pegasos._numba.blocks.decision_blocks`).

    ``rows_x``, ``rows_sv``: prepared rows (:class:`~pegasos._rows.Rows`) of
    the same width and dtype; ``coef`` (n_problems, n_SV) float64; ``kern`` a
    :class:`~pegasos._numba.kernels.Kernel`.
    """
    if rows_x.n_features != rows_sv.n_features:
        raise ValueError(f"X has {rows_x.n_features} features but the support vectors have "
                         f"{rows_sv.n_features}.")
    if dtype_of(rows_x) != dtype_of(rows_sv):
        raise ValueError(f"X is {dtype_of(rows_x)} but the support vectors are "
                         f"{dtype_of(rows_sv)}.")
    check_array("dual_coef_", coef, (None, rows_sv.n_rows))
    tile = int(min(1024, max(1, PREDICT_TILE_BYTES // (8 * max(rows_sv.n_rows, 1)))))
    with one_blas_thread():
        return _blocks.decision_blocks(
            points(rows_x, row_sqnorms(rows_x.kernel, rows_x.n_rows)),
            points(rows_sv, row_sqnorms(rows_sv.kernel, rows_sv.n_rows)), coef, kern, tile)


def dtype_of(rows):
    """The value dtype (float64 or float32) of prepared rows (:class:`~pegasos._rows.Rows`)
    or of their compiled form (``Rows.kernel``, ``Points.rows``: an array or a CSR tuple)."""
    values = getattr(rows, "kernel", rows)
    return (values[0] if isinstance(values, tuple) else values).dtype


def one_blas_thread():
    """BLAS limited to one thread: the kernel engine runs its own threads over tiles.

    Returns
    -------
    threadpoolctl.threadpool_limits
        A context manager.

    See Also
    --------
    threadpoolctl.threadpool_limits : The limit itself.

    Examples
    --------
    >>> import numpy as np
    >>> from pegasos.kernel import one_blas_thread
    >>> with one_blas_thread():
    ...     product = np.ones((64, 64)) @ np.ones((64, 64))
    >>> float(product[0, 0])
    64.0
    """
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")
