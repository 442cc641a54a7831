"""DualSVC, the working-set dual solver: against its naive reference and against SVC."""

import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC, NuSVC

from pegasos import DualNuSVC, DualSVC, load_model, save_model
from pegasos._solvers import gram
from pegasos._solvers import working_set as _ws

from .naive import stored_kernel, working_set_dual


def _problem(n=70, d=5, classes=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = rng.integers(0, classes, n)
    X[:, 0] += y  # some signal, still overlapping classes
    return X, y


def _targets(y):
    classes = np.unique(y)
    if len(classes) == 2:
        return np.where(y == classes[1], 1.0, -1.0)[:, None]
    return np.column_stack([np.where(y == c, 1.0, -1.0) for c in classes])


@pytest.mark.parametrize("classes, weights", [(3, False), (2, True), (4, True)])
def test_equals_the_naive_working_set_iteration(classes, weights, solver_path):
    """Given the same kernel values (a Gram matrix), the same iterates: the SMO paths
    of the two are chaotic (a 1e-16 change of one kernel value changed the second
    working set's solution by 0.2), so only equal inputs give equal iterates."""
    X, y = _problem(classes=classes)
    sw = np.random.default_rng(1).uniform(0.2, 2.0, len(y)) if weights else None
    K = rbf_kernel(X, gamma=0.3)
    K = (K + K.T) / 2  # exactly symmetric: the solver reads columns, the reference rows
    clf = DualSVC(C=3.0, kernel="precomputed", working_set_size=16, tol=1e-4,
                  multi_class="ovr").fit(K, y, sample_weight=sw)
    Y = _targets(y)
    C = 3.0 * (np.ones(len(y)) if sw is None else sw)
    a, F, b = working_set_dual(stored_kernel(K, solver_path), Y, C, q=16, new=4, tol=1e-4)
    coef = np.zeros((Y.shape[1], len(y)))
    coef[:, clf.support_] = clf.dual_coef_
    np.testing.assert_allclose(coef, (Y * a).T, rtol=0, atol=1e-10)
    np.testing.assert_allclose(clf.intercept_, b, rtol=0, atol=1e-10)
    assert clf.fit_status_ == 0 and clf.n_iter_.max() > 2  # several working sets, not one


def test_precomputed_gives_rbfs_model():
    X, y = _problem()
    rbf = DualSVC(gamma=0.5, working_set_size=16, tol=1e-9).fit(X, y)
    K = rbf_kernel(X, gamma=0.5)
    pre = DualSVC(kernel="precomputed", working_set_size=16, tol=1e-9).fit(K, y)
    np.testing.assert_allclose(pre.decision_function(K), rbf.decision_function(X), atol=1e-6)


def test_converged_binary_model_is_svcs():
    X, y = load_breast_cancer(return_X_y=True)
    X = MinMaxScaler().fit_transform(X)
    ours = DualSVC(C=10, tol=1e-8, working_set_size=64).fit(X, y)
    svc = SVC(C=10, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), svc.decision_function(X),
                               rtol=0, atol=1e-5)
    np.testing.assert_array_equal(np.sort(ours.support_), np.sort(svc.support_))
    assert ours.relative_gap_[0] < 1e-7


@pytest.mark.parametrize("sparse", [False, True])
def test_converged_model_is_the_naive_solvers_run_long(sparse):
    X, y = _problem(classes=3, seed=3)
    clf = DualSVC(C=2.0, gamma=0.4, tol=1e-10, working_set_size=32, multi_class="ovr").fit(
        sp.csr_matrix(X) if sparse else X, y)
    Y = _targets(y)
    a, F, b = working_set_dual(rbf_kernel(X, gamma=0.4), Y, np.full(len(y), 2.0), q=8, new=4,
                               tol=1e-10)
    np.testing.assert_allclose(clf.decision_function(X), F + b, rtol=0, atol=1e-8)
    primal, dual = _ws.objectives(Y, np.full(len(y), 2.0), _ws.WorkingSetState(a, F), b)
    np.testing.assert_allclose(dual, primal, rtol=1e-8)


def test_one_vs_one_is_svcs_model():
    """multi_class="ovo" (the default): SVC's support vectors in SVC's order, its
    dual_coef_ layout, intercepts, decision values in both shapes and predictions."""
    X, y = load_digits(return_X_y=True)
    keep = y < 4
    X, y = X[keep][:300] / 16, y[keep][:300]
    ours = DualSVC(C=10, tol=1e-8).fit(X, y)
    svc = SVC(C=10, tol=1e-8).fit(X, y)
    np.testing.assert_array_equal(ours.support_, svc.support_)
    np.testing.assert_array_equal(ours.n_support_, svc.n_support_)
    np.testing.assert_allclose(ours.dual_coef_, svc.dual_coef_, rtol=0, atol=1e-4)
    np.testing.assert_allclose(ours.intercept_, svc.intercept_, rtol=0, atol=1e-6)
    for shape in ("ovr", "ovo"):
        ours.set_params(decision_function_shape=shape)
        svc.set_params(decision_function_shape=shape)
        np.testing.assert_allclose(ours.decision_function(X), svc.decision_function(X),
                                   rtol=0, atol=1e-5)
    np.testing.assert_array_equal(ours.predict(X), svc.predict(X))
    assert ours.relative_gap_.shape == (6,) and ours.fit_status_ == 0


