"""The working-set dual solver's inner solve: SMO on one q x q block.

The dual of the SVM with SVC's intercept, for targets y in {-1, +1} and
bounds C_i (C times the loss weight of row i)::

    min_a  1/2 a'Qa - sum(a)   subject to  0 <= a_i <= C_i,  y'a = 0,

with Q_ij = y_i y_j K(x_i, x_j) and the gradient G = Qa - 1.  The Python
driver (:mod:`pegasos._solvers.working_set`) keeps G for every row and every
one-vs-rest problem, picks a working set of q rows, and hands each problem's
block here: its kernel matrix ``K`` (q, q), targets, bounds, variables and
gradients.  :func:`solve_block` then runs LIBSVM's SMO restricted to the
block -- i the row of largest -y_i G_i that may move up, j chosen by
LIBSVM's second-order rule (Fan, Chen and Lin, JMLR 2005) among the rows
that may move down -- until the block's largest violation
``max_up(-yG) - min_low(-yG)`` falls below ``max(tol, ratio * first)``
(ThunderSVM's rule: a tenth of where it started) or after ``max_steps``
pair steps.  Rows outside the block keep their variables; the driver then
brings every row's gradient up to date with one block product.

A row with C_i = 0 (a zero loss weight, or an empty slot of the block) can
move neither way and is never picked.
"""

from typing import NamedTuple

import numpy as np
from numba import prange

from ._jit import njit, njit_parallel

#: Curvature used when K_ii + K_jj - 2 K_ij <= 0 (LIBSVM's TAU).
TAU = 1e-12


class InnerPlan(NamedTuple):
    """When :func:`solve_block` stops: violation ``<= max(tol, ratio * first)``, or
    after ``max_steps`` pair steps.  ``by_sign``: LIBSVM's Solver_NU (the nu problems,
    whose variables of each sign keep their sum), :func:`solve_block_by_sign`: pairs of
    one sign only, and the violation the larger of the two signs'."""

    tol: float
    ratio: float
    max_steps: int
    by_sign: bool


class Subproblem(NamedTuple):
    """One problem restricted to the working set (its block): kernel values ``K``
    (q, q; float64, or the float32 kept columns as they are, every sum taken in float64
    all the same), targets ``y``, bounds ``C``; variables ``a`` and gradients ``G`` (both
    (q,), updated in place).  (:class:`.blocks.Block` is another thing: the engine's
    gathered rows of a block of columns.)"""

    K: np.ndarray
    y: np.ndarray
    C: np.ndarray
    a: np.ndarray
    G: np.ndarray


@njit
def violation(y, C, a, G):
    """(m, M, i): ``m = max -y_t G_t`` over rows that may move up (i its row, -1 if
    none) and ``M = min -y_t G_t`` over rows that may move down (LIBSVM's Gmax, -Gmax2)."""
    m, M, i = -np.inf, np.inf, -1
    for t in range(y.shape[0]):
        s = -y[t] * G[t]
        above, below = a[t] > 0.0, a[t] < C[t]
        pos = y[t] > 0
        # selects, not branches: which rows may move follows the data, which the CPU
        # cannot predict (a branch per row measured 3 times slower); the one branch
        # left is rarely taken
        up = s if (below and pos) or (above and not pos) else -np.inf
        if up > m:
            m, i = up, t
        M = min(M, s if (above and pos) or (below and not pos) else np.inf)
    return m, M, i


@njit
def violation_by_sign(y, C, a, G):
    """:func:`violation` of each sign's variables: (m, M, i) of y = +1, then of y = -1
    (LIBSVM's Solver_NU: Gmaxp, -Gmaxp2, and Gmaxn, -Gmaxn2)."""
    mp, Mp, ip = -np.inf, np.inf, -1
    mn, Mn, i_n = -np.inf, np.inf, -1
    for t in range(y.shape[0]):  # (selects, as in violation)
        s = -y[t] * G[t]
        above, below = a[t] > 0.0, a[t] < C[t]
        pos = y[t] > 0
        up = s if pos and below else -np.inf
        if up > mp:
            mp, ip = up, t
        Mp = min(Mp, s if pos and above else np.inf)
        up = s if not pos and above else -np.inf
        if up > mn:
            mn, i_n = up, t
        Mn = min(Mn, s if not pos and below else np.inf)
    return mp, Mp, ip, mn, Mn, i_n


