"""Hostile and careless input: signals during writes, malformed sparse input and
model files (fuzzed in a subprocess, so that a crash fails the test), CLI paths."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from pegasos import PegasosClassifier, duality_gap
from pegasos._files import remove_stale_temporaries, write_atomic
from pegasos.cli import main

ROOT = Path(__file__).resolve().parents[1]

_SLOW_WRITER = textwrap.dedent(
    """
    import sys, time
    from pegasos._files import write_atomic

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
    _fuzz("model", tmp_path, 300)


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
        (["train", "{tmp}", "{tmp}/m.model"], r"cannot read .*: Is a directory"),
        (["train", "{tmp}/nothing.svm"], r"cannot read .*nothing.svm: No such file or directory"),
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
    from pegasos import kernel

    path = tmp_path / "wide.svm"
    path.write_text("1 1:0.5 100000000:1\n-1 2:1\n")
    monkeypatch.setattr(kernel, "_available_memory", lambda: 2**30)
    assert main(["train", "-q", str(path), str(tmp_path / "m.model")]) == 1
    err = capsys.readouterr().err
    assert "the largest feature index is 100000000" in err and "1024 MB of memory" in err
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
