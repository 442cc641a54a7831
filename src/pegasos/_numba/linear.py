"""Linear Pegasos: the mini-batch solver and the one-pass duality-gap sweep.

Rows come as ``rows``: a dense C-ordered 2-D array or the CSR triplet
``(data, indices, indptr)`` (see :mod:`.rows`).  The two forms run the same
arithmetic in the same order (a dense row only adds exact zeros), so dense and
sparse copies of the same data give the same model bit for bit.

The weight vector is kept as ``w = a * v`` (Shalev-Shwartz's ``WeightVector``
trick): shrinking and projecting scale ``a`` in O(1), adding ``c * x`` costs
O(nnz(x)) and updates the tracked ``||w||^2`` incrementally.  ``v`` has one
entry more than there are features: the coefficient of the constant feature
``bias_feature`` (0 when there is no augmented intercept).

Averaged iterates are kept lazily as well: ``sum_s w_s = u + beta * v``; when
``v`` moves by ``delta``, ``u -= beta * delta`` (O(nnz)), and each averaged
step adds ``a`` to ``beta`` (O(1)).  Whenever ``v`` is rescaled (the scale
``a`` fell below ``MIN_SCALE``), ``beta * v`` is folded into ``u`` first, so
``beta`` never grows large enough to swallow ``u``'s digits.  These rules of
the scale are :mod:`.scale`'s, which the kernel solvers follow too.

The solver also keeps the expansion coefficients of ``v`` in the training
rows, ``v = sum_i gamma_i x_i`` (and their lazy average ``ugamma``), at O(1)
per update: ``alpha_i = lam * n * a * gamma_i * y_i`` is the dual vector that
Pegasos builds implicitly, the best certificate of optimality we have (see
``pegasos.objective``).
"""

from typing import NamedTuple

import numpy as np

from ._jit import njit
from .rows import row_axpy, row_dot, row_sqnorm
from .scale import settled, shrunk

# Layout of the scalar state vector ``scal`` shared with the Python layer.
A = 0  # scale of w = a * v
WNORM2 = 1  # ||w||^2 (includes the augmented-bias coordinate)
BIAS = 2  # unregularised intercept b
BETA = 3  # lazy-average coefficient: sum of averaged w = u + beta * v
N_AVG = 4  # number of iterates in the average
BIAS_SUM = 5  # sum of the averaged b
N_FOLD = 6  # iterates averaged since beta * v was last folded into u
N_SCALARS = 7


class LinearData(NamedTuple):
    """One binary problem's data: ``rows`` (dense array or CSR triplet), targets
    ``y`` (n,) in {-1, +1}, loss weights ``sw`` (n,), and ``sqnorm`` (n,):
    ||x_i||^2 + bias_feature^2, read only at the rows drawn (see
    :func:`fill_sqnorms_at`)."""

    rows: object
    y: np.ndarray
    sw: np.ndarray
    sqnorm: np.ndarray


class LinearPlan(NamedTuple):
    """The settings of :func:`pegasos_steps`.

    ``k``: the mini-batch size; ``lam``: lambda > 0; ``bias_feature``: the
    value of the augmented constant feature (0 = none); ``unreg_bias``: learn
    an unregularised intercept ``scal[BIAS]``; ``radius2``: the squared radius
    of the projection ball (0 = none); ``avg_start``: iterates of steps t >=
    avg_start enter the average; ``every``: add every example of a batch,
    violator or not (the step of a distributed fit, whose one row is the
    violators' sum its partitions computed; see ``pegasos.dask_backend``).
    """

    k: int
    lam: float
    bias_feature: float
    unreg_bias: bool
    radius2: float
    avg_start: int
    every: bool


class LinearState(NamedTuple):
    """The weights ``v`` and lazy-average ``u`` (d+1,), the expansion
    coefficients of v in the training rows ``gamma`` and their lazy average
    ``ugamma`` (n,; empty arrays not to keep them), and the scalars ``scal``
    (N_SCALARS,), all updated in place."""

    v: np.ndarray
    u: np.ndarray
    gamma: np.ndarray
    ugamma: np.ndarray
    scal: np.ndarray


