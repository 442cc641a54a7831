"""Issue 62, part 3: the surfaces added last round refuse hostile input and take valid input
as the tools they follow do -- the command line's paths, ``--holdout``, a stream's labels,
LIBSVM model files (their header as svm-predict reads it, ``gamma 0``, a precomputed
kernel's claimed rows).  The cache's own checks are in ``test_stream.py``."""

import re
import subprocess
import sys

import numpy as np
import pytest
from sklearn.datasets import make_classification

from pegasos import DualSVC, DualSVR, PegasosClassifier, load_model, save_model
from pegasos.cli import main
from pegasos.interchange import from_libsvm, to_libsvm
from pegasos.stream import SVMLightStream


def _pegasos(*argv, cwd=None):
    return subprocess.run([sys.executable, "-m", "pegasos", *map(str, argv)],
                          capture_output=True, text=True, cwd=cwd)


def _write_svm(path, X, y):
    with open(path, "w") as f:
        for row, label in zip(X, y):
            f.write(f"{label:g} " + " ".join(f"{j + 1}:{v:.6g}" for j, v in enumerate(row))
                    + "\n")


@pytest.fixture
def files(tmp_path):
    X, y = make_classification(n_samples=120, n_features=5, random_state=0)
    _write_svm(tmp_path / "d.svm", X, 2 * y - 1)
    _write_svm(tmp_path / "h.svm", X[:30], 2 * y[:30] - 1)
    return tmp_path


# --- no output over an input ------------------------------------------------------------


def test_no_command_writes_over_its_holdout_file(files):
    held = (files / "h.svm").read_bytes()
    result = _pegasos("train", "-q", "--stream", "-l", "0.01", "--iter", "50", "--holdout",
                      files / "h.svm", files / "d.svm", files / "h.svm")
    assert result.returncode == 1
    assert re.fullmatch(r"pegasos: error: the model .*h.svm is the holdout file .*h.svm: writing "
                        r"the model would destroy it; name another model file\n", result.stderr)
    result = _pegasos("train", "-q", "--stream", "-l", "0.01", "--iter", "50", "--holdout",
                      files / "h.svm", "--cache", files / "h.svm", files / "d.svm",
                      files / "m.model")
    assert result.returncode == 1 and "the cache" in result.stderr
    assert (files / "h.svm").read_bytes() == held and not (files / "m.model").exists()
    with pytest.raises(ValueError, match=r"the cache .*h.svm is the input .*h.svm"):
        SVMLightStream(str(files / "d.svm"), cache=str(files / "h.svm"),
                       holdout=str(files / "h.svm"))


def test_an_output_that_a_pattern_of_inputs_matches_is_refused(files):
    data = (files / "d.svm").read_bytes()
    for argv in (["convert", "-q", files / "*.svm", files / "d.svm"],
                 ["train", "-q", "--stream", "-l", "0.01", "--iter", "20", files / "[dh].svm",
                  files / "d.svm"]):
        result = _pegasos(*argv)
        assert result.returncode == 1 and "would destroy it" in result.stderr, result.stderr
    assert (files / "d.svm").read_bytes() == data


@pytest.mark.parametrize("holdout, message", [
    ("missing.svm", r"pegasos: error: missing.svm: does not exist \(--holdout takes a number of "
                    r"rows or a file\)"),
    ("-1", r"pegasos train: error: --holdout must be a whole number of rows >= 1 or a file; "
           r"got -1"),
    ("1e3", r"pegasos train: error: --holdout must be a whole number of rows >= 1 or a file; "
            r"got 1e3"),
    (".", r"pegasos: error: \.: is a folder, not a data file \(--holdout\)"),
])
def test_holdout_messages_name_the_holdout(files, holdout, message):
    result = _pegasos("train", "-q", "--stream", "-l", "0.01", "--iter", "20", "--holdout",
                      holdout, "d.svm", "m.model", cwd=files)
    assert result.returncode in (1, 2) and re.match(message, result.stderr), result.stderr
    assert "d.svm" not in result.stderr.split(":")[1]


# --- a stream's labels --------------------------------------------------------------------


