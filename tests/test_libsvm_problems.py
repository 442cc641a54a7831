"""LIBSVM's other problems on the working-set solver: DualSVR, DualNuSVR, DualOneClassSVM
and DualNuSVC, against the naive LIBSVM solver (tests/naive.py) and against scikit-learn's
LIBSVM; the command line's LIBSVM numbers and LIBSVM's model files, against libsvm-official."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import load_digits, load_iris, make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVR, NuSVC, NuSVR, OneClassSVM

from pegasos import (
    DualNuSVC,
    DualNuSVR,
    DualOneClassSVM,
    DualSVC,
    DualSVR,
    Report,
    load_model,
    save_model,
)
from pegasos._solvers.problems import libsvm_start, nu_start, nu_svr_start

from .conftest import stored_rbf
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
    Q, y, p, C = _svr_problem(stored_rbf(X, 0.5, solver_path), z, c,
                              lambda z: (0.2 - z, 0.2 + z))
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
    Q, y, p, C = _svr_problem(stored_rbf(X, 0.5, solver_path), z, c, lambda z: (-z, z))
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
    a, G = libsvm_smo(stored_rbf(X, 0.3, solver_path), np.zeros(len(X)), y, w, start, tol=1e-10)
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
def test_a_symmetric_nu_svc_problem_has_the_intercept_0_exactly(sparse):
    """gamma = 1e6 makes the kernel matrix the identity: each pair of classes of 7 rows is
    symmetric, LIBSVM's r+ and r- are equal and NuSVC's intercept is 0.0 -- so exactly that
    the decision's ties fall as NuSVC's (scikit-learn's test_svc_ovr_tie_breaking).  The
    rbf's diagonal and the start's responses were BLAS's products, 1 - 3e-8 here, and the
    intercept 2e-9 (at 6 of these 10 seeds)."""
    for seed in range(10):
        X, y = make_blobs(random_state=seed, n_samples=20, n_features=2)
        clf = DualNuSVC(gamma=1e6).fit(sp.csr_matrix(X) if sparse else X, y)
        assert clf.intercept_[0] == 0.0, seed
        np.testing.assert_allclose(clf.intercept_, NuSVC(gamma=1e6).fit(X, y).intercept_,
                                   rtol=1e-7)
        grid = np.c_[[X[:, 0].min(), X[:, 0].max(), 0.5], [X[:, 1].min(), 0.0, 1.0]]
        scores = clf.decision_function(np.vstack([grid, X]))
        assert not np.all(clf.predict(np.vstack([grid, X])) == np.argmax(scores, axis=1))


def test_one_class_offset_with_every_support_vector_at_its_bound_is_libsvms():
    """Every support vector at its bound (linear kernel, nu = 0.1 on iris: 15 at 1): LIBSVM
    takes rho as the middle of the feasible interval; libsvm-official's rho is 510.28 (its
    kernel values in float), and so is ours.  scikit-learn's copy gives 508.16: one of its
    variables ends a rounding below its bound, counts as free, and rho is its gradient."""
    svmutil = pytest.importorskip("libsvm.svmutil")
    X = load_iris().data
    ours = DualOneClassSVM(kernel="linear", nu=0.1).fit(X)
    theirs = svmutil.svm_train(np.zeros(len(X)).tolist(), X.tolist(), "-s 2 -t 0 -n 0.1 -q")
    np.testing.assert_array_equal(ours.support_, np.array(theirs.get_sv_indices()) - 1)
    assert np.all(ours.dual_coef_ == 1.0)
    assert ours.offset_[0] == pytest.approx(theirs.rho[0], rel=1e-8)
    assert ours.offset_[0] == pytest.approx(510.28, rel=1e-12)


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


@pytest.mark.parametrize("Estimator, change, match", [
    (DualSVR, {"probB_": np.array([0.5])}, "unexpected array 'probB_' for DualSVR"),
    (DualNuSVR, {"probA_": np.array([-0.1])}, r"probA_ \(the residuals' Laplace scale\) must"),
    (DualSVR, {"probA_": np.array([0.1, 0.2])}, r"probA_ must be floating-point of shape \[1\]"),
    (DualOneClassSVM, {"probA_": np.array([0.1])}, "unexpected array 'probA_' for DualOneCl"),
])
def test_a_regressions_probability_model_is_checked_on_loading(Estimator, change, match,
                                                                tmp_path):
    X, z = _regression(n=50)
    est = Estimator().fit(X, z)
    save_model(est.fit(X, z), tmp_path / "ok")
    for key, value in change.items():
        setattr(est, key, value)
    save_model(est, tmp_path / "m")
    with pytest.raises(ValueError, match=match):
        load_model(tmp_path / "m")
    assert not hasattr(load_model(tmp_path / "ok"), "probA_")


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
    with pytest.warns(ConvergenceWarning, match=r"DualSVR: Solver terminated early "
                      r"\(max_iter=1\)\.  .* after 1 working sets and 1 pair steps .* with a "
                      r"largest violation"):
        reg = DualSVR(C=100, working_set_size=8, max_iter=1).fit(X, z)
    assert reg.fit_status_ == 1 and reg.n_iter_ == 1
    reports = []
    reg = DualNuSVR(working_set_size=8, callback=reports.append).fit(X, z)
    assert [r.t for r in reports][:3] == [1, 2, 4] and reports[-1].iterations == reg.n_iter_
    assert reg.n_iter_ > reports[-1].t  # pair steps, several per working set
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
                                      "classifiers and regressions here"),
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
    assert "r.model has no probability model; train it with -b 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["predict", "--decision-values", files["reg.tst"], model])
    assert "its prediction is its decision value" in capsys.readouterr().err
    assert main(["train", "-q", "-s", "one-class", files["oc.trn"], model]) == 0
    assert main(["predict", "-b", "1", files["oc.tst"], model]) == 1
    assert "is a one-class model: -b 1 (probability estimates) is for classifiers and " \
        "regressions" in capsys.readouterr().err


@pytest.mark.parametrize("cls", [DualSVR, DualNuSVR])
def test_a_regressions_probability_model_is_libsvms_laplace_scale(cls):
    """probability=True: svm_svr_probability's sigma, the mean absolute out-of-fold residual
    of the rows within 5 sqrt(2) times the mean of all, on 5 random folds of the rows of
    positive weight; LIBSVM's own (other folds) agrees to the spread of its folds."""
    from sklearn.utils import check_random_state

    X, z = _regression(n=150)
    sw = np.ones(len(z))
    sw[:10] = 0.0  # (rows that take no part, in the fit or the folds)
    z = z.copy()
    z[10] += 50.0  # an outlier, left out of the mean
    reg = cls(C=3.0, gamma=0.5, probability=True, random_state=7).fit(X, z, sample_weight=sw)
    rows = np.arange(10, len(z))
    seed = check_random_state(7).randint(np.iinfo(np.int32).max)
    order = rows[np.random.default_rng(seed).permutation(len(rows))]
    residual = np.empty(len(rows))
    for f in range(5):  # (LIBSVM's folds: the shuffled rows cut in 5, in their order)
        lo, hi = f * len(rows) // 5, (f + 1) * len(rows) // 5
        train, test = np.concatenate([order[:lo], order[hi:]]), order[lo:hi]
        fold = cls(C=3.0, gamma=0.5).fit(X[train], z[train])
        residual[lo:hi] = np.abs(z[test] - fold.predict(X[test]))
    assert residual.max() > 5 * np.sqrt(2) * residual.mean()  # (the outlier is cut)
    expected = residual[residual <= 5 * np.sqrt(2) * residual.mean()].mean()
    np.testing.assert_allclose(reg.probA_, [expected], rtol=1e-9)
    scale = cls(C=3.0, probability=True, random_state=7).fit(X, z)  # (gamma="scale")
    np.testing.assert_array_equal(scale.probA_, clone(scale).set_params(  # the folds keep it
        gamma=scale.gamma_).fit(X, z).probA_)
    plain = clone(reg).set_params(probability=False).fit(X, z, sample_weight=sw)
    np.testing.assert_array_equal(plain.predict(X), reg.predict(X))
    assert not hasattr(reg.set_params(probability=False).fit(X, z), "probA_")
    svmutil = pytest.importorskip("libsvm.svmutil")
    options = f"-s {3 if cls is DualSVR else 4} -c 3 -g 0.5 -b 1 -q"
    theirs = [svmutil.svm_train(z[10:].tolist(), X[10:].tolist(), options).get_svr_probability()
              for _ in range(5)]
    ours = [clone(reg).set_params(probability=True, random_state=s).fit(X[10:], z[10:]).probA_[0]
            for s in range(5)]
    assert abs(np.mean(ours) - np.mean(theirs)) < 0.15 * np.mean(theirs)