@njit(inline="always")
def _fold_average(beta, v, u, gamma, ugamma):
    """u += beta * v and ugamma += beta * gamma (the caller then sets beta = 0)."""
    for j in range(v.shape[0]):
        u[j] += beta * v[j]
    for j in range(gamma.shape[0]):
        ugamma[j] += beta * gamma[j]


@njit
def row_sqnorms(rows, n_rows):
    """Squared Euclidean norm of every row."""
    out = np.empty(n_rows)
    for i in range(n_rows):
        out[i] = row_sqnorm(rows, i)
    return out


@njit
def fill_sqnorms_at(rows, sqnorm, idx, bias_feature):
    """Set the entries of ``sqnorm`` listed in ``idx`` and still negative (not computed)
    to ||x_i||^2 + bias_feature^2.

    Called on each block of draws before :func:`pegasos_steps`, so that a run
    of T iterations of k examples computes O(T k) row norms, not all n up
    front.  (Filling them inside the step loop instead measured 15-20% slower
    per example on a9a.)
    """
    for j in range(idx.shape[0]):
        i = idx[j]
        if sqnorm[i] < 0.0:
            sqnorm[i] = row_sqnorm(rows, i) + bias_feature * bias_feature


@njit
def _restart(beta, n_fold, v, u, gamma, ugamma):
    """Step 1: (1 - eta_1 lam) w = 0, v folded into the average first (when beta != 0).
    Returns the new (the first violator's product, beta, n_fold)."""
    if beta != 0.0:
        _fold_average(beta, v, u, gamma, ugamma)
        n_fold = 0.0
    v[:] = 0.0
    gamma[:] = 0.0
    return 0.0, 0.0, n_fold


@njit
def _rescale(a, beta, v, u, gamma, ugamma):
    """Fold the scale ``a`` into v (and gamma), and the average's v-part into u, so that
    beta restarts from 0 instead of growing as beta / a.  Returns ||v||^2 after."""
    _fold_average(beta, v, u, gamma, ugamma)
    s = 0.0
    for j in range(v.shape[0]):
        v[j] *= a
        s += v[j] * v[j]
    for j in range(gamma.shape[0]):
        gamma[j] *= a
    return s