@pytest.mark.parametrize("buffer_rows", ["1000", "16"])
def test_a_stream_takes_any_numeric_labels_as_train_does(files, buffer_rows):
    X, y = make_classification(n_samples=200, n_features=4, random_state=1)
    labels = np.where(y == 1, 1.5, -2.5)
    _write_svm(files / "c.svm", X, labels)
    assert main(["train", "-q", "-l", "0.01", "--iter", "300", str(files / "c.svm"),
                 str(files / "plain.model")]) == 0
    assert main(["train", "-q", "--stream", "--buffer-rows", buffer_rows, "-l", "0.01",
                 "--iter", "300", str(files / "c.svm"), str(files / "s.model")]) == 0
    model = load_model(files / "s.model")
    assert model.classes_.tolist() == [-2.5, 1.5]
    assert set(model.predict(X).tolist()) == {-2.5, 1.5} and np.mean(model.predict(X) == labels) > 0.8
    if buffer_rows == "1000":  # all of it in the buffer: the in-memory fit, as plain train's
        np.testing.assert_array_equal(model.coef_, load_model(files / "plain.model").coef_)


def test_a_first_buffer_of_one_class_names_the_buffer_and_the_label(files):
    path = files / "sorted.svm"
    path.write_text("1 1:1 2:0.5\n" * 20 + "-1 1:0.5 2:1\n" * 20)
    with pytest.raises(ValueError, match=r"sorted.svm: the first buffer's 8 rows \(buffer_rows=8"
                                         r"\) all have the label 1, and a stream takes its "
                                         r"classes from its first buffer: give classes"):
        PegasosClassifier(lam=0.1, n_iter=20).fit(SVMLightStream(str(path), buffer_rows=8))
    clf = PegasosClassifier(lam=0.1, n_iter=20).fit(
        SVMLightStream(str(path), buffer_rows=8, classes=[-1, 1]))
    assert clf.classes_.tolist() == [-1, 1]
    result = _pegasos("train", "--stream", "--buffer-rows", "8", "-l", "0.1", "--iter", "20",
                      path, files / "m.model")
    assert result.returncode == 1 and "--buffer-rows" in result.stderr, result.stderr


# --- LIBSVM model files -------------------------------------------------------------------


@pytest.mark.parametrize("how", ["leading", "tab", "blank"])
def test_a_libsvm_header_reads_as_svm_predict_reads_it(tmp_path, how):
    X, y = make_classification(n_samples=80, n_features=4, random_state=0)
    to_libsvm(DualSVC().fit(X, y), tmp_path / "m")
    lines = (tmp_path / "m").read_text().splitlines(keepends=True)
    end = lines.index("SV\n")
    edit = {"leading": lambda line: "  " + line, "tab": lambda line: line.replace(" ", "\t", 1),
            "blank": lambda line: line + "\n"}[how]
    (tmp_path / "t").write_text("".join(map(edit, lines[:end])) + "".join(lines[end:]))
    np.testing.assert_array_equal(from_libsvm(tmp_path / "t").decision_function(X),
                                  from_libsvm(tmp_path / "m").decision_function(X))
    assert main(["import", str(tmp_path / "t"), str(tmp_path / "t.model")]) == 0
    np.testing.assert_array_equal(load_model(tmp_path / "t.model").predict(X),
                                  from_libsvm(tmp_path / "m").predict(X))
    svmutil = pytest.importorskip("libsvm.svmutil")
    assert svmutil.svm_load_model(str(tmp_path / "t")).get_nr_class() == 2


def test_gamma_0_is_taken_as_svm_train_and_svc_take_it(tmp_path):
    from sklearn.svm import SVR

    X, y = make_classification(n_samples=60, n_features=3, n_informative=2, n_redundant=0,
                               random_state=0)
    reg = DualSVR(gamma=0).fit(X, y.astype(float))
    np.testing.assert_allclose(reg.predict(X), SVR(gamma=0).fit(X, y).predict(X), atol=1e-3)
    clf = DualSVC(gamma=0.0).fit(X, y)
    assert clf.gamma_ == 0.0
    save_model(clf, tmp_path / "g.model")
    np.testing.assert_array_equal(load_model(tmp_path / "g.model").decision_function(X),
                                  clf.decision_function(X))
    to_libsvm(clf, tmp_path / "g.libsvm")
    assert "gamma 0\n" in (tmp_path / "g.libsvm").read_text()
    np.testing.assert_array_equal(from_libsvm(tmp_path / "g.libsvm").decision_function(X),
                                  clf.decision_function(X))
    _write_svm(tmp_path / "d.svm", X, y)
    assert main(["train", "-q", "-s", "0", "-g", "0", str(tmp_path / "d.svm"),
                 str(tmp_path / "c.model")]) == 0
    with pytest.raises(ValueError, match=r"gamma"):
        DualSVC(gamma=-1.0).fit(X, y)