def test_one_vs_one_saves_loads_and_gives_probabilities(tmp_path):
    from pegasos import load_model, save_model

    X, y = _problem(n=90, classes=4)
    clf = DualSVC(probability=True, random_state=0).fit(sp.csr_matrix(X), y)
    save_model(clf, tmp_path / "m.svm")
    back = load_model(tmp_path / "m.svm")
    np.testing.assert_array_equal(back.decision_function(X), clf.decision_function(X))
    np.testing.assert_array_equal(back.predict(X), clf.predict(X))
    proba = back.predict_proba(X)
    assert proba.shape == (90, 4) and np.allclose(proba.sum(axis=1), 1.0)
    assert clf.dual_coef_.shape[0] == 3 and clf.intercept_.shape == (6,)
    back.set_params(decision_function_shape="ovo")  # SVC's pairs; probabilities stay per class
    assert back.decision_function(X).shape == (90, 6)
    np.testing.assert_array_equal(back.predict_proba(X), proba)
    clf.n_support_ = clf.n_support_ + np.array([1, 0, 0, -2], np.int32)
    save_model(clf, tmp_path / "bad.svm")
    with pytest.raises(ValueError, match=r"n_support_ must count the \d+ support vectors of "
                                         r"each of the 4 classes"):
        load_model(tmp_path / "bad.svm")


def test_shared_one_vs_rest_equals_separate_binary_solves():
    X, y = load_digits(return_X_y=True)
    X, y = X[:400] / 16, y[:400]
    joint = DualSVC(C=10, tol=1e-7, working_set_size=64, multi_class="ovr").fit(X, y)
    for c in (0, 3, 8):
        alone = DualSVC(C=10, tol=1e-7, working_set_size=64).fit(X, np.where(y == c, 1, 0))
        np.testing.assert_allclose(joint.decision_function(X)[:, c], alone.decision_function(X),
                                   atol=1e-5)


def test_accuracy_equals_svcs_on_digits():
    X, y = load_digits(return_X_y=True)
    X = X / 16
    ours = DualSVC(C=10).fit(X[:1200], y[:1200])
    svc = SVC(C=10).fit(X[:1200], y[:1200])
    assert ours.score(X[1200:], y[1200:]) == pytest.approx(svc.score(X[1200:], y[1200:]),
                                                           abs=0.005)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("sparse", [False, True])
def test_dense_sparse_float32_give_the_same_model(dtype, sparse):
    X, y = _problem(n=120)
    reference = DualSVC(C=5, tol=1e-9, working_set_size=32).fit(X, y)
    Xc = X.astype(dtype)
    clf = DualSVC(C=5, tol=1e-9, working_set_size=32).fit(sp.csr_matrix(Xc) if sparse else Xc, y)
    atol = 1e-6 if dtype == np.float64 else 1e-3  # kernel values in float32: 1e-7 relative
    np.testing.assert_allclose(clf.decision_function(X.astype(dtype)),
                               reference.decision_function(X), atol=atol)
    if dtype == np.float32 and not sparse:
        assert clf.support_vectors_.dtype == np.float32


_EARLY = (r"^DualSVC: Solver terminated early \(max_iter=1\).  Consider pre-processing your "
          r"data with StandardScaler or MinMaxScaler\. ")


@pytest.mark.parametrize("multi_class, match, problems", [
    ("ovr", _EARLY + r"It stopped after 1 working sets and 3 pair steps .*duality gap of .*"
     r"Increase max_iter \(pair steps; -1", 3),
    ("ovo", _EARLY + r"It stopped after 3 working sets and 3 pair steps .*duality gap of .*"
     r"Increase max_iter \(pair steps per pair of classes; -1", 3),
])
def test_max_iter_counts_pair_steps_and_warns_as_svc_with_the_gap(multi_class, match,
                                                                  problems):
    """max_iter is SVC's: SMO's pair steps of each problem, across its working sets."""
    X, y = _problem()
    with pytest.warns(ConvergenceWarning, match=match):
        clf = DualSVC(max_iter=1, working_set_size=4, multi_class=multi_class).fit(X, y)
    assert clf.fit_status_ == 1 and clf.n_iter_.tolist() == [1] * problems  # each problem's
    assert clf.relative_gap_.shape == (problems,) and np.all(clf.relative_gap_ > 0)
    free = DualSVC(working_set_size=4, multi_class=multi_class).fit(X, y)
    steps = free.n_iter_  # several working sets' pair steps: a budget of some of them
    assert free.fit_status_ == 0 and np.all(steps > 8)
    with pytest.warns(ConvergenceWarning, match=r"max_iter=5\)"):
        clf = DualSVC(max_iter=5, working_set_size=4, multi_class=multi_class).fit(X, y)
    assert clf.n_iter_.tolist() == [5] * problems and clf.fit_status_ == 1
    # the budget reached exactly is SVC's "terminated early" too (LIBSVM's loop ends there)
    with pytest.warns(ConvergenceWarning, match="Solver terminated early"):
        clf = DualSVC(max_iter=int(steps.max()), working_set_size=4,
                      multi_class=multi_class).fit(X, y)
    assert clf.fit_status_ == 1
    np.testing.assert_array_equal(clf.n_iter_, steps)
    np.testing.assert_array_equal(clf.dual_coef_, free.dual_coef_)


