"""Seed 001's table: linear SVM solvers side by side on real data.

For each data set (a9a, ijcnn1, Reuters-21578, the covtype subset and
Fashion-MNIST T-shirt vs shirt; train on its training part, score on its test
part; lambda in ``common.LINEAR_SETS``) every solver is run at a grid of
budgets, each a separate fit from scratch (median, min and max wall time of
``--repeats`` rounds; each round fits every solver at every budget once, so
load on the machine hits all solvers alike), all in this one process on the
same data.  Reported per solver:

* time to reach a test error within 0.5 point of the exact SVM's;
* time to reach 1% relative suboptimality, (P(w) - P*) / P* <= 0.01;
* nanoseconds per example processed, at 8 epochs (passes) for every solver;

and the ratios of the peers' times to Pegasos'.  The objective is the same for
every SVM solver: P(w) = lam/2 ||w||^2 + mean hinge loss, no intercept (SGD's
unregularised intercept would make it another problem).  P* and the exact
test error come from LIBLINEAR with tol=1e-6.  Four peers count for their
test error and time only: the Perceptron (scikit-learn's, no intercept; its
weights have no scale), LIBSVM's SMO with a linear kernel and SVM-Light 6.02
itself (seed 001's column, built from the sources of PyPI's ``svmlight``
sdist when pip and gcc can; both always fit an unregularised intercept; one
fit each to its default tolerance, skipped with --quick above 10,000 rows)
and Vowpal Wabbit (hinge loss; it hashes its features, so it has no weights
in ours).

Usage::

    python -m benchmarks.linear [--quick] [--repeats 3] [--data-dir ../shared/data]

Writes ``benchmarks/results/linear.json`` and ``linear.md``.
"""

import shutil
import statistics
import sys
import tempfile
import time
import warnings

from .common import (
    LINEAR_SETS,
    SVMLight,
    VowpalWabbitHinge,
    environment_markdown,
    exact_svm,
    linear_data,
    peer_input,
    run_part,
)

DATASETS = LINEAR_SETS
ERROR_MARGIN = 0.005  # 0.5 point of test error
SUBOPT_TARGET = 0.01  # 1% relative suboptimality
# ns per example are compared at this many epochs (passes for LIBLINEAR): where
# no solver has converged yet, so all do full passes (LIBLINEAR stops early
# and shrinks its working set once it nears convergence).
PER_EXAMPLE_BUDGET = 8
SVMLIGHT_TIMEOUT = 900  # seconds per SVM-Light fit; a fit stopped there scores NaN
ONE_FIT = ("smo_linear", "svmlight")  # fitted once, not once per round


