"""Enormous training sets: linear Pegasos from a stream, against the file's size and peers.

The data are generated (``benchmarks.generate``: RCV1-like rows over 50,000
features, labels of a planted linear model flipped with probability 0.05), at
0.3 and 3 GB by default (``--sizes 300MB 3GB 30GB`` for more), with one test file
of 50,000 rows.  The target test error is the exact SVM's (LIBLINEAR, C = 1 /
(lambda n), tol 1e-3, no intercept) on the smallest file plus half a point, as
in the scaling part; the best possible error (the flipped share) is reported
beside it.  Lambda = 1e-5 for every size.

For each size:

- **Pegasos from the stream** (``PegasosClassifier(lam, n_iter=T).fit(
  SVMLightStream(file))``, 65,536-row shuffle buffer, 16 MB blocks): the smallest
  T of a doubling grid that reaches the target, timed in a fresh process
  (parsing included), with its rows read and peak resident memory.
- **SGDClassifier.partial_fit** (hinge, alpha = lambda) over the same blocks of
  ``read_blocks``, pass after pass until the target: the time, parsing included.
- **Vowpal Wabbit** (hinge, ``--cache_file``; VW's text format made from the file
  outside the timings): the cache's first pass and passes 1, 2, 4, ... until the
  target (VW's own learning rule, no l2), when ``vowpalwabbit`` is installed.
- **In memory**, where the file loads (0.3 and 3 GB): scikit-learn's loader's time,
  then Pegasos (the same grid) and LIBLINEAR on the loaded matrix.

And the first pass's speed on the smallest file: ``read_blocks`` against
scikit-learn's ``load_svmlight_file`` (which must hold the whole file to return
it), and ``pegasos convert``'s.

Usage::

    python -m benchmarks.stream [--sizes 300MB 3GB] [--work DIR]

Writes ``benchmarks/results/stream.{json,md}``; the generated files stay in
``--work`` (default ``benchmarks/.generated``, ignored by git).
"""

import argparse
import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from .common import (
    HERE,
    as_int32,
    environment,
    environment_markdown,
    peer_input,
    record_seconds,
    write_results,
)
from .generate import N_FEATURES, generate

LAM = 1e-5
MARGIN = 0.005
GRID = [2**k * 10_000 for k in range(12)]  # 10,000 to 20 million iterations
REAL_SETS = ("a9a", "ijcnn1", "reuters", "covtype", "fashion")

_CHILD = """
import json, sys, time
from pegasos import PegasosClassifier, load_svmlight
from pegasos.stream import SVMLightStream
train, test, lam, T = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
cache = sys.argv[5] if len(sys.argv) > 5 else None
tic = time.perf_counter()
clf = PegasosClassifier(lam=lam, n_iter=T, fit_intercept=False, random_state=0)
clf.fit(SVMLightStream(train, n_features={n_features}, cache=cache))
seconds = time.perf_counter() - tic
# this process's own peak before the test set's (ru_maxrss would keep the parent's, which
# Linux carries across exec)
status = open("/proc/self/status").read()
peak = int(status.split("VmHWM:")[1].split()[0]) / 1024
Xt, yt = load_svmlight(test, n_features={n_features})
print(json.dumps({{"seconds": seconds, "rows_read": int(clf.n_rows_read_),
                  "test_error": float(1 - clf.score(Xt, yt)), "peak_rss_mb": peak}}))
"""


def _stream_fit(train, test, T, cache=None):
    """A stream fit of T iterations in a fresh process: its time, rows read, error, memory;
    with ``cache``, the stream writes (or uses) that cache, deleted afterwards."""
    code = _CHILD.format(n_features=N_FEATURES)
    done = subprocess.run([sys.executable, "-c", code, train, test, str(LAM), str(T),
                           *([cache] if cache else [])],
                          capture_output=True, text=True, check=True)
    if cache and os.path.exists(cache):
        os.unlink(cache)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _first_reaching(run, target):
    """Runs of the grid, smallest budget first, until one reaches the target."""
    runs = []
    for T in GRID:
        result = {"budget": T, **run(T)}
        runs.append(result)
        if result["test_error"] <= target:
            break
    return runs


