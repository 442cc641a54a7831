"""The ``pegasos`` command: ``train`` and ``predict`` in the spirit of LIBLINEAR's
``train``/``predict`` and LIBSVM's ``svm-train``/``svm-predict``, and ``demo``.

    pegasos train [options] DATA [MODEL]
    pegasos predict [options] DATA MODEL [OUTPUT]
    pegasos export --format liblinear MODEL OUT
    pegasos import [-l LAMBDA] LIBLINEAR_MODEL OUT
    pegasos info MODEL
    pegasos demo
    pegasos compile
    pegasos --version

Exit status: 0 on success, 1 for unusable data or model files, paths that
cannot be read or written, an output path that names an input (or another
output: nothing a command reads is ever overwritten), or input the
estimators refuse (one line ``pegasos: error: ...`` naming the file, and the
line for data files; never a traceback), 2 for wrong options (also options
that the chosen solver does not take), 130 when interrupted.  Labels are
read as LIBSVM reads them: any numbers, each distinct value a class.
Warnings (a tolerance not reached) are one line ``pegasos: warning: ...`` on
stderr.

One line of work, as LIBLINEAR's ``train.c``: parse the command line (here), check
the files it names (here, before anything heavy loads), then the command's module:
:mod:`.options` (what each solver takes and why not, the solver-dependent defaults),
:mod:`.build` (the estimator the options describe), :mod:`.train` and
:mod:`.train_stream`, :mod:`.predict`, :mod:`.info`, :mod:`.formats` (export, import,
convert), :mod:`.compile`, :mod:`.demo`.
"""

import argparse
import importlib
import os
import re
import sys
import warnings

from .. import __version__
from ._common import (
    _check_inputs,
    _check_paths,
    _Failure,
    _holdout_file,
    _model_path,
    _reason,
    _stream_or_refuse,
    _too_large,
)
from .options import DEMO_DATASETS, _solver

