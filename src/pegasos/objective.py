r"""The SVM objective and a duality-gap certificate of how far from optimal a model is.

The primal problem solved by every linear estimator of this library is

.. math::

    P(w, b) = \frac{\lambda}{2}\|w\|^2
              + \frac{1}{m}\sum_{i=1}^m s_i \max(0,\, 1 - y_i(\langle w, x_i\rangle + b))

with loss weights :math:`s_i \ge 0` (sample weight times class weight).  The
intercept is handled in one of three ways: none (:math:`b = 0`);
``"augment"``, a constant feature :math:`B` appended to every :math:`x_i`
(so :math:`b = w_{d+1} B` and :math:`b` is regularised, as LIBLINEAR's
``-B``); or ``"unregularized"``, a free :math:`b` outside the norm.

Its Lagrange dual is, with :math:`0 \le \alpha_i \le s_i`,

.. math::

    D(\alpha) = \frac{1}{m}\sum_i \alpha_i
                - \frac{1}{2\lambda m^2}\Big\|\sum_i \alpha_i y_i x_i\Big\|^2,

with the extra constraint :math:`\sum_i \alpha_i y_i = 0` when the intercept is
unregularised.  Weak duality gives :math:`D(\alpha) \le P^* \le P(w)` for every
feasible :math:`\alpha`, so :math:`P(w) - D(\alpha)` is an upper bound on the
suboptimality :math:`P(w) - P^*` that needs no knowledge of :math:`P^*`.

The certificate built here starts from Pegasos' own dual vector.  Without
projection the iterate is :math:`w_{T+1} = \frac{1}{\lambda T}\sum_t
\frac1k\sum_{i \in A_t^+} s_i y_i x_i`, i.e. :math:`w = \frac{1}{\lambda
m}\sum_i \alpha_i y_i x_i` with :math:`\alpha_i` proportional to how often
example :math:`i` was a margin violator; the solver keeps these coefficients
through projections and averaging at O(1) per update.  (For a model from
elsewhere the start is :math:`\alpha_i = s_i` on its margin violators.)  The
start is clipped to the box, balanced between the classes when the intercept
is unregularised (so that :math:`\sum_i \alpha_i y_i = 0`); the best multiple
:math:`c\alpha` inside the box (:math:`D(c\alpha) = cA - c^2Q` is a parabola)
gives a first bound.
Because :math:`D` weighs :math:`\|\sum_i\alpha_i y_i x_i\|^2` by
:math:`1/\lambda`, the sampling noise in a stochastic :math:`\alpha` alone
leaves the bound loose for small :math:`\lambda`; one pass of exact dual
coordinate ascent (Hsieh et al., 2008) over the box from the clipped start,
in a fixed-seed random order, removes most of it; the larger bound is kept.  All
of this costs three passes over the data (margins, :math:`\sum_i\alpha_i y_i
x_i`, the coordinate pass; the last is skipped for an unregularised
intercept, whose equality constraint coordinate steps cannot keep).  Every
step keeps :math:`\alpha` feasible, so the bound always holds.

How tight it is (measured, see the tests): for this library's models the
gap is within 2-12x of the true suboptimality :math:`P(w) - P^*` on a9a and
within 3-5x on small problems once the model is near optimal.  For a model
from elsewhere, started from its violators, it is looser near the optimum
(the margin support vectors, whose :math:`\alpha^*_i` lie strictly inside
the box, start at 0).
"""

import math
from dataclasses import dataclass

import numpy as np

from ._numba.linear import LinearData, dual_cd_pass, expand, margins, row_sqnorms
from ._rows import Rows, as_rows, check_array, check_per_row, check_sparse_structure

INTERCEPT_MODES = (None, "augment", "unregularized")


@dataclass(frozen=True)
class DualityGap:
    """Primal value P(w), certified dual value D(alpha) <= P*, and their gap.

    Parameters
    ----------
    primal : float
        The primal objective P(w) of the model.
    dual : float
        A dual value D(alpha) of a feasible alpha: a lower bound on P*.

    See Also
    --------
    duality_gap : The certificate of any linear model.

    Examples
    --------
    >>> from pegasos import DualityGap
    >>> g = DualityGap(primal=0.5, dual=0.4)
    >>> round(g.gap, 6), round(g.relative_gap, 6)
    (0.1, 0.25)
    """

    primal: float
    dual: float

    @property
    def gap(self) -> float:
        """P(w) - D(alpha) >= P(w) - P*: an upper bound on the suboptimality."""
        return self.primal - self.dual

    @property
    def relative_gap(self) -> float:
        """(P(w) - D(alpha)) / D(alpha) >= (P(w) - P*) / P*  (inf when D <= 0)."""
        return self.gap / self.dual if self.dual > 0 else float("inf")


