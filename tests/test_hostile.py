"""Hostile and careless input: signals during writes, malformed sparse input and
model files (fuzzed in a subprocess, so that a crash fails the test), CLI paths."""

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from pegasos import PegasosClassifier, duality_gap, load_model, save_model
from pegasos._files import remove_stale_temporaries, write_atomic
from pegasos.cli import main
from pegasos.model_io import ModelFileError

ROOT = Path(__file__).resolve().parents[1]

_SLOW_WRITER = textwrap.dedent(
    """
    import signal, sys, time
    from pegasos._files import write_atomic

    # as in a terminal: a test run under nohup, or as a background job of a
    # script, hands SIGHUP or SIGINT down ignored
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)

    def write(f):
        f.write(b"x" * 1000)
        f.flush()
        print("writing", flush=True)
        time.sleep(60)

    write_atomic(sys.argv[1], write)
    """
)


def _start_writer(target):
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_WRITER, str(target)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "writing"
    return proc


def _temporaries(folder):
    return [name for name in os.listdir(folder) if name.endswith(".tmp")]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT],
                         ids=lambda s: signal.Signals(s).name)
def test_a_stop_signal_during_a_write_removes_the_temporary_file(tmp_path, signum):
    target = tmp_path / "m.model"
    target.write_bytes(b"previous")
    proc = _start_writer(target)
    assert len(_temporaries(tmp_path)) == 1
    proc.send_signal(signum)
    proc.wait(timeout=30)
    assert proc.returncode == -signum  # the process still ends by the signal
    assert _temporaries(tmp_path) == []
    assert target.read_bytes() == b"previous"


def test_sigkill_leftovers_are_removed_by_the_next_write(tmp_path):
    target = tmp_path / "m.model"
    proc = _start_writer(target)
    proc.kill()
    proc.wait(timeout=30)
    (left,) = _temporaries(tmp_path)
    assert left.startswith(f"m.model.pegasos-{proc.pid}-")
    other = tmp_path / f"other.model.pegasos-{proc.pid}-x.tmp"  # another target's: kept
    other.write_bytes(b"")
    mine = tmp_path / f"m.model.pegasos-{os.getpid()}-y.tmp"  # a live process's: kept
    mine.write_bytes(b"")
    write_atomic(target, lambda f: f.write(b"new"))
    assert target.read_bytes() == b"new"
    assert sorted(_temporaries(tmp_path)) == sorted([other.name, mine.name])
    assert remove_stale_temporaries(tmp_path / "other.model") == [other.name]


# --- malformed sparse structure ------------------------------------------------


