"""The Pegasos scale step, one rule for linear Pegasos, kernel Pegasos and the kernel matrix.

Every Pegasos path keeps its iterate as ``w = s * v`` (``v`` the linear
weights, or the kernel coefficients and responses) with ``||w||^2`` tracked,
and a lazy average ``u + beta * v``.  What happens to the scalars around a
step is the same everywhere, and written here once:

- :func:`shrunk`: the step's ``(1 - 1/t)``; at t = 1 (w = 0) the caller
  clears its vectors, folding its average into ``u`` first when ``beta != 0``;
- :func:`settled`: after the step's additions, the overflow check, the
  projection onto ``||w||^2 <= radius2``, the rescaling once ``s`` falls
  below :data:`MIN_SCALE`, and the running average with its folds.

The vectors differ by path (one row of weights; columns of coefficients and
responses; a chunk's pending changes), so the caller applies what these
functions decide, in their order: fold ``beta_old * v`` into ``u`` and
multiply ``v`` by ``factor`` if it rescaled, then fold ``fold_now * v`` if
the average asks for it.
"""

import math

import numpy as np

from ._jit import njit

# Renormalise (fold s into v) once the scale falls below this.
MIN_SCALE = 1e-9
# Fold beta * v into u once beta / s exceeds this many times the number of
# iterates averaged since the last fold: then earlier, larger scales dominate
# beta and u + beta * v would cancel digits.  With s ~ 1/t this happens only
# each time t grows ~50-fold.
FOLD_RATIO = 4.0


@njit(inline="always")
def shrunk(t, s, w2):
    """Step t's shrink by ``1 - 1/t`` (= 1 - eta_t lam): the new ``(s, ||w||^2, restart)``.

    ``restart`` at t = 1, where the factor is exactly 0: w = 0, kept as
    ``s = 1`` over vectors the caller clears (its average folded first)."""
    shrink = 1.0 - 1.0 / t
    if shrink == 0.0:
        return 1.0, 0.0, True
    return s * shrink, w2 * (shrink * shrink), False


@njit(inline="always")
def settled(t, s, w2, beta, n_avg, n_fold, radius2, avg_start):
    """The scalars after step t's additions: ``(s, ||w||^2, factor, beta_old, beta, n_avg,
    n_fold, fold_now)``.

    ``||w||^2`` below 0 (rounding) is 0; an overflowed one (inf, or NaN from
    inf - inf) makes ``s`` NaN, for the caller's finite check, where the
    projection would scale w to exactly 0 and hide it.  ``radius2 > 0``
    projects onto ``||w||^2 <= radius2``.  Below :data:`MIN_SCALE` the scale
    is folded into the vectors: ``factor`` is the old ``s`` (1.0: no
    rescaling), by which the caller multiplies them after folding
    ``beta_old * v`` into ``u``; ``s``, ``beta`` and ``n_fold`` restart.
    From ``avg_start`` on, the iterate joins the average (``beta += s``);
    ``fold_now`` (0.0: none) is a beta the caller folds into ``u`` now, as
    ``fold_now * v`` (``beta`` and ``n_fold`` are returned as 0 then).
    """
    if w2 < 0.0:
        w2 = 0.0
    elif not w2 < np.inf:
        s = np.nan
    if radius2 > 0.0 and w2 > radius2:
        s *= math.sqrt(radius2 / w2)
        w2 = radius2
    factor, beta_old = 1.0, beta
    if s < MIN_SCALE:
        factor, s, beta, n_fold = s, 1.0, 0.0, 0.0
    fold_now = 0.0
    if t >= avg_start:
        beta, n_avg, n_fold = beta + s, n_avg + 1.0, n_fold + 1.0
        if beta > FOLD_RATIO * s * n_fold:  # (then beta > 0)
            fold_now, beta, n_fold = beta, 0.0, 0.0
    return s, w2, factor, beta_old, beta, n_avg, n_fold, fold_now