def test_command_line_fits_and_reports_a_regressions_probability_model(libsvm_files, capsys):
    """-s 3|4 -b 1 as svm-train's: the Laplace scale, in the model, its LIBSVM file (which
    svm-predict reads) and svm-predict -b 1's words; svm-train's own file reads back."""
    from pegasos.cli import main
    from pegasos.interchange import from_libsvm

    folder, files = libsvm_files
    model, exported = str(folder / "r.model"), str(folder / "r.libsvm")
    assert main(["train", "-s", "4", "-b", "1", files["reg.trn"], model]) == 0
    said = capsys.readouterr().out
    sigma = float(load_model(model).probA_[0])
    assert ("Prob. model for test data: target value = predicted value + z,\nz: Laplace "
            f"distribution e^(-|z|/sigma)/(2sigma),sigma={sigma:g}\n") in said
    assert main(["predict", "-b", "1", files["reg.tst"], model, str(folder / "p")]) == 0
    assert f"sigma={sigma:g}\nMean squared error = " in capsys.readouterr().out
    assert main(["export", model, exported]) == 0
    assert "\nprobA " in open(exported).read()
    svmutil = pytest.importorskip("libsvm.svmutil")
    theirs = svmutil.svm_load_model(exported)
    assert theirs.is_probability_model() and theirs.get_svr_probability() == sigma
    y, x = svmutil.svm_read_problem(files["reg.trn"])
    svmutil.svm_save_model(str(folder / "t.model"), svmutil.svm_train(y, x, "-s 3 -b 1 -q"))
    read = from_libsvm(folder / "t.model")
    assert read.probability and read.probA_[0] == svmutil.svm_load_model(
        str(folder / "t.model")).get_svr_probability()


