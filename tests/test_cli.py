"""The command line: train, predict, model files, plots, demo."""

import bz2
import json
import lzma
import os
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest

from pegasos import PegasosClassifier, load_model, save_model
from pegasos._solvers.gram import GRAM_ROWS
from pegasos.cli import main
from pegasos.datasets import load_svmlight
from pegasos.model_io import ModelFileError

from .conftest import make_binary


def _write(path, text):
    opener = {".bz2": bz2.open, ".xz": lzma.open}.get(os.path.splitext(path)[1])
    if opener:
        with opener(path, "wt") as f:
            f.write(text)
    else:
        with open(path, "w") as f:
            f.write(text)
    return str(path)


def _svm_text(X, labels, zero_based=False):
    lines = []
    for row, label in zip(X, labels):
        feats = " ".join(f"{j + (0 if zero_based else 1)}:{v:.17g}" for j, v in enumerate(row) if v)
        lines.append(f"{label} {feats}")
    return "\n".join(lines) + "\n"


@pytest.fixture
def files(tmp_path):
    X, y = make_binary(n=120, d=6, seed=21)
    train = _write(tmp_path / "train.svm", _svm_text(X[:80], np.where(y[:80] > 0, "+1", "-1")))
    test = _write(tmp_path / "test.svm", _svm_text(X[80:], np.where(y[80:] > 0, "+1", "-1")))
    return tmp_path, train, test


def test_train_predict_round_trip_matches_the_python_api(files, capsys):
    tmp, train, test = files
    model = str(tmp / "m.model")
    assert main(["train", "-q", "-c", "2", "--seed", "3", train, model]) == 0
    out = str(tmp / "pred.txt")
    assert main(["predict", test, model, out]) == 0
    reported = capsys.readouterr().out
    X, y = load_svmlight(train)
    Xt, yt = load_svmlight(test, n_features=X.shape[1])
    api = PegasosClassifier(C=2.0, random_state=3).fit(X, y)
    expected = api.predict(Xt)
    written = np.loadtxt(out)
    np.testing.assert_array_equal(written, expected)
    assert set(open(out).read().split()) <= {"1", "-1"}  # LIBSVM's spelling of the labels
    correct = int(np.sum(expected == yt))
    assert f"Accuracy = {100 * correct / len(yt):.4f}% ({correct}/{len(yt)})" in reported
    np.testing.assert_array_equal(load_model(model).coef_, api.coef_)


def test_default_model_name_and_predict_to_stdout(files, capsys, monkeypatch):
    tmp, train, test = files
    monkeypatch.chdir(tmp)
    assert main(["train", "-q", train]) == 0
    assert os.path.exists(tmp / "train.svm.model")
    capsys.readouterr()
    assert main(["predict", test, "train.svm.model"]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.split()) == 40
    assert captured.err.startswith("Accuracy = ")


@pytest.mark.parametrize("suffix", [".bz2", ".xz"])
def test_compressed_input(files, suffix, capsys):
    tmp, train, test = files
    packed = _write(tmp / ("train.svm" + suffix), open(train).read())
    assert main(["train", "-q", "--seed", "1", packed, str(tmp / "c.model")]) == 0
    assert main(["train", "-q", "--seed", "1", train, str(tmp / "p.model")]) == 0
    np.testing.assert_array_equal(
        load_model(tmp / "c.model").coef_, load_model(tmp / "p.model").coef_
    )


def test_zero_based_indices(tmp_path):
    X, y = make_binary(n=60, d=4, seed=22)
    zero = _write(tmp_path / "zero.svm", _svm_text(X, y.astype(int), zero_based=True))
    one = _write(tmp_path / "one.svm", _svm_text(X, y.astype(int)))
    assert main(["train", "-q", "--zero-based", zero, str(tmp_path / "z.model")]) == 0
    assert main(["train", "-q", one, str(tmp_path / "o.model")]) == 0
    np.testing.assert_array_equal(
        load_model(tmp_path / "z.model").coef_, load_model(tmp_path / "o.model").coef_
    )


def test_multiclass_labels_of_any_value(tmp_path):
    X, _ = make_binary(n=90, d=4, seed=23)
    labels = np.array([3, 7, 12])[np.argmax(X[:, :3], axis=1)]
    data = _write(tmp_path / "mc.svm", _svm_text(X, labels))
    assert main(["train", "-q", "-c", "10", data, str(tmp_path / "mc.model")]) == 0
    out = str(tmp_path / "mc.pred")
    assert main(["predict", "-q", data, str(tmp_path / "mc.model"), out]) == 0
    predicted = open(out).read().split()
    assert set(predicted) <= {"3", "7", "12"}
    assert np.mean(np.array(predicted, dtype=int) == labels) > 0.8


