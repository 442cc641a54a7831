"""Kernel Pegasos and the kernel Perceptron: the driver of
:func:`pegasos._numba.kernel_pegasos.kernel_pegasos_blocks`."""

import math

import numpy as np

from .._base import NEVER, resolve_lam
from .._numba import chunk as _nchunk
from .._numba import kernel_pegasos as _nkp
from .._numba.blocks import OnMatrix
from .._numba.kernel_pegasos import ResponseData, ResponsePlan, ResponseState
from .._rows import check_array, check_draws, check_per_row
from .._sampling import IndexStream
from .engine import add_block, block_columns, engine_for, points, run_calls

PEGASOS, PERCEPTRON = _nkp.PEGASOS, _nkp.PERCEPTRON


def chunk_steps(k, max_cols):
    """Iterations per chunk for batches of k: CHUNK_DRAWS draws (at most max_cols), at least one."""
    return max(1, min(_nkp.CHUNK_DRAWS, max_cols) // k)


def new_chunk(n, n_problems, k, max_cols):
    """An empty :class:`~pegasos._numba.chunk.Chunk` for n examples and batches of k
    (allocated here: a compiled function to allocate it cost a first fit 0.2 s of compiling)."""
    cap = chunk_steps(k, max_cols) * k
    return _nchunk.Chunk(np.full(n, -1, np.int64), np.full(n, -1, np.int64),
                         np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros((cap, cap)),
                         np.zeros((cap, n_problems)), np.zeros((cap, n_problems)),
                         np.zeros(2, np.int64))


def output(state):
    """The output coefficients (n, n_problems): the average, or the last iterate."""
    a, _, u, scal = state
    out = scal[_nkp.S] * a
    averaged = scal[_nkp.N_AVG] > 0
    out[:, averaged] = (u[:, averaged] + scal[_nkp.BETA, averaged] * a[:, averaged]) / scal[
        _nkp.N_AVG, averaged
    ]
    return out


def fit(rows, sqnorm, diag, Y, sw, kern, plan, mode, stream, report=None, gram=None):
    """An estimator's fit: :func:`run` of its prepared rows (``rows``, their squared norms
    ``sqnorm`` and K's diagonal ``diag``, ``bias2`` included), targets ``Y`` (n, problems),
    loss weights ``sw`` and kernel ``kern`` (``bias2`` included), with the compiled plan
    made here from the estimator's ``plan`` (``pegasos._base.make_plan``'s: its batch size,
    lambda, projection radius, averaging and ``n_iter``) and ``mode`` (:data:`PEGASOS` or
    :data:`PERCEPTRON`).  Returns (state, evals) as :func:`run`."""
    return run(
        rows, ResponseData(points(rows, sqnorm), diag, Y, sw), kern,
        ResponsePlan(k=plan.batch_size, lam=plan.lam, radius2=plan.radius2, mode=mode,
                     avg_start=plan.avg_start(1), max_cols=block_columns(rows.n_features)),
        plan.n_iter, stream, report, gram,
    )


def run(rows, data, kern, plan, T, stream, report=None, gram=None):
    """T iterations of :func:`~pegasos._numba.kernel_pegasos.kernel_pegasos_blocks` from w = 0.

    ``rows`` (:class:`~pegasos._rows.Rows`), ``data`` a
    :class:`~pegasos._numba.kernel_pegasos.ResponseData` whose ``points`` are
    those rows, ``kern`` and ``plan`` as that function takes them; ``stream``
    gives the draws; ``report(t, done, evals, seconds, state)`` is called
    about :data:`~.engine.REPORTS` times when given.  With ``gram``, the
    rows' kernel matrix (n, n) without ``bias2`` (:mod:`.gram`), the same steps
    run on it (an :class:`~pegasos._numba.blocks.OnMatrix`) and evaluate no
    kernel (whoever computed the matrix counts its n^2 values).  Returns
    (state, evals): the :class:`~pegasos._numba.kernel_pegasos.ResponseState`.
    """
    n, n_problems = rows.n_rows, data.Y.shape[1]
    check_per_row(rows, squared_norms=data.points.sqnorm, kernel_diagonal=data.diag,
                  loss_weights=data.sw)
    check_array("the targets Y", data.Y, (n, n_problems))
    state = ResponseState(*(np.zeros((n, n_problems)) for _ in range(3)),
                          scal=np.zeros((_nkp.N_SCALARS, n_problems)))
    state.scal[_nkp.S] = 1.0
    out = _nkp.Violators(np.empty(plan.k * n_problems, np.int64), np.empty(plan.k * n_problems),
                         np.zeros(n_problems + 1, np.int64))
    if gram is not None:
        return state, _run_gram(gram, data, kern, plan, T, stream, report, state, out)
    chunk = new_chunk(n, n_problems, plan.k, plan.max_cols)
    per_chunk = chunk_steps(plan.k, plan.max_cols)
    engine = engine_for(n)

    def step(steps, t):
        idx = stream.take(steps * plan.k)
        check_draws(idx, n)
        done, evals = 0, 0
        while done < steps:  # to the end of each chunk, then its flush
            now = min(steps - done, per_chunk - (t - 1) % per_chunk)
            t, e = _nkp.kernel_pegasos_blocks(data, kern, plan, state, chunk, out,
                                              idx[done * plan.k : (done + now) * plan.k], t)
            done, evals = done + now, evals + e
            if (t - 1) % per_chunk == 0 or t - 1 == T:
                evals += flush(engine, data.points, kern, plan.max_cols, state.g, chunk)
        return t, evals

    evals = run_calls(T, plan.k, step, state.scal, None if report is None else
                      lambda t, done, evals, seconds: report(t, done, evals, seconds, state))
    return state, evals


def _run_gram(gram, data, kern, plan, T, stream, report, state, out):
    """:func:`run`'s iterations on the kernel matrix ``gram``; returns 0 kernel evaluations."""
    n = gram.shape[0]
    check_array("the kernel matrix", gram, (n, n))
    # (the rows go unused there: one type whatever they are, so one compile)
    data = data._replace(points=None)
    K = OnMatrix(gram + kern.bias2 if kern.bias2 else gram)

    def step(steps, t):
        idx = stream.take(steps * plan.k)
        check_draws(idx, n)
        return _nkp.kernel_pegasos_on_matrix(data, kern, plan, state, K, out, idx, t)

    return run_calls(T, plan.k, step, state.scal, None if report is None else
                     lambda t, done, evals, seconds: report(t, done, evals, seconds, state))


def flush(engine, points, kern, max_cols, g, chunk):
    """The chunk's pending changes into every row's responses ``g``, by kernel blocks of
    at most ``max_cols`` columns (the engine's :func:`~.engine.add_block`); empties the
    :class:`~pegasos._numba.chunk.Chunk`.  Returns kernel evaluations."""
    n_rows, n_cols = int(chunk.counts[_nchunk.N_ROWS]), int(chunk.counts[_nchunk.N_COLS])
    for start in range(0, n_cols, max_cols):
        stop = min(n_cols, start + max_cols)
        add_block(engine, points, chunk.col_rows[start:stop], kern, chunk.pending[start:stop], g)
    chunk.local[chunk.chunk_rows[:n_rows]] = -1
    chunk.column[chunk.col_rows[:n_cols]] = -1
    chunk.counts[:] = 0
    return g.shape[0] * n_cols


def nu_from_one_pass(C, rows, sqnorm, diag, Y, kern, seed, sw, gram=None):
    """Each problem's SBP nu for ``C`` (None: 1): one pass of kernel Pegasos (no intercept).

    nu = L / ||w|| (the SVM solution of lambda has average slack L / ||w|| in
    margin units) for its last iterate w: the weighted mean hinge loss L
    (weights ``sw``) from the responses and ||w||^2 from the solver's state,
    so the estimate costs the pass's kernel evaluations and nothing more.
    ``kern`` without ``bias2``; ``gram`` the kernel matrix, if the fit has one
    (:func:`run`'s).  Returns (nu per problem, kernel evaluations).
    """
    n = rows.n_rows
    lam = resolve_lam(None, C, n)  # C = None: DEFAULT_C
    k = min(16, max(1, n // 1000))  # at least 1000 iterations, or blocks of 16
    T = max(1, math.ceil(n / k))
    stream = IndexStream("permutation", n, np.random.default_rng(seed))
    plan = ResponsePlan(k=k, lam=lam, radius2=1.0 / lam, mode=PEGASOS, avg_start=NEVER,
                        max_cols=block_columns(rows.n_features))
    state, evals = run(rows, ResponseData(points(rows, sqnorm), diag, Y, sw), kern, plan, T,
                       stream, gram=gram)
    g, scale, w2 = state.g, state.scal[_nkp.S], state.scal[_nkp.W2]
    hinge = np.average(np.maximum(0.0, 1.0 - Y * (scale * g)), axis=0, weights=sw)
    norm = np.sqrt(np.maximum(w2, 0.0))
    nu = np.where(norm > 0, hinge / np.where(norm > 0, norm, 1.0), 1.0)
    if not np.all(np.isfinite(nu)):
        raise ValueError("Floating-point overflow while estimating nu from C. Scale the input.")
    return nu, evals
