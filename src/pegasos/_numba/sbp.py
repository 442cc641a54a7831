"""The mini-batch Kernelized Stochastic Batch Perceptron (Cotter,
Shalev-Shwartz & Srebro, ICML 2012), every one-vs-rest problem trained at once.

The SBP needs every training point's response after every step: its
distribution over the points is the minimax-optimal one of the current
responses (:mod:`.water_filling`).  Problem c's iterate is ``w_c = sum_l
a[l, c] phi(x_l)`` with responses ``r[j, c] = <w_c, phi(x_j)>``; a step's
draws over all the problems are merged by example (:mod:`.changes`), and
their kernel columns are one block of the engine (:func:`.blocks.add_block`)
that updates every problem's responses, or rows of a small training set's
kernel matrix (:class:`.blocks.OnMatrix`): one step, :func:`sbp_blocks`, compiled
for both.
"""

import math
from typing import NamedTuple

import numpy as np
from numba.extending import overload

from ._jit import njit, recompiled
from .blocks import add_block, pair_block
from .changes import clear, merge
from .water_filling import biased_levels_sorted, water_level_select

# rows of the scalar state (SBPState.scal)
SBP_W2 = 0  # ||w||^2
SBP_N_AVG = 1  # iterates summed into the average
SBP_SCALARS = 2


class SBPData(NamedTuple):
    """The training problem: ``points`` (:class:`~.kernels.Points`), targets
    ``Y`` (n, n_problems) in {-1, +1}, each problem's slack budget
    ``budgets`` (n nu times the mean weight), and the examples' weights ``sw``
    (the cost of their slack: sum_i sw_i xi_i <= budget)."""

    points: object
    Y: np.ndarray
    budgets: np.ndarray
    sw: np.ndarray


class Unbiased(NamedTuple):
    """The draws of one water level (no bias): :func:`_draw_unbiased`."""


class Biased(NamedTuple):
    """The draws of the two-level variant with a free bias: :func:`_draw_biased`."""


#: The two kinds of draws, a type each (as the engines of :mod:`.blocks`): a solver
#: given one (in its plan) is compiled with that kind alone.  The unbiased draws need
#: no sort, the biased ones two stable sorts per step; compiling both cost the
#: default (unbiased) SBP's first fit seconds (docs/journal/compile_time.md).  Tell them
#: apart by type (``isinstance``): as empty tuples they compare equal.
UNBIASED = Unbiased()
BIASED = Biased()


class SBPPlan(NamedTuple):
    """The settings: ``radius`` R (the step is 1/(R sqrt(t))), the ``draws``
    (:data:`UNBIASED`, or :data:`BIASED`: the two-level variant with a free
    bias), the first averaged step ``avg_start``, ``max_cols``, the most rows
    copied densely at once, and the ``engine`` (:data:`.blocks.SERIAL` or
    :data:`.blocks.THREADS`, or the kernel matrix as an :class:`.blocks.OnMatrix`)."""

    radius: float
    draws: object
    avg_start: int
    max_cols: int
    engine: object


class SBPState(NamedTuple):
    """Coefficients ``a`` and responses ``r`` (n, n_problems), their sums over
    the averaged iterates ``a_sum``, ``r_sum``, and the scalars ``scal``
    (SBP_SCALARS, n_problems): ||w||^2 and the number of averaged iterates."""

    a: np.ndarray
    r: np.ndarray
    a_sum: np.ndarray
    r_sum: np.ndarray
    scal: np.ndarray


class Scratch(NamedTuple):
    """Work arrays of the draws: ``work`` (3n), ``cands`` (n, int64), ``cum`` (n), and
    one problem's draws of a step: examples ``picks`` (int64) and their steps ``values``
    (in units of w), as many as its uniforms (:func:`draw_one`)."""

    work: np.ndarray
    cands: np.ndarray
    cum: np.ndarray
    picks: np.ndarray
    values: np.ndarray