@njit
def pegasos_steps(data, plan, state, idx, t):
    """Run ``len(idx) // plan.k`` Pegasos iterations, the first one being step ``t``.

    ``data`` (:class:`LinearData`), ``plan`` (:class:`LinearPlan`), ``state``
    (:class:`LinearState`, updated in place); ``idx`` (T*k,) int64: the
    examples of each mini-batch, batch after batch.  Returns the step
    counter after the last iteration.

    Each iteration: margins of the whole batch with w_t; shrink by (1 - 1/t) = 1 - eta_t*lam (exactly 0 at t = 1: w is reset, as
    the paper's step size prescribes); add (eta_t/k) s_i y_i x_i for each
    violator; then the unregularised bias step, the projection onto ||w||^2 <=
    radius2, and the running average.  The hot loop reads locals only: the
    named tuples are unpacked once (a field read per step costs reference
    counting, measured 1.2-2x slower on a9a).
    """
    rows, y, sw, sqnorm = data
    k, lam, bias_feature, unreg_bias, radius2, avg_start, every = plan
    v, u, gamma, ugamma, scal = state
    d = v.shape[0] - 1
    a, wnorm2, b, beta = scal[A], scal[WNORM2], scal[BIAS], scal[BETA]
    n_avg, b_sum, n_fold = scal[N_AVG], scal[BIAS_SUM], scal[N_FOLD]
    keep_gamma = gamma.shape[0] > 0
    viol = np.empty(k, np.int64)
    inv_lam_k = 1.0 / (lam * k)
    for step in range(idx.shape[0] // k):
        inv_t = 1.0 / t
        nv, viol0, raw0 = 0, 0, 0.0
        for j in range(k):
            i = idx[step * k + j]
            r = row_dot(rows, i, v) + v[d] * bias_feature
            if every or y[i] * (a * r + b) < 1.0:
                if nv == 0:  # kept in scalars: for k = 1, the default, viol is never touched
                    viol0, raw0 = i, r
                else:
                    viol[nv] = i
                nv += 1
        a, wnorm2, restart = shrunk(t, a, wnorm2)
        if restart:
            raw0, beta, n_fold = _restart(beta, n_fold, v, u, gamma, ugamma)
        eta_over_k = inv_t * inv_lam_k
        bias_step = 0.0
        for j in range(nv):
            i = viol0 if j == 0 else viol[j]  # v unchanged since viol0's margin was taken
            r = raw0 if j == 0 else row_dot(rows, i, v) + v[d] * bias_feature
            c = eta_over_k * y[i] * sw[i]
            wnorm2 += c * c * sqnorm[i] + 2.0 * a * c * r
            ca = c / a
            row_axpy(rows, i, ca, v)
            v[d] += ca * bias_feature
            if keep_gamma:
                gamma[i] += ca
            if beta != 0.0:
                row_axpy(rows, i, -beta * ca, u)
                u[d] -= beta * ca * bias_feature
                if keep_gamma:
                    ugamma[i] -= beta * ca
            bias_step += c
        if unreg_bias:
            b += bias_step
        a, wnorm2, factor, beta_old, beta, n_avg, n_fold, fold_now = settled(
            t, a, wnorm2, beta, n_avg, n_fold, radius2, avg_start)
        if factor != 1.0:
            wnorm2 = _rescale(factor, beta_old, v, u, gamma, ugamma)
        if fold_now != 0.0:
            _fold_average(fold_now, v, u, gamma, ugamma)
        if t >= avg_start:
            b_sum += b
        t += 1
    scal[A], scal[WNORM2], scal[BIAS], scal[BETA] = a, wnorm2, b, beta
    scal[N_AVG], scal[BIAS_SUM], scal[N_FOLD] = n_avg, b_sum, n_fold
    return t


@njit
def margins(rows, n_rows, w, bias_feature, b):
    """Decision values ``x_i.w[:d] + w[d]*bias_feature + b`` of every row."""
    d = w.shape[0] - 1
    out = np.empty(n_rows)
    for i in range(n_rows):
        out[i] = row_dot(rows, i, w) + w[d] * bias_feature + b
    return out


@njit
def expand(rows, coef, bias_feature, out):
    """out += sum_i coef_i * x_i (augmented coordinate at index d)."""
    d = out.shape[0] - 1
    for i in range(coef.shape[0]):
        if coef[i] != 0.0:
            row_axpy(rows, i, coef[i], out)
            out[d] += coef[i] * bias_feature


@njit
def dual_cd_pass(data, bias_feature, order, alpha, w_alpha, scale):
    """One pass of dual coordinate ascent (Hsieh et al. 2008) over the rows in ``order``.

    Maximises ``D(alpha) = sum(alpha)/m - lam/2 ||w_alpha||^2`` over the box
    ``0 <= alpha_i <= s_i``, with ``w_alpha = scale * sum_i alpha_i y_i x_i``
    and ``scale = 1/(lam m)``, kept up to date in place.  Each coordinate
    step is exact: ``alpha_i += (1 - y_i x_i.w_alpha) / (scale * ||x_i||^2)``,
    clipped to the box.  ``data`` is a :class:`LinearData`.
    """
    rows, y, sw, sqnorm = data
    d = w_alpha.shape[0] - 1
    for i in order:
        q = scale * sqnorm[i]
        if q <= 0.0:
            continue
        g = row_dot(rows, i, w_alpha) + w_alpha[d] * bias_feature
        new = alpha[i] + (1.0 - y[i] * g) / q
        new = min(max(new, 0.0), sw[i])
        delta = new - alpha[i]
        if delta != 0.0:
            alpha[i] = new
            c = delta * y[i] * scale
            row_axpy(rows, i, c, w_alpha)
            w_alpha[d] += c * bias_feature


@njit
def violator_sum(rows, y, idx, w, bias_feature, out):
    """out += sum of y_i x_i over the margin violators among rows ``idx`` (with w).

    The piece of a mini-batch step one data partition computes in the
    distributed solver: margins ``y_i (x_i.w[:d] + w[d] * bias_feature)``
    with the broadcast w, and the violators' sum (augmented coordinate at d).
    Returns the number of violators.
    """
    d = w.shape[0] - 1
    count = 0
    for j in range(idx.shape[0]):
        i = idx[j]
        if y[i] * (row_dot(rows, i, w) + w[d] * bias_feature) < 1.0:
            row_axpy(rows, i, y[i], out)
            out[d] += y[i] * bias_feature
            count += 1
    return count