@pytest.mark.parametrize(
    "text, line, reason",
    [
        ("1 1:0.5\n-1 2:abc\n", 2, "the value 'abc' of feature 2 is not a number"),
        ("1 1:0.5\n1 2:1\n-1 0:3\n", 3, "feature index 0 in '0:3' is below 1 (one-based indices)"),
        ("1 1:0.5\n2:0.5 3:1\n", 2, "missing label"),
        ("", None, "no data: the file has no examples"),
    ],
    ids=["non-numeric", "index-0", "missing-label", "empty"],
)
def test_malformed_files_fail_with_the_line_and_leave_no_model(tmp_path, capsys, text, line, reason):
    data = _write(tmp_path / "bad.svm", text)
    model = tmp_path / "bad.model"
    assert main(["train", data, str(model)]) == 1
    err = capsys.readouterr().err
    where = f"{data}, line {line}" if line else data
    assert f"pegasos: error: {where}: {reason}" in err
    assert not model.exists()
    assert os.listdir(tmp_path) == ["bad.svm"]  # no temporary file either


def test_a_failed_run_keeps_the_previous_model(files, capsys, monkeypatch):
    tmp, train, _ = files
    model = tmp / "keep.model"
    assert main(["train", "-q", train, str(model)]) == 0
    before = model.read_bytes()
    bad = _write(tmp / "bad.svm", "1 1:x\n")
    assert main(["train", "-q", bad, str(model)]) == 1
    assert model.read_bytes() == before

    def broken_savez(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez", broken_savez)
    capsys.readouterr()
    assert main(["train", "-q", train, str(model)]) == 1
    assert capsys.readouterr().err == f"pegasos: error: cannot write the model {model}: disk full\n"
    assert model.read_bytes() == before
    assert not [name for name in os.listdir(tmp) if name.endswith(".tmp")]


def test_loading_refuses_pickles_truncation_and_other_versions(files, tmp_path):
    _, train, _ = files
    X, y = load_svmlight(train)
    clf = PegasosClassifier(random_state=0).fit(X, y)
    pickled = tmp_path / "pickled.model"
    pickled.write_bytes(pickle.dumps(clf))
    with pytest.raises(ModelFileError, match=r"is a pickle; pegasos model files are never unpickled"):
        load_model(pickled)
    good = tmp_path / "good.model"
    save_model(clf, good)
    truncated = tmp_path / "truncated.model"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(ModelFileError, match=r"is truncated or corrupt"):
        load_model(truncated)
    with np.load(good) as archive:
        arrays = {k: archive[k] for k in archive.files}
    meta = json.loads(str(arrays["__meta__"]))
    meta["version"] = 99
    arrays["__meta__"] = np.asarray(json.dumps(meta))
    future = tmp_path / "future.model"
    with open(future, "wb") as f:
        np.savez(f, **arrays)
    with pytest.raises(ModelFileError, match=r"has model format version 99; this pegasos reads versions 1, 2, 3"):
        load_model(future)
    other = tmp_path / "other.npz"
    np.savez(other, a=np.zeros(3))
    with pytest.raises(ModelFileError, match=r"is an npz archive but not a pegasos model file"):
        load_model(other)


def test_predict_reports_a_bad_model_file(files, tmp_path, capsys):
    _, _, test = files
    junk = tmp_path / "junk.model"
    junk.write_text("not a model")
    assert main(["predict", test, str(junk)]) == 1
    assert "is not a pegasos model file" in capsys.readouterr().err


def test_model_round_trip_keeps_parameters(files, tmp_path):
    _, train, _ = files
    X, y = load_svmlight(train)
    clf = PegasosClassifier(
        lam=0.01, class_weight={-1.0: 2.0, 1.0: 1.0}, average=True, random_state=np.random.RandomState(0)
    ).fit(X, y)
    save_model(clf, tmp_path / "m.model")
    back = load_model(tmp_path / "m.model")
    params = back.get_params()
    assert params["class_weight"] == {-1.0: 2.0, 1.0: 1.0}
    assert params["random_state"] is None  # a RandomState instance is not written
    assert back.t_ == clf.t_ and back.lam_ == clf.lam_
    np.testing.assert_array_equal(back.decision_function(X), clf.decision_function(X))


def test_train_writes_the_model_alone_unless_asked_to_keep_the_state(files):
    import zipfile

    tmp, train, _ = files
    alone, kept = str(tmp / "alone.model"), str(tmp / "kept.model")
    assert main(["train", "-q", train, alone]) == 0
    assert main(["train", "-q", "--keep-state", train, kept]) == 0
    with zipfile.ZipFile(alone) as a, zipfile.ZipFile(kept) as k:
        assert not any(n.startswith("state__") for n in a.namelist())
        assert {"state__gamma.npy", "state__v.npy"} <= set(k.namelist())
    X, y = load_svmlight(train)
    np.testing.assert_array_equal(load_model(alone).decision_function(X),
                                  load_model(kept).decision_function(X))


def test_cross_validation_and_json(files, capsys):
    _, train, test = files
    assert main(["train", "-v", "4", train]) == 0
    assert capsys.readouterr().out.startswith("Cross Validation Accuracy = ")
    assert main(["train", "--json", "--test", test, "-l", "0.01", train, os.devnull]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["lam"] == 0.01 and 0.8 < summary["test_accuracy"] <= 1.0
    assert summary["iterations"] == 1000 and summary["relative_duality_gap"][0] > 0


@pytest.mark.parametrize(
    "argv, message",
    [
        (["-c", "0"], "-c (C) must be a float in the range (0.0, inf) or None. Got 0.0 instead"),
        (["-B", "0"], "-B must be > 0, or -1 for no intercept; got 0.0"),
        (["--average", "2"], "--average must be 'last', 'all' or a number in (0, 1]; got '2'"),
        (["-w", "1=2"], "-w takes LABEL:WEIGHT with numbers; got '1=2'"),
        (["-c", "1", "-l", "0.1"], "not allowed with argument"),
        (["-s", "svc", "--keep-state"], "--keep-state does not apply to -s svc (it is for -s "
                                        "pegasos)"),
    ],
)
def test_bad_options(files, capsys, argv, message):
    _, train, _ = files
    with pytest.raises(SystemExit) as exc:
        main(["train", *argv, train])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    # one line, as every error of the command line: no usage block above it
    assert err.count("\n") == 1 and err.startswith("pegasos train: error: ") and \
        err.endswith("; see pegasos train --help\n"), err


def test_plot_writes_a_real_png(files, tmp_path):
    from matplotlib.image import imread

    _, train, test = files
    png = tmp_path / "curves.png"
    assert main(["train", "-q", "--test", test, "--plot", str(png), train, os.devnull]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
    pixels = imread(png)
    assert pixels.shape[0] > 500 and pixels.shape[1] > 800
    assert pixels[..., :3].std() > 0.05  # drawn, not blank
    svg = tmp_path / "curves.svg"
    assert main(["train", "-q", "--plot", str(svg), train, os.devnull]) == 0
    assert svg.read_text().lstrip().startswith("<?xml")


@pytest.mark.parametrize("dataset", ["breast_cancer", "digits"])
def test_demo_json(dataset, capsys, tmp_path):
    png = tmp_path / "demo.png"
    assert main(["demo", "--dataset", dataset, "--json", "--plot", str(png)]) == 0
    summary = json.loads(capsys.readouterr().out)
    by_solver = {r["solver"]: r for r in summary["results"]}
    assert set(by_solver) == {"pegasos", "liblinear (exact, tol=1e-6)", "sgd", "sgd averaged"}
    exact = by_solver["liblinear (exact, tol=1e-6)"]
    peg = by_solver["pegasos"]
    assert peg["test_accuracy"] >= exact["test_accuracy"] - 0.02
    # the certificate bounds Pegasos' suboptimality against the exact solver
    assert summary["pegasos_duality_gap"] >= peg["objective"] - exact["objective"]
    assert summary["C"] == pytest.approx(1.0)
    assert png.stat().st_size > 20_000
    assert summary["kernel"]["agreement"] == 1.0


def test_demo_table(capsys, tmp_path, monkeypatch):
    """The default demo (the generated set, here at smaller sizes) prints both comparisons
    and draws its figure where it is asked to."""
    import pegasos.cli.demo

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(pegasos.cli.demo, "SIZES", (2_000, 6_000))
    monkeypatch.setattr(pegasos.cli.demo, "N_TEST", 2_000)
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "generated sparse rows" in out and "Pegasos' certificate on 6,000 rows" in out
    assert "Pegasos ran the same 1,000,000 iterations" in out and "(3x) the fit time grew" in out
    assert "SVC's model on digits (10 classes)" in out and "DualSVC" in out
    assert (tmp_path / "pegasos_demo.png").stat().st_size > 20_000


def test_demo_generated_json(capsys, tmp_path, monkeypatch):
    """The generated set's numbers: every solver at every size, Pegasos' budget the same at
    each, its certificate a bound on its objective's distance to LIBLINEAR's, the curves,
    and DualSVC's model SVC's on digits."""
    from sklearn.svm import LinearSVC

    import pegasos.cli.demo
    from pegasos.objective import duality_gap

    monkeypatch.setattr(pegasos.cli.demo, "SIZES", (2_000, 6_000))
    monkeypatch.setattr(pegasos.cli.demo, "N_TEST", 2_000)
    lam = 1e-4
    assert main(["demo", "--json", "--no-plot", "--lam", str(lam)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert [(r["n"], r["solver"]) for r in summary["results"]] == [
        (n, s) for n in (2_000, 6_000) for s in ("pegasos", "liblinear", "sgd")]
    assert summary["pegasos_iterations"] == 100_000 and summary["lam"] == lam
    assert all(r["test_error"] < 0.3 for r in summary["results"])
    assert {k: len(v) for k, v in summary["curves"].items()} == {
        "pegasos": 5, "liblinear": 4, "sgd": 3}
    X, y = pegasos.cli.demo.generate(6_000 + 2_000, 0)
    exact = LinearSVC(C=1 / (lam * 6_000), loss="hinge", tol=1e-8, max_iter=100_000).fit(
        X[:6_000], y[:6_000])
    p_star = duality_gap(X[:6_000], y[:6_000], exact.coef_.ravel(), exact.intercept_[0],
                         lam=lam, intercept_mode="augment").primal
    cert = summary["certificate"]
    assert cert["dual"] <= p_star * (1 + 1e-6) and cert["gap"] >= cert["primal"] - p_star
    kernel = summary["kernel"]
    assert kernel["agreement"] == 1.0 and "plot" not in summary
    svc, ours = kernel["results"]
    assert (svc["solver"], ours["solver"]) == ("SVC", "DualSVC")
    assert ours["support_vectors"] == svc["support_vectors"]
    assert ours["test_accuracy"] == svc["test_accuracy"] > 0.97


def test_demo_rejects_bad_lambda(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["demo", "--lam", "-1"])
    assert exc.value.code == 2
    assert "--lam must be > 0; got -1.0" in capsys.readouterr().err


@pytest.mark.parametrize(
    "solver, options, make",
    [
        ("kernel-pegasos", ["-c", "10", "-g", "0.5", "--epochs", "3"],
         lambda n: __import__("pegasos").KernelPegasosClassifier(
             lam=1.0 / (10 * n), gamma=0.5, n_epochs=3, random_state=0)),
        ("sbp", ["-n", "0.05", "-t", "2", "-g", "0.5", "--iter", "300"],
         lambda n: __import__("pegasos").SBPClassifier(0.05, gamma=0.5, n_iter=300, random_state=0)),
        ("perceptron", ["-t", "poly", "-d", "2", "-g", "0.5", "--epochs", "2"],
         lambda n: __import__("pegasos").KernelPerceptron(
             kernel="poly", degree=2, gamma=0.5, n_epochs=2, random_state=0)),
        # options map to parameters one to one: --iter is n_iter, --epochs n_epochs
        ("perceptron", ["--iter", "3", "-k", "4"],
         lambda n: __import__("pegasos").KernelPerceptron(n_iter=3, batch_size=4,
                                                          random_state=0)),
        ("sbp", ["-c", "2", "--epochs", "0.5"],
         lambda n: __import__("pegasos").SBPClassifier(C=2, n_epochs=0.5, random_state=0)),
    ],
)
def test_kernel_solvers_round_trip(files, capsys, solver, options, make):
    tmp, train, test = files
    model = str(tmp / f"{solver}.model")
    assert main(["train", "-q", "-s", solver, "--seed", "0", *options, train, model]) == 0
    out = str(tmp / f"{solver}.pred")
    assert main(["predict", "-q", test, model, out]) == 0
    X, y = load_svmlight(train)
    Xt, _ = load_svmlight(test, n_features=X.shape[1])
    expected = make(X.shape[0]).fit(X, y).predict(Xt)
    np.testing.assert_array_equal(np.loadtxt(out), expected)
    assert type(load_model(model)).__name__ == type(make(1)).__name__


def test_options_are_checked_by_the_estimator_before_the_data_is_read(tmp_path, capsys):
    missing = str(tmp_path / "not-there.svm")
    for argv, message in [
        (["-c", "-1"], "-c (C) must be a float in the range (0.0, inf)"),
        (["-k", "0"], "-k (batch_size) must be an int in the range [1, 4611686018427387904]"),
        (["--iter", "0"], "--iter (n_iter) must be an int in the range [1, 4611686018427387904]"),
        (["-s", "sbp", "-n", "-0.5"], "-n (nu) must be"),
        (["-s", "sbp", "-l", "0.1"], "-s sbp takes SVC's C (-c) or its own slack budget (-n), not -l"),
        (["-e", "0"], "-e (tol) must be a float in the range (0.0, inf)"),
    ]:
        with pytest.raises(SystemExit) as exc:
            main(["train", *argv, missing])
        assert exc.value.code == 2
        assert message in capsys.readouterr().err, argv


def test_kernel_options_are_checked(files, capsys):
    _, train, _ = files
    for argv, message in [
        (["-t", "rbf"], "-t/--kernel needs a kernel solver"),
        (["-s", "sbp", "-t", "cosine"], "-t must be linear, poly, rbf, sigmoid, precomputed or 0-4; got 'cosine'"),
        (["-s", "sbp", "-g", "-1"], "-g (gamma) must be a str among"),
        (["-s", "sbp", "--plot", "x.png"], "--plot with a kernel solver draws the test error against kernel evaluations and time: give --test FILE"),
        (["-s", "sbp", "-m", "-1"], "-m must be >= 0; got -1.0"),
    ]:
        with pytest.raises(SystemExit) as exc:
            main(["train", *argv, train, os.devnull])
        assert exc.value.code == 2
        assert message in capsys.readouterr().err


def test_sbp_nu_defaults_to_the_one_matching_C(files, capsys):
    from pegasos import SBPClassifier

    _, train, _ = files
    assert main(["train", "--json", "-s", "sbp", "-c", "5", "-g", "0.5", "--iter", "200", train,
                 os.devnull]) == 0
    summary = json.loads(capsys.readouterr().out)
    X, y = load_svmlight(train)
    model = SBPClassifier(C=5.0, gamma=0.5, n_iter=200, random_state=0).fit(X, y)
    assert summary["nu"] == pytest.approx(model.nu_[0]) and summary["nu"] > 0


def test_sbp_takes_class_weights(files, tmp_path):
    from pegasos import SBPClassifier

    _, train, _ = files
    model = str(tmp_path / "w.model")
    assert main(["train", "-q", "-s", "sbp", "-n", "0.1", "-g", "0.5", "--iter", "100",
                 "-w-1", "3", train, model]) == 0
    X, y = load_svmlight(train)
    expected = SBPClassifier(0.1, gamma=0.5, n_iter=100, class_weight={-1: 3.0},
                             random_state=0).fit(X, y)
    np.testing.assert_array_equal(load_model(model).dual_coef_, expected.dual_coef_)


# --- LIBLINEAR/LIBSVM habits ------------------------------------------------------


def test_version(capsys):
    from pegasos import __version__

    for flag in ("--version", "-V"):
        with pytest.raises(SystemExit) as exit_:
            main([flag])
        assert exit_.value.code == 0
        assert capsys.readouterr().out == f"pegasos {__version__}\n"


def test_liblinear_weight_spellings_give_the_same_model(files, tmp_path):
    _, train, _ = files
    ours, theirs = tmp_path / "ours.model", tmp_path / "theirs.model"
    assert main(["train", "-q", "-w", "1:2", "-w", "-1:0.5", train, str(ours)]) == 0
    assert main(["train", "-q", "-w1", "2", "-w-1", "0.5", train, str(theirs)]) == 0
    a, b = load_model(ours), load_model(theirs)
    assert a.class_weight == b.class_weight == {1.0: 2.0, -1.0: 0.5}
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert main(["train", "-q", "-w", "-1:0.5", train, str(theirs)]) == 0  # a value with a minus
    assert load_model(theirs).class_weight == {-1.0: 0.5}


@pytest.mark.parametrize("code, says", [  # (0-4 are LIBSVM's: -s 0 trains DualSVC, ...)
    ("5", "LIBLINEAR's L1-regularised SVM (not available here)"),
    ("7", "LIBLINEAR's logistic regression (dual; not available here)"),
    ("12", "not a LIBSVM solver (0-4)"),
])
def test_numeric_solver_codes_name_the_equivalent(files, capsys, code, says):
    _, train, _ = files
    with pytest.raises(SystemExit) as exit_:
        main(["train", "-s", code, train])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"-s {code} is {says}; -s takes a name (pegasos, " in err
    assert "or LIBSVM's numbers 0-4 (C-SVC, nu-SVC, one-class, epsilon-SVR, nu-SVR)" in err


def test_predict_ignores_features_the_model_has_not_seen(files, tmp_path, capsys):
    tmp, train, test = files
    model = str(tmp / "m.model")
    assert main(["train", "-q", "--seed", "3", train, model]) == 0
    X, y = load_svmlight(test)
    wide = _write(tmp / "wide.svm", "".join(
        line.rstrip("\n") + f" {X.shape[1] + 5}:7.5\n" for line in open(test)))
    out_plain, out_wide = str(tmp / "a.txt"), str(tmp / "b.txt")
    capsys.readouterr()
    assert main(["predict", "-q", test, model, out_plain]) == 0
    assert main(["predict", "--json", wide, model, out_wide]) == 0
    assert open(out_plain).read() == open(out_wide).read()
    assert json.loads(capsys.readouterr().out)["ignored_feature_values"] == X.shape[0]
    assert main(["predict", wide, model, out_wide]) == 0
    assert f"{X.shape[0]} values of features beyond the model's" in capsys.readouterr().err
    Xw, _ = load_svmlight(wide, n_features=X.shape[1])  # the Python API does the same
    assert (Xw != X).nnz == 0


def test_the_linear_kernel_prints_no_gamma(files, capsys):
    tmp, train, _ = files
    assert main(["train", "-s", "perceptron", "-t", "0", train, str(tmp / "p.model")]) == 0
    assert "gamma" not in capsys.readouterr().out
    assert main(["train", "-s", "perceptron", "-t", "2", train, str(tmp / "p.model")]) == 0
    assert "(gamma = " in capsys.readouterr().out


def test_predict_writes_decision_values_and_binary_metrics(files, tmp_path, capsys):
    tmp, train, test = files
    model, out = str(tmp / "m.model"), str(tmp / "dv.txt")
    assert main(["train", "-q", train, model]) == 0
    capsys.readouterr()
    assert main(["predict", "--json", "--decision-values", test, model, out]) == 0
    summary = json.loads(capsys.readouterr().out)
    clf = load_model(model)
    X, y = load_svmlight(test, n_features=clf.n_features_in_)
    lines = open(out).read().splitlines()
    assert lines[0] == "labels 1"
    values = np.array([[float(v) for v in line.split()] for line in lines[1:]])
    np.testing.assert_array_equal(values[:, 0], clf.predict(X))
    np.testing.assert_allclose(values[:, 1], clf.decision_function(X), rtol=1e-15)
    from sklearn.metrics import f1_score, precision_score, recall_score

    predicted = clf.predict(X)
    assert summary["positive_class"] == "1"
    assert summary["precision"] == pytest.approx(precision_score(y, predicted))
    assert summary["recall"] == pytest.approx(recall_score(y, predicted))
    assert summary["f1"] == pytest.approx(f1_score(y, predicted))


def test_multiclass_decision_values_have_a_column_per_class(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((90, 3))
    y = np.argmax(X, axis=1) + 1
    data = _write(tmp_path / "m.svm", _svm_text(X, y))
    model, out = str(tmp_path / "m.model"), str(tmp_path / "dv.txt")
    assert main(["train", "-q", data, model]) == 0
    assert main(["predict", "-q", "--decision-values", data, model, out]) == 0
    lines = open(out).read().splitlines()
    assert lines[0] == "labels 1 2 3"
    values = np.array([[float(v) for v in line.split()] for line in lines[1:]])
    clf = load_model(model)
    Xr, _ = load_svmlight(data)
    np.testing.assert_allclose(values[:, 1:], clf.decision_function(Xr), rtol=1e-15)
    np.testing.assert_array_equal(values[:, 0], 1 + np.argmax(values[:, 1:], axis=1))


def test_multiclass_plot_draws_one_curve_per_class(tmp_path, capsys):
    from matplotlib.image import imread

    rng = np.random.default_rng(1)
    X = rng.standard_normal((120, 3))
    y = np.argmax(X, axis=1) + 1
    data = _write(tmp_path / "m.svm", _svm_text(X[:90], y[:90]))
    test = _write(tmp_path / "t.svm", _svm_text(X[90:], y[90:]))
    png = tmp_path / "multi.png"
    assert main(["train", "--test", test, "--plot", str(png), data, str(tmp_path / "m.model")]) == 0
    assert f"plot written to {png}" in capsys.readouterr().out
    pixels = imread(png)
    assert pixels.shape[0] > 500 and pixels[..., :3].std() > 0.05
    # each class's colour (matplotlib's C0, C1, C2) is drawn
    for rgb in ((0.12, 0.47, 0.71), (1.0, 0.5, 0.05), (0.17, 0.63, 0.17)):
        assert (np.abs(pixels[..., :3] - rgb).max(axis=-1) < 0.03).sum() > 50, rgb


def test_svc_trains_one_vs_one_and_plots_each_pair(tmp_path, capsys):
    """-s svc on three classes: SVC's one-vs-one model (two rows of dual_coef_, three
    intercepts), its progress and plot per pair, the test error of each pair on its rows."""
    from matplotlib.image import imread

    rng = np.random.default_rng(1)
    X = rng.standard_normal((120, 3))
    y = np.argmax(X, axis=1) + 1
    data = _write(tmp_path / "m.svm", _svm_text(X[:90], y[:90]))
    test = _write(tmp_path / "t.svm", _svm_text(X[90:], y[90:]))
    png, model = tmp_path / "pairs.png", str(tmp_path / "m.model")
    assert main(["train", "-s", "0", "--test", test, "--plot", str(png), data, model]) == 0
    assert f"plot written to {png}" in capsys.readouterr().out
    clf = load_model(model)
    assert clf.dual_coef_.shape[0] == 2 and clf.intercept_.shape == (3,)
    pixels = imread(png)
    for rgb in ((0.12, 0.47, 0.71), (1.0, 0.5, 0.05), (0.17, 0.63, 0.17)):  # three pairs
        assert (np.abs(pixels[..., :3] - rgb).max(axis=-1) < 0.03).sum() > 50, rgb


def test_pair_error_counts_the_pairs_rows_only():
    from pegasos._progress import problem_error

    scores, y_test = np.array([1.0, -1.0, 1.0, 5.0]), np.array([1, 2, 2, 3])
    pairs = [(1, 2), (1, 3), (2, 3)]
    assert problem_error(scores, y_test, np.array([1, 2, 3]), 0, 3, pairs) == pytest.approx(1 / 3)
    assert problem_error(scores, y_test, np.array([1, 2, 3]), 2, 3, pairs) == pytest.approx(2 / 3)


def test_info_shows_the_certificate_of_a_checked_fit(files, capsys):
    tmp, train, _ = files
    model = str(tmp / "e.model")
    assert main(["train", "-q", "-e", "0.5", "--epochs", "50", train, model]) == 0
    gap = None
    capsys.readouterr()
    assert main(["info", "--json", model]) == 0
    (gap,) = json.loads(capsys.readouterr().out)["certificate"]
    assert gap["dual"] <= gap["primal"] and gap["relative_gap"] <= 0.5
    assert main(["info", model]) == 0
    assert "certificate at the end of training: primal" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, shown",
    [
        ([], r"C = 1 \(the default\), so lambda = 1 / \(C n\) = 0.0125 for n = 80 training "
             r"samples"),
        (["-c", "4"], r"C = 4, so lambda = 1 / \(C n\)"),
        (["-l", "0.01"], r"lambda = 0.01 \(given as lam\)"),
        (["-s", "kernel-pegasos"], r"C = 1 \(the default\), so lambda"),
        (["-s", "sbp", "-n", "0.2"], r"nu = 0.2 \(given\)"),
        (["-s", "sbp"], r"nu = [\d.e-]+, estimated for C = 1"),
        (["-s", "perceptron"], r"none \(the kernel Perceptron is not regularised\)"),
        (["-s", "svc", "-c", "4"], r"C = 4 \(SVC's C, the weight of the hinge loss; a free "
                                   r"intercept\)"),
    ],
)
def test_info_shows_the_resolved_regularisation(files, capsys, argv, shown):
    import re

    tmp, train, _ = files
    model = str(tmp / "r.model")
    assert main(["train", "-q", *argv, train, model]) == 0
    capsys.readouterr()
    assert main(["info", model]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("regularisation"))
    assert re.search(shown, line), line
    assert main(["info", "--json", model]) == 0
    assert re.search(shown, json.loads(capsys.readouterr().out)["regularisation"]["text"])


@pytest.mark.parametrize("solver", ["kernel-pegasos", "sbp"])
def test_kernel_plot_draws_test_error_against_kernel_evaluations(files, solver, capsys):
    from matplotlib.image import imread

    tmp, train, test = files
    png = tmp / f"{solver}.png"
    assert main(["train", "-s", solver, "--test", test, "--plot", str(png), train,
                 str(tmp / "k.model")]) == 0
    assert f"plot written to {png}" in capsys.readouterr().out
    pixels = imread(png)
    assert pixels.shape[1] > 800 and pixels[..., :3].std() > 0.05


def test_habits_through_the_console_script(files, tmp_path):
    import shutil
    import subprocess

    script = shutil.which("pegasos")
    if script is None:
        pytest.skip("the pegasos console script is not installed")
    _, train, test = files
    from pegasos import __version__

    def run(*args):
        return subprocess.run([script, *args], capture_output=True, text=True, timeout=300)

    assert run("--version").stdout == f"pegasos {__version__}\n"
    done = run("train", "-s", "7", train)
    assert done.returncode == 2 and "-s 7 is LIBLINEAR's logistic regression" in done.stderr
    model = str(tmp_path / "w.model")
    done = run("train", "-q", "-b", "1", "-w1", "2", "-w-1", "0.5", train, model)
    assert done.returncode == 0, done.stderr
    assert load_model(model).class_weight == {1.0: 2.0, -1.0: 0.5}
    done = run("predict", "-b", "1", test, model)
    assert done.returncode == 0 and done.stdout.startswith("labels -1 1\n")


def _pegasos(args, cache, **kwargs):
    """``python -m pegasos ARGS`` in a fresh process whose Numba cache is ``cache``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    return subprocess.run([sys.executable, "-m", "pegasos", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=1200, **kwargs)


@pytest.mark.slow  # (fresh processes against an empty, then a warm, Numba cache: 16 s)
def test_the_cli_says_when_it_compiles_and_only_then(files, tmp_path):
    _, train, _ = files
    cache = tmp_path / "cache"
    first = _pegasos(["train", train, tmp_path / "m.model"], cache)
    assert first.returncode == 0, first.stderr
    assert "pegasos: compiling the solver for this input, once per install" in first.stderr
    assert re.search(r"pegasos: compiled in \d+\.\d s", first.stderr)
    again = _pegasos(["train", train, tmp_path / "m.model"], cache)  # from the cache: silent
    assert again.returncode == 0 and "compil" not in again.stderr, again.stderr
    quiet = _pegasos(["train", "-q", train, tmp_path / "q.model"], tmp_path / "empty")
    assert quiet.returncode == 0 and quiet.stderr == ""  # -q: nothing, though it compiled


@pytest.mark.slow
def test_pegasos_compile_fills_the_cache_for_every_input_kind(files, tmp_path):
    """Minutes: every solver compiled cold for every input kind; then nothing compiles."""
    _, train, _ = files
    cache = tmp_path / "cache"
    cold = _pegasos(["compile", "--json"], cache)
    assert cold.returncode == 0, cold.stderr
    summary = json.loads(cold.stdout)
    assert summary["compiled_functions"] > 50 and len(summary["inputs"]) == 5
    warm = _pegasos(["compile"], cache)
    assert warm.returncode == 0 and "every solver was already compiled" in warm.stdout
    X, y = make_binary(n=GRAM_ROWS + 100, d=6, seed=22)  # the kernel engine on threads
    larger = _write(tmp_path / "larger.svm", _svm_text(X, np.where(y > 0, "+1", "-1")))
    for data in (train, larger):
        for solver in ("pegasos", "kernel-pegasos", "sbp", "perceptron", "svc"):
            fit = _pegasos(["train", "-s", solver, "--iter", "5", data, tmp_path / "m.model"],
                           cache)
            assert fit.returncode == 0 and "compil" not in fit.stderr, (solver, fit.stderr)
            done = _pegasos(["predict", data, tmp_path / "m.model", tmp_path / "out"], cache)
            assert done.returncode == 0 and "compil" not in done.stderr, (solver, done.stderr)


def test_libsvms_shrinking_flag_trains_svc_and_dash_h_alone_is_the_help(files, capsys):
    folder, train, _ = files
    data = str(train)
    for flag in ("0", "1"):
        model = folder / f"h{flag}.model"
        assert main(["train", "-s", "svc", "-h", flag, data, str(model)]) == 0
        assert f"-h {flag} has no effect with -s svc" in capsys.readouterr().err
        assert model.exists()
    for argv, message in ((["-s", "svc", "-h", "2"], "argument --shrinking: invalid choice: 2"),
                          (["-h", "0"], "-h does not apply to -s pegasos (it is for -s svc "
                                        "and nu-svc and one-class and svr and nu-svr)")):
        with pytest.raises(SystemExit) as exc:
            main(["train", *argv, data, str(folder / "x.model")])
        assert exc.value.code == 2 and message in capsys.readouterr().err
    assert not (folder / "x.model").exists()
    with pytest.raises(SystemExit) as exc:
        main(["train", "-h"])
    assert exc.value.code == 0 and "--shrinking 0|1" in capsys.readouterr().out
