"""Untrusted input, class by class: continued fits on other data, outputs that are
inputs, special files, archives that lie about their size or layout, option
values beyond int64, conflicting options, LIBSVM's labels, long offending text.

Each class is tested through the public API and the command line; what could
hang runs in a subprocess with a time limit, what could corrupt memory under
glibc's heap checks.
"""

import io
import json
import os
import struct
import subprocess
import sys
import time
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

from pegasos import (
    KernelPegasosClassifier,
    PegasosClassifier,
    SBPClassifier,
    load_model,
    save_model,
)
from pegasos._base import make_plan
from pegasos.cli import main
from pegasos.datasets import DataFormatError, read_svmlight
from pegasos.linear import PegasosState, fit_binary
from pegasos.model_io import ModelFileError

from .fuzz_inputs import _npy, _write

ROOT = Path(__file__).resolve().parents[1]
MALLOC_DEBUG = Path("/usr/lib/x86_64-linux-gnu/libc_malloc_debug.so.0")


def _xy(d=5, n=40, seed=0, n_classes=2):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return X, np.arange(n) % n_classes


def _run(args, timeout=120, env=None):
    """``python -m pegasos ARGS`` in a fresh process: (returncode, stderr)."""
    done = subprocess.run([sys.executable, "-m", "pegasos", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, **(env or {})))
    return done.returncode, done.stderr


def _unpack(path):
    """(arrays, header) of a model file."""
    with np.load(path) as archive:
        members = {k: archive[k] for k in archive.files}
    return members, json.loads(str(members.pop("__meta__")))


def _repack(path, members, meta, raw=None):
    """Write arrays and a header (a dict, or its JSON text) as a model archive; ``raw`` gives
    some members' bytes as they are."""
    raw = raw or {}
    text = meta if isinstance(meta, str) else json.dumps(meta)
    entries = [(k + ".npy", raw[k] if k in raw else _npy(v)) for k, v in members.items()]
    _write(path, entries + [("__meta__.npy", _npy(np.asarray(text)))])


def _one_error_line(err, pattern):
    import re

    assert err.count("\n") == 1 and err.startswith("pegasos: error: "), err
    assert re.search(pattern, err), err


# --- 0. continued fits on data of another width: refused, memory intact -------------


@pytest.mark.parametrize("dask", [False, True])
def test_a_warm_start_on_wider_data_is_refused_and_the_model_kept(dask):
    from pegasos.dask_backend import DaskPegasosClassifier

    cls = DaskPegasosClassifier if dask else PegasosClassifier
    X, y = _xy()
    clf = cls(warm_start=True, n_iter=100, random_state=0).fit(X, y)
    coef = clf.coef_.copy()
    with pytest.raises(ValueError, match=f"X has 10 features, but {cls.__name__} is expecting "
                                         "5 features as input"):
        clf.fit(np.hstack([X, X]), y)
    assert clf.n_features_in_ == 5 and clf.coef_.shape == (1, 5)
    np.testing.assert_array_equal(clf.coef_, coef)
    clf.fit(X, y)  # the same width continues
    assert clf.t_ == 200


def test_the_compiled_step_refuses_a_state_of_another_width():
    X, y = _xy()
    plan = make_plan(lam=0.1, C=None, n=40, n_iter=10, n_epochs=None, batch_size=1,
                     average=False, radius2=None, random_state=0, n_problems=1)
    target = np.where(y == 1, 1.0, -1.0)
    with pytest.raises(ValueError, match="The solver state holds weights for 10 features but X "
                                         "has 5 features"):
        fit_binary(X, target, np.ones(40), plan, PegasosState.start(1, 10))
    with pytest.raises(ValueError, match=r"loss weights must be a contiguous float64 array of "
                                         r"shape \(40\); got float64\[39\]"):
        fit_binary(X, target, np.ones(39), plan, PegasosState.start(1, 5))


