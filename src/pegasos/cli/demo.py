"""``pegasos demo``: what the library is for, shown in about half a minute.

:func:`run_demo` runs two comparisons, each in one process on the same data:

* **linear SVMs** on a generated sparse set (the default, ``dataset="generated"``):
  Pegasos, LIBLINEAR (scikit-learn's ``LinearSVC``) and ``SGDClassifier`` at one lambda on
  training sets of growing size, their fit times and test errors, the test error against
  time on the largest set, and Pegasos' duality-gap certificate.  Pegasos' budget,
  ``10 / lambda`` iterations, does not depend on the number of rows, so its time stays flat
  while the peers' grows.  ``dataset="breast_cancer"`` or ``"digits"`` runs the earlier
  comparison on a bundled set instead (C = 1; fit time, accuracy, objective, suboptimality);
* **SVC's model**: :class:`~pegasos.DualSVC` against scikit-learn's ``SVC`` on digits
  (10 classes, one-vs-one, rbf, C = 10): fit and predict times, test accuracy, and how many
  test predictions agree.

Examples
--------
>>> from pegasos.cli.demo import run_demo
>>> summary = run_demo("breast_cancer", seed=0)
>>> sorted(r["solver"] for r in summary["results"])[:2]
['liblinear (exact, tol=1e-6)', 'pegasos']
>>> summary["kernel"]["dataset"]
'digits (10 classes)'
"""

import statistics
import sys
import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC

from .._progress import CHECKS_FOR_PLOT, Progress
from ..linear import PegasosClassifier
from ..objective import duality_gap
from ..plotting import _write, plot_training
from ..svc import DualSVC
from ._common import _print_json

#: The generated set: training rows at each size (the test rows are separate), features,
#: stored values a row (each row of unit norm), the label noise, and lambda.
SIZES = (20_000, 60_000, 200_000)
N_TEST = 20_000
N_FEATURES = 2_000
NNZ_PER_ROW = 20
NOISE = 0.3
GENERATED_LAM = 1e-5


def _load_demo(name):
    if name == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
        return X, np.where(y == 1, 1.0, -1.0), "breast cancer (malignant vs benign)"
    X, y = load_digits(return_X_y=True)
    return X, np.where(y == 8, 1.0, -1.0), "digits (8 vs the rest)"


def run_demo(dataset="generated", lam=None, seed=0, plot=None):
    """Run the demo's comparisons; return their numbers as a JSON-ready dict.

    Parameters
    ----------
    dataset : {"generated", "breast_cancer", "digits"}, default="generated"
        The linear comparison's data: a generated sparse set at growing sizes, or a
        bundled set (standardised, a 70/30 split).
    lam : float, default=None
        Lambda of the linear comparison: by default 1e-5 on the generated set (fixed
        as the rows grow), and 1/n (C = 1) on a bundled set.
    seed : int, default=0
        The seed of the data, the split and every solver.
    plot : str, default=None
        Where to draw the figure: the test error against time and the fit time against
        the rows (generated set), or Pegasos' training curves (bundled set).

    Returns
    -------
    summary : dict
        The linear comparison's numbers, and ``kernel``: ``DualSVC`` against ``SVC``.
    """
    if dataset == "generated":
        summary = _run_generated(GENERATED_LAM if lam is None else lam, seed, plot)
    else:
        summary = _run_bundled(dataset, lam, seed, plot)
    summary["kernel"] = _run_kernel(seed)
    return summary


def _run_bundled(dataset, lam, seed, plot):
    """Pegasos and its peers on a bundled data set, one row per solver."""
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


def generate(n, seed=0):
    """A sparse linear problem: ``n`` rows of :data:`NNZ_PER_ROW` positive values at random
    features (each row of unit norm), labels the sign of a planted model plus Gaussian noise
    (:data:`NOISE`); returns ``(X, y)`` with X a CSR matrix of :data:`N_FEATURES` columns."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=N_FEATURES)
    indices = np.sort(rng.integers(0, N_FEATURES, size=(n, NNZ_PER_ROW)), axis=1)
    values = rng.random((n, NNZ_PER_ROW))
    values /= np.linalg.norm(values, axis=1, keepdims=True)
    indptr = np.arange(0, n * NNZ_PER_ROW + 1, NNZ_PER_ROW)
    X = sp.csr_matrix((values.ravel(), indices.ravel(), indptr), shape=(n, N_FEATURES))
    X.sum_duplicates()
    y = np.where(X @ w + NOISE * rng.normal(size=n) > 0, 1, -1)
    return X, y


def _timed(est, X, y, X_test, y_test):
    """One fit's seconds and test error (convergence warnings of budgeted fits ignored)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        tic = time.perf_counter()
        est.fit(X, y)
        seconds = time.perf_counter() - tic
    return seconds, float(1 - est.score(X_test, y_test))


