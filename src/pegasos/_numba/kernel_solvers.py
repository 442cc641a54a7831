"""Kernel solvers: mini-batch kernelized Pegasos, the kernel Perceptron, and the
mini-batch Kernelized Stochastic Batch Perceptron (Cotter, Shalev-Shwartz &
Srebro, ICML 2012), every one-vs-rest problem trained at once.

All three keep the *responses* of training points for every problem, so that
a margin costs O(1).  A step changes the model at the examples drawn (or
violating) in any problem; their kernel columns are computed together, one
pass over the data for the whole block (:func:`.blocks.add_block`), and update
every problem's responses.  The SBP needs every response after every step
(its distribution is built from them).  Kernel Pegasos and the Perceptron
draw independently of the model, so they keep only the rows drawn in a chunk
of about CHUNK_DRAWS draws current and bring every row up to date once per
chunk, with one block of all the chunk's changed examples
(:func:`kernel_pegasos_blocks`).  The model
of problem c is ``w_c = s_c * sum_l a[l, c] phi(x_l)`` with signed
coefficients (the label is inside) and a scale ``s_c`` (1 for the SBP); the
responses are ``g[j, c] = sum_l a[l, c] K(x_l, x_j)``, so ``<w_c, phi(x_j)> =
s_c * g[j, c]``.  Kernel evaluations are counted and returned.
"""

import math

import numpy as np

from ._jit import njit
from .blocks import add_block, pair_block

PEGASOS = 0
PERCEPTRON = 1

# rows of the scalar state of kernel_pegasos_blocks: one column per binary problem
S = 0  # global scale s
W2 = 1  # ||w||^2
BETA = 2  # lazy average: sum of averaged iterates' coefficients = u + beta * a
N_AVG = 3
N_FOLD = 4
N_SCALARS = 5

# rows of the scalar state of sbp_blocks
SBP_W2 = 0  # ||w||^2
SBP_N_AVG = 1  # iterates summed into the average
SBP_SCALARS = 2

MIN_SCALE = 1e-9
FOLD_RATIO = 4.0


@njit
def _fold(c, beta, a, u):
    """u[:, c] += beta * a[:, c]: bring problem c's lazy average up to date."""
    for j in range(a.shape[0]):
        u[j, c] += beta * a[j, c]


@njit
def _violators(batch, Y, G, local, scal, mode, slot, members, coef_w, step_size, sw):
    """The batch's margin violators, merged by example.

    Judges every drawn example against every problem with the current
    iterate (example i's responses are ``G[local[i]]``); ``members[:count]``
    are the distinct examples that violate at least one problem,
    ``coef_w[m, c]`` the sum of their coefficients for problem c in units of
    w (step * y * weight per violating draw).  ``slot`` (n,) maps an example
    to its position (reset to -1 by the caller).
    """
    n_problems = Y.shape[1]
    count = 0
    for j in range(batch.shape[0]):
        i = batch[j]
        for c in range(n_problems):
            margin = Y[i, c] * scal[S, c] * G[local[i], c]
            if (mode == PEGASOS and margin < 1.0) or (mode == PERCEPTRON and margin <= 0.0):
                if slot[i] < 0:
                    slot[i] = count
                    members[count] = i
                    coef_w[count, :] = 0.0
                    count += 1
                coef_w[slot[i], c] += step_size * Y[i, c] * sw[i]
    return count


@njit
def _shrink(t, scal, a, g, u):
    """Pegasos' (1 - 1/t) on every problem; t = 1 starts from w = 0."""
    shrink = 1.0 - 1.0 / t
    for c in range(scal.shape[1]):
        if shrink == 0.0:
            if scal[BETA, c] != 0.0:
                _fold(c, scal[BETA, c], a, u)
                scal[BETA, c] = 0.0
                scal[N_FOLD, c] = 0.0
            a[:, c] = 0.0
            g[:, c] = 0.0
            scal[S, c] = 1.0
            scal[W2, c] = 0.0
        else:
            scal[S, c] *= shrink
            scal[W2, c] *= shrink * shrink


