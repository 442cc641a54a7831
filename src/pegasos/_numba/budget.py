"""Budgeted kernel Pegasos and the budgeted kernel Perceptron (BSGD: Wang, Crammer &
Vucetic, JMLR 2012, "Breaking the curse of kernelization: budgeted stochastic gradient
descent"), every one-vs-rest problem at once over one shared set of points.

The model of problem c is ``w_c = s_c * sum_l A[l, c] phi'(z_l)`` over at most
``plan.budget`` points ``z_l`` (``phi'`` the feature map of the kernel plus its
``bias2``, the intercept feature), shared by every problem.  A step judges its
mini-batch against the budget: the batch's kernel rows against every point are
one block of the engine (:func:`.blocks._tile`: a matrix product of the budget
and the gathered batch, then the kernel's transform), so a step costs
O(B k d) whatever the training set's size.  Each violator's coefficient is added
to its row's point (a row already in the budget keeps one point: ``ids`` holds
the rows' indices, -1 for a merged point); new points join the budget, and
while it holds more than ``plan.budget`` points, the point of the smallest
coefficients (the norm over the problems of ``s_c A[l, c]``) is

* **removed** (:data:`REMOVE`);
* **projected** onto the others (:data:`PROJECT`): its ``A[r] phi'(z_r)``
  replaced by the combination of the remaining points nearest to it in the RKHS,
  ``A[l] += A[r] p_l`` with ``G' p = G'[:, r]`` (the remaining points' kernel
  matrix ``G'`` plus :data:`RIDGE` on its diagonal), O(B^3) a removal;
* **merged** (:data:`MERGE`, the rbf's only) with the point ``z_n`` whose merge
  loses the least weight: ``z = h z_r + (1 - h) z_n``, ``h`` in [0, 1] the
  maximiser of ``sum_c (A[r, c] k'(z_r, z) + A[n, c] k'(z_n, z))^2`` found by
  :data:`GOLDEN_STEPS` steps of a golden-section search (for the rbf,
  ``k(z_r, z) = k(z_r, z_n)^((1 - h)^2)``, ``k(z_n, z) = k(z_r, z_n)^(h^2)``),
  and ``A[z] = (A[r] k'(z_r, z) + A[n] k'(z_n, z)) / k'(z, z)``, the projection of
  the pair onto ``phi'(z)`` (BSGD's ``alpha_z`` when ``bias2`` is 0).

Maintenance is a linear map of the coefficients, applied alike to ``A`` and to
the lazy average ``U`` (the average of the iterates is then the average of the
iterates as maintained since).  ``||w_c||^2`` is kept exact through every step
and every maintenance (from the kernel matrix ``G`` of the budget's points),
so the projection onto the Pegasos ball stays sound.
"""

from typing import NamedTuple

import numpy as np

from ._jit import njit
from .blocks import Block, _tile, gather_block
from .kernel_pegasos import BETA, N_AVG, N_FOLD, PEGASOS, PERCEPTRON, W2, S
from .kernels import Points, kernel_value
from .scale import settled, shrunk

MERGE = 0
REMOVE = 1
PROJECT = 2

#: Golden-section steps of a merge's h: the interval shrinks to 0.618^30 = 5e-7 of [0, 1].
GOLDEN_STEPS = 30
GOLDEN = 0.6180339887498949  # (sqrt(5) - 1) / 2

#: Added to the diagonal of the kernel matrix a projection solves with (points that
#: coincide would make it singular).
RIDGE = 1e-10

# Budget.count
N_POINTS = 0


class Budget(NamedTuple):
    """The budget's points and coefficients, updated in place: ``Z`` (cap, d) the points
    (the rows' dtype, dense), ``sqz`` their squared norms, ``A`` and ``U`` (cap,
    n_problems) the coefficients and their lazy average (averaged coefficients:
    ``(U + scal[BETA] A) / scal[N_AVG]``), ``G`` (cap, cap) the points' kernel matrix
    (no ``bias2``), ``ids`` (cap,) int64 the row each point is (-1: a merged point),
    ``scal`` (N_SCALARS, n_problems) as :class:`.kernel_pegasos.ResponseState`'s and
    ``count`` (1,) int64: the points held, ``count[N_POINTS]``.  ``cap`` is the
    budget plus one batch."""

    Z: np.ndarray
    sqz: np.ndarray
    A: np.ndarray
    U: np.ndarray
    G: np.ndarray
    ids: np.ndarray
    scal: np.ndarray
    count: np.ndarray


