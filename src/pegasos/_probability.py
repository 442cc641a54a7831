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
"""

import numpy as np
from sklearn.base import clone
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._base import check_finite_fit
from ._sklearn_private import _sigmoid_calibration

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
        for name in ("probA_", "probB_"):
            if hasattr(self, name):
                delattr(self, name)
        if not self.probability:
            return self
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
        check_finite_fit(self)
        return self

    def _probability_scores(self, X):
        """The decision values the sigmoids take: one column per one-vs-rest problem."""
        return self.decision_function(X)

    @available_if(_has_probability)
    def predict_proba(self, X):
        """Class probabilities, shape (n_samples, n_classes), columns in ``classes_`` order.

        Available with ``probability=True``: Platt's sigmoids of the decision
        values, fitted by 5-fold cross-validation during ``fit``.
        """
        check_is_fitted(self, ["probA_", "probB_"])
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