def _linear_solvers(lam, n, seed):
    """The three solvers at their defaults for lambda on n rows (LIBLINEAR's C = 1/(lam n))."""
    return {"pegasos": PegasosClassifier(lam=lam, random_state=seed),
            "liblinear": LinearSVC(C=1 / (lam * n), loss="hinge", max_iter=10_000),
            "sgd": SGDClassifier(alpha=lam, random_state=seed)}


def _run_generated(lam, seed, plot):
    """The linear comparison on the generated set: sizes, curves and the certificate."""
    X_all, y_all = generate(SIZES[-1] + N_TEST, seed)
    X_test, y_test = X_all[SIZES[-1]:], y_all[SIZES[-1]:]
    _timed(PegasosClassifier(lam=lam, n_iter=10), X_all[:100], y_all[:100], X_test, y_test)
    rows = []
    for n in SIZES:
        X, y = X_all[:n], y_all[:n]
        for name, est in _linear_solvers(lam, n, seed).items():
            seconds, error = _timed(est, X, y, X_test, y_test)
            rows.append({"n": n, "solver": name, "fit_seconds": seconds, "test_error": error})
            if name == "pegasos":
                iterations, peg = est.t_, est
    n = SIZES[-1]
    X, y = X_all[:n], y_all[:n]
    (gap,) = peg.duality_gap(X, y)
    budgets = {"pegasos": [PegasosClassifier(lam=lam, n_iter=t, random_state=seed)
                           for t in (10_000, 30_000, 100_000, 300_000)],
               "liblinear": [LinearSVC(C=1 / (lam * n), loss="hinge", max_iter=m)
                             for m in (1, 3, 10)],
               "sgd": [SGDClassifier(alpha=lam, max_iter=e, tol=None, random_state=seed)
                       for e in (1, 2)]}
    curves = {name: [_timed(est, X, y, X_test, y_test) for est in ests]
              for name, ests in budgets.items()}
    for name in curves:  # each solver's default fit on the largest set ends its curve
        curves[name].append(next((r["fit_seconds"], r["test_error"]) for r in rows
                                 if r["n"] == n and r["solver"] == name))
    summary = {
        "dataset": (f"generated sparse rows ({N_FEATURES} features, {NNZ_PER_ROW} values a "
                    f"row, label noise {NOISE})"),
        "lam": lam, "n_test": N_TEST, "sizes": list(SIZES), "results": rows,
        "pegasos_iterations": int(iterations),
        "certificate": {"n": n, "primal": gap.primal, "dual": gap.dual, "gap": gap.gap,
                        "relative_gap": gap.relative_gap},
        "curves": {name: [list(p) for p in points] for name, points in curves.items()},
    }
    if plot:
        _plot_generated(summary, plot)
        summary["plot"] = plot
    return summary


#: The peers' names as printed and drawn.
NAMES = {"pegasos": "Pegasos", "liblinear": "LIBLINEAR (LinearSVC)", "sgd": "SGDClassifier"}


def _plot_generated(summary, path):
    """Test error against time on the largest set; fit time against the rows."""
    # matplotlib loads only to draw (0.6 s by -X importtime): --no-plot and print_demo need none of it
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 4.5), layout="constrained")
    FigureCanvasAgg(fig)
    left, right = fig.subplots(1, 2)
    for name, points in summary["curves"].items():
        seconds, errors = zip(*points)
        left.plot(seconds, errors, "o-", label=NAMES[name])
        by_n = [r for r in summary["results"] if r["solver"] == name]
        right.plot([r["n"] for r in by_n], [r["fit_seconds"] for r in by_n], "o-",
                   label=NAMES[name])
    left.set(xscale="log", xlabel="fit time (s)", ylabel="test error",
             title=f"{summary['sizes'][-1]:,} rows: test error against time")
    right.set(xscale="log", yscale="log", xlabel="training rows", ylabel="fit time (s)",
              title=f"default fits, lambda = {summary['lam']:g}")
    left.legend()
    right.legend()
    _write(fig, path, "")