@njit
def _add_block(rows, n_features, sqnorm, kern, members, coef_w, scale, w2_new, max_cols, a, g,
               beta, u):
    """Add ``coef_w`` (in units of w) at ``members`` to every problem, by kernel blocks.

    Problem c's iterate is ``w_c = scale[c] * sum_l a[l, c] phi(x_l)`` with
    responses ``g[:, c]``; at most ``max_cols`` members are gathered at once.
    ``w2_new`` holds ||w||^2 on entry and receives ||w + dw||^2 = ||w||^2 +
    2 <w, dw> + <dw, dw>, with <w, phi(x_i)> = scale g_i from the responses
    (before this step) and the members' Gram matrix (its cross-block entries
    computed apart, count^2 evaluations at most).  A problem with
    ``beta[c] != 0`` keeps its lazy average ``u`` in step.  Returns kernel
    evaluations.
    """
    code, gamma, coef0, degree, bias2 = kern
    count = members.shape[0]
    n, n_problems = g.shape
    for c in range(n_problems):
        lin = 0.0
        for m in range(count):
            lin += coef_w[m, c] * scale[c] * g[members[m], c]
        w2_new[c] += 2.0 * lin
    delta = np.empty((count, n_problems))
    for m in range(count):
        for c in range(n_problems):
            delta[m, c] = coef_w[m, c] / scale[c]
    evals = 0
    for start in range(0, count, max_cols):
        stop = min(count, start + max_cols)
        gram = add_block(rows, n_features, sqnorm, members[start:stop], code, gamma, coef0,
                         degree, bias2, delta[start:stop], g)
        evals += n * (stop - start)
        for c in range(n_problems):
            w2_new[c] += _quad(coef_w[start:stop, c], gram, coef_w[start:stop, c])
        for later in range(stop, count, max_cols):  # cross terms with later chunks
            end = min(count, later + max_cols)
            cross = pair_block(rows, n_features, sqnorm, members[start:stop],
                               members[later:end], code, gamma, coef0, degree) + bias2
            evals += (stop - start) * (end - later)
            for c in range(n_problems):
                w2_new[c] += 2.0 * _quad(coef_w[start:stop, c], cross, coef_w[later:end, c])
    for m in range(count):
        i = members[m]
        for c in range(n_problems):
            a[i, c] += delta[m, c]
            if beta[c] != 0.0:
                u[i, c] -= beta[c] * delta[m, c]
    return evals


@njit
def _quad(x, M, z):
    """x^T M z."""
    total = 0.0
    for m in range(x.shape[0]):
        for q in range(z.shape[0]):
            total += x[m] * M[m, q] * z[q]
    return total


@njit
def _finish_step(t, c, w2, radius2, mode, avg_start, a, g, u, scal):
    """Problem c after its step: overflow, projection, rescaling, averaging.

    Returns the factor by which a rescaling multiplied a[:, c] and g[:, c]
    (1.0 when there was none)."""
    s = scal[S, c]
    if w2 < 0.0:
        w2 = 0.0
    elif not w2 < np.inf:  # inf, or inf - inf between the terms of a block
        s = np.nan  # overflow: reported by the caller's finite check, not projected to 0
    factor = 1.0
    if mode == PEGASOS:
        if radius2 > 0.0 and w2 > radius2:
            s *= math.sqrt(radius2 / w2)
            w2 = radius2
        if s < MIN_SCALE:
            _fold(c, scal[BETA, c], a, u)
            scal[BETA, c] = 0.0
            scal[N_FOLD, c] = 0.0
            for j in range(a.shape[0]):
                a[j, c] *= s
                g[j, c] *= s
            factor = s
            s = 1.0
    scal[S, c] = s
    scal[W2, c] = w2
    if t >= avg_start:
        scal[BETA, c] += s
        scal[N_AVG, c] += 1.0
        scal[N_FOLD, c] += 1.0
        if scal[BETA, c] > FOLD_RATIO * s * scal[N_FOLD, c]:
            _fold(c, scal[BETA, c], a, u)
            scal[BETA, c] = 0.0
            scal[N_FOLD, c] = 0.0
    return factor


