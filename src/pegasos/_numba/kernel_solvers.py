"""Kernel solvers: kernelized Pegasos, the kernel Perceptron, and the Kernelized
Stochastic Batch Perceptron (Cotter, Shalev-Shwartz & Srebro, ICML 2012).

All three keep the *responses* of every training point up to date, so that a
margin costs O(1) and a change of the model costs one kernel column (n kernel
evaluations, :func:`.kernels.kernel_column`).  The model is
``w = s * sum_l a_l phi(x_l)`` with signed coefficients ``a`` (the label is
inside) and a global scale ``s``; the responses are ``g_j = sum_l a_l K(x_l,
x_j)``, so ``<w, phi(x_j)> = s * g_j``.  Kernel evaluations are counted and
returned.
"""

import math

import numpy as np

from ._jit import njit
from .kernels import cached_column

PEGASOS = 0
PERCEPTRON = 1

# scalar state of kernel_pegasos_steps
S = 0  # global scale s
W2 = 1  # ||w||^2
BETA = 2  # lazy average: sum of averaged iterates' coefficients = u + beta * a
N_AVG = 3
N_FOLD = 4
N_SCALARS = 5

MIN_SCALE = 1e-9
FOLD_RATIO = 4.0


@njit
def _fold(beta, a, u):
    for j in range(a.shape[0]):
        u[j] += beta * a[j]