@njit(inline="always")
def _pick(cum, count, target):
    """The first of ``count`` candidates whose cumulative weight ``cum`` exceeds ``target``.

    With unit weights (cum = 1, 2, ...) and target = u * count this is the
    candidate at position floor(u * count).  A bisection, as ``np.searchsorted(cum[:count],
    target, side="right")`` (whose compiled form costs a fit's first call a few tenths of
    a second more).
    """
    lo, hi = 0, count
    while lo < hi:
        mid = (lo + hi) // 2
        if cum[mid] <= target:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < count - 1 else count - 1  # min(), without compiling it for two ints


@njit(inline="always")
def _draw_biased(c, step, data, r, uniforms, scratch):
    """Problem c's k positive and k negative draws of the two-level water filling.

    The lowest margins of each class (ties in index order), each class's
    draws in proportion to their weights (the last one's capped so that both
    classes weigh the same); a positive draw adds step/(2k), a negative one
    -step/(2k).  Returns 2k: the draws are ``scratch.picks[:2k]``, their steps
    ``scratch.values[:2k]``.
    """
    Y, sw, cum = data.Y, data.sw, scratch.cum
    k = uniforms.shape[0] // 2
    pos = np.flatnonzero(Y[:, c] > 0)
    neg = np.flatnonzero(Y[:, c] < 0)
    c_pos = r[pos, c]
    c_neg = -r[neg, c]
    order_pos = np.argsort(c_pos, kind="mergesort")
    order_neg = np.argsort(c_neg, kind="mergesort")
    low_pos = pos[order_pos]
    low_neg = neg[order_neg]
    _, _, m_pos, m_neg, mu = biased_levels_sorted(
        c_pos[order_pos], sw[low_pos], c_neg[order_neg], sw[low_neg], data.budgets[c])
    for low, m, first in ((low_pos, m_pos, 0), (low_neg, m_neg, k)):
        total = 0.0
        for q in range(m):
            total += sw[low[q]]
            cum[q] = min(total, mu)
        for q in range(first, first + k):  # the class's draws are uniforms[first:first + k]
            i = low[_pick(cum, m, uniforms[q] * mu)]
            scratch.picks[q] = i
            scratch.values[q] = (0.5 * step / k) * Y[i, c]
    return 2 * k


@njit(inline="always")
def _draw_unbiased(c, step, data, r, uniforms, scratch):
    """Problem c's k draws: the points with y_j r_j at or below the water level (in
    index order), in proportion to their weights; each adds step/k y_i.
    Returns k: the draws are ``scratch.picks[:k]``, their steps ``scratch.values[:k]``."""
    Y, sw = data.Y, data.sw
    work, cands, cum = scratch.work, scratch.cands, scratch.cum
    n = Y.shape[0]
    k = uniforms.shape[0]
    for j in range(n):
        work[j] = Y[j, c] * r[j, c]
    kappa = water_level_select(work[:n], data.budgets[c], sw, work[n:2 * n], work[2 * n:])
    n_cand = 0
    total = 0.0
    for j in range(n):
        if Y[j, c] * r[j, c] <= kappa:
            cands[n_cand] = j
            total += sw[j]
            cum[n_cand] = total
            n_cand += 1
    for q in range(k):
        i = cands[_pick(cum, n_cand, uniforms[q] * total)]
        scratch.picks[q] = i
        scratch.values[q] = (step / k) * Y[i, c]
    return k


@njit(inline="always")
def _quad(x, M, z):
    """x^T M z."""
    total = 0.0
    for m in range(x.shape[0]):
        for q in range(z.shape[0]):
            total += x[m] * M[m, q] * z[q]
    return total


