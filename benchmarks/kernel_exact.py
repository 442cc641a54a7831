"""SVC's model, faster: DualSVC against SVC, scikit-learn-intelex's SVC and SVC on a subsample.

    python -m benchmarks.kernel_exact [--quick] [--repeats 1] [--datasets fashion10 ...]

Data sets: ``fashion10`` (Fashion-MNIST, 10 classes, all 60,000 training and
10,000 test rows, pixels / 255, rbf, gamma = "scale", C = 10), the binary
sets of :mod:`benchmarks.kernel` at C = 1 (ijcnn1, Adult, Fashion-MNIST
T-shirt/shirt; 10,000 test rows each), and issue 47's two of
:mod:`benchmarks.dualsvc_profile` at C = 10, gamma = "scale" (many support vectors of
a cheap kernel): ``covtype`` (the shared covtype subset, class 2 against the rest,
15,000 training rows, 54 features, dense) and ``ijcnn1-csr`` (ijcnn1's 49,990 rows,
CSR as loaded).  Every solver runs in this process on
the same data: fit time, predict time, accuracy, support vectors, kernel
columns and evaluations (ours), tracemalloc's peak (NumPy's allocations;
LIBSVM's and oneDAL's own are not seen) and, on the binary sets, each model's
dual objective against a DualSVC converged to tol = 1e-5.  Kernel Pegasos
after 1, 2, 5 (and 10) passes and DualSVC at tol 0.1, 0.01 and its default
1e-3 draw accuracy against time (``kernel_exact.png``).  ``scikit-learn-intelex`` is a peer when installed
(``pip install scikit-learn-intelex``); it is skipped with a note otherwise.
Ours gets float32 rows on the dense sets (the engine multiplies in float32).
``PEGASOS_BENCH_SKIP`` (labels separated by ";") leaves solvers out.

Writes ``benchmarks/results/kernel_exact.{json,md,png}``.
"""

import os
import sys
import time
import tracemalloc
import warnings

import numpy as np

from pegasos._files import write_atomic

from .common import FASHION_MNIST, _idx, environment_markdown, run_part
from .kernel import data as binary_data

DATASETS = ["fashion10", "ijcnn1", "adult", "fashion", "covtype", "ijcnn1-csr"]
#: issue 47's sets, as :mod:`benchmarks.dualsvc_profile` loads them
PROFILE_SETS = ("covtype", "ijcnn1-csr")
REFERENCE = "DualSVC, tol=1e-5, float64 (the converged reference)"
# the models whose dual_coef_ are dual variables of this problem (in the box), on all rows
DUAL_MODELS = ("SVC (LIBSVM)", "scikit-learn-intelex SVC", "DualSVC")


def data(name, data_dir, quick):
    """(X, y, X_test, y_test, C) with gamma = "scale" resolved by the estimators."""
    if name == "fashion10":
        X = _idx(FASHION_MNIST / "train-images-idx3-ubyte.gz").reshape(-1, 784) / 255.0
        y = _idx(FASHION_MNIST / "train-labels-idx1-ubyte.gz").astype(np.int64)
        Xt = _idx(FASHION_MNIST / "t10k-images-idx3-ubyte.gz").reshape(-1, 784) / 255.0
        yt = _idx(FASHION_MNIST / "t10k-labels-idx1-ubyte.gz").astype(np.int64)
        if quick:
            return X[:3000], y[:3000], Xt[:2000], yt[:2000], 10.0, "scale"
        return X, y, Xt, yt, 10.0, "scale"
    if name in PROFILE_SETS:
        from pegasos._kernel_base import _kernel_args  # gamma="scale" as the fit resolves it

        from .dualsvc_profile import C_OF
        from .dualsvc_profile import data as profile_data

        X, y, Xt, yt, _ = profile_data(name, data_dir, quick)
        return X, y, Xt, yt, C_OF[name], _kernel_args("rbf", "scale", 0.0, 3, X).gamma
    X, y, Xt, yt, gamma = binary_data(name, data_dir, quick)
    return X, y, Xt, yt, 1.0, gamma


