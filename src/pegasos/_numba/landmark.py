"""Pegasos in the landmarks' coefficients: ``NystroemPegasosClassifier(solver="landmark")``.

Linear Pegasos on Nystroem's features ``phi(x) = N k(x)`` (``k(x)`` the ``m`` kernel
values of row x against the landmarks, ``N = K_mm^{-1/2}``) keeps ``w``; a row then
costs the ``m x m`` product ``N k(x)``.  Here the model is kept as ``beta = N^T w``
(m, P), plus the weight ``b`` of the constant feature 1 (the intercept, regularised:
PegasosClassifier's ``intercept_mode="augment"``), so a row's margin costs its ``m``
kernel values, ``y (beta . k(x) + b)``.  A mini-batch of k rows with violators'
sum ``u = sum_i s_i y_i k(x_i)`` (and ``v = sum_i s_i y_i``) steps, with
``a = 1 - 1/t`` and ``c = 1 / (lam t k)``,

    beta <- a beta + c Kinv u,  b <- a b + c v,  Kinv = N^T N (the pseudo-inverse of K_mm),
    ||w||^2 + b^2 <- a^2 (||w||^2 + b^2) + 2 a c (beta . u + b v) + c^2 (u . Kinv u + v^2),

one ``m x m`` product a mini-batch rather than one a row: the same iterates as
linear Pegasos on the mapped rows, to rounding.  The projection onto the ball
``||w||^2 + b^2 <= radius2`` scales beta and b; averaging sums the iterates.
"""

from typing import NamedTuple

import numpy as np

from ._jit import njit

# LandmarkState.scal rows: the squared norm ||w||^2 + b^2, the iterates averaged
W2 = 0
N_AVG = 1
N_SCALARS = 2


class LandmarkState(NamedTuple):
    """``beta`` (m, P) and ``bias`` (P,) the current iterate, ``total`` and
    ``total_bias`` the sums of the averaged iterates, ``scal`` (N_SCALARS, P), and the
    work arrays ``u`` (m, P), ``v`` (P,) and ``uk`` (m, P), u in Kinv's dtype."""

    beta: np.ndarray
    bias: np.ndarray
    total: np.ndarray
    total_bias: np.ndarray
    scal: np.ndarray
    u: np.ndarray
    v: np.ndarray
    uk: np.ndarray


class LandmarkPlan(NamedTuple):
    """Batch size ``k``, ``lam``, the squared projection radius ``radius2`` (0 = off) and
    the first averaged step ``avg_start``."""

    k: int
    lam: float
    radius2: float
    avg_start: int


@njit
def _violators(K, Y, sw, lo, hi, state):
    """u, v of rows lo..hi-1 of K (kernel rows), judged by the current beta and bias."""
    m, P = state.beta.shape
    state.u[:] = 0.0
    state.v[:] = 0.0
    f = np.empty(P)
    for q in range(lo, hi):
        for c in range(P):
            f[c] = state.bias[c]
        for j in range(m):
            kj = np.float64(K[q, j])
            for c in range(P):
                f[c] += kj * state.beta[j, c]
        for c in range(P):
            if Y[q, c] * f[c] < 1.0 and sw[q] > 0.0:
                g = sw[q] * Y[q, c]
                state.v[c] += g
                for j in range(m):
                    state.u[j, c] += g * K[q, j]


@njit
def _step(state, Kinv, plan, t):
    """Step t from the violators' u, v: shrink, add c Kinv u, project, average."""
    m, P = state.beta.shape
    a = 1.0 - 1.0 / t
    step = 1.0 / (plan.lam * t * plan.k)
    state.uk[:] = state.u  # (in Kinv's dtype: float32 rows step with a float32 Kinv)
    d = np.dot(Kinv, state.uk)  # (m, P): the one m x m product of the step
    for c in range(P):
        cross, quad = state.bias[c] * state.v[c], state.v[c] * state.v[c]
        for j in range(m):
            cross += state.beta[j, c] * state.u[j, c]
            quad += state.u[j, c] * d[j, c]
        w2 = a * a * state.scal[W2, c] + 2.0 * a * step * cross + step * step * quad
        factor = 1.0
        if plan.radius2 > 0.0 and w2 > plan.radius2:
            factor = np.sqrt(plan.radius2 / w2)
            w2 = plan.radius2
        state.scal[W2, c] = max(w2, 0.0)
        for j in range(m):
            state.beta[j, c] = factor * (a * state.beta[j, c] + step * d[j, c])
        state.bias[c] = factor * (a * state.bias[c] + step * state.v[c])
        if t >= plan.avg_start:
            state.scal[N_AVG, c] += 1.0
            state.total_bias[c] += state.bias[c]
            for j in range(m):
                state.total[j, c] += state.beta[j, c]


@njit
def landmark_steps(K, Y, sw, Kinv, state, plan, t0, n_steps):
    """``n_steps`` mini-batches of ``plan.k`` consecutive rows of K (n, m) (kernel rows
    against the landmarks, float32 or float64), Y (n, P) in {-1, +1} and loss weights
    sw (n,), the first one step ``t0 + 1``; returns the last step's t.  Kinv (m, m),
    K_mm's pseudo-inverse, is float64 or float32 (as ``state.uk``)."""
    n_steps = min(n_steps, K.shape[0] // plan.k)  # (never past the rows given)
    for s in range(n_steps):
        _violators(K, Y, sw, s * plan.k, (s + 1) * plan.k, state)
        _step(state, Kinv, plan, t0 + s + 1)
    return t0 + n_steps
