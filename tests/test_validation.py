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
    with pytest.raises(ValueError, match=r"Invalid input - all samples have zero or negative "
                                         r"weights"):  # (SVC's words)
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
    with pytest.raises(ValueError, match=r"partial_fit needs lam .*the default C=1"):
        PegasosClassifier().partial_fit(X, y, classes=[-1, 1])
    with pytest.raises(ValueError, match=r"class_weight='balanced' needs the class counts"):
        PegasosClassifier(lam=0.1, class_weight="balanced").partial_fit(X, y, classes=[-1, 1])
    clf = PegasosClassifier(lam=0.1).partial_fit(X, y, classes=[-1, 1])
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
    with pytest.raises(ValueError, match=r"y must hold two classes; got 3: \[0, 1, 2\]"):
        duality_gap(X, np.arange(len(y)) % 3, np.zeros(5), lam=0.1)
    with pytest.raises(ValueError, match=r"lam must be > 0"):
        duality_gap(X, y, np.zeros(5), lam=0.0)
    with pytest.raises(ValueError, match=r"coef must have shape \(5,\) or \(1, 5\) for X's 5 features; got \(4,\)"):
        duality_gap(X, y, np.zeros(4), lam=0.1)
    with pytest.raises(ValueError, match=r"intercept must be one number; got shape \(2,\)"):
        duality_gap(X, y, np.zeros(5), np.zeros(2), lam=0.1)
    with pytest.raises(ValueError, match=r"intercept is 1 but intercept_mode is None .*'augment'"):
        duality_gap(X, y, np.zeros(5), 1.0, lam=0.1)


def test_duality_gap_takes_scikit_learn_models_as_they_come(binary):
    from sklearn.svm import LinearSVC

    X, y = binary
    labels = np.where(y > 0, 1, 0)  # scikit-learn's usual 0/1
    svm = LinearSVC(C=1.0, loss="hinge", tol=1e-10, max_iter=1_000_000, random_state=0).fit(X, labels)
    lam = 1.0 / len(y)
    gap = duality_gap(X, labels, svm.coef_, svm.intercept_, lam=lam, intercept_mode="augment")
    same = duality_gap(X, y, svm.coef_.ravel(), float(svm.intercept_[0]), lam=lam,
                       intercept_mode="augment")
    assert gap == same
    w = np.append(svm.coef_.ravel(), svm.intercept_[0])  # LIBLINEAR's objective, computed here
    hinge = np.maximum(0.0, 1.0 - y * (X @ svm.coef_.ravel() + svm.intercept_[0]))
    assert gap.primal == pytest.approx(lam / 2 * w @ w + hinge.mean(), rel=1e-12)


def test_a_tolerance_not_reached_warns_with_the_certified_gap(binary):
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    X, y = binary
    with pytest.warns(ConvergenceWarning, match=r"did not reach tol=1e-06 in 50 iterations: the "
                                                r"certified relative duality gap is [\d.e+-]+ \(primal"):
        PegasosClassifier(tol=1e-6, n_iter=50, random_state=0).fit(X * 100, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf = PegasosClassifier(lam=0.1, tol=0.5, n_epochs=200, random_state=0).fit(X, y)
    assert clf.duality_gap_[0].relative_gap <= 0.5 and clf.n_iter_ < 200 * len(y)


def test_cli_says_when_the_tolerance_was_not_reached(tmp_path, capsys):
    from pegasos.cli import main

    path = tmp_path / "u.svm"
    path.write_text("1 1:500 2:1\n-1 1:-300 3:200\n1 2:900\n-1 1:40 3:-100\n1 1:30 2:10\n")
    assert main(["train", "-q", "-e", "1e-6", "--iter", "1000", str(path), str(tmp_path / "m")]) == 0
    err = capsys.readouterr().err
    assert err.startswith("pegasos: warning: Pegasos did not reach tol=1e-06 in 1000 iterations")
    assert err.count("\n") == 1