@njit(inline="always")
def add_columns(points, kern, plan, members, coef_w, w2_new, r):
    """``r += K(X, X[members]) @ coef_w`` and ``w2_new += <dw, dw>`` on the engine; returns
    kernel evaluations.  The responses by kernel blocks of at most
    ``plan.max_cols`` members (:func:`.blocks.add_block` on the plan's engine), <dw, dw>
    from each block's Gram matrix and the cross-block entries computed apart (count^2
    evaluations at most)."""
    count = members.shape[0]
    n, n_problems = r.shape
    evals, max_cols = 0, plan.max_cols
    for start in range(0, count, max_cols):
        stop = min(count, start + max_cols)
        gram = add_block(plan.engine, points, members[start:stop], kern, coef_w[start:stop], r)
        evals += n * (stop - start)
        for c in range(n_problems):
            w2_new[c] += _quad(coef_w[start:stop, c], gram, coef_w[start:stop, c])
        for later in range(stop, count, max_cols):  # cross terms with later chunks
            end = min(count, later + max_cols)
            cross = pair_block(points, members[start:stop], members[later:end], kern)
            evals += (stop - start) * (end - later)
            for c in range(n_problems):
                w2_new[c] += 2.0 * _quad(coef_w[start:stop, c], cross, coef_w[later:end, c])
    return evals


@njit(inline="always")
def _columns_on_matrix(points, kern, plan, members, coef_w, w2_new, r):
    """The responses and <dw, dw> from the kernel matrix (``plan.engine``, an
    :class:`.blocks.OnMatrix`): each problem's responses from the rows of K of its own
    draws (a member drawn by other problems only changes nothing here: skipped, its
    terms are zeros); no kernel evaluated."""
    K = plan.engine.K
    count = members.shape[0]
    for c in range(r.shape[1]):
        quad = 0.0
        for m in range(count):
            change = coef_w[m, c]
            if change == 0.0:
                continue
            row = K[members[m]]  # (K symmetric: a kernel column)
            for q in range(count):
                if coef_w[q, c] != 0.0:
                    quad += change * row[members[q]] * coef_w[q, c]
            for j in range(r.shape[0]):
                r[j, c] += row[j] * change
        w2_new[c] += quad
    return 0


@njit(inline="always")
def _add_draws(points, kern, plan, members, coef_w, w2_new, state):
    """Add ``coef_w`` at ``members`` to every problem's coefficients and responses;
    ``w2_new`` (||w||^2) receives ||w + dw||^2 = ||w||^2 + 2 <w, dw> + <dw, dw>, with
    <w, phi(x_i)> from the responses before this step.  Returns kernel evaluations."""
    r = state.r
    count = members.shape[0]
    for c in range(r.shape[1]):
        lin = 0.0
        for m in range(count):
            lin += coef_w[m, c] * r[members[m], c]
        w2_new[c] += 2.0 * lin
    evals = add_columns(points, kern, plan, members, coef_w, w2_new, r)
    for m in range(count):
        for c in range(r.shape[1]):
            state.a[members[m], c] += coef_w[m, c]
    return evals


@njit
def sbp_blocks(data, kern, plan, state, draws, t, scratch, changes):
    """Run ``len(draws)`` iterations of the mini-batch SBP on every one-vs-rest problem.

    Each iteration finds every problem's water level, draws k examples per
    problem from its minimax-optimal distribution (``draws[step, c]``: the
    uniforms of problem c; 2k with :data:`BIASED` draws), and takes the step eta =
    1/(R sqrt(t)) along the average of their y_i phi(x_i): the union of the
    draws over the problems costs one kernel block, which updates every
    problem's responses (:data:`sbp_on_matrix`: rows of K, the plan's engine an
    :class:`.blocks.OnMatrix`; no kernel evaluated, ``data.points`` and ``kern``
    unused).  Then every iterate is projected onto the unit ball (through its
    maintained ||w||^2) and summed into the average.

    ``data`` (:class:`SBPData`), ``kern`` (:class:`~.kernels.Kernel`, no
    ``bias2``), ``plan`` (:class:`SBPPlan`), ``state`` (:class:`SBPState`,
    updated in place), ``scratch`` (:class:`Scratch` for n examples and
    ``draws.shape[2]`` draws), ``changes`` (:func:`.changes.new_changes` for
    ``draws.shape[2]`` draws of every problem).  Returns (t after the last step, kernel
    evaluations).
    """
    evals = 0
    for step in range(draws.shape[0]):
        count = draw_all(t, data, plan, state.r, draws[step], changes, scratch)
        clear(changes, count)
        w2 = state.scal[SBP_W2].copy()
        evals += _add_draws(data.points, kern, plan, changes.members[:count],
                            changes.coef_w[:count], w2, state)
        finish_all(t, plan, w2, state)
        t += 1
    return t, evals


