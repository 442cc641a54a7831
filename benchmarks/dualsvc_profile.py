"""Where `DualSVC`'s fit time goes, beside scikit-learn-intelex's SVC (issue 47's first table).

    python -m benchmarks.dualsvc_profile [--quick] [--repeats 1] [--datasets covtype ...]

Data sets (the regime where intelex comes closest: many support vectors, few features):

- ``covtype``: the shared covtype subset, class 2 against the rest, its 15,000 training
  rows of the 75/25 split of :func:`benchmarks.common.linear_data` (54 features), dense,
  C = 10;
- ``ijcnn1-csr``: ijcnn1's 49,990 training rows, CSR as loaded (22 features), C = 10;
- ``ijcnn1``: the same rows dense, C = 1;
- ``adult``: Adult (a9a), its 32,561 training rows, CSR as loaded (123 binary
  features, 14 stored per row), C = 1 (where ``benchmarks.kernel_exact`` found
  ``DualSVC`` nearest intelex's time).

gamma = "scale" everywhere.  Each fit of ``DualSVC`` (float64 rows, as intelex's)
runs with timers around the working-set solver's parts (wrappers set on the module's
functions for this process only; nothing in the library changes): the kernel
columns (computing and storing them), the gather of the working set's block, the
inner SMO solve, the gradient update (``F += K delta``), the selection (violations
and candidates), and the rest of the solver's loop (Python between them); the setup
before the solver and the model's assembly after it are the fit's remainder.
Iterations, kernel columns computed and support vectors beside intelex's fit time,
its support vectors and test accuracy.  ``--quick``: 3,000 training rows.

Writes ``benchmarks/results/dualsvc_profile.{json,md}``.
"""

import sys
import time
import warnings
from collections import defaultdict

import numpy as np

from .common import environment_markdown, linear_data, run_part, spread

DATASETS = ["covtype", "ijcnn1-csr", "ijcnn1", "adult"]
C_OF = {"covtype": 10.0, "ijcnn1-csr": 10.0, "ijcnn1": 1.0, "adult": 1.0}
QUICK_ROWS = 3000
PARTS = ["kernel columns", "block gather", "inner solve", "gradient update", "selection"]


def data(name, data_dir, quick):
    source = {"covtype": "covtype", "adult": "a9a"}.get(name, "ijcnn1")
    X, y, Xt, yt, _, note = linear_data(source, data_dir)
    if name in ("covtype", "ijcnn1"):
        X, Xt = X.toarray(), Xt.toarray()
    if quick:
        X, y = X[:QUICK_ROWS], y[:QUICK_ROWS]
    return X, y, Xt, yt, note


class _Timers:
    """Wrappers that add each call's time to its part, set on the solver's module."""

    def __init__(self):
        self.seconds = defaultdict(float)
        self.saved = []

    def wrap(self, owner, name, part):
        original = getattr(owner, name)

        def timed(*args, **kwargs):
            tic = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds[part] += time.perf_counter() - tic

        self.saved.append((owner, name, original))
        setattr(owner, name, timed)

    def __enter__(self):
        from pegasos._solvers import working_set as ws

        self.wrap(ws._Columns, "bring", "kernel columns")
        self.wrap(ws._Columns, "block", "block gather")
        self.wrap(ws, "solve_block", "inner solve")
        self.wrap(ws._Columns, "add", "gradient update")
        self.wrap(ws, "violations", "selection")
        self.wrap(ws, "candidates", "selection")
        self.wrap(ws, "union_by_pairs", "selection")
        self.wrap(ws, "run", "solver")
        return self

    def __exit__(self, *exc):
        for owner, name, original in reversed(self.saved):
            setattr(owner, name, original)


