"""``pegasos train``: the options made an estimator (:mod:`.build`), the data read, then
a fit with a progress bar, or cross-validation; the model saved and the numbers reported
as LIBSVM's and LIBLINEAR's tools report them.  A stream or a kernel map trains in
:mod:`.train_stream`."""

import functools
import itertools
import os
import sys
import time
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score

from .. import _memory, plotting
from .._memory import format_bytes
from .._progress import CHECKS_FOR_PLOT, Progress, linear_decision
from ._common import (
    _Failure,
    _label,
    _model_path,
    _print_json,
)
from ._data import (
    _accuracy,
    _class_weight_of_codes,
    _fit_labels,
    _fit_with,
    _laplace_text,
    _load_rows,
    _regression_metrics,
    _save,
)
from .build import _estimator
from .options import REGRESSION, UNLABELLED, _Numbered
from .train_stream import _train_map, _train_stream


def _check_weights_fit(X, n_classes, path):
    """Refuse data whose weight vectors cannot fit in memory; note very sparse index ranges."""
    d = X.shape[1]
    n_problems = 1 if n_classes == 2 else n_classes
    need = 3 * n_problems * (d + 1) * 8  # weights, their average, the model's coef_
    available = _memory.available_memory()  # (looked up when called, as a test sets it)
    if available is not None and need > available:
        raise _Failure(
            f"{path}: the largest feature index is {d}, so the model needs {n_problems} x {d} "
            f"weights ({format_bytes(need)} with the solver's state) but only "
            f"{format_bytes(available)} of memory is available; are the indices right?"
        )
    if need <= 100 * 2**20:
        return
    used = np.unique(X.indices).size if hasattr(X, "indices") else d  # only for large models
    if used < d / 100:
        print(f"pegasos: note: {path} uses {used} distinct feature indices up to {d}; the "
              f"model stores all {d} weights per problem ({need / 2**20:.0f} MB)", file=sys.stderr)


def run(args, parser):
    """``pegasos train``: read the options, the data (or stream them), fit or
    cross-validate, save, report."""
    model_path = _model_path(args)  # (the paths were checked before this module loaded)
    # (a file too large to load streams, as --stream, or was refused before this module
    # loaded: _common._stream_or_refuse)
    streamed = args.stream or any(value is not None for value in (
        args.buffer_rows, args.n_features, args.cache, args.holdout))
    est = _estimator(args, parser)
    if streamed:
        return _train_stream(args, parser, est, model_path)
    if args.map is not None:
        return _train_map(args, est, model_path)
    if args.solver != "pegasos" and args.plot and not args.test:
        parser.error("--plot with a kernel solver draws the test error against kernel "
                     "evaluations and time: give --test FILE")
    X, y = _load_rows(args.data, args.zero_based, getattr(est, "kernel", None))
    if args.solver in UNLABELLED:
        return _train_unlabelled(args, parser, est, X, y, model_path)
    classes = np.unique(y)
    if len(classes) < 2:
        raise _Failure(f"{args.data}: all examples have the label {_label(classes[0])}; "
                       "training needs at least 2 classes")
    if args.solver == "pegasos":
        _check_weights_fit(X, len(classes), args.data)
    if args.probability_estimates:
        est.set_params(probability=True)
    if args.cv is not None:
        return _cross_validate(args, parser, est, X, y)
    X_test = y_test = None
    if args.test:
        X_test, y_test = _load_rows(args.test, args.zero_based, getattr(est, "kernel", None),
                                    X.shape[1])
    return _train_fit(args, est, X, y, X_test, y_test, model_path)


