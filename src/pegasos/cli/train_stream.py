"""``pegasos train`` of a stream (``--stream``, and a file too large to load) and of a
kernel map (``--map nystroem``): linear Pegasos on rows it never holds all at once, or
on Nystroem's features."""

import os

from .._progress import Progress
from ..datasets import DataFormatError
from ..stream import BUFFER_ROWS, CacheError, SVMLightStream
from ._common import _Failure, _holdout_file, _label, _print_json, _reason
from ._data import _accuracy, _fit_labels, _fit_with, _load, _load_rows, _map_summary, _save
from .options import STREAM_NEEDS, _stream_refused


def _train_stream(args, parser, est, model_path):
    """``train --stream``: :class:`~pegasos.stream.SVMLightStream` into linear Pegasos."""
    refused = _stream_refused(args)
    why = {"--stream": not args.stream,
           "-s pegasos (or -s kernel-pegasos with --budget)": not (
               args.solver == "pegasos" or (args.solver == "kernel-pegasos"
                                            and args.budget is not None)),
           STREAM_NEEDS["lam"]: "lam" in refused, "no -v": args.cv is not None,
           **{STREAM_NEEDS[name]: name in refused for name in STREAM_NEEDS if name != "lam"}}
    for need, missing in why.items():
        if missing:
            parser.error(f"--stream, --buffer-rows, --n-features, --cache and --holdout "
                         f"need {need}")
    for name, value in (("--buffer-rows", args.buffer_rows), ("--n-features", args.n_features)):
        if value is not None and value < 1:
            parser.error(f"{name} must be >= 1; got {value}")
    holdout = _holdout_file(args.holdout)
    if holdout is None and args.holdout is not None:  # a number of rows
        if not (args.holdout.isdigit() and int(args.holdout) >= 1):
            parser.error(f"--holdout must be a whole number of rows >= 1 or a file; got "
                         f"{args.holdout}")
        holdout = int(args.holdout)
    elif holdout is not None:
        if not os.path.exists(holdout):
            raise _Failure(f"{holdout}: does not exist (--holdout takes a number of rows or "
                           "a file)")
        if os.path.isdir(holdout):
            raise _Failure(f"{holdout}: is a folder, not a data file (--holdout)")
    try:
        stream = SVMLightStream(args.data, zero_based=args.zero_based,
                                n_features=args.n_features,
                                buffer_rows=args.buffer_rows or BUFFER_ROWS,
                                cache=args.cache, holdout=holdout)
    except ValueError as exc:  # (a pattern matching no file is a DataFormatError: below)
        if isinstance(exc, DataFormatError):
            raise _Failure(str(exc)) from exc
        parser.error(str(exc))
    try:
        progress = Progress(None, args.quiet or args.json, None, None, None)
        seconds = _fit_with(progress, est, type(est).fit, stream)
        X_test, y_test = (None, None) if args.test is None else _load(
            args.test, args.zero_based, n_features=est.n_features_in_)
    except (DataFormatError, CacheError) as exc:
        raise _Failure(str(exc)) from exc
    except OSError as exc:
        raise _Failure(f"cannot read {args.data}: {_reason(exc)}") from exc
    _save(est, model_path, args.keep_state)
    summary = {"data": args.data, "model": model_path, "solver": args.solver,
               "rows_read": int(est.n_rows_read_), "n_features": int(est.n_features_in_),
               "classes": [_label(c) for c in est.classes_], "lam": est.lam_,
               "iterations": getattr(est, "t_", None) or est.n_iter_, "seconds": seconds}
    if hasattr(est, "holdout_errors_"):
        summary["holdout_error"] = float(est.holdout_errors_[-1, 1]) \
            if len(est.holdout_errors_) else None
    return _finish(args, est, summary, (X_test, y_test), [
        f"{args.data}: {summary['rows_read']} rows read, {summary['n_features']} features, "
        f"classes {', '.join(summary['classes'])}",
        f"lambda = {est.lam_:.6g}; {summary['iterations']} iterations in {seconds:.3f} s"
        + (f"; {len(est.support_)} support vectors (budget {est.budget})"
           if getattr(est, "budget", None) is not None else "")])


def _finish(args, est, summary, test, lines):
    """A train summary with the test accuracy (``test``: the rows and labels, or None),
    printed as JSON or as ``lines`` and the accuracy; the model's path last."""
    if test[0] is not None:
        summary["test_accuracy"] = _accuracy(est, *test)
        lines = [*lines, f"test accuracy = {100 * summary['test_accuracy']:.4f}%"]
    if args.json:
        _print_json(summary)
    elif not args.quiet:
        print("\n".join([*lines, f"model written to {summary['model']}"]))
    return 0


def _train_map(args, est, model_path):
    """``train --map`` in memory: map the rows a block at a time, fit, save, report."""
    X, y = _load_rows(args.data, args.zero_based, None)
    X_test = y_test = None
    if args.test:
        X_test, y_test = _load_rows(args.test, args.zero_based, None, X.shape[1])
    progress = Progress(None, args.quiet or args.json, None, None, None)
    seconds = _fit_with(progress, est, _fit_labels, X, y)
    _save(est, model_path)
    summary = {"data": args.data, "model": model_path, "solver": args.solver,
               "map": _map_summary(est), "n_samples": int(X.shape[0]),
               "n_features": int(X.shape[1]), "classes": [_label(c) for c in est.classes_],
               "lam": est.lam_, "iterations": est.t_, "seconds": seconds,
               "training_accuracy": _accuracy(est, X, y)}
    return _finish(args, est, summary, (X_test, y_test), [
        f"{args.data}: {X.shape[0]} rows, {X.shape[1]} features, classes "
        f"{', '.join(summary['classes'])}", f"kernel map: {summary['map']['text']}",
        f"lambda = {est.lam_:.6g}; {est.t_} iterations in {seconds:.3f} s",
        f"training accuracy = {100 * summary['training_accuracy']:.4f}%"])
