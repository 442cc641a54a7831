"""Water filling: the level to which a slack budget raises the lowest responses.

The SBP's minimax-optimal distribution over the training points (Cotter,
Shalev-Shwartz & Srebro, ICML 2012) puts its weight on the points whose
margins lie at or below a water level: the level to which a budget of
(weighted) slack fills the lowest margins.  :func:`water_level_select` finds
it by quickselect in expected O(n) (the draws, and the output model's
margin), and :func:`biased_levels_sorted` the two class levels of the variant
with a free bias, from the margins sorted (the draws; the output model's,
``_solvers.sbp.water_levels_biased``).  ``tests/naive.py`` has the reference of
each (bisections).
"""

import numpy as np

from ._jit import njit


@njit
def water_level_select(c, budget, s, work, wwork):
    """The level kappa with sum_i s_i max(0, kappa - c_i) = budget (water filling), by
    quickselect in expected O(n).

    ``s`` are the examples' weights (the cost of a unit of slack; ones for the
    unweighted problem); budget = 0 gives the smallest c_i of positive weight.

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
def biased_levels_sorted(p, sp, q, sq, budget):
    """``_solvers.sbp.water_levels_biased`` on sorted values (p, q) with their weights.

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