def _load_test(test, n_features=N_FEATURES):
    from pegasos import load_svmlight

    return load_svmlight(test, n_features=n_features)


def _sgd_passes(train, Xt, yt, target, max_passes=8, n_features=N_FEATURES, lam=LAM):
    from sklearn.linear_model import SGDClassifier

    from pegasos.stream import read_blocks

    sgd = SGDClassifier(loss="hinge", alpha=lam, fit_intercept=False, random_state=0)
    tic, runs = time.perf_counter(), []
    for p in range(1, max_passes + 1):
        for X, y in read_blocks(train):
            X.resize((X.shape[0], n_features))
            sgd.partial_fit(peer_input(X), y, classes=[-1.0, 1.0])
        error = float(1 - sgd.score(peer_input(Xt), yt))
        runs.append({"passes": p, "seconds": time.perf_counter() - tic, "test_error": error})
        if error <= target:
            break
    return runs


def _vw(train, test, work, target, max_passes=16, n_features=N_FEATURES):
    try:
        from vowpalwabbit import Workspace
    except ImportError:
        return None
    vw_train, vw_test = Path(work) / (Path(train).stem + ".vw"), Path(work) / (
        Path(test).stem + ".vw")
    for src, dst in ((train, vw_train), (test, vw_test)):
        if not dst.exists():  # VW's format: "label | index:value ...", made outside the timings
            subprocess.run(f"sed 's/ / | /' {src} > {dst}.tmp && mv {dst}.tmp {dst}",
                           shell=True, check=True)
    cache = Path(work) / (Path(train).stem + ".vwcache")
    if cache.exists():
        cache.unlink()
    tic = time.perf_counter()
    Workspace(f"--loss_function hinge --quiet --holdout_off --cache_file {cache} "
              f"--data {vw_train}").finish()
    runs = [{"passes": 0, "seconds": time.perf_counter() - tic, "what": "the cache's pass"}]
    passes = 1
    while passes <= max_passes:
        model, pred = Path(work) / "vw.model", Path(work) / "vw.pred"
        tic = time.perf_counter()
        Workspace(f"--loss_function hinge --quiet --holdout_off --passes {passes} "
                  f"--cache_file {cache} -f {model}").finish()
        seconds = time.perf_counter() - tic
        Workspace(f"-t -i {model} --quiet --data {vw_test} -p {pred}").finish()
        _, yt = _load_test(test, n_features)
        error = float(np.mean(np.where(np.loadtxt(pred) > 0, 1.0, -1.0) != yt))
        runs.append({"passes": passes, "seconds": seconds, "test_error": error})
        if error <= target:
            break
        passes *= 2
    return runs


def _in_memory(train, Xt, yt, target=None):
    """Load the file, LIBLINEAR on it, then Pegasos' grid to ``target`` (by default the
    exact SVM's error here plus the margin)."""
    from sklearn.datasets import load_svmlight_file
    from sklearn.svm import LinearSVC

    from pegasos import PegasosClassifier

    tic = time.perf_counter()
    X, y = load_svmlight_file(train, n_features=N_FEATURES)
    load = time.perf_counter() - tic
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tic = time.perf_counter()
        svm = LinearSVC(loss="hinge", C=1.0 / (LAM * X.shape[0]), fit_intercept=False, tol=1e-3,
                        max_iter=1000, random_state=0).fit(as_int32(X), y)
    liblinear = {"seconds": time.perf_counter() - tic,
                 "test_error": float(1 - svm.score(as_int32(Xt), yt))}

    def pegasos(T):
        tic = time.perf_counter()
        clf = PegasosClassifier(lam=LAM, n_iter=T, fit_intercept=False, random_state=0).fit(X, y)
        return {"seconds": time.perf_counter() - tic, "test_error": float(1 - clf.score(Xt, yt))}

    target = liblinear["test_error"] + MARGIN if target is None else target
    return {"load_seconds": load, "n_samples": X.shape[0], "liblinear": liblinear,
            "pegasos": _first_reaching(pegasos, target)}


