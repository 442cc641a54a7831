"""Seed 000's claim: time to a fixed test error as the training set grows.

"Pegasos' runtime should actually decrease with the size of the training set"
(Shalev-Shwartz & Srebro 2008, as the seed reports it).  On nested random
subsamples of ijcnn1 and of Fashion-MNIST T-shirt vs shirt (10%, 20%, 50% and
100% of the training set: a 10x range; one permutation with seed 0), with
lambda fixed per data set (the linear table's), each solver is fitted at a
grid of budgets, smallest first, until its test error (on the full test set)
reaches the target; that fit is then repeated (``--repeats`` times in all) and
the median, min and max time reported.  The solvers: Pegasos (the default
estimator; budgets in iterations, the same grid for every n), LIBLINEAR
(passes) and SGDClassifier plain and averaged (epochs; its smallest budget is
one pass).  No intercept, as in the linear table.

Two targets, each one test error for all sizes: "loose", the exact SVM's
(LIBLINEAR, tol 1e-6) at the worst of the sizes plus 0.5 point, which every
size can reach; and "tight", the exact SVM's at the full training set plus 0.5
point, which the smaller subsamples may not reach at all (those sizes are
marked and skipped: not even the exact SVM gets there).

A fit also costs what does not depend on the budget: validating the input (a
scan for NaN/inf is O(nnz)), copying it to the layout the solver wants.  For
Pegasos that cost is measured separately (a fit of one iteration) and
reported beside the total, because the claim is about the solver.

Usage::

    python -m benchmarks.scaling [--quick] [--repeats 3]

Writes ``benchmarks/results/scaling.{json,md,png}``.
"""

import sys
import time
import warnings

import numpy as np

from pegasos._files import write_atomic

from .common import (
    environment_markdown,
    exact_svm,
    linear_data,
    peer_input,
    run_part,
    spread,
)

FRACTIONS = [0.1, 0.2, 0.5, 1.0]
DATASETS = ["ijcnn1", "fashion"]
MARGIN = 0.005


# Budget grids, smallest first, in steps of about sqrt(2)
_HALF_OCTAVES = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024]


def solvers(lam, n):
    from sklearn.linear_model import SGDClassifier
    from sklearn.svm import LinearSVC

    from pegasos import PegasosClassifier

    return {
        "pegasos": ("iterations", sorted({round(2 ** (e / 2)) for e in range(8, 45)}),
                    lambda b: PegasosClassifier(lam=lam, n_iter=b, fit_intercept=False,
                                                random_state=0)),
        "liblinear": ("passes", _HALF_OCTAVES,
                      lambda b: LinearSVC(loss="hinge", C=1.0 / (lam * n), fit_intercept=False,
                                          tol=1e-12, max_iter=b, random_state=0)),
        "sgd": ("epochs", _HALF_OCTAVES[:14],
                lambda b: SGDClassifier(loss="hinge", alpha=lam, max_iter=b, tol=None,
                                        fit_intercept=False, random_state=0)),
        "sgd_averaged": ("epochs", _HALF_OCTAVES[:14],
                         lambda b: SGDClassifier(loss="hinge", alpha=lam, max_iter=b, tol=None,
                                                 fit_intercept=False, average=True,
                                                 random_state=0)),
    }


def _timed_fit(est, X, y):
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        tic = time.perf_counter()
        est.fit(X, y)
        return time.perf_counter() - tic


def exact_error(X, y, Xt, yt, lam):
    svm, _ = exact_svm(X, y, lam)
    return 1.0 - svm.score(peer_input(Xt), yt)