@njit
def kernel_pegasos_steps(
    rows,
    n_features,
    y,
    sw,
    sqnorm,
    diag,
    idx,
    k,
    t,
    lam,
    radius2,
    mode,
    code,
    gamma,
    coef0,
    degree,
    avg_start,
    a,
    g,
    u,
    scal,
    col,
    bias2,
    cache,
):
    """Run ``len(idx) // k`` iterations of kernel Pegasos (or the Perceptron).

    ``mode == PEGASOS``: the linear algorithm of ``linear.pegasos_steps`` in
    the dual representation -- shrink by (1 - 1/t), add (1/(lam t k)) s_i y_i
    phi(x_i) for each margin violator (y_i <w, phi(x_i)> < 1, judged with
    w_t), project onto ||w||^2 <= radius2 (0 = off); ||w||^2 is kept from
    ``<w, phi(x_i)>`` and ``K(x_i, x_i)``, so projecting needs no kernel
    evaluation.  ``mode == PERCEPTRON``: add y_i phi(x_i) whenever
    y_i <w, phi(x_i)> <= 0; no shrinking, no projection.

    ``a, g, u`` (n,): coefficients, responses, lazy-average vector, updated in
    place; ``scal`` (N_SCALARS,); ``col`` (n,) scratch for kernel columns;
    ``bias2`` is added to every kernel value (an augmented constant feature:
    the intercept); ``diag`` must include it.  ``cache`` is the tuple
    (columns, slot_of, owner, stamp, clock) of :func:`.kernels.cached_column`.
    Iterates of steps t >= avg_start enter the average.

    Returns (t after the last step, number of kernel evaluations).
    """
    n = y.shape[0]
    s = scal[S]
    w2 = scal[W2]
    beta = scal[BETA]
    n_avg = scal[N_AVG]
    n_fold = scal[N_FOLD]
    viol = np.empty(k, np.int64)
    evals = 0
    inv_lam_k = 1.0 / (lam * k)
    for step in range(idx.shape[0] // k):
        nv = 0
        for j in range(k):
            i = idx[step * k + j]
            margin = y[i] * s * g[i]
            if (mode == PEGASOS and margin < 1.0) or (mode == PERCEPTRON and margin <= 0.0):
                viol[nv] = i
                nv += 1
        if mode == PEGASOS:
            inv_t = 1.0 / t
            shrink = 1.0 - inv_t
            if shrink == 0.0:
                if beta != 0.0:
                    _fold(beta, a, u)
                    beta = 0.0
                    n_fold = 0.0
                a[:] = 0.0
                g[:] = 0.0
                s = 1.0
                w2 = 0.0
            else:
                s *= shrink
                w2 *= shrink * shrink
            step_size = inv_t * inv_lam_k
        else:
            step_size = 1.0
        for j in range(nv):
            i = viol[j]
            c = step_size * y[i] * (sw[i] if mode == PEGASOS else 1.0)
            w2 += c * c * diag[i] + 2.0 * c * s * g[i]
            delta = c / s
            a[i] += delta
            if beta != 0.0:
                u[i] -= beta * delta
            column, spent = cached_column(
                rows, n_features, i, sqnorm, code, gamma, coef0, degree, *cache, col
            )
            evals += spent
            for l in range(n):
                g[l] += delta * (column[l] + bias2)
        if w2 < 0.0:
            w2 = 0.0
        elif w2 == np.inf:
            s = np.nan  # overflow: reported by the caller's finite check, not projected to 0
        if mode == PEGASOS:
            if radius2 > 0.0 and w2 > radius2:
                s *= math.sqrt(radius2 / w2)
                w2 = radius2
            if s < MIN_SCALE:
                _fold(beta, a, u)
                beta = 0.0
                n_fold = 0.0
                for l in range(n):
                    a[l] *= s
                    g[l] *= s
                s = 1.0
        if t >= avg_start:
            beta += s
            n_avg += 1.0
            n_fold += 1.0
            if beta > FOLD_RATIO * s * n_fold:
                _fold(beta, a, u)
                beta = 0.0
                n_fold = 0.0
        t += 1
    scal[S] = s
    scal[W2] = w2
    scal[BETA] = beta
    scal[N_AVG] = n_avg
    scal[N_FOLD] = n_fold
    return t, evals


@njit
def water_level(c, budget):
    """The level kappa with sum_i max(0, kappa - c_i) = budget (water filling).

    Sorting, then the first m with kappa_m = (budget + sum of the m smallest) / m
    not above the (m+1)-th smallest.  budget = 0 gives min(c).
    """
    order = np.sort(c)
    total = 0.0
    n = order.shape[0]
    for m in range(1, n + 1):
        total += order[m - 1]
        top = order[m - 1]
        # anchored at the highest filled value (as issvm does): exact for a
        # zero budget, and no cancellation in (budget + total) / m
        level = top + (budget - (m * top - total)) / m
        if m == n or level <= order[m]:
            return level
    return np.inf  # unreachable for n >= 1


@njit
def water_level_select(c, budget, work):
    """The same level as :func:`water_level` in expected O(n): quickselect.

    Keeps the count and sum of the values known to lie below the level, and
    partitions the undecided ones (in ``work``, a scratch array of len(c))
    around a pivot p: if raising everything up to p costs at most the budget,
    all values <= p are below the level; otherwise the level is below p and
    the values >= p are dropped.  Pivots come from a fixed-seed xorshift, so
    the result is deterministic.
    """
    n = c.shape[0]
    for j in range(n):
        work[j] = c[j]
    lo, hi = 0, n
    count = 0.0
    total = 0.0
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
                lt += 1
                i += 1
            elif v > pivot:
                gt -= 1
                work[i] = work[gt]
                work[gt] = v
            else:
                i += 1
        part = 0.0
        for j in range(lo, gt):
            part += work[j]
        m = count + (gt - lo)
        if m * pivot - (total + part) <= budget:
            count = m
            total += part
            top = pivot
            lo = gt
        else:
            hi = lt
    return top + (budget - (count * top - total)) / count


@njit
def water_levels_biased(c_pos, c_neg, budget):
    """Water filling with a free bias b (two classes, equal counts below their levels).

    ``c_pos`` are the positives' responses r_i, ``c_neg`` the negatives' -r_i.
    With margins r_i + b (positives) and -r_i - b (negatives), returns
    (kappa, b, m): the common level, the bias, and how many of each class sit
    at or below it.  The total slack sum max(0, kappa - margin_i) is
    ``budget``; kappa = (kappa_pos + kappa_neg) / 2 and b = kappa - kappa_pos.
    """
    p = np.sort(c_pos)
    q = np.sort(c_neg)
    n = min(p.shape[0], q.shape[0])
    total = 0.0
    for m in range(1, n + 1):
        total += p[m - 1] + q[m - 1]
        level2 = (budget + total) / m  # kappa_pos + kappa_neg
        p_next = p[m] if m < p.shape[0] else np.inf
        q_next = q[m] if m < q.shape[0] else np.inf
        if level2 <= p_next + q_next:
            # kappa_pos may be anywhere in [lo, hi]: same kappa; take the middle
            lo = max(p[m - 1], level2 - q_next)
            hi = min(p_next, level2 - q[m - 1])
            kappa_pos = 0.5 * (lo + hi)
            kappa = 0.5 * level2
            return kappa, kappa - kappa_pos, m
    return np.inf, 0.0, n  # unreachable: at m = n one class has no next value


@njit
def _pick_below(c, level, u):
    """The index of the (floor(u * count))-th entry with c_i <= level, in index order."""
    count = 0
    for i in range(c.shape[0]):
        if c[i] <= level:
            count += 1
    target = min(int(u * count), count - 1)
    for i in range(c.shape[0]):
        if c[i] <= level:
            if target == 0:
                return i
            target -= 1
    return -1


@njit
def _project_unit_ball(w2, a, r):
    """Scale coefficients and responses onto ||w|| <= 1; the new ||w||^2."""
    if w2 <= 1.0:
        return w2
    f = 1.0 / math.sqrt(w2)
    for j in range(a.shape[0]):
        a[j] *= f
        r[j] *= f
    return 1.0


@njit
def _accumulate(a, r, a_sum, r_sum, n_avg):
    """Add the iterate (coefficients and responses) to the running sums."""
    for j in range(a.shape[0]):
        a_sum[j] += a[j]
        r_sum[j] += r[j]
    return n_avg + 1.0


@njit
def sbp_steps(
    rows,
    n_features,
    y,
    sqnorm,
    diag,
    uniforms,
    t,
    radius,
    budget,
    code,
    gamma,
    coef0,
    degree,
    avg_start,
    a,
    r,
    a_sum,
    r_sum,
    scal,
    col,
    margins,
    cache,
):
    """Run ``len(uniforms)`` iterations of the unbiased SBP.

    Each: sample i uniformly among the points whose response y_j r_j is at or
    below the water level kappa (``uniforms`` gives the draws), step
    eta = 1/(R sqrt(t)): a_i += eta y_i and r += eta y_i K(x_i, .) (one
    kernel column), ||w||^2 += eta (2 y_i r_i + eta K_ii), project onto the
    unit ball (scale a and r), and find the new level of y*r for the slack
    budget n*nu (by selection: 15x faster than sorting at n = 10,000, measured).
    Iterates of steps t >= avg_start are summed into a_sum,
    r_sum.  ``scal`` = [||w||^2, kappa, n_avg]; ``margins`` (n,) scratch.

    Returns (t after the last step, kernel evaluations).
    """
    n = y.shape[0]
    w2 = scal[0]
    kappa = scal[1]
    n_avg = scal[2]
    evals = 0
    work = np.empty(n)
    for j in range(n):
        margins[j] = y[j] * r[j]
    for step in range(uniforms.shape[0]):
        # margins = y * r of the current iterate (kept at the end of each step)
        i = _pick_below(margins, kappa, uniforms[step])
        eta = 1.0 / (radius * math.sqrt(t))
        w2 += eta * (2.0 * margins[i] + eta * diag[i])
        c = eta * y[i]
        a[i] += c
        column, spent = cached_column(
            rows, n_features, i, sqnorm, code, gamma, coef0, degree, *cache, col
        )
        evals += spent
        for j in range(n):
            r[j] += c * column[j]
        w2 = _project_unit_ball(w2, a, r)
        for j in range(n):
            margins[j] = y[j] * r[j]
        kappa = water_level_select(margins, budget, work)
        if t >= avg_start:
            n_avg = _accumulate(a, r, a_sum, r_sum, n_avg)
        t += 1
    scal[0] = w2
    scal[1] = kappa
    scal[2] = n_avg
    return t, evals


@njit
def sbp_biased_steps(
    rows,
    n_features,
    y,
    sqnorm,
    diag,
    uniforms,
    t,
    radius,
    budget,
    code,
    gamma,
    coef0,
    degree,
    avg_start,
    a,
    r,
    a_sum,
    r_sum,
    scal,
    col,
    col2,
    cache,
):
    """SBP with an unregularised bias: two water levels, one positive and one
    negative sample per step (step 0.5/(R sqrt(t)), two kernel columns).

    ``uniforms`` has two draws per step.  ``scal`` = [||w||^2, kappa, b, n_avg].
    The candidates of each class are its m lowest margins (m from
    :func:`water_levels_biased`), ties broken by index order.
    """
    n = y.shape[0]
    pos = np.flatnonzero(y > 0)
    neg = np.flatnonzero(y < 0)
    w2 = scal[0]
    n_avg = scal[3]
    evals = 0
    for step in range(uniforms.shape[0] // 2):
        c_pos = r[pos]
        c_neg = -r[neg]
        kappa, b, m = water_levels_biased(c_pos, c_neg, budget)
        ip = pos[np.argsort(c_pos, kind="mergesort")[min(int(uniforms[2 * step] * m), m - 1)]]
        ineg = neg[np.argsort(c_neg, kind="mergesort")[min(int(uniforms[2 * step + 1] * m), m - 1)]]
        eta = 0.5 / (radius * math.sqrt(t))
        column, spent = cached_column(
            rows, n_features, ip, sqnorm, code, gamma, coef0, degree, *cache, col2
        )
        col[:] = column  # the next lookup may evict this slot
        column, spent2 = cached_column(
            rows, n_features, ineg, sqnorm, code, gamma, coef0, degree, *cache, col2
        )
        col2[:] = column  # a plain copy when the column was computed into col2
        evals += spent + spent2
        w2 += 2.0 * eta * (r[ip] - r[ineg]) + eta * eta * (diag[ip] + diag[ineg] - 2.0 * col[ineg])
        a[ip] += eta
        a[ineg] -= eta
        for j in range(n):
            r[j] += eta * (col[j] - col2[j])
        w2 = _project_unit_ball(w2, a, r)
        if t >= avg_start:
            n_avg = _accumulate(a, r, a_sum, r_sum, n_avg)
        t += 1
    kappa, b, m = water_levels_biased(r[pos], -r[neg], budget)
    scal[0] = w2
    scal[1] = kappa
    scal[2] = b
    scal[3] = n_avg
    return t, evals
