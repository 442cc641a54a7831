"""Seed 002's figure: kernel SVM solvers side by side: test error against kernel evaluations and time.

SBP, kernel Pegasos and the (averaged) kernel Perceptron from this library,
LIBSVM's SMO through ``sklearn.svm.SVC``, and SVM-Light 6.02 (built from the
sources in PyPI's ``svmlight`` sdist when pip and gcc can; one fit, stopped
after SVMLIGHT_TIMEOUT seconds), in one process on the same data:

* ijcnn1 (all 49,990 training rows), rbf gamma = 1, C = 1;
* Adult (a9a, 32,561 rows), rbf gamma = 0.05, C = 1;
* Fashion-MNIST, T-shirt/top vs shirt (12,000 rows, 784 pixels in [0, 1]),
  rbf with SVC's gamma="scale", C = 1 -- when Debian's dataset-fashion-mnist is
  installed (``apt-get install dataset-fashion-mnist``), else skipped.

lambda = 1/(C n) for kernel Pegasos.  SBP's nu is the one that matches C,
computed from SVC's own solution (nu = mean hinge / ||w||, section 2.2 of the
notes; not timed); "sbp_from_C" is ``SBPClassifier(C=C)``, which estimates nu
itself from one pass of kernel Pegasos (timed, its evaluations counted).
Every solver runs on the blocked engine with its default batch of 16 examples
(kernel Pegasos also with 64).  Budgets are passes over the data (draws per
example and problem), each a fresh fit.
Test accuracy is measured on a fixed sample of at most 10,000 test rows (the
same for every solver), because predicting with thousands of support vectors on
all of ijcnn1's 91,701 test rows would dominate the run.  SMO's kernel
evaluations are not reported by LIBSVM, so SVC is a point on the time axis and
a horizontal line on the evaluations axis.

Usage::

    python -m benchmarks.kernel [--quick] [--repeats 3] [--datasets ijcnn1 adult fashion]

Writes ``benchmarks/results/kernel.{json,md,png}``.
"""

import math
import statistics
import sys
import time
import warnings

import numpy as np

from pegasos import KernelPegasosClassifier, KernelPerceptron, SBPClassifier
from pegasos._files import write_atomic

from .common import (
    SVMLight,
    as_int32,
    environment_markdown,
    fashion_mnist_binary,
    load,
    run_part,
)

SVMLIGHT_TIMEOUT = 1200  # seconds: SVM-Light's fit is stopped after this and reported so
ACCURACY_MARGIN = 0.003  # the target: within 0.3 point of SVC's accuracy
TEST_ROWS = 10_000
DATASETS = ["ijcnn1", "adult", "fashion"]


def data(name, data_dir, quick):
    if name == "ijcnn1":
        X, y = load(data_dir / "ijcnn1.trn.bz2")
        Xt, yt = load(data_dir / "ijcnn1.tst.bz2", n_features=X.shape[1])
        X, Xt, gamma = X.toarray(), Xt.toarray(), 1.0  # 22 dense-ish features
    elif name == "adult":
        X, y = load(data_dir / "a9a.xz")
        Xt, yt = load(data_dir / "a9a.t.xz", n_features=X.shape[1])
        X, Xt, gamma = as_int32(X), as_int32(Xt), 0.05
    else:
        X, y, Xt, yt = fashion_mnist_binary()
        gamma = 1.0 / (X.shape[1] * X.var())
    if quick:
        keep = np.random.default_rng(0).choice(X.shape[0], min(X.shape[0], 5000), replace=False)
        X, y = X[keep], y[keep]
    rows = np.random.default_rng(1).permutation(Xt.shape[0])[:TEST_ROWS]
    return X, y, Xt[rows], yt[rows], float(gamma)


def svm_nu(svc, X, y):
    """nu = mean hinge / ||w|| of a fitted binary SVC (blocks of the SV Gram matrix)."""
    from sklearn.metrics.pairwise import rbf_kernel

    target = np.where(y == svc.classes_[1], 1.0, -1.0)
    hinge = np.maximum(0.0, 1.0 - target * svc.decision_function(X)).mean()
    coef = svc.dual_coef_  # sparse when SVC was trained on sparse data
    coef = np.asarray(coef.toarray() if hasattr(coef, "toarray") else coef)[0]
    sv, w2 = svc.support_vectors_, 0.0
    for start in range(0, sv.shape[0], 2000):
        block = rbf_kernel(sv[start : start + 2000], sv, gamma=svc.gamma)
        w2 += float(coef[start : start + 2000] @ (block @ coef))
    return float(hinge / math.sqrt(w2))


