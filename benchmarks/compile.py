"""What a fresh install's first fit costs: Numba compiling the solvers (issue 27, measured first).

Each estimator's first ``fit`` and ``predict`` on small data (scikit-learn's
digits, 8 against the rest: 1,797 x 64, pixels / 16) run in a fresh process
with an empty Numba cache (``NUMBA_CACHE_DIR`` a new folder), for each input
kind: dense float64, dense float32 and CSR float64 (int32 indices).  The same
process then fits again (warm: the code is in memory), and a second fresh
process fits once more against the cache the first one filled (what every
later run of the installed package pays).  Numba's compile events
(``numba.core.event``, ``numba:compile``) give each compiled function's own
compile time (its callees' compiles, nested inside it, subtracted), summed
over the cases in which it compiled.

Usage::

    python -m benchmarks.compile [--quick]

``--quick``: PegasosClassifier and KernelPegasosClassifier on dense float64
only.  Writes ``benchmarks/results/compile.{json,md}``.
"""

import json
import os
import subprocess
import sys
import tempfile

from .common import HERE, environment_markdown, run_part

ESTIMATORS = ["PegasosClassifier", "KernelPegasosClassifier", "SBPClassifier", "DualSVC",
              "KernelPerceptron"]
KINDS = ["dense float64", "dense float32", "csr float64"]

CHILD = r"""
import json, sys, time
tic = time.perf_counter()
import numpy as np
import scipy.sparse as sp
import numba.core.event as event
import pegasos
from sklearn.datasets import load_digits
estimator, kind = sys.argv[1], sys.argv[2]
cls = getattr(pegasos, estimator)
X, y = load_digits(return_X_y=True)
X, y = X / 16.0, np.where(y == 8, 1, -1)
if kind == "dense float32":
    X = X.astype(np.float32)
elif kind == "csr float64":
    X = sp.csr_matrix(X)
    X.indices, X.indptr = X.indices.astype(np.int32), X.indptr.astype(np.int32)
imported = time.perf_counter() - tic
out = {"import_seconds": imported}
with event.install_recorder("numba:compile") as recorder:
    tic = time.perf_counter()
    model = cls(random_state=0).fit(X, y)
    out["first_fit_seconds"] = time.perf_counter() - tic
    tic = time.perf_counter()
    model.predict(X)
    out["first_predict_seconds"] = time.perf_counter() - tic
tic = time.perf_counter()
cls(random_state=0).fit(X, y)
out["warm_fit_seconds"] = time.perf_counter() - tic
tic = time.perf_counter()
model.predict(X)
out["warm_predict_seconds"] = time.perf_counter() - tic
# each function's own compile time: its span less the spans of the compiles nested in it
own, stack = {}, []
for stamp, ev in recorder.buffer:
    if ev.is_start:
        stack.append([stamp, 0.0])
        continue
    start, nested = stack.pop()
    span = stamp - start
    if stack:
        stack[-1][1] += span
    fn = ev.data["dispatcher"].py_func
    name = f"{fn.__module__.replace('pegasos._numba.', '')}.{fn.__qualname__}"
    own[name] = own.get(name, 0.0) + span - nested
out["compile_seconds"] = own
print(json.dumps(out))
"""


def _child(estimator, kind, cache):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    done = subprocess.run([sys.executable, "-c", CHILD, estimator, kind], env=env,
                          capture_output=True, text=True, timeout=1800, cwd=HERE.parent)
    if done.returncode != 0:
        raise RuntimeError(f"{estimator} on {kind} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def bench(name, *, data_dir, repeats, quick):
    estimators = ESTIMATORS[:2] if quick else ESTIMATORS
    kinds = KINDS[:1] if quick else KINDS
    cases = []
    for estimator in estimators:
        for kind in kinds:
            with tempfile.TemporaryDirectory() as cache:
                cold = _child(estimator, kind, cache)
                cached = _child(estimator, kind, cache)
            cases.append({"estimator": estimator, "data": kind, "cold": cold,
                          "cached": cached})
            print(f"{estimator}, {kind}: first fit {cold['first_fit_seconds']:.1f} s cold, "
                  f"{cached['first_fit_seconds']:.2f} s from the cache", file=sys.stderr)
    functions = {}
    for case in cases:
        for fn, seconds in case["cold"]["compile_seconds"].items():
            functions.setdefault(fn, []).append(seconds)
    ranked = sorted(({"function": fn, "seconds": sum(s), "cases": len(s)}
                     for fn, s in functions.items()), key=lambda r: -r["seconds"])
    return {"dataset": name, "cases": cases, "functions": ranked}


def markdown(result):
    (d,) = result["datasets"]
    lines = [
        "# Compile time: each estimator's first fit in a fresh process",
        "",
        "digits, 8 against the rest (1,797 x 64). *cold*: an empty Numba cache; *cached*: a "
        "second fresh process with the cache the first filled; *warm*: the same process, "
        "fitting again. Seconds.",
        "",
        "| estimator | data | cold: first fit | first predict | compiling (fit and predict) "
        "| cached: first fit | warm fit | import |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for c in d["cases"]:
        cold, cached = c["cold"], c["cached"]
        compiling = sum(cold["compile_seconds"].values())
        lines.append(
            f"| {c['estimator']} | {c['data']} | {cold['first_fit_seconds']:.1f} | "
            f"{cold['first_predict_seconds']:.2f} | {compiling:.1f} | "
            f"{cached['first_fit_seconds']:.2f} | {cold['warm_fit_seconds']:.3f} | "
            f"{cold['import_seconds']:.2f} |")
    total = sum(f["seconds"] for f in d["functions"])
    lines += [
        "",
        f"## Compiled functions by compile time (own time, summed over the cold cases: "
        f"{total:.0f} s in all)",
        "",
        "| function | seconds | cases compiled in |",
        "|---|---:|---:|",
    ]
    lines += [f"| `{f['function']}` | {f['seconds']:.1f} | {f['cases']} |"
              for f in d["functions"][:30]]
    return "\n".join(lines + [""] + environment_markdown(result["environment"])) + "\n"


def main(argv=None):
    return run_part(argv, doc=__doc__, stem="compile", datasets=["digits"], bench=bench,
                    markdown=markdown)


if __name__ == "__main__":
    sys.exit(main())
