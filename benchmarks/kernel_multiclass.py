"""Fashion-MNIST, 10 classes: an exact kernel SVM against ours and against Nystroem.

What a user of ``SVC`` tries first on a 10-class image set: pixels / 255, rbf,
gamma = "scale", C = 10.  Solvers, one process, the same rows:

* ``SVC`` (LIBSVM's SMO, its own one-vs-one multi-class);
* ``KernelPegasosClassifier``, ``SBPClassifier(C=10)`` (nu estimated from C)
  and ``KernelPerceptron``, every one-vs-rest problem trained at once on the
  blocked engine, at their default batch of 16 and a few budgets, on float32
  input (the engine multiplies in float32), and kernel Pegasos once on
  float64 input as well;
* ``Nystroem(n_components)`` followed by ``LinearSVC`` and by
  ``PegasosClassifier`` (what a user picks instead of an exact kernel SVM),
  for 1000, 2000 and 4000 components, those no more than half the rows
  (``--quick``'s 3,000 rows: 1000 alone).

Reported: fit and predict time (all test rows), test accuracy, support
vectors (or components), and the peak of memory allocated through Python and
NumPy during the fit (``tracemalloc``; LIBSVM's and LIBLINEAR's own C
allocations are not seen by it).  The issue's full run is all 60,000 training
rows, the default (``PEGASOS_BENCH_FASHION_ROWS=20000`` takes the first
20,000 rows instead: SVC's fit grows with the square of n).
``PEGASOS_BENCH_SKIP`` leaves out solvers by label (``;``-separated).

Usage::

    python -m benchmarks.kernel_multiclass [--quick] [--repeats 1]

Writes ``benchmarks/results/kernel_multiclass.{json,md}``.
"""

import os
import sys
import time
import tracemalloc

import numpy as np

from .common import FASHION_MNIST, _idx, environment_markdown, run_part

DATASETS = ["fashion10"]
C = 10.0
ROWS = int(os.environ.get("PEGASOS_BENCH_FASHION_ROWS", "60000"))


def data(quick):
    X = _idx(FASHION_MNIST / "train-images-idx3-ubyte.gz").reshape(-1, 784) / 255.0
    y = _idx(FASHION_MNIST / "train-labels-idx1-ubyte.gz").astype(np.int64)
    Xt = _idx(FASHION_MNIST / "t10k-images-idx3-ubyte.gz").reshape(-1, 784) / 255.0
    yt = _idx(FASHION_MNIST / "t10k-labels-idx1-ubyte.gz").astype(np.int64)
    rows = 3000 if quick else ROWS
    return X[:rows], y[:rows], (Xt[:2000], yt[:2000]) if quick else (Xt, yt)


