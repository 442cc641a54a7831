"""Numba's on-disk cache: the sequences of fresh processes that used to segfault.

Each step runs in a new Python process against one cache folder that starts
empty, as a user's runs follow each other; a crash (SIGSEGV is exit -11 or
139) fails the test instead of the test run.  See ``pegasos/_numba/_jit.py``
for the two defects these sequences exposed, and for the third, which two
processes compiling at once would meet (the lock the last test checks).
"""

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .conftest import make_binary

# One fit per layout (dense, CSR with int32 and with int64 indices) in one process.
_SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import scipy.sparse as sp
    from sklearn.datasets import load_digits
    from pegasos import KernelPegasosClassifier, KernelPerceptron, SBPClassifier
    from pegasos._solvers import gram

    X, y = load_digits(return_X_y=True)
    # 700 rows: the kernel engine on threads (from 512), the parallel code of defect 2;
    # "matrix": the solvers on the kernel matrix (700 rows train on it by default)
    if sys.argv[2] == "engine":
        gram.GRAM_ROWS = 0
    X, y = X[:700] / 16.0, (y[:700] % 2) * 2 - 1
    make = {
        "kpeg": lambda: KernelPegasosClassifier(C=10, gamma=0.5, n_epochs=1, random_state=0),
        "sbp": lambda: SBPClassifier(0.1, gamma=0.5, n_iter=200, random_state=0),
        "sbp-bias": lambda: SBPClassifier(0.1, gamma=0.5, n_iter=200, fit_intercept=True,
                                          random_state=0),
        "perc": lambda: KernelPerceptron(gamma=0.5, n_epochs=1, random_state=0),
    }[sys.argv[1]]
    csr = sp.csr_matrix(X)
    csr64 = csr.copy()
    csr64.indices = csr64.indices.astype(np.int64)
    csr64.indptr = csr64.indptr.astype(np.int64)
    for layout in (X, csr, csr64):
        print(sys.argv[1], make().fit(layout, y).score(X, y))
    """
)


# One cold fit and predict; prints the functions of this package it compiled (not loaded).
_COMPILES = textwrap.dedent(
    """
    import json
    from sklearn.datasets import load_digits
    from pegasos import KernelPegasosClassifier
    from pegasos._solvers import gram
    from pegasos.cli.compile import _compile_events

    gram.GRAM_ROWS = 0  # the engine's parallel functions (700 rows: its threads)
    X, y = load_digits(return_X_y=True)
    X, y = X[:700] / 16.0, y[:700] % 2
    with _compile_events() as names:
        KernelPegasosClassifier(n_epochs=1, random_state=0).fit(X, y).predict(X)
    print(json.dumps(sorted({n for n in names if n.startswith("pegasos.")})))
    """
)


def _run(args, cache, cwd=None):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    return subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
@pytest.mark.parametrize(
    "path, sequence",
    [("engine", ("kpeg", "sbp", "sbp")), ("engine", ("sbp", "kpeg", "kpeg")),
     ("engine", ("perc", "sbp-bias", "sbp-bias")), ("matrix", ("kpeg", "sbp", "sbp")),
     ("matrix", ("perc", "sbp-bias", "sbp-bias"))],
    ids=lambda v: "->".join(v) if isinstance(v, tuple) else v,
)
def test_fresh_processes_one_after_another_never_crash(tmp_path, path, sequence):
    script = tmp_path / "fit.py"
    script.write_text(_SCRIPT)
    cache = tmp_path / "cache"
    outputs = []
    for name in sequence:
        done = _run([sys.executable, str(script), name, path], cache)
        assert done.returncode == 0, (name, done.returncode, done.stderr[-2000:])
        outputs.append(done.stdout)
    assert outputs[1] == outputs[2]  # the warm run gives the same models
    (folder,) = list(cache.iterdir())  # one folder of this library's own, by its key
    assert folder.name.startswith("pegasos-")


@pytest.mark.slow
def test_cli_sequence_never_crashes(tmp_path):
    X, y = make_binary(n=80, d=4, seed=2)
    lines = [f"{int(label)} " + " ".join(f"{j + 1}:{v:.6g}" for j, v in enumerate(row))
             for row, label in zip(X, y)]
    data = tmp_path / "small.svm"
    data.write_text("\n".join(lines) + "\n")
    cache = tmp_path / "cache"
    cli = [sys.executable, "-m", "pegasos", "train", "-q"]
    for solver in ("kernel-pegasos", "sbp", "sbp"):
        done = _run(cli + ["-s", solver, str(data), str(tmp_path / "m.model")], cache)
        assert done.returncode == 0, (solver, done.returncode, done.stderr[-2000:])


@pytest.mark.slow
def test_processes_compiling_at_once_share_one_compile(tmp_path):
    """Two processes started together on an empty cache (``pytest -n auto``): each function
    is compiled by one of them and loaded by the other (defect 3: compiling one at once
    could leave a torn parallel entry); a third process then compiles nothing."""
    script = tmp_path / "compiles.py"
    script.write_text(_COMPILES)
    cache = tmp_path / "cache"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    procs = [subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (_, err) in zip(procs, outs):
        assert p.returncode == 0, err[-2000:]
    first, second = (set(json.loads(out.strip().splitlines()[-1])) for out, _ in outs)
    assert "pegasos._numba.kernel_pegasos.kernel_pegasos_blocks" in first | second
    assert not first & second, f"compiled in both processes: {sorted(first & second)}"
    third = _run([sys.executable, str(script)], cache)
    assert third.returncode == 0, third.stderr[-2000:]
    assert json.loads(third.stdout.strip().splitlines()[-1]) == []


@pytest.mark.slow
def test_the_kernels_run_as_plain_python_with_the_jit_disabled():
    """CONTRIBUTING.md's ``NUMBA_DISABLE_JIT=1 pytest tests/test_reference.py``: with the JIT
    off Numba hands ``_jit`` plain functions, which have no ``compile`` to lock (the
    import failed there before), and the compiled functions' pure-Python bodies match
    the references.  Slow: a second pytest in a fresh process (7 s of CPU)."""
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "tests/test_reference.py"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert re.search(r"\b\d+ passed\b", done.stdout), done.stdout[-2000:]


def test_cache_folder_is_keyed_by_every_source_file(tmp_path, monkeypatch):
    from pegasos._numba import _jit

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    first = _jit.cache_dir()
    assert first.parent == tmp_path and first.name == "pegasos-" + _jit.cache_key()
    # a change to any module of the package (here: a copy of it) changes the key
    sources = tmp_path / "src"
    sources.mkdir()
    for path in _jit._HERE.glob("*.py"):
        (sources / path.name).write_bytes(path.read_bytes())
    monkeypatch.setattr(_jit, "_HERE", sources)
    assert _jit.cache_key() == first.name.removeprefix("pegasos-")
    (sources / "rows.py").write_text((sources / "rows.py").read_text() + "\n# edited\n")
    assert _jit.cache_key() != first.name.removeprefix("pegasos-")


def test_only_this_package_is_redirected():
    import numba

    from pegasos._numba import _jit, linear

    assert numba.config.CACHE_DIR == os.environ.get("NUMBA_CACHE_DIR", "")
    locator = linear.pegasos_steps._cache._impl.locator
    assert locator.get_cache_path().startswith(_jit.CACHE_DIR)


def test_read_only_input_and_index_views_compile_nothing_new(tmp_path):
    """A read-only X (a memory map, as joblib hands GridSearchCV's workers) and a model
    whose arrays are memory-mapped are given the compiled code of writable ones: Numba
    types a read-only array apart, so before the rows were made read-only views at the
    boundary, each compiled every solver again (about 10 s a fit, cold)."""
    import joblib
    import numpy as np

    from pegasos import DualSVC, KernelPegasosClassifier, PegasosClassifier
    from pegasos._numba import kernels as kern
    from pegasos._rows import as_rows
    from pegasos._solvers import engine
    from pegasos.cli.compile import _compile_events

    X, y = make_binary(n=120, d=5, seed=50)
    np.save(tmp_path / "X.npy", X)
    mapped = np.load(tmp_path / "X.npy", mmap_mode="r")
    assert not mapped.flags.writeable
    makers = (lambda: KernelPegasosClassifier(n_epochs=1, random_state=0),
              lambda: PegasosClassifier(random_state=0), DualSVC)
    for make in makers:
        expected = make().fit(X, y).decision_function(X)  # compiled or loaded here
        with _compile_events() as names:
            model = make().fit(mapped, y)
            got = model.decision_function(mapped)
            joblib.dump(model, tmp_path / "model.joblib")
            loaded = joblib.load(tmp_path / "model.joblib", mmap_mode="r")
            again = loaded.decision_function(X)
        assert names == [], f"{type(model).__name__} compiled {names} for read-only arrays"
        np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(again, expected)
    rows = as_rows(X)
    points = kern.Points(rows.kernel, 5, np.einsum("ij,ij->i", X, X))
    rbf = kern.Kernel(kern.RBF, 0.5, 0.0, 3, 0.0)
    idx = np.arange(0, 120, 3, dtype=np.int64)
    block = engine.kernel_block(points, idx, rbf)
    with _compile_events() as names:  # a reversed view: copied to contiguous at the boundary
        reversed_block = engine.kernel_block(points, idx[::-1], rbf)
    assert names == []
    # (the same columns at other places of BLAS's product: equal up to its rounding, which
    # may depend on a column's place on some CPUs; within 1e-14 of each other)
    np.testing.assert_allclose(reversed_block, block[:, ::-1], rtol=1e-14, atol=1e-15)


# Cold fits, then every signature of this package's compiled functions that holds a literal.
_LITERALS = textwrap.dedent(
    """
    import importlib, json, pkgutil
    import numpy as np
    from numba.core import types
    from numba.core.registry import CPUDispatcher
    import pegasos._numba
    from pegasos import KernelPegasosClassifier, SBPClassifier
    from pegasos._solvers import gram

    rng = np.random.default_rng(51)
    X = rng.standard_normal((600, 5))  # 600 rows: the threaded engine, one tile and several
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(600) > 0, 1, -1)
    for on_matrix in (True, False):  # on the kernel matrix, then on the engine
        if not on_matrix:
            gram.GRAM_ROWS = gram.PREDICT_ENTRIES = 0
        for model in (KernelPegasosClassifier(n_epochs=1, random_state=0),
                      SBPClassifier(0.1, n_iter=50, random_state=0)):
            model.fit(X, y).decision_function(X[:3])
    dispatchers, literal = 0, []
    for info in pkgutil.iter_modules(pegasos._numba.__path__):
        module = importlib.import_module("pegasos._numba." + info.name)
        for name, obj in vars(module).items():
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == module.__name__:
                dispatchers += 1
                literal += [f"{info.name}.{name}{sig}" for sig in obj.overloads
                            if any(isinstance(a, types.Literal) for a in sig)]
    print(json.dumps([dispatchers, literal]))
    """
)


@pytest.mark.slow
def test_no_function_is_compiled_for_a_literal_argument(tmp_path):
    """A constant passed to a compiled function (``f(..., 0, ...)``, or ``count = 0``
    then ``count = f(..., count)``) is typed ``Literal[int](0)`` and compiles the
    callee once for the literal and once more for int64: the threaded engine's
    one-tile call compiled its tile function twice (1-2 s of a first fit on 512 rows
    or more, 13 s of the cold test run), kernel Pegasos' ``merge`` and ``clear``
    likewise.  Cold fits (an empty cache: a function loaded with its caller from the
    cache is never typed), then no signature of the package's functions holds one."""
    script = tmp_path / "literals.py"
    script.write_text(_LITERALS)
    done = _run([sys.executable, str(script)], tmp_path / "cache")
    assert done.returncode == 0, done.stderr[-2000:]
    dispatchers, literal = json.loads(done.stdout.strip().splitlines()[-1])
    assert dispatchers > 20
    assert literal == [], f"compiled for literal arguments: {literal}"