def _train_unlabelled(args, parser, est, X, y, model_path):
    """``train -s one-class|svr|nu-svr``: fit on the rows (and their targets), save, and
    report as svm-train and svm-predict do -- the mean squared error and squared
    correlation of a regression, the share of rows predicted +1 by a one-class model (its
    accuracy against the file's labels with -v or --test)."""
    if args.plot:
        parser.error(f"--plot is for the classifiers; -s {args.solver} has no test error curve")
    if args.cv is not None:
        return _cross_validate_unlabelled(args, parser, est, X, y)
    if args.probability_estimates:  # (a regression: LIBSVM's Laplace model of its residuals)
        est.set_params(probability=True)
    X_test = y_test = None
    if args.test:
        X_test, y_test = _load_rows(args.test, args.zero_based, est.kernel, X.shape[1])
    if (isinstance(args.solver, _Numbered) and args.solver in REGRESSION
            and len(np.unique(y)) == 2 and not args.quiet):
        print(f"pegasos: note: -s {'3' if args.solver == 'svr' else '4'} is LIBSVM's "
              f"{'epsilon' if args.solver == 'svr' else 'nu'}-SVR: a regression of these two "
              "labels (LIBLINEAR's -s 3 and 4 are classifiers; a hinge-loss SVM here is "
              "-s pegasos, or -s 0 for SVC's)", file=sys.stderr)
    tic = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        est.fit(X, y) if args.solver in REGRESSION else est.fit(X)
    seconds = time.perf_counter() - tic
    _save(est, model_path)
    summary = {"data": args.data, "model": model_path, "solver": args.solver,
               "n_samples": int(X.shape[0]), "n_features": int(X.shape[1]),
               "kernel": est.kernel, "iterations": int(est.n_iter_),
               "support_vectors": int(len(est.support_)),
               "kernel_evaluations": est.n_kernel_evals_, "objective": est.objective_,
               "seconds": seconds}
    if est.kernel != "linear":
        summary["gamma"] = est.gamma_
    if hasattr(est, "epsilon_"):  # nu-SVR's epsilon, found by the fit
        summary["epsilon"] = est.epsilon_
    if hasattr(est, "probA_"):
        summary["laplace_scale"] = float(est.probA_[0])
    summary.update(_fit_quality(args.solver, est, X, y, "training"))
    if X_test is not None:
        summary.update(_fit_quality(args.solver, est, X_test, y_test, "test"))
    if args.json:
        _print_json(summary)
    elif not args.quiet:
        lines = [f"{args.data}: {summary['n_samples']} examples, {summary['n_features']} "
                 "features",
                 f"{args.solver} with the {est.kernel} kernel"
                 + (f" (gamma = {est.gamma_:.6g})" if "gamma" in summary else "")
                 + f": {summary['iterations']} iterations, {summary['kernel_evaluations']} "
                 f"kernel evaluations, {summary['support_vectors']} support vectors, "
                 f"{seconds:.3f} s",
                 f"obj = {est.objective_:.6g}, rho = {-est.intercept_[0]:.6g}"
                 + (f", epsilon = {est.epsilon_:.6g}" if "epsilon" in summary else "")]
        if "laplace_scale" in summary:
            lines.append(_laplace_text(summary["laplace_scale"]))
        lines += [_quality_text(summary, part) for part in ("training", "test")
                  if f"{part}_mean_squared_error" in summary or f"{part}_accuracy" in summary]
        lines.append(f"model written to {model_path}")
        print("\n".join(lines))
    return 0


def _fit_quality(solver, est, X, y, part):
    """A regression's mean squared error and squared correlation on (X, y), or a one-class
    model's share of rows predicted +1 and its accuracy against y (as svm-predict's)."""
    predicted = est.predict(X)
    if solver in REGRESSION:
        return {f"{part}_{key}": value for key, value in _regression_metrics(y, predicted).items()}
    return {f"{part}_inliers": float(np.mean(predicted == 1)),
            f"{part}_accuracy": float(np.mean(predicted == y))}


def _quality_text(summary, part):
    """The line of :func:`_fit_quality`'s numbers."""
    if f"{part}_mean_squared_error" in summary:
        return (f"{part} mean squared error = {summary[f'{part}_mean_squared_error']:.6g}, "
                f"squared correlation = {summary[f'{part}_squared_correlation']:.6g}")
    return (f"{part}: {100 * summary[f'{part}_inliers']:.4f}% predicted +1 (inliers); "
            f"accuracy against the labels = {100 * summary[f'{part}_accuracy']:.4f}%")