def _svm_proba(model, rows):
    """LIBSVM's svm_predict_probability on each row, columns in the model's label order."""
    import ctypes

    from libsvm.svm import gen_svm_nodearray, libsvm

    out = []
    for row in rows:
        nodes, _ = gen_svm_nodearray(row)
        p = (ctypes.c_double * model.get_nr_class())()
        libsvm.svm_predict_probability(model, nodes, p)
        out.append(list(p))
    return np.array(out)


@pytest.mark.parametrize("options, data", [
    ("-s 0 -c 4", "oc"), ("-s 0 -b 1", "oc"), ("-s 0 -b 1 -t 1 -r 1", "three"),
    ("-s 1 -n 0.3 -t 3 -g 0.1", "three"), ("-s 2 -n 0.2", "oc"), ("-s 3 -b 1", "reg"),
    ("-s 4 -t 0", "reg"),
])
def test_svm_train_models_read_predict_as_svm_predict_and_go_back(libsvm_files, options, data):
    """Each kind of LIBSVM model file (labels in LIBSVM's order of first appearance, here
    3 1 2 for the three classes) read as ours predicts what svm-predict predicts, with the
    same decision values and probabilities; written back, svm-predict reads it alike."""
    svmutil = pytest.importorskip("libsvm.svmutil")
    from pegasos.interchange import from_libsvm, to_libsvm

    folder, files = libsvm_files
    y, x = svmutil.svm_read_problem(files[f"{data}.trn"])
    if data == "three":  # LIBSVM's labels in their order of first appearance: 3, 1, 2
        y = [float((int(v) + 1) % 3 + 1) for v in y]
    model = svmutil.svm_train(y, x, options + " -q")
    path = str(folder / "theirs.model")
    svmutil.svm_save_model(path, model)
    theirs = svmutil.svm_load_model(path)  # (as saved: support vectors to 8 digits)
    ours = from_libsvm(path)
    yt, xt = svmutil.svm_read_problem(files[f"{data}.tst"])
    Xt = _dense(xt, 5)
    outputs, values = _svm_predict(theirs, xt)
    np.testing.assert_allclose(ours.predict(Xt), outputs, rtol=0, atol=1e-12)
    if options.startswith(("-s 0", "-s 1")) and len(ours.classes_) > 2:
        labels = theirs.get_labels()
        ovo = ours.set_params(decision_function_shape="ovo").decision_function(Xt)
        for p, (i, j) in enumerate(itertools.combinations(range(3), 2)):
            a, b = labels.index(ours.classes_[i]), labels.index(ours.classes_[j])
            q = list(itertools.combinations(range(3), 2)).index((min(a, b), max(a, b)))
            np.testing.assert_allclose(ovo[:, p] * (1 if a < b else -1), values[:, q],
                                       rtol=0, atol=1e-12)
    if "-b 1" in options and options.startswith("-s 0"):
        columns = [theirs.get_labels().index(c) for c in ours.classes_]
        np.testing.assert_allclose(ours.predict_proba(Xt), _svm_proba(theirs, xt)[:, columns],
                                   rtol=0, atol=1e-9)
    to_libsvm(ours, folder / "back.model")
    back = svmutil.svm_load_model(str(folder / "back.model"))
    np.testing.assert_allclose(_svm_predict(back, xt)[0], outputs, rtol=0, atol=1e-12)