@njit
def second_order_pair(block, diag, i, m, sign):
    """(j, gain) for the pair (i, j): LIBSVM's second-order choice among the rows that
    may move down with -y_j G_j < m (the largest decrease of the objective, ``gain``
    < 0); -1 if none.  ``diag`` is K's diagonal; ``sign`` +1 or -1 keeps to the rows
    of that sign (the nu problems), 0 takes all."""
    K, y, C, a, G = block
    j, best = -1, np.inf
    Ki = K[i]
    for t in range(y.shape[0]):
        if sign != 0.0 and y[t] != sign:
            continue
        if not ((a[t] > 0.0) if y[t] > 0 else (a[t] < C[t])):
            continue
        b = m + y[t] * G[t]
        if b > 0.0:
            curv = diag[i] + diag[t] - 2.0 * np.float64(Ki[t])
            gain = -(b * b) / (curv if curv > 0.0 else TAU)
            if gain <= best:
                j, best = t, gain
    return j, best


@njit
def pair_step(block, i, j):
    """Move a_i by y_i t and a_j by -y_j t (y'a unchanged) with the step t that
    minimises the objective inside the box, and update G over the block (K is
    symmetric: its rows i and j are read, contiguously)."""
    K, y, C, a, G = block
    curv = np.float64(K[i, i]) + np.float64(K[j, j]) - 2.0 * np.float64(K[i, j])
    t = (y[j] * G[j] - y[i] * G[i]) / (curv if curv > 0.0 else TAU)
    room_i = C[i] - a[i] if y[i] > 0 else a[i]
    room_j = a[j] if y[j] > 0 else C[j] - a[j]
    t = min(t, room_i, room_j)
    if t == room_i:  # exactly at the bound, without rounding
        a[i] = C[i] if y[i] > 0 else 0.0
    else:
        a[i] += y[i] * t
    if t == room_j:
        a[j] = 0.0 if y[j] > 0 else C[j]
    else:
        a[j] -= y[j] * t
    Ki, Kj = K[i], K[j]
    for k in range(y.shape[0]):
        G[k] += y[k] * t * (np.float64(Ki[k]) - np.float64(Kj[k]))


@njit
def solve_block(block, plan):
    """SMO on the block until its violation is ``<= max(plan.tol, plan.ratio * first)``
    or ``plan.max_steps`` steps.  Returns (steps, first violation, last violation).
    (``plan.by_sign``: :func:`solve_block_by_sign` instead, chosen by the caller so
    that a fit compiles only the one it runs.)"""
    diag = np.diag(block.K).astype(np.float64)
    m, M, i = violation(block.y, block.C, block.a, block.G)
    first = m - M
    stop = max(plan.tol, plan.ratio * first)
    steps = 0
    while m - M > stop and steps < plan.max_steps:
        j, _ = second_order_pair(block, diag, i, m, 0.0)
        if j < 0:
            break
        pair_step(block, i, j)
        steps += 1
        m, M, i = violation(block.y, block.C, block.a, block.G)
    return steps, first, m - M


@njit
def solve_block_by_sign(block, plan):
    """:func:`solve_block` as LIBSVM's Solver_NU: each sign's worst variable i and its
    second-order j of the same sign, the pair of the larger decrease stepped (ties to
    the later j, as LIBSVM's scan)."""
    diag = np.diag(block.K).astype(np.float64)
    mp, Mp, ip, mn, Mn, i_n = violation_by_sign(block.y, block.C, block.a, block.G)
    first = max(mp - Mp, mn - Mn)
    stop = max(plan.tol, plan.ratio * first)
    steps, now = 0, first
    while now > stop and steps < plan.max_steps:
        jp, gp = second_order_pair(block, diag, ip, mp, 1.0) if ip >= 0 else (-1, np.inf)
        jn, gn = second_order_pair(block, diag, i_n, mn, -1.0) if i_n >= 0 else (-1, np.inf)
        if jp < 0 and jn < 0:
            break
        if jn < 0 or (jp >= 0 and (gp < gn or (gp == gn and jp > jn))):
            pair_step(block, ip, jp)
        else:
            pair_step(block, i_n, jn)
        steps += 1
        mp, Mp, ip, mn, Mn, i_n = violation_by_sign(block.y, block.C, block.a, block.G)
        now = max(mp - Mp, mn - Mn)
    return steps, first, now


