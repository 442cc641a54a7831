"""``pegasos predict``: svm-predict's and LIBLINEAR's predict -- labels (or a
regression's values, a one-class model's +1/-1), with ``-b 1`` probabilities, with
``--decision-values`` the decision values, and the accuracy against the file's labels."""

import sys

import numpy as np
from sklearn.base import is_regressor

from .._files import write_atomic
from ..datasets import DataFormatError
from ..stream import read_blocks
from ._common import _Failure, _label, _note, _print_json, _reason, _too_large, _too_large_text
from ._data import _laplace_text, _load, _load_model, _load_rows, _regression_metrics


def run(args, parser):
    """``pegasos predict``: the model's predictions of DATA's rows (a block of rows at a
    time for a file too large to load) written, and their accuracy reported (the paths
    were checked before this module loaded)."""
    est = _load_model(args.model)
    _check_predict_options(args, parser, est)
    if getattr(est, "kernel", None) == "precomputed":  # LIBSVM's -t 4 rows: K(x, training rows)
        (X, y), ignored = _load_rows(args.data, True, "precomputed", est.n_features_in_,
                                     int(est.support_.max(initial=0)) + 1), 0
        parts = [(X, y, ignored)]
    elif (found := _too_large(args.data)) is not None:  # (a row's prediction is its own)
        _note(args, _too_large_text(found) + ": predicting it a block of rows at a time",
              err=True)
        parts = _blocks_of(args.data, args.zero_based, est.n_features_in_)
    else:
        parts = [_load(args.data, args.zero_based, n_features=est.n_features_in_,
                       counted=True)]
    lines, ys, predictions, ignored = [], [], [], 0
    for X, y, dropped in parts:
        text, predicted = _predict_rows(args, est, X)
        lines.append(text)
        ys.append(y)
        predictions.append(predicted)
        ignored += dropped
    if ignored and not (args.quiet or args.json):
        print(f"pegasos: note: {ignored} values of features beyond the model's "
              f"{est.n_features_in_} were ignored", file=sys.stderr)
    y, predicted = np.concatenate(ys), np.concatenate(predictions)
    summary = {"data": args.data, "model": args.model, "n_samples": int(len(y))}
    if hasattr(est, "classes_"):
        correct = int(np.sum(predicted == y))
        summary.update(correct=correct, accuracy=correct / len(y),
                       ignored_feature_values=ignored,
                       **_binary_metrics(est.classes_, y, predicted))
        text = f"Accuracy = {100 * summary['accuracy']:.4f}% ({correct}/{len(y)})"
    else:
        text = _unlabelled_summary(args, est, y, predicted, summary)
    return _write_predictions(args, "".join(lines), summary, text)


def _blocks_of(path, zero_based, n_features):
    """(X, y, values ignored beyond ``n_features``) of each block of rows of the file
    ``path`` (:func:`~pegasos.stream.read_blocks`), as wide as the model's
    ``n_features``: what :func:`_load` gives of a whole file, a block at a time."""
    try:
        for X, y in read_blocks(path, zero_based=zero_based):
            ignored = 0
            if X.shape[1] > n_features:
                ignored = int((X.indices >= n_features).sum())
                X = X[:, :n_features].tocsr()
            elif X.shape[1] < n_features:  # (the same arrays, wider)
                X = type(X)((X.data, X.indices, X.indptr), shape=(X.shape[0], n_features),
                            copy=False)
            yield X, y, ignored
    except DataFormatError as exc:
        raise _Failure(str(exc)) from exc
    except OSError as exc:
        raise _Failure(f"cannot read {path}: {_reason(exc)}") from exc


def _check_predict_options(args, parser, est):
    """Refuse, before the data are read, options the model cannot answer."""
    if args.probability_estimates and args.decision_values:
        parser.error("-b 1 and --decision-values each write their own columns; choose one")
    if hasattr(est, "classes_"):
        if args.probability_estimates and (not getattr(est, "probability", False)
                                           or "probA_" not in vars(est)):
            raise _Failure(f"{args.model} has no probability estimates; train it with -b 1")
        return
    regression = is_regressor(est)
    if args.probability_estimates and not regression:
        raise _Failure(f"{args.model} is a one-class model: -b 1 (probability estimates) is "
                       "for classifiers and regressions")
    if args.probability_estimates and not hasattr(est, "probA_"):
        raise _Failure(f"{args.model} has no probability model; train it with -b 1")
    if regression and args.decision_values:
        parser.error(f"{args.model} is a regression model: its prediction is its decision "
                     "value (--decision-values is for classifiers and one-class models)")