class BudgetPlan(NamedTuple):
    """The settings: batch size ``k``, ``lam``, the squared projection radius
    ``radius2`` (0 = off), ``mode`` (PEGASOS or PERCEPTRON), the first averaged step
    ``avg_start``, the ``budget`` (points kept after each step) and its ``strategy``
    (:data:`MERGE`, :data:`REMOVE` or :data:`PROJECT`)."""

    k: int
    lam: float
    radius2: float
    mode: int
    avg_start: int
    budget: int
    strategy: int


@njit(inline="always")
def _budget_points(budget, m):
    """The budget's first m points as the engine's :class:`~.kernels.Points`."""
    return Points(budget.Z[:m], budget.Z.shape[1], budget.sqz[:m])


@njit(inline="always")
def _fold(c, beta, budget, m):
    """U[:m, c] += beta * A[:m, c]: problem c's lazy average brought up to date."""
    for j in range(m):
        budget.U[j, c] += beta * budget.A[j, c]


@njit(inline="always")
def _slot_of(budget, row_id, block, j, Kb, Kbb, slots, old):
    """The point of row ``row_id`` (the batch's j-th, gathered in ``block``): found among
    the points, or added at the end with zero coefficients and its kernel row (``Kb``
    against the ``old`` points held before the step, ``Kbb`` against the batch, whose
    q-th row's point is ``slots[q]``, -1 for none yet)."""
    m = budget.count[N_POINTS]
    if row_id >= 0:
        for l in range(m):
            if budget.ids[l] == row_id:
                return l
    for f in range(budget.Z.shape[1]):
        budget.Z[m, f] = block.Z[j, f]
    budget.sqz[m] = block.sq_z[j]
    budget.A[m] = 0.0
    budget.U[m] = 0.0
    budget.ids[m] = row_id
    for l in range(old):
        budget.G[m, l] = budget.G[l, m] = Kb[l, j]
    for q in range(Kbb.shape[0]):
        if slots[q] >= old:
            budget.G[m, slots[q]] = budget.G[slots[q], m] = Kbb[j, q]
    budget.G[m, m] = Kbb[j, j]
    budget.count[N_POINTS] = m + 1
    return m


@njit(inline="always")
def _delete(budget, q):
    """Drop point q: the last point takes its place."""
    last = budget.count[N_POINTS] - 1
    if q != last:
        for f in range(budget.Z.shape[1]):
            budget.Z[q, f] = budget.Z[last, f]
        budget.sqz[q] = budget.sqz[last]
        budget.A[q] = budget.A[last]
        budget.U[q] = budget.U[last]
        budget.ids[q] = budget.ids[last]
        for l in range(last):
            budget.G[q, l] = budget.G[l, q] = budget.G[last, l]
        budget.G[q, q] = budget.G[last, last]
    budget.count[N_POINTS] = last


@njit(inline="always")
def _smallest(budget):
    """The point of the smallest ``sum_c (s_c A[l, c])^2`` (the first of equals)."""
    best, best_norm = 0, np.inf
    s = budget.scal[S]
    for l in range(budget.count[N_POINTS]):
        norm = 0.0
        for c in range(budget.A.shape[1]):
            a = s[c] * budget.A[l, c]
            norm += a * a
        if norm < best_norm:
            best, best_norm = l, norm
    return best


@njit(inline="always")
def _with_w(budget, c, bias2, r):
    """``sum_l A[l, c] (G[l, r] + bias2)``: ``<w_c, phi'(z_r)> / s_c``."""
    out = 0.0
    for l in range(budget.count[N_POINTS]):
        out += budget.A[l, c] * (budget.G[l, r] + bias2)
    return out


@njit
def remove_point(budget, bias2, r):
    """Remove point r; every ``||w_c||^2`` follows exactly."""
    s, A, w2 = budget.scal[S], budget.A, budget.scal[W2]
    for c in range(A.shape[1]):
        a = A[r, c]
        w2[c] += s[c] * s[c] * (a * a * (budget.G[r, r] + bias2) - 2.0 * a * _with_w(
            budget, c, bias2, r))
    _delete(budget, r)