_OURS = {"svc-proba": lambda: DualSVC(C=3, probability=True, random_state=0),
         "nu-svc-poly": lambda: DualNuSVC(nu=0.2, kernel="poly", degree=2, coef0=1.0),
         "svc-sigmoid": lambda: DualSVC(kernel="sigmoid", gamma=0.05),
         "svr": lambda: DualSVR(C=5, epsilon=0.05),
         "nu-svr-linear": lambda: DualNuSVR(kernel="linear"),
         "one-class": lambda: DualOneClassSVM(nu=0.3)}


@pytest.mark.parametrize("name, classes", [
    *((name, k) for name in ("svc-proba", "nu-svc-poly", "svc-sigmoid") for k in (2, 3)),
    ("svr", 0), ("nu-svr-linear", 0), ("one-class", 2)])
def test_our_models_written_for_libsvm_predict_the_same_in_svm_predict(libsvm_files, name,
                                                                        classes):
    svmutil = pytest.importorskip("libsvm.svmutil")
    from pegasos.interchange import to_libsvm

    folder, _ = libsvm_files
    X, z = _regression(n=150, d=4, seed=7)
    est = _OURS[name]()
    target = {0: z, 2: np.where(z > 1, 5, -3), 3: np.digitize(z, [0.7, 1.6]) * 2 - 1}[classes]
    est.fit(sp.csr_matrix(X), target)
    to_libsvm(est, folder / "ours.model")
    theirs = svmutil.svm_load_model(str(folder / "ours.model"))
    rows = [{j + 1: v for j, v in enumerate(row) if v != 0} for row in X]
    outputs, values = _svm_predict(theirs, rows)
    np.testing.assert_allclose(outputs, est.predict(X), rtol=0, atol=1e-9)
    if isinstance(est, DualOneClassSVM):
        np.testing.assert_allclose(values[:, 0], est.decision_function(X), atol=1e-9)
    if getattr(est, "probability", False):
        columns = [theirs.get_labels().index(c) for c in est.classes_]
        np.testing.assert_allclose(_svm_proba(theirs, rows)[:, columns], est.predict_proba(X),
                                   rtol=0, atol=1e-9)