def _parse_speed(train):
    from sklearn.datasets import load_svmlight_file

    from pegasos.stream import convert, read_blocks

    size = os.path.getsize(train)
    speed = {}
    tic = time.perf_counter()
    load_svmlight_file(train, n_features=N_FEATURES)
    speed["sklearn_load_svmlight_file"] = size / (time.perf_counter() - tic)
    tic = time.perf_counter()
    for _ in read_blocks(train):
        pass
    speed["pegasos_read_blocks"] = size / (time.perf_counter() - tic)
    cache = f"{train}.cache"
    tic = time.perf_counter()
    convert(train, cache)
    speed["pegasos_convert"] = size / (time.perf_counter() - tic)
    os.unlink(cache)
    return {k: v / 1e6 for k, v in speed.items()}  # MB/s


def run(sizes, work, real_sets=REAL_SETS, seeds=range(5), in_memory_max=4 * 10**9,
        peers_max=4 * 10**9):
    from .generate import parse_size

    files = [generate(work, size) for size in sizes]
    Xt, yt = _load_test(files[0]["test"])
    smallest = _in_memory(files[0]["train"], Xt, yt)
    target = smallest["liblinear"]["test_error"] + MARGIN
    rows = []
    for i, (size, meta) in enumerate(zip(sizes, files)):
        train, test = meta["train"], meta["test"]
        row = {"size": size, "bytes": meta["bytes"], "rows": meta["rows"],
               "best_possible_error": meta["test_flipped"]}
        row["stream"] = _first_reaching(lambda T: _stream_fit(train, test, T), target)
        row["stream_cache"] = {"budget": row["stream"][-1]["budget"], **_stream_fit(
            train, test, row["stream"][-1]["budget"], cache=f"{train}.cache")}
        if parse_size(size) <= peers_max:
            row["sgd_partial_fit"] = _sgd_passes(train, Xt, yt, target,
                                                 max_passes=8 if meta["bytes"] < 10**9 else 3)
            row["vowpal_wabbit"] = _vw(train, test, work, target)
        if i == 0:
            row["in_memory"] = smallest
        elif parse_size(size) <= in_memory_max:
            row["in_memory"] = _in_memory(train, Xt, yt, target)
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    real = []
    for name in real_sets:
        try:
            real.append(_real_set(name, work, seeds))
        except FileNotFoundError as exc:  # Fashion-MNIST not installed
            real.append({"set": name, "skipped": str(exc)})
        print(json.dumps(real[-1]), file=sys.stderr, flush=True)
    return {"environment": environment(lam=LAM, seed=0), "target": target,
            "exact_svm_error_smallest": smallest["liblinear"]["test_error"],
            "parse_mb_per_s": _parse_speed(files[0]["train"]), "sizes": rows,
            "real_sets": real}


# --- the project's real sets: the buffer's cost in test error, and the peers ----------


def _real_files(name, work):
    """The set's training and test rows as plain LIBSVM files in ``work`` (labels +-1, so
    that every reader, Vowpal Wabbit's included, reads the same task), and the matrices."""
    from sklearn.datasets import dump_svmlight_file

    from .common import linear_data

    X, y, Xt, yt, lam, note = linear_data(name)
    files = []
    for rows, labels, suffix in ((X, y, "train"), (Xt, yt, "test")):
        path = Path(work) / f"{name}-{suffix}.svm"
        if not path.exists():
            dump_svmlight_file(rows, labels, str(path.with_suffix(".tmp")), zero_based=False)
            path.with_suffix(".tmp").rename(path)
        files.append(str(path))
    return files, (X, y, Xt, yt), lam, note


def _stream_error(train, d, lam, T, seed, buffer_rows, Xt, yt, cache=None):
    from pegasos import PegasosClassifier
    from pegasos.stream import SVMLightStream

    tic = time.perf_counter()
    clf = PegasosClassifier(lam=lam, n_iter=T, fit_intercept=False, random_state=seed)
    clf.fit(SVMLightStream(train, n_features=d, buffer_rows=buffer_rows, cache=cache))
    seconds = time.perf_counter() - tic
    if cache is not None and os.path.exists(cache):
        os.unlink(cache)
    return {"seconds": seconds, "rows_read": int(clf.n_rows_read_),
            "test_error": float(1 - clf.score(Xt, yt))}


