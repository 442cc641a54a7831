"""Mini-batch kernelized Pegasos and the kernel Perceptron, every one-vs-rest
problem trained at once, on the blocked engine's rows or on a small set's
kernel matrix.

Both keep the *responses* of the training points for every problem, so that
a margin costs O(1).  The model of problem c is ``w_c = s_c * sum_l a[l, c]
phi(x_l)`` with signed coefficients (the label is inside) and a scale ``s_c``;
the responses are ``g[j, c] = sum_l a[l, c] K(x_l, x_j)``, so ``<w_c,
phi(x_j)> = s_c * g[j, c]``.  A step changes, problem by problem, the
coefficients of the examples that violate in it.  On the engine, the draws
do not depend on the model, so only the rows drawn in a chunk of about
:data:`CHUNK_DRAWS` draws are kept current (:class:`~.chunk.Chunk`), and every
row is brought up to date once per chunk with one block of all the chunk's
changed examples (by the caller: ``_solvers.kernel_pegasos.flush``); on the
kernel matrix (:class:`~.blocks.OnMatrix`) every row is current at every step.
The step is written once, :func:`kernel_pegasos_blocks` with the chunk's
operations, and compiled again with the matrix's: :data:`kernel_pegasos_on_matrix`.  Kernel
evaluations are counted and returned."""

from typing import NamedTuple

import numpy as np

from ._jit import njit, recompiled
from .chunk import (
    ON_MATRIX,
    add_change,
    forget,
    join,
    kernel_at,
    new_columns,
    rescale,
    response,
)
from .scale import settled, shrunk

PEGASOS = 0
PERCEPTRON = 1

# rows of the scalar state (ResponseState.scal): one column per binary problem
S = 0  # global scale s
W2 = 1  # ||w||^2
BETA = 2  # lazy average: sum of averaged iterates' coefficients = u + beta * a
N_AVG = 3
N_FOLD = 4
N_SCALARS = 5

#: Draws in a chunk (see :func:`kernel_pegasos_blocks`; ``_solvers.kernel_pegasos.chunk_steps``).
CHUNK_DRAWS = 256

class ResponseData(NamedTuple):
    """The training problem: ``points`` (:class:`~.kernels.Points`), K(x_i, x_i)
    with the kernel's ``bias2`` (``diag``), targets ``Y`` (n, n_problems) in
    {-1, +1} and loss weights ``sw`` (n,)."""

    points: object
    diag: np.ndarray
    Y: np.ndarray
    sw: np.ndarray


class ResponsePlan(NamedTuple):
    """The settings: batch size ``k``, ``lam``, the squared projection radius
    ``radius2`` (0 = off), ``mode`` (PEGASOS or PERCEPTRON), the first
    averaged step ``avg_start``, and ``max_cols``: the most rows copied
    densely at once."""

    k: int
    lam: float
    radius2: float
    mode: int
    avg_start: int
    max_cols: int


class ResponseState(NamedTuple):
    """Coefficients ``a``, responses ``g`` and lazy-average vectors ``u`` (n,
    n_problems), and the scalars ``scal`` (N_SCALARS, n_problems), updated in
    place.  The averaged coefficients are (u + scal[BETA] a) / scal[N_AVG]."""

    a: np.ndarray
    g: np.ndarray
    u: np.ndarray
    scal: np.ndarray


@njit(inline="always")
def _fold(c, beta, a, u):
    """u[:, c] += beta * a[:, c]: bring problem c's lazy average up to date."""
    for j in range(a.shape[0]):
        u[j, c] += beta * a[j, c]


class Violators(NamedTuple):
    """A step's violators, problem after problem, each problem's in batch order:
    examples ``picks`` (int64) and their steps ``coef`` (in units of w), k * n_problems
    at most; problem c's are ``[first[c]:first[c + 1]]`` (``first``: n_problems + 1,
    int64)."""

    picks: np.ndarray
    coef: np.ndarray
    first: np.ndarray


