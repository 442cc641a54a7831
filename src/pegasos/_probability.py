"""Probability estimates, as ``SVC(probability=True)`` makes them: Platt scaling.

With ``probability=True``, ``fit`` also fits a copy of the estimator on each of
5 stratified folds (as LIBSVM does), collects every example's out-of-fold
decision values, and fits one sigmoid ``P(positive | f) = 1 / (1 + exp(A f +
B))`` per binary problem to them (Platt 1999, in the form of Lin, Lin and Weng
2007; scikit-learn's implementation).  ``predict_proba`` applies the sigmoids
to the model's own decision values; for more than two classes the one-vs-rest
probabilities are normalised to sum to one (as
``CalibratedClassifierCV`` does with one-vs-rest classifiers).  It costs 5 more
fits of 80% of the data, as it does for SVC.

``DualSVC``'s one-vs-one models take LIBSVM's own route instead
(:func:`pair_decisions`, :func:`couple`): a sigmoid per pair of classes, from 5
random folds of the pair's rows, and the pairs' probabilities coupled into one
distribution by Wu, Lin and Weng's method, as SVC's ``predict_proba``.
"""

import itertools

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._base import check_finite_fit
from ._sklearn_private import _sigmoid_calibration
from ._solvers import working_set as _ws

N_FOLDS = 5


def _has_probability(est):
    return bool(getattr(est, "probability", False))


def _split(est, X, train, test):
    """Rows of X for a fold; with a precomputed Gram matrix, the columns of the training rows."""
    if getattr(est, "kernel", None) == "precomputed":
        return X[np.ix_(train, train)], X[np.ix_(test, train)]
    return X[train], X[test]


class ProbabilityMixin:
    """``probability=True``: ``probA_``, ``probB_``, ``predict_proba``, ``predict_log_proba``."""

    def _fit_probability(self, X, y, sample_weight=None):
        """After a fit on validated (X, y): Platt sigmoids from 5-fold out-of-fold decisions.

        Every fit ends here: its fitted arrays are checked finite first, and the sigmoids
        after."""
        check_finite_fit(self)
        for name in ("probA_", "probB_", "pairwise_coupling_"):
            self.__dict__.pop(name, None)
        if not self.probability:
            return self
        self._fit_sigmoids(X, y, sample_weight)
        check_finite_fit(self)
        return self

    def _fit_sigmoids(self, X, y, sample_weight):
        """``probA_`` and ``probB_``: one sigmoid per one-vs-rest problem, from the decision
        values of 5 stratified folds."""
        from sklearn.model_selection import StratifiedKFold

        classes, counts = np.unique(y, return_counts=True)
        folds = min(N_FOLDS, int(counts.min()))
        if folds < 2:
            raise ValueError(
                "probability=True needs at least 2 examples of every class, for the "
                f"cross-validation that fits the probability sigmoids; got {counts.min()}."
            )
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        cv = StratifiedKFold(folds, shuffle=True, random_state=seed)
        n_problems = 1 if len(classes) == 2 else len(classes)
        scores = np.empty((len(y), n_problems))
        sw = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        params = {"probability": False}
        if "callback" in self.get_params():
            params["callback"] = None
        for train, test in cv.split(np.zeros(len(y)), y):
            fold = clone(self).set_params(**params)
            X_train, X_test = _split(self, X, train, test)
            if sw is not None:
                fold.fit(X_train, y[train], sample_weight=sw[train])
            else:
                fold.fit(X_train, y[train])
            scores[test] = fold._probability_scores(X_test).reshape(len(test), n_problems)
        a, b = [], []
        for c in range(n_problems):
            positive = classes[1] if n_problems == 1 else classes[c]
            ac, bc = _sigmoid_calibration(scores[:, c], (y == positive).astype(np.float64), sw)
            a.append(ac)
            b.append(bc)
        self.probA_ = np.asarray(a, dtype=np.float64)
        self.probB_ = np.asarray(b, dtype=np.float64)

    def _probability_scores(self, X):
        """The decision values the sigmoids take: one column per one-vs-rest problem."""
        return self.decision_function(X)

    @available_if(_has_probability)
    def predict_proba(self, X):
        """Class probabilities, shape (n_samples, n_classes), columns in ``classes_`` order.

        Available with ``probability=True``: Platt's sigmoids of the decision
        values, fitted by 5-fold cross-validation during ``fit``.
        """
        check_is_fitted(self)
        if "probA_" not in vars(self):  # (SVC's message; DualSVC's probA_ is then empty)
            raise NotFittedError("predict_proba is not available when fitted with "
                                 "probability=False")
        scores = np.asarray(self._probability_scores(X), dtype=np.float64)
        scores = scores.reshape(scores.shape[0], -1)
        z = np.clip(scores * self.probA_ + self.probB_, -500.0, 500.0)
        p = 1.0 / (1.0 + np.exp(z))
        if p.shape[1] == 1:
            return np.hstack([1.0 - p, p])
        total = p.sum(axis=1, keepdims=True)
        uniform = total[:, 0] == 0.0
        p[uniform] = 1.0
        total[uniform] = p.shape[1]
        return p / total

    @available_if(_has_probability)
    def predict_log_proba(self, X):
        """The log of :meth:`predict_proba`."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


# --- LIBSVM's probabilities for one-vs-one models -------------------------------------


def libsvm_folds(rows, seed, n_folds=N_FOLDS):
    """LIBSVM's cross-validation folds (``svm_cross_validation``'s, not stratified): the
    ``rows`` in a random order (``seed``) cut into ``n_folds`` consecutive parts; yields
    (training rows, test rows) of each part that is not empty, both in that order."""
    order = rows[np.random.default_rng(seed).permutation(len(rows))]
    for f in range(n_folds):
        lo, hi = f * len(rows) // n_folds, (f + 1) * len(rows) // n_folds
        if lo < hi:
            yield np.concatenate([order[:lo], order[hi:]]), order[lo:hi]


def _fitted_fold(est, X, y, sw, train, test, params):
    """A copy of ``est`` with ``params``, fitted on the rows ``train`` of (X, y) with
    their weights (``sw`` None: none), and the rows ``test`` of X as it predicts them."""
    fold = clone(est).set_params(**params)
    X_train, X_test = _split(est, X, train, test)
    fold.fit(X_train, y[train], **({} if sw is None else {"sample_weight": sw[train]}))
    return fold, X_test


def _one_side(positive, negative):
    """The decision values of a fold whose training rows weigh on one side only, as
    LIBSVM's: +1 (on the positive side), -1 (on the negative) or 0 (on neither); None for
    a fold with rows of both sides."""
    if positive and negative:
        return None
    return 1.0 if positive else -1.0 if negative else 0.0


def pair_decisions(est, X, y, sw, rows, positive, seed):
    """Out-of-fold decision values of one binary problem, as LIBSVM's
    ``svm_binary_svc_probability`` makes them: the problem's ``rows`` in a random order
    (``seed``) cut into 5 folds (not stratified); each fold's values come from a copy of
    ``est`` fitted on the other four, positive for the label ``positive``, or
    :func:`_one_side`'s."""
    dec = np.zeros(len(rows))
    params = {"probability": False, **({"callback": None} if "callback" in
                                       est.get_params() else {})}
    for train, test in libsvm_folds(rows, seed):
        at = np.searchsorted(rows, test)  # (rows sorted)
        weighted = train if sw is None else train[sw[train] > 0]
        side = _one_side(np.any(y[weighted] == positive), np.any(y[weighted] != positive))
        if side is not None:
            dec[at] = side
            continue
        fold, X_test = _fitted_fold(est, X, y, sw, train, test, params)
        scores = np.asarray(fold.decision_function(X_test), dtype=np.float64)
        dec[at] = scores if fold.classes_[1] == positive else -scores
    return dec