# One cold SBP fit of each kind of draws; prints the functions of this package each compiled.
_DRAWS = textwrap.dedent(
    """
    import json
    from sklearn.datasets import load_digits
    from pegasos import SBPClassifier
    from pegasos.cli.compile import _compile_events

    X, y = load_digits(return_X_y=True)
    X, y = X[:300] / 16.0, y[:300] % 2
    for biased in (False, True):
        with _compile_events() as names:
            SBPClassifier(0.1, n_iter=50, fit_intercept=biased, random_state=0).fit(X, y)
        print(json.dumps(sorted({n for n in names if n.startswith("pegasos.")})))
    """
)


@pytest.mark.slow
def test_an_sbp_fit_compiles_only_its_own_kind_of_draws(tmp_path):
    """The draws' kind is a type of the plan (``_numba.sbp.UNBIASED``, ``BIASED``): the
    default SBP compiles no sort and no two-level water filling, which the biased one does
    (compiling both had cost the default SBP's first fit seconds)."""
    script = tmp_path / "draws.py"
    script.write_text(_DRAWS)
    done = _run([sys.executable, str(script)], tmp_path / "cache")
    assert done.returncode == 0, done.stderr[-2000:]
    unbiased, biased = (set(json.loads(line)) for line in done.stdout.strip().splitlines())
    two_levels = "pegasos._numba.water_filling.biased_levels_sorted"
    assert "pegasos._numba.sbp.sbp_on_matrix" in unbiased
    assert "pegasos._numba.water_filling.water_level_select" in unbiased
    assert two_levels not in unbiased
    assert {"pegasos._numba.sbp.sbp_on_matrix", two_levels} <= biased
