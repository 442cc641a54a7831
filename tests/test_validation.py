"""Bad input and bad parameters: clear errors, checked by their messages."""

import numpy as np
import pytest
import scipy.sparse as sp

from pegasos import PegasosClassifier, duality_gap


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(lam=0.0), r"'lam' parameter of PegasosClassifier must be .*range \(0(\.0)?, inf\).* Got 0"),
        (dict(lam=-1.0), r"'lam' parameter .* Got -1"),
        (dict(C=0), r"'C' parameter of PegasosClassifier must be"),
        (dict(batch_size=0), r"'batch_size' parameter .* Got 0"),
        (dict(sampling="random"), r"'sampling' parameter .* \{.*'cyclic'.*\}.* Got 'random'"),
        (dict(average=1.5), r"'average' parameter .* Got 1.5"),
        (dict(intercept_mode="free"), r"'intercept_mode' parameter .* Got 'free'"),
        (dict(n_iter=0), r"'n_iter' parameter .* Got 0"),
        (dict(lam=0.1, C=1.0), r"Give either lam or C, not both \(lam=0.1, C=1.0\)"),
        (dict(n_iter=10, n_epochs=2), r"Give either n_iter \(iterations\) or n_epochs"),
    ],
)
def test_bad_parameters(binary, params, match):
    X, y = binary
    with pytest.raises(ValueError, match=match):
        PegasosClassifier(**params).fit(X, y)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("sparse", [False, True])
def test_nan_and_inf_are_refused(binary, bad, sparse):
    X, y = binary
    X = X.copy()
    X[3, 2] = bad
    X = sp.csr_matrix(X) if sparse else X
    with pytest.raises(ValueError, match=r"Input X contains (NaN|infinity)"):
        PegasosClassifier().fit(X, y)


def test_one_class_is_refused(binary):
    X, _ = binary
    with pytest.raises(ValueError, match=r"at least 2 classes; got only one class: 'a'"):
        PegasosClassifier().fit(X, np.full(len(X), "a"))


def test_negative_and_all_zero_sample_weights_are_refused(binary):
    X, y = binary
    sw = np.ones(len(y))
    sw[4] = -0.5
    with pytest.raises(ValueError, match=r"sample_weight must be non-negative; got a minimum of -0.5"):
        PegasosClassifier().fit(X, y, sample_weight=sw)
    with pytest.raises(ValueError, match=r"Sample weights must contain at least one non-zero"):
        PegasosClassifier().fit(X, y, sample_weight=np.zeros(len(y)))
    with pytest.raises(ValueError, match=r"loss weights \(sample_weight times class_weight\) are all zero"):
        PegasosClassifier(class_weight={-1.0: 0.0, 1.0: 0.0}).fit(X, y)


def test_mismatched_shapes_are_refused(binary):
    X, y = binary
    with pytest.raises(ValueError, match=r"inconsistent numbers of samples: \[60, 59\]"):
        PegasosClassifier().fit(X, y[:-1])
    with pytest.raises(ValueError, match=r"sample_weight.shape == \(3,\), expected \(60,\)"):
        PegasosClassifier().fit(X, y, sample_weight=np.ones(3))


def test_wrong_number_of_features_at_predict(binary):
    X, y = binary
    clf = PegasosClassifier(random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"X has 4 features, but PegasosClassifier is expecting 5"):
        clf.predict(X[:, :4])


def test_predict_before_fit(binary):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError, match=r"not fitted yet"):
        PegasosClassifier().predict(binary[0])


def test_partial_fit_errors(binary):
    X, y = binary
    with pytest.raises(ValueError, match=r"classes must be passed on the first call"):
        PegasosClassifier().partial_fit(X, y)
    with pytest.raises(ValueError, match=r"partial_fit needs lam"):
        PegasosClassifier(C=1.0).partial_fit(X, y, classes=[-1, 1])
    with pytest.raises(ValueError, match=r"class_weight='balanced' needs the class counts"):
        PegasosClassifier(class_weight="balanced").partial_fit(X, y, classes=[-1, 1])
    clf = PegasosClassifier().partial_fit(X, y, classes=[-1, 1])
    with pytest.raises(ValueError, match=r"classes=.* is not the same as on the first call"):
        clf.partial_fit(X, y, classes=[-1, 1, 2])


def test_overflow_is_reported_with_a_remedy():
    # values near the float64 limit overflow the very first step
    X = np.array([[1e300, 1e300], [-1e300, 1e300]])
    y = np.array([1, -1])
    with pytest.raises(ValueError, match=r"Floating-point overflow .* Scale the input"):
        PegasosClassifier(lam=1e-300, projection=False, n_iter=3).fit(X, y)


def test_duality_gap_function_errors(binary):
    X, y = binary
    with pytest.raises(ValueError, match=r"y must hold labels -1 and \+1 only"):
        duality_gap(X, (y > 0).astype(int), np.zeros(5), lam=0.1)
    with pytest.raises(ValueError, match=r"lam must be > 0"):
        duality_gap(X, y, np.zeros(5), lam=0.0)
    with pytest.raises(ValueError, match=r"coef has 4 entries but X has 5 features"):
        duality_gap(X, y, np.zeros(4), lam=0.1)
    with pytest.raises(ValueError, match=r"intercept must be 0 when intercept_mode is None"):
        duality_gap(X, y, np.zeros(5), 1.0, lam=0.1)