def svmlight_run(name, C, gamma, X, y, Xt, yt):
    """SVM-Light on the same data and kernel: one fit (it is slow), or why it was skipped."""
    import tempfile

    try:
        with tempfile.TemporaryDirectory() as tmp:
            light = SVMLight(C, tmp, gamma=gamma, timeout=SVMLIGHT_TIMEOUT).prepare(X, y, Xt, yt)
            tic = time.perf_counter()
            light.fit(X, y)
            seconds = time.perf_counter() - tic
            if light.timed_out_:
                return {"timed_out": True, "seconds": seconds}
            record = {"timed_out": False, "seconds": seconds,
                      "test_accuracy": light.score(Xt, yt),
                      "support_vectors": int(len(light.support_))}
    except FileNotFoundError as exc:
        print(f"skipping SVM-Light: {exc}", file=sys.stderr)
        return {"skipped": str(exc)}
    print(f"{name} svmlight: {record}", file=sys.stderr)
    return record


def run(make, X, y, Xt, yt, repeats):
    """Fit ``make()`` ``repeats`` times (the same seed: the same model); score the last.

    Returns the record and the last fitted estimator.
    """
    from sklearn.exceptions import ConvergenceWarning

    times = []
    for _ in range(repeats):
        est = make()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # the smallest SBP budgets
            tic = time.perf_counter()
            est.fit(X, y)
            times.append(time.perf_counter() - tic)
    return {
        "seconds": statistics.median(times),
        "seconds_min": min(times),
        "seconds_max": max(times),
        "repeats": repeats,
        "kernel_evals": getattr(est, "n_kernel_evals_", None),
        "test_accuracy": float(est.score(Xt, yt)),
        "support_vectors": int(len(est.support_)),
    }, est


def bench(name, data_dir, quick, repeats):
    from sklearn.svm import SVC

    X, y, Xt, yt, gamma = data(name, data_dir, quick)
    n = X.shape[0]
    C = 1.0
    base, svc = run(lambda: SVC(C=C, gamma=gamma), X, y, Xt, yt, repeats)
    nu = svm_nu(svc, X, y)
    light = svmlight_run(name, C, gamma, X, y, Xt, yt)
    budgets = {  # passes: draws per example (and problem)
        "sbp": [0.1, 0.25, 0.5, 1.0] + ([] if quick else [2.0]),
        "sbp_from_C": [0.5, 1.0] + ([] if quick else [2.0]),
        "kernel_pegasos": [0.25, 0.5, 1.0, 2.0] + ([] if quick else [5.0, 10.0, 20.0]),
        "kernel_pegasos_k64": [1.0, 2.0] + ([] if quick else [5.0]),
        "perceptron": [0.5, 1.0, 2.0] + ([] if quick else [5.0, 10.0]),
    }
    k = 16  # the default batch size of the three estimators
    make = {
        "sbp": lambda b: SBPClassifier(nu, gamma=gamma, n_iter=max(1, int(b * n / k)),
                                       random_state=0),
        "sbp_from_C": lambda b: SBPClassifier(C=C, gamma=gamma, n_iter=max(1, int(b * n / k)),
                                              random_state=0),
        "kernel_pegasos": lambda b: KernelPegasosClassifier(
            C=C, gamma=gamma, n_epochs=b, random_state=0
        ),
        "kernel_pegasos_k64": lambda b: KernelPegasosClassifier(
            C=C, gamma=gamma, n_epochs=b, batch_size=64, random_state=0
        ),
        "perceptron": lambda b: KernelPerceptron(gamma=gamma, n_epochs=b, random_state=0),
    }
    # warm-up: compile / load the kernels outside the timings (a random 200
    # rows: files are often sorted by label)
    few = np.random.default_rng(2).choice(n, 200, replace=False)
    for solver in make:
        make[solver](0.01).fit(X[few], y[few])
    out = {
        "dataset": name, "n_train": n, "n_test_sample": Xt.shape[0], "n_features": X.shape[1],
        "gamma": gamma, "C": C, "lam": 1.0 / (C * n), "nu": nu, "seed": 0, "svc": base,
        "svmlight": light, "solvers": {},
    }
    for solver, grid in budgets.items():
        runs = []
        for b in grid:
            r, _ = run(lambda: make[solver](b), X, y, Xt, yt, repeats)
            r["budget"] = b
            runs.append(r)
            print(f"{name} {solver} {b}: {r}", file=sys.stderr)
        target = base["test_accuracy"] - ACCURACY_MARGIN
        hit = next((r for r in runs if r["test_accuracy"] >= target), None)
        out["solvers"][solver] = {
            "budget_unit": "passes",
            "runs": runs,
            "seconds_to_target": None if hit is None else hit["seconds"],
            "kernel_evals_to_target": None if hit is None else hit["kernel_evals"],
            "fraction_of_svc_time": None if hit is None else hit["seconds"] / base["seconds"],
        }
    return out