def test_max_iter_is_svcs_on_a_problem_that_one_step_solves():
    """SVC's own test data (scikit-learn's test_timeout): one pair step of ours solves it,
    so max_iter=1 is reached and warns as SVC's does; max_iter=2 is not (SVC's SMO takes 3
    steps there)."""
    X = np.array([[-2, -1], [-1, -1], [-1, -2], [1, 1], [1, 2], [2, 1]], float)
    y = [1, 1, 1, 2, 2, 2]
    with pytest.warns(ConvergenceWarning, match=r"Solver terminated early \(max_iter=1\)"):
        one = DualSVC(kernel="linear", max_iter=1).fit(X, y)
    assert one.n_iter_.tolist() == [1] and one.fit_status_ == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        two = DualSVC(kernel="linear", max_iter=2).fit(X, y)
    assert two.n_iter_.tolist() == [1] and two.fit_status_ == 0
    np.testing.assert_allclose(two.dual_coef_, [[-0.25, 0.25]])


def test_small_cache_gives_the_same_model_with_more_columns():
    X, y = _problem(n=150)
    big = DualSVC(working_set_size=16, tol=1e-9).fit(X, y)
    small = DualSVC(working_set_size=16, tol=1e-9, cache_size=0).fit(X, y)
    np.testing.assert_allclose(small.decision_function(X), big.decision_function(X), atol=1e-6)
    assert small.n_kernel_columns_ > big.n_kernel_columns_


def test_kernel_rows_take_the_engine_of_the_whole_training_set(monkeypatch):
    """One-vs-one's pairs of classes have fewer rows than the fit: they take the threads
    when the whole training set does (digits' pairs of about 360 rows fitted 1.11-1.16x
    slower on the serial engine), the serial engine when it is small."""
    from pegasos._numba import blocks

    X, y = load_digits(return_X_y=True)
    X = X / 16
    monkeypatch.setattr(gram, "GRAM_ROWS", 0)  # the engine, not the kernel matrix
    used = []
    fill_rows = blocks.fill_rows
    monkeypatch.setattr(blocks, "fill_rows",
                        lambda engine, *args: used.append(engine) or fill_rows(engine, *args))
    keep = np.flatnonzero(y < 3)[:540]  # 3 classes, pairs of about 360 rows
    DualSVC().fit(X[keep], y[keep])
    assert used and all(e is blocks.THREADS for e in used)
    used.clear()
    DualSVC().fit(X[keep[:300]], y[keep[:300]])
    assert used and all(e is blocks.SERIAL for e in used)


def test_callback_reports_iterations_1_2_4_8_and_the_last():
    X, y = _problem()
    reports = []
    clf = DualSVC(working_set_size=4, multi_class="ovr", callback=reports.append).fit(X, y)
    seen = sorted({r.t for r in reports})
    n_sets = seen[-1]  # (the working sets, shared by the one-vs-rest problems)
    expected = [t for t in (1, 2, 4, 8, 16, 32, 64, 128) if t < n_sets] + [n_sets]
    assert seen == expected and len(reports) == 3 * len(expected)
    # each problem's pair steps so far, the last its n_iter_
    assert [r.iterations for r in reports[-3:]] == clf.n_iter_.tolist()
    assert all(a.iterations <= b.iterations for a, b in zip(reports, reports[3:]))
    last = DualSVC(working_set_size=4, multi_class="ovr").fit(X, y)
    np.testing.assert_array_equal(reports[-1].coef[last.support_], last.dual_coef_[2])