def _ours(X, y, Xt, yt, C, repeats):
    from pegasos import DualSVC
    from pegasos._solvers.gram import engine_only

    with engine_only():  # (the engine's paths for these rows compiled before the clock)
        DualSVC(C=C).fit(X[:300], y[:300])
    fits = []
    for _ in range(repeats):
        with _Timers() as timers:
            model = DualSVC(C=C)
            tic = time.perf_counter()
            model.fit(X, y)
            fits.append(time.perf_counter() - tic)
    parts = {part: timers.seconds[part] for part in PARTS}
    parts["solver loop, the rest"] = timers.seconds["solver"] - sum(parts.values())
    parts["setup and assembly"] = fits[-1] - timers.seconds["solver"]
    return {"solver": "DualSVC", "fit_seconds": spread(fits), "parts_seconds": parts,
            "iterations": int(np.sum(model.n_iter_)),
            "kernel_columns": int(model.n_kernel_columns_),
            "support_vectors": int(len(model.support_)),
            "test_accuracy": float(np.mean(model.predict(Xt) == yt))}


def _intelex(X, y, Xt, yt, C, repeats):
    try:
        from sklearnex.svm import SVC
    except ImportError:
        print("scikit-learn-intelex is not installed: skipped", file=sys.stderr)
        return None
    fits = []
    for _ in range(repeats):
        model = SVC(C=C)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tic = time.perf_counter()
            model.fit(X, y)
            fits.append(time.perf_counter() - tic)
    return {"solver": "scikit-learn-intelex SVC", "fit_seconds": spread(fits),
            "support_vectors": int(len(model.support_)),
            "test_accuracy": float(np.mean(model.predict(Xt) == yt))}


def bench(name, *, data_dir, repeats, quick):
    X, y, Xt, yt, note = data(name, data_dir, quick)
    C = C_OF[name]
    runs = [_ours(X, y, Xt, yt, C, repeats)]
    peer = _intelex(X, y, Xt, yt, C, repeats)
    if peer is not None:
        runs.append(peer)
        runs[0]["x_intelex"] = (runs[0]["fit_seconds"]["median"]
                                / peer["fit_seconds"]["median"])
    print(f"{name}: {runs}", file=sys.stderr, flush=True)
    return {"dataset": name, "note": note, "C": C, "n_train": int(X.shape[0]),
            "n_features": int(X.shape[1]), "sparse": bool(hasattr(X, "indices")), "runs": runs}


def markdown(result):
    lines = ["# Where DualSVC's fit time goes, beside scikit-learn-intelex's SVC", "",
             "Seconds of the last of the repeats by part (timers around the working-set "
             "solver's functions); fit times are medians.", "",
             "| data | fit (s) | x intelex | " + " | ".join(PARTS)
             + " | solver loop, the rest | setup and assembly | iterations | columns | SVs "
             "| accuracy | intelex fit (s) | intelex SVs | intelex accuracy |",
             "|---|---:|---:|" + "---:|" * (len(PARTS) + 2) + "---:|---:|---:|---:|---:|---:|"
             "---:|"]
    for d in result["datasets"]:
        ours = d["runs"][0]
        peer = d["runs"][1] if len(d["runs"]) > 1 else None
        parts = ours["parts_seconds"]
        cells = [f"{d['dataset']} ({d['n_train']} x {d['n_features']}"
                 f"{', CSR' if d['sparse'] else ''}, C = {d['C']:g})",
                 f"{ours['fit_seconds']['median']:.2f}",
                 f"{ours['x_intelex']:.2f}x" if peer else "",
                 *(f"{parts[p]:.2f}" for p in [*PARTS, "solver loop, the rest",
                                               "setup and assembly"]),
                 str(ours["iterations"]), str(ours["kernel_columns"]),
                 str(ours["support_vectors"]), f"{100 * ours['test_accuracy']:.2f}%"]
        cells += ([f"{peer['fit_seconds']['median']:.2f}", str(peer["support_vectors"]),
                   f"{100 * peer['test_accuracy']:.2f}%"] if peer else ["", "", ""])
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    return "\n".join(lines + environment_markdown(result["environment"])) + "\n"


def main(argv=None):
    return run_part(argv, doc=__doc__, stem="dualsvc_profile", datasets=DATASETS, bench=bench,
                    markdown=markdown, quick_help=f"{QUICK_ROWS:,} training rows")


if __name__ == "__main__":
    sys.exit(main())