def _csr(seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(40, 6, density=0.5, format="csr", random_state=seed)
    y = np.where(rng.random(40) > 0.5, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize(
    "mutate, match",
    [
        (lambda Z: Z.indices.__setitem__(3, 10**7), r"column index 10000000 at position 3 is outside \[0, 6\)"),
        (lambda Z: Z.indices.__setitem__(3, -1), r"column index -1 at position 3 is outside"),
        (lambda Z: Z.indices.__setitem__(0, 6), r"column index 6 at position 0 is outside \[0, 6\)"),
        (lambda Z: Z.indptr.__setitem__(5, Z.nnz + 10), r"indptr decreases at row 5"),
        (lambda Z: Z.indptr.__setitem__(-1, Z.nnz + 10), r"indptr ends at \d+ but there are"),
        (lambda Z: Z.indptr.__setitem__(0, 1), r"indptr starts at 1, not 0"),
    ],
)
def test_malformed_csr_is_refused_everywhere(mutate, match):
    X, y = _csr()
    clf = PegasosClassifier(n_iter=20, random_state=0).fit(X, y)
    bad = X.copy()
    mutate(bad)
    for call in (lambda: PegasosClassifier(n_iter=20).fit(bad, y), lambda: clf.predict(bad),
                 lambda: clf.duality_gap(bad, y),
                 lambda: duality_gap(bad, y, np.zeros(6), 0.0, lam=0.1)):
        with pytest.raises(ValueError, match="X is a malformed sparse CSR matrix: " + match):
            call()


def test_malformed_csc_and_coo_are_refused_before_conversion():
    X, y = _csr()
    csc = X.tocsc()
    csc.indices[2] = 40
    with pytest.raises(ValueError, match=r"malformed sparse CSC matrix: row index 40"):
        PegasosClassifier(n_iter=5).fit(csc, y)
    coo = X.tocoo()
    coo.col[1] = 9
    with pytest.raises(ValueError, match=r"malformed sparse COO matrix: column index 9"):
        PegasosClassifier(n_iter=5).fit(coo, y)


# --- fuzzing, each run in its own process ---------------------------------------


def _fuzz(name, tmp_path, examples):
    env = dict(os.environ, PEGASOS_FUZZ_EXAMPLES=str(examples), PEGASOS_FUZZ_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "tests.fuzz_inputs", name], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, (done.returncode, done.stdout[-3000:], done.stderr[-3000:])
    assert "ran" in done.stdout


def test_fuzzed_csr_structure_never_crashes(tmp_path):
    _fuzz("csr", tmp_path, 200)


def test_fuzzed_model_files_never_crash(tmp_path):
    _fuzz("model", tmp_path, 600)


# --- the command line's paths ---------------------------------------------------


@pytest.fixture
def data_file(tmp_path):
    path = tmp_path / "d.svm"
    path.write_text("1 1:0.5 2:1\n-1 1:-1 3:0.25\n1 2:2\n-1 3:-1\n")
    return path


@pytest.mark.parametrize(
    "argv, message",
    [
        (["train", "{d}", "{tmp}/missing/m.model"], r"cannot write the model .*missing/m.model: there is no folder"),
        (["train", "{d}", "{tmp}"], r"cannot write the model .*: it is a folder"),
        (["train", "{tmp}", "{tmp}/m.model"], r".*: is a folder, not a data file"),
        (["train", "{tmp}/nothing.svm"], r".*nothing.svm: does not exist"),
        (["train", "--plot", "{tmp}/no/p.png", "{d}", "{tmp}/m.model"], r"cannot write the plot"),
        (["predict", "{d}", "{tmp}"], r"cannot read .*: Is a directory"),
        (["predict", "{d}", "{tmp}/m.model", "{tmp}/no/out.txt"], r"cannot write the predictions"),
        (["train", "{big}"], r"feature index 1000000000000 in '1000000000000:1' exceeds the maximum 2147483647"),
    ],
)
def test_cli_failures_are_one_line_messages(tmp_path, data_file, capsys, argv, message):
    big = tmp_path / "big.svm"
    big.write_text("1 1:0.5 1000000000000:1\n-1 2:1\n")
    assert main(["train", "-q", str(data_file), str(tmp_path / "m.model")]) == 0
    capsys.readouterr()
    args = [a.format(d=data_file, tmp=tmp_path, big=big) for a in argv]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("pegasos: error: "), err
    import re

    assert re.search(message, err), err


def test_cli_refuses_weights_that_cannot_fit(tmp_path, monkeypatch, capsys):
    from pegasos import _memory

    path = tmp_path / "wide.svm"
    path.write_text("1 1:0.5 100000000:1\n-1 2:1\n")
    monkeypatch.setattr(_memory, "available_memory", lambda: 2**30)
    assert main(["train", "-q", str(path), str(tmp_path / "m.model")]) == 1
    err = capsys.readouterr().err
    assert "the largest feature index is 100000000" in err and "only 1 GiB of memory" in err
    assert not (tmp_path / "m.model").exists()


def test_cli_full_disk_is_a_message(tmp_path, data_file, monkeypatch, capsys):
    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez", full)
    assert main(["train", "-q", str(data_file), str(tmp_path / "m.model")]) == 1
    assert capsys.readouterr().err.strip().endswith("No space left on device")
    assert _temporaries(tmp_path) == []


def test_cli_as_a_process_prints_no_traceback(tmp_path, data_file):
    done = subprocess.run([sys.executable, "-m", "pegasos", "predict", str(data_file),
                           str(tmp_path / "absent.model")], capture_output=True, text=True)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1


# --- model files: the cases the issue found, one message each --------------------


def _members(path):
    with np.load(path) as archive:
        return {k: archive[k] for k in archive.files}


def _rewrite(path, members, meta_edit=None, compress=False):
    import json
    import zipfile

    from .fuzz_inputs import _npy, _write

    members = dict(members)
    meta = json.loads(str(members.pop("__meta__")))
    if meta_edit:
        meta_edit(meta)
    entries = [(k + ".npy", _npy(v)) for k, v in members.items()]
    entries.append(("__meta__.npy", _npy(np.asarray(json.dumps(meta)))))
    _write(path, entries, compress)
    assert zipfile.is_zipfile(path)


@pytest.fixture
def kernel_model(tmp_path):
    from pegasos import KernelPegasosClassifier

    X, y = _csr(3)
    path = tmp_path / "k.model"
    save_model(KernelPegasosClassifier(n_iter=30, random_state=0).fit(X, y), path)
    return path, X


def _table_edit(name, shape):
    def edit(meta):
        meta["arrays"][name]["shape"] = list(shape)
    return edit


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda m: m.update(support_vectors___csr_indices=np.full_like(m["support_vectors___csr_indices"], 99)),
         r"sparse array 'support_vectors_': X is a malformed sparse CSR matrix: column index 99"),
        (lambda m: m["support_vectors___csr_indptr"].__setitem__(5, 10**9),
         r"indptr decreases at row 5"),
        (lambda m: m.update(dual_coef_=np.hstack([m["dual_coef_"], [[1.0]]])),
         r"array 'dual_coef_' is float64\[1, \d+\] but the header says"),
        (lambda m: m["intercept_"].__setitem__(0, np.nan), r"intercept_ holds NaN or infinite values"),
        (lambda m: m.update(extra=np.zeros(2)), r"member 'extra' is not listed in the header"),
    ],
)
def test_crafted_kernel_model_files_are_refused(kernel_model, change, match):

    path, _ = kernel_model
    members = _members(path)
    change(members)
    _rewrite(path, members)
    with pytest.raises(ModelFileError, match=match):
        load_model(path)