@pytest.mark.parametrize("weights", [False, True])
def test_start_from_kernel_pegasos_is_feasible_and_its_gradients_exact(weights):
    """The start's a: in the box, sum a y = 0 per problem; its F equal K @ (y a)
    recomputed from scratch; a fit stopped at once (max_iter=0) keeps it."""
    X, y = _problem(n=90, classes=3)
    sw = np.random.default_rng(2).uniform(0.3, 2.0, len(y)) if weights else None
    with pytest.warns(ConvergenceWarning):
        clf = DualSVC(C=4.0, start_epochs=2, max_iter=0, multi_class="ovr",
                      random_state=0).fit(X, y, sample_weight=sw)
    Y = _targets(y)
    C = 4.0 * (np.ones(len(y)) if sw is None else sw)
    state, evals = clf._start(X, y, Y, C)
    assert np.all(state.a >= 0) and np.all(state.a <= C[:, None])
    np.testing.assert_allclose((Y * state.a).sum(axis=0), 0.0, atol=1e-12)
    assert np.all(state.a.sum(axis=0) > 0)  # a real start, not zero
    F = rbf_kernel(X, gamma=clf.gamma_) @ (Y * state.a)
    np.testing.assert_allclose(state.F, F, rtol=0, atol=1e-10)
    coef = np.zeros((3, len(y)))
    coef[:, clf.support_] = clf.dual_coef_
    np.testing.assert_array_equal(coef, (Y * state.a).T)
    assert not clf.n_iter_.any() and clf.n_kernel_columns_ == 0 and clf.n_kernel_evals_ > evals


def test_started_fit_reaches_the_cold_fits_model():
    X, y = load_digits(return_X_y=True)
    X, y = X[:400] / 16, y[:400]
    cold = DualSVC(C=10, tol=1e-7, working_set_size=64).fit(X, y)
    started = DualSVC(C=10, tol=1e-7, working_set_size=64, start_epochs=1,
                      random_state=0).fit(X, y)
    assert started.fit_status_ == 0
    np.testing.assert_allclose(started.decision_function(X), cold.decision_function(X),
                               atol=1e-4)


@pytest.mark.parametrize("params, match", [
    ({"C": 0}, r"'C' parameter of DualSVC must be a float in the range \(0.0, inf\]"),
    ({"tol": -1}, r"'tol' parameter of DualSVC must be a float in the range \(0.0, inf\)"),
    ({"working_set_size": 1}, r"'working_set_size' parameter of DualSVC must be an int"),
    ({"max_iter": -2}, r"'max_iter' parameter of DualSVC must be an int in the range \[-1"),
    ({"start_epochs": -1}, r"'start_epochs' parameter of DualSVC must be a float in the range "
                           r"\[0.0, inf\)"),
])
def test_bad_parameters(params, match):
    X, y = _problem()
    with pytest.raises(ValueError, match=match):
        DualSVC(**params).fit(X, y)


def test_command_line_trains_it_with_s_0(tmp_path, capsys):
    from sklearn.datasets import dump_svmlight_file

    from pegasos import load_model
    from pegasos.cli import main

    X, y = load_breast_cancer(return_X_y=True)
    X = MinMaxScaler().fit_transform(X)
    data, model = tmp_path / "bc.svm", tmp_path / "bc.model"
    dump_svmlight_file(X, y, str(data), zero_based=False)
    assert main(["train", "-s", "0", "-c", "10", "-e", "1e-4", "--json", str(data),
                 str(model)]) == 0
    out = capsys.readouterr().out
    assert '"solver": "svc"' in out and "relative_duality_gap" in out
    loaded = load_model(model)
    svc = SVC(C=10, tol=1e-4, gamma="auto").fit(X, y)  # svm-train's gamma: 1/num_features
    assert type(loaded).__name__ == "DualSVC"
    np.testing.assert_allclose(loaded.decision_function(X), svc.decision_function(X), atol=1e-3)


@pytest.mark.parametrize("option, match", [
    (["-l", "0.1"], "-s svc takes SVC's C"),
    (["-k", "4"], r"-k does not apply to -s svc"),
    (["-B", "1"], "-s svc's intercept is SVC's free b"),
])
def test_command_line_refuses_options_svc_does_not_take(tmp_path, capsys, option, match):
    from pegasos.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["train", "-s", "svc", *option, str(tmp_path / "missing.svm")])
    assert exc.value.code == 2
    assert re.search(match, capsys.readouterr().err)


def test_weights_on_one_class_only_are_refused_by_every_estimator():
    from pegasos import KernelPegasosClassifier, KernelPerceptron, PegasosClassifier, SBPClassifier

    X, y = _problem(classes=2)
    zero_for_one = np.where(y == 1, 0.0, 1.0)
    for est in (DualSVC(), PegasosClassifier(), KernelPegasosClassifier(), SBPClassifier(),
                KernelPerceptron()):
        with pytest.raises(ValueError, match=r"all samples with positive weights belong to the "
                                             r"same class \(0\)"):
            est.fit(X, y, sample_weight=zero_for_one)
    with pytest.raises(ValueError, match=r"positive weights belong to the same class \(1\)"):
        DualSVC(class_weight={0: 0.0}).fit(X, y)