def time_to_target(name, unit, budgets, factory, X, y, Xt, yt, target, repeats):
    Xs, Xts = (X, Xt) if name == "pegasos" else (peer_input(X), peer_input(Xt))
    tried = []
    for b in budgets:
        est = factory(b)
        seconds = [_timed_fit(est, Xs, y)]
        error = 1.0 - est.score(Xts, yt)
        tried.append({"budget": b, "test_error": error, "seconds": seconds[0]})
        if error <= target:
            # the same seed gives the same model: the repeats only re-time it
            seconds += [_timed_fit(factory(b), Xs, y) for _ in range(repeats - 1)]
            return {"budget_unit": unit, "budget": b, "test_error": error,
                    "seconds": spread(seconds), "tried": tried}
    return {"budget_unit": unit, "budget": None, "test_error": None, "seconds": None,
            "tried": tried}


def bench(name, data_dir, repeats, quick):
    from pegasos import PegasosClassifier

    X, y, Xt, yt, lam, source = linear_data(name, data_dir)
    if quick:
        Xt, yt = Xt[:5000], yt[:5000]
    perm = np.random.default_rng(0).permutation(X.shape[0])
    sizes = [int(round(f * X.shape[0])) for f in (FRACTIONS[:3] if quick else FRACTIONS)]
    subsets = {n: np.sort(perm[:n]) for n in sizes}
    exact = {n: exact_error(X[idx], y[idx], Xt, yt, lam) for n, idx in subsets.items()}
    targets = {"loose": max(exact.values()) + MARGIN, "tight": exact[sizes[-1]] + MARGIN}
    PegasosClassifier(lam=lam, n_iter=10).fit(X[perm[:200]], y[perm[:200]])  # warm-up (JIT)
    out = {"dataset": name, "source": source, "n_test": Xt.shape[0], "n_features": X.shape[1],
           "lam": lam, "seed": 0, "exact_test_error": {str(n): e for n, e in exact.items()},
           "targets": {}}
    for tname, target in targets.items():
        rows = []
        for n, idx in subsets.items():
            Xn, yn = X[idx], y[idx]
            row = {"n_train": n, "exact_test_error": exact[n], "reachable": exact[n] <= target,
                   "solvers": {}}
            rows.append(row)
            if not row["reachable"]:
                continue
            row["pegasos_setup_seconds"] = spread(
                [_timed_fit(PegasosClassifier(lam=lam, n_iter=1, fit_intercept=False,
                                              random_state=0), Xn, yn) for _ in range(repeats)])
            for sname, (unit, budgets, factory) in solvers(lam, n).items():
                got = time_to_target(sname, unit, budgets, factory, Xn, yn, Xt, yt, target,
                                     repeats)
                row["solvers"][sname] = got
                print(f"scaling {name} {tname} n={n} {sname}: {got['budget']} {unit}, "
                      f"{_fmt_seconds(got['seconds'])} ms", file=sys.stderr)
        out["targets"][tname] = {"test_error": target, "sizes": rows,
                                 "growth_smallest_to_largest": _growth(rows)}
    return out


def _growth(rows):
    """Time to target at the largest n / at the smallest n that can reach it, per solver."""
    rows = [r for r in rows if r["reachable"]]
    first, last = rows[0]["solvers"], rows[-1]["solvers"]
    out = {}
    for sname in first:
        a, b = first[sname]["seconds"], last[sname]["seconds"]
        out[sname] = None if a is None or b is None else b["median"] / a["median"]
    return out


def _fmt_seconds(s):
    if s is None:
        return "not reached"
    return f"{1e3 * s['median']:.1f} ({1e3 * s['min']:.1f}-{1e3 * s['max']:.1f})"


