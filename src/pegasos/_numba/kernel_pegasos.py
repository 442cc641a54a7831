"""Mini-batch kernelized Pegasos and the kernel Perceptron, every one-vs-rest
problem trained at once, on the blocked engine (:mod:`.blocks`).

Both keep the *responses* of the training points for every problem, so that
a margin costs O(1).  The model of problem c is ``w_c = s_c * sum_l a[l, c]
phi(x_l)`` with signed coefficients (the label is inside) and a scale ``s_c``;
the responses are ``g[j, c] = sum_l a[l, c] K(x_l, x_j)``, so ``<w_c,
phi(x_j)> = s_c * g[j, c]``.  A step changes the model at the examples that
violate in any problem (merged by :mod:`.changes`).  The draws do not depend
on the model, so only the rows drawn in a chunk of about :data:`CHUNK_DRAWS`
draws are kept current (:class:`Chunk`), and every row is brought up to date
once per chunk with one block of all the chunk's changed examples (by the
caller: ``_solvers.kernel_pegasos.flush``).  Kernel evaluations are counted and returned.
"""

from typing import NamedTuple

import numpy as np

from ._jit import njit
from .blocks import pair_block
from .changes import clear, merge, new_changes
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

# the chunk's counters (Chunk.counts)
N_ROWS = 0
N_COLS = 1


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


class Chunk(NamedTuple):
    """The rows drawn in the current chunk and the examples changed in it.

    ``chunk_rows[:counts[N_ROWS]]`` are the examples drawn so far (``local``
    maps an example to its position there, -1 outside),
    ``col_rows[:counts[N_COLS]]`` those whose coefficients changed
    (``column`` likewise), ``kc[r, q]`` the augmented kernel between chunk row
    r and column q, ``pending[q]`` the change of column q's coefficients not
    yet in the responses ``g``, ``gl[r]`` chunk row r's current responses.
    """

    local: np.ndarray
    column: np.ndarray
    chunk_rows: np.ndarray
    col_rows: np.ndarray
    kc: np.ndarray
    pending: np.ndarray
    gl: np.ndarray
    counts: np.ndarray


@njit(inline="always")
def _fold(c, beta, a, u):
    """u[:, c] += beta * a[:, c]: bring problem c's lazy average up to date."""
    for j in range(a.shape[0]):
        u[j, c] += beta * a[j, c]


@njit(inline="always")
def _violators(batch, data, chunk, scal, mode, step_size, changes):
    """The batch's margin violators, merged by example into ``changes``.

    Judges every drawn example against every problem with the current
    iterate (example i's responses are ``chunk.gl[chunk.local[i]]``); a
    violating draw adds step * y * weight (in units of w).  Returns the number
    of distinct violators.
    """
    Y, sw, gl, local = data.Y, data.sw, chunk.gl, chunk.local
    count = np.int64(0)  # not the literal 0: merge() would compile for Literal[int](0) too
    for j in range(batch.shape[0]):
        i = batch[j]
        for c in range(Y.shape[1]):
            margin = Y[i, c] * scal[S, c] * gl[local[i], c]
            if (mode == PEGASOS and margin < 1.0) or (mode == PERCEPTRON and margin <= 0.0):
                count = merge(changes, i, c, step_size * Y[i, c] * sw[i], count)
    return count


@njit(inline="always")
def shrink(t, state):
    """Pegasos' (1 - 1/t) on every problem (:func:`.scale.shrunk`); t = 1 starts from w = 0."""
    a, g, u, scal = state
    for c in range(scal.shape[1]):
        s, w2, restart = shrunk(t, scal[S, c], scal[W2, c])
        scal[S, c], scal[W2, c] = s, w2
        if restart:
            if scal[BETA, c] != 0.0:
                _fold(c, scal[BETA, c], a, u)
                scal[BETA, c] = 0.0
                scal[N_FOLD, c] = 0.0
            a[:, c] = 0.0
            g[:, c] = 0.0


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
def cross_block(points, kern, idx_a, idx_b, max_cols):
    """K(X[idx_a], X[idx_b]) + bias2, the rows ``idx_b`` copied at most ``max_cols`` at a time."""
    out = np.empty((idx_a.shape[0], idx_b.shape[0]))
    for start in range(0, idx_b.shape[0], max_cols):
        part = pair_block(points, idx_a, idx_b[start : start + max_cols], kern)
        _put(out, 0, start, part, kern.bias2)
    return out