@pytest.mark.parametrize("multi_class", ["ovo", "ovr"])
@pytest.mark.parametrize("unweighted", [0, 1, 2])
def test_a_class_of_no_weight_is_never_predicted_and_the_rest_is_svcs_model(multi_class,
                                                                            unweighted):
    X, y = _problem(n=90)
    weights = np.where(y == unweighted, 0.0, 1.0)
    clf = DualSVC(multi_class=multi_class, tol=1e-5).fit(X, y, sample_weight=weights)
    kept = y != unweighted  # LIBSVM drops rows of weight 0; gamma="scale" is of all of X
    svc = SVC(gamma=clf.gamma_, tol=1e-5).fit(X[kept], y[kept])
    np.testing.assert_array_equal(clf.predict(X), svc.predict(X))
    assert clf.n_support_[unweighted] == 0 and clf.fit_status_ == 0
    np.testing.assert_array_equal(np.sort(clf.support_), np.sort(np.flatnonzero(kept)[svc.support_]))


# --- SVC's API (issue 42): probabilities, coef_, break_ties, n_iter_, sparse output ---


def test_pairwise_coupling_equals_libsvms_multiclass_probability():
    from pegasos._probability import couple

    from .naive import multiclass_probability

    rng = np.random.default_rng(0)
    for k in (2, 3, 5, 8):
        upper = rng.uniform(1e-7, 1 - 1e-7, (40, k, k))
        r = np.triu(upper, 1) + np.tril(1 - upper.transpose(0, 2, 1), -1)
        want = np.array([multiclass_probability(k, row.tolist()) for row in r])
        np.testing.assert_allclose(couple(r), want, rtol=0, atol=1e-14)


def test_one_vs_one_probabilities_are_libsvms():
    from sklearn.datasets import make_blobs
    from sklearn.metrics import log_loss

    X, y = make_blobs(400, centers=4, cluster_std=2.0, random_state=0)
    ours = DualSVC(probability=True, random_state=0).fit(X, y)
    with pytest.warns(FutureWarning):  # (scikit-learn 1.9 deprecates SVC's probability)
        theirs = SVC(probability=True, random_state=0).fit(X, y)
    assert ours.probA_.shape == ours.probB_.shape == (6,)  # one sigmoid per pair, as SVC's
    P, Q = ours.predict_proba(X), theirs.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.abs(P - Q).max() < 0.1  # (their folds are LIBSVM's own random ones)
    assert abs(log_loss(y, P) / log_loss(y, Q) - 1) < 0.05
    np.testing.assert_allclose(ours.predict_log_proba(X), np.log(P))
    # LIBSVM's coupling of the pairs' clipped sigmoids, from the model's own numbers
    from pegasos._probability import couple

    scores = DualSVC.decision_function(ours.set_params(decision_function_shape="ovo"), X)
    r = np.clip(1 / (1 + np.exp(scores * ours.probA_ + ours.probB_)), 1e-7, 1 - 1e-7)
    R = np.zeros((len(X), 4, 4))
    for p, (i, j) in enumerate([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]):
        R[:, i, j], R[:, j, i] = r[:, p], 1 - r[:, p]
    np.testing.assert_allclose(P, couple(R), rtol=0, atol=1e-12)