#: Draws in a chunk of kernel Pegasos or the Perceptron (see kernel_pegasos_blocks).
CHUNK_DRAWS = 256

# the chunk's counters (the last array of its state)
N_ROWS = 0
N_COLS = 1


@njit
def chunk_steps(k, max_cols):
    """Iterations per chunk for batches of k: CHUNK_DRAWS draws (at most max_cols), at least one."""
    return max(1, min(CHUNK_DRAWS, max_cols) // k)


@njit
def new_chunk(n, n_problems, k, max_cols):
    """An empty chunk for :func:`kernel_pegasos_blocks`:
    ``(local, column, chunk_rows, col_rows, kc, pending, gl, counts)``.

    ``chunk_rows[:counts[N_ROWS]]`` are the examples drawn in the chunk so far
    (``local`` maps an example to its position there, -1 outside),
    ``col_rows[:counts[N_COLS]]`` those whose coefficients changed
    (``column`` likewise), ``kc[r, q]`` the augmented kernel between chunk row
    r and column q, ``pending[q]`` the change of column q's coefficients not
    yet in the responses ``g``, ``gl[r]`` chunk row r's current responses.
    """
    cap = chunk_steps(k, max_cols) * k
    return (np.full(n, -1, np.int64), np.full(n, -1, np.int64), np.zeros(cap, np.int64),
            np.zeros(cap, np.int64), np.zeros((cap, cap)), np.zeros((cap, n_problems)),
            np.zeros((cap, n_problems)), np.zeros(2, np.int64))


@njit
def _cross(rows, n_features, sqnorm, kern, idx_a, idx_b, max_cols):
    """K(X[idx_a], X[idx_b]) + bias2, the rows ``idx_b`` copied at most ``max_cols`` at a time."""
    code, gamma, coef0, degree, bias2 = kern
    out = np.empty((idx_a.shape[0], idx_b.shape[0]))
    for start in range(0, idx_b.shape[0], max_cols):
        stop = min(idx_b.shape[0], start + max_cols)
        out[:, start:stop] = pair_block(rows, n_features, sqnorm, idx_a, idx_b[start:stop], code,
                                        gamma, coef0, degree) + bias2
    return out


@njit
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


@njit
def _join(rows, n_features, sqnorm, kern, max_cols, batch, g, chunk):
    """Bring the batch's examples into the chunk: responses ``g`` plus the chunk's
    pending changes.  Returns kernel evaluations."""
    local, _, chunk_rows, col_rows, kc, pending, gl, counts = chunk
    first = counts[N_ROWS]
    n_rows = counts[N_ROWS] = _admit(batch, local, chunk_rows, first)
    gl[first:n_rows] = g[chunk_rows[first:n_rows]]
    n_cols = counts[N_COLS]
    if n_rows == first or n_cols == 0:
        return 0
    block = _cross(rows, n_features, sqnorm, kern, chunk_rows[first:n_rows], col_rows[:n_cols],
                   max_cols)
    kc[first:n_rows, :n_cols] = block
    gl[first:n_rows] += np.dot(block, pending[:n_cols])
    return (n_rows - first) * n_cols


@njit
def _new_columns(rows, n_features, sqnorm, kern, max_cols, members, chunk):
    """Give the members that have no column in the chunk one: their kernel with
    every chunk row.  Returns kernel evaluations."""
    _, column, chunk_rows, col_rows, kc, pending, _, counts = chunk
    first = counts[N_COLS]
    n_cols = counts[N_COLS] = _admit(members, column, col_rows, first)
    pending[first:n_cols] = 0.0
    n_rows = counts[N_ROWS]
    if n_cols > first:
        kc[:n_rows, first:n_cols] = _cross(rows, n_features, sqnorm, kern, chunk_rows[:n_rows],
                                           col_rows[first:n_cols], max_cols)
    return n_rows * (n_cols - first)


@njit
def _chunk_step(members, coef_w, scale, w2_new, a, beta, u, chunk):
    """Add ``coef_w`` (in units of w) at ``members`` to every problem, within the chunk.

    ``w2_new`` holds ||w||^2 on entry and receives ||w + dw||^2 = ||w||^2 +
    2 <w, dw> + <dw, dw>, with <w, phi(x_i)> = scale * gl from the chunk
    rows' responses and <dw, dw> from their kernel values.  The chunk rows'
    responses are updated at once; the other rows' wait in ``pending``.  A
    problem with ``beta[c] != 0`` keeps its lazy average ``u`` in step.
    """
    local, column, _, _, kc, pending, gl, counts = chunk
    count = members.shape[0]
    n_rows = counts[N_ROWS]
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
    for m in range(count):
        i = members[m]
        q = column[i]
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


@njit
def flush_chunk(rows, n_features, sqnorm, kern, max_cols, g, chunk):
    """The chunk's pending changes into every row's responses, by kernel blocks of at
    most ``max_cols`` columns (:func:`.blocks.add_block`); empties the chunk.
    Returns kernel evaluations."""
    local, column, chunk_rows, col_rows, _, pending, _, counts = chunk
    code, gamma, coef0, degree, bias2 = kern
    n_cols = counts[N_COLS]
    for start in range(0, n_cols, max_cols):
        stop = min(n_cols, start + max_cols)
        add_block(rows, n_features, sqnorm, col_rows[start:stop], code, gamma, coef0, degree,
                  bias2, pending[start:stop], g)
    for r in range(counts[N_ROWS]):
        local[chunk_rows[r]] = -1
    for q in range(n_cols):
        column[col_rows[q]] = -1
    counts[:] = 0
    return g.shape[0] * n_cols


@njit
def kernel_pegasos_blocks(rows, n_features, data, kern, plan, state, chunk, idx, t, finish):
    """Run ``len(idx) // k`` iterations of mini-batch kernel Pegasos (or the
    kernel Perceptron) on every one-vs-rest problem at once.

    Each iteration draws the k examples ``idx[step*k:(step+1)*k]``, judges
    their margins with w_t on every problem, and changes the coefficients of
    the union of the problems' violators.

    ``mode == PEGASOS``: the linear algorithm of ``linear.pegasos_steps`` in
    the dual representation -- shrink by (1 - 1/t), add (1/(lam t k)) s_i y_i
    phi(x_i) for each violator (y_i <w, phi(x_i)> < 1), project onto
    ||w||^2 <= radius2 (0 = off).  ``mode == PERCEPTRON``: add y_i phi(x_i)
    whenever y_i <w, phi(x_i)> <= 0; no shrinking, no projection.

    **Chunks.**  The draws do not depend on the model, so the responses of
    all n rows need not follow every step: the iterations are grouped in
    chunks of :func:`chunk_steps` (t = 1..P, P+1..2P, ...; about
    CHUNK_DRAWS draws).  Within a chunk only the rows drawn in it are kept
    current (``chunk``: their kernel values with the chunk's changed
    examples, computed as rows join and as examples change); at the chunk's
    end the changes reach every row's responses in one block of all the
    chunk's changed examples (:func:`flush_chunk`), a matrix product of up to
    CHUNK_DRAWS columns where a step alone had k: one pass over X for the
    whole chunk.  Every margin is the exact one of the step's iterate, so the
    iterates are those of the step-by-step algorithm up to rounding.  The
    chunk is kept across calls (chunk boundaries depend on t alone, so
    splitting a run into calls does not change a bit); ``finish`` empties it
    at the end of the call.

    Arguments, grouped:

    * ``data = (sqnorm, diag, Y, sw)``: squared row norms, K(x_i, x_i),
      targets (n, n_problems) in {-1, +1}, loss weights (n,);
    * ``kern = (code, gamma, coef0, degree, bias2)``: ``bias2`` is added to
      every kernel value (an augmented constant feature: the intercept);
    * ``plan = (k, lam, radius2, mode, avg_start, max_cols)``: iterates of
      steps t >= avg_start enter the average; at most ``max_cols`` rows are
      copied densely at once;
    * ``state = (a, g, u, scal)``: coefficients, responses and lazy-average
      vectors (n, n_problems), and the scalars (N_SCALARS, n_problems), all
      updated in place.  ``<w_c, phi(x_j)> = scal[S, c] * g[j, c]`` once the
      chunk is flushed; the averaged coefficients are (u + scal[BETA] a) /
      scal[N_AVG];
    * ``chunk``: from :func:`new_chunk` (k, max_cols as in ``plan``).

    Returns (t after the last step, number of kernel evaluations).
    """
    k, lam, radius2, mode, avg_start, max_cols = plan
    a, g, u, scal = state
    sqnorm, Y, sw = data[0], data[2], data[3]
    local, pending, gl, counts = chunk[0], chunk[5], chunk[6], chunk[7]
    n, n_problems = g.shape
    per_chunk = chunk_steps(k, max_cols)
    slot = np.full(n, -1, np.int64)
    members = np.empty(k, np.int64)
    coef_w = np.empty((k, n_problems))
    w2_new = np.empty(n_problems)
    evals = 0
    inv_lam_k = 1.0 / (lam * k)
    for step in range(idx.shape[0] // k):
        batch = idx[step * k : (step + 1) * k]
        evals += _join(rows, n_features, sqnorm, kern, max_cols, batch, g, chunk)
        if mode == PEGASOS:
            step_size = inv_lam_k / t
        else:
            step_size = 1.0
        count = _violators(batch, Y, gl, local, scal, mode, slot, members, coef_w, step_size, sw)
        if mode == PEGASOS:
            _shrink(t, scal, a, g, u)
            if t == 1:  # w = 0: the chunk's responses and changes go with it
                gl[:] = 0.0
                pending[:] = 0.0
        for m in range(count):
            slot[members[m]] = -1
        w2_new[:] = scal[W2]
        if count:
            evals += _new_columns(rows, n_features, sqnorm, kern, max_cols, members[:count],
                                  chunk)
            _chunk_step(members[:count], coef_w[:count], scal[S], w2_new, a, scal[BETA], u,
                        chunk)
        for c in range(n_problems):
            factor = _finish_step(t, c, w2_new[c], radius2, mode, avg_start, a, g, u, scal)
            if factor != 1.0:
                gl[: counts[N_ROWS], c] *= factor
                pending[: counts[N_COLS], c] *= factor
        if t % per_chunk == 0:
            evals += flush_chunk(rows, n_features, sqnorm, kern, max_cols, g, chunk)
        t += 1
    if finish:
        evals += flush_chunk(rows, n_features, sqnorm, kern, max_cols, g, chunk)
    return t, evals


@njit
def water_level(c, budget, s):
    """The level kappa with sum_i s_i max(0, kappa - c_i) = budget (water filling).

    ``s`` are the examples' weights (the cost of a unit of slack; ones for
    the unweighted problem).  Sorting, then the first m with the level from
    the m smallest not above the (m+1)-th smallest.  budget = 0 gives the
    smallest c_i of positive weight.
    """
    order = np.argsort(c, kind="mergesort")
    n = order.shape[0]
    mass = 0.0
    excess = 0.0  # sum over the values so far of s_i (top - c_i)
    top = c[order[0]]
    for m in range(n):
        i = order[m]
        # anchored at the highest filled value (as issvm does): exact for a
        # zero budget, and no cancellation
        excess += mass * (c[i] - top)
        top = c[i]
        mass += s[i]
        if mass > 0.0:
            level = top + (budget - excess) / mass
            if m == n - 1 or level <= c[order[m + 1]]:
                return level
    return np.nan  # every weight zero: refused by the estimators


@njit
def water_level_select(c, budget, s, work, wwork):
    """The same level as :func:`water_level` in expected O(n): quickselect.

    Keeps the weight of the values known to lie below the level and the cost
    of raising them to the highest of them, and partitions the undecided
    ones (in ``work``, with their weights in ``wwork``: scratch arrays of
    len(c)) around a pivot p: if raising everything up to p costs at most the
    budget, all values <= p are below the level; otherwise the level is below
    p and the values >= p are dropped.  Pivots come from a fixed-seed
    xorshift, so the result is deterministic.
    """
    n = c.shape[0]
    for j in range(n):
        work[j] = c[j]
        wwork[j] = s[j]
    lo, hi = 0, n
    mass = 0.0
    excess = 0.0  # sum over the values known to be below the level of s (top - value)
    top = 0.0
    state = np.uint64(0x9E3779B97F4A7C15)
    while lo < hi:
        state ^= state << np.uint64(13)
        state ^= state >> np.uint64(7)
        state ^= state << np.uint64(17)
        pivot = work[lo + int(state % np.uint64(hi - lo))]
        # three-way partition of work[lo:hi]: < pivot | == pivot | > pivot
        lt, i, gt = lo, lo, hi
        while i < gt:
            v = work[i]
            if v < pivot:
                work[i] = work[lt]
                work[lt] = v
                w = wwork[i]
                wwork[i] = wwork[lt]
                wwork[lt] = w
                lt += 1
                i += 1
            elif v > pivot:
                gt -= 1
                work[i] = work[gt]
                work[gt] = v
                w = wwork[i]
                wwork[i] = wwork[gt]
                wwork[gt] = w
            else:
                i += 1
        # the cost of raising every value below the pivot to it, kept as a sum
        # of non-negative gaps (ties cost exactly 0, so a zero budget gives
        # exactly min(c), and the smallest values are always accepted)
        cost = excess + mass * (pivot - top)
        for j in range(lo, lt):
            cost += (pivot - work[j]) * wwork[j]
        if cost <= budget:
            for j in range(lo, gt):
                mass += wwork[j]
            excess = cost
            top = pivot
            lo = gt
        else:
            hi = lt
    return top + (budget - excess) / mass


@njit
def _rise(level, mass, following, left):
    """One class's level raised towards its next value ``following`` at a cost of
    ``mass`` per unit with ``left`` to spend: (level, left, whether it stopped short)."""
    cost = mass * (following - level) if mass > 0.0 else 0.0
    if following == np.inf or cost > left:
        return level + left / mass, 0.0, True
    return following, left - cost, False


@njit
def _biased_levels_sorted(p, sp, q, sq, budget):
    """:func:`water_levels_biased` on sorted values (p, q) with their weights.

    Greedy on a concave problem: raising the positives' level costs their
    weight at or below it per unit, the negatives' likewise; the cheaper one
    rises to its next value (both, at equal weights) until the budget is
    spent.  Returns (kappa_pos, kappa_neg, i, j, mu): the levels, how many of
    each class are at or below theirs, and the weight mu both classes give
    to the minimax distribution (the class with more weight gives its last
    member only the part that makes mu).
    """
    i, j = 1, 1
    kp, kn = p[0], q[0]
    mp, mq = sp[0], sq[0]
    left = budget
    while True:
        p_next = p[i] if i < p.shape[0] else np.inf
        q_next = q[j] if j < q.shape[0] else np.inf
        if mp < mq or (mp == mq and mp == 0.0 and p_next < np.inf):
            kp, left, short = _rise(kp, mp, p_next, left)
            if short:
                break
            mp += sp[i]
            i += 1
        elif mq < mp or (mq == 0.0 and q_next < np.inf):
            kn, left, short = _rise(kn, mq, q_next, left)
            if short:
                break
            mq += sq[j]
            j += 1
        else:  # equal weights: both rise at the same rate, any split is optimal
            dp, dq = p_next - kp, q_next - kn
            if dp == np.inf or dq == np.inf or mp * (dp + dq) > left:
                rise = left / mp
                lo = max(0.0, rise - dq)
                hi = min(dp, rise)
                kp += 0.5 * (lo + hi)  # the middle, as with equal counts
                kn += rise - 0.5 * (lo + hi)
                break
            left -= mp * (dp + dq)
            kp, kn = p_next, q_next
            mp += sp[i]
            mq += sq[j]
            i += 1
            j += 1
    return kp, kn, i, j, min(mp, mq)


@njit
def water_levels_biased(c_pos, s_pos, c_neg, s_neg, budget):
    """Water filling with a free bias b (two classes, equal weight below their levels).

    ``c_pos`` are the positives' responses r_i, ``c_neg`` the negatives' -r_i,
    ``s_pos``, ``s_neg`` their weights.  With margins r_i + b (positives) and
    -r_i - b (negatives), returns (kappa, b, i, j, mu): the common level, the
    bias, how many positives and negatives sit at or below it, and the weight
    of each class in the minimax distribution (see
    :func:`_biased_levels_sorted`).  The total weighted slack sum s_i
    max(0, kappa - margin_i) is ``budget``; kappa = (kappa_pos + kappa_neg) /
    2 and b = kappa - kappa_pos.  With unit weights, i = j = mu: as many
    points of each class.
    """
    op = np.argsort(c_pos, kind="mergesort")
    on = np.argsort(c_neg, kind="mergesort")
    kp, kn, i, j, mu = _biased_levels_sorted(c_pos[op], s_pos[op], c_neg[on], s_neg[on], budget)
    kappa = 0.5 * (kp + kn)
    return kappa, kappa - kp, i, j, mu


@njit
def _pick(cum, count, target):
    """The first of ``count`` candidates whose cumulative weight ``cum`` exceeds ``target``.

    With unit weights (cum = 1, 2, ...) and target = u * count this is the
    candidate at position floor(u * count).
    """
    q = np.searchsorted(cum[:count], target, side="right")
    return min(q, count - 1)


@njit
def _sbp_draws(t, Y, r, budgets, sw, biased, radius, draws, slot, members, coef_w, work, cands,
               cum):
    """Every problem's k draws (k positive and k negative with a bias) from the
    water-filled distribution of the current responses, merged by example.

    Unbiased: the candidates are the points with y_j r_j at or below the water
    level (in index order), drawn in proportion to their weights ``sw``; each
    draw adds eta/k y_i.  Biased: the lowest margins of each class (ties in
    index order) from the two-level water filling, each class's draws in
    proportion to their weights (the last one's capped so that both classes
    weigh the same); a positive draw adds eta/(2k), a negative one -eta/(2k).
    Returns the number of distinct examples drawn.
    """
    n, n_problems = Y.shape
    k = draws.shape[1] // 2 if biased else draws.shape[1]
    eta = 1.0 / (radius * math.sqrt(t))
    count = 0
    for c in range(n_problems):
        if biased:
            pos = np.flatnonzero(Y[:, c] > 0)
            neg = np.flatnonzero(Y[:, c] < 0)
            c_pos = r[pos, c]
            c_neg = -r[neg, c]
            order_pos = np.argsort(c_pos, kind="mergesort")
            order_neg = np.argsort(c_neg, kind="mergesort")
            low_pos = pos[order_pos]
            low_neg = neg[order_neg]
            _, _, m_pos, m_neg, mu = _biased_levels_sorted(
                c_pos[order_pos], sw[low_pos], c_neg[order_neg], sw[low_neg], budgets[c])
            for low, m, first in ((low_pos, m_pos, 0), (low_neg, m_neg, k)):
                total = 0.0
                for q in range(m):
                    total += sw[low[q]]
                    cum[q] = min(total, mu)
                for q in range(k):  # the class's draws are draws[c, first:first + k]
                    i = low[_pick(cum, m, draws[c, first + q] * mu)]
                    count = _merge(i, c, (0.5 * eta / k) * Y[i, c], slot, members, coef_w,
                                   count)
        else:
            for j in range(n):
                work[j] = Y[j, c] * r[j, c]
            kappa = water_level_select(work[:n], budgets[c], sw, work[n:2 * n], work[2 * n:])
            n_cand = 0
            total = 0.0
            for j in range(n):
                if Y[j, c] * r[j, c] <= kappa:
                    cands[n_cand] = j
                    total += sw[j]
                    cum[n_cand] = total
                    n_cand += 1
            for q in range(k):
                i = cands[_pick(cum, n_cand, draws[c, q] * total)]
                count = _merge(i, c, (eta / k) * Y[i, c], slot, members, coef_w, count)
    return count


@njit
def _merge(i, c, value, slot, members, coef_w, count):
    """Add ``value`` to example i's coefficient for problem c; the new member count."""
    if slot[i] < 0:
        slot[i] = count
        members[count] = i
        coef_w[count, :] = 0.0
        count += 1
    coef_w[slot[i], c] += value
    return count


@njit
def sbp_blocks(rows, n_features, data, kern, plan, state, draws, t):
    """Run ``len(draws)`` iterations of the mini-batch SBP on every one-vs-rest problem.

    Each iteration finds every problem's water level, draws k examples per
    problem from its minimax-optimal distribution (``draws[step, c]``: the
    uniforms of problem c), and takes the step eta = 1/(R sqrt(t)) along the
    average of their y_i phi(x_i): the union of the draws over the problems
    costs one kernel block (:func:`.blocks.add_block`), which updates every
    problem's responses.  Then every iterate is projected onto the unit ball
    (through its maintained ||w||^2) and summed into the average.

    * ``data = (sqnorm, Y, budgets, sw)``: squared row norms, targets (n,
      n_problems), each problem's slack budget n nu, the examples' weights
      (the cost of their slack: sum_i sw_i xi_i <= n nu);
    * ``kern = (code, gamma, coef0, degree)``;
    * ``plan = (radius, biased, avg_start, max_cols)``: R, the two-level
      variant, the first averaged iterate, the columns gathered at once;
    * ``state = (a, r, a_sum, r_sum, scal)``: coefficients and responses
      (n, n_problems), their sums over the averaged iterates, and
      ``scal`` (SBP_SCALARS, n_problems): ||w||^2 and the number of averaged
      iterates.

    Returns (t after the last step, number of kernel evaluations).
    """
    sqnorm, Y, budgets, sw = data
    code, gamma, coef0, degree = kern
    radius, biased, avg_start, max_cols = plan
    a, r, a_sum, r_sum, scal = state
    n, n_problems = Y.shape
    per = draws.shape[2]
    slot = np.full(n, -1, np.int64)
    members = np.empty(per * n_problems, np.int64)
    coef_w = np.empty((per * n_problems, n_problems))
    work = np.empty(3 * n)
    cands = np.empty(n, np.int64)
    cum = np.empty(n)
    ones = np.ones(n_problems)
    no_average = np.zeros(n_problems)
    evals = 0
    for step in range(draws.shape[0]):
        count = _sbp_draws(t, Y, r, budgets, sw, biased, radius, draws[step], slot, members,
                           coef_w, work, cands, cum)
        for m in range(count):
            slot[members[m]] = -1
        w2 = scal[SBP_W2].copy()
        evals += _add_block(rows, n_features, sqnorm, (code, gamma, coef0, degree, 0.0),
                            members[:count], coef_w[:count], ones, w2, max_cols, a, r,
                            no_average, a)
        for c in range(n_problems):
            scal[SBP_W2, c] = _project_unit_ball(c, w2[c], a, r)
            if t >= avg_start:
                for j in range(n):
                    a_sum[j, c] += a[j, c]
                    r_sum[j, c] += r[j, c]
                scal[SBP_N_AVG, c] += 1.0
        t += 1
    return t, evals


@njit
def _project_unit_ball(c, w2, a, r):
    """Scale problem c's coefficients and responses onto ||w|| <= 1; the new ||w||^2."""
    if not w2 < np.inf:
        for j in range(a.shape[0]):  # overflow: reported by the caller's finite check
            a[j, c] = np.nan
        return w2
    if w2 <= 1.0:
        return max(w2, 0.0)
    f = 1.0 / math.sqrt(w2)
    for j in range(a.shape[0]):
        a[j, c] *= f
        r[j, c] *= f
    return 1.0