def solvers(lam, n, quick):
    """name -> (list of budgets, factory(budget) -> estimator, examples processed(budget))."""
    from sklearn.linear_model import Perceptron, SGDClassifier
    from sklearn.svm import SVC, LinearSVC

    from pegasos import PegasosClassifier

    epochs = [0.0625, 0.125, 0.25, 0.5, 1, 2, 4, 8, 16] + ([] if quick else [32, 64])
    sgd_epochs = [1, 2, 4, 8, 16] + ([] if quick else [32, 64])
    cd_passes = [1, 2, 4, 8, 16, 32, 64] + ([] if quick else [128, 256, 1024])
    out = {
        "pegasos": (
            epochs,
            lambda e: PegasosClassifier(lam=lam, n_epochs=e, fit_intercept=False, random_state=0),
            lambda e: e * n,
        ),
        "pegasos_last_iterate": (
            epochs,
            lambda e: PegasosClassifier(
                lam=lam, n_epochs=e, average=False, fit_intercept=False, random_state=0
            ),
            lambda e: e * n,
        ),
        "pegasos_full_average": (
            epochs,
            lambda e: PegasosClassifier(
                lam=lam, n_epochs=e, average=True, fit_intercept=False, random_state=0
            ),
            lambda e: e * n,
        ),
        "sgd": (
            sgd_epochs,
            lambda e: SGDClassifier(
                loss="hinge", alpha=lam, max_iter=e, tol=None, fit_intercept=False, random_state=0
            ),
            lambda e: e * n,
        ),
        "sgd_averaged": (
            sgd_epochs,
            lambda e: SGDClassifier(
                loss="hinge", alpha=lam, max_iter=e, tol=None, fit_intercept=False,
                average=True, random_state=0,
            ),
            lambda e: e * n,
        ),
        "perceptron": (
            sgd_epochs,
            lambda e: Perceptron(max_iter=e, tol=None, fit_intercept=False, random_state=0),
            lambda e: e * n,
        ),
        "liblinear": (
            cd_passes,
            lambda p: LinearSVC(
                loss="hinge", C=1.0 / (lam * n), fit_intercept=False, tol=1e-12, max_iter=p,
                random_state=0,
            ),
            lambda p: p * n,
        ),
        # SMO (LIBSVM) with a linear kernel: seed 001's SVM-Light column.  One
        # budget: solved to LIBSVM's default tolerance.
        "smo_linear": (
            [1e-3],
            lambda tol: SVC(kernel="linear", C=1.0 / (lam * n), tol=tol),
            lambda tol: None,
        ),
    }
    if quick and n > 10_000:
        del out["smo_linear"]  # seconds to a minute per fit
    return out