# Only the standard library at import: ``pegasos --help``, ``--version`` and a
# mistyped option answer before NumPy, scikit-learn or Numba load (measured by
# ``python -m benchmarks.startup``).  A command's module (``.train``, ``.predict``, ...)
# is imported when the command runs, after the files it names are checked
# (:data:`COMMANDS`): a bad path is answered before anything heavy loads.


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error in one line (status 2, as argparse's own).

    argparse prints the whole usage block (eight lines for ``train``) above
    the error; here the line names the command, the problem and where the
    options are listed: ``pegasos train: error: ...; see pegasos train --help``.
    """

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message.rstrip('.')}; see {self.prog} --help\n")


def _train_parser(sub):
    p = sub.add_parser(
        "train",
        help="train a model on a LIBSVM/SVMlight file",
        description="Train an SVM on DATA (LIBSVM format; plain, .gz, .bz2 or .xz) and write "
        "MODEL (default: DATA's file name + '.model', in the current folder).",
    )
    p.add_argument("data", metavar="DATA")
    p.add_argument("model", metavar="MODEL", nargs="?")
    p.add_argument("-s", "--solver", type=_solver, default="pegasos",
                   help="pegasos (linear, default), kernel-pegasos, sbp (stochastic batch "
                   "perceptron), perceptron (kernel perceptron), or LIBSVM's problems by the "
                   "working-set dual solver: svc, nu-svc, one-class, svr, nu-svr (also "
                   "LIBSVM's numbers 0-4, with LIBSVM's default gamma 1/num_features)")
    p.add_argument("-t", "--kernel", default=None, metavar="KERNEL",
                   help="kernel of the kernel solvers: linear, poly, rbf (default), sigmoid, or "
                   "LIBSVM's numbers 0-3")
    p.add_argument("-g", "--gamma", default=None, metavar="GAMMA",
                   help="kernel gamma, or 'scale'/'auto' as in SVC (default scale)")
    p.add_argument("-r", "--coef0", type=float, default=None,
                   help="kernel coef0 (poly, sigmoid; default 0)")
    p.add_argument("-d", "--degree", type=int, default=None,
                   help="degree of the poly kernel (default 3)")
    p.add_argument("-m", "--cache-size", type=float, default=None, metavar="MB",
                   help="the dual solvers: memory for kept kernel columns (default 200); the "
                        "stochastic kernel solvers accept it for LIBSVM's habit, with no "
                        "effect (they compute columns a mini-batch at a time)")
    p.add_argument("--shrinking", type=int, choices=(0, 1), default=None, metavar="0|1",
                   help="the dual solvers: LIBSVM's -h 0|1 (also spelled so: -h followed by a "
                        "number), its shrinking heuristic; accepted with no effect: the working "
                        "sets do not shrink, and shrinking changes LIBSVM's speed, not its model")
    p.add_argument("-n", "--nu", type=float, default=None,
                   help="nu of nu-svc, one-class and nu-svr (default 0.5, as LIBSVM's), or "
                        "SBP's slack budget (default: estimated from C by one pass of kernel "
                        "Pegasos)")
    p.add_argument("-p", "--epsilon", type=float, default=None,
                   help="-s svr: the width of the tube of no loss (default 0.1, as LIBSVM's)")
    reg = p.add_mutually_exclusive_group()
    reg.add_argument("-c", "--cost", type=float, metavar="C",
                     help="LIBLINEAR's C: lambda = 1 / (C * n) (default: C = 1)")
    reg.add_argument("-l", "--lam", type=float, metavar="LAMBDA", help="regularisation lambda")
    p.add_argument("-B", "--bias", type=float, default=None, metavar="B",
                   help="value of the intercept feature, regularised as in LIBLINEAR (default 1; "
                   "-1: no intercept)")
    p.add_argument("--unregularized-bias", action="store_true",
                   help="learn a free intercept instead of the -B feature")
    p.add_argument("-k", "--batch-size", type=int, default=None, metavar="K",
                   help="examples per iteration (default 1; kernel Pegasos: 16)")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--iter", type=int, metavar="T",
                        help="Pegasos iterations (default: ceil(10 / lambda); the "
                        "perceptron: 10 passes; the dual solvers (-s svc...): SMO's pair "
                        "steps at most per problem, as SVC's max_iter, default no limit)")
    budget.add_argument("--epochs", type=float, metavar="E", help="passes over the data instead")
    p.add_argument("--sampling", choices=("uniform", "permutation", "cyclic"), default=None,
                   help="sample order (default: the solver's own; uniform for Pegasos, "
                   "permutation for the perceptron)")
    p.add_argument("--average", default=None, metavar="A",
                   help="output: 'last', 'all', or the fraction of last iterates averaged "
                   "(default 0.5; -s sbp and perceptron: 'all' or 'last', default all)")
    p.add_argument("--no-projection", action="store_true")
    p.add_argument("-e", "--tol", type=float, metavar="TOL",
                   help="stop when the relative duality gap is below TOL (-s svc: when the "
                   "largest violation of the optimality conditions is, as LIBSVM's -e; "
                   "default 0.001)")
    p.add_argument("-w", "--weight", action="append", default=[], metavar="LABEL:WEIGHT",
                   help="class weight (repeatable), as LIBLINEAR's -wi")
    p.add_argument("--balanced", action="store_true", help="class weights n / (k * count)")
    p.add_argument("-b", "--probability-estimates", type=int, choices=(0, 1), default=0,
                   metavar="{0,1}", help="1: also fit probability estimates (Platt scaling by "
                   "5-fold cross-validation, as LIBSVM's -b 1; 5 more fits; -s svr|nu-svr: "
                   "the Laplace scale of the cross-validated residuals)")
    p.add_argument("-v", "--cv", type=int, metavar="N",
                   help="N-fold cross validation: report accuracy, write no model")
    p.add_argument("--test", metavar="FILE", help="test file: report its error during training")
    p.add_argument("--stream", action="store_true",
                   help="-s pegasos with -l: train without loading DATA, drawing from a shuffle "
                        "buffer refilled as rows are drawn (reads about the buffer plus the "
                        "examples drawn; a file that fits the buffer trains as in memory)")
    p.add_argument("--buffer-rows", type=int, default=None, metavar="N",
                   help="--stream: rows in the shuffle buffer (default 65536)")
    p.add_argument("--n-features", type=int, default=None, metavar="N",
                   help="--stream: the number of features (default: the largest index of the "
                        "first buffer's rows)")
    p.add_argument("--cache", metavar="FILE", default=None,
                   help="--stream: a cache file, used if it holds DATA, else written by the "
                        "first pass; later draws are uniform over all its rows (as Vowpal "
                        "Wabbit's --cache_file)")
    p.add_argument("--holdout", metavar="ROWS|FILE", default=None,
                   help="--stream: stop when the error on DATA's first ROWS rows (not trained "
                        "on) or on FILE stops falling")
    _map_arguments(p)
    p.add_argument("--keep-state", action="store_true",
                   help="linear models: also write the solver state (two numbers per training "
                   "row), so that the model continues training in Python exactly "
                   "(save_model's solver_state); without it the file holds the model alone")
    p.add_argument("--plot", metavar="FILE",
                   help="draw objective and test error against iterations and time (PNG/SVG)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--zero-based", action="store_true", help="feature indices start at 0")
    p.add_argument("-q", "--quiet", action="store_true")
    p.add_argument("--json", action="store_true", help="print a JSON summary on stdout")
    return p


def _map_arguments(p):
    p.add_argument("--map", choices=("nystroem",), default=None,
                   help="-s pegasos on a kernel map: Nystroem's features on --components "
                        "landmarks, the kernel set by -t, -g, -r, -d (with --stream, the "
                        "landmarks and gamma come from the first buffer)")
    p.add_argument("--components", type=int, default=None, metavar="N",
                   help="--map: the landmarks, the map's dimension (default 1000)")
    p.add_argument("--landmarks", choices=("uniform", "kmeans"), default=None,
                   help="--map: training rows drawn uniformly (default) or k-means centres")
    p.add_argument("--map-solver", choices=("map", "landmark"), default=None,
                   help="--map: Pegasos on the mapped rows (map, the default) or kept in the "
                        "landmarks' coefficients (landmark: a row costs its kernel values, a "
                        "batch of -k rows one m x m product)")
    p.add_argument("--budget", type=int, default=None, metavar="B",
                   help="-s kernel-pegasos or perceptron: keep at most B support vectors "
                        "(BSGD); the model is then the last iterate unless --average is given")
    p.add_argument("--budget-strategy", choices=("merge", "remove", "project"), default=None,
                   help="--budget: how the budget is kept (default merge, rbf only)")


def _predict_parser(sub):
    p = sub.add_parser(
        "predict",
        help="predict the labels of a LIBSVM/SVMlight file",
        description="Predict the labels of DATA with MODEL; write one label per line to OUTPUT "
        "(or to standard output) and report the accuracy against DATA's labels.",
    )
    p.add_argument("data", metavar="DATA")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("output", metavar="OUTPUT", nargs="?")
    p.add_argument("-b", "--probability-estimates", type=int, choices=(0, 1), default=0,
                   metavar="{0,1}", help="1: write probability estimates, as LIBSVM's "
                   "svm-predict -b 1 (the model must be trained with -b 1; a regression "
                   "reports its residuals' Laplace scale)")
    p.add_argument("--decision-values", action="store_true",
                   help="write decision values too: a 'labels' header naming each column's "
                   "class, then the predicted label and one value per column on each line")
    p.add_argument("--zero-based", action="store_true", help="feature indices start at 0")
    p.add_argument("-q", "--quiet", action="store_true")
    p.add_argument("--json", action="store_true", help="print a JSON summary on stdout")
    return p


def _export_parser(sub):
    p = sub.add_parser("export", help="write a model in LIBLINEAR's or LIBSVM's model format",
                       description="Write MODEL as OUT in LIBLINEAR's text model format (a "
                       "linear model), which LIBLINEAR's own predict reads, or in LIBSVM's (a "
                       "model of -s svc, nu-svc, one-class, svr or nu-svr), which LIBSVM's "
                       "svm-predict reads.")
    p.add_argument("--format", choices=("liblinear", "libsvm"), default=None,
                   help="default: libsvm for the dual solvers' models, liblinear for the rest")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("output", metavar="OUT")
    return p


def _convert_parser(sub):
    p = sub.add_parser(
        "convert", help="parse LIBSVM files once into a cache that train and predict map",
        description="Parse DATA (one or more LIBSVM files, plain or compressed, or glob "
        "patterns of shards) a block at a time into CACHE, a binary file that train and "
        "predict take in place of DATA and memory-map instead of parsing (as Vowpal Wabbit's "
        "--cache_file). Written atomically; never over an input.")
    p.add_argument("paths", metavar="DATA", nargs="+", help="the data files, then CACHE")
    p.add_argument("--zero-based", action="store_true", help="feature indices start at 0")
    p.add_argument("--float32", action="store_true",
                   help="store the values as float32 (half the size; the linear solver "
                        "computes in float64 and converts them in memory)")
    p.add_argument("--block-mb", type=float, default=16.0, metavar="MB",
                   help="megabytes parsed at a time (default 16): memory holds one block")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    return p


def _import_parser(sub):
    p = sub.add_parser("import", help="read a LIBLINEAR or LIBSVM model file into a pegasos "
                       "model",
                       description="Read MODEL_FILE (a LIBLINEAR classifier's model file, as "
                       "LIBLINEAR's train writes it, or any LIBSVM model, as svm-train writes "
                       "it: told apart by their first line) and write it as the pegasos model "
                       "OUT.")
    p.add_argument("model", metavar="MODEL_FILE")
    p.add_argument("output", metavar="OUT")
    p.add_argument("-l", "--lam", type=float, default=None,
                   help="LIBLINEAR's: the lambda it was trained for, 1 / (C n) (not in "
                   "LIBLINEAR's files; default 1e-4); used by duality gaps and continued "
                   "training")
    return p


def _info_parser(sub):
    p = sub.add_parser("info", help="describe a model file",
                       description="Print what MODEL holds: estimator, parameters, classes, "
                       "features, support vectors, format version.")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--json", action="store_true", help="print a JSON summary instead")
    return p


def _compile_parser(sub):
    p = sub.add_parser(
        "compile", help="compile every solver into Numba's cache ahead of use",
        description="Compile the solvers for every input kind (dense float64 and float32, "
        "CSR with int32 and int64 indices) into Numba's on-disk cache, so that no later fit "
        "or prediction waits for the compiler: once per install (an image, CI). Reports the "
        "time; a second run only loads the cache.")
    p.add_argument("--json", action="store_true", help="print a JSON summary instead")
    return p


def _demo_parser(sub):
    p = sub.add_parser(
        "demo", help="what the library is for, in about half a minute: Pegasos against "
        "LIBLINEAR and SGDClassifier as the rows grow, DualSVC against SVC on digits"
    )
    p.add_argument("--dataset", choices=DEMO_DATASETS, default="generated",
                   help="the linear comparison's data: a generated sparse set at 25,000 to "
                   "200,000 rows (default), or a bundled set")
    p.add_argument("--lam", type=float, default=None,
                   help="lambda of the linear comparison (default: 1e-5 on the generated "
                   "set; 1/n, i.e. C=1, on a bundled set)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--plot", metavar="FILE", default="pegasos_demo.png",
                   help="where to draw the figure: test error against time and fit time "
                   "against rows, or Pegasos' training curves on a bundled set "
                   "(default: pegasos_demo.png)")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--json", action="store_true", help="print a JSON summary instead")
    return p


_WEIGHT_OPTION = re.compile(r"-w(-?[0-9][0-9.eE+-]*)\Z")  # LIBLINEAR's -wi WEIGHT
_NUMBER = re.compile(r"[+-]?[0-9][0-9.eE+-]*\Z")


def _liblinear_spellings(argv):
    """LIBLINEAR's ``-wi WEIGHT`` (``-w1 2``, ``-w-1 0.5``) as ``--weight=i:WEIGHT``, a
    ``-w``/``--weight`` value that starts with a minus sign (``-w -1:0.5``) kept as a value,
    and LIBSVM's ``-h 0``/``-h 1`` (shrinking: ``-h`` followed by a number) as
    ``--shrinking=N``; ``-h`` followed by anything else is the help."""
    out, i = [], 0
    while i < len(argv):
        token = argv[i]
        if token == "-h" and i + 1 < len(argv) and _NUMBER.match(argv[i + 1]):
            out.append(f"--shrinking={argv[i + 1]}")
            i += 2
            continue
        match = _WEIGHT_OPTION.match(token)
        if match and i + 1 < len(argv):
            out.append(f"--weight={match[1]}:{argv[i + 1]}")
            i += 2
            continue
        if token in ("-w", "--weight") and i + 1 < len(argv) and argv[i + 1].startswith("-"):
            out.append(f"--weight={argv[i + 1]}")
            i += 2
            continue
        out.append(token)
        i += 1
    return out


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """Warnings (a fit that did not converge) as one line on stderr, as errors are."""
    print(f"pegasos: warning: {message}", file=sys.stderr)


def _train_files(args):
    outputs = [(_model_path(args), "model")] if args.cv is None else []
    if args.plot:
        outputs.append((args.plot, "plot"))
    if args.cache:
        outputs.append((args.cache, "cache"))
    return outputs, [(args.data, "data file"), (args.test, "test file"),
                     (_holdout_file(args.holdout), "holdout file")]


def _check_train(args):
    """``train``'s files, and a data file too large to load: streamed where the options
    allow (``args.stream`` set), else refused with the command that trains it."""
    _check_paths(*_train_files(args))
    if not args.stream and all(value is None for value in (
            args.buffer_rows, args.n_features, args.cache, args.holdout)):
        _stream_or_refuse(args, _model_path(args), _too_large(args.data))


#: Each command: its parser, the module and function that run it (imported when it
#: runs), the check of the files it writes and reads (``None``: it checks its own, after
#: its usage checks), and whether it may compile (a note on stderr while Numba compiles).
COMMANDS = {
    "train": (_train_parser, "train", "run", _check_train, True),
    "predict": (_predict_parser, "predict", "run", lambda a: _check_paths(
        [(a.output, "predictions")] if a.output else [],
        [(a.data, "data file"), (a.model, "model")]), True),
    "demo": (_demo_parser, "demo", "run", None, True),
    "export": (_export_parser, "formats", "_export", lambda a: _check_paths(
        [(a.output, "exported model")], [(a.model, "model")]), False),
    "import": (_import_parser, "formats", "_import", lambda a: _check_paths(
        [(a.output, "model")], [(a.model, "model file")]), False),
    "convert": (_convert_parser, "formats", "_convert", None, False),
    "info": (_info_parser, "info", "run", lambda a: _check_inputs([(a.model, "model")]), False),
    "compile": (_compile_parser, "compile", "run", None, False),
}


def _run(args, parser):
    """Check the command's files, then run it: its function, from its module."""
    _, module, function, check, compiles = COMMANDS[args.command]
    if check is not None:  # (before the module loads: a bad path answers at once)
        check(args)
    # the command's module, imported only now: --help, --version and usage errors load
    # none of them (nor NumPy, scikit-learn, Numba)
    run = getattr(importlib.import_module(f".{module}", __name__), function)
    if not compiles:
        return run(args, parser)
    from .compile import _compile_notice  # (Numba's events: a command that compiles)

    with _compile_notice(getattr(args, "quiet", False)):
        return run(args, parser)


def main(argv=None):
    parser = _Parser(prog="pegasos", description="Support vector machines trained by Pegasos.")
    parser.add_argument("-V", "--version", action="version", version=f"pegasos {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    parsers = {name: entry[0](sub) for name, entry in COMMANDS.items()}
    args = parser.parse_args(_liblinear_spellings(sys.argv[1:] if argv is None else argv))
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            status = _run(args, parsers[args.command])
        sys.stdout.flush()
        return status
    except _Failure as exc:
        print(f"pegasos: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (``pegasos demo | head``): not an error here.
        # Point stdout at devnull so that the exit flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print("pegasos: interrupted", file=sys.stderr)
        return 130
    except MemoryError:
        print(f"pegasos: error: out of memory running {args.command}", file=sys.stderr)
        return 1
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        print(f"pegasos: error: {_reason(exc)}{where}", file=sys.stderr)
        return 1
    except ValueError as exc:  # the estimators' own checks (parameters, data)
        print(f"pegasos: error: {exc}", file=sys.stderr)
        return 1