def markdown(result):
    lines = ["# Time to a fixed test error as the training set grows (seed 000)", "",
             "Generated by `python -m benchmarks` (this part: `python -m benchmarks.scaling`). "
             "Nested random subsamples (seed 0) of the training set; test error on the test "
             f"set. Times in milliseconds: median (min-max) of {result['environment']['repeats']} "
             "fits from scratch at the smallest budget of the grid that reaches the target. "
             "'Pegasos setup' is the time of a one-iteration fit (input validation and copies), "
             "included in Pegasos' total.", ""]
    for ds in result["datasets"]:
        lines += [f"## {ds['dataset']} (lambda={ds['lam']:g}, d={ds['n_features']}, "
                  f"{ds['n_test']} test rows)", ""]
        for tname, tg in ds["targets"].items():
            names = list(next(r for r in tg["sizes"] if r["reachable"])["solvers"])
            lines += [f"Target '{tname}': test error {100 * tg['test_error']:.2f}%.", "",
                      "| n | exact SVM error | " + " | ".join(f"{s} (ms)" for s in names)
                      + " | Pegasos setup (ms) | budgets used |",
                      "|---|---|" + "---|" * len(names) + "---|---|"]
            for row in tg["sizes"]:
                head = f"| {row['n_train']:,} | {100 * row['exact_test_error']:.2f}% | "
                if not row["reachable"]:
                    lines.append(head + " | ".join(["-"] * len(names))
                                 + " | - | not reachable: the exact SVM's error is above |")
                    continue
                used = ", ".join(f"{s}: {row['solvers'][s]['budget']} "
                                 f"{row['solvers'][s]['budget_unit']}" for s in names)
                lines.append(head + " | ".join(_fmt_seconds(row["solvers"][s]["seconds"])
                                               for s in names)
                             + f" | {_fmt_seconds(row['pegasos_setup_seconds'])} | {used} |")
            growth = ", ".join(f"{s}: {'-' if g is None else f'{g:.2f}x'}"
                               for s, g in tg["growth_smallest_to_largest"].items())
            lines += ["", "Time at the largest n / time at the smallest n that reaches the "
                      f"target: {growth}.", ""]
    lines += environment_markdown(result["environment"])
    return "\n".join(lines) + "\n"


def plot(result, path):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    panels = [(ds, tname, tg) for ds in result["datasets"] for tname, tg in ds["targets"].items()]
    fig = Figure(figsize=(5 * len(panels), 7.5), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(2, len(panels), squeeze=False)
    for col, (ds, tname, tg) in enumerate(panels):
        sizes = [row for row in tg["sizes"] if row["reachable"]]
        ns = [row["n_train"] for row in sizes]
        top, bottom = axes[0, col], axes[1, col]
        for sname in sizes[0]["solvers"]:
            pts = [(n, row["solvers"][sname]) for n, row in zip(ns, sizes)]
            pts = [(n, got) for n, got in pts if got["seconds"] is not None]
            if not pts:
                continue
            secs = [got["seconds"] for _, got in pts]
            top.errorbar([n for n, _ in pts], [s["median"] for s in secs],
                         yerr=[[s["median"] - s["min"] for s in secs],
                               [s["max"] - s["median"] for s in secs]],
                         marker="o", markersize=4, capsize=2, label=sname.replace("_", " "))
            # examples processed: Pegasos' iterations (k = 1), passes or epochs times n
            bottom.plot([n for n, _ in pts],
                        [got["budget"] * (1 if got["budget_unit"] == "iterations" else n)
                         for n, got in pts],
                        marker="o", markersize=4, label=sname.replace("_", " "))
        setup = [row["pegasos_setup_seconds"]["median"] for row in sizes]
        top.plot(ns, setup, linestyle="--", color="grey", label="Pegasos setup (1 iteration)")
        top.set_ylabel("time to target test error (s)")
        bottom.set_ylabel("examples processed to target")
        top.set_title(f"{ds['dataset']}, {tname} target {100 * tg['test_error']:.2f}% "
                      f"(lambda={ds['lam']:g})", fontsize="medium")
        for ax in (top, bottom):
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("training set size n")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize="small")
    fig.suptitle("Time to a fixed test error against training set size")
    write_atomic(path, lambda f: fig.savefig(f, format="png", dpi=90))


def main(argv=None):
    return run_part(argv, doc=__doc__, stem="scaling", datasets=DATASETS, bench=bench,
                    markdown=markdown, plot=plot,
                    quick_help="10-50%% of the training set, 5,000 test rows")


if __name__ == "__main__":
    sys.exit(main())
