"""LIBSVM's other problems on the working-set solver: DualSVR, DualNuSVR, DualOneClassSVM
and DualNuSVC, against the naive LIBSVM solver (tests/naive.py) and against scikit-learn's
LIBSVM."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVR, NuSVC, NuSVR, OneClassSVM

from pegasos import (
    DualNuSVC,
    DualNuSVR,
    DualOneClassSVM,
    DualSVR,
    Report,
    load_model,
    save_model,
)
from pegasos.one_class import libsvm_start
from pegasos.svc import nu_start
from pegasos.svr import nu_svr_start

from .naive import libsvm_rho, libsvm_smo


def _regression(n=80, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    z = np.sin(2 * X[:, 0]) + X[:, 1] ** 2 + 0.2 * rng.normal(size=n)
    return X, z


def _svr_problem(K, z, c, p_of):
    """LIBSVM's 2n-variable form: Q, y, p (``p_of(z)`` gives the two halves)."""
    n = len(z)
    y = np.concatenate([np.ones(n), -np.ones(n)])
    Q = np.outer(y, y) * np.block([[K, K], [K, K]])
    return Q, y, np.concatenate(p_of(z)), np.concatenate([c, c])


@pytest.mark.parametrize("weights", [False, True])
def test_svr_is_the_naive_libsvm_solution(weights, solver_path):
    X, z = _regression()
    sw = np.random.default_rng(1).uniform(0.5, 2.0, len(z)) if weights else None
    reg = DualSVR(C=3.0, epsilon=0.2, gamma=0.5, tol=1e-10, working_set_size=16).fit(
        X, z, sample_weight=sw)
    K = rbf_kernel(X, gamma=0.5)
    c = 3.0 * (np.ones(len(z)) if sw is None else sw)
    Q, y, p, C = _svr_problem(K, z, c, lambda z: (0.2 - z, 0.2 + z))
    a, G = libsvm_smo(Q, p, y, C, np.zeros(len(y)), tol=1e-10)
    beta = a[: len(z)] - a[len(z):]
    np.testing.assert_allclose(reg.predict(X), K @ beta - libsvm_rho(y, C, a, G), atol=1e-7)
    np.testing.assert_array_equal(reg.support_, np.flatnonzero(np.abs(beta) > 1e-9))
    assert reg.fit_status_ == 0 and reg.n_iter_ > 2  # several working sets
    np.testing.assert_allclose(reg.objective_, 0.5 * a @ Q @ a + p @ a, rtol=1e-9)


def test_nu_svr_is_the_naive_libsvm_solution(solver_path):
    X, z = _regression(seed=2)
    reg = DualNuSVR(nu=0.3, C=2.0, gamma=0.5, tol=1e-10, working_set_size=16).fit(X, z)
    K = rbf_kernel(X, gamma=0.5)
    c = np.full(len(z), 2.0)
    Q, y, p, C = _svr_problem(K, z, c, lambda z: (-z, z))
    a, G = libsvm_smo(Q, p, y, C, nu_svr_start(c, 0.3), tol=1e-10, by_sign=True)
    rho, r = libsvm_rho(y, C, a, G, by_sign=True)
    np.testing.assert_allclose(reg.predict(X), K @ (a[:80] - a[80:]) - rho, atol=1e-7)
    assert reg.epsilon_ == pytest.approx(-r, abs=1e-7)
    # both of each sign's constraints hold: sum a = sum a* = nu C n / 2
    np.testing.assert_allclose([a[:80].sum(), a[80:].sum()], [0.3 * 2.0 * 40] * 2)


