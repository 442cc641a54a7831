"""What a certificate at the end of a default fit would cost, and what it would say.

Would it pay for ``PegasosClassifier().fit`` to end with a duality-gap
certificate of its model (three passes over the data) and warn when the
certified relative gap is above 1?  Only if it costs at most 10% of the fit.
This part measures, on every linear set with the defaults a new user gets
(C = 1, 10/lambda iterations, seed 0): the fit's time, the certificate's time
(``duality_gap`` on the training data), their ratio, the certified relative
gap, whether it is above 1, and the test accuracy.  The same on the features as they come and
after ``StandardScaler`` for the bundled breast-cancer data (the user guide's
example of unscaled data).

Usage::

    python -m benchmarks.certificate [--quick] [--repeats 3]

Writes ``benchmarks/results/certificate.{json,md}``.
"""

import sys
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from pegasos import PegasosClassifier

from .common import environment_markdown, linear_data, run_part, spread

DATASETS = ["a9a", "ijcnn1", "reuters", "covtype", "fashion", "breast_cancer_raw",
            "breast_cancer_scaled"]


def _data(name, data_dir, quick):
    if name.startswith("breast_cancer"):
        from sklearn.datasets import load_breast_cancer
        from sklearn.model_selection import train_test_split
        from sklearn.preprocessing import StandardScaler

        X, y = load_breast_cancer(return_X_y=True)
        X, Xt, y, yt = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
        if name.endswith("scaled"):
            scaler = StandardScaler().fit(X)
            X, Xt = scaler.transform(X), scaler.transform(Xt)
        return X, y, Xt, yt, "scikit-learn's breast cancer, 70/30 split (seed 0), " + (
            "StandardScaler" if name.endswith("scaled") else "features as they come")
    X, y, Xt, yt, _, note = linear_data(name, data_dir)
    if quick:
        X, y = X[:5000], y[:5000]
    return X, y, Xt, yt, note


def bench(name, *, data_dir, repeats, quick):
    X, y, Xt, yt, note = _data(name, data_dir, quick)
    fit, cert, model, gap = [], [], None, None
    for _ in range(repeats):
        model = PegasosClassifier(random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            tic = time.perf_counter()
            model.fit(X, y)
            fit.append(time.perf_counter() - tic)
        tic = time.perf_counter()
        (gap,) = model.duality_gap(X, y)
        cert.append(time.perf_counter() - tic)
    return {
        "dataset": name, "note": note, "n_train": int(X.shape[0]), "lam": model.lam_,
        "iterations": int(model.n_iter_), "fit_seconds": spread(fit),
        "certificate_seconds": spread(cert),
        "ratio": float(np.median(cert) / np.median(fit)),
        "relative_gap": float(gap.relative_gap), "above_1": bool(gap.relative_gap > 1.0),
        "test_accuracy": float(model.score(Xt, yt)),
    }


def markdown(result):
    lines = [
        "# The default end-of-fit certificate: its cost and what it says", "",
        "`PegasosClassifier(random_state=0)` with the defaults (C = 1, 10/lambda "
        "iterations). 'fit' is the default fit's time, 'certificate' the three passes of "
        "`duality_gap` on the training data (medians of the repeats), 'ratio' the second "
        "over the first; 'gap > 1': the certified relative gap is above 1.", "",
        "| data | n | lambda | iterations | fit (s) | certificate (s) | ratio | relative gap | "
        "gap > 1 | test accuracy |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    for d in result["datasets"]:
        lines.append(
            f"| {d['dataset']} | {d['n_train']} | {d['lam']:.3g} | {d['iterations']} | "
            f"{d['fit_seconds']['median']:.3f} | {d['certificate_seconds']['median']:.4f} | "
            f"{100 * d['ratio']:.1f}% | {d['relative_gap']:.3g} | "
            f"{'yes' if d['above_1'] else 'no'} | {100 * d['test_accuracy']:.2f}% |")
    lines += ["", "Data:", ""] + [f"- {d['dataset']}: {d['note']}" for d in result["datasets"]]
    return "\n".join(lines + [""] + environment_markdown(result["environment"])) + "\n"


def main(argv=None):
    return run_part(argv, doc=__doc__, stem="certificate", datasets=DATASETS, bench=bench,
                    markdown=markdown)


if __name__ == "__main__":
    sys.exit(main())
