"""SVC's model, faster: DualSVC against SVC, scikit-learn-intelex's SVC and SVC on a subsample.

    python -m benchmarks.kernel_exact [--quick] [--repeats 1] [--datasets fashion10 ...]

Data sets: ``fashion10`` (Fashion-MNIST, 10 classes, all 60,000 training and
10,000 test rows, pixels / 255, rbf, gamma = "scale", C = 10), and the binary
sets of :mod:`benchmarks.kernel` at C = 1 (ijcnn1, Adult, Fashion-MNIST
T-shirt/shirt; 10,000 test rows each).  Every solver runs in this process on
the same data: fit time, predict time, accuracy, support vectors, kernel
columns (ours) and tracemalloc's peak (NumPy's allocations; LIBSVM's and
oneDAL's own are not seen).  ``scikit-learn-intelex`` is a peer when installed
(``pip install scikit-learn-intelex``); it is skipped with a note otherwise.
Ours gets float32 rows on the dense sets (the engine multiplies in float32).
``PEGASOS_BENCH_SKIP`` (labels separated by ";") leaves solvers out.

Writes ``benchmarks/results/kernel_exact.{json,md}``.
"""

import os
import sys
import time
import tracemalloc
import warnings

import numpy as np

from .common import FASHION_MNIST, _idx, environment_markdown, run_part
from .kernel import data as binary_data

DATASETS = ["fashion10", "ijcnn1", "adult", "fashion"]


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
    X, y, Xt, yt, gamma = binary_data(name, data_dir, quick)
    return X, y, Xt, yt, 1.0, gamma


def solvers(C, gamma, n, dense, multiclass):
    """{label: (make, rows used, our dtype?)}."""
    from sklearn.svm import SVC

    from pegasos import DualSVC

    ours = np.float32 if dense else np.float64
    out = {"SVC (LIBSVM)": (lambda: SVC(C=C, gamma=gamma), n, np.float64)}
    try:
        from sklearnex.svm import SVC as IntelSVC

        out["scikit-learn-intelex SVC"] = (lambda: IntelSVC(C=C, gamma=gamma), n, np.float64)
    except ImportError:
        print("scikit-learn-intelex is not installed: its SVC is skipped", file=sys.stderr)
    out["SVC on half the rows"] = (lambda: SVC(C=C, gamma=gamma), n // 2, np.float64)
    out["SVC on a quarter"] = (lambda: SVC(C=C, gamma=gamma), n // 4, np.float64)
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

    from pegasos import DualSVC

    X, y, Xt, yt, C, gamma = data(name, data_dir, quick)
    dense = isinstance(X, np.ndarray)
    two = np.concatenate([np.flatnonzero(y == c)[:100] for c in np.unique(y)[:2]])
    warm = X[two].astype(np.float32) if dense else X[two]
    DualSVC().fit(warm, y[two]).predict(warm)  # compile
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
               "iterations": getattr(model, "n_iter_", None) if label.startswith("Dual")
               else None, "peak_traced_mb": peak / 2**20,
               "relative_gap": float(np.max(model.relative_gap_))
               if hasattr(model, "relative_gap_") else None}
        record["runs"].append(run)
        print(f"{name} {label}: {run}", file=sys.stderr, flush=True)
    return record


def markdown(result):
    lines = [
        "# SVC's model: DualSVC (working-set dual solver) against SVC and its peers",
        "",
        "Generated by `python -m benchmarks.kernel_exact`. Ratios are to SVC's times in the "
        "same run; 'columns': kernel columns DualSVC computed (n values each); 'peak MB': "
        "tracemalloc's peak during the fit (not LIBSVM's or oneDAL's own memory).",
        "",
    ]
    for ds in result["datasets"]:
        svc = ds["runs"][0]
        gamma = ds["gamma"] if isinstance(ds["gamma"], str) else f"{ds['gamma']:.4g}"
        lines += [
            f"## {ds['dataset']}: {ds['n_train']} training rows, {ds['n_test']} test rows, "
            f"C = {ds['C']:g}, gamma = {gamma}",
            "",
            "| solver | rows | input | fit s | fit / SVC | predict s | SVC / predict | "
            "accuracy | vs SVC (points) | SVs | columns | peak MB |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in ds["runs"]:
            lines.append(
                f"| {r['solver']} | {r['rows']} | {r['dtype']} | {r['fit_seconds']:.1f} | "
                f"{r['fit_seconds'] / svc['fit_seconds']:.2f} | {r['predict_seconds']:.2f} | "
                f"{svc['predict_seconds'] / r['predict_seconds']:.1f}x | "
                f"{100 * r['test_accuracy']:.2f}% | "
                f"{100 * (r['test_accuracy'] - svc['test_accuracy']):+.2f} | "
                f"{r['support_vectors'] or ''} | {r['kernel_columns'] or ''} | "
                f"{r['peak_traced_mb']:.0f} |"
            )
        lines.append("")
    lines += environment_markdown(result["environment"])
    return "\n".join(lines) + "\n"


def main(argv=None):
    return run_part(argv, doc=__doc__, stem="kernel_exact", datasets=DATASETS, bench=bench,
                    markdown=markdown, quick_help="3,000 or 5,000 training rows")


if __name__ == "__main__":
    sys.exit(main())