@pytest.mark.parametrize("weights", [False, True])
def test_one_class_is_the_naive_libsvm_solution(weights, solver_path):
    X, _ = _regression(seed=3)
    w = np.random.default_rng(4).uniform(0.5, 2.0, len(X)) if weights else np.ones(len(X))
    det = DualOneClassSVM(nu=0.2, gamma=0.3, tol=1e-10, working_set_size=16).fit(
        X, sample_weight=w if weights else None)
    K = rbf_kernel(X, gamma=0.3)
    y = np.ones(len(X))
    start = libsvm_start(w, 0.2)
    assert start.sum() == pytest.approx(0.2 * w.sum())
    a, G = libsvm_smo(K, np.zeros(len(X)), y, w, start, tol=1e-10)
    rho = libsvm_rho(y, w, a, G)
    np.testing.assert_allclose(det.decision_function(X), K @ a - rho, atol=1e-7)
    np.testing.assert_allclose(det.offset_, [rho], atol=1e-7)
    np.testing.assert_allclose(det.score_samples(X), K @ a, atol=1e-7)


def test_nu_svc_pairs_are_the_naive_solver_nu_divided_by_r():
    X, y = load_digits(return_X_y=True)
    keep = y < 3
    X, y = X[keep][:150] / 16, y[keep][:150]
    clf = DualNuSVC(nu=0.2, gamma=0.05, tol=1e-10, working_set_size=16).fit(X, y)
    K = rbf_kernel(X, gamma=0.05)
    for p, (i, j) in enumerate([(0, 1), (0, 2), (1, 2)]):
        rows = np.flatnonzero((y == i) | (y == j))
        t = np.where(y[rows] == i, 1.0, -1.0)
        Q = np.outer(t, t) * K[np.ix_(rows, rows)]
        C = np.ones(len(rows))
        a, G = libsvm_smo(Q, np.zeros(len(rows)), t, C, nu_start(C, 0.2, t > 0), tol=1e-10,
                          by_sign=True)
        rho, r = libsvm_rho(t, C, a, G, by_sign=True)
        assert clf.C_[p] == pytest.approx(1 / r, rel=1e-7)
        ovo = clf.set_params(decision_function_shape="ovo").decision_function(X)
        np.testing.assert_allclose(ovo[:, p], (K[:, rows] @ (t * a) - rho) / r, atol=1e-6)


@pytest.mark.parametrize("sparse", [False, True])
def test_models_are_scikit_learns(sparse):
    X, z = _regression(n=200, seed=5)
    Xf = sp.csr_matrix(X) if sparse else X
    cases = [(DualSVR(C=5, epsilon=0.1, tol=1e-8), SVR(C=5, epsilon=0.1, tol=1e-8), z),
             (DualNuSVR(nu=0.4, tol=1e-8), NuSVR(nu=0.4, tol=1e-8), z),
             (DualOneClassSVM(nu=0.3, tol=1e-8), OneClassSVM(nu=0.3, tol=1e-8), None),
             (DualNuSVC(nu=0.2, tol=1e-8), NuSVC(nu=0.2, tol=1e-8),
              (z > 1).astype(int) + (z > 2.5))]
    for ours, theirs, target in cases:
        ours.fit(Xf, target)
        theirs.fit(Xf, target)
        np.testing.assert_array_equal(ours.support_, theirs.support_)
        np.testing.assert_array_equal(ours.n_support_, theirs.n_support_)
        np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=0, atol=1e-5)
        scores = ours.predict if target is z else ours.decision_function
        reference = theirs.predict if target is z else theirs.decision_function
        np.testing.assert_allclose(scores(X), reference(X), rtol=0, atol=1e-5)
        assert sp.issparse(ours.dual_coef_) == sparse


def test_nu_svc_refuses_an_infeasible_nu_and_ignores_class_weight():
    X, z = _regression(n=60)
    y = (z > np.quantile(z, 0.8)).astype(int)  # 12 of 60 rows in class 1
    with pytest.raises(ValueError, match=r"specified nu is infeasible: nu=0.5 .* \(0, 1\); "):
        DualNuSVC(nu=0.5).fit(X, y)
    plain = DualNuSVC(nu=0.3).fit(X, y)
    weighted = DualNuSVC(nu=0.3, class_weight={1: 5.0}).fit(X, y)
    np.testing.assert_array_equal(plain.decision_function(X), weighted.decision_function(X))


