"""The issue's acceptance tests on the real a9a data (../shared/data)."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from pegasos import PegasosClassifier, duality_gap

LAM = 3e-5


def _as_int32(X):
    """LIBLINEAR's wrapper refuses the int64 indices load_svmlight_file returns."""
    X = X.copy()
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    return X


@pytest.fixture(scope="module")
def exact_svm(a9a):
    X, y, _, _ = a9a
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return LinearSVC(
            loss="hinge", C=1.0 / (LAM * X.shape[0]), fit_intercept=False, tol=1e-6, max_iter=100_000
        ).fit(_as_int32(X), y)


def test_default_model_is_within_a_point_of_the_exact_svm(a9a, exact_svm):
    X, y, Xt, yt = a9a
    assert X.indices.dtype == np.int64  # taken as the loader returns it
    exact_error = 1.0 - exact_svm.score(_as_int32(Xt), yt)
    for seed in range(3):
        clf = PegasosClassifier(lam=LAM, random_state=seed).fit(X, y)
        error = 1.0 - clf.score(Xt, yt)
        assert error <= exact_error + 0.01, (seed, error, exact_error)


def test_reported_gap_bounds_the_true_suboptimality(a9a, exact_svm):
    X, y, _, _ = a9a
    p_star = duality_gap(X, y, exact_svm.coef_[0], lam=LAM).primal
    for n_epochs in (0.5, 2, 10):
        clf = PegasosClassifier(
            lam=LAM, n_epochs=n_epochs, fit_intercept=False, track_objective=True,
            check_every=n_epochs, random_state=0,
        ).fit(X, y)
        (gap,) = clf.duality_gap_
        assert gap.primal == pytest.approx(duality_gap(X, y, clf.coef_[0], lam=LAM).primal)
        assert gap.gap >= gap.primal - p_star
        assert gap.dual <= p_star