def _cross_validate_unlabelled(args, parser, est, X, y):
    """``-v N`` of a regression or one-class model: LIBSVM's cross validation, each row
    predicted by the model of the folds without it; svm-train's mean squared error and
    squared correlation over all rows (regression) or accuracy against the labels."""
    if args.cv < 2:
        parser.error(f"-v needs at least 2 folds; got {args.cv}")
    predicted = np.empty(len(y))
    gram = est.kernel == "precomputed"  # rows and columns of the training rows
    for train, test in KFold(args.cv, shuffle=True, random_state=args.seed).split(X):
        fold = clone(est)
        X_train = X[np.ix_(train, train)] if gram else X[train]
        fold.fit(X_train, y[train]) if args.solver in REGRESSION else fold.fit(X_train)
        predicted[test] = fold.predict(X[np.ix_(test, train)] if gram else X[test])
    summary = {"data": args.data, "folds": args.cv}
    if args.solver in REGRESSION:
        metrics = _regression_metrics(y, predicted)
        summary.update({f"cross_validation_{k}": v for k, v in metrics.items()})
        text = (f"Cross Validation Mean squared error = {metrics['mean_squared_error']:g}\n"
                f"Cross Validation Squared correlation coefficient = "
                f"{metrics['squared_correlation']:g}")
    else:
        accuracy = float(np.mean(predicted == y))
        summary["cross_validation_accuracy"] = accuracy
        text = f"Cross Validation Accuracy = {100 * accuracy:.4f}%"
    if args.json:
        _print_json(summary)
    else:
        print(text)
    return 0


def _train_fit(args, est, X, y, X_test, y_test, model_path):
    """Fit with a progress bar (recording the test error for --test/--plot), save, report."""
    classes = np.unique(y)
    linear = args.solver == "pegasos"
    plan = est.fit_plan(X.shape[0], len(classes)) if linear else None
    n_problems = 1 if len(classes) == 2 else len(classes)
    if linear and (args.plot is not None or args.test is not None):
        est.set_params(track_objective=True)  # the certificate at every check: the objective
        if est.tol is None:
            epochs = plan.n_iter * plan.batch_size / X.shape[0]
            est.set_params(check_every=max(epochs / CHECKS_FOR_PLOT, 1e-9))
    # the kernel solvers' budget is known once the fit resolves it: the bar learns it then
    total = plan.n_iter * n_problems if linear else None
    pairs = _pairs(est, classes)
    progress = Progress(total, args.quiet or args.json, X_test if linear or args.plot else None,
                        y_test, classes, linear_decision if linear
                        else functools.partial(est._report_scores, X_train=X), pairs)
    seconds = _fit_with(progress, est, _fit_labels, X, y)
    _save(est, model_path, args.keep_state)
    summary = {
        "data": args.data, "model": model_path, "solver": args.solver,
        "n_samples": int(X.shape[0]), "n_features": int(X.shape[1]),
        "classes": [_label(c) for c in est.classes_],
    }
    if linear:
        summary.update(lam=est.lam_, C=1.0 / (est.lam_ * X.shape[0]), iterations=est.t_)
    else:
        summary.update(kernel=est.kernel, iterations=int(np.sum(est.n_iter_)),
                       support_vectors=int(len(est.support_)),
                       kernel_evaluations=est.n_kernel_evals_)
        if est.kernel != "linear":  # the linear kernel has no gamma
            summary["gamma"] = est.gamma_
        if hasattr(est, "relative_gap_"):  # the classifiers' certificate, one per pair
            summary["relative_duality_gap"] = est.relative_gap_.tolist()
        if args.solver == "sbp":  # one nu, or one per one-vs-rest problem
            summary["nu"] = float(est.nu_[0]) if len(est.nu_) == 1 else est.nu_.tolist()
    summary.update(seconds=seconds, training_accuracy=_accuracy(est, X, y))
    if linear and est.duality_gap_ is not None and est.duality_gap_[0] is not None:
        summary["objective"] = [g.primal for g in est.duality_gap_]
        summary["relative_duality_gap"] = [g.relative_gap for g in est.duality_gap_]
    if X_test is not None:
        summary["test_accuracy"] = _accuracy(est, X_test, y_test)
    if args.plot:
        _plot(args, est, progress.history, pairs)
        summary["plot"] = args.plot
    if args.json:
        _print_json(summary)
    elif not args.quiet:
        print(_summary_text(summary))
    return 0


def _pairs(est, classes):
    """The labels of each problem's two classes when the model is one-vs-one, else None."""
    if len(classes) > 2 and getattr(est, "multi_class", "ovr") == "ovo":
        return _Pairs(classes)
    return None


class _Pairs:
    """The one-vs-one pairs of ``classes`` in LIBSVM's order, each made when it is read:
    k classes make k (k - 1) / 2 pairs, too many to list for a file of many labels (the
    fit refuses those, after this is made)."""

    def __init__(self, classes):
        self.classes = classes

    def __len__(self):
        return len(self.classes) * (len(self.classes) - 1) // 2

    def __iter__(self):
        return itertools.combinations(self.classes, 2)

    def __getitem__(self, p):
        if not 0 <= p < len(self):
            raise IndexError(p)
        first, k = 0, len(self.classes)
        while p >= k - 1 - first:  # pair (first, j) for j > first, first after first
            p -= k - 1 - first
            first += 1
        return self.classes[first], self.classes[first + 1 + p]