@pytest.mark.parametrize("Estimator, params", [
    (DualSVR, {}), (DualNuSVR, {}), (DualOneClassSVM, {}), (DualNuSVC, {"nu": 0.3})])
def test_models_save_and_load(Estimator, params, tmp_path):
    X, z = _regression(n=90)
    target = (z > 1).astype(int) if Estimator is DualNuSVC else z
    est = Estimator(**params).fit(sp.csr_matrix(X), target)
    save_model(est, tmp_path / "m")
    back = load_model(tmp_path / "m")
    f = "decision_function" if Estimator in (DualOneClassSVM, DualNuSVC) else "predict"
    np.testing.assert_array_equal(getattr(back, f)(X), getattr(est, f)(X))
    assert type(back) is Estimator


def test_a_model_file_whose_offset_is_not_minus_the_intercept_is_refused(tmp_path):
    X, _ = _regression(n=50)
    det = DualOneClassSVM().fit(X)
    det.offset_ = det.offset_ + 1.0
    save_model(det, tmp_path / "m")
    with pytest.raises(ValueError, match="offset_ must be minus intercept_"):
        load_model(tmp_path / "m")


def test_weights_of_zero_or_less_drop_rows_and_all_of_them_is_an_error():
    X, z = _regression(n=60)
    w = np.ones(60)
    w[:10] = -1.0
    dropped = DualSVR(gamma=0.3, tol=1e-9).fit(X, z, sample_weight=w)
    rest = DualSVR(gamma=0.3, tol=1e-9).fit(X[10:], z[10:])  # (gamma="scale" reads all X)
    np.testing.assert_allclose(dropped.predict(X), rest.predict(X), atol=1e-7)
    for est, target in ((DualSVR(), z), (DualOneClassSVM(), None)):
        with pytest.raises(ValueError, match="all samples have zero or negative weights"):
            est.fit(X, target, sample_weight=np.zeros(60))


def test_max_iter_warns_and_the_callback_reports_every_row():
    X, z = _regression(n=120)
    with pytest.warns(ConvergenceWarning, match=r"DualSVR stopped after 1 iterations "
                                                r"\(max_iter=1\) with a largest violation"):
        reg = DualSVR(C=100, working_set_size=8, max_iter=1).fit(X, z)
    assert reg.fit_status_ == 1
    reports = []
    reg = DualNuSVR(working_set_size=8, callback=reports.append).fit(X, z)
    assert [r.t for r in reports][:3] == [1, 2, 4] and reports[-1].t == reg.n_iter_
    last = reports[-1]
    assert isinstance(last, Report) and last.coef.shape == (120,)
    np.testing.assert_allclose(last.coef[reg.support_], reg.dual_coef_[0])


def test_callable_and_precomputed_kernels_give_the_rbf_model():
    X, z = _regression(n=70)
    rbf = DualSVR(gamma=0.4, tol=1e-9).fit(X, z)
    K = rbf_kernel(X, gamma=0.4)
    pre = DualSVR(kernel="precomputed", tol=1e-9).fit(K, z)
    call = DualSVR(kernel=lambda A, B: rbf_kernel(A, B, gamma=0.4), tol=1e-9).fit(X, z)
    np.testing.assert_allclose(pre.predict(K), rbf.predict(X), atol=1e-8)
    np.testing.assert_allclose(call.predict(X), rbf.predict(X), atol=1e-8)
    with pytest.raises(ValueError, match=r"the callable kernel returned shape \[1, 1\] for "
                                         r"the 2 training rows"):
        DualSVR(kernel=lambda A, B: np.ones((1, 1))).fit([[0.0], [1.0]], [0.0, 1.0])