def test_model_file_shapes_must_agree_even_when_the_header_agrees(kernel_model):

    path, _ = kernel_model
    members = _members(path)
    wide = np.hstack([members["dual_coef_"], [[1.0]]])
    members["dual_coef_"] = wide
    _rewrite(path, members, _table_edit("dual_coef_", wide.shape))
    with pytest.raises(ModelFileError, match=r"support_ must be integer of shape \[\d+\]"):
        load_model(path)


@pytest.fixture
def linear_model(tmp_path):
    X, y = _csr(4)
    path = tmp_path / "l.model"
    save_model(PegasosClassifier(n_iter=30, random_state=0).fit(X, y), path)
    return path, _members(path)


def test_linear_model_files_refuse_extra_rows_nan_duplicates_and_odd_names(linear_model):
    import zipfile

    from .fuzz_inputs import _npy

    path, members = linear_model
    three = np.vstack([members["coef_"]] * 3)
    _rewrite(path, dict(members, coef_=three), _table_edit("coef_", three.shape))
    with pytest.raises(ModelFileError, match=r"coef_ must be floating-point of shape \[1, 6\] for 2 classes and 6 features"):
        load_model(path)
    _rewrite(path, dict(members, coef_=members["coef_"] * np.nan))
    with pytest.raises(ModelFileError, match=r"coef_ holds NaN or infinite values"):
        load_model(path)
    _rewrite(path, members)
    with zipfile.ZipFile(path, "a") as zf, pytest.warns(UserWarning):
        zf.writestr("coef_.npy", _npy(members["coef_"] * 2))
    with pytest.raises(ModelFileError, match=r"member 'coef_.npy' appears more than once"):
        load_model(path)
    _rewrite(path, members)
    with zipfile.ZipFile(path, "a") as zf:
        zf.writestr("../evil.npy", _npy(np.zeros(1)))
    with pytest.raises(ModelFileError, match=r"unexpected member '../evil.npy'"):
        load_model(path)


def test_a_deflated_bomb_is_refused_before_inflating(linear_model):

    path, members = linear_model
    members["coef_"] = np.zeros((1, 20_000_000))  # 160 MB of zeros: a few hundred kB deflated
    _rewrite(path, members, _table_edit("coef_", (1, 6)), compress=True)
    assert path.stat().st_size < 2_000_000
    with pytest.raises(ModelFileError, match=r"member '\w+.npy' is compressed"):
        load_model(path)
    _rewrite(path, members, _table_edit("coef_", (1, 6)))  # stored, but larger than declared
    with pytest.raises(ModelFileError, match=r"array 'coef_' is float64\[1, 20000000\] but the header says float64\[1, 6\]"):
        load_model(path)


def test_version_1_files_still_load(tmp_path):

    X, y = _csr(4)
    clf = PegasosClassifier(n_iter=30, random_state=0).fit(X, y)
    path = tmp_path / "v1.model"
    save_model(clf, path)

    def as_version_1(meta):
        meta["version"] = 1
        del meta["arrays"]

    _rewrite(path, _members(path), as_version_1)
    np.testing.assert_array_equal(load_model(path).decision_function(X), clf.decision_function(X))


