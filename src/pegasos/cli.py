"""The ``pegasos`` command.

``pegasos demo`` is the main job on a built-in default: it trains on a data set
bundled with scikit-learn (no download) and prints a side-by-side table
against LIBLINEAR (``LinearSVC``) and ``SGDClassifier``.
"""

import argparse
import json
import os
import sys
import time
import warnings

import numpy as np

DEMO_DATASETS = ("breast_cancer", "digits")


def _load_demo(name):
    from sklearn.datasets import load_breast_cancer, load_digits

    if name == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
        return X, np.where(y == 1, 1.0, -1.0), "breast cancer (malignant vs benign)"
    X, y = load_digits(return_X_y=True)
    return X, np.where(y == 8, 1.0, -1.0), "digits (8 vs the rest)"


def run_demo(dataset="breast_cancer", lam=None, seed=0):
    """Fit Pegasos and its peers on a bundled data set; return one row per solver."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import SGDClassifier
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    from .linear import PegasosClassifier
    from .objective import duality_gap

    X, y, title = _load_demo(dataset)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=seed, stratify=y
    )
    scaler = StandardScaler().fit(X_train)
    X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
    n = X_train.shape[0]
    lam = 1.0 / n if lam is None else lam  # C = 1, LIBLINEAR's default

    # Load (or compile, on the very first run) the solver outside the timings.
    tic = time.perf_counter()
    PegasosClassifier(lam=lam, n_iter=10).fit(X_train[:20], y_train[:20])
    warmup = time.perf_counter() - tic

    solvers = {
        "pegasos": PegasosClassifier(lam=lam, random_state=seed),
        "liblinear (exact, tol=1e-6)": LinearSVC(
            loss="hinge", C=1.0 / (lam * n), tol=1e-6, max_iter=100_000
        ),
        "sgd": SGDClassifier(loss="hinge", alpha=lam, random_state=seed),
        "sgd averaged": SGDClassifier(loss="hinge", alpha=lam, average=True, random_state=seed),
    }
    rows = []
    for name, est in solvers.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            tic = time.perf_counter()
            est.fit(X_train, y_train)
            seconds = time.perf_counter() - tic
        # One objective for all: the intercept regularised as LIBLINEAR's
        # bias feature B = 1 (Pegasos' default "augment" mode).
        cert = duality_gap(
            X_train, y_train, est.coef_.ravel(), est.intercept_[0], lam=lam,
            intercept_mode="augment",
        )
        rows.append(
            {
                "solver": name,
                "fit_seconds": seconds,
                "test_accuracy": float(est.score(X_test, y_test)),
                "objective": cert.primal,
            }
        )
    p_star = min(r["objective"] for r in rows)
    for r in rows:
        r["relative_suboptimality"] = (r["objective"] - p_star) / p_star
    peg = solvers["pegasos"]
    (gap,) = peg.duality_gap(X_train, y_train)
    return {
        "dataset": title,
        "n_train": n,
        "n_test": X_test.shape[0],
        "n_features": X_train.shape[1],
        "lam": lam,
        "C": 1.0 / (lam * n),
        "pegasos_iterations": peg.t_,
        "pegasos_duality_gap": gap.gap,
        "pegasos_relative_gap": gap.relative_gap,
        "warmup_seconds": warmup,
        "results": rows,
    }


def _print_demo(summary, out):
    print(
        f"{summary['dataset']}: {summary['n_train']} training / {summary['n_test']} test "
        f"samples, {summary['n_features']} standardised features\n"
        f"lambda = {summary['lam']:.4g} (C = {summary['C']:.4g}); "
        f"Pegasos ran {summary['pegasos_iterations']} iterations\n",
        file=out,
    )
    head = f"{'solver':<30}{'fit (ms)':>10}{'test acc.':>11}{'objective':>12}{'rel. subopt.':>14}"
    print(head, file=out)
    print("-" * len(head), file=out)
    for r in summary["results"]:
        print(
            f"{r['solver']:<30}{1e3 * r['fit_seconds']:>10.1f}{r['test_accuracy']:>11.4f}"
            f"{r['objective']:>12.6f}{r['relative_suboptimality']:>14.2e}",
            file=out,
        )
    print(
        "\nobjective: lam/2 (||w||^2 + b^2) + mean hinge loss (the intercept regularised as "
        "LIBLINEAR's bias\nfeature; SGDClassifier learns an unregularised one, so it "
        "optimises a slightly different problem)."
        f"\nPegasos' duality-gap certificate: P(w) - P* <= {summary['pegasos_duality_gap']:.3g} "
        f"(relative {summary['pegasos_relative_gap']:.3g}), computed without knowing P*.\n"
        f"(Loading the compiled solver took {summary['warmup_seconds']:.2f} s, "
        "not counted above; the first run after installing compiles it.)",
        file=out,
    )


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="pegasos", description="Support vector machines trained by Pegasos."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser(
        "demo", help="train on a bundled data set and compare with LIBLINEAR and SGDClassifier"
    )
    demo.add_argument("--dataset", choices=DEMO_DATASETS, default="breast_cancer")
    demo.add_argument("--lam", type=float, default=None, help="lambda (default: 1/n, i.e. C=1)")
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--json", action="store_true", help="print a JSON summary instead")
    args = parser.parse_args(argv)
    try:
        if args.command == "demo":
            if args.lam is not None and not args.lam > 0:
                parser.error(f"--lam must be > 0; got {args.lam}")
            summary = run_demo(args.dataset, args.lam, args.seed)
            if args.json:
                json.dump(summary, sys.stdout, indent=2)
                print()
            else:
                _print_demo(summary, sys.stdout)
            sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (``pegasos demo | head``): not an error here.
        # Point stdout at devnull so that the exit flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