@pytest.mark.parametrize("Estimator, params, match", [
    (DualSVR, {"epsilon": -1.0}, r"The 'epsilon' parameter of DualSVR must be a float in "
                                  r"the range \[0.0, inf\)"),
    (DualOneClassSVM, {"nu": 0.0}, r"The 'nu' parameter of DualOneClassSVM must be a float "
                                    r"in the range \(0.0, 1.0\]"),
    (DualNuSVR, {"C": 0.0}, r"The 'C' parameter of DualNuSVR must be a float in the range "
                             r"\(0.0, inf\)"),
    (DualNuSVC, {"nu": 1.5}, r"The 'nu' parameter of DualNuSVC must be a float in the range "
                              r"\(0.0, 1.0\]"),
])
def test_bad_parameters(Estimator, params, match):
    X, z = _regression(n=20)
    with pytest.raises(ValueError, match=match):
        Estimator(**params).fit(X, (z > 1).astype(int) if Estimator is DualNuSVC else z)


@pytest.fixture
def libsvm_files(tmp_path):
    from sklearn.datasets import dump_svmlight_file

    rng = np.random.default_rng(0)
    X = rng.normal(size=(240, 5))
    z = np.sin(X[:, 0]) + X[:, 1] ** 2 + 0.1 * rng.normal(size=240)
    inside = np.where(np.linalg.norm(X, axis=1) < 2.5, 1, -1)
    out = {}
    for name, target in (("reg", z), ("oc", inside), ("three", np.arange(240) % 3 + 1)):
        for part, rows in (("trn", slice(0, 180)), ("tst", slice(180, None))):
            path = tmp_path / f"{name}.{part}"
            dump_svmlight_file(X[rows], target[rows], str(path), zero_based=False)
            out[f"{name}.{part}"] = str(path)
    return tmp_path, out


@pytest.mark.parametrize("options, data", [
    (["-s", "3", "-c", "10", "-p", "0.05"], "reg"),
    (["-s", "4", "-n", "0.3", "-t", "1", "-r", "1"], "reg"),
    (["-s", "2", "-n", "0.1"], "oc"),
    (["-s", "1", "-n", "0.3"], "three"),
    (["-s", "0", "-c", "5", "-t", "2", "-g", "0.5"], "oc"),
])
def test_command_line_trains_what_svm_train_trains(libsvm_files, capsys, options, data):
    """LIBSVM's numbers and defaults (gamma 1/num_features): the model's rho, support vector
    count and predictions are svm-train's (libsvm-official) to the tolerance."""
    svmutil = pytest.importorskip("libsvm.svmutil")
    from pegasos.cli import main

    folder, files = libsvm_files
    model = str(folder / "ours.model")
    assert main(["train", "-q", "-e", "1e-7", *options, files[f"{data}.trn"], model]) == 0
    y, x = svmutil.svm_read_problem(files[f"{data}.trn"])
    theirs = svmutil.svm_train(y, x, " ".join([*options, "-e", "1e-7", "-q"]))
    ours = load_model(model)
    assert len(ours.support_) == theirs.get_nr_sv()
    yt, xt = svmutil.svm_read_problem(files[f"{data}.tst"])
    labels, values = _svm_predict(theirs, xt)
    out = folder / "out"
    assert main(["predict", files[f"{data}.tst"], model, str(out)]) == 0
    said = capsys.readouterr().out
    predicted = np.loadtxt(out)
    if options[1] in ("3", "4"):
        np.testing.assert_allclose(predicted, labels, atol=1e-5)
        mse = np.mean((np.array(labels) - yt) ** 2)
        assert f"Mean squared error = {np.mean((predicted - yt) ** 2):g} (regression)" in said
        assert np.mean((predicted - yt) ** 2) == pytest.approx(mse, rel=1e-4)
        assert "Squared correlation coefficient = " in said
    else:
        np.testing.assert_array_equal(predicted, labels)
        assert f"Accuracy = {100 * np.mean(predicted == yt):.4f}%" in said
    if options[1] in ("0", "1"):  # one decision value per pair, svm-predict's orientation
        scores = ours.set_params(decision_function_shape="ovo").decision_function(
            _dense(xt, 5))
        # (LIBSVM's labels are in the order of first appearance: positive for the first;
        # ours sorted, a binary decision positive for the second)
        sign = -1 if ours.classes_.size == 2 and theirs.get_labels()[0] == ours.classes_[0] else 1
        # (nu-SVC's values are divided by r: its solution's rounding grows by 1/r)
        np.testing.assert_allclose(np.reshape(scores, (len(yt), -1)) * sign, values,
                                   atol=1e-5 if options[1] == "0" else 1e-3)


