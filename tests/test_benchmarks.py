"""The benchmark runner: its pieces, and one short part end to end.

Timings are never asserted here; these tests keep ``python -m benchmarks``
working (its data loading, its bookkeeping, the files it writes).
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from benchmarks import common, minibatch, scaling
from benchmarks.__main__ import PARTS

ROOT = Path(__file__).resolve().parent.parent
needs_shared = pytest.mark.skipif(not common.SHARED_DATA.is_dir(),
                                  reason="../shared/data is absent")


def test_spread():
    assert common.spread([3.0, 1.0, 2.0]) == {"median": 2.0, "min": 1.0, "max": 3.0, "n": 3}


@needs_shared
def test_covtype_split_and_labels():
    X, y, Xt, yt, lam, note = common.linear_data("covtype")
    assert X.shape[0] == 15_000 and Xt.shape[0] == 5_000 and X.shape[1] == Xt.shape[1] == 54
    assert set(np.unique(y)) == set(np.unique(yt)) == {-1.0, 1.0}
    assert lam == common.LINEAR_SETS["covtype"][2] and "75/25" in note
    # the same split every time
    X2, *_ = common.linear_data("covtype")
    assert (X != X2).nnz == 0


def test_time_to_target_stops_at_first_budget_that_reaches_it():
    from sklearn.datasets import make_classification

    from pegasos import PegasosClassifier

    X, y = make_classification(n_samples=400, n_features=5, random_state=0)
    y = np.where(y == 1, 1.0, -1.0)
    budgets = [1, 10, 100, 1000, 10_000]

    def factory(b):
        return PegasosClassifier(lam=1e-2, n_iter=b, fit_intercept=False, random_state=0)

    errors = [1 - factory(b).fit(X, y).score(X, y) for b in budgets]
    target = min(errors) + 1e-12
    got = scaling.time_to_target("pegasos", "iterations", budgets, factory, X, y, X, y,
                                 target, repeats=3)
    first = next(b for b, e in zip(budgets, errors) if e <= target)
    assert got["budget"] == first and got["seconds"]["n"] == 3
    assert [t["budget"] for t in got["tried"]] == budgets[: budgets.index(first) + 1]
    never = scaling.time_to_target("pegasos", "iterations", budgets, factory, X, y, X, y,
                                   -1.0, repeats=3)
    assert never["budget"] is None and never["seconds"] is None
    assert len(never["tried"]) == len(budgets)


def test_spread_over_k_needs_every_k():
    runs = [{"output": "last_iterate", "kT": kt, "batch_size": k,
             "relative_suboptimality": 0.1 * k, "test_error": 0.01 * k}
            for kt in (1024, 4096) for k in minibatch.BATCH_SIZES if kt >= k]
    rows = minibatch._spread_over_k(runs)
    # k = 1000 runs at both k*T values here, so both rows are complete
    assert [r["kT"] for r in rows] == [1024, 4096]
    assert rows[0]["subopt_max_over_min"] == pytest.approx(1000.0)
    incomplete = [r for r in runs if not (r["kT"] == 1024 and r["batch_size"] == 10)]
    assert [r["kT"] for r in minibatch._spread_over_k(incomplete)] == [4096]


def test_a_part_run_alone_records_its_time_beside_the_others(tmp_path):
    common.record_seconds(tmp_path, {"kernel": 12.0})
    common.record_seconds(tmp_path, {"compile": 3.0}, this_run={"seconds": 3.5})
    common.record_seconds(tmp_path, {"kernel": 10.0})
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["parts_seconds"] == {"kernel": 10.0, "compile": 3.0}
    assert run["total_seconds"] == 13.0 and run["this_run"] == {"seconds": 3.5}


def test_runner_table_has_every_part_with_both_times():
    from benchmarks import runner

    result = {"environment": {"python": "3.11"},
              "runner": {"parts": PARTS, "quick_seconds": {p: 2.0 for p in PARTS[1:]},
                         "quick_wall_seconds": 30.0, "full_seconds": {PARTS[0]: 100.0},
                         "skipped": [PARTS[0]]}}
    md = runner.markdown(result)
    assert f"| {PARTS[0]} | skipped | 100 |" in md
    for part in PARTS[1:]:
        assert f"| {part} | 2 | not recorded |" in md
    assert "| **all** | **30** (the process" in md and "some missing" in md
    assert f"Skipped in the quick run (a peer or data set missing): {PARTS[0]}." in md


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """``python -m benchmarks --quick`` (every part, minutes) into a temporary folder."""
    if not common.SHARED_DATA.is_dir():
        pytest.skip("../shared/data is absent")
    out = tmp_path_factory.mktemp("bench")
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--out-dir", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, proc.stderr


@pytest.mark.slow
def test_runner_quick_writes_every_result(quick_run):
    out, log = quick_run
    run = json.loads((out / "run.json").read_text())
    ran = set(run["parts_seconds"])
    skipped = {part for part in PARTS if f"skipping {part}:" in log}  # a peer not installed
    assert ran | skipped == set(PARTS) and not ran & skipped
    files = {"linear": ["linear.json", "linear.md"],
             "minibatch": ["minibatch.json", "minibatch.md", "minibatch.png"],
             "scaling": ["scaling.json", "scaling.md", "scaling.png"],
             "kernel": ["kernel.json", "kernel.md", "kernel.png"],
             "kernel_engine": ["kernel_engine.json", "kernel_engine.md"],
             "kernel_multiclass": ["kernel_multiclass.json", "kernel_multiclass.md"],
             "kernel_exact": ["kernel_exact.json", "kernel_exact.md"],
             "dualsvc_profile": ["dualsvc_profile.json", "dualsvc_profile.md"],
             "libsvm_problems": ["libsvm_problems.json", "libsvm_problems.md"],
             "sbp_cache": ["sbp_cache.json", "sbp_cache.md"],
             "dask_scaling": ["dask.json", "dask.md"],
             "dask_kernel": ["dask_kernel.json", "dask_kernel.md"],
             "input_checks": ["input_checks.json", "input_checks.md"],
             "startup": ["startup.json", "startup.md"],
             "calibration": ["calibration.json", "calibration.md"],
             "certificate": ["certificate.json", "certificate.md"],
             "compile": ["compile.json", "compile.md"],
             "stream": ["stream.json", "stream.md"],
             "dask_stream": ["dask_stream.json", "dask_stream.md"]}
    for part in ran:
        for name in files[part]:
            assert (out / name).stat().st_size > 0, name
    for part in ran & {"minibatch", "scaling", "kernel"}:
        assert (out / f"{part}.png").read_bytes()[:4] == b"\x89PNG"
    # every result records its environment, repeats and seed
    for part in ran - {"dask_scaling"}:
        env = json.loads((out / f"{part}.json").read_text())["environment"]
        assert env["repeats"] == 1 and env["quick"] is True and env["seed"] == 0
        assert {"python", "numpy", "scikit-learn", "numba", "cpu_count"} <= set(env)


@pytest.mark.slow
def test_runner_quick_minibatch_result(quick_run):
    out, _ = quick_run
    result = json.loads((out / "minibatch.json").read_text())
    ds = {d["dataset"]: d for d in result["datasets"]}
    assert set(ds) == set(minibatch.DATASETS)
    for d in ds.values():
        assert {r["batch_size"] for r in d["runs"]} == set(minibatch.BATCH_SIZES)
        assert all(r["kT"] == r["batch_size"] * r["iterations"] for r in d["runs"])
        assert all(r["relative_suboptimality"] > -1e-6 for r in d["runs"])
    assert (out / "minibatch.md").read_text().startswith("# Mini-batch size")


@pytest.mark.slow
def test_runner_quick_linear_result(quick_run):
    out, _ = quick_run
    result = json.loads((out / "linear.json").read_text())
    for ds in result["datasets"]:
        assert {"pegasos", "liblinear", "sgd", "sgd_averaged", "perceptron"} <= set(ds["solvers"])
        for runs in (s["runs"] for s in ds["solvers"].values()):
            assert all(r["seconds_min"] <= r["seconds_median"] <= r["seconds_max"] for r in runs)
            assert all(0.0 <= r["test_error"] <= 1.0 for r in runs)


def test_the_generator_is_seeded_and_its_best_error_is_the_flipped_share(tmp_path):
    from benchmarks import generate
    from pegasos import load_svmlight

    first = generate.write_rows(tmp_path / "a.svm", n_rows=3000, seed=5)
    again = generate.write_rows(tmp_path / "b.svm", n_rows=3000, seed=5)
    assert first == again and (tmp_path / "a.svm").read_bytes() == (tmp_path / "b.svm").read_bytes()
    other = generate.write_rows(tmp_path / "c.svm", n_rows=3000, seed=5, stream=1)
    assert (tmp_path / "c.svm").read_bytes() != (tmp_path / "a.svm").read_bytes()
    X, y = load_svmlight(tmp_path / "a.svm", n_features=generate.N_FEATURES)
    rows, size, flipped = first
    assert rows == X.shape[0] == 3000 and size == (tmp_path / "a.svm").stat().st_size
    assert 40 < X.nnz / rows < 110 and np.allclose(np.sqrt(X.multiply(X).sum(axis=1)), 1,
                                                    atol=1e-4)
    planted = np.where(X @ generate.planted_model(5) > 0, 1, -1)
    assert np.mean(planted != y) == flipped / rows and 0.03 < flipped / rows < 0.07
    assert other[0] == 3000
