"""Slow, obviously correct pure-NumPy references for the compiled solvers.

Each follows the paper's pseudo-code literally, on a dense weight vector,
with no scale trick and no laziness.
"""

from itertools import zip_longest

import numpy as np


def pegasos(
    X,
    y,
    lam,
    order,
    k,
    *,
    sw=None,
    projection=True,
    bias_mode=None,
    bias_feature=1.0,
    avg_from=None,
):
    """Mini-batch Pegasos (Fig. 2 of the Math. Programming paper).

    Parameters
    ----------
    X : dense (n, d) array; y : labels in {-1, +1}
    order : int array, the examples of the mini-batches, one batch after the
        other (T = len(order) // k iterations)
    sw : loss weights (1 when None)
    bias_mode : None, "augment" (constant feature ``bias_feature``,
        regularised) or "unregularized" (free b, its own sub-gradient step)
    avg_from : None for the last iterate, else the average of the iterates
        w_{t+1} for t >= avg_from

    Returns
    -------
    (w, b) : weights (d,) and intercept
    """
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    sw = np.ones(n) if sw is None else np.asarray(sw, dtype=float)
    if bias_mode == "augment":
        X = np.hstack([X, np.full((n, 1), bias_feature)])
    w = np.zeros(X.shape[1])
    b = 0.0
    radius = np.sqrt(sw.mean() / lam)
    w_sum = np.zeros_like(w)
    b_sum = 0.0
    n_avg = 0
    T = len(order) // k
    for t in range(1, T + 1):
        batch = order[(t - 1) * k : t * k]
        eta = 1.0 / (lam * t)
        margins = y[batch] * (X[batch] @ w + b)
        viol = batch[margins < 1.0]
        step = (eta / k) * (sw[viol] * y[viol]) @ X[viol] if len(viol) else 0.0
        w = (1.0 - 1.0 / t) * w + step
        if bias_mode == "unregularized":
            b = b + (eta / k) * np.sum(sw[viol] * y[viol])
        if projection:
            norm = np.linalg.norm(w)
            if norm > radius:
                w = w * (radius / norm)
        if avg_from is not None and t >= avg_from:
            w_sum += w
            b_sum += b
            n_avg += 1
    if n_avg:
        w, b = w_sum / n_avg, b_sum / n_avg
    if bias_mode == "augment":
        return w[:d], w[d] * bias_feature
    return w, b


def svm_primal(X, y, w, b, lam, sw=None, bias_mode=None, bias_feature=1.0):
    """lam/2 ||w||^2 + mean(s_i * hinge_i), with the augmented bias in the norm."""
    sw = np.ones(len(y)) if sw is None else sw
    hinge = np.maximum(0.0, 1.0 - y * (X @ w + b))
    reg = w @ w + ((b / bias_feature) ** 2 if bias_mode == "augment" else 0.0)
    return 0.5 * lam * reg + np.mean(sw * hinge)