def _real_set(name, work, seeds):
    """Test errors of in-memory Pegasos (uniform draws) and of streams with a shuffle
    buffer of the default size, a quarter and a sixteenth of the set (and a sixteenth
    with a cache), at the default budget 10/lambda, over ``seeds``; then the seconds to
    the exact SVM's test error plus half a point of the stream, SGD and VW."""
    from pegasos import PegasosClassifier
    from pegasos.stream import BUFFER_ROWS

    from .common import exact_svm, peer_input

    (train, test), (X, y, Xt, yt), lam, note = _real_files(name, work)
    n, d = X.shape
    T = int(round(10 / lam))
    svm, _ = exact_svm(peer_input(X), y, lam)
    target = float(1 - svm.score(peer_input(Xt), yt)) + MARGIN
    memory = [float(1 - PegasosClassifier(lam=lam, n_iter=T, fit_intercept=False,
                                          random_state=s).fit(X, y).score(Xt, yt))
              for s in seeds]
    buffers = {"default": BUFFER_ROWS, "n/4": max(1, n // 4), "n/16": max(1, n // 16)}
    streams = {label: [_stream_error(train, d, lam, T, s, rows, Xt, yt)["test_error"]
                       for s in seeds] for label, rows in buffers.items()}
    cache = str(Path(work) / f"{name}.cache")
    streams["n/16, cache"] = [_stream_error(train, d, lam, T, s, buffers["n/16"], Xt, yt,
                                            cache=cache)["test_error"] for s in seeds]
    stream = _first_reaching(lambda T: _stream_error(train, d, lam, T, 0, BUFFER_ROWS, Xt, yt),
                             target)
    return {"set": name, "note": note, "n": n, "d": d, "lam": lam, "budget": T,
            "exact_svm_error": target - MARGIN, "target": target, "seeds": list(seeds),
            "in_memory_errors": memory, "stream_errors": streams,
            "buffer_rows": buffers, "to_target": {
                "stream": stream,
                "sgd_partial_fit": _sgd_passes(train, Xt, yt, target, n_features=d, lam=lam),
                "vowpal_wabbit": _vw(train, test, work, target, n_features=d)}}


def _reached(runs, key="seconds"):
    hit = [r for r in runs or [] if "test_error" in r and r["test_error"] <= _TARGET[0]]
    if not hit:
        return "not reached"
    value = hit[0][key]
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"


_TARGET = [0.0]


def markdown(result):
    _TARGET[0] = result["target"]
    lines = ["# Enormous training sets: Pegasos from a stream", "",
             f"Target: test error <= {100 * result['target']:.2f}% (the exact SVM's "
             f"{100 * result['exact_svm_error_smallest']:.2f}% on the smallest file, plus half "
             f"a point); lambda = {LAM:g}. Seconds to the target, parsing included.", "",
             "| file | rows | best possible | stream (s) | rows read | peak RSS (MB) | "
             "SGD partial_fit (s) | VW (s, cache pass + passes) | load (s) | in memory (s) | "
             "LIBLINEAR (s, error) |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in result["sizes"]:
        hit = [s for s in r["stream"] if s["test_error"] <= result["target"]]
        last = hit[0] if hit else r["stream"][-1]
        vw = r.get("vowpal_wabbit", False)
        vw_text = "-" if vw is False else "not installed" if vw is None else (
            f"{vw[0]['seconds']:.1f} + {_reached(vw[1:])}")
        mem = r.get("in_memory")
        lines.append(
            f"| {r['size']} | {r['rows']} | {100 * r['best_possible_error']:.2f}% | "
            f"{_reached(r['stream'])} | {last['rows_read']} | {last['peak_rss_mb']:.0f} | "
            f"{_reached(r['sgd_partial_fit']) if 'sgd_partial_fit' in r else '-'} | {vw_text} | "
            + (f"{mem['load_seconds']:.1f} | {_reached(mem['pegasos'])} | "
               f"{mem['liblinear']['seconds']:.1f}, {100 * mem['liblinear']['test_error']:.2f}% |"
               if mem else "- | - | - |"))
    speed = result["parse_mb_per_s"]
    lines += ["", "First pass over the smallest file (MB/s of text): " + ", ".join(
        f"{k} {v:.1f}" for k, v in speed.items()), "",
        "With `cache=` (the first pass also writes the cache; draws are uniform over it once "
        "the pass is complete), at the budget that reached the target: " + "; ".join(
            f"{r['size']}: {r['stream_cache']['seconds']:.1f} s, error "
            f"{100 * r['stream_cache']['test_error']:.2f}%" for r in result["sizes"]), ""]
    lines += _real_markdown(result.get("real_sets", []))
    return "\n".join(lines + environment_markdown(result["environment"])) + "\n"


def _real_markdown(real):
    if not real:
        return []
    done = [r for r in real if "skipped" not in r]
    labels = list(done[0]["stream_errors"]) if done else []
    lines = ["## The project's real sets", "",
             "Test error (mean over the seeds, in %) at the default budget 10/lambda, no "
             "intercept: in memory (uniform draws) and streamed with shuffle buffers of the "
             "default 65,536 rows (which holds each of these sets: the in-memory fit, bit for "
             "bit), a quarter and a sixteenth of the set, and a sixteenth with a cache "
             "(uniform draws after the first pass); in brackets, the difference to in memory.",
             "", "| set | n | lambda | budget | in memory | " + " | ".join(labels) + " |",
             "|---|---:|---:|---:|---:|" + "---:|" * len(labels)]
    for r in done:
        mem = float(np.mean(r["in_memory_errors"]))
        cells = [f"{100 * np.mean(v):.2f} ({100 * (np.mean(v) - mem):+.2f})"
                 for v in r["stream_errors"].values()]
        lines.append(f"| {r['set']} | {r['n']} | {r['lam']:g} | {r['budget']} | "
                     f"{100 * mem:.2f} | " + " | ".join(cells) + " |")
    lines += ["", "Seconds to the exact SVM's test error plus half a point (parsing "
              "included; the stream with its default buffer, one seed):", "",
              "| set | target | stream (s) | SGD partial_fit (s) | VW (s, cache pass + passes) |",
              "|---|---:|---:|---:|---:|"]
    for r in done:
        _TARGET[0] = r["target"]
        runs = r["to_target"]
        vw = runs["vowpal_wabbit"]
        vw_text = "not installed" if vw is None else (
            f"{vw[0]['seconds']:.2f} + {_reached(vw[1:])}")
        lines.append(f"| {r['set']} | {100 * r['target']:.2f}% | {_reached(runs['stream'])} | "
                     f"{_reached(runs['sgd_partial_fit'])} | {vw_text} |")
    lines += [f"- {r['set']}: skipped ({r['skipped']})" for r in real if "skipped" in r]
    return lines + [""]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", default=None,
                        help="file sizes (default 300MB 3GB; with --quick 20MB 40MB)")
    parser.add_argument("--work", type=Path, default=HERE / ".generated")
    parser.add_argument("--out-dir", type=Path, default=HERE / "results")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--data-dir", type=Path, help="(unused: the data are generated)")
    parser.add_argument("--repeats", type=int, default=1,
                        help="(each time is one run: the grid's runs show the spread)")
    args = parser.parse_args(argv)
    sizes = args.sizes or (["20MB", "40MB"] if args.quick else ["300MB", "3GB"])
    tic = time.perf_counter()
    result = run(sizes, args.work, real_sets=("a9a",) if args.quick else REAL_SETS,
                 seeds=range(2) if args.quick else range(5))
    result["environment"].update(repeats=args.repeats, quick=args.quick)
    write_results(args.out_dir, "stream", result, markdown)
    record_seconds(args.out_dir, {"stream": time.perf_counter() - tic})
    return 0


if __name__ == "__main__":
    sys.exit(main())