def solvers(gamma, n):
    """{label: (constructor, input dtype)}: ours take float32 input (the blocked
    engine then multiplies in float32), one run of float64 for comparison; SVC
    and the Nystroem pipelines get float64 (SVC converts to it anyway)."""
    from sklearn.kernel_approximation import Nystroem
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import SVC, LinearSVC

    from pegasos import (
        KernelPegasosClassifier,
        KernelPerceptron,
        PegasosClassifier,
        SBPClassifier,
    )

    f32, f64 = np.float32, np.float64
    out = {"SVC (SMO, one-vs-one)": (lambda: SVC(C=C, gamma="scale"), f64)}
    out["KernelPegasos, 1 epoch, float64"] = (
        lambda: KernelPegasosClassifier(C=C, n_epochs=1, random_state=0), f64)
    for epochs in (1, 3, 5, 10):  # the default batch of 16
        out[f"KernelPegasos, {epochs} epoch{'s' if epochs > 1 else ''}"] = (
            lambda e=epochs: KernelPegasosClassifier(C=C, n_epochs=e, random_state=0), f32)
    for passes in (0.5, 1.0):  # nu from C (one more pass); n_iter in iterations of 16 draws
        out[f"SBP(C=10), {passes} passes"] = (
            lambda p=passes: SBPClassifier(C=C, n_iter=max(1, int(p * n / 16)), random_state=0),
            f32)
    out["KernelPerceptron, 1 epoch"] = (lambda: KernelPerceptron(n_epochs=1, random_state=0), f32)
    out["KernelPerceptron, 10 epochs (the default)"] = (
        lambda: KernelPerceptron(random_state=0), f32)
    for m in (m for m in (1000, 2000, 4000) if m <= n // 2):  # --quick's 3,000 rows: 1000
        out[f"Nystroem({m}) + LinearSVC"] = (lambda m=m: make_pipeline(
            Nystroem(gamma=gamma, n_components=m, random_state=0), LinearSVC(C=C)), f64)
        out[f"Nystroem({m}) + PegasosClassifier"] = (lambda m=m: make_pipeline(
            Nystroem(gamma=gamma, n_components=m, random_state=0),
            PegasosClassifier(C=C, random_state=0)), f64)
    skip = {s.strip() for s in os.environ.get("PEGASOS_BENCH_SKIP", "").split(";") if s.strip()}
    return {label: v for label, v in out.items() if label not in skip}


def _size(model):
    last = model.steps[-1][1] if hasattr(model, "steps") else model
    if hasattr(last, "support_"):
        return int(len(last.support_))
    return int(model.steps[0][1].n_components) if hasattr(model, "steps") else None


def bench(name, data_dir, quick, repeats):
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    X, y, (Xt, yt) = data(quick)
    gamma = 1.0 / (X.shape[1] * X.var())
    from pegasos import KernelPegasosClassifier

    for dtype in (np.float64, np.float32):  # compile
        KernelPegasosClassifier(batch_size=8, n_epochs=0.05).fit(X[:300].astype(dtype), y[:300])
    record = {"dataset": name, "n_train": len(y), "n_test": len(yt), "gamma": gamma, "C": C,
              "runs": []}
    inputs = {np.float64: (X, Xt), np.float32: (X.astype(np.float32), Xt.astype(np.float32))}
    for label, (make, dtype) in solvers(gamma, len(y)).items():
        Xf, Xtf = inputs[dtype]
        fits = []
        for _ in range(repeats):
            model = make()
            tracemalloc.start()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                tic = time.perf_counter()
                model.fit(Xf, y)
                fits.append(time.perf_counter() - tic)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        tic = time.perf_counter()
        accuracy = float(np.mean(model.predict(Xtf) == yt))
        predict = time.perf_counter() - tic
        run = {"solver": label, "dtype": np.dtype(dtype).name,
               "fit_seconds": float(np.median(fits)),
               "fit_seconds_all": fits, "predict_seconds": predict, "test_accuracy": accuracy,
               "size": _size(model), "peak_traced_mb": peak / 2**20,
               "kernel_evals": getattr(model, "n_kernel_evals_", None)}
        record["runs"].append(run)
        print(f"{label}: {run}", file=sys.stderr, flush=True)
    return record


def markdown(result):
    lines = [
        "# Fashion-MNIST, 10 classes: SVC, the kernel solvers, Nystroem",
        "",
        "Generated by `python -m benchmarks.kernel_multiclass` (part of `python -m "
        "benchmarks`). Pixels / 255, rbf, gamma = 'scale', C = 10; accuracy on every test row. "
        "Ratios are to SVC's times in the same run. 'size': support vectors, or Nystroem "
        "components. 'peak MB': tracemalloc's peak during the fit (NumPy and Python "
        "allocations; not LIBSVM's or LIBLINEAR's own). 'input': the dtype given to fit "
        "and predict.",
        "",
    ]
    for ds in result["datasets"]:
        svc = ds["runs"][0]
        lines += [
            f"## {ds['n_train']} training rows, {ds['n_test']} test rows "
            f"(gamma = {ds['gamma']:.4g})",
            "",
            "| solver | input | fit s | fit / SVC | predict s | SVC / predict | accuracy | "
            "vs SVC (points) | size | peak MB |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in ds["runs"]:
            lines.append(
                f"| {r['solver']} | {r.get('dtype', 'float64')} | {r['fit_seconds']:.1f} | "
                f"{r['fit_seconds'] / svc['fit_seconds']:.2f} | {r['predict_seconds']:.2f} | "
                f"{svc['predict_seconds'] / r['predict_seconds']:.1f}x | "
                f"{100 * r['test_accuracy']:.2f}% | "
                f"{100 * (r['test_accuracy'] - svc['test_accuracy']):+.2f} | {r['size']} | "
                f"{r['peak_traced_mb']:.0f} |"
            )
        lines.append("")
    lines += environment_markdown(result["environment"])
    return "\n".join(lines) + "\n"


def main(argv=None):
    return run_part(argv, doc=__doc__, stem="kernel_multiclass", datasets=DATASETS, bench=bench,
                    markdown=markdown, quick_help="3,000 training rows, 2,000 test rows")


if __name__ == "__main__":
    sys.exit(main())
