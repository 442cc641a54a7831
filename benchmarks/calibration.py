"""Probability estimates (``probability=True``) against the calibrated peers.

Linear (a9a, ijcnn1; the linear table's lambda): ``PegasosClassifier(lam,
probability=True)`` against ``CalibratedClassifierCV(LinearSVC(loss="hinge",
C=1/(lam n)), method="sigmoid", cv=5)`` -- both Platt scaling on 5-fold
out-of-fold decision values.  Kernel (ijcnn1, a random 3,000 training rows
(seed 0), rbf gamma = 1, C = 10): ``KernelPegasosClassifier(C=10,
probability=True)`` against ``SVC(C=10, gamma=1, probability=True)`` (LIBSVM's
own Platt scaling by 5-fold cross-validation).  Pairwise (``fashion-pairs``:
the first 20,000 Fashion-MNIST training rows, 10 classes, pixels / 255 in
float32 for ours, C = 10, gamma = "scale"; all 10,000 test rows):
``DualSVC(probability=True)`` (LIBSVM's pairwise sigmoids and coupling, each
pair's folds solved from the pair's solution on its kernel columns) against
``SVC(probability=True)``, each beside its own plain fit (``x plain``: the
fit with probabilities over the plain fit), and ours with its folds refitted
from zero as LIBSVM does (``DualSVC._WARM_FOLDS = False``).  Reported on the
test set: log loss, Brier score (of the positive class; of all classes for
``fashion-pairs``), accuracy, and the fit time (probabilities included),
median of the repeats.

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

from pegasos import DualSVC, KernelPegasosClassifier, PegasosClassifier

from .common import (
    environment_markdown,
    fashion_mnist,
    linear_data,
    peer_input,
    run_part,
    spread,
)

DATASETS = ["a9a", "ijcnn1", "ijcnn1-rbf", "fashion-pairs"]
KERNEL_ROWS, KERNEL_C, KERNEL_GAMMA = 3000, 10.0, 1.0
PAIRS_ROWS, PAIRS_C = 20_000, 10.0


def _measure(name, make, X, y, Xt, yt, repeats):
    seconds, model = [], None
    for _ in range(repeats):
        model = make()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            tic = time.perf_counter()
            model.fit(X, y)
            seconds.append(time.perf_counter() - tic)
    if not hasattr(model, "predict_proba"):  # a plain fit: its time alone
        return {"solver": name, "fit_seconds": spread(seconds)}
    p = model.predict_proba(Xt)
    positive = list(model.classes_).index(max(model.classes_))
    if len(model.classes_) > 2:  # every class's squared error
        brier = float(np.mean(np.sum((p - (yt[:, None] == model.classes_)) ** 2, axis=1)))
    else:
        brier = float(brier_score_loss(yt == max(model.classes_), p[:, positive]))
    return {
        "solver": name,
        "log_loss": float(log_loss(yt, p, labels=model.classes_)),
        "brier": brier,
        "accuracy": float(np.mean(model.classes_[np.argmax(p, axis=1)] == yt)),
        "fit_seconds": spread(seconds),
    }


class _RefittedFolds(DualSVC):
    """DualSVC with probability's folds refitted from zero, as LIBSVM's (the ablation of
    solving them from each pair's solution)."""

    _WARM_FOLDS = False


def bench(name, *, data_dir, repeats, quick):
    if name == "fashion-pairs":
        X, y, Xt, yt = fashion_mnist(3000 if quick else PAIRS_ROWS)
        X32, Xt32 = X.astype(np.float32), Xt.astype(np.float32)
        DualSVC(probability=True, random_state=0).fit(X32[:300], y[:300])  # (compiled)
        arms = [
            ("DualSVC, plain fit", lambda: DualSVC(C=PAIRS_C), True),
            ("DualSVC", lambda: DualSVC(C=PAIRS_C, probability=True, random_state=0), True),
            ("DualSVC, folds refitted", lambda: _RefittedFolds(
                C=PAIRS_C, probability=True, random_state=0), True),
            ("SVC (LIBSVM), plain fit", lambda: SVC(C=PAIRS_C), False),
            ("SVC (LIBSVM)", lambda: SVC(C=PAIRS_C, probability=True, random_state=0), False),
        ]
        rows = [_measure(label, make, X32 if ours else X, y, Xt32 if ours else Xt, yt, repeats)
                for label, make, ours in arms]
        for row, plain in zip(rows, [0, 0, 0, 3, 3]):
            row["x_plain"] = row["fit_seconds"]["median"] / rows[plain]["fit_seconds"]["median"]
        return {"dataset": name, "note": (
            f"Fashion-MNIST, the first {X.shape[0]} training rows (10 classes), pixels / 255 "
            f"(ours float32), rbf gamma = 'scale', C = {PAIRS_C}; {Xt.shape[0]} test rows; "
            "x plain: the fit's time over its own plain fit's"),
            "n_train": int(X.shape[0]), "n_test": int(Xt.shape[0]), "results": rows}
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
        plain = "x_plain" in d["results"][0]
        lines += [f"## {d['dataset']}", "", d["note"], "",
                  "| solver | log loss | Brier | accuracy | fit (s) |" + (" x plain |" if plain
                                                                       else ""),
                  "|---|---:|---:|---:|---:|" + ("---:|" if plain else "")]
        for r in d["results"]:
            quality = ([f"{r['log_loss']:.4f}", f"{r['brier']:.4f}", f"{100 * r['accuracy']:.2f}%"]
                       if "log_loss" in r else ["", "", ""])
            cells = [r["solver"], *quality, f"{r['fit_seconds']['median']:.2f}"]
            cells += [f"{r['x_plain']:.2f}x"] if plain else []
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines + environment_markdown(result["environment"])) + "\n"


def main(argv=None):
    return run_part(argv, doc=__doc__, stem="calibration", datasets=DATASETS, bench=bench,
                    markdown=markdown)


if __name__ == "__main__":
    sys.exit(main())
