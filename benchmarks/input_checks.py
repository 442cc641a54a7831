"""What checking sparse input costs: the O(nnz) structure check against the fit.

Every ``fit``, ``predict`` and ``duality_gap`` checks a sparse matrix's stored
structure before compiled code reads it (``pegasos._rows.check_sparse_structure``:
``indptr`` from 0, non-decreasing, within the stored values; indices within
the shape).  On each linear task of seed 001's table (a9a, ijcnn1, Reuters,
the covtype subset; Fashion-MNIST is dense and needs no check) this part times
the check, the default fit (``PegasosClassifier(lam=...)``, the task's lambda,
its default budget of 10/lambda iterations, seed 0) and ``decision_function``
on the test set, and reports the check as a fraction of each.

It also times :func:`pegasos.load_model`, whose checks (the archive's
directory, each member's array header against its stored size, the header's
shapes, every value finite) run before a model is used: the default linear
model of the task, and a kernel model (``KernelPegasosClassifier``, one epoch
over the first 2,000 training rows, seed 0), each saved once and loaded
repeatedly from the page cache.

Usage::

    python -m benchmarks.input_checks [--quick] [--repeats 3]

Writes ``benchmarks/results/input_checks.{json,md}``.
"""

import sys
import tempfile
import time
from pathlib import Path

from pegasos import KernelPegasosClassifier, PegasosClassifier, load_model, save_model
from pegasos._rows import check_sparse_structure

from .common import environment_markdown, linear_data, run_part, spread

DATASETS = ["a9a", "ijcnn1", "reuters", "covtype"]


def _timed(fn, repeats):
    seconds = []
    for _ in range(repeats):
        tic = time.perf_counter()
        fn()
        seconds.append(time.perf_counter() - tic)
    return spread(seconds)


def bench(name, *, data_dir, repeats, quick):
    X, y, Xt, _, lam, note = linear_data(name, data_dir)
    check_repeats = max(repeats, 5) * 4  # the check is short: more repeats, less noise
    fit = PegasosClassifier(lam=lam, random_state=0).fit(X, y)  # compiles, outside the timings
    row = {
        "dataset": name, "note": note, "n_samples": X.shape[0], "n_features": X.shape[1],
        "nnz": int(X.nnz), "lam": lam,
        "check_seconds": _timed(lambda: check_sparse_structure(X), check_repeats),
        "check_test_seconds": _timed(lambda: check_sparse_structure(Xt), check_repeats),
        "fit_seconds": _timed(lambda: PegasosClassifier(lam=lam, random_state=0).fit(X, y),
                              repeats),
        "predict_seconds": _timed(lambda: fit.decision_function(Xt), check_repeats),
    }
    with tempfile.TemporaryDirectory() as folder:
        kernel = _kernel_model(X, y)
        row["kernel_support_vectors"] = int(len(kernel.support_))
        for key, model in (("linear", fit), ("kernel", kernel)):
            path = Path(folder) / f"{key}.model"
            save_model(model, path)
            row[f"{key}_model_bytes"] = path.stat().st_size
            row[f"load_{key}_seconds"] = _timed(lambda: load_model(path), check_repeats)
    row["check_over_fit"] = row["check_seconds"]["median"] / row["fit_seconds"]["median"]
    row["check_over_predict"] = (row["check_test_seconds"]["median"]
                                 / row["predict_seconds"]["median"])
    return row


def _kernel_model(X, y, rows=2000):
    return KernelPegasosClassifier(n_epochs=1, random_state=0).fit(X[:rows], y[:rows])


def markdown(result):
    lines = [
        "# Input checks: the sparse structure check against the fit",
        "",
        "Medians over the repeats; the check is timed on the training matrix (against the "
        "default fit) and on the test matrix (against `decision_function`, which includes it).",
        "",
        "| data | rows | nnz | check (ms) | default fit (ms) | check / fit | "
        "check on test (ms) | predict (ms) | check / predict |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for d in result["datasets"]:
        lines.append(
            f"| {d['dataset']} | {d['n_samples']} | {d['nnz']} | "
            f"{1e3 * d['check_seconds']['median']:.2f} | {1e3 * d['fit_seconds']['median']:.1f} | "
            f"{100 * d['check_over_fit']:.2f}% | {1e3 * d['check_test_seconds']['median']:.2f} | "
            f"{1e3 * d['predict_seconds']['median']:.2f} | {100 * d['check_over_predict']:.1f}% |"
        )
    lines += [
        "",
        "## Loading a model file (`load_model`, checks included)",
        "",
        "| data | linear model (KB) | load (ms) | kernel model (KB) | support vectors | load (ms) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for d in result["datasets"]:
        if "load_linear_seconds" not in d:
            continue
        lines.append(
            f"| {d['dataset']} | {d['linear_model_bytes'] / 1024:.1f} | "
            f"{1e3 * d['load_linear_seconds']['median']:.2f} | "
            f"{d['kernel_model_bytes'] / 1024:.1f} | {d.get('kernel_support_vectors', '')} | "
            f"{1e3 * d['load_kernel_seconds']['median']:.2f} |"
        )
    return "\n".join(lines + [""] + environment_markdown(result["environment"])) + "\n"


def main(argv=None):
    return run_part(argv, doc=__doc__, stem="input_checks", datasets=DATASETS, bench=bench,
                    markdown=markdown)


if __name__ == "__main__":
    sys.exit(main())