@njit(inline="always")
def finish_step(t, c, w2, plan, state):
    """Problem c after its step t, its new ||w||^2 ``w2``: overflow, projection (Pegasos),
    rescaling and averaging, as :func:`.scale.settled` decides.

    Returns the factor by which a rescaling multiplied a[:, c] and g[:, c]
    (1.0 when there was none)."""
    a, g, u, scal = state
    radius2 = plan.radius2 if plan.mode == PEGASOS else 0.0  # (the Perceptron's s stays 1)
    s, w2, factor, beta_old, beta, n_avg, n_fold, fold_now = settled(
        t, scal[S, c], w2, scal[BETA, c], scal[N_AVG, c], scal[N_FOLD, c], radius2,
        plan.avg_start)
    if factor != 1.0:
        _fold(c, beta_old, a, u)
        for j in range(a.shape[0]):
            a[j, c] *= factor
            g[j, c] *= factor
    if fold_now != 0.0:
        _fold(c, fold_now, a, u)
    scal[S, c], scal[W2, c], scal[BETA, c] = s, w2, beta
    scal[N_AVG, c], scal[N_FOLD, c] = n_avg, n_fold
    return factor


@njit(inline="always")
def _violators(c, batch, step_size, data, state, chunk, mode, out):
    """Problem c's margin violators among the batch, judged with its current
    iterate, appended to ``out`` from ``out.first[c]`` on (``out.first[c + 1]`` set): a
    violating draw adds step * y * weight (in units of w), a draw made twice counts
    twice."""
    Y = data.Y
    scal = state.scal
    end = out.first[c]
    for m in range(batch.shape[0]):
        i = batch[m]
        margin = Y[i, c] * scal[S, c] * response(chunk, state.g, i, c)
        if (mode == PEGASOS and margin < 1.0) or (mode == PERCEPTRON and margin <= 0.0):
            out.picks[end] = i
            out.coef[end] = step_size * Y[i, c] * data.sw[i]
            end += 1
    out.first[c + 1] = end


@njit(inline="always")
def _shrink(t, c, state, chunk):
    """Pegasos' (1 - 1/t) on problem c (:func:`.scale.shrunk`); t = 1 starts from
    w = 0."""
    scal = state.scal
    s, w2, restart = shrunk(t, scal[S, c], scal[W2, c])
    scal[S, c], scal[W2, c] = s, w2
    if restart:
        if scal[BETA, c] != 0.0:
            _fold(c, scal[BETA, c], state.a, state.u)
            scal[BETA, c] = 0.0
            scal[N_FOLD, c] = 0.0
        state.a[:, c] = 0.0
        state.g[:, c] = 0.0
        forget(chunk, c)


@njit(inline="always")
def _step(c, w2, state, chunk, out):
    """Add problem c's violators' steps (``out``, in units of w) to its coefficients and
    current responses; returns ||w + dw||^2 = ||w||^2 + 2 <w, dw> + <dw, dw> (``w2`` =
    ||w||^2), with <w, phi(x_i)> = scale * the current responses and <dw, dw> from the
    draws' kernel values.  The lazy average ``u`` keeps in step."""
    s, beta = state.scal[S, c], state.scal[BETA, c]
    picks = out.picks
    coef = out.coef
    lo, hi = out.first[c], out.first[c + 1]
    lin = 0.0
    quad = 0.0
    for m in range(lo, hi):
        i = picks[m]
        lin += coef[m] * response(chunk, state.g, i, c)
        inner = 0.0
        for q in range(lo, hi):
            inner += kernel_at(chunk, i, picks[q]) * coef[q]
        quad += coef[m] * inner
    w2 += 2.0 * s * lin + quad
    for m in range(lo, hi):
        i = picks[m]
        change = coef[m] / s
        if beta != 0.0:  # the lazy average stays in step
            state.u[i, c] -= beta * change
        state.a[i, c] += change
        add_change(chunk, state.g, i, c, change)
    return w2