@njit
def project_point(budget, bias2, r):
    """Project point r onto the other points (``A[l] += A[r] p_l`` with
    ``(G' + RIDGE I) p = G'[:, r]``, ``G' = G + bias2`` over the others, the same
    map for ``U``), then remove it; every ``||w_c||^2`` computed again."""
    m = budget.count[N_POINTS]
    others = np.empty(m - 1, np.int64)
    q = 0
    for l in range(m):
        if l != r:
            others[q] = l
            q += 1
    Gm = np.empty((m - 1, m - 1))
    rhs = np.empty(m - 1)
    for i in range(m - 1):
        rhs[i] = budget.G[others[i], r] + bias2
        for j in range(m - 1):
            Gm[i, j] = budget.G[others[i], others[j]] + bias2
        Gm[i, i] += RIDGE
    p = np.linalg.solve(Gm, rhs)
    A, U = budget.A, budget.U
    for i in range(m - 1):
        for c in range(A.shape[1]):
            A[others[i], c] += A[r, c] * p[i]
            U[others[i], c] += U[r, c] * p[i]
    _delete(budget, r)
    _recompute_w2(budget, bias2)


@njit(inline="always")
def _recompute_w2(budget, bias2):
    """Every ``||w_c||^2 = s_c^2 A[:, c]' (G + bias2) A[:, c]`` from the kernel matrix."""
    m = budget.count[N_POINTS]
    for c in range(budget.A.shape[1]):
        total = 0.0
        for l in range(m):
            total += budget.A[l, c] * _with_w(budget, c, bias2, l)
        budget.scal[W2, c] = budget.scal[S, c] ** 2 * total


@njit(inline="always")
def _merge_gain(A, r, n, k, h, bias2):
    """``sum_c (A[r, c] k'(z_r, z) + A[n, c] k'(z_n, z))^2`` for ``z = h z_r + (1 - h) z_n``
    (rbf: ``k' = k^((1 - h)^2) + bias2``, ``k^(h^2) + bias2``), the problems' scales in
    ``A``'s rows (see :func:`best_merge`)."""
    kr = k ** ((1.0 - h) * (1.0 - h)) + bias2
    kn = k ** (h * h) + bias2
    total = 0.0
    for c in range(A.shape[1]):
        v = A[r, c] * kr + A[n, c] * kn
        total += v * v
    return total


@njit
def golden_h(A, r, n, k, bias2):
    """The h in [0, 1] of the largest :func:`_merge_gain`: :data:`GOLDEN_STEPS` steps of
    a golden-section search (the midpoint of the last interval), and that gain."""
    lo, hi = 0.0, 1.0
    x1 = hi - GOLDEN * (hi - lo)
    x2 = lo + GOLDEN * (hi - lo)
    f1 = _merge_gain(A, r, n, k, x1, bias2)
    f2 = _merge_gain(A, r, n, k, x2, bias2)
    for _ in range(GOLDEN_STEPS):
        if f1 >= f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - GOLDEN * (hi - lo)
            f1 = _merge_gain(A, r, n, k, x1, bias2)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + GOLDEN * (hi - lo)
            f2 = _merge_gain(A, r, n, k, x2, bias2)
    h = 0.5 * (lo + hi)
    return h, _merge_gain(A, r, n, k, h, bias2)


@njit
def best_merge(budget, bias2, r):
    """The partner n of point r whose merge loses the least weight, summed over the
    problems (``sum_c s_c^2 ||A[r, c] phi'_r + A[n, c] phi'_n - A_z phi'_z||^2``), and
    its h: (n, h)."""
    m, P = budget.count[N_POINTS], budget.A.shape[1]
    scaled = np.empty((m, P))  # each problem's coefficients in units of w
    for l in range(m):
        for c in range(P):
            scaled[l, c] = budget.scal[S, c] * budget.A[l, c]
    kzz = 1.0 + bias2
    best, best_h, best_loss = -1, 0.0, np.inf
    for n in range(m):
        if n == r:
            continue
        k = budget.G[r, n]
        h, gain = golden_h(scaled, r, n, k, bias2)
        loss = -gain / kzz
        for c in range(P):
            a, b = scaled[r, c], scaled[n, c]
            loss += a * a * (budget.G[r, r] + bias2) + b * b * (budget.G[n, n] + bias2) \
                + 2.0 * a * b * (k + bias2)
        if loss < best_loss:
            best, best_h, best_loss = n, h, loss
    return best, best_h


