"""Scaling out from shards: DaskPegasosClassifier's workers read LIBSVM shards themselves.

One generated training set (``benchmarks.generate``: RCV1-like rows over 50,000
features, a planted linear model's labels flipped with probability 0.05; 400,000
rows, about 0.4 GB, or 8,000 with ``--quick``) is split into 8 shard files of
consecutive lines, with a test file of 50,000 rows (2,000) from the generator's
test seeds.  A LocalCluster of 2 worker processes (1 thread each), started
before the timings, fits ``DaskPegasosClassifier(...).fit(SVMLightStream(
"part-*.svm"))``: each worker parses its shards, and the driver never holds
the rows.  Lambda = 1e-5, no intercept (as the ``stream`` part).

Each distributed fit is set beside the in-memory ``PegasosClassifier`` on the
same rows (the unsplit file, loaded outside its timing) with the same lambda
and budget:

- parameter mixing (``mode="average"``, local k = 1): 1, 2 and 4 epochs, against
  the in-memory fit of as many epochs of k = 1;
- mini-batch rounds (``mode="minibatch"``, k = 1000): 100 and 300 rounds, against
  the in-memory fit of as many iterations of k = 1000.

Reported: test errors, seconds (the shard fit's include reading the shards),
rounds, time per round (from the fit's callback: the rounds after the first,
reading excluded), and the bytes a round moves, computed from the arrays'
``nbytes`` (not measured): the weights sent to every worker, and what
comes back (mixing: every part's model, gathered by the driver; mini-batch:
the sum of the tree reduction, whose additions move at most one sum per part
between workers).

Usage::

    python -m benchmarks.dask_stream [--quick] [--repeats 3]

Writes ``benchmarks/results/dask_stream.{json,md}``; the generated files stay in
``benchmarks/.generated`` (ignored by git).
"""

import contextlib
import json
import os
import sys
import time

import numpy as np

from .common import HERE, environment_markdown, run_part, spread
from .generate import N_FEATURES, write_rows

LAM = 1e-5
SHARDS = 8
WORKERS = 2
K = 1000
SIZES = {False: (400_000, 50_000), True: (8_000, 2_000)}  # (train, test) rows by --quick
EPOCHS = {False: [1, 2, 4], True: [1, 2]}
ROUNDS = {False: [100, 300], True: [10, 20]}


def shards(work, n_rows, test_rows):
    """The generated set, split into SHARDS files of consecutive lines, once per size."""
    folder = work / f"dask_stream-{n_rows}"
    meta_path = folder / "meta.json"
    if meta_path.exists():
        return json.loads(meta_path.read_text())
    folder.mkdir(parents=True, exist_ok=True)
    train, test = folder / "train.svm", folder / "test.svm"
    rows, written, _ = write_rows(train, n_rows=n_rows, seed=0)
    write_rows(test, n_rows=test_rows, seed=0, stream=1)
    bounds = np.linspace(0, rows, SHARDS + 1).astype(int)
    with open(train, "rb") as f:
        for i in range(SHARDS):
            part = folder / f"part-{i}.svm"
            with open(f"{part}.tmp", "wb") as out:
                for _ in range(bounds[i + 1] - bounds[i]):
                    out.write(f.readline())
            os.replace(f"{part}.tmp", part)
    meta = {"train": str(train), "test": str(test), "pattern": str(folder / "part-*.svm"),
            "rows": rows, "bytes": written, "test_rows": test_rows,
            "shard_rows": np.diff(bounds).tolist()}
    meta_path.write_text(json.dumps(meta, indent=1))
    return meta


def bytes_per_round(mode, n_problems=1):
    """What a round moves, from the arrays' sizes: the weights W (n_problems x (d+1)
    float64) go to each worker once (scattered, above ``BROADCAST_BYTES``; else inside
    each part's task); mixing gathers each part's W, mini-batch the tree's sum (its
    additions move at most one sum per part between workers)."""
    from pegasos.dask_backend import BROADCAST_BYTES

    w = np.zeros((n_problems, N_FEATURES + 1)).nbytes
    sent = (WORKERS if w > BROADCAST_BYTES else SHARDS) * w
    if mode == "average":
        return {"to_workers": sent, "to_driver": SHARDS * w, "between_workers_at_most": 0}
    return {"to_workers": sent, "to_driver": w, "between_workers_at_most": (SHARDS - 1) * w}


def _shard_fit(make, pattern, Xt, yt, repeats):
    """Median time of ``repeats`` fits on the shards, the rounds' times from the callback."""
    from pegasos.stream import SVMLightStream

    times, per_round = [], []
    for _ in range(repeats):
        stamps = []
        est = make(lambda report: stamps.append(time.perf_counter()))
        tic = time.perf_counter()
        est.fit(SVMLightStream(pattern, n_features=N_FEATURES))
        times.append(time.perf_counter() - tic)
        if len(stamps) > 1:
            per_round.append((stamps[-1] - stamps[0]) / (len(stamps) - 1))
    s = spread(times)
    return {"seconds": s["median"], "seconds_min": s["min"], "seconds_max": s["max"],
            "rounds": int(est.n_rounds_), "rows_read": int(est.n_rows_read_),
            "seconds_per_round": float(np.median(per_round)) if per_round else None,
            "test_error": float(1 - est.score(Xt, yt))}