def bench_dataset(name, data_dir, repeats, quick):
    from sklearn.exceptions import ConvergenceWarning

    from pegasos import duality_gap

    X, y, Xt, yt, lam, source = linear_data(name, data_dir)
    X32, Xt32 = peer_input(X), peer_input(Xt)
    n = X.shape[0]
    exact, exact_seconds = exact_svm(X, y, lam)
    p_star = duality_gap(X, y, exact.coef_[0], lam=lam).primal
    exact_error = 1.0 - exact.score(Xt32, yt)
    out = {
        "dataset": name,
        "source": source,
        "dense": not hasattr(X, "indices"),
        "n_train": n,
        "n_test": Xt.shape[0],
        "n_features": X.shape[1],
        "nnz_per_row": (X.nnz if hasattr(X, "nnz") else int((X != 0).sum())) / n,
        "lam": lam,
        "C": 1.0 / (lam * n),
        "exact_test_error": exact_error,
        "exact_objective": p_star,
        "exact_seconds_tol_1e-6": exact_seconds,
        "solvers": {},
    }
    configs = solvers(lam, n, quick)
    vw_dir = tempfile.mkdtemp(prefix="pegasos-vw-")
    try:
        VowpalWabbitHinge(1, vw_dir).prepare(X32, y, Xt32, yt)  # files and cache, untimed
        passes = [1, 2, 4, 8] + ([] if quick else [16])
        configs["vowpal_wabbit"] = (passes, lambda p: VowpalWabbitHinge(p, vw_dir), lambda p: p * n)
    except ImportError:
        print("vowpalwabbit is not installed: skipping it (pip install vowpalwabbit)",
              file=sys.stderr)
    light_dir = tempfile.mkdtemp(prefix="pegasos-svmlight-")
    if not (quick and n > 10_000):  # seconds to minutes per fit
        try:  # SVM-Light itself (seed 001's column), linear kernel, C = 1/(lam n), its -e 0.001
            light = SVMLight(1.0 / (lam * n), light_dir, kernel="linear",
                             timeout=SVMLIGHT_TIMEOUT).prepare(X32, y, Xt32, yt)
            configs["svmlight"] = ([1e-3], lambda tol: light, lambda tol: None)
        except FileNotFoundError as exc:
            print(f"skipping SVM-Light: {exc}", file=sys.stderr)
    for sname, (budgets, factory, _) in configs.items():
        if sname in ONE_FIT:
            continue  # no JIT to warm up, and each fit costs seconds to a minute
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            # warm-up: JIT cache load, allocator
            factory(budgets[0]).fit(X if sname.startswith("pegasos") else X32, y)
    # Repeats are interleaved -- each round fits every solver at every budget
    # once -- so that a burst of load on this shared machine hits all solvers
    # alike instead of one solver's repeats.
    # SMO and SVM-Light are fitted once, in the first round: seconds to
    # minutes per fit, and no budget grid to sweep.
    times = {(s_, b_): [] for s_, (bs, _, _) in configs.items() for b_ in bs}
    fitted = {}
    for round_ in range(repeats):
        for sname, (budgets, factory, _) in configs.items():
            if round_ > 0 and sname in ONE_FIT:
                continue
            Xs = X if sname.startswith("pegasos") else X32
            for budget in budgets:
                est = factory(budget)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    tic = time.perf_counter()
                    est.fit(Xs, y)
                    times[sname, budget].append(time.perf_counter() - tic)
                fitted[sname, budget] = est  # every repeat gives the same model
    for sname, (budgets, _, processed) in configs.items():
        Xts = Xt if sname.startswith("pegasos") else Xt32
        runs = []
        for budget in budgets:
            est, ts = fitted[sname, budget], times[sname, budget]
            # VW hashes its features: no weights in our feature space, no
            # objective; the Perceptron's weights have no scale; SVC always
            # fits an unregularised intercept, another problem
            objective = (
                duality_gap(X, y, est.coef_[0], lam=lam).primal
                if hasattr(est, "coef_") and sname not in ("perceptron", "smo_linear") else None
            )
            runs.append(
                {
                    "budget": budget,
                    "seconds_median": statistics.median(ts),
                    "repeats": len(ts),
                    "seconds_min": min(ts),
                    "seconds_max": max(ts),
                    "test_error": 1.0 - est.score(Xts, yt),
                    "relative_suboptimality": (
                        None if objective is None else (objective - p_star) / p_star
                    ),
                    "ns_per_example": (
                        None if processed(budget) is None
                        else 1e9 * statistics.median(ts) / processed(budget)
                    ),
                }
            )
        out["solvers"][sname] = {
            "budget_unit": {"liblinear": "passes", "smo_linear": "tolerance",
                            "svmlight": "tolerance"}.get(sname, "epochs"),
            "runs": runs,
            "seconds_to_error_mark": _first(runs, lambda r: r["test_error"] <= exact_error + ERROR_MARGIN),
            "seconds_to_1pct_subopt": _first(
                runs,
                lambda r: r["relative_suboptimality"] is not None
                and r["relative_suboptimality"] <= SUBOPT_TARGET,
            ),
            "ns_per_example": next(
                (r["ns_per_example"] for r in runs if r["budget"] == PER_EXAMPLE_BUDGET), None
            ),
        }
    shutil.rmtree(vw_dir, ignore_errors=True)
    shutil.rmtree(light_dir, ignore_errors=True)
    peg = out["solvers"]["pegasos"]
    out["ratios_vs_pegasos"] = {
        sname: {
            key: _ratio(s[key], peg[key])
            for key in ("seconds_to_error_mark", "seconds_to_1pct_subopt", "ns_per_example")
        }
        for sname, s in out["solvers"].items()
        if sname != "pegasos"
    }
    return out


def _first(runs, reached):
    for r in runs:
        if reached(r):
            return r["seconds_median"]
    return None


def _ratio(a, b):
    return None if a is None or b is None else a / b


def _fmt(x, spec=".3f"):
    return "not reached" if x is None else format(x, spec)