@njit(inline="always")
def _put(dst, r0, c0, src, shift):
    """dst[r0:, c0:] <- src + shift over src's shape.

    A loop, not a slice assignment: Numba links into every function that
    assigns an array to a slice the code that formats its shape-mismatch
    error, and compiles it again there (BENCHMARKS.md "Compile time")."""
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst[r0 + i, c0 + j] = src[i, j] + shift


@njit(inline="always")
def _admit(items, position, listed, count):
    """Append to ``listed[:count]`` the items not yet in it (``position[i] < 0``),
    recording each one's position; returns the new count."""
    for j in range(items.shape[0]):
        i = items[j]
        if position[i] < 0:
            position[i] = count
            listed[count] = i
            count += 1
    return count


@njit(inline="always")
def _join(points, kern, max_cols, batch, g, chunk):
    """Bring the batch's examples into the chunk: responses ``g`` plus the chunk's
    pending changes.  Returns kernel evaluations."""
    counts, gl = chunk.counts, chunk.gl
    first = counts[N_ROWS]
    n_rows = counts[N_ROWS] = _admit(batch, chunk.local, chunk.chunk_rows, first)
    for r in range(first, n_rows):
        for c in range(gl.shape[1]):
            gl[r, c] = g[chunk.chunk_rows[r], c]
    n_cols = counts[N_COLS]
    if n_rows == first or n_cols == 0:
        return 0
    block = cross_block(points, kern, chunk.chunk_rows[first:n_rows], chunk.col_rows[:n_cols],
                        max_cols)
    _put(chunk.kc, first, 0, block, 0.0)
    dg = np.dot(block, chunk.pending[:n_cols])
    for r in range(dg.shape[0]):
        for c in range(dg.shape[1]):
            gl[first + r, c] += dg[r, c]
    return (n_rows - first) * n_cols


@njit(inline="always")
def _new_columns(points, kern, max_cols, members, chunk):
    """Give the members that have no column in the chunk one: their kernel with
    every chunk row.  Returns kernel evaluations."""
    counts = chunk.counts
    first = counts[N_COLS]
    n_cols = counts[N_COLS] = _admit(members, chunk.column, chunk.col_rows, first)
    chunk.pending[first:n_cols] = 0.0
    n_rows = counts[N_ROWS]
    if n_cols > first:
        block = cross_block(points, kern, chunk.chunk_rows[:n_rows], chunk.col_rows[first:n_cols],
                            max_cols)
        _put(chunk.kc, 0, first, block, 0.0)
    return n_rows * (n_cols - first)


@njit(inline="always")
def _chunk_norms(members, coef_w, scale, w2_new, chunk):
    """``w2_new`` (||w||^2 on entry) becomes ||w + dw||^2 = ||w||^2 + 2 <w, dw> + <dw, dw>,
    with <w, phi(x_i)> = scale * gl from the chunk rows' responses and <dw, dw>
    from their kernel values (``coef_w`` in units of w at ``members``)."""
    local, column, kc, gl = chunk.local, chunk.column, chunk.kc, chunk.gl
    count = members.shape[0]
    for c in range(scale.shape[0]):
        lin = 0.0
        quad = 0.0
        for m in range(count):
            row = local[members[m]]
            lin += coef_w[m, c] * gl[row, c]
            inner = 0.0
            for q in range(count):
                inner += kc[row, column[members[q]]] * coef_w[q, c]
            quad += coef_w[m, c] * inner
        w2_new[c] += 2.0 * scale[c] * lin + quad


@njit(inline="always")
def _chunk_step(members, coef_w, w2_new, state, chunk):
    """Add ``coef_w`` (in units of w) at ``members`` to every problem, within the chunk.

    ``w2_new`` as :func:`_chunk_norms`.  The chunk rows' responses are
    updated at once; the other rows' wait in ``pending``.  A problem with
    ``scal[BETA, c] != 0`` keeps its lazy average ``u`` in step.
    """
    a, _, u, scal = state
    scale, beta = scal[S], scal[BETA]
    _chunk_norms(members, coef_w, scale, w2_new, chunk)
    pending, gl, kc, n_rows = chunk.pending, chunk.gl, chunk.kc, chunk.counts[N_ROWS]
    for m in range(members.shape[0]):
        i = members[m]
        q = chunk.column[i]
        for c in range(scale.shape[0]):
            delta = coef_w[m, c] / scale[c]
            if delta == 0.0:
                continue
            pending[q, c] += delta
            a[i, c] += delta
            if beta[c] != 0.0:
                u[i, c] -= beta[c] * delta
            for r in range(n_rows):
                gl[r, c] += kc[r, q] * delta