@njit
def merge_point(budget, kern, r):
    """Merge point r with its :func:`best_merge` partner n into ``z = h z_r + (1 - h) z_n``
    (in r's place, n removed); every ``||w_c||^2`` follows exactly."""
    n, h = best_merge(budget, kern.bias2, r)
    m, d = budget.count[N_POINTS], budget.Z.shape[1]
    z = np.empty((1, d), budget.Z.dtype)
    for f in range(d):
        z[0, f] = h * np.float64(budget.Z[r, f]) + (1.0 - h) * np.float64(budget.Z[n, f])
    sq = np.empty(1)
    sq[0] = np.sum(z[0].astype(np.float64) ** 2)
    Kz = _tile(_budget_points(budget, m), 0, m, Block(np.full(1, -1, np.int64), z, z, sq),
               kern)[:, 0]
    kzz = kernel_value(kern, sq[0], sq[0], sq[0]) + kern.bias2
    b2, A, U, w2 = kern.bias2, budget.A, budget.U, budget.scal[W2]
    for c in range(A.shape[1]):
        ar, an = A[r, c], A[n, c]
        az = (ar * (Kz[r] + b2) + an * (Kz[n] + b2)) / kzz
        wv = ar * _with_w(budget, c, b2, r) + an * _with_w(budget, c, b2, n)
        wz = 0.0
        for l in range(m):
            wz += A[l, c] * (Kz[l] + b2)
        vv = ar * ar * (budget.G[r, r] + b2) + an * an * (budget.G[n, n] + b2) \
            + 2.0 * ar * an * (budget.G[r, n] + b2)
        w2[c] += budget.scal[S, c] ** 2 * (-2.0 * (wv - az * wz) + vv - az * az * kzz)
        A[r, c] = az
        U[r, c] = (U[r, c] * (Kz[r] + b2) + U[n, c] * (Kz[n] + b2)) / kzz
    for f in range(d):
        budget.Z[r, f] = z[0, f]
    budget.sqz[r], budget.ids[r] = sq[0], -1
    for l in range(m):
        budget.G[r, l] = budget.G[l, r] = Kz[l]
    budget.G[r, r] = kzz - b2
    _delete(budget, n)


@njit
def maintain(budget, kern, plan):
    """Bring the budget down to ``plan.budget`` points by the plan's strategy; returns
    the kernel evaluations (a merge's kernel row of its new point)."""
    evals = 0
    while budget.count[N_POINTS] > plan.budget:
        r = _smallest(budget)
        if plan.strategy == MERGE and budget.count[N_POINTS] > 1:
            evals += budget.count[N_POINTS]
            merge_point(budget, kern, r)
        elif plan.strategy == PROJECT and budget.count[N_POINTS] > 1:
            project_point(budget, kern.bias2, r)
        else:
            remove_point(budget, kern.bias2, r)
    return evals


@njit(inline="always")
def _settle(t, c, w2, plan, budget):
    """Problem c after step t (``||w||^2 = w2``): projection, rescaling and averaging as
    :func:`.scale.settled` decides, applied to the budget's coefficients."""
    scal, m = budget.scal, budget.count[N_POINTS]
    radius2 = plan.radius2 if plan.mode == PEGASOS else 0.0
    s, w2, factor, beta_old, beta, n_avg, n_fold, fold_now = settled(
        t, scal[S, c], w2, scal[BETA, c], scal[N_AVG, c], scal[N_FOLD, c], radius2,
        plan.avg_start)
    if factor != 1.0:
        _fold(c, beta_old, budget, m)
        for j in range(m):
            budget.A[j, c] *= factor
    if fold_now != 0.0:
        _fold(c, fold_now, budget, m)
    scal[S, c], scal[W2, c], scal[BETA, c] = s, w2, beta
    scal[N_AVG, c], scal[N_FOLD, c] = n_avg, n_fold


@njit(inline="always")
def _shrink(t, c, budget):
    """Pegasos' (1 - 1/t) on problem c; t = 1 starts from w = 0."""
    scal = budget.scal
    s, w2, restart = shrunk(t, scal[S, c], scal[W2, c])
    scal[S, c], scal[W2, c] = s, w2
    if restart:
        m = budget.count[N_POINTS]
        if scal[BETA, c] != 0.0:
            _fold(c, scal[BETA, c], budget, m)
            scal[BETA, c] = 0.0
            scal[N_FOLD, c] = 0.0
        budget.A[:m, c] = 0.0


@njit(inline="always")
def _batch_kernels(budget, data, kern, batch):
    """The batch's rows gathered, their kernel rows against the points held (m, k)
    -- one block of the engine -- and among themselves (k, k), no ``bias2``."""
    block = gather_block(data.points, batch, kern)
    m = budget.count[N_POINTS]
    Kb = _tile(_budget_points(budget, m), 0, m, block, kern)
    own = Points(block.Z, block.Z.shape[1], block.sq_z)
    Kbb = _tile(own, 0, batch.shape[0], block, kern)
    return block, Kb, Kbb