def _fold_start(state, y, C, columns):
    """A fold's start (:func:`warm_pair_decisions`): the full solution ``state`` with the
    variables of the rows of bound 0 removed and ``y'a = 0`` restored by lowering the
    heavier side's largest variables; ``columns(rows)`` gives K(all rows, rows) as
    (len(rows), n)."""
    a, F = state.a[:, 0].copy(), state.F[:, 0].copy()
    out = np.flatnonzero((C <= 0) & (a > 0))
    if out.size:
        F -= (y[out] * a[out]) @ columns(out)
        a[out] = 0.0
    excess = float(y @ a)
    side = np.flatnonzero((y == np.sign(excess)) & (a > 0))
    order = side[np.argsort(-a[side], kind="stable")]
    need = np.cumsum(a[order])
    cut = order[: np.searchsorted(need, abs(excess)) + 1]
    if cut.size and excess != 0.0:  # (the heavier side holds the excess: it suffices)
        change = -a[cut]
        change[-1] += float(need[len(cut) - 1] - abs(excess))
        a[cut] = np.maximum(a[cut] + change, 0.0)
        F += (y[cut] * change) @ columns(cut)
    return _ws.WorkingSetState(a[:, None], np.ascontiguousarray(F[None, :]).T)


def warm_pair_decisions(points, kargs, Y, bounds, plan, result, seed):
    """:func:`pair_decisions` of one problem solved by the working-set solver (its
    ``result``, its rows' ``points`` and kernel ``kargs``, its targets ``Y`` and
    ``bounds``), solved right after it on its own kept kernel columns with ``plan``
    where LIBSVM refits them: each fold is the problem with the bounds of its left-out
    rows set to 0 (LIBSVM's fold drops them), started from the full solution with those
    rows' variables removed (their columns subtracted from the responses) and the
    equality ``y'a = 0`` restored by lowering the heavier side's largest variables; the
    left-out rows' decision values are their responses plus the fold's intercept.  The
    rows of weight 0 take no part; the folds are :func:`libsvm_folds` of the rows
    (``seed``) and a fold of one side is :func:`_one_side`'s, as in
    :func:`pair_decisions`.  Returns (the decision values, positive for Y's +1, and the
    targets) of the weighted rows."""
    store, y = result.store, Y[:, 0]
    rows = np.flatnonzero(bounds > 0)
    dec = np.zeros(len(y))
    for train, test in libsvm_folds(rows, seed):
        side = _one_side(np.any(y[train] > 0), np.any(y[train] < 0))
        if side is not None:
            dec[test] = side
            continue
        C = np.zeros(len(y))
        C[train] = bounds[train]
        start = _fold_start(result.state, y, C, lambda r: store.values(r, points, kargs))
        fold = _ws.run(points, kargs, Y, C, plan, None, start, store.gram, columns=store)
        dec[test] = fold.state.F[test, 0] + fold.intercept[0]
    return dec[rows], y[rows] > 0