def _augmented(coef, intercept, intercept_mode, intercept_scaling, n_features):
    """(w of length d+1, bias_feature, unregularised b) in the kernels' layout."""
    w = np.zeros(n_features + 1)
    w[:n_features] = coef
    if intercept_mode == "augment":
        w[n_features] = intercept / intercept_scaling
        return w, float(intercept_scaling), 0.0
    if intercept_mode == "unregularized":
        return w, 0.0, float(intercept)
    if intercept != 0:
        raise ValueError(
            f"intercept is {intercept:g} but intercept_mode is None (no intercept); pass "
            "intercept_mode='augment' for LIBLINEAR's and LinearSVC's regularised intercept "
            "(with their intercept_scaling) or 'unregularized' for a free one (SGDClassifier)"
        )
    return w, 0.0, 0.0


def feasible(alpha, sw, y, unregularized):
    """``alpha`` clipped to the box ``[0, s_i]``; with an unregularised intercept the
    heavier class scaled down so that ``sum_i alpha_i y_i = 0``.  A new array."""
    alpha = np.clip(alpha, 0.0, sw)
    if unregularized:
        pos = y > 0
        s_pos, s_neg = alpha[pos].sum(), alpha[~pos].sum()
        both = min(s_pos, s_neg)
        alpha[pos] *= both / s_pos if s_pos > 0 else 0.0
        alpha[~pos] *= both / s_neg if s_neg > 0 else 0.0
    return alpha


def best_multiple(alpha, sw, m, quad):
    """The best dual value along the ray of a feasible ``alpha``:
    ``max D(c alpha) = c lin - c^2 quad`` over ``0 < c <= c_max``, the largest
    ``c`` inside the box, where ``lin = sum(alpha) / m`` and ``quad`` is
    ``||sum_i alpha_i y_i x_i||^2 / (2 lam m^2)``.  ``c = 1`` is feasible, so
    this is at least ``D(alpha)``."""
    ratio = np.divide(alpha, sw, out=np.zeros(len(alpha)), where=sw > 0)
    c_max = 1.0 / ratio.max() if ratio.max() > 0 else 1.0
    lin = alpha.sum() / m
    c = c_max if quad <= 0 else min(c_max, lin / (2.0 * quad))
    return c * lin - c * c * quad


def gap_from_rows(rows: Rows, y, sw, lam, w, bias_feature, b, unregularized, alpha=None, sqnorm=None):
    """:class:`DualityGap` of the model ``(w, b)`` in the kernels' layout.

    ``alpha``, optional, is the starting dual vector (Pegasos' own expansion
    coefficients); without it, ``s_i`` on the margin violators.  ``sqnorm``
    (row norms squared plus ``bias_feature**2``) is computed when not given.
    Three passes over the data: margins, ``w(alpha)``, one coordinate-ascent
    pass (skipped for an unregularised intercept).
    """
    m = rows.n_rows
    check_array("the weights w", w, (rows.n_features + 1,))
    check_per_row(rows, targets=y, loss_weights=sw)
    if sqnorm is not None:
        check_per_row(rows, squared_norms=sqnorm)
    scores = margins(rows.kernel, m, w, bias_feature, b)
    z = 1.0 - y * scores
    primal = 0.5 * lam * float(w @ w) + float(np.sum(sw * np.maximum(z, 0.0))) / m
    if alpha is None or len(alpha) != m:
        alpha = np.where(z > 0.0, sw, 0.0)
    alpha = feasible(alpha, sw, y, unregularized)
    scale = 1.0 / (lam * m)
    w_alpha = np.zeros(rows.n_features + 1)
    expand(rows.kernel, alpha * y * scale, bias_feature, w_alpha)
    dual = best_multiple(alpha, sw, m, 0.5 * lam * float(w_alpha @ w_alpha))
    if not unregularized:
        # Coordinate ascent starts from the unscaled alpha: the parabola's c
        # is often small (1/lam amplifies the noise in alpha), and a start
        # shrunk by it is a much worse one for the coordinate pass.
        if sqnorm is None:
            sqnorm = row_sqnorms(rows.kernel, m) + bias_feature**2
        # A fixed-seed random order: data files are often sorted (by label,
        # say), and a sorted pass is far less effective; the seed keeps the
        # certificate reproducible.
        order = np.random.default_rng(0).permutation(m)
        dual_cd_pass(LinearData(rows.kernel, y, sw, sqnorm), bias_feature, order, alpha, w_alpha,
                     scale)
        dual = max(dual, alpha.sum() / m - 0.5 * lam * float(w_alpha @ w_alpha))
    return DualityGap(primal=float(primal), dual=float(dual))