@pytest.mark.parametrize("text, message", [
    ("svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 1\nrho 0\nlabel 1 -1\n"
     "nr_sv 1 0\nSV\n1 0:0.5\n", r"line 10: feature indices must be >= 1 and increasing"),
    ("svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 2\nrho 0\nlabel 1 -1\n"
     "nr_sv 1 1\nSV\n1 1:0.5\n", r"total_sv 2, but 1 support vector lines follow 'SV'"),
    ("svm_type c_svc\nkernel_type rbf\nnr_class 2\ntotal_sv 0\nrho 0\nlabel 1 -1\nnr_sv 0 0\n"
     "SV\n", "the header has no gamma"),
    ("svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho nan\nSV\n1 1:1\n",
     r"line 5: rho needs 1 finite numbers; got 'nan'"),
    ("svm_type mc_svc\nkernel_type rbf\nSV\n", "svm_type 'mc_svc' is not one of LIBSVM's"),
    ("svm_type c_svc\nkernel_type rbf\nkernel_type rbf\nSV\n", "line 3: kernel_type is given "
                                                               "twice"),
    ("svm_type one_class\nkernel_type rbf\n", "no 'SV' line: not a LIBSVM model file"),
    ("svm_type c_svc\nkernel_type linear\nnr_class 3\ntotal_sv 1\nrho 0 0 0\nlabel 1 2 2\n"
     "nr_sv 1 0 0\nSV\n1 1 1:1\n", "line 6: the labels repeat"),
])
def test_malformed_libsvm_files_are_refused_with_the_line_at_fault(tmp_path, text, message):
    from pegasos.interchange import LibsvmFormatError, from_libsvm

    path = tmp_path / "bad.model"
    path.write_text(text)
    with pytest.raises(LibsvmFormatError, match=message):
        from_libsvm(path)


def test_command_line_exports_and_imports_libsvm_models(libsvm_files, capsys):
    svmutil = pytest.importorskip("libsvm.svmutil")
    from pegasos.cli import main

    folder, files = libsvm_files
    ours, exported, back = (str(folder / name) for name in ("m", "m.libsvm", "back"))
    assert main(["train", "-q", "-s", "1", "-n", "0.3", files["three.trn"], ours]) == 0
    assert main(["export", ours, exported]) == 0  # (LIBSVM's format for a dual model)
    assert open(exported).readline() == "svm_type nu_svc\n"
    yt, xt = svmutil.svm_read_problem(files["three.tst"])
    np.testing.assert_array_equal(_svm_predict(svmutil.svm_load_model(exported), xt)[0],
                                  load_model(ours).predict(_dense(xt, 5)))
    assert main(["import", exported, back]) == 0
    assert type(load_model(back)).__name__ == "DualNuSVC"
    capsys.readouterr()
    assert main(["info", ours]) == 0  # (the fit's nu, then the file's: none recorded)
    assert "regularisation: nu = 0.3 (each pair's C = 1/r: " in capsys.readouterr().out
    assert main(["info", back]) == 0
    assert ("regularisation: not recorded (read from a LIBSVM model file, which keeps no C, "
            "nu or epsilon") in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["import", "-l", "0.1", exported, back])
    assert "-l is for LIBLINEAR's files: a LIBSVM model has no lambda" in capsys.readouterr().err
    assert main(["export", "--format", "liblinear", ours, str(folder / "x")]) == 1
    assert "only linear models can be written for LIBLINEAR" in capsys.readouterr().err


@pytest.mark.parametrize("seed", range(4))
def test_nu_problems_converge_with_a_working_set_of_four(seed):
    """Solver_NU's signs take turns in the set: the maximal violating pair of each sign is
    brought first (a working set of 4 once went round for ever without a step)."""
    rng = np.random.RandomState(seed)
    X = rng.randn(200, 3)
    y = (X[:, 0] + 0.5 * rng.randn(200) > 0).astype(int)
    clf = DualNuSVC(working_set_size=4, tol=1e-6).fit(X, y)
    assert clf.fit_status_ == 0
    np.testing.assert_allclose(clf.decision_function(X),
                               NuSVC(tol=1e-6).fit(X, y).decision_function(X), atol=1e-4)
    z = X[:40, 0]
    reg = DualNuSVR(working_set_size=4, tol=1e-8).fit(X[:40], z)
    assert reg.fit_status_ == 0
    np.testing.assert_allclose(reg.predict(X[:40]), NuSVR(tol=1e-8).fit(X[:40], z).predict(
        X[:40]), atol=1e-6)