_PRECOMPUTED = ("svm_type c_svc\nkernel_type precomputed\nnr_class 2\ntotal_sv 2\nrho 0.1\n"
                "label 1 -1\nnr_sv 1 1\nSV\n1 0:1\n-1 0:{last}\n")


def test_a_precomputed_models_claimed_rows_are_checked_before_any_allocation(tmp_path):
    """An SV ``0:2147483647`` once made predict pad the test rows densely to 2**31
    columns; under a 2 GiB address space, each case answers at once."""
    (tmp_path / "p.libsvm").write_text(_PRECOMPUTED.format(last=2**31 - 1))
    assert main(["import", str(tmp_path / "p.libsvm"), str(tmp_path / "p.model")]) == 0
    (tmp_path / "narrow.svm").write_text("1 0:1 1:0.5 2:0.25\n-1 0:2 1:0.1 2:0.9\n")
    (tmp_path / "wide.svm").write_text("1 0:1 1:0.5 2147483647:0.25\n"
                                       "-1 0:2 1:0.1 2147483647:0.9\n")
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30)); "
            "from pegasos.cli import main; sys.exit(main(sys.argv[1:]))")

    def predict(data):
        return subprocess.run([sys.executable, "-c", code, "predict", str(tmp_path / data),
                               str(tmp_path / "p.model"), str(tmp_path / "out")],
                              capture_output=True, text=True, timeout=120)

    result = predict("narrow.svm")
    assert result.returncode == 1
    assert re.fullmatch(r"pegasos: error: .*narrow.svm: -t 4 \(a precomputed kernel\): the "
                        r"model's support vectors include training row 2147483647, but the "
                        r"rows give kernel values against training rows 1..2 only; .*\n",
                        result.stderr), result.stderr
    result = predict("wide.svm")
    assert result.returncode == 0, result.stderr
    # K(x, sv1) = 0.5 and 0.1, K(x, sv2) = 0.25 and 0.9: 0.5 - 0.25 - 0.1 > 0, 0.1 - 0.9 - 0.1 < 0
    assert (tmp_path / "out").read_text().split() == ["1", "-1"]


# --- a C the solver can never meet ---------------------------------------------------------


def test_a_nu_svr_c_beyond_float64s_resolution_is_refused_at_once():
    """``DualNuSVR(C=1e300)`` on 40 rows did not answer in 300 s (nor does LIBSVM's NuSVR):
    its dual variables sum to C nu n, and their gradients' rounding exceeds any tol."""
    import time

    from pegasos import DualNuSVR

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    z = X @ [1.0, 2.0, 3.0] + rng.normal(size=40)
    tic = time.perf_counter()
    for C in (1e300, 1e20, 1e13):
        with pytest.raises(ValueError, match=re.escape(f"C={C:.6g}") + r" is too large for tol=0.001: nu-SVR's "
                                             r"dual variables .* give C <= 4.5e\+12, or a "
                                             r"larger tol"):
            DualNuSVR(C=C).fit(X, z)
    assert time.perf_counter() - tic < 30
    assert DualNuSVR(C=1e12).fit(X, z).fit_status_ == 0
    assert DualNuSVR(C=1e300, tol=1e285).fit(X, z).fit_status_ == 0  # the scale tol asks for
    with pytest.raises(ValueError, match=r"C=1e\+12 is too large .* give C <= 4.5e\+11"):
        DualNuSVR(C=1e12).fit(X, z, sample_weight=np.full(40, 10.0))