def markdown(result):
    lines = [
        "# Kernel solvers side by side",
        "",
        "Generated by `python -m benchmarks` (this part: `python -m benchmarks.kernel`). Times: "
        f"median (min-max) of {result['environment']['repeats']} fits, seed 0. "
        "Test accuracy on a fixed sample of at "
        f"most {TEST_ROWS} test rows (the same for all solvers). 'target': within 0.3 point of "
        "SVC's accuracy. SBP's nu matches C (from SVC's solution).",
        "",
    ]
    for ds in result["datasets"]:
        s = ds["svc"]
        lines += [
            f"## {ds['dataset']} (n={ds['n_train']}, d={ds['n_features']}, gamma={ds['gamma']:.4g}, "
            f"C={ds['C']:g}, nu={ds['nu']:.4g})",
            "",
            f"SVC (LIBSVM SMO): {100 * s['test_accuracy']:.2f}% in {s['seconds']:.2f} s "
            f"({s['seconds_min']:.2f}-{s['seconds_max']:.2f}), "
            f"{s['support_vectors']} support vectors.",
            "",
            _svmlight_line(ds.get("svmlight")),
            "",
            "| solver | budget | seconds | kernel evaluations | test accuracy | SVs |",
            "|---|---|---|---|---|---|",
        ]
        for solver, info in ds["solvers"].items():
            for r in info["runs"]:
                lines.append(
                    f"| {solver} | {r['budget']} {info['budget_unit']} | {r['seconds']:.2f} "
                    f"({r['seconds_min']:.2f}-{r['seconds_max']:.2f}) | "
                    f"{r['kernel_evals']:.3g} | {100 * r['test_accuracy']:.2f}% | "
                    f"{r['support_vectors']} |"
                )
        lines += ["", "| solver | time to target | fraction of SVC's time |", "|---|---|---|"]
        for solver, info in ds["solvers"].items():
            t, frac = info["seconds_to_target"], info["fraction_of_svc_time"]
            reached = "not reached" if t is None else f"{t:.2f} s"
            fraction = "-" if t is None else f"{frac:.2f}"
            lines.append(f"| {solver} | {reached} | {fraction} |")
        lines.append("")
    lines += environment_markdown(result["environment"])
    return "\n".join(lines) + "\n"


def _svmlight_line(light):
    if light is None or "skipped" in light:
        return "SVM-Light: skipped" + (f" ({light['skipped']})" if light else "") + "."
    if light["timed_out"]:
        return f"SVM-Light 6.02: stopped after {light['seconds']:.0f} s without finishing."
    return (f"SVM-Light 6.02 (built from source; one fit, its time includes reading its "
            f"input file): {100 * light['test_accuracy']:.2f}% in {light['seconds']:.2f} s, "
            f"{light['support_vectors']} support vectors.")


def plot(result, path):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import NullFormatter

    sets = result["datasets"]
    fig = Figure(figsize=(10, 3.6 * len(sets)), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(sets), 2, squeeze=False)
    for row, ds in enumerate(sets):
        svc_err = 100 * (1 - ds["svc"]["test_accuracy"])
        for col, (key, label) in enumerate((("kernel_evals", "kernel evaluations"),
                                            ("seconds", "training time (s)"))):
            ax = axes[row, col]
            for solver, info in ds["solvers"].items():
                xs = [r[key] for r in info["runs"]]
                ax.plot(xs, [100 * (1 - r["test_accuracy"]) for r in info["runs"]], marker="o",
                        markersize=3, label=solver.replace("_", " "))
            if key == "seconds":
                ax.plot([ds["svc"]["seconds"]], [svc_err], marker="*", markersize=12,
                        linestyle="none", color="k", label="SVC (SMO)")
                light = ds.get("svmlight") or {}
                if "test_accuracy" in light:
                    ax.plot([light["seconds"]], [100 * (1 - light["test_accuracy"])],
                            marker="P", markersize=10, linestyle="none", color="tab:gray",
                            label="SVM-Light")
            ax.axhline(svc_err, color="k", linestyle=":", linewidth=1)
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())  # minor labels overlap
            ax.set_xlabel(label)
            ax.set_ylabel("test error (%)")
            ax.set_title(f"{ds['dataset']} (n={ds['n_train']})", fontsize="medium")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize="small")
    fig.suptitle("Test error against kernel evaluations and time (dotted: SVC's test error)")
    write_atomic(path, lambda f: fig.savefig(f, format="png", dpi=100))


def main(argv=None):
    return run_part(argv, doc=__doc__, stem="kernel", datasets=DATASETS, bench=bench,
                    markdown=markdown, plot=plot, quick_help="5,000-row training samples")


if __name__ == "__main__":
    sys.exit(main())