@njit_parallel
def gather_set(store, slots, rows, out):
    """K over the working set, ``out[a, b] = store[slots[a], rows[b]]``, in parallel
    over its rows, read whole from a kernel matrix (``store`` the matrix, or the kept
    columns of rows whose matrix it is), or by a holder of some of a problem's rows
    (:mod:`pegasos._solvers.across`: ``rows`` its rows of the working set, ``out`` (q,
    len(rows))).  Nothing is kept there, and :func:`kept_block`, which keeps what it
    can of the previous block, compiled in 1.6-1.9 s, most of DualSVC's first fit on
    digits; this compiles in 0.4-0.5 s (serially in 0.1 s, but then 0.9 ms slower per
    iteration for q = 1024)."""
    for a in prange(slots.shape[0]):
        column, target = store[slots[a]], out[a]
        for b in range(rows.shape[0]):
            target[b] = column[rows[b]]
    return out


@njit_parallel
def kept_block(store, slots, rows, out, prev, at):
    """K over the working set, ``out[a, b] = store[slots[a], rows[b]]``, into
    ``out`` (q, q), a buffer the caller keeps, in parallel over its rows (each entry
    written by one thread): :func:`gather_set`'s block, bit for bit, on every CPU.  A
    variable also in the previous set, whose block is ``prev`` (``at[a]``: its position
    there; -1 for a new one, and for all of a first set), has its entries with the other
    kept ones copied from ``prev`` (they are the same entries of the same columns), and
    only its entries with the new ones read from its column.  Those of all q variables,
    each read at q scattered rows, took 3 ms of every iteration on the covtype subset
    (q = 1024, 15,000 rows), about 15% of the fit; the parallel gather had taken 0.5 ms
    where the columns were few enough to stay in cache, against 1.2-1.4 ms into a fresh
    buffer and 2.7 ms serially.

    The kept entry with a new one is not read back from the new one's row of ``out``
    (K is symmetric): the kept columns are symmetric only where the products are, and
    BLAS's are not on every CPU (OpenBLAS' Haswell ``sgemm`` gives ``A @ B.T`` and
    ``(B @ A.T).T`` one unit in the last place apart in 0.4% of the entries), so the
    block would have depended on which variables were kept."""
    new, kept = np.flatnonzero(at < 0), np.flatnonzero(at >= 0)
    for r in prange(new.shape[0]):  # (the new ones apart: the threads share them evenly)
        column, target = store[slots[new[r]]], out[new[r]]
        for b in range(rows.shape[0]):
            target[b] = column[rows[b]]
    new_rows = rows[new]
    for r in prange(kept.shape[0]):
        old, target, column = prev[at[kept[r]]], out[kept[r]], store[slots[kept[r]]]
        for c in range(kept.shape[0]):
            target[kept[c]] = old[at[kept[c]]]
        for c in range(new.shape[0]):
            target[new[c]] = column[new_rows[c]]
    return out


#: Entries of each row of Ft per tile in :func:`add_columns` (a tile of every row of
#: Ft stays in the L1/L2 cache while the columns stream through).
ADD_TILE = 1024


@njit_parallel
def add_columns(store, slots, delta, Ft):
    """``Ft += (store[slots].T @ delta).T``: the kept columns of the rows whose variables
    moved, times their change, in parallel over tiles of Ft's columns (Ft is F
    transposed, (problems, n), so that each update is a contiguous multiply-add).  A
    row moves in few of the problems, so each column is added only to the problems
    whose delta is not zero (a dense product cost 4x more at 10 classes); every entry
    is written by one thread, in a fixed order."""
    n, m = Ft.shape[1], slots.shape[0]
    for tile in prange((n + ADD_TILE - 1) // ADD_TILE):
        lo = tile * ADD_TILE
        hi = min(n, lo + ADD_TILE)
        for r in range(m):
            column = store[slots[r], lo:hi]
            for c in range(Ft.shape[0]):
                d = delta[r, c]
                if d != 0.0:
                    target = Ft[c, lo:hi]
                    for j in range(hi - lo):
                        target[j] += d * column[j]