def _in_memory(make, X, y, Xt, yt, repeats):
    from .dask_scaling import timed

    seconds, error = timed(make, X, y, Xt, yt, repeats)
    return {"seconds": seconds["median"], "test_error": float(error)}


def bench(name, data_dir, repeats, quick, cluster):
    from pegasos import PegasosClassifier, load_svmlight
    from pegasos.dask_backend import DaskPegasosClassifier
    from pegasos.stream import SVMLightStream

    meta = shards(HERE / ".generated", *SIZES[quick])
    tic = time.perf_counter()
    X, y = load_svmlight(meta["train"], n_features=N_FEATURES)
    load_seconds = time.perf_counter() - tic
    Xt, yt = load_svmlight(meta["test"], n_features=N_FEATURES)
    common = dict(lam=LAM, fit_intercept=False, random_state=0)
    dask = dict(common, scheduler=cluster.scheduler_address)
    budgets = [("average", {"n_epochs": e}) for e in EPOCHS[quick]] + [
        ("minibatch", {"n_iter": r, "batch_size": K}) for r in ROUNDS[quick]]
    for mode, budget in (("average", {"n_epochs": 1}), ("minibatch", {"n_iter": 2})):  # warm-up
        DaskPegasosClassifier(mode=mode, **budget, **dask).fit(SVMLightStream(meta["pattern"]))
    PegasosClassifier(n_iter=10, **common).fit(X, y)
    runs = []
    for mode, budget in budgets:
        run = {"mode": mode, **budget, "bytes_per_round": bytes_per_round(mode)}
        run["shards"] = _shard_fit(lambda cb: DaskPegasosClassifier(
            mode=mode, callback=cb, **budget, **dask), meta["pattern"], Xt, yt, repeats)
        memory_budget = dict(budget) if mode == "minibatch" else dict(budget, batch_size=1)
        run["in_memory"] = _in_memory(lambda: PegasosClassifier(**memory_budget, **common),
                                      X, y, Xt, yt, repeats)
        runs.append(run)
        print(json.dumps(run), file=sys.stderr, flush=True)
    return {"dataset": name, "n_train": meta["rows"], "train_bytes": meta["bytes"],
            "n_test": meta["test_rows"], "n_features": N_FEATURES, "lam": LAM,
            "shards": SHARDS, "shard_rows": meta["shard_rows"], "workers": WORKERS,
            "batch_size": K, "in_memory_load_seconds": load_seconds, "runs": runs}


def _mb(n):
    return f"{n / 1e6:.2f}"


def markdown(result):
    lines = ["# Scaling out from shards: the workers read LIBSVM files", "",
             "Generated by `python -m benchmarks` (this part: `python -m benchmarks.dask_stream`). "
             f"Times: median of {result['environment']['repeats']} fits, seed 0. "
             f"LocalCluster of {WORKERS} worker processes (1 thread each) started before the "
             "timings; each shard fit reads its shards on the workers (reading included in its "
             "seconds, not in its seconds per round). The in-memory fit has the same lambda and "
             "budget, on the rows loaded beforehand. Bytes per round are computed from the "
             "arrays' sizes, not measured.", ""]
    for ds in result["datasets"]:
        lines += [f"## {ds['dataset']}: {ds['n_train']} rows ({_mb(ds['train_bytes'])} MB) in "
                  f"{ds['shards']} shards, {ds['n_test']} test rows, d={ds['n_features']}, "
                  f"lambda={ds['lam']:g}", "",
                  f"In-memory load of the unsplit file: {ds['in_memory_load_seconds']:.2f} s.", "",
                  "| mode | budget | shard fit (s) | rounds | s/round | MB to workers / round | "
                  "MB to driver / round | MB between workers / round (at most) | test error "
                  "(shards) | in memory (s) | test error (in memory) |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in ds["runs"]:
            s, m, b = r["shards"], r["in_memory"], r["bytes_per_round"]
            budget = (f"{r['n_epochs']} epoch{'s' * (r['n_epochs'] != 1)}" if r["mode"] == "average"
                      else f"{r['n_iter']} rounds of k={r['batch_size']}")
            per_round = "-" if s["seconds_per_round"] is None else f"{s['seconds_per_round']:.3f}"
            lines.append(
                f"| {r['mode']} | {budget} | {s['seconds']:.2f} | {s['rounds']} | {per_round} | "
                f"{_mb(b['to_workers'])} | {_mb(b['to_driver'])} | "
                f"{_mb(b['between_workers_at_most'])} | {100 * s['test_error']:.2f}% | "
                f"{m['seconds']:.2f} | {100 * m['test_error']:.2f}% |")
        lines.append("")
    lines += environment_markdown(result["environment"])
    return "\n".join(lines) + "\n"


@contextlib.contextmanager
def _cluster():
    from distributed import LocalCluster

    with LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as cluster:
        yield {"cluster": cluster}


def main(argv=None):
    return run_part(argv, doc=__doc__, stem="dask_stream", datasets=["generated"], bench=bench,
                    markdown=markdown, resources=_cluster)


if __name__ == "__main__":
    sys.exit(main())