@njit
def kernel_pegasos_blocks(data, kern, plan, state, chunk, out, idx, t):
    """Run ``len(idx) // plan.k`` iterations of mini-batch kernel Pegasos (or the
    kernel Perceptron) on every one-vs-rest problem at once, within one chunk.

    Each iteration draws the k examples ``idx[step*k:(step+1)*k]`` and, problem
    by problem, judges their margins with w_t and changes the coefficients of
    its violators (a draw made twice counts twice).

    ``plan.mode == PEGASOS``: the linear algorithm of ``linear.pegasos_steps``
    in the dual representation -- shrink by (1 - 1/t), add (1/(lam t k)) s_i
    y_i phi(x_i) for each violator (y_i <w, phi(x_i)> < 1), project onto
    ||w||^2 <= radius2 (0 = off).  ``PERCEPTRON``: add y_i phi(x_i) whenever
    y_i <w, phi(x_i)> <= 0; no shrinking, no projection.

    **Chunks.**  ``chunk`` is where the responses are read and changed
    (:mod:`.chunk`); this source is compiled once for each kind, the second time as
    :data:`kernel_pegasos_on_matrix`.

    - A :class:`~.chunk.Chunk`, on the engine's rows: the iterations are
      grouped in chunks of ``_solvers.kernel_pegasos.chunk_steps`` (t = 1..P,
      P+1..2P, ...; about CHUNK_DRAWS draws).  Within a chunk only the rows
      drawn in it are kept current (their kernel values with the chunk's
      changed examples, computed as rows join and as examples change); at the
      chunk's end the caller brings the changes to every row's responses in
      one block of all the chunk's changed examples (the engine's
      ``add_block``, ``_solvers.kernel_pegasos.flush``), a matrix product of up
      to CHUNK_DRAWS columns where a step alone had k: one pass over X for the
      whole chunk.  Every margin is the exact one of the step's iterate, so
      the iterates are those of the step-by-step algorithm up to rounding.  A
      call must not run past the end of a chunk (its last step's t a multiple
      of ``chunk_steps``, or earlier); the chunk is kept across calls.  The
      flush is the caller's so that this function does not link the engine's
      parallel code in (compiled apart once, and shared with prediction and
      the other solvers).
    - An :class:`~.blocks.OnMatrix`, a small training set's kernel matrix
      (:func:`kernel_pegasos_on_matrix`): every row is current after every
      step, a call may stop at any step, and no kernel is evaluated
      (``data.points`` and ``kern`` go unused).

    ``data`` (:class:`ResponseData`), ``kern`` (:class:`~.kernels.Kernel`:
    ``bias2`` is added to every kernel value, an augmented constant feature,
    the intercept), ``plan`` (:class:`ResponsePlan`), ``state``
    (:class:`ResponseState`, updated in place: ``<w_c, phi(x_j)> = scal[S, c]
    * g[j, c]`` once the chunk is flushed), ``chunk``
    (``_solvers.kernel_pegasos.new_chunk`` with the plan's k and max_cols, or
    an OnMatrix), ``out`` (:class:`Violators` for the plan's k and the problems).

    Returns (t after the last step, number of kernel evaluations).
    """
    k = plan.k
    scal = state.scal
    evals = 0
    for n_step in range(idx.shape[0] // k):
        batch = idx[n_step * k : (n_step + 1) * k]
        evals += join(data.points, kern, plan.max_cols, batch, state.g, chunk)
        step_size = 1.0 / (plan.lam * k) / t if plan.mode == PEGASOS else 1.0
        for c in range(scal.shape[1]):  # (each problem's own iterate)
            _violators(c, batch, step_size, data, state, chunk, plan.mode, out)
        evals += new_columns(data.points, kern, plan.max_cols, out.picks[:out.first[-1]],
                             state.g, chunk)
        for c in range(scal.shape[1]):
            if plan.mode == PEGASOS:
                _shrink(t, c, state, chunk)
            w2 = _step(c, scal[W2, c], state, chunk, out)
            rescale(chunk, c, finish_step(t, c, w2, plan, state))
        t += 1
    return t, evals


#: The same steps on a small set's kernel matrix (an :class:`~.blocks.OnMatrix` as
#: ``chunk``): :func:`kernel_pegasos_blocks`' source compiled again with the matrix's
#: operations (:data:`.chunk.ON_MATRIX`) in place of the chunk's.
kernel_pegasos_on_matrix = recompiled(kernel_pegasos_blocks, (_violators, _shrink, _step),
                                      ON_MATRIX._asdict(), "kernel_pegasos_on_matrix")