def test_a_nu_with_no_model_is_refused_as_scikit_learn_refuses_it():
    X, _ = _regression(n=40)
    with pytest.raises(ValueError, match=r"nu-SVC found no model: r = .*Take a smaller nu"):
        DualNuSVC(nu=1.0).fit(X, np.arange(40) % 2)  # every variable at its bound
    with pytest.raises(ValueError, match=r"nu-SVC found no model"):
        DualNuSVC().fit(np.vstack([X[:1]] * 10), np.arange(10) % 2)  # one row, two labels
    with pytest.raises(ValueError, match=r"DualOneClassSVM found no model: its offset "
                                         r"\(LIBSVM's rho\) is not finite"):
        DualOneClassSVM(nu=1.0).fit(X)
    for est in (NuSVC(nu=1.0), OneClassSVM(nu=1.0)):  # (scikit-learn: not finite)
        with pytest.raises(ValueError, match="not finite"):
            est.fit(X, np.arange(40) % 2)


def test_probabilities_of_a_nu_the_whole_set_holds_but_a_fold_may_not():
    """LIBSVM checks nu against the whole training set only; a fold fills what it holds."""
    X, _ = _regression(n=20)
    y = np.array([0] * 7 + [1] * 13)  # nu = 0.69 fits 7 of 20, not 5 of a fold's 16
    clf = DualNuSVC(nu=0.69, probability=True, random_state=0).fit(X, y)
    proba = clf.predict_proba(X)
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)


def test_large_targets_round_the_gradients_and_still_stop():
    X, z = _regression(n=60)
    reg = DualSVR(tol=1e-3).fit(X, z + 1e13)  # gradients of 1e13: their rounding is 1e-2
    assert reg.fit_status_ == 0
    np.testing.assert_allclose(reg.predict(X) - 1e13, DualSVR().fit(X, z).predict(X), atol=0.1)


def test_command_line_reads_libsvms_precomputed_format_with_t_4(libsvm_files, capsys):
    """-t 4: 0:serial, then the kernel values against the training rows 1..L; the model is
    svm-train's on the same file (and its export svm-predict's)."""
    svmutil = pytest.importorskip("libsvm.svmutil")
    from pegasos.cli import main

    folder, files = libsvm_files
    Xr, yr = (np.array(v) for v in (_dense(svmutil.svm_read_problem(files["oc.trn"])[1], 5),
                                    svmutil.svm_read_problem(files["oc.trn"])[0]))
    Xt, yt = (np.array(v) for v in (_dense(svmutil.svm_read_problem(files["oc.tst"])[1], 5),
                                    svmutil.svm_read_problem(files["oc.tst"])[0]))
    for name, K, y in (("pre.trn", rbf_kernel(Xr, gamma=0.3), yr),
                       ("pre.tst", rbf_kernel(Xt, Xr, gamma=0.3), yt)):
        with open(folder / name, "w") as f:  # (a test row's 0: is any number; libsvm's
            # Python reader drops a 0, and its kernel reads the row's values by position)
            for i, (row, label) in enumerate(zip(K, y)):
                f.write(f"{label:g} 0:{i + 1} "
                        + " ".join(f"{j + 1}:{v:.17g}" for j, v in enumerate(row)) + "\n")
    model = str(folder / "pre.model")
    assert main(["train", "-q", "-s", "0", "-t", "4", "-c", "3", str(folder / "pre.trn"),
                 model]) == 0
    out = folder / "pre.out"
    assert main(["predict", str(folder / "pre.tst"), model, str(out)]) == 0
    y, x = svmutil.svm_read_problem(str(folder / "pre.trn"))
    theirs = svmutil.svm_train(y, x, "-s 0 -t 4 -c 3 -q")
    _, xt = svmutil.svm_read_problem(str(folder / "pre.tst"))
    np.testing.assert_array_equal(np.loadtxt(out), _svm_predict(theirs, xt)[0])
    assert main(["export", model, str(folder / "pre.libsvm")]) == 0
    back = svmutil.svm_load_model(str(folder / "pre.libsvm"))
    np.testing.assert_array_equal(_svm_predict(back, xt)[0], np.loadtxt(out))
    bad = folder / "bad.trn"
    bad.write_text((folder / "pre.trn").read_text().replace(" 0:2 ", " 0:7 ", 1))
    assert main(["train", "-s", "0", "-t", "4", str(bad), str(folder / "x.model")]) == 1
    assert "row 2's serial number (0:) is 7; the training rows must be numbered 1..180" in (
        capsys.readouterr().err)
    with pytest.raises(SystemExit):
        main(["train", "-s", "sbp", "-t", "4", str(folder / "pre.trn")])
    assert "-t 4 (precomputed, LIBSVM's format) is for the dual solvers" in (
        capsys.readouterr().err)