def test_header_edits_are_messages_not_tracebacks(linear_model):

    path, members = linear_model
    edits = {
        r"parameters are not valid for PegasosClassifier": lambda m: m["params"].update(batch_size="x"),
        r"parameters are not those of PegasosClassifier .*unexpected keyword argument 'nonsense'":
            lambda m: m["params"].update(nonsense=1),
        r"unexpected fitted attribute '__class__'": lambda m: m["attributes"].update(__class__=1),
        r"attribute 'lam_' must be > 0": lambda m: m["attributes"].update(lam_=-1.0),
        r"fitted attribute 'n_features_in_' is missing": lambda m: m["attributes"].pop("n_features_in_"),
        r"header field 'params' is not an object": lambda m: m.update(params=[1]),
        r"header entry for array 'coef_' is malformed": lambda m: m["arrays"].update(coef_=3),
        r"unknown estimator 'os.system'": lambda m: m.update(estimator="os.system"),
    }
    for match, edit in edits.items():
        _rewrite(path, members, edit)
        with pytest.raises(ModelFileError, match=match):
            load_model(path)


# --- numerical edges ----------------------------------------------------------------


def _small():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    return X, np.sign(X[:, 0] + 0.1)


def test_negative_class_weights_are_refused():
    from pegasos import KernelPegasosClassifier

    X, y = _small()
    for est in (PegasosClassifier(n_iter=5), KernelPegasosClassifier(n_iter=5)):
        with pytest.raises(ValueError, match=r"class_weight must be finite and non-negative; got \{1.0: -1.0\}"):
            est.set_params(class_weight={1.0: -1.0, -1.0: 1.0}).fit(X, y)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_kernel_overflow_is_refused_at_fit():
    from pegasos import KernelPegasosClassifier, KernelPerceptron, SBPClassifier

    X, y = _small()
    for est in (SBPClassifier(0.1, n_iter=20), KernelPerceptron(n_epochs=1),
                KernelPegasosClassifier(n_iter=20)):
        for kernel in ("linear", "rbf", "poly"):
            with pytest.raises(ValueError, match="The kernel overflows on this data"):
                est.set_params(kernel=kernel).fit(X * 1e300, y)


def test_non_finite_decision_values_are_an_error_not_a_prediction():
    from pegasos import KernelPerceptron

    X, y = _small()
    clf = KernelPerceptron(kernel="poly", n_epochs=1, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="Non-finite decision values"):
        clf.predict(X * 1e200)
    lin = PegasosClassifier(n_iter=50, random_state=0).fit(X, y)
    lin.coef_ = lin.coef_ * 1e200  # a model that is finite, on data it overflows with
    with pytest.raises(ValueError, match="Non-finite decision values"):
        lin.predict(X * 1e200)


def test_a_lambda_too_small_for_float64_is_refused():
    X, y = _small()
    with pytest.raises(ValueError, match=r"lam=1e-300 is too small for this data.*Use lam >= 2.8\de-150"):
        PegasosClassifier(lam=1e-300, n_iter=10).fit(X, y)
    assert np.all(PegasosClassifier(lam=1e-140, n_iter=10).fit(X, y).coef_ != 0)


def test_a_batch_larger_than_the_data_is_the_data():
    X, y = _small()
    big = PegasosClassifier(batch_size=10**9, n_iter=5, sampling="cyclic").fit(X, y)
    whole = PegasosClassifier(batch_size=len(y), n_iter=5, sampling="cyclic").fit(X, y)
    np.testing.assert_array_equal(big.coef_, whole.coef_)
    assert PegasosClassifier(batch_size=10**9, n_epochs=2).fit(X, y).n_iter_ == 2


def test_an_overflowing_norm_is_an_error_not_an_all_zero_model():
    from pegasos import KernelPegasosClassifier

    X, y = _small()
    with pytest.raises(ValueError, match=r"Floating-point overflow in the weights by iteration"):
        PegasosClassifier(lam=1e-3, n_epochs=2).fit(X * 1e200, y)
    # the kernel solvers check their state after every compiled call, as the linear one does
    with pytest.raises(ValueError, match=r"Floating-point overflow in the weights by iteration 20"):
        KernelPegasosClassifier(lam=1e-300, n_iter=20).fit(X, y)


def test_cli_notes_a_very_sparse_index_range(tmp_path, capsys):
    path = tmp_path / "wide.svm"
    path.write_text("1 1:0.5 5000000:1\n-1 2:1\n")  # 3 x 5M weights of 8 bytes: 120 MB
    assert main(["train", "-q", "--iter", "5", str(path), str(tmp_path / "m.model")]) == 0
    err = capsys.readouterr().err
    assert "uses 3 distinct feature indices up to 5000000" in err and "(114 MB)" in err


def test_the_progress_bar_stays_when_the_run_ends():
    from pegasos._progress import Progress

    progress = Progress(10, False, None, None, np.array([-1.0, 1.0]))
    assert progress.bar.leave is True
    progress.close()