def solvers(C, gamma, n, dense, multiclass):
    """{label: (make, rows used, our dtype?)}."""
    from sklearn.svm import SVC

    from pegasos import DualSVC, KernelPegasosClassifier

    ours = np.float32 if dense else np.float64
    out = {"SVC (LIBSVM)": (lambda: SVC(C=C, gamma=gamma), n, np.float64)}
    try:
        from sklearnex.svm import SVC as IntelSVC

        out["scikit-learn-intelex SVC"] = (lambda: IntelSVC(C=C, gamma=gamma), n, np.float64)
    except ImportError:
        print("scikit-learn-intelex is not installed: its SVC is skipped", file=sys.stderr)
    out["SVC on half the rows"] = (lambda: SVC(C=C, gamma=gamma), n // 2, np.float64)
    out["SVC on a quarter"] = (lambda: SVC(C=C, gamma=gamma), n // 4, np.float64)
    for epochs in ((1, 2, 5) if multiclass else (1, 2, 5, 10)):
        # kernel Pegasos' default is 10 C passes: 10 at C = 1, 100 at C = 10 (too long here)
        out[f"kernel Pegasos, {epochs} epochs"] = (
            lambda epochs=epochs: KernelPegasosClassifier(C=C, gamma=gamma, n_epochs=epochs,
                                                          random_state=0), n, ours)
    for tol in (0.1, 0.01):
        out[f"DualSVC, tol={tol:g}"] = (lambda tol=tol: DualSVC(C=C, gamma=gamma, tol=tol), n, ours)
    if not multiclass:  # the converged model whose dual objective the others are held to
        out[REFERENCE] = (lambda: DualSVC(C=C, gamma=gamma, tol=1e-5, cache_size=2048), n,
                          np.float64)
    if multiclass:
        out["DualSVC (default: one-vs-one, cache_size=200, SVC's)"] = (
            lambda: DualSVC(C=C, gamma=gamma), n, ours)
        for mb in (200, 8192):
            out[f"DualSVC one-vs-rest, cache_size={mb}"] = (
                lambda mb=mb: DualSVC(C=C, gamma=gamma, cache_size=mb, multi_class="ovr"),
                n, ours)
    else:
        out["DualSVC (default: cache_size=200, SVC's)"] = (
            lambda: DualSVC(C=C, gamma=gamma), n, ours)
        out["DualSVC, cache_size=2048"] = (
            lambda: DualSVC(C=C, gamma=gamma, cache_size=2048), n, ours)
    skip = {s.strip() for s in os.environ.get("PEGASOS_BENCH_SKIP", "").split(";") if s.strip()}
    return {label: v for label, v in out.items() if label not in skip}


def bench(name, data_dir, quick, repeats):
    from sklearn.exceptions import ConvergenceWarning

    from pegasos import DualSVC, KernelPegasosClassifier

    X, y, Xt, yt, C, gamma = data(name, data_dir, quick)
    dense = isinstance(X, np.ndarray)
    two = np.concatenate([np.flatnonzero(y == c)[:100] for c in np.unique(y)[:2]])
    warm = X[two].astype(np.float32) if dense else X[two]
    from pegasos._solvers.gram import engine_only

    with engine_only():  # compile the engine's paths these rows take (or load the cache)
        DualSVC().fit(warm, y[two]).predict(warm)
        KernelPegasosClassifier(n_epochs=1).fit(warm, y[two]).predict(warm)
    subsample = np.random.default_rng(0).permutation(len(y))
    record = {"dataset": name, "n_train": len(y), "n_test": len(yt), "C": C,
              "gamma": gamma if isinstance(gamma, str) else float(gamma), "runs": []}
    multiclass = len(np.unique(y)) > 2
    for label, (make, rows, dtype) in solvers(C, gamma, len(y), dense, multiclass).items():
        keep = np.sort(subsample[:rows])
        Xf = X[keep].astype(dtype) if dense else X[keep]
        Xtf = Xt.astype(dtype) if dense else Xt
        fits = []
        for _ in range(repeats):
            model = make()
            tracemalloc.start()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                tic = time.perf_counter()
                model.fit(Xf, y[keep])
                fits.append(time.perf_counter() - tic)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        tic = time.perf_counter()
        accuracy = float(np.mean(model.predict(Xtf) == yt))
        predict = time.perf_counter() - tic
        run = {"solver": label, "rows": int(rows), "dtype": np.dtype(dtype).name,
               "fit_seconds": float(np.median(fits)), "fit_seconds_all": fits,
               "predict_seconds": predict, "test_accuracy": accuracy,
               "support_vectors": int(len(getattr(model, "support_", ()))) or None,
               "kernel_columns": getattr(model, "n_kernel_columns_", None),
               "kernel_evals_per_row": getattr(model, "n_kernel_evals_", 0) / rows or None,
               "dual_objective": dual_objective(model, X, gamma)
               if not multiclass and rows == len(y) and label.startswith(DUAL_MODELS) else None,
               "iterations": int(np.sum(model.n_iter_)) if label.startswith("Dual")
               else None, "peak_traced_mb": peak / 2**20,
               "relative_gap": float(np.max(model.relative_gap_))
               if hasattr(model, "relative_gap_") else None}
        record["runs"].append(run)
        print(f"{name} {label}: {run}", file=sys.stderr, flush=True)
    best = [r["dual_objective"] for r in record["runs"] if r["solver"] == REFERENCE]
    for r in record["runs"]:
        r["dual_below_converged"] = ((best[0] - r["dual_objective"]) / abs(best[0])
                                     if best and r["dual_objective"] is not None else None)
    return record


def dual_objective(model, X, gamma):
    """The SVM dual ``sum |dual_coef| - 1/2 ||w||^2`` of a binary model's dual coefficients
    (``y a`` over its support vectors), in float64 with scikit-learn's rbf kernel on the
    float64 rows whatever the dtype the model was fitted on: one yardstick for every model."""
    from sklearn.metrics.pairwise import rbf_kernel

    coef = model.dual_coef_  # SVC's is sparse on sparse input
    coef = np.asarray(coef.toarray() if hasattr(coef, "toarray") else coef, np.float64).ravel()
    sv = X[np.asarray(model.support_)].astype(np.float64)
    return float(np.abs(coef).sum() - 0.5 * coef @ (rbf_kernel(sv, gamma=gamma) @ coef))


def markdown(result):
    lines = [
        "# SVC's model: DualSVC (working-set dual solver) against SVC and its peers",
        "",
        "Generated by `python -m benchmarks.kernel_exact`. Ratios are to SVC's times in the "
        "same run; 'columns': kernel columns DualSVC computed (of its problem's rows each; "
        "one-vs-one's are a pair's rows); 'evals / n': our kernel evaluations over the "
        "training rows, the cost in columns of n on one scale for DualSVC and kernel Pegasos; "
        "'dual, below converged' (binary sets): how far the model's dual objective, computed "
        "for every model alike in float64, is below the converged reference's, relative; "
        "'peak MB': tracemalloc's peak during the fit (not LIBSVM's or oneDAL's own memory).",
        "",
        *_against_intelex(result),
    ]
    for ds in result["datasets"]:
        svc = ds["runs"][0]
        gamma = ds["gamma"] if isinstance(ds["gamma"], str) else f"{ds['gamma']:.4g}"
        lines += [
            f"## {ds['dataset']}: {ds['n_train']} training rows, {ds['n_test']} test rows, "
            f"C = {ds['C']:g}, gamma = {gamma}",
            "",
            "| solver | rows | input | fit s | fit / SVC | predict s | SVC / predict | "
            "accuracy | vs SVC (points) | SVs | columns | evals / n | dual, below converged | "
            "peak MB |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in ds["runs"]:
            lines.append(
                f"| {r['solver']} | {r['rows']} | {r['dtype']} | {r['fit_seconds']:.1f} | "
                f"{r['fit_seconds'] / svc['fit_seconds']:.2f} | {r['predict_seconds']:.2f} | "
                f"{svc['predict_seconds'] / r['predict_seconds']:.1f}x | "
                f"{100 * r['test_accuracy']:.2f}% | "
                f"{100 * (r['test_accuracy'] - svc['test_accuracy']):+.2f} | "
                f"{r['support_vectors'] or ''} | {r['kernel_columns'] or ''} | "
                f"{_number(r.get('kernel_evals_per_row'), '.0f')} | "
                f"{_number(r.get('dual_below_converged'), '.1e')} | "
                f"{r['peak_traced_mb']:.0f} |"
            )
        lines.append("")
    lines += environment_markdown(result["environment"])
    return "\n".join(lines) + "\n"


def _against_intelex(result):
    """Issue 47's table: DualSVC at its defaults against scikit-learn-intelex's SVC."""
    rows = []
    for ds in result["datasets"]:
        runs = {r["solver"]: r for r in ds["runs"]}
        ours = next((r for label, r in runs.items() if label.startswith("DualSVC (default")),
                    None)
        peer = runs.get("scikit-learn-intelex SVC")
        if ours is None or peer is None:
            continue
        rows.append(
            f"| {ds['dataset']} | {ours['dtype']} | {ds['C']:g} | {ours['fit_seconds']:.2f} | "
            f"{peer['fit_seconds']:.2f} | {ours['fit_seconds'] / peer['fit_seconds']:.2f}x | "
            f"{100 * (ours['test_accuracy'] - peer['test_accuracy']):+.2f} | "
            f"{ours['support_vectors']} ({peer['support_vectors']}) | "
            f"{_number(ours.get('dual_below_converged'), '.1e')} | "
            f"{_number(peer.get('dual_below_converged'), '.1e')} |")
    if not rows:
        return []
    return ["## DualSVC at its defaults against scikit-learn-intelex's SVC", "",
            "| data | our input | C | DualSVC fit s | intelex fit s | x intelex | accuracy vs "
            "intelex (points) | SVs (intelex's) | dual below converged | intelex's |",
            "|---|---|---|---|---|---|---|---|---|---|", *rows, ""]


def _number(value, spec):
    return "" if value is None else format(value, spec)


def plot(result, path):
    """Test accuracy against fit time, one panel per data set: kernel Pegasos by passes and
    DualSVC by tol as curves, every other solver a point."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import NullFormatter

    sets = result["datasets"]
    fig = Figure(figsize=(6.5 * min(len(sets), 2), 4.2 * ((len(sets) + 1) // 2)),
                 layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots((len(sets) + 1) // 2, min(len(sets), 2), squeeze=False).ravel()
    curves = {"kernel Pegasos": "kernel Pegasos, ", "DualSVC by tol": "DualSVC, tol="}
    for ax, ds in zip(axes, sets):
        runs = ds["runs"]
        svc = runs[0]
        for i, (label, prefix) in enumerate(curves.items()):
            mine = [r for r in runs if r["solver"].startswith(prefix)
                    and r["solver"] != REFERENCE]
            if label == "DualSVC by tol":  # the default tol (1e-3) closes the curve
                mine += [r for r in runs if r["solver"].startswith("DualSVC (default")]
            mine.sort(key=lambda r: r["fit_seconds"])
            ax.plot([r["fit_seconds"] for r in mine], [100 * r["test_accuracy"] for r in mine],
                    marker="o", markersize=4, color=f"C{i}", label=label)
        points = [r for r in runs if r["solver"] == REFERENCE or (
            not any(r["solver"].startswith(p) for p in curves.values())
            and not r["solver"].startswith("DualSVC (default"))]
        for j, r in enumerate(points):
            ax.plot([r["fit_seconds"]], [100 * r["test_accuracy"]], marker="*^sDPX<>"[j % 8],
                    markersize=9, linestyle="none", color=f"C{j + 2}", label=r["solver"])
        ax.axhline(100 * svc["test_accuracy"], color="k", linestyle=":", linewidth=1)
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("fit time (s)")
        ax.set_ylabel("test accuracy (%)")
        ax.set_title(f"{ds['dataset']} (n={ds['n_train']}, C={ds['C']:g})", fontsize="medium")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="x-small")
    for ax in axes[len(sets):]:
        ax.set_visible(False)
    fig.suptitle("Test accuracy against fit time, one process per data set "
                 "(dotted: SVC's accuracy)")
    write_atomic(path, lambda f: fig.savefig(f, format="png", dpi=100))


def main(argv=None):
    return run_part(argv, doc=__doc__, stem="kernel_exact", datasets=DATASETS, bench=bench,
                    markdown=markdown, plot=plot, quick_help="3,000 or 5,000 training rows")


if __name__ == "__main__":
    sys.exit(main())
