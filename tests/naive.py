"""Slow, obviously correct pure-NumPy references for the compiled solvers.

Each follows the paper's pseudo-code literally, on a dense weight vector,
with no scale trick and no laziness.
"""

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
