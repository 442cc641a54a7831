"""``pegasos demo``: Pegasos next to LIBLINEAR and SGDClassifier on a bundled data set.

:func:`run_demo` fits each solver on a standardised 70/30 split of
scikit-learn's breast-cancer (or digits) data with the default regularisation
(C = 1, as LIBLINEAR), and compares fit time, test accuracy, the objective and
its relative suboptimality; Pegasos also reports its duality-gap certificate.

Examples
--------
>>> from pegasos.demo import run_demo
>>> summary = run_demo("breast_cancer", seed=0)
>>> sorted(r["solver"] for r in summary["results"])[:2]
['liblinear (exact, tol=1e-6)', 'pegasos']
"""

import time
import warnings

from ._progress import CHECKS_FOR_PLOT, Progress


def _load_demo(name):
    import numpy as np
    from sklearn.datasets import load_breast_cancer, load_digits

    if name == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
        return X, np.where(y == 1, 1.0, -1.0), "breast cancer (malignant vs benign)"
    X, y = load_digits(return_X_y=True)
    return X, np.where(y == 8, 1.0, -1.0), "digits (8 vs the rest)"


def run_demo(dataset="breast_cancer", lam=None, seed=0, plot=None):
    """Fit Pegasos and its peers on a bundled data set; return one row per solver.

    With ``plot``, also trace a Pegasos run (objective, certified lower bound,
    test error at 20 points) and draw it to that file.
    """
    from sklearn.linear_model import SGDClassifier
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    from .linear import PegasosClassifier

    X, y, title = _load_demo(dataset)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=seed, stratify=y
    )
    scaler = StandardScaler().fit(X_train)
    X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
    n = X_train.shape[0]
    lam = PegasosClassifier(lam=lam).fit_plan(n).lam  # the default: C = 1

    solvers = {
        "pegasos": PegasosClassifier(lam=lam, random_state=seed),
        "liblinear (exact, tol=1e-6)": LinearSVC(
            loss="hinge", C=1.0 / (lam * n), tol=1e-6, max_iter=100_000
        ),
        "sgd": SGDClassifier(loss="hinge", alpha=lam, random_state=seed),
        "sgd averaged": SGDClassifier(loss="hinge", alpha=lam, average=True, random_state=seed),
    }
    rows = [_fit_and_score(name, est, X_train, y_train, X_test, y_test, lam)
            for name, est in solvers.items()]
    first = {r["solver"]: r.pop("first_fit_seconds") for r in rows}
    warmup = first["pegasos"]  # loading (or compiling) the compiled solver
    p_star = min(r["objective"] for r in rows)
    for r in rows:
        r["relative_suboptimality"] = (r["objective"] - p_star) / p_star
    peg = solvers["pegasos"]
    (gap,) = peg.duality_gap(X_train, y_train)
    summary = {
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
    if plot:
        _plot_demo(peg, lam, seed, X_train, y_train, X_test, y_test, plot, title)
        summary["plot"] = plot
    return summary


#: Timed fits of each solver after its first (whose time is the code's loading or compiling).
REPEATS = 3


def _fit_and_score(name, est, X_train, y_train, X_test, y_test, lam):
    """Fit one solver; its warm fit time (median of :data:`REPEATS` fits after a first,
    untimed one), the first fit's time, test accuracy and objective (LIBLINEAR's, bias B = 1)."""
    import statistics

    from sklearn.exceptions import ConvergenceWarning

    from .objective import duality_gap

    seconds = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for _ in range(1 + REPEATS):  # the same seed: the same model each time
            tic = time.perf_counter()
            est.fit(X_train, y_train)
            seconds.append(time.perf_counter() - tic)
    # One objective for all: the intercept regularised as LIBLINEAR's
    # bias feature B = 1 (Pegasos' default "augment" mode).
    cert = duality_gap(X_train, y_train, est.coef_.ravel(), est.intercept_[0], lam=lam,
                       intercept_mode="augment")
    return {"solver": name, "fit_seconds": statistics.median(seconds[1:]),
            "first_fit_seconds": seconds[0], "test_accuracy": float(est.score(X_test, y_test)), "objective": cert.primal}


def _plot_demo(peg, lam, seed, X_train, y_train, X_test, y_test, path, title):
    """Trace the same Pegasos run (objective, certified bound, test error) and draw it."""
    import numpy as np
    from sklearn.exceptions import ConvergenceWarning

    from .linear import PegasosClassifier
    from .plotting import plot_training

    progress = Progress(0, True, X_test, y_test, np.array([-1.0, 1.0]))
    plan = peg.plan_
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        PegasosClassifier(
            lam=lam, random_state=seed, track_objective=True,
            check_every=plan.n_iter / X_train.shape[0] / CHECKS_FOR_PLOT, callback=progress,
        ).fit(X_train, y_train)
    plot_training(progress.history, path, title=f"Pegasos on {title}, lambda={lam:.3g}",
                  average_start=plan.avg_start(1) if plan.n_average else None)


def print_demo(summary, out):
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
        f"Fit times are of warm fits, the median of {REPEATS} after a first one. Pegasos' "
        f"first fit took {summary['warmup_seconds']:.2f} s:\nloading its compiled code (on "
        "the first run after installing, compiling it).",
        file=out,
    )
    if "plot" in summary:
        print(f"Training curves of Pegasos written to {summary['plot']}", file=out)