def kernel_pegasos(K, y, lam, order, *, k=1, projection=True, avg_from=None, bias2=0.0, sw=None):
    """Mini-batch kernel Pegasos on an explicit Gram matrix, in the dual.

    w_t = sum_l beta_l phi(x_l); the margins of the batch A_t (the next k
    entries of ``order``) are (K beta)_i, all judged with w_t; the step is
    beta <- (1 - 1/t) beta + 1/(lam t k) sum over the violators of s_i y_i e_i;
    projection rescales beta to ||w|| = sqrt(beta^T K beta) <= sqrt(mean(s)/lam).
    ``bias2`` is added to K (the augmented intercept).  Returns the
    coefficients of the last (or averaged) iterate.
    """
    K = np.asarray(K, dtype=float) + bias2
    n = len(y)
    sw = np.ones(n) if sw is None else np.asarray(sw, dtype=float)
    radius = np.sqrt(sw.mean() / lam)
    beta = np.zeros(n)
    total = np.zeros(n)
    n_avg = 0
    for t in range(1, len(order) // k + 1):
        batch = order[(t - 1) * k : t * k]
        violators = batch[y[batch] * (K[batch] @ beta) < 1.0]
        beta = (1.0 - 1.0 / t) * beta
        np.add.at(beta, violators, sw[violators] * y[violators] / (lam * t * k))
        if projection:
            norm = np.sqrt(max(beta @ K @ beta, 0.0))
            if norm > radius:
                beta = beta * (radius / norm)
        if avg_from is not None and t >= avg_from:
            total += beta
            n_avg += 1
    return total / n_avg if n_avg else beta


def kernel_perceptron(K, y, order, *, k=1, average=True, bias2=0.0, sw=None):
    """The mini-batch kernel Perceptron on an explicit Gram matrix, in the dual.

    w_t = sum_l beta_l phi(x_l); the margins of the batch A_t (the next k
    entries of ``order``) are (K beta)_i, all judged with w_t; each violator
    (y_i (K beta)_i <= 0) adds s_i y_i to beta_i, once per draw.  ``average``:
    the average of the iterates w_{t+1}, t = 1..T (the averaged Perceptron),
    else the last.  ``bias2`` is added to K (the augmented intercept).
    """
    K = np.asarray(K, dtype=float) + bias2
    n = len(y)
    sw = np.ones(n) if sw is None else np.asarray(sw, dtype=float)
    beta = np.zeros(n)
    total = np.zeros(n)
    T = len(order) // k
    for t in range(1, T + 1):
        batch = order[(t - 1) * k : t * k]
        violators = batch[y[batch] * (K[batch] @ beta) <= 0.0]
        np.add.at(beta, violators, sw[violators] * y[violators])
        total += beta
    return total / T if average else beta


def dual_cd_pass(X, y, sw, lam, order, alpha, bias_feature=0.0):
    """One pass of dual coordinate ascent (Hsieh et al. 2008) over the rows in ``order``.

    The dual of the SVM objective: maximise sum(alpha)/m - lam/2 ||w(alpha)||^2
    over 0 <= alpha_i <= s_i, with w(alpha) = sum_i alpha_i y_i z_i / (lam m) and
    z_i = (x_i, bias_feature).  Each step maximises exactly over alpha_i alone:
    alpha_i + (1 - y_i z_i.w) / (||z_i||^2 / (lam m)), clipped to the box; w is
    recomputed from alpha every time.  Returns (alpha, w).
    """
    m = len(y)
    Z = np.hstack([np.asarray(X, dtype=float), np.full((m, 1), bias_feature)])
    alpha = np.array(alpha, dtype=float)
    scale = 1.0 / (lam * m)
    for i in order:
        w = scale * Z.T @ (alpha * y)
        q = scale * (Z[i] @ Z[i])
        if q <= 0.0:
            continue
        alpha[i] = min(max(alpha[i] + (1.0 - y[i] * (Z[i] @ w)) / q, 0.0), sw[i])
    return alpha, scale * Z.T @ (alpha * y)


def water_level(c, budget, s=None):
    """The level kappa with sum_i s_i max(0, kappa - c_i) = budget, by bisection."""
    c = np.asarray(c, dtype=float)
    s = np.ones_like(c) if s is None else np.asarray(s, dtype=float)
    lo, hi = c[s > 0].min(), c.max() + budget / s.sum() + 1.0
    for _ in range(200):
        mid, before = 0.5 * (lo + hi), (lo, hi)
        if np.sum(s * np.maximum(0.0, mid - c)) > budget:
            hi = mid
        else:
            lo = mid
        if (lo, hi) == before:  # a fixed point: the remaining steps would change nothing
            break
    return 0.5 * (lo + hi)


def sbp_step(K, y, a, t, radius, budget, u, s=None):
    """One unbiased mini-batch SBP step from coefficients ``a`` (w = sum a_l phi(x_l)).

    The candidates are the points whose response y_j (K a)_j is at or below
    the water level of the current responses (weighted by ``s``: the slack
    of point j costs s_j); each uniform v in ``u`` (k of them, in [0, 1))
    picks, in index order, the first candidate whose cumulative weight
    exceeds v times the candidates' total weight (with unit weights: the one
    at position floor(v * count)), and the step is 1/(R sqrt(t)) times the
    average of the picks' y_i phi(x_i).  Returns the new coefficients,
    projected onto the unit ball.
    """
    K = np.asarray(K, dtype=float)
    u = np.atleast_1d(u)
    s = np.ones(len(y)) if s is None else np.asarray(s, dtype=float)
    margins = y * (K @ a)
    kappa = water_level(margins, budget, s)
    candidates = np.flatnonzero(margins <= kappa + 1e-12)
    cumulative = np.cumsum(s[candidates])
    a = a.copy()
    for v in u:
        pick = np.searchsorted(cumulative, v * cumulative[-1], side="right")
        i = candidates[min(pick, len(candidates) - 1)]
        a[i] += y[i] / (radius * np.sqrt(t) * len(u))
    norm = np.sqrt(a @ K @ a)
    if norm > 1.0:
        a = a / norm
    return a


def biased_levels(r, y, budget, s=None):
    """The two class levels of the SBP with a free bias, by search over the budget's split.

    With margins r_i + b (positives) and -(r_i + b) (negatives), the best
    bias spends B_pos of the budget raising the positives' responses to a
    level k_pos and the rest raising the negatives' -r_i to k_neg, and
    maximises (k_pos + k_neg) / 2: concave in the split, found here by
    ternary search over B_pos with :func:`water_level` for each side.
    Returns (k_pos, k_neg).
    """
    s = np.ones(len(y)) if s is None else np.asarray(s, dtype=float)
    pos, neg = y > 0, y < 0

    def levels(b_pos):
        return (water_level(r[pos], b_pos, s[pos]),
                water_level(-r[neg], budget - b_pos, s[neg]))

    lo, hi = 0.0, budget
    for _ in range(300):
        m1, m2, before = lo + (hi - lo) / 3, hi - (hi - lo) / 3, (lo, hi)
        if sum(levels(m1)) < sum(levels(m2)):
            lo = m1
        else:
            hi = m2
        if (lo, hi) == before:  # a fixed point: the remaining steps would change nothing
            break
    return levels(0.5 * (lo + hi))


def sbp_step_biased(K, y, a, t, radius, budget, u, s=None):
    """One mini-batch step of the SBP with a free bias from coefficients ``a``.

    Each class's candidates are its points at or below its level (in the
    order of their margins, ties by index; :func:`biased_levels`); both
    classes weigh mu = the smaller of the candidates' total weights, the
    heavier class giving its last candidate only what makes mu.  The first
    k uniforms of ``u`` (2k of them) pick positives, the others negatives,
    each the first candidate whose capped cumulative weight exceeds v * mu;
    each pick adds y_i / (2 k R sqrt(t)).  Returns the new coefficients,
    projected onto the unit ball.
    """
    K = np.asarray(K, dtype=float)
    s = np.ones(len(y)) if s is None else np.asarray(s, dtype=float)
    r = K @ a
    k_pos, k_neg = biased_levels(r, y, budget, s)
    sides = []
    for cls, margin, level in ((1, r, k_pos), (-1, -r, k_neg)):
        members = np.flatnonzero(y == cls)
        members = members[np.argsort(margin[members], kind="stable")]
        below = members[margin[members] <= level + 1e-9]
        sides.append(below)
    mu = min(s[below].sum() for below in sides)
    k = len(u) // 2
    a = a.copy()
    for below, draws in zip(sides, (u[:k], u[k:])):
        cumulative = np.minimum(np.cumsum(s[below]), mu)
        for v in draws:
            i = below[min(np.searchsorted(cumulative, v * mu, side="right"), len(below) - 1)]
            a[i] += y[i] / (2 * k * radius * np.sqrt(t))
    norm = np.sqrt(a @ K @ a)
    if norm > 1.0:
        a = a / norm
    return a


def _smo_block(K, y, C, a, G, tol, ratio, max_steps):
    """LIBSVM's SMO with the second-order pair choice, on one block (a, G in place)."""

    def violation():
        up = np.flatnonzero(np.where(y > 0, a < C, a > 0))
        low = np.flatnonzero(np.where(y > 0, a > 0, a < C))
        s = -y * G
        i = up[np.argmax(s[up])] if up.size else -1  # the first of equal maxima
        return (s[i] if up.size else -np.inf), (s[low].min() if low.size else np.inf), i

    m, M, i = violation()
    stop, steps = max(tol, ratio * (m - M)), 0
    while m - M > stop and steps < max_steps:
        j, best = -1, np.inf
        for t in range(len(y)):  # the last of equal gains, as the compiled loop's <=
            if (a[t] > 0 if y[t] > 0 else a[t] < C[t]) and m + y[t] * G[t] > 0:
                curv = K[i, i] + K[t, t] - 2 * K[i, t]
                gain = -((m + y[t] * G[t]) ** 2) / (curv if curv > 0 else 1e-12)
                if gain <= best:
                    j, best = t, gain
        if j < 0:
            break
        curv = K[i, i] + K[j, j] - 2 * K[i, j]
        step = (y[j] * G[j] - y[i] * G[i]) / (curv if curv > 0 else 1e-12)
        room_i = C[i] - a[i] if y[i] > 0 else a[i]
        room_j = a[j] if y[j] > 0 else C[j] - a[j]
        step = min(step, room_i, room_j)
        a[i] = (C[i] if y[i] > 0 else 0.0) if step == room_i else a[i] + y[i] * step
        a[j] = (0.0 if y[j] > 0 else C[j]) if step == room_j else a[j] - y[j] * step
        G += y * step * (K[i] - K[j])
        steps += 1
        m, M, i = violation()
    return steps


def stored_kernel(K, path):
    """The kernel values the working-set solver solves with on ``path`` (the
    ``solver_path`` fixture's) for a precomputed kernel ``K``: on the engine its kept
    columns are float32, as LIBSVM's cache keeps them (``Qfloat``); a small set's
    kernel matrix is float64.  (An rbf's kept columns: ``conftest.stored_rbf``.)"""
    return K.astype(np.float32).astype(np.float64) if path == "engine" else K


def working_set_dual(K, Y, C, *, q, new, tol, ratio=0.1, max_steps=None, max_iter=10**6):
    """The working-set dual solver (``DualSVC``), slowly: the SVM dual of every column
    of Y (one-vs-rest targets) with bounds C, on the full Gram matrix K.

    Each iteration: each problem violating by more than tol lists its worst rows
    outside the working set (alternately the largest -yG that may move up and the
    smallest that may move down, each forming a violating pair; ties by row), the
    union pair by pair (the problems taking turns from the iteration's number) gives
    up to ``new`` rows (q at first), which join the working set in place of its
    oldest; each problem runs SMO on the set; F = K @ (Y * a).
    Returns (a, F, intercepts).
    """
    n, P = Y.shape
    a, F = np.zeros((n, P)), np.zeros((n, P))
    ws = []
    max_steps = max_steps or 100 * q
    for it in range(max_iter):
        score = -Y * (Y * F - 1)
        up = np.where(Y > 0, a < C[:, None], a > 0)
        low = np.where(Y > 0, a > 0, a < C[:, None])
        m = np.where(up, score, -np.inf).max(axis=0)
        M = np.where(low, score, np.inf).min(axis=0)
        active = [c for c in range(P) if m[c] - M[c] > tol]
        if not active:
            break
        k = q if it == 0 else new
        lists = []
        for c in active:
            outside = [i for i in range(n) if i not in ws]
            ups = sorted((i for i in outside if up[i, c] and score[i, c] > M[c]),
                         key=lambda i: (-score[i, c], i))[:k]
            lows = sorted((i for i in outside if low[i, c] and score[i, c] < m[c]),
                          key=lambda i: (score[i, c], i))[:k]
            both = [r for pair in zip_longest(ups, lows) for r in pair if r is not None]
            lists.append(list(dict.fromkeys(both))[:k])
        turn = it % len(lists)  # the problems take turns; pair by pair
        lists = lists[turn:] + lists[:turn]
        pairs = [[lst[i : i + 2] for i in range(0, len(lst), 2)] for lst in lists]
        ranked = [r for rank in zip_longest(*pairs, fillvalue=[]) for pair in rank for r in pair]
        ws = (ws + list(dict.fromkeys(ranked))[:k])[-q:]
        idx = np.array(ws)
        for c in active:
            y, before = Y[idx, c], a[idx, c].copy()
            after, G = before.copy(), y * F[idx, c] - 1
            _smo_block(K[np.ix_(idx, idx)], y, C[idx], after, G, tol, ratio, max_steps)
            a[idx, c] = after
            for r, change in zip(idx, y * (after - before)):  # the compiled order, row by row
                if change != 0:
                    F[:, c] += change * K[:, r]
    return a, F, _intercepts(Y, C, a, F)


def _intercepts(Y, C, a, F):
    """LIBSVM's rho, negated: the mean y G over free variables, else the interval's middle."""
    out = []
    for c in range(Y.shape[1]):
        y, yG = Y[:, c], Y[:, c] * (Y[:, c] * F[:, c] - 1)
        free = (a[:, c] > 0) & (a[:, c] < C)
        if free.any():
            out.append(-yG[free].mean())
            continue
        upper = np.where(a[:, c] >= C, y < 0, y > 0)  # at the upper bound of -yG's range
        ub, lb = yG[upper].min(initial=np.inf), yG[~upper].max(initial=-np.inf)
        out.append(-(ub + lb) / 2)
    return np.array(out)


def kernel_duality_gap(K, Y, sw, lam, coef, intercept, *, bias2=0.0, unregularized=False,
                       alpha=None):
    """The certificate of a kernel model ``f = coef @ (K + bias2) + intercept`` on the
    rows of the Gram matrix ``K`` (n, n), one ±1 column of ``Y`` per problem; ``coef``
    (n_problems, n) over every row.  Returns [(primal, dual)] in the lambda form.

    The dual vector starts from ``alpha`` (n, n_problems) if given, else from ``sw`` on
    the margin violators; it is clipped to the box [0, sw] (the heavier class scaled
    down when ``unregularized``), then taken at its best multiple ``c`` in the box:
    D(c alpha) = c sum(alpha) / n - c^2 ||sum alpha y phi||^2 / (2 lam n^2).
    """
    n = K.shape[0]
    Kt = K + bias2
    out = []
    for c in range(Y.shape[1]):
        y, w = Y[:, c], coef[c]
        f = Kt @ w + intercept[c]
        primal = lam / 2 * w @ Kt @ w + np.sum(sw * np.maximum(0.0, 1 - y * f)) / n
        a = np.where(1 - y * f > 0, sw, 0.0) if alpha is None else alpha[:, c].copy()
        a = np.minimum(np.maximum(a, 0.0), sw)
        if unregularized:
            pos, neg = a[y > 0].sum(), a[y < 0].sum()
            if pos > neg:
                a[y > 0] *= neg / pos
            elif neg > pos:
                a[y < 0] *= pos / neg
        v = a * y
        lin, quad = a.sum() / n, v @ Kt @ v / (2 * lam * n * n)
        # the best multiple by a grid search (no formula to trust), then refined
        c_max = 1.0 / max(np.max(a / np.where(sw > 0, sw, 1.0)), 1e-300)
        grid = np.linspace(0.0, c_max, 20001)
        best = grid[np.argmax(grid * lin - grid**2 * quad)]
        fine = np.linspace(max(best - c_max / 20000, 0.0), min(best + c_max / 20000, c_max),
                           20001)
        out.append((primal, np.max(fine * lin - fine**2 * quad)))
    return out


def kernel_dual_cd(K, y, sw, lam, epochs):
    """Exact dual coordinate ascent for the SVM without a free intercept on the Gram
    matrix ``K``: max sum(a) / n - a Q a / (2 n) over 0 <= a <= sw with
    Q = y y^T K / (lam n).  Returns (a, its dual value)."""
    n = K.shape[0]
    Q = np.outer(y, y) * K / (lam * n)
    a = np.zeros(n)
    for _ in range(epochs):
        for i in range(n):
            a[i] = min(sw[i], max(0.0, a[i] + (1.0 - Q[i] @ a) / Q[i, i]))
    return a, a.sum() / n - a @ Q @ a / (2 * n)


def shuffle_buffer_draws(rows, buffer_rows, k, T, seed, round_share, cache=False,
                         cached=False):
    """The examples a stream fit draws, in order: a buffer of the first ``buffer_rows`` of
    ``rows`` (a list, read pass after pass); each round draws ``round_share`` of the buffer,
    uniformly with replacement (``numpy.random.default_rng(seed).integers``), then the
    slots drawn, in increasing order, take the next rows, each in its place.
    With ``cache``, once a refill finds fewer rows left in the first pass than it needs
    (or none), every later round draws as many rows uniformly from all of ``rows``;
    ``cached``: every round does (a stream of a complete cache)."""
    rng = np.random.default_rng(seed)
    following = (rows[i % len(rows)] for i in range(buffer_rows, 10**12))
    left = len(rows) - buffer_rows  # rows of the first pass not read yet
    buffer = list(rows[:buffer_rows])
    drawn, done = [], 0
    while done < T:
        if cached:
            steps = min(max(1, int(min(buffer_rows, len(rows)) * round_share) // k), T - done)
            drawn += [rows[i] for i in rng.integers(0, len(rows), steps * k)]
            done += steps
            continue
        steps = min(max(1, int(len(buffer) * round_share) // k), T - done)
        idx = rng.integers(0, len(buffer), steps * k)
        drawn += [buffer[i] for i in idx]
        done += steps
        if done < T:
            slots = sorted(set(idx.tolist()))
            if cache and left < len(slots):
                cached = True
                continue
            left -= len(slots)
            for j in slots:
                buffer[j] = next(following)
    return drawn


def multiclass_probability(k, r):
    """LIBSVM's ``multiclass_probability`` (svm.cpp), line for line, for one row: the
    class probabilities from the pairwise ones ``r`` (k, k)."""
    Q = [[0.0] * k for _ in range(k)]
    p = [1.0 / k] * k
    for t in range(k):
        for j in range(k):
            if j != t:
                Q[t][t] += r[j][t] * r[j][t]
                Q[t][j] = -r[j][t] * r[t][j]
    for _ in range(max(100, k)):
        Qp = [sum(Q[t][j] * p[j] for j in range(k)) for t in range(k)]
        pQp = sum(p[t] * Qp[t] for t in range(k))
        if max(abs(Qp[t] - pQp) for t in range(k)) < 0.005 / k:
            break
        for t in range(k):
            diff = (-Qp[t] + pQp) / Q[t][t]
            p[t] += diff
            pQp = (pQp + diff * (diff * Q[t][t] + 2 * Qp[t])) / (1 + diff) / (1 + diff)
            for j in range(k):
                Qp[j] = (Qp[j] + diff * Q[t][j]) / (1 + diff)
                p[j] /= 1 + diff
    return p


def libsvm_smo(Q, p, y, C, a, *, tol, by_sign=False, max_steps=10**6):
    """LIBSVM's ``Solver`` (``by_sign``: ``Solver_NU``), slowly: ``min 1/2 a'Qa + p'a`` with
    ``0 <= a <= C`` and ``y'a`` (with ``by_sign`` also each sign's sum) fixed by the start
    ``a``, one pair at a time over all the variables -- i the largest -yG that may move up
    (of its sign), j LIBSVM's second-order choice (of the same sign) -- until the largest
    violation is at most tol; no working sets, no shrinking.  Returns (a, G)."""
    a = np.array(a, dtype=np.float64)
    G = Q @ a + p
    groups = [y > 0, y < 0] if by_sign else [np.ones(len(y), bool)]
    for _ in range(max_steps):
        s = -y * G
        up = np.where(y > 0, a < C, a > 0)
        low = np.where(y > 0, a > 0, a < C)
        best = None
        for side in groups:
            ups, lows = np.flatnonzero(up & side), np.flatnonzero(low & side)
            if not ups.size or not lows.size or s[ups].max() - s[lows].min() <= tol:
                continue
            i = ups[np.argmax(s[ups])]
            b = s[i] - s[lows]
            ok = b > 0
            curv = Q[i, i] + np.diag(Q)[lows] - 2 * y[i] * y[lows] * Q[i, lows]
            gain = -(b ** 2) / np.where(curv > 0, curv, 1e-12)
            j = lows[ok][np.argmin(gain[ok])]
            if best is None or gain[lows == j][0] < best[0]:
                best = (gain[lows == j][0], i, j)
        if best is None:
            return a, G
        _, i, j = best
        curv = Q[i, i] + Q[j, j] - 2 * y[i] * y[j] * Q[i, j]
        t = (y[j] * G[j] - y[i] * G[i]) / (curv if curv > 0 else 1e-12)
        t = min(t, C[i] - a[i] if y[i] > 0 else a[i], a[j] if y[j] > 0 else C[j] - a[j])
        a[i] += y[i] * t
        a[j] -= y[j] * t
        G += Q[:, i] * y[i] * t - Q[:, j] * y[j] * t
    raise RuntimeError("libsvm_smo did not converge")


def libsvm_rho(y, C, a, G, *, by_sign=False):
    """LIBSVM's ``calculate_rho``: the mean y G over the free variables (else the middle of
    the feasible interval); ``by_sign``: Solver_NU's, returning (rho, r) from each sign's
    mean G."""
    def middle(values, free, upper, lower):
        if free.any():
            return values[free].mean()
        return (values[lower].min(initial=np.inf) + values[upper].max(initial=-np.inf)) / 2

    at_upper, at_lower = a >= C, a <= 0
    free = ~at_upper & ~at_lower
    if not by_sign:
        yG = y * G
        # where -yG may only fall (y > 0 at the upper bound, y < 0 at the lower) yG bounds
        # rho from below, and from above at the other bound
        below = (at_upper & (y > 0)) | (at_lower & (y < 0))
        above = (at_upper & (y < 0)) | (at_lower & (y > 0))
        return middle(yG, free, below, above)
    r = [middle(G, free & side, at_upper & side, at_lower & side) for side in (y > 0, y < 0)]
    return (r[0] - r[1]) / 2, (r[0] + r[1]) / 2


GOLDEN = (np.sqrt(5.0) - 1.0) / 2.0


def _golden_h(a, b, k, bias2, steps=30):
    """The h in [0, 1] maximising sum_c (a_c k^((1-h)^2) + b_c k^(h^2) + (a_c + b_c) bias2)^2
    by ``steps`` golden-section steps (the midpoint of the last interval)."""
    def gain(h):
        return np.sum((a * (k ** ((1 - h) ** 2) + bias2) + b * (k ** (h * h) + bias2)) ** 2)

    lo, hi = 0.0, 1.0
    x1, x2 = hi - GOLDEN * (hi - lo), lo + GOLDEN * (hi - lo)
    f1, f2 = gain(x1), gain(x2)
    for _ in range(steps):
        if f1 >= f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - GOLDEN * (hi - lo)
            f1 = gain(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + GOLDEN * (hi - lo)
            f2 = gain(x2)
    h = 0.5 * (lo + hi)
    return h, gain(h)


def budgeted_kernel_pegasos(X, Y, order, *, budget, strategy, gamma, lam=1.0, k=1,
                            perceptron=False, projection=True, avg_from=None, bias2=0.0,
                            sw=None, ridge=1e-10):
    """BSGD (Wang, Crammer & Vucetic 2012): mini-batch kernel Pegasos (or the Perceptron)
    on the rbf with at most ``budget`` points shared by the columns of Y (n, P) in {-1, +1}.

    The model of problem c is w_c = sum_l alpha[l, c] phi'(z_l), phi' the rbf's map plus
    the constant feature sqrt(bias2).  Step t: the batch (next k entries of ``order``)
    judged with w_t; shrink by (1 - 1/t) (Pegasos); each violator's step
    s_i y_ic / (lam t k) (Perceptron: s_i y_ic) added to its row's point (a new point at
    the end if the row holds none); while there are more than ``budget`` points, the point
    r of the smallest sum_c alpha[r, c]^2 is removed, projected onto the others (solve
    (K' + ridge I) p = K'[:, r] over them, alpha[others] += p alpha[r]), or merged with the
    point n of the smallest loss ||alpha_r phi'_r + alpha_n phi'_n - alpha_z phi'_z||^2
    (summed over the problems), z = h z_r + (1 - h) z_n, h by golden section,
    alpha_z = (alpha_r k'(z_r, z) + alpha_n k'(z_n, z)) / k'(z, z); a deleted point's
    place is taken by the last point.  Then projection onto ||w_c||^2 <= mean(s)/lam and
    the average (the averaged coefficients mapped by the same maintenance).  Returns
    (points, row ids (-1 merged), coefficients (m, P)) of the points with a non-zero one.
    """
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    n, P = Y.shape
    sw = np.ones(n) if sw is None else np.asarray(sw, dtype=float)
    radius2 = sw.mean() / lam

    def kern(A, B):
        d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=2)
        return np.exp(-gamma * d2)

    Z, ids = np.zeros((0, X.shape[1])), []
    alpha, total = np.zeros((0, P)), np.zeros((0, P))
    n_avg = 0

    def delete(q):
        nonlocal Z, alpha, total
        last = len(ids) - 1
        Z[q], alpha[q], total[q], ids[q] = Z[last], alpha[last], total[last], ids[last]
        Z, alpha, total = Z[:last], alpha[:last], total[:last]
        ids.pop()

    for t in range(1, len(order) // k + 1):
        batch = order[(t - 1) * k : t * k]
        F = (kern(Z, X[batch]) + bias2).T @ alpha  # (k, P)
        margin = Y[batch] * F
        viol = margin <= 0.0 if perceptron else margin < 1.0
        if not perceptron:
            alpha = alpha * (1.0 - 1.0 / t)
        step = 1.0 if perceptron else 1.0 / (lam * t * k)
        for j, i in enumerate(batch):
            if not viol[j].any():
                continue
            if i not in ids:
                Z = np.vstack([Z, X[i]])
                ids.append(i)
                alpha = np.vstack([alpha, np.zeros(P)])
                total = np.vstack([total, np.zeros(P)])
            slot = ids.index(i)
            alpha[slot] += np.where(viol[j], step * Y[i] * sw[i], 0.0)
        while len(ids) > budget:
            r = int(np.argmin((alpha ** 2).sum(axis=1)))
            if strategy == "remove" or len(ids) == 1:
                delete(r)
            elif strategy == "project":
                others = [l for l in range(len(ids)) if l != r]
                G = kern(Z[others], Z[others]) + bias2 + ridge * np.eye(len(others))
                p = np.linalg.solve(G, kern(Z[others], Z[r:r + 1])[:, 0] + bias2)
                alpha[others] += np.outer(p, alpha[r])
                total[others] += np.outer(p, total[r])
                delete(r)
            else:
                best = (np.inf, -1, 0.0)
                for m in range(len(ids)):
                    if m == r:
                        continue
                    kmn = kern(Z[r:r + 1], Z[m:m + 1])[0, 0]
                    h, gain = _golden_h(alpha[r], alpha[m], kmn, bias2)
                    v2 = np.sum(alpha[r] ** 2 * (1 + bias2) + alpha[m] ** 2 * (1 + bias2)
                                + 2 * alpha[r] * alpha[m] * (kmn + bias2))
                    if v2 - gain / (1 + bias2) < best[0]:
                        best = (v2 - gain / (1 + bias2), m, h)
                _, m, h = best
                z = h * Z[r] + (1 - h) * Z[m]
                kr = kern(Z[r:r + 1], z[None])[0, 0] + bias2
                km = kern(Z[m:m + 1], z[None])[0, 0] + bias2
                alpha[r] = (alpha[r] * kr + alpha[m] * km) / (1 + bias2)
                total[r] = (total[r] * kr + total[m] * km) / (1 + bias2)
                Z[r], ids[r] = z, -1
                delete(m)
        if not perceptron and projection:
            K = kern(Z, Z) + bias2
            for c in range(P):
                norm2 = alpha[:, c] @ K @ alpha[:, c]
                if norm2 > radius2:
                    alpha[:, c] *= np.sqrt(radius2 / norm2)
        if avg_from is not None and t >= avg_from:
            total += alpha
            n_avg += 1
    out = total / n_avg if n_avg else alpha
    keep = np.flatnonzero(np.any(out != 0.0, axis=1))
    return Z[keep], np.array(ids, dtype=np.int64)[keep], out[keep]


def nystroem_map(X, Z, kernel, **params):
    """Nystroem's features of rows X on landmarks Z: K(X, Z) @ K(Z, Z)^{-1/2}, as
    scikit-learn's ``Nystroem`` computes them (eigenvalues raised to 1e-12), by
    ``sklearn.metrics.pairwise_kernels`` on dense float64 copies."""
    import scipy.sparse as sp
    from sklearn.metrics.pairwise import pairwise_kernels

    X = X.toarray() if sp.issparse(X) else X
    X, Z = np.asarray(X, dtype=np.float64), np.asarray(Z, dtype=np.float64)
    U, S, V = np.linalg.svd(pairwise_kernels(Z, metric=kernel, **params))
    normalization = (U / np.sqrt(np.maximum(S, 1e-12))) @ V
    return pairwise_kernels(X, Z, metric=kernel, **params) @ normalization.T