def laplace_scale(est, X, y, sw, seed):
    """A regression's probability model, as LIBSVM's ``svm_svr_probability``: the target
    is the prediction plus z of density ``exp(-|z| / sigma) / (2 sigma)``, sigma the mean
    absolute out-of-fold residual of the rows whose residual is at most 5 sqrt(2) times
    the mean of all.  The rows of positive weight (``sw`` None: all) in a random order
    (``seed``) are cut into 5 folds (fewer rows: one a fold, as LIBSVM's); each fold is
    predicted by a copy of ``est`` fitted on the others."""
    rows = np.arange(len(y)) if sw is None else np.flatnonzero(sw > 0)
    if len(rows) < 2:
        raise ValueError(f"probability=True needs 2 rows of positive weight for its folds; "
                         f"got {len(rows)}")
    params = {"probability": False, "callback": None, "verbose": False}
    residual = []
    for train, test in libsvm_folds(rows, seed, min(N_FOLDS, len(rows))):
        fold, X_test = _fitted_fold(est, X, y, sw, train, test, params)
        residual.append(np.abs(y[test] - fold.predict(X_test)))
    residual = np.concatenate(residual)
    kept = residual[residual <= 5.0 * np.sqrt(2.0) * residual.mean()]
    return float(kept.mean())


def pair_sigmoid(dec, target, sw):
    """Platt's sigmoid ``(A, B)`` of decision values against 0/1 targets."""
    return _sigmoid_calibration(dec, target.astype(np.float64), sw)


def pair_probabilities(scores, A, B, k, order=None):
    """LIBSVM's one-vs-one probabilities (``svm_predict_probability``): each pair's sigmoid
    ``(A, B)`` of its decision values ``scores`` (n, pairs), clipped to [1e-7, 1 - 1e-7],
    coupled by :func:`couple` into (n, k) probabilities, in the order of classes ``order``
    where given (svm-predict couples in its model file's order of labels; the coupling
    stops at a tolerance, so the order shows in 1e-3)."""
    pairwise = 1.0 / (1.0 + np.exp(np.clip(scores * A + B, -500, 500)))
    pairwise = np.clip(pairwise, 1e-7, 1 - 1e-7)
    r = np.zeros((scores.shape[0], k, k))
    for p, (i, j) in enumerate(itertools.combinations(range(k), 2)):
        r[:, i, j], r[:, j, i] = pairwise[:, p], 1.0 - pairwise[:, p]
    if order is None:
        return couple(r)
    proba = np.empty((scores.shape[0], k))
    proba[:, order] = couple(r[:, order][:, :, order])
    return proba


def couple(r, max_iter=None):
    """LIBSVM's ``multiclass_probability`` (Wu, Lin and Weng 2004, their second method),
    for every row at once: ``r`` (n, k, k) holds the pairwise probabilities r[i, j] of
    class i against class j (r[j, i] = 1 - r[i, j]); returns (n, k) probabilities, the
    minimiser of sum over i < j of (r[j, i] p_i - r[i, j] p_j)^2 on the simplex, by
    LIBSVM's fixed-point iteration (stopping when every row's violation is under
    0.005 / k, or after max(100, k) sweeps)."""
    n, k, _ = r.shape
    Q = -r.transpose(0, 2, 1) * r  # Q[t, j] = -r[j, t] r[t, j]
    diagonal = np.einsum("ntj,ntj->nt", r.transpose(0, 2, 1), r.transpose(0, 2, 1)) - (
        np.einsum("ntt->nt", r) ** 2)
    Q[:, np.arange(k), np.arange(k)] = diagonal  # sum over j != t of r[j, t]^2
    p = np.full((n, k), 1.0 / k)
    for _ in range(max(100, k) if max_iter is None else max_iter):
        Qp = np.einsum("ntj,nj->nt", Q, p)  # (afresh each sweep, as LIBSVM, for accuracy)
        pQp = np.einsum("nt,nt->n", p, Qp)
        active = np.abs(Qp - pQp[:, None]).max(axis=1) >= 0.005 / k
        if not active.any():
            break
        for t in range(k):
            diff = np.where(active, (pQp - Qp[:, t]) / Q[:, t, t], 0.0)
            p[:, t] += diff
            pQp = (pQp + diff * (diff * Q[:, t, t] + 2 * Qp[:, t])) / (1 + diff) ** 2
            Qp = (Qp + diff[:, None] * Q[:, t, :]) / (1 + diff)[:, None]
            p /= (1 + diff)[:, None]
    return p
