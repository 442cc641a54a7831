"""Kernel Pegasos and the kernel Perceptron with a budget of support vectors (issue 59,
BSGD): the budget's maintenance against tests/naive.py, the unbudgeted model when the
budget holds every row, fits from a stream and online, bad input, bounded memory."""

import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file

from pegasos import BlockStream, KernelPegasosClassifier, KernelPerceptron
from pegasos._base import binary_targets
from pegasos.stream import SVMLightStream, convert

from . import naive
from .conftest import make_binary

ROOT = Path(__file__).resolve().parents[1]


def _three_classes(n=60, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.argmax(X[:, :3] + 0.3 * rng.normal(size=(n, 3)), axis=1)
    return X, y


@pytest.mark.parametrize("strategy", ["merge", "remove", "project"])
@pytest.mark.parametrize("classes", [2, 3])
def test_budget_maintenance_matches_the_reference(strategy, classes):
    """Cyclic draws fix the order: the budget's points, their rows and coefficients are
    the reference's (the same points chosen, merged and dropped at every step).  A merged
    point's h is the end of a golden-section search whose comparisons a rounding of the
    kernel's last digit can turn (its interval ends 5e-7 wide): merged points agree to
    1e-6, the others to rounding."""
    X, y = make_binary(n=50, d=4, seed=7) if classes == 2 else _three_classes(50)
    sw = np.random.default_rng(5).uniform(0.5, 2.0, 50)  # (no ties between coefficients)
    lam, T, k, B, gamma = 0.05, 60, 4, 12, 0.4
    clf = KernelPegasosClassifier(
        lam=lam, gamma=gamma, n_iter=T, batch_size=k, sampling="cyclic", average=0.5,
        intercept_scaling=0.7, budget=B, budget_strategy=strategy).fit(X, y, sample_weight=sw)
    Y = np.column_stack(binary_targets(clf.classes_, y))
    Z, ids, coef = naive.budgeted_kernel_pegasos(
        X, Y, np.arange(T * k) % 50, budget=B, strategy=strategy, gamma=gamma, lam=lam, k=k,
        avg_from=T - math.ceil(0.5 * T) + 1, bias2=0.49, sw=sw)
    assert len(ids) <= B and clf.support_vectors_.shape[0] == len(ids)
    np.testing.assert_array_equal(clf.support_, ids)
    if strategy == "merge":
        assert (ids == -1).any()  # merged points, the case under test
    tol = 1e-6 if strategy == "merge" else 1e-9
    np.testing.assert_allclose(clf.support_vectors_, Z, rtol=0, atol=tol)
    scale = np.abs(coef).max()
    np.testing.assert_allclose(clf.dual_coef_.T, coef, rtol=0, atol=10 * tol * scale)
    np.testing.assert_allclose(clf.intercept_, 0.49 * coef.sum(axis=0), rtol=0,
                               atol=10 * tol * scale * B)


@pytest.mark.parametrize("strategy", ["merge", "remove"])
def test_budgeted_perceptron_matches_the_reference(strategy):
    X, y = make_binary(n=40, d=3, seed=9)
    sw = np.random.default_rng(2).uniform(0.5, 2.0, 40)
    T, k, B = 50, 2, 8
    clf = KernelPerceptron(gamma=0.5, n_iter=T, batch_size=k, sampling="cyclic", average=True,
                           fit_intercept=False, budget=B, budget_strategy=strategy)
    clf.fit(X, y, sample_weight=sw)
    Z, ids, coef = naive.budgeted_kernel_pegasos(
        X, y[:, None], np.arange(T * k) % 40, budget=B, strategy=strategy, gamma=0.5, k=k,
        perceptron=True, avg_from=1, sw=sw)
    np.testing.assert_array_equal(clf.support_, ids)
    np.testing.assert_allclose(clf.dual_coef_.T, coef, rtol=0, atol=1e-9 * np.abs(coef).max())


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_a_budget_holding_every_row_gives_the_unbudgeted_model_bit_for_bit(sparse):
    X, y = _three_classes(70)
    X = sp.csr_matrix(np.where(np.abs(X) < 0.3, 0.0, X)) if sparse else X
    params = dict(C=3.0, gamma=0.5, n_epochs=3, batch_size=4, random_state=1)
    for average in (0.5, False):  # (the default "auto" is 0.5 without a budget, False with)
        plain = KernelPegasosClassifier(**params, average=average).fit(X, y)
        for budget in (70, 1000):
            held = KernelPegasosClassifier(**params, budget=budget, average=average).fit(X, y)
            np.testing.assert_array_equal(held.dual_coef_, plain.dual_coef_)
            np.testing.assert_array_equal(held.support_, plain.support_)
            np.testing.assert_array_equal(held.intercept_, plain.intercept_)


@pytest.mark.parametrize("make, unbudgeted", [(KernelPegasosClassifier, 0.5),
                                              (KernelPerceptron, True)])
def test_average_auto_is_the_last_iterate_with_a_budget_only(make, unbudgeted):
    X, y = _three_classes(70)
    params = dict(gamma=0.5, n_epochs=2, batch_size=4, random_state=1)
    for budget, same in ((None, unbudgeted), (20, False)):
        auto = make(**params, budget=budget).fit(X, y)
        given = make(**params, budget=budget, average=same).fit(X, y)
        other = make(**params, budget=budget, average=not same).fit(X, y)
        np.testing.assert_array_equal(auto.dual_coef_, given.dual_coef_)
        assert auto.dual_coef_.shape != other.dual_coef_.shape or not np.array_equal(
            auto.dual_coef_, other.dual_coef_)


def test_the_budgeted_solver_with_room_for_every_row_is_the_unbudgeted_model():
    """The budgeted solver itself (a budget one below the rows, never reached: fewer
    rows violate) against the solver without a budget: the same model up to rounding."""
    X, y = make_binary(n=80, d=4, seed=3)
    params = dict(lam=0.05, gamma=0.5, n_iter=5, batch_size=8, random_state=2, average=0.5)
    plain = KernelPegasosClassifier(**params).fit(X, y)
    held = KernelPegasosClassifier(**params, budget=79).fit(X, y)
    assert len(plain.support_) < 79
    order = np.argsort(held.support_)
    np.testing.assert_array_equal(held.support_[order], plain.support_)
    np.testing.assert_allclose(held.dual_coef_[:, order], plain.dual_coef_, rtol=1e-10)


@pytest.mark.parametrize("budget, message", [
    (0, r"'budget' parameter of KernelPegasosClassifier must be an int in the range \[1, inf\)"),
    (-3, r"'budget' parameter of KernelPegasosClassifier must be an int in the range \[1, inf\)"),
    (2.5, r"'budget' parameter of KernelPegasosClassifier must be an int in the range \[1, inf\)"),
    ("10", r"'budget' parameter of KernelPegasosClassifier must be an int in the range"),
])
def test_a_bad_budget_is_a_clear_error(budget, message):
    X, y = make_binary(n=20)
    with pytest.raises(ValueError, match=message):
        KernelPegasosClassifier(budget=budget).fit(X, y)


def test_a_budget_larger_than_memory_is_refused_before_allocating():
    X, y = make_binary(n=20)
    with pytest.raises(ValueError, match=r"^a budget of 10000000000 support vectors \(5 "
                                         r"features.* need [\d.]+ [KMGTPE]iB, more than the"):
        KernelPegasosClassifier(lam=0.1, budget=10**10).partial_fit(X, y, [-1, 1])


def test_kernels_a_budget_cannot_hold_are_refused():
    X, y = make_binary(n=20)
    with pytest.raises(ValueError, match="budget_strategy='merge' merges rbf points only; "
                                         "with kernel='linear' give budget_strategy='remove'"):
        KernelPegasosClassifier(kernel="linear", budget=5).fit(X, y)
    with pytest.raises(ValueError, match="budget needs the rows themselves"):
        KernelPegasosClassifier(kernel="precomputed", budget=5).fit(X @ X.T, y)
    with pytest.raises(ValueError, match="'budget_strategy' parameter .* must be a str among"):
        KernelPegasosClassifier(budget=5, budget_strategy="drop").fit(X, y)
    clf = KernelPegasosClassifier(kernel="poly", gamma=0.3, budget=5, budget_strategy="remove",
                                  random_state=0).fit(X, y)
    assert clf.support_vectors_.shape[0] <= 5


def test_partial_fit_learns_online_within_the_budget():
    X, y = _three_classes(400, seed=4)
    clf = KernelPegasosClassifier(lam=1e-2, gamma=0.5, budget=30, random_state=0)
    assert hasattr(clf, "partial_fit") and not hasattr(KernelPegasosClassifier(), "partial_fit")
    with pytest.raises(ValueError, match="classes must be given on the first call"):
        clf.partial_fit(X[:50], y[:50])
    for lo in range(0, 300, 50):
        clf.partial_fit(X[lo:lo + 50], y[lo:lo + 50], classes=[0, 1, 2])
        assert clf.support_vectors_.shape[0] <= 30
    assert clf.n_iter_ == 300 // 16 + 6 * 0 + sum(-(-50 // 16) for _ in range(6)) - 300 // 16
    assert clf.score(X[300:], y[300:]) > 0.65  # (an unbudgeted pass: 0.79)
    with pytest.raises(ValueError, match=r"y holds labels the model was not fitted on: \[7\]; its classes are \[0, 1, 2\]"):
        clf.partial_fit(X[:5], np.full(5, 7))
    again = KernelPegasosClassifier(lam=1e-2, gamma=0.5, budget=30, random_state=0)
    for lo in range(0, 300, 50):
        again.partial_fit(X[lo:lo + 50], y[lo:lo + 50], classes=[0, 1, 2])
    np.testing.assert_array_equal(again.dual_coef_, clf.dual_coef_)  # same seed, same model
    with pytest.raises(ValueError, match="partial_fit needs lam"):
        KernelPegasosClassifier(C=1.0, budget=5).partial_fit(X, y, classes=[0, 1, 2])


def test_the_callback_reports_the_budgets_support_vectors():
    X, y = make_binary(n=200, seed=1)
    reports = []
    KernelPegasosClassifier(lam=0.01, gamma=0.5, budget=15, n_iter=200, batch_size=2,
                            random_state=0, callback=reports.append).fit(X, y)
    assert 15 <= len(reports) <= 25
    assert all(r.support_vectors == r.coef.shape[0] <= 15 for r in reports)
    assert reports[-1].support_vectors == 15


def _svm_file(path, X, y):
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return path


def test_a_stream_fit_keeps_the_budget_and_learns(tmp_path):
    X, y = make_binary(n=900, d=4, seed=11)
    path = _svm_file(tmp_path / "d.svm", X[:600], y[:600])
    clf = KernelPegasosClassifier(lam=1e-3, gamma=0.5, budget=40, n_epochs=2, random_state=0)
    clf.fit(SVMLightStream(path, buffer_rows=128))
    assert clf.support_vectors_.shape == (40, 4) and sp.issparse(clf.support_vectors_)
    assert clf.n_rows_read_ == 1200
    assert clf.score(X[600:], y[600:]) > 0.85
    cache = tmp_path / "d.cache"
    convert(path, cache)
    from_cache = KernelPegasosClassifier(lam=1e-3, gamma=0.5, budget=40, n_epochs=2,
                                         random_state=0).fit(SVMLightStream(cache, buffer_rows=128))
    np.testing.assert_array_equal(from_cache.dual_coef_, clf.dual_coef_)
    with pytest.raises(ValueError, match="A stream fit takes no C"):
        KernelPegasosClassifier(budget=40).fit(SVMLightStream(path))
    with pytest.raises(ValueError, match="A stream fit takes no budget=None"):
        KernelPegasosClassifier(lam=0.1).fit(SVMLightStream(path))


def test_a_stream_with_a_new_label_later_is_a_clear_error(tmp_path):
    X, y = make_binary(n=300, d=3, seed=2)
    y = y.copy()
    y[250] = 5.0
    path = _svm_file(tmp_path / "d.svm", X, y)
    with pytest.raises(ValueError, match=r"the stream has the label 5, which is not among its "
                                         r"classes \[-1\.0, 1\.0\].*give classes"):
        KernelPegasosClassifier(lam=0.01, budget=10, n_epochs=1).fit(
            SVMLightStream(path, buffer_rows=100))


_UNDER_A_LIMIT = """
import resource, sys
import numpy as np
from pegasos import KernelPegasosClassifier
from pegasos.stream import SVMLightStream

def fit(path, n_iter):
    return KernelPegasosClassifier(lam=1e-4, gamma=0.05, budget=200, n_iter=n_iter,
                                   batch_size=16, random_state=0).fit(
        SVMLightStream(path, buffer_rows=4096))

fit(sys.argv[1], 30)  # compiled code loaded: what a fit's process holds before its data
if sys.argv[2] == "probe":
    print(open("/proc/self/status").read().split("VmSize:")[1].split()[0])
    sys.exit()
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[2]), resource.RLIM_INFINITY))
clf = fit(sys.argv[2 + 1], int(sys.argv[4]))
print(clf.support_vectors_.shape[0], clf.n_rows_read_)
"""


@pytest.mark.slow
def test_a_stream_fit_runs_under_an_address_space_limit_below_the_data(tmp_path):
    """A file larger than the process may map: the fit reads it a block at a time and
    holds the budget, never the rows (the limit: what the process holds once its compiled
    code is loaded, plus 400 MiB)."""
    rng = np.random.default_rng(0)
    X = np.round(rng.random((4000, 100)), 4)
    y = np.where(X[:, 0] + X[:, 1] > 1.0, 1, -1)
    one = tmp_path / "one.svm"
    dump_svmlight_file(X, y, str(one), zero_based=False)
    probe = subprocess.run([sys.executable, "-c", _UNDER_A_LIMIT, str(one), "probe"],
                           capture_output=True, text=True, check=True, cwd=ROOT)
    limit = int(probe.stdout) * 1024 + (400 << 20)
    text = one.read_bytes()
    path = tmp_path / "big.svm"
    with open(path, "wb") as f:
        for _ in range((limit + (100 << 20)) // len(text) + 1):
            f.write(text)
    size = path.stat().st_size
    assert limit < size
    rows = size // len(text) * 4000
    T = rows // 16 + 10  # past one pass
    done = subprocess.run([sys.executable, "-c", _UNDER_A_LIMIT, str(one), str(limit),
                           str(path), str(T)], capture_output=True, text=True, cwd=ROOT,
                          timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    svs, read = map(int, done.stdout.split())
    assert svs <= 200 and read > rows


def test_a_budgeted_model_with_merged_points_saves_and_loads(tmp_path):
    from pegasos.model_io import load_model, save_model

    X, y = _three_classes(200, seed=6)
    clf = KernelPegasosClassifier(lam=1e-2, gamma=0.5, budget=15, average=False,
                                  random_state=0).fit(X, y)
    assert (clf.support_ == -1).any()  # merged points, the case under test
    save_model(clf, tmp_path / "b.model")
    loaded = load_model(tmp_path / "b.model")
    np.testing.assert_array_equal(loaded.decision_function(X), clf.decision_function(X))
    with pytest.raises(ValueError, match="partial_fit continues a budgeted fit made in this "
                                         "process, and this model holds none"):
        loaded.partial_fit(X, y)
    from pegasos.model_io import ModelFileError

    clf.set_params(budget=clf.support_vectors_.shape[0] - 1)  # a header that the points exceed
    save_model(clf, tmp_path / "over.model")
    with pytest.raises(ModelFileError, match=r"the model holds \d+ support vectors, more than "
                                             r"its budget=\d+"):
        load_model(tmp_path / "over.model")


def test_a_failed_refit_leaves_no_half_model():
    from sklearn.exceptions import NotFittedError

    X, y = _three_classes(200, seed=6)

    def stop(report):
        raise KeyboardInterrupt

    for est in (KernelPegasosClassifier(lam=1e-2, budget=15, random_state=0),
                KernelPerceptron(budget=15, random_state=0)):
        est.fit(X, y)
        with pytest.raises(KeyboardInterrupt):
            est.set_params(callback=stop).fit(X * 5, y + 10)  # new gamma_, new classes_
        with pytest.raises(NotFittedError):  # not the old points under the new labels
            est.predict(X)


def test_the_command_line_trains_budgets_and_the_landmark_solver(tmp_path, capsys):
    """train --budget (in memory and --stream), info's budget, a budgeted stream model that
    loads and predicts, --map-solver landmark; the options' misuse named."""
    import json

    from sklearn.datasets import load_digits

    from pegasos import NystroemPegasosClassifier, load_model
    from pegasos.cli import main

    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    train, test = str(tmp_path / "tr.svm"), str(tmp_path / "te.svm")
    dump_svmlight_file(X[:600], y[:600], train)
    dump_svmlight_file(X[600:900], y[600:900], test)
    model, streamed, mapped = (str(tmp_path / n) for n in ("m", "s", "l"))
    kernel = ["-g", "0.05", "-l", "1e-4", "-k", "4"]
    assert main(["train", "-s", "kernel-pegasos", "--budget", "40", *kernel, "--epochs", "1",
                 "-q", train, model]) == 0
    est = load_model(model)
    ref = KernelPegasosClassifier(budget=40, gamma=0.05, lam=1e-4, batch_size=4, n_epochs=1,
                                  random_state=0).fit(*load_svmlight_arrays(train))
    np.testing.assert_array_equal(est.dual_coef_, ref.dual_coef_)  # (average "auto": last)
    assert main(["info", "--json", model]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["budget"] == {"budget": 40, "strategy": "merge"}
    assert main(["train", "-s", "kernel-pegasos", "--budget", "40", "--budget-strategy",
                 "remove", *kernel, "--iter", "300", "--stream", "--json", train,
                 streamed]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["iterations"] == 300 and summary["rows_read"] >= 1200
    back = load_model(streamed)
    assert back.budget_strategy == "remove" and len(back.support_) <= 40
    assert main(["predict", test, streamed, str(tmp_path / "out")]) == 0
    assert main(["train", "--map", "nystroem", "--map-solver", "landmark", "--components", "50",
                 *kernel, "--iter", "500", "-q", train, mapped]) == 0
    ref = NystroemPegasosClassifier(50, gamma=0.05, lam=1e-4, batch_size=4, n_iter=500,
                                    solver="landmark", random_state=0).fit(
        *load_svmlight_arrays(train))
    np.testing.assert_array_equal(load_model(mapped).coef_, ref.coef_)
    capsys.readouterr()
    for args, message in (
            (["-s", "svc", "--budget", "5"], "--budget does not apply to -s svc"),
            (["-s", "kernel-pegasos", "--budget-strategy", "remove"],
             "--budget-strategy needs --budget"),
            (["--map-solver", "landmark"], "--map-solver are options of --map nystroem"),
            (["-s", "kernel-pegasos", "--budget", "0"], r"--budget \(budget\) must be an int")):
        with pytest.raises(SystemExit):
            main(["train", *args, train, model])
        assert re.search(message, capsys.readouterr().err)


def load_svmlight_arrays(path):
    from pegasos.datasets import load_svmlight

    X, y = load_svmlight(path)[:2]
    return X, y


def test_a_budgeted_fit_from_blocks_measures_its_held_out_error_and_stops():
    from sklearn.datasets import load_digits

    from pegasos import BlockStream

    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    blocks = [(X[i:i + 128], y[i:i + 128]) for i in range(0, 1400, 128)]
    params = dict(budget=60, gamma=0.05, lam=1e-4, batch_size=4, n_iter=2000, random_state=0)
    plain = KernelPegasosClassifier(**params).fit(BlockStream(blocks, buffer_rows=256))
    assert plain.n_iter_ == 2000 and not hasattr(plain, "holdout_errors_")
    assert plain.score(X[1400:], y[1400:]) > 0.85
    held = KernelPegasosClassifier(**params).fit(
        BlockStream(blocks, buffer_rows=256, holdout=200, n_iter_no_change=2))
    errors = held.holdout_errors_
    assert errors.shape[1] == 2 and np.all(np.diff(errors[:, 0]) > 0)
    best = int(np.argmin(errors[:, 1]))
    assert held.n_iter_ < 2000 and len(errors) - 1 - best >= 2  # stopped by the rule
    with pytest.raises(ValueError, match=r"the held-out rows are 3 features wide, the stream's 64"):
        KernelPegasosClassifier(**params).fit(
            BlockStream(blocks, buffer_rows=256, holdout=(X[:10, :3], y[:10])))


def test_partial_fit_takes_rows_of_another_float_type_in_the_budgets():
    X, y = _three_classes(200, seed=3)
    for first, later in ((np.float32, np.float64), (np.float64, np.float32)):
        clf = KernelPegasosClassifier(lam=1e-2, gamma=0.5, budget=15, random_state=0)
        same = KernelPegasosClassifier(lam=1e-2, gamma=0.5, budget=15, random_state=0)
        clf.partial_fit(X[:100].astype(first), y[:100], classes=[0, 1, 2])
        same.partial_fit(X[:100].astype(first), y[:100], classes=[0, 1, 2])
        clf.partial_fit(X[100:].astype(later), y[100:])  # (converted to the first call's)
        same.partial_fit(X[100:].astype(later).astype(first), y[100:])
        assert clf.support_vectors_.dtype == first
        np.testing.assert_array_equal(clf.dual_coef_, same.dual_coef_)


def test_a_stream_of_rows_without_features_is_refused():
    y = np.arange(100) % 2
    with pytest.raises(ValueError, match=r"the block stream: the first block's rows have no "
                                         r"features: give rows of at least one feature"):
        KernelPegasosClassifier(lam=0.1, budget=5, gamma="auto").fit(
            BlockStream([(sp.csr_matrix((100, 0)), y)]))
    with pytest.raises(ValueError, match=r"block 1 of the block stream has rows of no features"):
        KernelPerceptron(budget=5).fit(BlockStream([(np.zeros((100, 0)), y)]))


def test_a_failed_first_partial_fit_leaves_nothing_and_the_next_call_starts_again():
    from sklearn.exceptions import NotFittedError

    X, y = _three_classes(200, seed=6)
    clf = KernelPegasosClassifier(lam=1e-2, budget=15, random_state=0)
    with pytest.raises(ValueError, match=r"y holds labels the model was not fitted on: \[2\]"):
        clf.partial_fit(X, y, classes=[0, 1])
    clf.partial_fit(X, y, classes=[0, 1, 2])  # (not "this model holds none")
    ref = KernelPegasosClassifier(lam=1e-2, budget=15, random_state=0)
    np.testing.assert_array_equal(clf.dual_coef_,
                                  ref.partial_fit(X, y, classes=[0, 1, 2]).dual_coef_)

    def stop(report):
        raise KeyboardInterrupt

    new = KernelPerceptron(budget=15, callback=stop)
    with pytest.raises(KeyboardInterrupt):
        new.partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(NotFittedError):  # (was an AttributeError: no dual_coef_)
        new.predict(X)
    fitted = KernelPegasosClassifier(lam=1e-2, budget=500, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="partial_fit continues a budgeted fit made in this "
                                         "process, and this model holds none"):
        fitted.partial_fit(X, y)
    assert fitted.predict(X).shape == (200,)  # (a model fitted otherwise is kept)