def _plot(args, est, history, pairs):
    """The training curves: one per problem, labelled by its class (or pair of classes)."""
    classes = est.classes_
    if pairs is not None:
        curves = {f"{_label(i)} vs {_label(j)}": history.get(p, {})
                  for p, (i, j) in enumerate(pairs)}
    else:
        curves = (history.get(0, {}) if len(classes) == 2 else
                  {f"{_label(classes[c])} vs rest": history.get(c, {})
                   for c in range(len(classes))})
    name = os.path.basename(args.data)
    if args.solver == "pegasos":
        plan = est.plan_
        plotting.plot_training(curves, args.plot, title=f"Pegasos on {name}, lambda={est.lam_:.3g}",
                      average_start=plan.avg_start(1) if plan.n_average else None)
    else:
        plotting.plot_kernel_training(curves, args.plot,
                             title=f"{args.solver} ({est.kernel} kernel) on {name}")


def _numbers(value):
    """A number, or a list of them, with 6 significant digits."""
    if isinstance(value, list):
        return "[" + ", ".join(f"{v:.6g}" for v in value) + "]"
    return f"{value:.6g}"


def _summary_text(summary):
    """Human-readable lines of a training summary (linear or kernel)."""
    lines = [f"{summary['data']}: {summary['n_samples']} examples, {summary['n_features']} "
             f"features, classes {', '.join(summary['classes'])}"]
    if "lam" in summary:
        lines.append(f"lambda = {summary['lam']:.6g} (C = {summary['C']:.6g}); "
                     f"{summary['iterations']} iterations in {summary['seconds']:.3f} s")
    else:
        lines.append(
            f"{summary['solver']} with the {summary['kernel']} kernel"
            + (f" (gamma = {summary['gamma']:.6g})" if "gamma" in summary else "")
            + (f", nu = {_numbers(summary['nu'])}" if "nu" in summary else "")
            + f": {summary['iterations']} iterations, {summary['kernel_evaluations']} kernel "
            f"evaluations, {summary['support_vectors']} support vectors, "
            f"{summary['seconds']:.3f} s")
    if "objective" not in summary and "relative_duality_gap" in summary:
        lines.append("relative duality gap = " + ", ".join(
            f"{v:.3g}" for v in summary["relative_duality_gap"]))
    if "objective" in summary:
        lines.append("objective = " + ", ".join(f"{v:.6g}" for v in summary["objective"])
                     + "; relative duality gap <= "
                     + ", ".join(f"{v:.3g}" for v in summary["relative_duality_gap"]))
    lines.append(f"training accuracy = {100 * summary['training_accuracy']:.4f}%")
    if "test_accuracy" in summary:
        lines.append(f"test accuracy = {100 * summary['test_accuracy']:.4f}%")
    lines.append(f"model written to {summary['model']}")
    if "plot" in summary:
        lines.append(f"plot written to {summary['plot']}")
    return "\n".join(lines)


def _cross_validate(args, parser, est, X, y):
    if args.cv < 2:
        parser.error(f"-v needs at least 2 folds; got {args.cv}")
    folds = StratifiedKFold(n_splits=args.cv, shuffle=True, random_state=args.seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # folds with few members of a class
        classes, codes = np.unique(y, return_inverse=True)
        est.set_params(class_weight=_class_weight_of_codes(est.class_weight, classes))
        if hasattr(est, "_check_feasible"):  # nu-SVC: nu checked on the whole set, as LIBSVM
            try:
                est._check_feasible(codes, np.ones(len(codes)))
            except ValueError as exc:
                raise _Failure(f"{args.data}: {exc}") from exc
        scores = cross_val_score(est._fold() if hasattr(est, "_fold") else est, X, codes,
                                 cv=folds)
    summary = {"data": args.data, "folds": args.cv, "cross_validation_accuracy": float(scores.mean()),
               "fold_accuracies": scores.tolist()}
    if args.json:
        _print_json(summary)
    else:
        print(f"Cross Validation Accuracy = {100 * scores.mean():.4f}%")
    return 0