def test_probabilities_with_a_class_of_one_row_are_libsvms_fold_rule():
    from pegasos._probability import pair_decisions

    X = np.array([[0.0, 0], [1, 1], [2, 2], [0, 1], [5, 5], [4, 5], [6, 5]])
    y = np.array([0, 0, 1, 1, 1, 1, 2])
    clf = DualSVC(probability=True, random_state=0).fit(X, y)  # SVC's: no refusal
    np.testing.assert_allclose(clf.predict_proba(X).sum(axis=1), 1.0)
    rows = np.flatnonzero(y != 0)  # pair (1, 2): class 2 has one row, in one fold
    dec = pair_decisions(clf, X, y, None, rows, 1, seed=3)
    order = rows[np.random.default_rng(3).permutation(len(rows))]
    alone = np.flatnonzero(order == 6)[0]  # the fold holding class 2's row trains on 1 only
    fold = [f for f in range(5) if f * 5 // 5 <= alone < (f + 1) * 5 // 5][0]
    held = order[fold * 5 // 5:(fold + 1) * 5 // 5]
    assert dec[np.searchsorted(rows, held)].tolist() == [1.0] * len(held)


def test_linear_coef_break_ties_n_iter_and_sparse_output_are_svcs():
    X, y = load_digits(return_X_y=True)
    X, y = X[:300] / 16, y[:300] % 4
    clf = DualSVC(kernel="linear", decision_function_shape="ovo").fit(X, y)
    assert clf.n_iter_.shape == (6,) and clf.n_iter_.dtype.kind == "i"
    np.testing.assert_allclose(X @ clf.coef_.T + clf.intercept_, clf.decision_function(X),
                               atol=1e-10)
    with pytest.raises(ValueError, match="read-only"):
        clf.coef_[0, 0] = 1.0
    with pytest.raises(AttributeError, match="only available when using a linear kernel"):
        DualSVC().fit(X, y).coef_
    with pytest.raises(ValueError, match="break_ties must be False when "
                                         "decision_function_shape is 'ovo'"):
        clf.set_params(break_ties=True).predict(X)
    ties = DualSVC(break_ties=True).fit(X, y)
    np.testing.assert_array_equal(ties.predict(X), np.argmax(ties.decision_function(X), axis=1))
    sparse = DualSVC(kernel="linear").fit(sp.csr_matrix(X), y)
    assert sp.issparse(sparse.dual_coef_) and sp.issparse(sparse.support_vectors_)
    assert sp.issparse(sparse.coef_)
    np.testing.assert_array_equal(sparse.predict(X), sparse.predict(sp.csr_matrix(X)))


def test_negative_sample_weights_drop_their_rows_as_svc_does():
    X, y = load_breast_cancer(return_X_y=True)
    X, y = MinMaxScaler().fit_transform(X[:200]), y[:200]
    sw = np.ones(len(y))
    sw[::7] = -0.5
    weighted = DualSVC(gamma=1.0, tol=1e-8).fit(X, y, sample_weight=sw)  # ("scale": all X)
    dropped = DualSVC(gamma=1.0, tol=1e-8).fit(X[sw > 0], y[sw > 0])
    np.testing.assert_allclose(weighted.decision_function(X), dropped.decision_function(X),
                               atol=1e-6)
    with pytest.raises(ValueError, match="Invalid input - all samples have zero or negative "
                                         "weights"):
        DualSVC().fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match="Invalid input - all samples with positive weights "
                                         "belong to the same class"):
        DualSVC().fit(X, y, sample_weight=np.where(y == 1, 1.0, -1.0))


def test_a_callable_kernel_is_the_precomputed_problem_of_its_matrix():
    from pegasos import save_model
    from pegasos.model_io import ModelFileError

    X, y = load_digits(return_X_y=True)
    X, y = X[:300] / 16, y[:300] % 3
    mine = DualSVC(kernel=lambda A, B: rbf_kernel(A, B, gamma=0.5), probability=True,
                   random_state=0).fit(X, y)
    builtin = DualSVC(gamma=0.5, probability=True, random_state=0).fit(X, y)
    np.testing.assert_allclose(mine.dual_coef_, builtin.dual_coef_, atol=1e-8)
    np.testing.assert_allclose(mine.decision_function(X), builtin.decision_function(X),
                               atol=1e-8)
    np.testing.assert_allclose(mine.predict_proba(X), builtin.predict_proba(X), atol=1e-6)
    np.testing.assert_array_equal(mine.support_vectors_, X[mine.support_])
    assert mine.n_features_in_ == 64
    words = np.array(["a", "ab", "b", "bb", "aab", "abb"])
    counts = DualSVC(kernel=lambda A, B: np.array(
        [[u.count("a") * v.count("a") + u.count("b") * v.count("b") for v in B] for u in A],
        dtype=float)).fit(words, [0, 0, 1, 1, 0, 1])
    assert counts.predict(["aaa", "bbb"]).tolist() == [0, 1]
    with pytest.raises(ModelFileError, match="callable kernel: the file would not hold"):
        save_model(mine, "never-written.model")


def test_probabilities_keep_the_fits_weights_and_refits_leave_nothing_stale():
    from sklearn.datasets import load_iris
    from sklearn.metrics import log_loss

    X, y = load_iris(return_X_y=True)
    # a class of weight 0: its pairs' folds are one-sided, as the fit's problems are
    zero = DualSVC(class_weight={0: 0.0, 1: 1.0, 2: 1.0}, probability=True,
                   random_state=0).fit(X, y)
    np.testing.assert_allclose(zero.predict_proba(X).sum(axis=1), 1.0)
    balanced = DualSVC(class_weight="balanced", probability=True, random_state=0)
    assert log_loss(y, balanced.fit(X, y).predict_proba(X)) < 0.2
    sw = np.ones(len(y))
    sw[::5] = -1.0  # negative weights drop their rows, in the folds and sigmoids too
    for multi_class in ("ovo", "ovr"):
        negative = DualSVC(multi_class=multi_class, probability=True, random_state=0)
        dropped = DualSVC(multi_class=multi_class, probability=True, random_state=0)
        np.testing.assert_array_equal(negative.fit(X, y, sample_weight=sw).probA_,
                                      dropped.fit(X, y, sample_weight=np.maximum(sw, 0)).probA_)
    binary = DualSVC(probability=True, random_state=0).fit(X[:100], y[:100])
    with pytest.warns(FutureWarning):
        svc = SVC(probability=True, random_state=0).fit(X[:100], y[:100])
    assert np.abs(binary.predict_proba(X[:100]) - svc.predict_proba(X[:100])).max() < 0.05
    clf = DualSVC(probability=True, random_state=0).fit(X, y)
    assert clf.pairwise_coupling_ == 1
    clf.set_params(kernel=lambda A, B: A @ B.T, probability=False).fit(X, y)
    assert clf.probA_.size == 0 and "probA_" not in vars(clf)  # (SVC's empty array)
    assert not hasattr(clf, "pairwise_coupling_")
    with pytest.raises(ValueError, match="not available with a callable kernel"):
        clf.duality_gap(X, y)
    coo = DualSVC(kernel=lambda A, B: A @ B.T).fit(sp.coo_matrix(X), y)
    np.testing.assert_array_equal(coo.predict(X), clf.predict(X))
    clf.set_params(kernel="rbf", multi_class="ovr", probability=True).fit(X, y)
    assert not hasattr(clf, "pairwise_coupling_") and clf.probA_.shape == (3,)


@pytest.mark.parametrize("weights, q", [(False, 1024), (True, 1024),
                                        pytest.param(True, 32, marks=pytest.mark.slow)])
def test_probability_folds_on_the_pairs_columns_are_the_refitted_folds(weights, q,
                                                                       monkeypatch):
    """probability=True solves each pair's 5 folds right after the pair, on its kernel
    columns, from its solution, in working sets of a quarter of the fit's where one set
    does not hold the pair (q = 32; issue 42: 1.5x the plain fit's time on 20,000
    Fashion-MNIST rows, 6.5x refitting): the probabilities of refitted folds to 1e-3."""
    from pegasos import svc

    X, y = load_digits(return_X_y=True)
    X, y = X[:700] / 16, y[:700]
    sw = np.random.default_rng(0).uniform(0.5, 2.0, len(y)) if weights else None
    if weights:
        sw[:15] = 0.0
    fast = DualSVC(C=5, probability=True, random_state=0, working_set_size=q).fit(
        X, y, sample_weight=sw)
    monkeypatch.setattr(svc.DualSVC, "_WARM_FOLDS", False)
    refit = DualSVC(C=5, probability=True, random_state=0, working_set_size=q).fit(
        X, y, sample_weight=sw)
    np.testing.assert_allclose(fast.predict_proba(X), refit.predict_proba(X), atol=1e-3)
    np.testing.assert_allclose(fast.probA_, refit.probA_, rtol=0.02)
    assert not hasattr(fast, "_sigmoids")  # (nothing of the folds stays on the model)


@pytest.mark.parametrize("layout", ["dense", "float32", "csr"])
def test_renewed_block_is_the_gathered_block_bit_for_bit(layout):
    """The working set's block renewed from the previous one (kept variables' entries
    copied, the rest read from the kept columns) is the block gathered whole from the
    kept columns, bit for bit, for dense and CSR rows, float64 and float32, on every CPU:
    no entry is read from the column of the other variable (the columns are symmetric
    only where BLAS's products are: OpenBLAS' Haswell ``sgemm`` is not), so this holds
    under ``NUMBA_CPU_NAME=haswell OPENBLAS_CORETYPE=Haswell`` too (CI's second pass)."""
    from pegasos._numba import blocks
    from pegasos._numba import kernels as kern
    from pegasos._numba import working_set as nws
    from pegasos._numba.linear import row_sqnorms
    from pegasos._rows import as_rows

    X = _problem(n=400, d=40, seed=5)[0]
    X[np.abs(X) < 0.8] = 0.0  # sparse rows, with different entries
    dtype = np.float32 if layout == "float32" else np.float64
    rows = as_rows(sp.csr_matrix(X) if layout == "csr" else X.astype(dtype), dtype)
    points = kern.Points(rows.kernel, 40, row_sqnorms(rows.kernel, rows.n_rows))
    rng = np.random.default_rng(6)
    store = np.zeros((400, 400), np.float32)
    slot_of = rng.permutation(400).astype(np.int64)  # columns in scattered slots
    first, second = rng.permutation(400)[:150], rng.permutation(400)[:150]
    vars_ = [np.asarray(v, np.int64) for v in (first, np.concatenate([first[90:], second]))]
    vars_[1] = vars_[1][np.sort(np.unique(vars_[1], return_index=True)[1])][:150]
    computed = np.unique(np.concatenate(vars_))
    blocks.fill_rows(blocks.THREADS, points, computed, kern.Kernel(kern.RBF, 0.02, 0.0, 3),
                     store, slot_of[computed])
    first = np.full(150, -1, np.int64)  # (a first set: nothing kept)
    prev = nws.kept_block(store, slot_of[vars_[0]], vars_[0], np.empty((150, 150)),
                          np.empty((0, 0)), first)
    at = np.array([np.flatnonzero(vars_[0] == v)[0] if v in vars_[0] else -1
                   for v in vars_[1]], np.int64)
    assert 0 < (at >= 0).sum() < 150  # some kept, some new
    whole = nws.kept_block(store, slot_of[vars_[1]], vars_[1], np.empty((150, 150)),
                           np.empty((0, 0)), first)
    renewed = nws.kept_block(store, slot_of[vars_[1]], vars_[1], np.empty((150, 150)), prev,
                             at)
    np.testing.assert_array_equal(renewed, whole)
    np.testing.assert_array_equal(whole, store[np.ix_(slot_of[vars_[1]], vars_[1])])
    # the kernel matrix's form, which keeps nothing (and a holder's rectangle of it)
    gathered = nws.gather_set(store, slot_of[vars_[1]], vars_[1][:40], np.empty((150, 40)))
    np.testing.assert_array_equal(gathered, whole[:, :40])


@pytest.mark.parametrize("by_sign", [False, True])
def test_inner_solve_on_a_float32_block_is_the_float64_solve_bit_for_bit(by_sign):
    """The working set's block is kept in the store's float32 as it is: the inner solve
    (C-SVC's SMO, and LIBSVM's Solver_NU for the nu problems) widens every value it reads,
    so its steps, variables and gradients are those of the same values in float64."""
    from pegasos._numba import working_set as nws

    rng = np.random.default_rng(3)
    X = rng.standard_normal((120, 5))
    K32 = rbf_kernel(X, gamma=0.3).astype(np.float32)
    y = np.where(rng.random(120) < 0.45, 1.0, -1.0)
    C = rng.uniform(0.5, 3.0, 120)
    a0 = np.where(rng.random(120) < 0.3, C, 0.0) if not by_sign else np.full(120, 0.2)
    G0 = rng.standard_normal(120) - 1.0
    plan = nws.InnerPlan(tol=1e-6, ratio=0.0, max_steps=5000, by_sign=by_sign)
    solve = nws.solve_block_by_sign if by_sign else nws.solve_block
    runs = []
    for K in (K32, K32.astype(np.float64)):
        block = nws.Subproblem(K, y, C, a0.copy(), G0.copy())
        runs.append((solve(block, plan), block.a, block.G))
    (steps32, a32, G32), (steps64, a64, G64) = runs
    assert steps32 == steps64 and steps32[0] > 10
    np.testing.assert_array_equal(a32, a64)
    np.testing.assert_array_equal(G32, G64)


def test_one_vs_one_pairs_share_one_arena_and_give_the_same_model(monkeypatch):
    """The pairs' kept columns are carved from one buffer (an Arena per fit, grown to the
    largest pair's store): the same model as with a fresh store per pair, bit for bit,
    and one buffer for all the pairs the first one's store holds."""
    X, y = load_digits(return_X_y=True)
    X = X[:900] / 16
    y = y[:900] % 4  # pairs of about 450 rows: past the kernel matrix (GRAM_ROWS) with one
    monkeypatch.setattr(gram, "GRAM_ROWS", 100)
    fresh = DualSVC(C=10, working_set_size=64, cache_size=1)
    shared = DualSVC(C=10, working_set_size=64, cache_size=1)
    taken, original = [], _ws.Arena.take

    def take(self, shape, dtype):
        out = original(self, shape, dtype)
        taken.append((out.__array_interface__["data"][0], out.nbytes, self._buffer.nbytes))
        return out

    monkeypatch.setattr(_ws.Arena, "take", take)
    shared.fit(X, y)
    assert len(taken) == 6
    assert len({address for address, _, _ in taken}) <= 2  # (it grows once at most here)
    assert taken[-1][2] == max(nbytes for _, nbytes, _ in taken)
    monkeypatch.setattr(_ws.Arena, "take", lambda self, shape, dtype: np.empty(shape, dtype))
    fresh.fit(X, y)
    np.testing.assert_array_equal(shared.dual_coef_, fresh.dual_coef_)
    np.testing.assert_array_equal(shared.intercept_, fresh.intercept_)
    np.testing.assert_array_equal(shared.support_, fresh.support_)


@pytest.mark.parametrize("Estimator", [DualSVC, DualNuSVC])
def test_probA_and_probB_are_empty_without_probabilities_as_svcs(Estimator, tmp_path):
    X, y = _problem(n=60, classes=3)
    clf = Estimator().fit(X, y)
    theirs = (SVC if Estimator is DualSVC else NuSVC)().fit(X, y)
    for name in ("probA_", "probB_"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # (scikit-learn 1.9 deprecates them)
            assert getattr(clf, name).shape == getattr(theirs, name).shape == (0,)
    assert not hasattr(clf, "predict_proba")
    save_model(clf, tmp_path / "m.npz")  # (not saved: the file has no sigmoids)
    assert load_model(tmp_path / "m.npz").probA_.shape == (0,)
    with pytest.raises(NotFittedError):
        _ = Estimator().probA_
    fitted = Estimator(probability=True, random_state=0).fit(X, y)
    assert fitted.probA_.shape == fitted.probB_.shape == (3,)
    np.testing.assert_allclose(fitted.predict_proba(X).sum(axis=1), 1.0)