def _svm_predict(model, rows):
    """LIBSVM's svm_predict_values on each row: (outputs, decision values), by the C library
    (libsvm-official's svmutil.svm_predict crashed with a bus error on 3-class models)."""
    import ctypes

    from libsvm.svm import gen_svm_nodearray, libsvm

    k = model.get_nr_class()
    outputs, values = [], []
    for row in rows:
        nodes, _ = gen_svm_nodearray(row)
        dec = (ctypes.c_double * max(1, k * (k - 1) // 2))()
        outputs.append(libsvm.svm_predict_values(model, nodes, dec))
        values.append(list(dec))
    return np.array(outputs), np.array(values)


def _dense(rows, d):
    out = np.zeros((len(rows), d))
    for i, row in enumerate(rows):
        for k, v in row.items():
            out[i, k - 1] = v
    return out


def test_command_line_cross_validates_a_regression_and_reports_as_svm_train(libsvm_files,
                                                                            capsys):
    from pegasos.cli import main

    _, files = libsvm_files
    assert main(["train", "-s", "3", "-v", "4", files["reg.trn"]]) == 0
    said = capsys.readouterr().out
    assert said.startswith("Cross Validation Mean squared error = ")
    assert "\nCross Validation Squared correlation coefficient = " in said
    assert main(["train", "-s", "one-class", "-v", "3", files["oc.trn"]]) == 0
    assert capsys.readouterr().out.startswith("Cross Validation Accuracy = ")


@pytest.mark.parametrize("argv, message", [
    (["-s", "svr", "-w", "1:2"], "-s svr has no classes: -w (class weights) does not apply"),
    (["-s", "one-class", "-b", "1"], "-s one-class: -b 1 (probability estimates) is for the "
                                      "classifiers here"),
    (["-s", "nu-svc", "-c", "2"], "-s nu-svc takes nu (-n), not C (-c)"),
    (["-s", "svr", "-n", "0.2"], "-n does not apply to -s svr"),
    (["-s", "nu-svr", "-p", "0.2"], "-p does not apply to -s nu-svr (it is for -s svr)"),
    (["-s", "svr", "-p", "-1"], "-p (epsilon) must be a float in the range [0.0, inf)"),
])
def test_command_line_refuses_options_a_problem_does_not_take(libsvm_files, capsys, argv,
                                                             message):
    from pegasos.cli import main

    folder, files = libsvm_files
    with pytest.raises(SystemExit) as exc:
        main(["train", *argv, files["reg.trn"], str(folder / "x.model")])
    assert exc.value.code == 2 and message in capsys.readouterr().err
    assert not (folder / "x.model").exists()


def test_a_regression_model_refuses_probabilities_and_decision_values(libsvm_files, capsys):
    from pegasos.cli import main

    folder, files = libsvm_files
    model = str(folder / "r.model")
    assert main(["train", "-q", "-s", "svr", files["reg.trn"], model]) == 0
    assert main(["predict", "-b", "1", files["reg.tst"], model]) == 1
    assert "is a regression model: -b 1 (probability estimates) is for classifiers" in (
        capsys.readouterr().err)
    with pytest.raises(SystemExit):
        main(["predict", "--decision-values", files["reg.tst"], model])
    assert "its prediction is its decision value" in capsys.readouterr().err