def test_command_line_says_when_s_3_regresses_two_labels(libsvm_files, capsys):
    from pegasos.cli import main

    folder, files = libsvm_files
    assert main(["train", "-s", "3", files["oc.trn"], str(folder / "m")]) == 0
    assert ("pegasos: note: -s 3 is LIBSVM's epsilon-SVR: a regression of these two labels "
            "(LIBLINEAR's -s 3 and 4 are classifiers") in capsys.readouterr().err


def test_infinite_c_is_the_hard_margin_and_an_impossible_one_is_an_error():
    from sklearn.datasets import make_classification, make_regression

    X, y = make_classification(random_state=0)
    np.testing.assert_array_equal(DualSVC(C=np.inf).fit(X, y).predict(X),
                                  DualSVC(C=1e10).fit(X, y).predict(X))
    X, z = make_regression(random_state=0)
    np.testing.assert_allclose(DualSVR(C=np.inf).fit(X, z).predict(X),
                               DualSVR(C=1e10).fit(X, z).predict(X), atol=1e-9)
    rng = np.random.RandomState(0)
    X = rng.randn(100, 2)
    y = (X[:, 0] + rng.randn(100) > 0).astype(int)  # no line separates these
    with pytest.raises(ValueError, match=r"C=inf \(the hard margin\) has no solution here"):
        DualSVC(C=np.inf, kernel="linear").fit(X, y)
    with pytest.raises(ValueError, match="start_epochs needs a finite C"):
        DualSVC(C=np.inf, start_epochs=1).fit(X, y)