def test_an_altered_state_or_model_is_refused_before_compiled_code():
    X, y = _xy()
    clf = PegasosClassifier(lam=0.1, n_iter=50, random_state=0).fit(X, y)
    clf.state_.v = np.zeros((1, 11))
    with pytest.raises(ValueError, match=r"state_.v must have shape \[1, 6\] for 1 problems and "
                                         r"5 features; got \[1, 11\]"):
        clf.partial_fit(X, y)
    with pytest.raises(ValueError, match=r"state_.v must have shape \[1, 6\]"):
        clf.duality_gap(X, y)
    kernel = KernelPegasosClassifier(n_iter=30, random_state=0).fit(X, y)
    kernel.dual_coef_ = np.zeros((1, 3))
    with pytest.raises(ValueError, match=r"dual_coef_ must be a contiguous float64 array of "
                                         r"shape \(any, \d+\); got float64\[1, 3\]"):
        kernel.predict(X)
    kernel = KernelPegasosClassifier(n_iter=30, random_state=0).fit(X, y)
    kernel.support_vectors_ = np.zeros((len(kernel.support_), 9))
    with pytest.raises(ValueError, match="X has 5 features but the support vectors have 9"):
        kernel.decision_function(X)


def test_continued_fits_on_other_data_under_glibc_heap_checks(tmp_path):
    """Every estimator, warm start / partial_fit / loaded state / hand-set state, on data of
    another width, class set and dtype: no heap corruption (glibc aborts the process),
    every step a result or a ValueError, every fitted model consistent with its width."""
    env = dict(os.environ, PEGASOS_FUZZ_DIR=str(tmp_path), MALLOC_CHECK_="3")
    if MALLOC_DEBUG.exists():  # glibc >= 2.34 checks the heap only with this library
        env["LD_PRELOAD"] = str(MALLOC_DEBUG)
    done = subprocess.run([sys.executable, "-m", "tests.fuzz_inputs", "sequences"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, (done.returncode, done.stdout[-2000:], done.stderr[-3000:])
    assert "ran the continued-fit sequences" in done.stdout


# --- 1. an output that is an input: refused before anything is read ----------------


@pytest.fixture
def files(tmp_path):
    data = tmp_path / "d.svm"
    data.write_text("1 1:0.5 2:1\n-1 1:-1 3:0.25\n1 2:2\n-1 3:-1\n1 1:1 2:0.5\n-1 1:-0.5\n")
    model = tmp_path / "m.model"
    assert main(["train", "-q", str(data), str(model)]) == 0
    liblinear = tmp_path / "m.liblinear"
    assert main(["export", str(model), str(liblinear)]) == 0
    (tmp_path / "link.svm").symlink_to(data)
    os.link(data, tmp_path / "hard.svm")
    (tmp_path / "link.model").symlink_to(model)
    return tmp_path


@pytest.mark.parametrize(
    "argv, match",
    [
        (["train", "d.svm", "d.svm"], r"the model d.svm is the data file d.svm: writing the model "
                                      r"would destroy it"),
        (["train", "d.svm", "link.svm"], r"the model link.svm is the data file d.svm"),
        (["train", "hard.svm", "d.svm"], r"the model d.svm is the data file hard.svm"),
        (["train", "--test", "hard.svm", "d.svm", "x.model"], None),  # inputs only: trains
        (["train", "--test", "d.svm", "hard.svm", "out.model"], None),
        (["train", "--test", "m.liblinear", "d.svm", "m.liblinear"],
         r"the model m.liblinear is the test file m.liblinear"),
        (["train", "--plot", "d.svm", "d.svm", "new.model"], r"the plot d.svm is the data file"),
        (["train", "--plot", "new.model", "d.svm", "new.model"],
         r"the plot and the model would both be written to new.model"),
        (["predict", "d.svm", "m.model", "d.svm"], r"the predictions d.svm is the data file d.svm"),
        (["predict", "d.svm", "m.model", "link.model"], r"the predictions link.model is the model "
                                                        r"m.model"),
        (["predict", "d.svm", "m.model", "hard.svm"], r"the predictions hard.svm is the data file"),
        (["export", "m.model", "link.model"], r"the exported model link.model is the model "
                                              r"m.model"),
        (["import", "m.liblinear", "m.liblinear"], r"the model m.liblinear is the model file m.liblinear"),
    ],
)
def test_an_output_that_is_an_input_is_refused_and_nothing_changes(files, argv, match, capsys,
                                                                   monkeypatch):
    monkeypatch.chdir(files)
    before = {p.name: p.read_bytes() for p in files.iterdir() if p.is_file()}
    status = main(argv)
    err = capsys.readouterr().err
    after = {p.name: p.read_bytes() for p in files.iterdir() if p.is_file() and p.name in before}
    if match is None:
        assert status == 0, err
        return
    assert status == 1
    _one_error_line(err, match)
    assert after == before  # nothing written, nothing lost


# --- 2. special files and huge directories: answered at once -----------------------


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def test_a_named_pipe_is_refused_not_waited_on(files, fifo):
    data, model = files / "d.svm", files / "m.model"
    for args in (["train", fifo, files / "x.model"], ["train", "--test", fifo, data],
                 ["predict", fifo, model], ["predict", data, fifo], ["info", fifo],
                 ["export", fifo, files / "x.txt"], ["import", fifo, files / "x.model"]):
        status, err = _run(args, timeout=60)  # a hang fails the test by its timeout
        assert status == 1, (args, err)
        _one_error_line(err, r"pipe:? is a named pipe \(FIFO\), not a regular file")
    with pytest.raises(ModelFileError, match=r"is a named pipe \(FIFO\), not a regular file"):
        load_model(fifo)
    with pytest.raises(DataFormatError, match=r"is a named pipe \(FIFO\), not a regular file"):
        read_svmlight(fifo)


def test_the_cli_refuses_a_named_pipe_before_importing_scikit_learn(files, fifo):
    """Every command's first check (``cli._check_inputs``): the readers would refuse the pipe
    too, but only after the command imported what it reads with (2 s of a 2.2 s answer)."""
    data = files / "d.svm"
    commands = [["train", fifo, files / "x.model"], ["predict", data, fifo], ["info", fifo],
                ["export", fifo, files / "x.txt"], ["import", fifo, files / "x.model"]]
    script = ("import json, sys\nfrom pegasos.cli import main\n"
              f"statuses = [main(args) for args in {[[str(a) for a in c] for c in commands]!r}]\n"
              "print(json.dumps([statuses, 'sklearn' in sys.modules]))")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    statuses, imported = json.loads(done.stdout.strip().splitlines()[-1])
    assert statuses == [1] * len(commands), done.stderr
    assert done.stderr.count("is a named pipe (FIFO), not a regular file") == len(commands)
    assert not imported


def test_an_archive_listing_thousands_of_members_is_refused_at_once(tmp_path):
    path = tmp_path / "many.model"
    members = [(f"a{i}.npy", b"") for i in range(50_000)]
    _write(path, members + [("__meta__.npy", _npy(np.asarray("{}")))])
    tic = time.perf_counter()
    with pytest.raises(ModelFileError, match="the archive lists 50001 members; a model file has "
                                             "at most 64"):
        load_model(path)
    # bounded before the directory is read: far below the 30 s it took when it was iterated
    assert time.perf_counter() - tic < 10.0


# --- 3. sizes a small file declares: refused before anything is allocated ----------


@pytest.fixture
def linear_file(tmp_path):
    X, y = _xy()
    clf = PegasosClassifier(lam=0.1, n_iter=60, random_state=0).fit(X, y)
    path = tmp_path / "l.model"
    save_model(clf, path)
    members, meta = _unpack(path)
    return path, members, meta, X, clf


def _npy_declaring(arr, shape):
    """A .npy member whose header declares ``shape`` but which stores ``arr``'s bytes."""
    header = np.lib.format.header_data_from_array_1_0(arr)
    header["shape"] = shape
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, header)
    return buf.getvalue() + arr.tobytes()


def test_declared_shapes_beyond_the_stored_bytes_are_refused(linear_file):
    path, members, meta, _, _ = linear_file
    huge = (100_000, 1_000_000)  # 800 GB of float64
    meta["arrays"]["coef_"]["shape"] = list(huge)
    raw = {"coef_": _npy_declaring(members["coef_"], huge)}
    _repack(path, members, meta, raw)
    with pytest.raises(ModelFileError, match=r"array 'coef_' is declared as float64\[100000, "
                                             r"1000000\] \(800000000000 bytes\) but its member "
                                             r"stores 40 bytes of data"):
        load_model(path)
    # version 1 (no size table): the .npy header is checked against the member all the same
    meta["version"] = 1
    del meta["arrays"]
    _repack(path, members, meta, raw)
    with pytest.raises(ModelFileError, match=r"declared as float64\[100000, 1000000\]"):
        load_model(path)


def _patch_directory(path, member, offset, fmt, value, local=None):
    """Set a field of ``member``'s central directory entry (and its local header)."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo(member)
    name = member.encode()
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        if data[at + 46:at + 46 + len(name)] == name:
            struct.pack_into(fmt, data, at + offset, value)
            break
        at = data.find(b"PK\x01\x02", at + 4)
    if local is not None:
        struct.pack_into(fmt, data, info.header_offset + local, value)
    path.write_bytes(bytes(data))


def test_a_directory_that_claims_more_than_the_file_holds_is_refused(linear_file):
    path = linear_file[0]
    _patch_directory(path, "coef_.npy", 20, "<L", 2**32 - 2)  # compressed size
    _patch_directory(path, "coef_.npy", 24, "<L", 2**32 - 2)  # uncompressed size
    with pytest.raises(ModelFileError, match=r"member 'coef_.npy' claims 4294967294 bytes, more "
                                             r"than the \d+-byte file holds"):
        load_model(path)


# --- 4. what zipfile or the compiled code would have raised: one message each ------


def test_an_encrypted_member_is_a_message(linear_file):
    path = linear_file[0]
    _patch_directory(path, "coef_.npy", 8, "<H", 0x1, local=6)
    with pytest.raises(ModelFileError, match="member 'coef_.npy' is encrypted"):
        load_model(path)


@pytest.mark.parametrize("method", [8, 12, 14, 93, 99, 0xFFFF])
def test_an_unsupported_compression_method_is_a_message(linear_file, method):
    path = linear_file[0]
    _patch_directory(path, "coef_.npy", 10, "<H", method, local=8)
    with pytest.raises(ModelFileError, match=rf"member 'coef_.npy' is compressed \(method "
                                             rf"{method}\)"):
        load_model(path)


@pytest.mark.parametrize("dtype", [">f8", ">f4", "<f4", "<f2", ">i8"])
def test_arrays_in_other_byte_orders_and_widths_load_as_native_float64(tmp_path, dtype):
    X, y = _xy(n_classes=3)
    model = KernelPegasosClassifier(n_iter=40, random_state=0).fit(X, y)
    path = tmp_path / "k.model"
    save_model(model, path)
    members, meta = _unpack(path)
    for name in ("dual_coef_", "intercept_"):
        if dtype[1] == "i":  # integers where floats belong: whole-number coefficients
            members[name] = np.round(members[name] * 100)
        members[name] = members[name].astype(dtype)
        meta["arrays"][name]["dtype"] = members[name].dtype.str
    _repack(path, members, meta)
    if dtype[1] == "i":
        with pytest.raises(ModelFileError, match=r"(dual_coef_|intercept_) must be floating-point of "
                                                 r"shape \[\d+\] for 3 classes"):
            load_model(path)  # integers are not coefficients
        return
    back = load_model(path)
    assert back.dual_coef_.dtype == np.float64 and back.dual_coef_.dtype.isnative
    expected = model.dual_coef_.astype(dtype).astype(np.float64)
    np.testing.assert_array_equal(back.dual_coef_, expected)
    if dtype in (">f8",):  # the same numbers: the same predictions, bit for bit
        np.testing.assert_array_equal(back.decision_function(X), model.decision_function(X))
    else:
        assert back.predict(X).shape == (40,)


@pytest.mark.parametrize(
    "section, key, value, match",
    [
        ("top", "estimator", ["PegasosClassifier"], r"unknown estimator \['PegasosClassifier'\]"),
        ("top", "estimator", {"a": 1}, r"unknown estimator \{'a': 1\}"),
        ("top", "version", True, r"has model format version True"),
        ("top", "version", 2.0, r"has model format version 2.0"),
        ("top", "format", "x" * 5000, r"format 'xxxx.*\.\.\. \(5002 characters\)"),
        ("top", "certificate", [{"primal": 1.0}], r"header field 'certificate' is malformed"),
        ("top", "plan", {"lam": "x"}, r"header field 'plan' is malformed"),
        ("plan", "n_iter", 2**63, r"header field 'plan' is malformed"),
        ("plan", "lam", 1e400, None),  # JSON's Infinity: not a finite lambda
        ("attributes", "t_", 2**63, r"attribute 't_' is 9223372036854775808; an integer in "
                                    r"\[0, 2\*\*62\)"),
        ("params", "n_iter", 10**30, r"the header's parameters are not valid"),
        ("params", "check_every", 1e308, None),  # valid: a continued fit checks at its end
    ],
)
def test_header_edits_are_refused_on_loading_or_work(linear_file, section, key, value, match):
    path, members, meta, X, _ = linear_file
    target = meta if section == "top" else meta[section]
    target[key] = value
    text = json.dumps(meta)
    _repack(path, members, text)
    if match is None and "Infinity" in text:
        match = r"header field 'plan' is malformed"
    if match is not None:
        with pytest.raises(ModelFileError, match=match):
            load_model(path)
        return
    model = load_model(path)
    model.partial_fit(X, np.arange(40) % 2)
    assert model.predict(X).shape == (40,)


def test_the_cli_answers_every_header_edit_in_one_line(linear_file, tmp_path, capsys):
    """The loader's checks stand between a file and every command: no edit of a header field
    passes them and fails later (a traceback), for info, predict and export alike."""
    path, members, meta0, X, _ = linear_file
    data = tmp_path / "d.svm"
    from sklearn.datasets import dump_svmlight_file

    dump_svmlight_file(X, np.arange(40) % 2, str(data), zero_based=False)
    fields = [("top", k) for k in meta0] + [(s, k) for s in ("params", "attributes", "plan")
                                             for k in meta0[s]]
    fields += [("certificate", k) for k in ("primal", "relative_gap")]
    values = [None, -1, 2**63, 1e308, "x" * 200, [], {}, True]
    for section, key in fields:
        for value in values:
            meta = json.loads(json.dumps(meta0))
            if section == "top":
                meta[key] = value
            elif section == "certificate":
                meta["certificate"] = [{"primal": 1.0, "dual": 0.5, "relative_gap": 1.0, key: value}]
            else:
                meta[section][key] = value
            _repack(path, members, meta)
            for argv in (["info", path], ["predict", "-q", data, path, tmp_path / "out"],
                         ["export", path, tmp_path / "ll"]):
                status = main([str(a) for a in argv])
                err = capsys.readouterr().err
                assert status in (0, 1), (section, key, value, argv[0], err)
                if status == 1:
                    assert err.count("\n") == 1 and err.startswith("pegasos: error: "), err


# --- integer and float options beyond what the solvers count in -------------------


@pytest.mark.parametrize(
    "argv, status, match",
    [
        (["--iter", "99999999999999999999999"], 2,
         r"--iter \(n_iter\) must be an int in the range \[1, 4611686018427387904\]"),
        (["-s", "kernel-pegasos", "-d", "99999999999999999999999"], 2,
         r"-d \(degree\) must be an int in the range \[0, 2147483647\]"),
        (["-k", "99999999999999999999999"], 2, r"-k \(batch_size\) must be an int in the range"),
        (["--seed", "99999999999999999999999"], 2, r"--seed \(random_state\) must be|random_state"),
        (["--epochs", "1e300"], 1, r"n_epochs=1e\+300 on 6 samples gives .* iterations of 1 "
                                   r"examples; at most 2\*\*62"),
        (["-c", "1e308"], 1, r"C=1e\+308 on 6 samples .* gives lambda = 0, outside float64's "
                             r"range"),
        (["-s", "kernel-pegasos", "-B", "1e200"], 2, r"-B \(intercept_scaling\) must be a float "
                                                     r"in the range \[1e-150, 1e\+150\]"),
        (["-s", "kernel-pegasos", "-r", "inf"], 2, r"-r \(coef0\) must be a float in the range "
                                                   r"\(-inf, inf\)"),
    ],
)
def test_out_of_range_numbers_are_one_line_errors(files, capsys, argv, status, match):
    import re

    try:
        got = main(["train", "-q", *argv, str(files / "d.svm"), str(files / "x.model")])
    except SystemExit as exc:
        got = exc.code
    err = capsys.readouterr().err
    assert got == status, err
    assert re.search(match, err), err
    assert "Traceback" not in err


def test_the_api_refuses_counts_beyond_int64_with_a_value_error():
    X, y = _xy()
    for est, match in [
        (PegasosClassifier(n_iter=10**30), r"n_iter' parameter of PegasosClassifier must be an "
                                           r"int in the range \[1, 4611686018427387904\]"),
        (PegasosClassifier(n_epochs=1e300), r"n_epochs=1e\+300 on 40 samples gives"),
        (PegasosClassifier(C=1e308), r"outside float64's range"),
        (KernelPegasosClassifier(degree=2**63, kernel="poly"), r"'degree' parameter"),
        (SBPClassifier(n_iter=2**63), r"'n_iter' parameter"),
        (PegasosClassifier(lam=1e-320), r"lam=1e-320 gives lambda"),
    ]:
        with pytest.raises(ValueError, match=match):
            est.fit(X, y)


# --- 5. options that contradict each other or do not apply -------------------------


@pytest.mark.parametrize(
    "argv, match",
    [
        (["-s", "sbp", "-c", "1", "-n", "0.1"],
         r"-s sbp takes SVC's C \(-c\) or its own slack budget \(-n\), not both"),
        (["-n", "0.1"], r"-n does not apply to -s pegasos \(it is for -s sbp and nu-svc"),
        (["-s", "perceptron", "-c", "2"], r"-s perceptron has no regularisation: -c"),
        (["-s", "kernel-pegasos", "-e", "0.01"], r"-e does not apply to -s kernel-pegasos"),
        (["-s", "sbp", "--sampling", "cyclic"], r"-s sbp draws from its water-filled"),
        (["-s", "sbp", "--no-projection"], r"--no-projection does not apply to -s sbp"),
        (["-s", "perceptron", "--unregularized-bias"], r"--unregularized-bias does not apply"),
        (["--unregularized-bias", "-B", "2"], r"-B \(the value of an intercept feature\) does "
                                              r"not apply"),
        (["-g", "0.5"], r"-g does not apply to -s pegasos"),
        (["-s", "sbp", "--average", "0.3"], r"--average takes 'all' or 'last' here"),
        (["-s", "sbp", "-c", "0"], r"-c \(C\) must be a float in the range \(0.0, inf\)"),
    ],
)
def test_conflicting_options_are_refused(files, capsys, argv, match):
    import re

    with pytest.raises(SystemExit) as exc:
        main(["train", *argv, str(files / "d.svm"), str(files / "x.model")])
    assert exc.value.code == 2
    assert re.search(match, capsys.readouterr().err)
    assert not (files / "x.model").exists()


# --- 6. LIBSVM's labels: any numbers ------------------------------------------------


@pytest.mark.parametrize("solver", ["pegasos", "kernel-pegasos", "sbp", "perceptron"])
def test_the_cli_classifies_any_numeric_labels_as_libsvm_does(tmp_path, solver, capsys):
    X, y = _xy(d=3, n=60, n_classes=3)
    labels = np.array([1.5, -2.5, 7.25])[y]
    X[:, 0] += 6 * (y == 1)  # three separate clusters: each class against the rest
    X[:, 1] += 6 * (y == 2)
    data = tmp_path / "frac.svm"
    from sklearn.datasets import dump_svmlight_file

    dump_svmlight_file(X, labels, str(data), zero_based=False)
    model, out = tmp_path / "m.model", tmp_path / "out.txt"
    assert main(["train", "-q", "-s", solver, "-w", "7.25:2", str(data), str(model)]) == 0
    assert main(["predict", "-q", str(data), str(model), str(out)]) == 0
    predicted = np.loadtxt(out)
    assert set(predicted) <= {1.5, -2.5, 7.25}
    assert np.mean(predicted == labels) > 0.8
    loaded = load_model(model)
    assert loaded.classes_.tolist() == [-2.5, 1.5, 7.25]
    assert loaded.class_weight == {7.25: 2.0}  # the labels the user named, as saved
    assert main(["train", "-s", solver, "-v", "3", str(data)]) == 0
    assert "Cross Validation Accuracy" in capsys.readouterr().out
    assert main(["train", "-q", "-s", solver, "-w", "3:2", str(data), str(model)]) == 1
    assert "-w gives a weight to the label 3, which the data does not have (its labels: " \
           "-2.5, 1.5, 7.25)" in capsys.readouterr().err


def test_the_estimators_keep_scikit_learns_rule_for_labels():
    X, _ = _xy()
    with pytest.raises(ValueError, match="Unknown label type"):
        PegasosClassifier(n_iter=10).fit(X, np.where(np.arange(40) % 2, 1.5, -2.5))


# --- 7. offending text is quoted, not echoed whole ------------------------------------


def test_a_long_malformed_token_is_quoted_in_at_most_a_line(tmp_path, capsys):
    data = tmp_path / "big.svm"
    data.write_text("1 " + "x" * 1_000_000 + "\n-1 1:1\n")
    assert main(["train", "-q", str(data)]) == 1
    err = capsys.readouterr().err
    assert len(err) < 300 and "(1000002 characters)" in err, err[:400]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = tmp_path / "m.model"
        X, y = _xy()
        save_model(PegasosClassifier(n_iter=10).fit(X, y), model)
    members, meta = _unpack(model)
    meta["attributes"]["x" * 100_000] = 1
    _repack(model, members, meta)
    assert main(["info", str(model)]) == 1
    err = capsys.readouterr().err
    assert len(err) < 400 and "(100002 characters)" in err, err[:500]


# --- the zip structure itself, fuzzed ----------------------------------------------


def test_fuzzed_zip_structure_is_refused_or_loads(tmp_path):
    """Member counts, flags, compression methods, declared and stored sizes, offsets, the
    end record, byte orders and widths of arrays: each case a ModelFileError (in bounded
    time) or a model that predicts; a change of byte order alone predicts as before."""
    env = dict(os.environ, PEGASOS_FUZZ_EXAMPLES="300", PEGASOS_FUZZ_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "tests.fuzz_inputs", "zip"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, (done.returncode, done.stdout[-3000:], done.stderr[-3000:])
    assert "ran 300 zip cases" in done.stdout


# --- a small data file with a large feature index: no dense row of that width --------

_WIDE = """
import numpy as np, scipy.sparse as sp
from pegasos import KernelPegasosClassifier, KernelPerceptron, SBPClassifier
rng = np.random.default_rng(0)
small = sp.random(30, 6, density=0.5, format="csr", random_state=0)
y = np.arange(30) % 2
wide = sp.csr_matrix((small.data, small.indices * 400_000_000, small.indptr),
                     shape=(30, 2**31 - 1))  # columns 0, 4e8, ..., 2e9: five unused between
for make in (lambda: KernelPegasosClassifier(n_iter=30, gamma=0.5, random_state=0),
             lambda: SBPClassifier(0.2, n_iter=20, gamma=0.5, random_state=0),
             lambda: KernelPerceptron(n_epochs=2, gamma=0.5, random_state=0)):
    a, b = make().fit(small, y), make().fit(wide, y)
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    np.testing.assert_array_equal(a.decision_function(small), b.decision_function(wide))
    assert b.support_vectors_.shape[1] == 2**31 - 1
print("ok")
"""


def test_a_large_feature_index_costs_no_dense_row_of_that_width():
    """The kernel engine copies rows densely; on sparse rows it sees only the used columns,
    so a feature index of 2**31 - 1 (16 GB as a dense row) fits in 6 GB of address space and
    gives the model of the same data without the empty columns, bit for bit."""
    import resource

    def limit():  # a dense row of 2**31 - 1 float64 would be a MemoryError here
        resource.setrlimit(resource.RLIMIT_AS, (6 * 2**30, 6 * 2**30))

    done = subprocess.run([sys.executable, "-c", _WIDE], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, preexec_fn=limit)
    assert done.returncode == 0 and "ok" in done.stdout, done.stderr[-3000:]


def test_the_kernel_trace_counts_errors_against_the_files_labels(tmp_path, monkeypatch):
    """The fit sees the classes' indices; the curves of --plot compare with the labels."""
    from sklearn.datasets import dump_svmlight_file

    import pegasos.plotting

    X, y = _xy(d=3, n=80)
    X[:, 0] += 4 * y
    labels = np.where(y == 1, 1.0, -1.0)
    data = tmp_path / "d.svm"
    dump_svmlight_file(X, labels, str(data), zero_based=False)
    drawn = {}
    monkeypatch.setattr(pegasos.plotting, "plot_kernel_training",
                        lambda curves, path, title: drawn.update(curves=curves))
    assert main(["train", "-q", "-s", "kernel-pegasos", "--test", str(data), "--plot",
                 str(tmp_path / "p.png"), str(data), str(tmp_path / "m.model")]) == 0
    last_error = drawn["curves"]["test_error"][-1]
    model = load_model(tmp_path / "m.model")
    assert last_error == pytest.approx(1 - np.mean(model.predict(X) == labels), abs=0.02)
    assert last_error < 0.2


def _relist(members, meta):
    """The header's list of arrays, made to describe ``members`` again."""
    meta["arrays"] = {k: {"dtype": v.dtype.str, "shape": list(v.shape)}
                      for k, v in members.items()}


def test_dual_svc_files_pairwise_coupling_and_iterations_are_checked(tmp_path):
    from pegasos import DualSVC
    from pegasos.model_io import ModelFileError

    X, y = _xy(n=60, n_classes=4)
    path = tmp_path / "svc.model"
    save_model(DualSVC(probability=True, random_state=0).fit(X, y), path)
    members, meta = _unpack(path)
    assert meta["attributes"]["pairwise_coupling_"] == 1 and members["probA_"].shape == (6,)
    edits = [
        ("attributes", "pairwise_coupling_", 2, r"pairwise_coupling_ must be 1"),
        ("members", ("probA_", "probB_"), None, r"pairwise_coupling_ must be 1, and only in a "
                                                r"one-vs-one model with probA_"),
        ("members", "n_iter_", np.array([1, 2]), r"n_iter_ must count the iterations of each of "
                                                  r"the 6 problems"),
        ("members", "n_iter_", None, r"fitted attribute 'n_iter_' is missing"),
    ]
    for where, key, value, match in edits:
        m, h = dict(members), json.loads(json.dumps(meta))
        target = m if where == "members" else h["attributes"]
        for name in key if isinstance(key, tuple) else (key,):
            if value is None:
                del target[name]
            else:
                target[name] = value
        _relist(m, h)
        _repack(path, m, h)
        with pytest.raises(ModelFileError, match=match):
            load_model(path)
    m, h = dict(members), json.loads(json.dumps(meta))  # a file of the earlier layout
    h["attributes"]["n_iter_"] = int(m.pop("n_iter_").sum())
    del h["attributes"]["pairwise_coupling_"]
    m["probA_"], m["probB_"] = m["probA_"][:4], m["probB_"][:4]  # (one sigmoid per class)
    _relist(m, h)
    _repack(path, m, h)
    old = load_model(path)
    assert old.n_iter_ == int(members["n_iter_"].sum())
    np.testing.assert_allclose(old.predict_proba(X).sum(axis=1), 1.0)