@njit(inline="always")
def _rescale(c, factor, chunk):
    """Problem c's chunk responses and pending changes times ``factor`` (a rescaling)."""
    if factor != 1.0:
        for r in range(chunk.counts[N_ROWS]):
            chunk.gl[r, c] *= factor
        for q in range(chunk.counts[N_COLS]):
            chunk.pending[q, c] *= factor


@njit
def kernel_pegasos_blocks(data, kern, plan, state, chunk, idx, t):
    """Run ``len(idx) // plan.k`` iterations of mini-batch kernel Pegasos (or the
    kernel Perceptron) on every one-vs-rest problem at once, within one chunk.

    Each iteration draws the k examples ``idx[step*k:(step+1)*k]``, judges
    their margins with w_t on every problem, and changes the coefficients of
    the union of the problems' violators.

    ``plan.mode == PEGASOS``: the linear algorithm of ``linear.pegasos_steps``
    in the dual representation -- shrink by (1 - 1/t), add (1/(lam t k)) s_i
    y_i phi(x_i) for each violator (y_i <w, phi(x_i)> < 1), project onto
    ||w||^2 <= radius2 (0 = off).  ``PERCEPTRON``: add y_i phi(x_i) whenever
    y_i <w, phi(x_i)> <= 0; no shrinking, no projection.

    **Chunks.**  The iterations are grouped in chunks of ``_solvers.kernel_pegasos.chunk_steps``
    (t = 1..P, P+1..2P, ...; about CHUNK_DRAWS draws).  Within a chunk only
    the rows drawn in it are kept current (``chunk``: their kernel values
    with the chunk's changed examples, computed as rows join and as examples
    change); at the chunk's end the caller brings the changes to every row's
    responses in one block of all the chunk's changed examples (the
    engine's ``add_block``, ``_solvers.kernel_pegasos.flush``), a matrix
    product of up to CHUNK_DRAWS columns where a step alone had k: one pass
    over X for the whole chunk.  Every margin is the exact one of the step's
    iterate, so the iterates are those of the step-by-step algorithm up to
    rounding.  A call must not run past the end of a chunk (its last step's t
    a multiple of ``chunk_steps``, or earlier); the chunk is kept across
    calls.  The flush is the caller's so that this function does not link
    the engine's parallel code in (compiled apart once, and shared with
    prediction and the other solvers).

    ``data`` (:class:`ResponseData`), ``kern`` (:class:`~.kernels.Kernel`:
    ``bias2`` is added to every kernel value, an augmented constant feature,
    the intercept), ``plan`` (:class:`ResponsePlan`), ``state``
    (:class:`ResponseState`, updated in place: ``<w_c, phi(x_j)> = scal[S, c]
    * g[j, c]`` once the chunk is flushed), ``chunk`` (``_solvers.kernel_pegasos.new_chunk`` with
    the plan's k and max_cols).

    Returns (t after the last step, number of kernel evaluations).
    """
    k, points, max_cols, scal = plan.k, data.points, plan.max_cols, state.scal
    changes = new_changes(state.g.shape[0], k, scal.shape[1])
    evals = 0
    for step in range(idx.shape[0] // k):
        batch = idx[step * k : (step + 1) * k]
        evals += _join(points, kern, max_cols, batch, state.g, chunk)
        step_size = 1.0 / (plan.lam * k) / t if plan.mode == PEGASOS else 1.0
        count = _violators(batch, data, chunk, scal, plan.mode, step_size, changes)
        if plan.mode == PEGASOS:
            shrink(t, state)
            if t == 1:  # w = 0: the chunk's responses and changes go with it
                chunk.gl[:] = 0.0
                chunk.pending[:] = 0.0
        clear(changes, count)
        w2_new = scal[W2].copy()
        if count:
            members = changes.members[:count]
            evals += _new_columns(points, kern, max_cols, members, chunk)
            _chunk_step(members, changes.coef_w[:count], w2_new, state, chunk)
        for c in range(scal.shape[1]):
            _rescale(c, finish_step(t, c, w2_new[c], plan, state), chunk)
        t += 1
    return t, evals