def _predict_rows(args, est, X):
    """(the prediction lines, the predictions) of the rows X: a classifier's labels (with
    -b 1 its probabilities, with --decision-values its decision values, in LIBSVM's
    layout), a regression's values (svm-predict's ``%.17g``), a one-class model's +1 or
    -1 (with --decision-values, and the decision values)."""
    if hasattr(est, "classes_"):
        if args.probability_estimates:
            proba = est.predict_proba(X)
            predicted = est.classes_[np.argmax(proba, axis=1)]
            return _decision_lines(est.classes_, predicted, proba, per_class=True), predicted
        predicted = est.predict(X)
        if args.decision_values:
            return _decision_lines(est.classes_, predicted, est.decision_function(X)), predicted
        return "".join(_label(v) + "\n" for v in predicted), predicted
    predicted = est.predict(X)
    if is_regressor(est):
        return "".join(f"{v:.17g}\n" for v in predicted), predicted
    if args.decision_values:
        return _decision_lines(np.array([-1, 1]), predicted, est.decision_function(X)), predicted
    return "".join(f"{v:d}\n" for v in predicted), predicted


def _write_predictions(args, lines, summary, text):
    """Write the prediction ``lines`` to OUTPUT (atomically) or standard output, and the
    ``summary`` (JSON) or ``text`` to the other stream, as svm-predict does."""
    if args.output:
        try:
            write_atomic(args.output, lambda f: f.write(lines), mode="w")
        except OSError as exc:
            raise _Failure(f"cannot write the predictions {args.output}: {_reason(exc)}") from exc
        summary["output"] = args.output
        report = sys.stdout
    else:
        sys.stdout.write(lines)
        report = sys.stderr
    if args.json:
        _print_json(summary, report)
    elif not args.quiet:
        print(text, file=report)
    return 0


def _unlabelled_summary(args, est, y, predicted, summary):
    """A regression's (its mean squared error and squared correlation, and with -b 1 its
    Laplace scale) or a one-class model's (the share predicted +1, and the accuracy
    against the file's labels) summary, added to ``summary``; returns its text."""
    if is_regressor(est):
        summary.update(_regression_metrics(y, predicted))
        text = (f"Mean squared error = {summary['mean_squared_error']:g} (regression)\n"
                f"Squared correlation coefficient = {summary['squared_correlation']:g} "
                "(regression)")
        if args.probability_estimates:  # (the predictions are the same: svm-predict's -b 1)
            summary["laplace_scale"] = float(est.probA_[0])
            text = _laplace_text(summary["laplace_scale"]) + "\n" + text
        return text
    correct = int(np.sum(predicted == y))
    summary.update(correct=correct, accuracy=correct / len(y),
                   inliers=float(np.mean(predicted == 1)))
    return f"Accuracy = {100 * summary['accuracy']:.4f}% ({correct}/{len(y)})"


def _decision_lines(classes, predicted, scores, per_class=False):
    """LIBSVM's -b layout: a ``labels`` header naming each column's class, then the
    predicted label and the values, one example per line.  Decision values of two
    classes are one column, positive for the second class; probabilities
    (``per_class``) have a column per class."""
    columns = [classes[1]] if scores.ndim == 1 and not per_class else list(classes)
    scores = scores.reshape(len(predicted), -1)
    out = ["labels " + " ".join(_label(c) for c in columns) + "\n"]
    out += [_label(p) + " " + " ".join(f"{v:.17g}" for v in row) + "\n"
            for p, row in zip(predicted, scores)]
    return "".join(out)


def _binary_metrics(classes, y, predicted):
    """Precision, recall and F1 of the positive class (the second), for two classes.

    Counted here rather than by scikit-learn, whose metrics refuse labels
    such as 1.5 and -2.5 as continuous (LIBSVM's labels are any numbers).
    """
    if len(classes) != 2:
        return {}
    truth, said = np.asarray(y) == classes[1], np.asarray(predicted) == classes[1]
    tp = int(np.sum(truth & said))
    p = tp / int(np.sum(said)) if np.any(said) else 0.0
    r = tp / int(np.sum(truth)) if np.any(truth) else 0.0
    f = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return {"positive_class": _label(classes[1]), "precision": float(p), "recall": float(r),
            "f1": float(f)}