def _run_kernel(seed):
    """DualSVC against SVC on digits (10 classes): times, accuracy, agreement."""
    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X / 16, y, test_size=0.3,
                                                        random_state=seed, stratify=y)
    rows, predictions = [], {}
    for name, est in (("SVC", SVC(C=10)), ("DualSVC", DualSVC(C=10))):
        seconds = []
        for _ in range(2):  # the first fit loads (or, after installing, compiles) the code
            tic = time.perf_counter()
            est.fit(X_train, y_train)
            seconds.append(time.perf_counter() - tic)
        fit = seconds[1]
        tic = time.perf_counter()
        predictions[name] = est.predict(X_test)
        predict = time.perf_counter() - tic
        rows.append({"solver": name, "fit_seconds": fit, "first_fit_seconds": seconds[0],
                     "predict_seconds": predict,
                     "test_accuracy": float(np.mean(predictions[name] == y_test)),
                     "support_vectors": int(est.n_support_.sum())})
    return {"dataset": "digits (10 classes)", "n_train": X_train.shape[0],
            "n_test": X_test.shape[0], "C": 10.0, "results": rows,
            "agreement": float(np.mean(predictions["SVC"] == predictions["DualSVC"]))}


def print_demo(summary, out):
    """Print the demo's summary as tables."""
    if "sizes" in summary:
        _print_generated(summary, out)
    else:
        _print_bundled(summary, out)
    _print_kernel(summary["kernel"], out)
    if "plot" in summary:
        print(f"\nThe figure is in {summary['plot']}", file=out)


def _print_generated(summary, out):
    print(f"Linear SVMs on {summary['dataset']}, lambda = {summary['lam']:g}, "
          f"{summary['n_test']:,} test rows.\nDefault fits; seconds and test error:\n",
          file=out)
    head = f"{'rows':>9}" + "".join(f"{NAMES[s]:>25}" for s in NAMES)
    print(head + "\n" + "-" * len(head), file=out)
    for n in summary["sizes"]:
        cells = {r["solver"]: r for r in summary["results"] if r["n"] == n}
        print(f"{n:>9,}" + "".join(
            f"{cells[s]['fit_seconds']:>15.2f} s, {100 * cells[s]['test_error']:5.2f}%"
            for s in NAMES), file=out)
    cert = summary["certificate"]
    first, last = summary["sizes"][0], summary["sizes"][-1]
    growth = {r["solver"]: r["fit_seconds"] for r in summary["results"] if r["n"] == last}
    for r in summary["results"]:
        if r["n"] == first:
            growth[r["solver"]] /= r["fit_seconds"]
    print(f"\nPegasos ran the same {summary['pegasos_iterations']:,} iterations (10/lambda) at "
          f"every size. From {first:,} to {last:,} rows ({last / first:g}x) the fit time grew "
          + ", ".join(f"{growth[s]:.1f}x ({NAMES[s]})" for s in NAMES) + ".\n"
          f"Pegasos' certificate on {cert['n']:,} rows: P(w) - P* <= {cert['gap']:.3g} (relative "
          f"{cert['relative_gap']:.3g}), computed without knowing P*.\nTest error against "
          f"time on {cert['n']:,} rows (growing budgets; the last point is the default fit):",
          file=out)
    for name, points in summary["curves"].items():
        print(f"  {NAMES[name]:<22}" + ", ".join(f"{s:.2f} s: {100 * e:.2f}%"
                                                   for s, e in points), file=out)


def _print_kernel(kernel, out):
    print(f"\nSVC's model on {kernel['dataset']}: {kernel['n_train']} training / "
          f"{kernel['n_test']} test rows, rbf, C = {kernel['C']:g}\n", file=out)
    head = (f"{'solver':<10}{'fit (s)':>10}{'predict (s)':>13}{'test acc.':>11}"
            f"{'support vectors':>17}")
    print(head + "\n" + "-" * len(head), file=out)
    for r in kernel["results"]:
        print(f"{r['solver']:<10}{r['fit_seconds']:>10.3f}{r['predict_seconds']:>13.3f}"
              f"{r['test_accuracy']:>11.4f}{r['support_vectors']:>17}", file=out)
    first = kernel["results"][-1]["first_fit_seconds"]
    print(f"DualSVC's test predictions equal SVC's on {100 * kernel['agreement']:.1f}% of "
          f"the rows. Fit times are of a second fit; DualSVC's first took {first:.2f} s:\n"
          "loading its compiled code (on the first run after installing, compiling it).\n"
          "On a set this small SVC's own solver is quick; DualSVC's lead grows with the rows "
          "(BENCHMARKS.md:\n0.03-0.19x SVC's fit time on sets of 12,000 to 60,000 rows).",
          file=out)


def _print_bundled(summary, out):
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


def run(args, parser):
    """``pegasos demo``: :func:`run_demo`, its summary printed (or as JSON)."""
    if args.lam is not None and not args.lam > 0:
        parser.error(f"--lam must be > 0; got {args.lam}")
    summary = run_demo(args.dataset, args.lam, args.seed, None if args.no_plot else args.plot)
    if args.json:
        _print_json(summary)
    else:
        print_demo(summary, sys.stdout)
    return 0
