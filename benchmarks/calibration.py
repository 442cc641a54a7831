"""Probability estimates (``probability=True``) against the calibrated peers.

Linear (a9a, ijcnn1; the linear table's lambda): ``PegasosClassifier(lam,
probability=True)`` against ``CalibratedClassifierCV(LinearSVC(loss="hinge",
C=1/(lam n)), method="sigmoid", cv=5)`` -- both Platt scaling on 5-fold
out-of-fold decision values.  Kernel (ijcnn1, a random 3,000 training rows
(seed 0), rbf gamma = 1, C = 10): ``KernelPegasosClassifier(C=10,
probability=True)`` against ``SVC(C=10, gamma=1, probability=True)`` (LIBSVM's
own Platt scaling by 5-fold cross-validation).  Reported on the test set: log
loss, Brier score (of the positive class), accuracy, and the fit time
(probabilities included), median of the repeats.

Usage::

    python -m benchmarks.calibration [--quick] [--repeats 3]

Writes ``benchmarks/results/calibration.{json,md}``.
"""

import sys
import time
import warnings

import numpy as np
from sklearn.calibration import CalibratedClassifierCV
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.svm import SVC, LinearSVC

from pegasos import KernelPegasosClassifier, PegasosClassifier

from .common import environment_markdown, linear_data, peer_input, run_part, spread

DATASETS = ["a9a", "ijcnn1", "ijcnn1-rbf"]
KERNEL_ROWS, KERNEL_C, KERNEL_GAMMA = 3000, 10.0, 1.0


def _measure(name, make, X, y, Xt, yt, repeats):
    seconds, model = [], None
    for _ in range(repeats):
        model = make()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            tic = time.perf_counter()
            model.fit(X, y)
            seconds.append(time.perf_counter() - tic)
    p = model.predict_proba(Xt)
    positive = list(model.classes_).index(max(model.classes_))
    return {
        "solver": name,
        "log_loss": float(log_loss(yt, p, labels=model.classes_)),
        "brier": float(brier_score_loss(yt == max(model.classes_), p[:, positive])),
        "accuracy": float(np.mean(model.classes_[np.argmax(p, axis=1)] == yt)),
        "fit_seconds": spread(seconds),
    }


def bench(name, *, data_dir, repeats, quick):
    if name == "ijcnn1-rbf":
        X, y, Xt, yt, _, _ = linear_data("ijcnn1", data_dir)
        rows = np.random.default_rng(0).permutation(X.shape[0])[: 1000 if quick else KERNEL_ROWS]
        X, y = X[np.sort(rows)].toarray(), y[np.sort(rows)]
        Xt, yt = Xt.toarray(), yt
        if quick:
            Xt, yt = Xt[:5000], yt[:5000]
        solvers = [
            ("kernel Pegasos", lambda: KernelPegasosClassifier(
                C=KERNEL_C, gamma=KERNEL_GAMMA, probability=True, random_state=0)),
            ("SVC (LIBSVM)", lambda: SVC(C=KERNEL_C, gamma=KERNEL_GAMMA, probability=True,
                                         random_state=0)),
        ]
        note = (f"ijcnn1, {X.shape[0]} random training rows (seed 0), rbf gamma = "
                f"{KERNEL_GAMMA}, C = {KERNEL_C}; {Xt.shape[0]} test rows")
    else:
        X, y, Xt, yt, lam, note = linear_data(name, data_dir)
        if quick:
            X, y = X[:5000], y[:5000]
        C = 1.0 / (lam * X.shape[0])
        solvers = [
            ("Pegasos", lambda: PegasosClassifier(lam=lam, probability=True, random_state=0)),
            ("CalibratedClassifierCV(LinearSVC)", lambda: _Peer(CalibratedClassifierCV(
                LinearSVC(loss="hinge", C=C, max_iter=10_000, random_state=0),
                method="sigmoid", cv=5))),
        ]
        note += f", lambda = {lam:g} (C = {C:.4g})"
    rows = [_measure(label, make, X, y, Xt, yt, repeats) for label, make in solvers]
    return {"dataset": name, "note": note, "n_train": int(X.shape[0]), "n_test": int(Xt.shape[0]),
            "results": rows}


class _Peer:
    """A peer fitted on its own input format (int32 CSR indices)."""

    def __init__(self, model):
        self.model = model

    def fit(self, X, y):
        self.model.fit(peer_input(X), y)
        self.classes_ = self.model.classes_
        return self

    def predict_proba(self, X):
        return self.model.predict_proba(peer_input(X))


def markdown(result):
    lines = ["# Probability estimates against the calibrated peers", "",
             "Test-set log loss and Brier score (lower is better), accuracy of the most "
             "probable class, and fit time with the probabilities (median of the repeats).", ""]
    for d in result["datasets"]:
        lines += [f"## {d['dataset']}", "", d["note"], "",
                  "| solver | log loss | Brier | accuracy | fit (s) |", "|---|---:|---:|---:|---:|"]
        for r in d["results"]:
            lines.append(f"| {r['solver']} | {r['log_loss']:.4f} | {r['brier']:.4f} | "
                         f"{100 * r['accuracy']:.2f}% | {r['fit_seconds']['median']:.2f} |")
        lines.append("")
    return "\n".join(lines + environment_markdown(result["environment"])) + "\n"


def main(argv=None):
    return run_part(argv, doc=__doc__, stem="calibration", datasets=DATASETS, bench=bench,
                    markdown=markdown)


if __name__ == "__main__":
    sys.exit(main())