def markdown(result):
    lines = [
        "# Linear solvers side by side",
        "",
        "Generated by `python -m benchmarks` (this part: `python -m benchmarks.linear`); "
        "machine and versions at the end. Times are medians of "
        f"{result['environment']['repeats']} fits from scratch, in seconds (SMO and SVM-Light: "
        "one fit). Objective: "
        "lam/2 ||w||^2 + mean hinge, no intercept. 'error mark': test error within 0.5 point "
        "of the exact SVM's (LIBLINEAR, tol=1e-6). Ratios are peer time / Pegasos time "
        "(> 1: Pegasos faster); ns / example at 8 epochs (LIBLINEAR: passes). "
        "`pegasos` is the default estimator (suffix averaging), `pegasos_last_iterate` the "
        "paper's output (`average=False`), the like-for-like peer of plain `sgd`, and "
        "`pegasos_full_average` the uniform average of all iterates (`average=True`). "
        "`vowpal_wabbit` is VW with hinge loss run by its own driver on a binary cache "
        "(budget: passes; no objective: VW hashes its features). `perceptron` is "
        "scikit-learn's Perceptron (test error only). `smo_linear` is LIBSVM's SMO "
        "(`SVC(kernel='linear')`, default tolerance 1e-3), the analogue of seed 001's "
        "SVM-Light column; it always fits an unregularised intercept, so only its test error "
        "and time count. `svmlight` is SVM-Light 6.02 itself (linear kernel, its default "
        "-e 0.001, built from source; one process per fit, whose time includes reading its "
        "input file); the same caveats. Seeds: 0 for every solver.",
        "",
    ]
    for ds in result["datasets"]:
        lines += [
            f"## {ds['dataset']} (n={ds['n_train']}, d={ds['n_features']}, "
            f"lambda={ds['lam']:g}, C={ds['C']:.3g})",
            "",
            f"Data: {ds['source']}; {ds['n_test']} test rows"
            f"{', dense' if ds['dense'] else ''}.",
            "",
            f"Exact SVM: test error {100 * ds['exact_test_error']:.2f}%, objective "
            f"{ds['exact_objective']:.6f}, LIBLINEAR tol=1e-6 in {ds['exact_seconds_tol_1e-6']:.3f} s.",
            "",
            "| solver | to error mark (s) | ratio | to 1% subopt. (s) | ratio | ns / example | ratio |",
            "|---|---|---|---|---|---|---|",
        ]
        for sname, s in ds["solvers"].items():
            r = ds["ratios_vs_pegasos"].get(sname, {})
            lines.append(
                f"| {sname} | {_fmt(s['seconds_to_error_mark'], '.4f')} | "
                f"{_fmt(r.get('seconds_to_error_mark'), '.1f') if r else '1'} | "
                + (
                    "n/a (no objective) | n/a | "
                    if all(x["relative_suboptimality"] is None for x in s["runs"])
                    else f"{_fmt(s['seconds_to_1pct_subopt'], '.4f')} | "
                    f"{_fmt(r.get('seconds_to_1pct_subopt'), '.1f') if r else '1'} | "
                )
                + f"{'-' if s['ns_per_example'] is None else format(s['ns_per_example'], '.0f')} | "
                + (f"{_fmt(r.get('ns_per_example'), '.2f') if r else '1'} |"
                   if s["ns_per_example"] is not None else "- |")
            )
        lines += ["", "Every run (budget: epochs; passes for LIBLINEAR; tolerance for SMO and SVM-Light):", ""]
        lines += ["| solver | budget | seconds (min-max) | test error | rel. subopt. |", "|---|---|---|---|---|"]
        for sname, s in ds["solvers"].items():
            for r in s["runs"]:
                lines.append(
                    f"| {sname} | {r['budget']} | {r['seconds_median']:.4f} "
                    f"({r['seconds_min']:.4f}-{r['seconds_max']:.4f}) | "
                    f"{100 * r['test_error']:.2f}% | {_fmt(r['relative_suboptimality'], '.4f')} |"
                )
        lines.append("")
    env = result["environment"]
    lines += environment_markdown(env) + [""]
    return "\n".join(lines)


def main(argv=None):
    return run_part(argv, doc=__doc__, stem="linear", datasets=DATASETS, bench=bench_dataset,
                    markdown=markdown, quick_help="smaller budget grids")


if __name__ == "__main__":
    sys.exit(main())