@njit(inline="always")
def _responses(budget, Kb, bias2):
    """``R[j, c] = sum_l A[l, c] (Kb[l, j] + bias2)``: the batch's responses, unscaled."""
    m, k, P = Kb.shape[0], Kb.shape[1], budget.A.shape[1]
    R = np.zeros((k, P))
    for l in range(m):
        for j in range(k):
            kv = Kb[l, j] + bias2
            for c in range(P):
                R[j, c] += budget.A[l, c] * kv
    return R


@njit(inline="always")
def _violations(c, step, data, batch, R, plan, s, coef):
    """``coef[:, c]``: problem c's step (in units of w) for each draw of the batch, 0
    for a draw whose margin, judged with the iterate before the step (``s * R``), is no
    violation (Pegasos: below 1; the Perceptron: at most 0)."""
    for j in range(batch.shape[0]):
        i = batch[j]
        margin = data.Y[i, c] * s * R[j, c]
        if (plan.mode == PEGASOS and margin < 1.0) or (plan.mode == PERCEPTRON
                                                       and margin <= 0.0):
            coef[j, c] = step * data.Y[i, c] * data.sw[i]


@njit(inline="always")
def _add_steps(c, coef, R, Kbb, bias2, slots, budget):
    """Problem c's steps ``coef[:, c]`` added to the coefficients of the batch's points
    ``slots`` (the lazy average in step); returns ``||w_c + dw||^2 = ||w_c||^2 + 2 <w_c,
    dw> + <dw, dw>``, from the responses before the step ``R`` and ``Kbb``."""
    scal = budget.scal
    s, beta, k = scal[S, c], scal[BETA, c], coef.shape[0]
    lin, quad = 0.0, 0.0
    for j in range(k):
        if coef[j, c] != 0.0:
            lin += coef[j, c] * R[j, c]
            inner = 0.0
            for q in range(k):
                inner += (Kbb[j, q] + bias2) * coef[q, c]
            quad += coef[j, c] * inner
    for j in range(k):
        if coef[j, c] != 0.0:
            change = coef[j, c] / s
            if beta != 0.0:
                budget.U[slots[j], c] -= beta * change
            budget.A[slots[j], c] += change
    return scal[W2, c] + 2.0 * s * lin + quad


@njit
def budget_steps(budget, data, kern, plan, idx, t, first):
    """Run ``len(idx) // plan.k`` iterations of budgeted mini-batch kernel Pegasos (or
    the kernel Perceptron) on every one-vs-rest problem at once.

    Each iteration draws the rows ``idx[step*k:(step+1)*k]`` of ``data`` (a
    :class:`~.kernel_pegasos.ResponseData`; row i is the training row ``first + i``,
    its id in the budget), judges their margins with the budget's iterate (one block of
    kernel rows), and, problem by problem, shrinks (Pegasos) and adds the violators'
    steps to their rows' points (new points join the budget); the budget is then
    brought back to ``plan.budget`` points (:func:`maintain`), and each problem
    projected onto the Pegasos ball and averaged (:func:`_settle`).  ``budget``
    (:class:`Budget`) is updated in place.  Returns (t after the last step, kernel
    evaluations).
    """
    k, P = plan.k, budget.A.shape[1]
    evals = 0
    for n_step in range(idx.shape[0] // k):
        batch = idx[n_step * k : (n_step + 1) * k]
        block, Kb, Kbb = _batch_kernels(budget, data, kern, batch)
        old = budget.count[N_POINTS]
        evals += (old + k) * k
        R = _responses(budget, Kb, kern.bias2)
        step = 1.0 / (plan.lam * k) / t if plan.mode == PEGASOS else 1.0
        coef = np.zeros((k, P))
        for c in range(P):
            _violations(c, step, data, batch, R, plan, budget.scal[S, c], coef)
        slots = np.full(k, -1, np.int64)
        for j in range(k):
            if np.any(coef[j] != 0.0):
                slots[j] = _slot_of(budget, first + batch[j], block, j, Kb, Kbb, slots, old)
        w2 = np.empty(P)
        for c in range(P):
            if plan.mode == PEGASOS:
                _shrink(t, c, budget)
            w2[c] = _add_steps(c, coef, R, Kbb, kern.bias2, slots, budget)
        budget.scal[W2] = w2
        evals += maintain(budget, kern, plan)
        for c in range(P):
            _settle(t, c, budget.scal[W2, c], plan, budget)
        t += 1
    return t, evals