def test_shrinking_verbose_class_weight_and_shape_fit_are_svcs(capsys):
    X, z = _regression(n=80)
    y = (z > 1).astype(int)
    a = DualSVC(shrinking=False, verbose=True, class_weight={1: 3.0}).fit(X, y)
    b = DualSVC(class_weight={1: 3.0}).fit(X, y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert "DualSVC: problem 1 of 1: " in capsys.readouterr().out
    np.testing.assert_array_equal(a.class_weight_, [1.0, 3.0])
    assert a.shape_fit_ == X.shape
    # a callable kernel's: the rows' shape, as SVC's (not its kernel matrix's, (80, 80))
    assert DualSVC(kernel=lambda A, B: A @ B.T).fit(X, y).shape_fit_ == X.shape
    assert DualSVR(kernel=lambda A, B: A @ B.T).fit(X, z).shape_fit_ == X.shape
    DualSVR(verbose=True).fit(X, z)
    assert capsys.readouterr().out.startswith("DualSVR: ")


def test_a_model_read_from_libsvm_and_refitted_keeps_nothing_of_the_file(tmp_path):
    """(tie_order_, the file's order of labels for vote ties, once survived a refit)"""
    from pegasos.interchange import from_libsvm, to_libsvm

    X, z = _regression(n=120)
    y = np.digitize(z, [0.5, 1.0, 2.0])
    clf = DualSVC().fit(X, y)
    to_libsvm(clf, tmp_path / "m")
    est = from_libsvm(tmp_path / "m")
    est.tie_order_ = np.array([3, 1, 2, 0])  # (as a file listing its labels 3 1 2 0 gives)
    est.fit(X, np.arange(120) % 5)
    assert not hasattr(est, "tie_order_") and (est.predict(X) == 4).sum() > 0


def test_a_libsvm_header_parted_by_tabs_reads_as_svm_predict_reads_it(tmp_path):
    """svm-predict reads a header's words with fscanf: a tab or several spaces part a
    field's name from its values as one space does (such a file was once refused)."""
    from pegasos.interchange import from_libsvm, to_libsvm

    X, z = _regression(n=60)
    y = np.digitize(z, [0.5, 1.5])
    to_libsvm(DualSVC().fit(X, y), tmp_path / "m")
    lines = (tmp_path / "m").read_text().splitlines(keepends=True)
    end = lines.index("SV\n")
    spaced = [line.replace(" ", "\t  ", 1) for line in lines[:end]] + lines[end:]
    (tmp_path / "t").write_text("".join(spaced))
    assert "\t" in spaced[0] and "\t" in spaced[end - 1]
    np.testing.assert_array_equal(from_libsvm(tmp_path / "t").decision_function(X),
                                  from_libsvm(tmp_path / "m").decision_function(X))
    svmutil = pytest.importorskip("libsvm.svmutil")
    assert svmutil.svm_load_model(str(tmp_path / "t")).get_nr_class() == 3


@pytest.mark.parametrize("line, message", [
    ("nr_class " + "9" * 400, r"nr_class needs 1 integers of LIBSVM \(32 bits\)"),
    ("nr_class 2\nlabel 1 " + str(2**70), r"label needs 2 integers of LIBSVM \(32 bits\)"),
])
def test_integers_beyond_libsvms_are_refused_with_the_line(tmp_path, line, message):
    from pegasos.interchange import LibsvmFormatError, from_libsvm

    path = tmp_path / "bad.model"
    path.write_text(f"svm_type c_svc\nkernel_type linear\n{line}\ntotal_sv 0\nrho 0\nnr_sv 0 0\nSV\n")
    with pytest.raises(LibsvmFormatError, match=message):
        from_libsvm(path)


@pytest.mark.parametrize("line, message", [
    ("probA -0.5", r"line 6: probA \(the Laplace scale of a regression's residuals\) must be"),
    ("probA 0.5\nprobB 0.1", r"line 7: probB is a classifier's; a regression's probability"),
    ("probA 0.5 0.7", r"line 6: probA needs 1 finite numbers; got '0.5 0.7'"),
])
def test_a_regression_files_probability_model_is_checked(tmp_path, line, message):
    from pegasos.interchange import LibsvmFormatError, from_libsvm

    path = tmp_path / "bad.model"
    head = "svm_type epsilon_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0\n"
    path.write_text(f"{head}SV\n1 1:1\n")
    assert not hasattr(from_libsvm(path), "probA_")
    path.write_text(f"{head}{line}\nSV\n1 1:1\n")
    with pytest.raises(LibsvmFormatError, match=message):
        from_libsvm(path)


def test_a_one_class_file_with_density_marks_reads(libsvm_files):
    svmutil = pytest.importorskip("libsvm.svmutil")
    from pegasos.interchange import from_libsvm

    folder, files = libsvm_files
    y, x = svmutil.svm_read_problem(files["oc.trn"])
    svmutil.svm_save_model(str(folder / "oc.model"), svmutil.svm_train(y, x, "-s 2 -b 1 -q"))
    est = from_libsvm(folder / "oc.model")  # (prob_density_marks, when the line is there)
    _, xt = svmutil.svm_read_problem(files["oc.tst"])
    theirs = svmutil.svm_load_model(str(folder / "oc.model"))
    np.testing.assert_array_equal(est.predict(_dense(xt, 5)), _svm_predict(theirs, xt)[0])


def test_infinite_c_with_rows_of_weight_zero_warns_nothing():
    import warnings

    from sklearn.datasets import make_classification

    X, y = make_classification(random_state=0)
    w = np.ones(len(y))
    w[:5] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        DualSVC(C=np.inf).fit(X, y, sample_weight=w)
        DualSVR(C=np.inf).fit(X, y.astype(float), sample_weight=w)