def duality_gap(
    X,
    y,
    coef,
    intercept=0.0,
    *,
    lam,
    sample_weight=None,
    intercept_mode=None,
    intercept_scaling=1.0,
):
    """Primal objective and duality-gap certificate of any linear model.

    Works for the models of every solver (this library's, LIBLINEAR's,
    ``SGDClassifier``'s), which makes it the common yardstick of the
    benchmarks.  See the module docstring for the mathematics.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        The rows of the problem.
    y : array-like of shape (n_samples,)
        Two classes: -1 and +1, or any two labels, the larger one positive
        (``classes_[1]``, as scikit-learn's binary classifiers have it).
    coef : array-like of shape (n_features,) or (1, n_features)
        A binary model's ``coef_`` as it comes.
    intercept : float or array-like of shape (1,)
        ``b`` (a binary model's ``intercept_`` as it comes); with
        ``intercept_mode="augment"`` the regularised coordinate is
        ``intercept / intercept_scaling``.
    lam : float > 0
        The regularisation lambda (``C = 1 / (lam * n_samples)``).
    sample_weight : array-like of shape (n_samples,), default=None
        Loss weights ``s_i`` (1 when None).
    intercept_mode : {None, "augment", "unregularized"}
        No intercept, LIBLINEAR's regularised one (a constant feature) or a
        free one (see the module docstring).
    intercept_scaling : float
        The constant feature ``B`` of the ``"augment"`` mode.

    Returns
    -------
    DualityGap
        The primal value, a certified dual value and their gap.

    See Also
    --------
    pegasos.PegasosClassifier.duality_gap : The same for a fitted model.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn.svm import LinearSVC
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> svm = LinearSVC(C=1.0, loss="hinge", tol=1e-8, max_iter=1_000_000).fit(X, y)
    >>> gap = duality_gap(X, y, svm.coef_, svm.intercept_, lam=1 / len(y),
    ...                   intercept_mode="augment")
    >>> round(gap.primal, 4)  # LIBLINEAR's optimum of the same objective
    0.0466
    >>> bool(gap.dual <= gap.primal)  # a lower bound on it, from one pass of dual ascent
    True
    """
    from sklearn.utils.validation import check_array, check_consistent_length

    if intercept_mode not in INTERCEPT_MODES:
        raise ValueError(f"intercept_mode must be one of {INTERCEPT_MODES}; got {intercept_mode!r}")
    if not lam > 0:
        raise ValueError(f"lam must be > 0; got {lam!r}")
    check_sparse_structure(X)
    X = check_array(X, accept_sparse="csr", dtype=np.float64, order="C", accept_large_sparse=True)
    y = np.asarray(y)
    check_consistent_length(X, y)
    labels = np.unique(y)
    if labels.shape[0] > 2:
        raise ValueError(f"y must hold two classes; got {labels.shape[0]}: {labels.tolist()}")
    if not np.all(np.isin(labels, (-1, 1))):  # any two labels: the larger is +1
        y = np.where(y == labels[-1], 1.0, -1.0)
    y = np.asarray(y, dtype=np.float64)
    sw = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, np.float64)
    coef = np.asarray(coef, dtype=np.float64)
    if coef.ndim == 2 and coef.shape[0] == 1:
        coef = coef[0]
    if coef.ndim != 1 or coef.shape[0] != X.shape[1]:
        raise ValueError(f"coef must have shape ({X.shape[1]},) or (1, {X.shape[1]}) for X's "
                         f"{X.shape[1]} features; got {coef.shape}")
    intercept = np.asarray(intercept, dtype=np.float64)
    if intercept.size != 1:
        raise ValueError(f"intercept must be one number; got shape {intercept.shape}")
    intercept = float(intercept.reshape(()))
    w, bias_feature, b = _augmented(coef, intercept, intercept_mode, intercept_scaling, X.shape[1])
    rows = as_rows(X)
    with np.errstate(over="ignore", invalid="ignore"):
        gap = gap_from_rows(rows, y, sw, lam, w, bias_feature, b,
                            intercept_mode == "unregularized")
    return finite_gap(gap)


def finite_gap(gap):
    """``gap``, or a ValueError when its primal or dual value overflowed float64 (extreme
    weights, rows or lambda): a certificate is a number, never NaN or inf."""
    if not (math.isfinite(gap.primal) and math.isfinite(gap.dual)):
        raise ValueError(
            f"The certificate overflows float64 (primal {gap.primal:.3g}, dual {gap.dual:.3g}):"
            " the model's weights, the rows or lambda are too extreme; scale the input.")
    return gap