def draw_one(c, step, data, plan, r, uniforms, scratch):
    """Problem c's draws of one step with the step ``step`` (``uniforms``: its own), into
    ``scratch.picks`` and ``scratch.values``; returns their number.

    :func:`_draw_unbiased` or :func:`_draw_biased`, by the type of ``plan.draws``:
    compiled code calls the one of its plan alone (the overload below)."""
    one = _draw_biased if isinstance(plan.draws, Biased) else _draw_unbiased
    return one(c, step, data, r, uniforms, scratch)


@overload(draw_one)
def _draw_one(c, step, data, plan, r, uniforms, scratch):
    kind = plan.types[plan.fields.index("draws")]
    one = _draw_biased if kind.instance_class is Biased else _draw_unbiased

    def impl(c, step, data, plan, r, uniforms, scratch):
        return one(c, step, data, r, uniforms, scratch)

    return impl


@njit(inline="always")
def draw_all(t, data, plan, r, uniforms, changes, scratch):
    """Every problem's draws of step t (``uniforms[c]``: problem c's), merged by
    example into ``changes`` with the step eta = 1/(R sqrt(t)); returns the member count."""
    eta = 1.0 / (plan.radius * math.sqrt(t))
    count = np.int64(0)  # (int64 from the start, as merge() returns it)
    for c in range(data.Y.shape[1]):
        for q in range(draw_one(c, eta, data, plan, r, uniforms[c], scratch)):
            count = merge(changes, scratch.picks[q], c, scratch.values[q], count)
    return count


@njit(inline="always")
def finish_all(t, plan, w2, state):
    """After step t's draws are added (``w2``: every problem's new ||w||^2): each iterate
    projected onto the unit ball and, from ``plan.avg_start``, summed into the average."""
    a, r, a_sum, r_sum, scal = state
    for c in range(scal.shape[1]):
        scal[SBP_W2, c] = _project_unit_ball(c, w2[c], a, r)
        if t >= plan.avg_start:
            for j in range(a.shape[0]):
                a_sum[j, c] += a[j, c]
                r_sum[j, c] += r[j, c]
            scal[SBP_N_AVG, c] += 1.0


@njit(inline="always")
def _project_unit_ball(c, w2, a, r):
    """Scale problem c's coefficients and responses onto ||w|| <= 1; the new ||w||^2."""
    if not w2 < np.inf:
        for j in range(a.shape[0]):  # overflow: reported by the caller's finite check
            a[j, c] = np.nan
        return w2
    if w2 <= 1.0:
        return 0.0 if w2 < 0.0 else w2  # max(w2, 0.0), without compiling max for floats
    f = 1.0 / math.sqrt(w2)
    for j in range(a.shape[0]):
        a[j, c] *= f
        r[j, c] *= f
    return 1.0


#: The SBP's steps on a small set's kernel matrix (the plan's engine an
#: :class:`.blocks.OnMatrix`): :func:`sbp_blocks`' source compiled again with
#: :func:`_columns_on_matrix` in place of :func:`add_columns`.
sbp_on_matrix = recompiled(sbp_blocks, (_add_draws,), {"add_columns": _columns_on_matrix},
                           "sbp_on_matrix")
