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
"""

import argparse
import contextlib
import json
import lzma
import math
import os
import re
import shlex
import sys
import time
import warnings
import zlib

from ._memory import format_bytes
from ._numba.codes import KERNEL_TABLE, KERNEL_TYPES
from ._progress import CHECKS_FOR_PLOT, Progress, linear_decision
from ._svmlight import is_number

# Only the standard library at import: ``pegasos --help``, ``--version`` and a
# mistyped option answer before NumPy, scikit-learn or Numba load (measured by
# ``python -m benchmarks.startup``); each command imports what it uses.

DEMO_DATASETS = ("generated", "breast_cancer", "digits")
SOLVERS = ("pegasos", "kernel-pegasos", "sbp", "perceptron", "svc", "nu-svc", "one-class",
           "svr", "nu-svr")
KERNEL_SOLVERS = SOLVERS[1:]
STOCHASTIC = SOLVERS[:4]  # the solvers with a budget of draws
DUAL = SOLVERS[4:]  # LIBSVM's five problems, by the working-set solver
#: the dual solvers whose output is a number or +1/-1, not one of the file's classes
UNLABELLED = ("one-class", "svr", "nu-svr")
REGRESSION = ("svr", "nu-svr")
#: LIBSVM's svm-train -s numbers
LIBSVM_NUMBERS = {"0": "svc", "1": "nu-svc", "2": "one-class", "3": "svr", "4": "nu-svr"}
#: LIBSVM's -t numbers
KERNEL_NAMES = {str(k.libsvm): k.name for k in KERNEL_TABLE}


class _Failure(Exception):
    """An error to report as ``pegasos: error: ...`` with exit status 1."""


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error in one line (status 2, as argparse's own).

    argparse prints the whole usage block (eight lines for ``train``) above
    the error; here the line names the command, the problem and where the
    options are listed: ``pegasos train: error: ...; see pegasos train --help``.
    """

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message.rstrip('.')}; see {self.prog} --help\n")


# --------------------------------------------------------------------- train


# LIBLINEAR's solver numbers beyond LIBSVM's (0-4, read as svm-train reads them).
_NUMBERED = {
    "5": "LIBLINEAR's L1-regularised SVM (not available here)",
    "6": "LIBLINEAR's L1-regularised logistic regression (not available here)",
    "7": "LIBLINEAR's logistic regression (dual; not available here)",
}


class _Numbered(str):
    """A solver given by LIBSVM's number (``-s 0`` to ``-s 4``): LIBSVM's defaults apply
    (gamma = 1 / the number of features)."""


def _solver(text):
    """A solver name, or LIBSVM's svm-train number; LIBLINEAR's other numbers get a message
    naming what they are."""
    if text in SOLVERS:
        return text
    if text in LIBSVM_NUMBERS:  # svm-train's -s (LIBLINEAR's 0-4 mean other solvers)
        return _Numbered(LIBSVM_NUMBERS[text])
    if text.isdigit():
        meaning = _NUMBERED.get(text, "not a LIBSVM solver (0-4)")
        raise argparse.ArgumentTypeError(
            f"-s {text} is {meaning}; -s takes a name ({', '.join(SOLVERS)}) or LIBSVM's "
            "numbers 0-4 (C-SVC, nu-SVC, one-class, epsilon-SVR, nu-SVR)"
        )
    raise argparse.ArgumentTypeError(
        f"invalid solver {text!r}: choose from {', '.join(SOLVERS)}"
    )


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


def _average(text, parser):
    if text is None:
        return 0.5
    if text == "last":
        return False
    if text == "all":
        return True
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 1:
        parser.error(f"--average must be 'last', 'all' or a number in (0, 1]; got {text!r}")
    return value


def _class_weights(args, parser):
    if args.balanced and args.weight:
        parser.error("give -w weights or --balanced, not both")
    if args.balanced:
        return "balanced"
    if not args.weight:
        return None
    weights = {}
    for item in args.weight:
        label, sep, weight = item.partition(":")
        try:
            weights[float(label)] = float(weight)
        except ValueError:
            parser.error(f"-w takes LABEL:WEIGHT with numbers; got {item!r}")
        if not sep:
            parser.error(f"-w takes LABEL:WEIGHT; got {item!r}")
    return weights


def _kernel_params(args, parser):
    kernel = KERNEL_NAMES.get(args.kernel, args.kernel) or "rbf"
    if kernel not in KERNEL_TYPES:
        parser.error(f"-t must be {', '.join(KERNEL_TYPES)} or 0-{len(KERNEL_TABLE) - 1}; got "
                     f"{args.kernel!r}")
    if kernel == "precomputed" and args.solver not in DUAL:
        parser.error("-t 4 (precomputed, LIBSVM's format) is for the dual solvers: -s svc, "
                     "nu-svc, one-class, svr, nu-svr (0-4)")
    if kernel == "precomputed" and (args.plot or args.zero_based):
        parser.error("-t 4 reads LIBSVM's precomputed format (0:serial, then the kernel "
                     "values from 1:): --plot and --zero-based do not apply")
    # LIBSVM's default under its numbers: 1 / the number of features (SVC's "auto")
    default = "auto" if isinstance(args.solver, _Numbered) else "scale"
    gamma = default if args.gamma is None else args.gamma
    try:
        gamma = float(gamma)
    except ValueError:
        pass  # "scale", "auto", or refused by the estimator
    if args.cache_size is not None and args.cache_size < 0:
        parser.error(f"-m must be >= 0; got {args.cache_size}")
    if args.cache_size is not None and args.solver not in DUAL:  # no column cache
        print(f"pegasos: note: -m has no effect with -s {args.solver} (its kernel columns "
              "are computed a mini-batch at a time, not cached)", file=sys.stderr)
    return {"kernel": kernel, "gamma": gamma,
            "coef0": 0.0 if args.coef0 is None else args.coef0,
            "degree": 3 if args.degree is None else args.degree}


#: Options that only some solvers take: (dest, option, solvers).  Given to
#: another solver, an option is refused rather than silently ignored.
_ONLY_FOR = (
    ("kernel", "-t/--kernel", KERNEL_SOLVERS),
    ("gamma", "-g", KERNEL_SOLVERS),
    ("coef0", "-r", KERNEL_SOLVERS),
    ("degree", "-d", KERNEL_SOLVERS),
    ("cache_size", "-m", KERNEL_SOLVERS),
    ("shrinking", "-h", DUAL),
    ("nu", "-n", ("sbp", "nu-svc", "one-class", "nu-svr")),
    ("epsilon", "-p", ("svr",)),
    ("cost", "-c", ("pegasos", "kernel-pegasos", "sbp", "svc", "svr", "nu-svr")),
    ("lam", "-l", ("pegasos", "kernel-pegasos")),
    ("tol", "-e", ("pegasos", *DUAL)),
    ("weight", "-w", ("pegasos", "kernel-pegasos", "sbp", "perceptron", "svc")),
    ("balanced", "--balanced", ("pegasos", "kernel-pegasos", "sbp", "perceptron", "svc")),
    ("probability_estimates", "-b 1", ("pegasos", "kernel-pegasos", "sbp", "perceptron", "svc",
                                       "nu-svc", "svr", "nu-svr")),
    ("batch_size", "-k", STOCHASTIC),
    ("epochs", "--epochs", STOCHASTIC),
    ("average", "--average", STOCHASTIC),
    ("no_projection", "--no-projection", ("pegasos", "kernel-pegasos")),
    ("unregularized_bias", "--unregularized-bias", ("pegasos", "sbp")),
    ("bias", "-B", ("pegasos", "kernel-pegasos", "perceptron")),
    ("sampling", "--sampling", ("pegasos", "kernel-pegasos", "perceptron")),
    ("keep_state", "--keep-state", ("pegasos",)),
)
_WHY_NOT = {
    ("sbp", "-l"): "-s sbp takes SVC's C (-c) or its own slack budget (-n), not -l",
    ("perceptron", "-c"): "-s perceptron has no regularisation: -c does not apply",
    ("perceptron", "-l"): "-s perceptron has no regularisation: -l does not apply",
    ("sbp", "--sampling"): "-s sbp draws from its water-filled distribution: --sampling does "
                           "not apply",
    ("sbp", "-B"): "-s sbp's intercept is a free b (--unregularized-bias): -B does not apply",
    ("svc", "-l"): "-s svc takes SVC's C (-c), not -l",
    ("svc", "-B"): "-s svc's intercept is SVC's free b: -B does not apply",
    ("nu-svc", "-c"): "-s nu-svc takes nu (-n), not C (-c): its C is what nu gives",
    ("one-class", "-c"): "-s one-class takes nu (-n), not C (-c)",
    ("nu-svc", "-w"): "-s nu-svc has no C to weight: -w has no effect in LIBSVM's nu-SVC, and "
                      "is refused here",
    ("nu-svc", "--balanced"): "-s nu-svc has no C to weight: --balanced does not apply",
}
for _solver_name in UNLABELLED:
    _WHY_NOT[(_solver_name, "-w")] = (f"-s {_solver_name} has no classes: -w (class weights) "
                                      "does not apply")
_WHY_NOT[("one-class", "-b 1")] = ("-s one-class: -b 1 (probability estimates) is for the "
                                   "classifiers and regressions here")


def _check_solver_options(args, parser):
    """Refuse options the chosen solver does not take, and options that contradict each other."""
    for dest, option, solvers in _ONLY_FOR:
        value = getattr(args, dest)
        given = bool(value) if dest in ("weight", "probability_estimates") else (
            value is not None and value is not False)
        if not given or args.solver in solvers or (args.map and dest in _MAP_KERNEL_OPTIONS):
            continue
        why = _WHY_NOT.get((args.solver, option))
        if why is None and option == "-t/--kernel":
            why = "-t/--kernel needs a kernel solver: -s kernel-pegasos, sbp or perceptron"
        parser.error(why or f"{option} does not apply to -s {args.solver} (it is for -s "
                            f"{' and '.join(solvers)})")
    if args.solver == "sbp" and args.cost is not None and args.nu is not None:
        parser.error("-s sbp takes SVC's C (-c) or its own slack budget (-n), not both")
    if args.unregularized_bias and args.bias is not None:
        parser.error("--unregularized-bias learns a free intercept; -B (the value of an "
                     "intercept feature) does not apply with it")
    if args.solver in ("sbp", "perceptron") and args.average not in (None, "all", "last"):
        parser.error(f"-s {args.solver} averages all its iterates or none: --average takes "
                     f"'all' or 'last' here; got {args.average!r}")


def _given(**options):
    """The options the user gave (not None): the others keep the estimator's default."""
    return {key: value for key, value in options.items() if value is not None}


#: The estimators' parameters and the options that set them, for their error messages.
OPTIONS = {
    "C": "-c", "lam": "-l", "batch_size": "-k", "n_iter": "--iter", "n_epochs": "--epochs",
    "tol": "-e", "nu": "-n", "kernel": "-t", "gamma": "-g", "coef0": "-r", "degree": "-d",
    "intercept_scaling": "-B", "average": "--average", "class_weight": "-w",
    "max_iter": "--iter", "cache_size": "-m", "epsilon": "-p",
    "sampling": "--sampling", "n_components": "--components", "landmarks": "--landmarks",
}


def _estimator(args, parser):
    """The estimator the options describe, checked by the estimator's own rules.

    A table from options to parameters, as LIBLINEAR's ``train.c`` over its
    library: the defaults are the estimators' (C = 1, their budgets), and a
    parameter the estimator refuses is a usage error naming the option.
    """
    from ._base import check_params

    _check_solver_options(args, parser)
    bias = 1.0 if args.bias is None else args.bias
    if not (bias > 0 or bias == -1):
        parser.error(f"-B must be > 0, or -1 for no intercept; got {bias}")
    average = _average(args.average, parser)
    class_weight = _class_weights(args, parser)
    common = dict(random_state=args.seed, **_given(
        batch_size=args.batch_size, n_iter=args.iter, n_epochs=args.epochs,
        sampling=args.sampling))
    intercept = dict(fit_intercept=bias != -1, intercept_scaling=bias if bias > 0 else 1.0)
    if args.map is None and (args.components is not None or args.landmarks is not None):
        parser.error("--components and --landmarks are options of --map nystroem")
    if args.map is not None:
        est = _map_estimator(args, parser, average, class_weight, common)
    elif args.solver == "pegasos":
        from .linear import PegasosClassifier

        est = PegasosClassifier(
            lam=args.lam, C=args.cost, projection=not args.no_projection, average=average,
            tol=args.tol, class_weight=class_weight,
            fit_intercept=intercept["fit_intercept"] or args.unregularized_bias,
            intercept_mode="unregularized" if args.unregularized_bias else "augment",
            intercept_scaling=intercept["intercept_scaling"], **common)
    else:
        est = _kernel_estimator(args, parser, average, class_weight, common, intercept)
    try:
        check_params(est)
    except ValueError as exc:  # InvalidParameterError is a ValueError
        message = str(exc)
        for name, option in OPTIONS.items():
            message = message.replace(f"The '{name}' parameter of {type(est).__name__}",
                                      f"{option} ({name})")
        parser.error(message)
    return est


def _kernel_estimator(args, parser, average, class_weight, common, intercept):
    from ._base import DEFAULT_C
    from .kernel import KernelPegasosClassifier, KernelPerceptron, SBPClassifier

    kernel = _kernel_params(args, parser)
    if args.solver == "kernel-pegasos":
        return KernelPegasosClassifier(
            lam=args.lam, C=args.cost, projection=not args.no_projection, average=average,
            class_weight=class_weight, **intercept, **kernel, **common)
    if args.solver == "perceptron":
        return KernelPerceptron(average=average is not False, class_weight=class_weight,
                                **intercept, **kernel, **common)
    if args.solver in DUAL:
        return _dual_estimator(args, kernel, class_weight)
    C = None if args.nu is not None else DEFAULT_C if args.cost is None else args.cost
    return SBPClassifier(
        nu=args.nu, C=C, average=average is not False, fit_intercept=args.unregularized_bias,
        class_weight=class_weight, **kernel, **common)


def _dual_estimator(args, kernel, class_weight):
    """The working-set solver's estimator of ``-s`` (LIBSVM's five problems)."""
    from .one_class import DualOneClassSVM
    from .svc import DualNuSVC, DualSVC
    from .svr import DualNuSVR, DualSVR

    if args.shrinking is not None:
        print(f"pegasos: note: -h {args.shrinking} has no effect with -s {args.solver} (its "
              "working sets do not shrink; the model is the same either way)", file=sys.stderr)
    common = {**kernel, **_given(tol=args.tol, max_iter=args.iter, cache_size=args.cache_size,
                                 shrinking=None if args.shrinking is None
                                 else bool(args.shrinking))}
    if args.solver == "svc":
        return DualSVC(class_weight=class_weight, random_state=args.seed, **common,
                       **_given(C=args.cost))
    if args.solver == "nu-svc":
        return DualNuSVC(random_state=args.seed, **common, **_given(nu=args.nu))
    if args.solver == "one-class":
        return DualOneClassSVM(**common, **_given(nu=args.nu))
    if args.solver == "svr":
        return DualSVR(random_state=args.seed, **common,
                       **_given(C=args.cost, epsilon=args.epsilon))
    return DualNuSVR(random_state=args.seed, **common, **_given(nu=args.nu, C=args.cost))


def _load_rows(path, zero_based, kernel, n_train=None, needed=None):
    """(X, y) of a training file (``n_train`` None) or a test file, read as :func:`_load`
    reads it; with ``kernel="precomputed"`` (-t 4), LIBSVM's precomputed format made the
    Gram matrix (:func:`_gram`)."""
    if kernel != "precomputed":
        return _load(path, zero_based, n_features=n_train)
    X, y = _load(path, True)
    return _gram(X, path, n_train, needed), y


def _gram(X, path, n_train=None, needed=None):
    """LIBSVM's precomputed-kernel rows (``-t 4``), read with zero-based indices: ``0:i``
    the row's serial number, then ``j:K(x, x_j)`` against the training rows j = 1..L.
    Training rows (``n_train`` None) must be numbered 1..n in order (their kernel values
    are the n x n Gram matrix); test rows give their values against the ``n_train``
    training rows, at least up to the training row ``needed`` (the model's last support
    vector's), checked before anything as wide as ``n_train`` is allocated."""
    import numpy as np
    import scipy.sparse as sp

    n = X.shape[0] if n_train is None else n_train
    if n_train is None:
        serial = X[:, [0]].toarray().ravel()
        if not np.array_equal(serial, np.arange(1, n + 1)):
            at = int(np.flatnonzero(serial != np.arange(1, n + 1))[0])
            raise _Failure(f"{path}: -t 4 (a precomputed kernel): row {at + 1}'s serial number "
                           f"(0:) is {serial[at]:g}; the training rows must be numbered 1..{n} "
                           "in order")
    if X.shape[1] > n + 1 and X[:, n + 1:].nnz:
        if n_train is None:  # (a training file: its rows' own numbers bound the indices)
            raise _Failure(f"{path}: -t 4 (a precomputed kernel): kernel values beyond the {n} "
                           "training rows (indices 1..n)")
        # a model read from svm-train's file knows the training rows up to its last support
        # vector only: the values against later rows take no part (as in svm-predict)
        print(f"pegasos: note: {path}: kernel values beyond the model's {n} training rows are "
              "not used", file=sys.stderr)
    if needed is not None and X.shape[1] - 1 < needed:
        raise _Failure(f"{path}: -t 4 (a precomputed kernel): the model's support vectors "
                       f"include training row {needed}, but the rows give kernel values "
                       f"against training rows 1..{X.shape[1] - 1} only; each row needs "
                       "K(x, x_j) for every support vector's training row j (LIBSVM's format)")
    X = X.tocsr()
    keep = (X.indices >= 1) & (X.indices <= n)  # (the serial numbers, 0:, dropped)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))[keep]
    X = sp.csr_matrix((X.data[keep], (rows, X.indices[keep] - 1)), shape=(X.shape[0], n))
    # dense as the training Gram matrix is, unless test rows would be far larger dense than
    # the file's values call for (a model that claims 2**31 training rows: read sparse)
    dense = n_train is None or X.shape[0] * n <= max(1 << 24, 4 * X.nnz)
    return X.toarray() if dense else X


def _load(path, zero_based, n_features=None, counted=False):
    """(X, y), or (X, y, values ignored beyond n_features) when ``counted``; a cache file
    (``pegasos convert``) is memory-mapped instead of parsed."""
    from .datasets import DataFormatError, read_svmlight
    from .stream import is_cache

    try:
        if is_cache(path):
            X, y, ignored = _load_cache(path, n_features)
        else:
            X, y, ignored = read_svmlight(path, n_features=n_features, zero_based=zero_based)
        return (X, y, ignored) if counted else (X, y)
    except DataFormatError as exc:
        raise _Failure(str(exc)) from exc
    except OSError as exc:
        raise _Failure(f"cannot read {path}: {_reason(exc)}") from exc


def _load_cache(path, n_features):
    """A cache's rows, as :func:`~pegasos.datasets.read_svmlight` gives a file's: columns
    beyond ``n_features`` dropped (and counted), fewer widened."""
    from ._rows import at_width
    from .stream import load_cache

    X, y = load_cache(path)
    X, ignored = at_width(X, n_features)
    return X, y, ignored


def _reason(exc):
    """An OSError's reason without the (often temporary) file name."""
    return exc.strerror or str(exc) or type(exc).__name__


def _check_paths(outputs, inputs=()):
    """Refuse, before any work, outputs that cannot be written or would replace an input.

    ``outputs`` and ``inputs`` are (path, what) pairs.  An output that is an
    input -- the same name, a link to it or a hard link (the same file by
    device and inode) -- would be replaced by the output: LIBSVM's tools do
    that silently; here it is an error before anything is read.  Two outputs
    that are one file are refused too, and so is an input that is not a regular
    file (:func:`_check_inputs`).
    """
    from ._files import same_file

    inputs = _expanded(inputs)
    _check_inputs(inputs)
    for i, (path, what) in enumerate(outputs):
        _check_output(path, what)
        for source, source_what in inputs:
            if source is not None and same_file(path, source):
                raise _Failure(f"the {what} {path} is the {source_what} {source}: writing the "
                               f"{what} would destroy it; name another {what} file")
        for other, other_what in outputs[:i]:
            if (same_file(path, other)
                    or os.path.realpath(path) == os.path.realpath(other)):
                raise _Failure(f"the {what} and the {other_what} would both be written to "
                               f"{path}; name two files")


def _expanded(inputs):
    """``inputs`` with each glob pattern (``shards/part-*.svm``) replaced by the files it
    matches: an output is checked against each of them."""
    import glob

    out = []
    for path, what in inputs:
        if path is not None and glob.has_magic(path):
            out.extend((match, what) for match in sorted(glob.glob(path)))
        else:
            out.append((path, what))
    return out


def _holdout_file(holdout):
    """``--holdout``'s file, or None when it is a number of rows (or not given)."""
    return None if holdout is None or is_number(holdout) and not os.path.exists(holdout) \
        else holdout


def _check_inputs(inputs):
    """Refuse an input that is a named pipe, a device or a socket, before anything
    else is imported: reading one could block forever.  The readers refuse it too
    (``read_svmlight``, ``load_model``, ``from_liblinear``), but only after the
    command has imported what it reads with: 2 s, against 0.25-0.75 s here.

    ``inputs``: (path or None, what) pairs.
    """
    from ._files import special_file

    for path, what in inputs:
        kind = None if path is None else special_file(path)
        if kind is not None:
            raise _Failure(f"{path} is {kind}, not a regular file; the {what} must be a "
                           "regular file")


def _check_output(path, what):
    """Refuse, before any work, an output path that cannot be written."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise _Failure(f"cannot write the {what} {path}: it is a folder")
    if not os.path.isdir(folder):
        raise _Failure(f"cannot write the {what} {path}: there is no folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise _Failure(f"cannot write the {what} {path}: the folder {folder} is not writable")


def _save(est, path, solver_state=False):
    from .model_io import save_model

    try:
        save_model(est, path, solver_state=solver_state)
    except OSError as exc:
        raise _Failure(f"cannot write the model {path}: {_reason(exc)}") from exc


def _check_weights_fit(X, n_classes, path):
    """Refuse data whose weight vectors cannot fit in memory; note very sparse index ranges."""
    import numpy as np

    from ._memory import available_memory, format_bytes

    d = X.shape[1]
    n_problems = 1 if n_classes == 2 else n_classes
    need = 3 * n_problems * (d + 1) * 8  # weights, their average, the model's coef_
    available = available_memory()
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


def _train(args, parser):
    import numpy as np

    model_path = args.model or os.path.basename(args.data) + ".model"
    outputs = [(model_path, "model")] if args.cv is None else []
    if args.plot:
        outputs.append((args.plot, "plot"))
    if args.cache:
        outputs.append((args.cache, "cache"))
    _check_paths(outputs, [(args.data, "data file"), (args.test, "test file"),
                           (_holdout_file(args.holdout), "holdout file")])
    streamed = args.stream or any(value is not None for value in (
        args.buffer_rows, args.n_features, args.cache, args.holdout))
    if not streamed:  # (before anything is imported or parsed: a second at most)
        streamed = _stream_or_refuse(args, model_path, _too_large(args.data))
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


def _too_large(path):
    """(the :class:`~pegasos._memory.FileFootprint` of ``path``, the memory available) when
    loading the file needs more memory than this process has, else None (a file that
    cannot be read is the loader's to report)."""
    from ._memory import available_memory, file_footprint

    try:
        footprint = file_footprint(path)
    except (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error):
        return None
    available = available_memory()
    if available is None or footprint.need <= available:
        return None
    return footprint, available


def _too_large_text(found, what="loading it"):
    """The numbers of :func:`_too_large`'s answer, for a message."""
    footprint, available = found
    return (f"{footprint.path}: {what} needs about {format_bytes(footprint.need)} "
            f"({footprint.describe()}), more than the {format_bytes(available)} of memory "
            "available to this process")


def _stream_or_refuse(args, model_path, found):
    """``train`` of a file too large to load (``found``: :func:`_too_large`'s answer):
    stream it where the options allow (``-s pegasos`` with ``-l``: returns True, after a
    note), else refuse with the numbers and the command that trains it.  Returns False
    for a file that fits."""
    if found is None:
        return False
    if args.cv is not None:
        why = "-v (cross-validation) holds every row in memory"
    elif args.solver != "pegasos":
        why = f"-s {args.solver} holds its training rows in memory"
    else:
        why = [need for need, missing in {
            "-l LAMBDA (C fixes lambda from the number of rows, which a stream does not know)":
                args.lam is None,
            "no --plot": args.plot is not None, "no -b 1": bool(args.probability_estimates),
            "no --epochs (give --iter)": args.epochs is not None, "no -e": args.tol is not None,
        }.items() if missing]
        if not why:
            _note(args, _too_large_text(found) + ": streaming it instead (as --stream)",
                  err=True)
            args.stream = True
            return True
        why = "--stream, which trains without loading it, needs " + ", ".join(why)
    footprint = found[0]
    lam = args.lam if args.lam is not None else 1.0 / (
        (args.cost or 1.0) * max(footprint.rows, 1))
    iterations = args.iter if args.iter is not None else math.ceil(10.0 / lam)
    command = (f"pegasos train --stream -l {lam:.3g} --iter {iterations}"
               + (f" --holdout {min(10000, max(footprint.rows // 10, 1))}"
                  if args.cv is not None else "")
               + f" {shlex.quote(args.data)}" + (f" {shlex.quote(model_path)}"
                                                 if args.model else ""))
    raise _Failure(f"{_too_large_text(found)}; {why}. A linear model trains without loading "
                   f"it: {command}" + (" (its error on held-out rows in place of -v's)"
                                       if args.cv is not None else ""))


def _train_unlabelled(args, parser, est, X, y, model_path):
    """``train -s one-class|svr|nu-svr``: fit on the rows (and their targets), save, and
    report as svm-train and svm-predict do -- the mean squared error and squared
    correlation of a regression, the share of rows predicted +1 by a one-class model (its
    accuracy against the file's labels with -v or --test)."""
    import numpy as np

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
    if args.solver == "nu-svr":
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


def _laplace_text(sigma):
    """svm-train's and svm-predict's words for a regression's probability model (-b 1)."""
    return ("Prob. model for test data: target value = predicted value + z,\n"
            f"z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma={sigma:g}")


def _fit_quality(solver, est, X, y, part):
    """A regression's mean squared error and squared correlation on (X, y), or a one-class
    model's share of rows predicted +1 and its accuracy against y (as svm-predict's)."""
    import numpy as np

    predicted = est.predict(X)
    if solver in REGRESSION:
        return {f"{part}_{key}": value for key, value in _regression_metrics(y, predicted).items()}
    return {f"{part}_inliers": float(np.mean(predicted == 1)),
            f"{part}_accuracy": float(np.mean(predicted == y))}


def _regression_metrics(y, predicted):
    """svm-predict's: the mean squared error and the squared correlation coefficient."""
    import numpy as np

    y, v = np.asarray(y, dtype=np.float64), np.asarray(predicted, dtype=np.float64)
    n = len(y)
    sv, sy, svv, syy, svy = v.sum(), y.sum(), v @ v, y @ y, v @ y
    denominator = (n * svv - sv * sv) * (n * syy - sy * sy)
    r2 = (n * svy - sv * sy) ** 2 / denominator if denominator > 0 else float("nan")
    return {"mean_squared_error": float(np.mean((v - y) ** 2)),
            "squared_correlation": float(r2)}


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
    import numpy as np
    from sklearn.base import clone
    from sklearn.model_selection import KFold

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


def _train_stream(args, parser, est, model_path):
    """``train --stream``: :class:`~pegasos.stream.SVMLightStream` into linear Pegasos."""
    from .datasets import DataFormatError
    from .stream import BUFFER_ROWS, CacheError, SVMLightStream

    why = {"--stream": not args.stream, "-s pegasos": args.solver != "pegasos",
           "-l LAMBDA (C fixes lambda from n, which a stream does not know before it is "
           "read)": args.lam is None, "no -v": args.cv is not None,
           "no --plot": args.plot is not None, "no -b 1": args.probability_estimates,
           "no --epochs (give --iter)": args.epochs is not None, "no -e": args.tol is not None}
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
               "iterations": est.t_, "seconds": seconds}
    if hasattr(est, "holdout_errors_"):
        summary["holdout_error"] = float(est.holdout_errors_[-1, 1]) \
            if len(est.holdout_errors_) else None
    if X_test is not None:
        summary["test_accuracy"] = _accuracy(est, X_test, y_test)
    if args.json:
        _print_json(summary)
    elif not args.quiet:
        print(f"{args.data}: {summary['rows_read']} rows read, {summary['n_features']} "
              f"features, classes {', '.join(summary['classes'])}\n"
              f"lambda = {est.lam_:.6g}; {est.t_} iterations in {seconds:.3f} s"
              + (f"\ntest accuracy = {100 * summary['test_accuracy']:.4f}%"
                 if X_test is not None else "") + f"\nmodel written to {model_path}")
    return 0


# --- train --map: a kernel map fed to linear Pegasos (NystroemPegasosClassifier) ---------

#: The kernel options that --map takes (with -s pegasos).
_MAP_KERNEL_OPTIONS = ("kernel", "gamma", "coef0", "degree")


def _map_arguments(p):
    p.add_argument("--map", choices=("nystroem",), default=None,
                   help="-s pegasos on a kernel map: Nystroem's features on --components "
                        "landmarks, the kernel set by -t, -g, -r, -d (with --stream, the "
                        "landmarks and gamma come from the first buffer)")
    p.add_argument("--components", type=int, default=None, metavar="N",
                   help="--map: the landmarks, the map's dimension (default 1000)")
    p.add_argument("--landmarks", choices=("uniform", "kmeans"), default=None,
                   help="--map: training rows drawn uniformly (default) or k-means centres")


def _map_estimator(args, parser, average, class_weight, common):
    """``--map nystroem``: :class:`~pegasos.NystroemPegasosClassifier`."""
    from .kernel_map import NystroemPegasosClassifier

    refused = {"-s pegasos": args.solver != "pegasos", "no -e": args.tol is not None,
               "no -v": args.cv is not None, "no --plot": args.plot is not None,
               "no -b 1": bool(args.probability_estimates),
               "no --sampling": args.sampling is not None,
               "no --no-projection, -B, --unregularized-bias or --keep-state": bool(
                   args.no_projection or args.bias is not None or args.unregularized_bias
                   or args.keep_state)}
    for need, missing in refused.items():
        if missing:
            parser.error(f"--map needs {need}")
    common = {key: value for key, value in common.items() if key != "sampling"}
    return NystroemPegasosClassifier(
        lam=args.lam, C=args.cost, average=average, class_weight=class_weight,
        **_kernel_params(args, parser), **_given(n_components=args.components,
                                                  landmarks=args.landmarks), **common)


def _map_summary(est):
    """What ``info`` says of a kernel map."""
    m, d = est.components_.shape
    kind = "k-means centres" if not hasattr(est, "component_indices_") else "training rows"
    return {"kind": "nystroem", "components": int(m), "landmarks": kind,
            "kernel": est.kernel, "gamma": float(est.gamma_),
            "dtype": str(est.components_.dtype),
            "text": f"Nystroem, {m} landmarks ({kind}, {d} features, "
                    f"{est.components_.dtype}), {est.kernel} kernel, gamma = {est.gamma_:.6g}"}


def _fit_with(progress, est, fit, *data):
    """``fit(est, *data)`` with ``progress`` as the estimator's callback (closed and taken
    off again however the fit ends); the seconds it took."""
    est.set_params(callback=progress)
    tic = time.perf_counter()
    try:
        fit(est, *data)
    finally:
        progress.close()
        est.set_params(callback=None)
    return time.perf_counter() - tic


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
    if X_test is not None:
        summary["test_accuracy"] = _accuracy(est, X_test, y_test)
    if args.json:
        _print_json(summary)
    elif not args.quiet:
        print(f"{args.data}: {X.shape[0]} rows, {X.shape[1]} features, classes "
              f"{', '.join(summary['classes'])}\nkernel map: {summary['map']['text']}\n"
              f"lambda = {est.lam_:.6g}; {est.t_} iterations in {seconds:.3f} s\n"
              f"training accuracy = {100 * summary['training_accuracy']:.4f}%"
              + (f"\ntest accuracy = {100 * summary['test_accuracy']:.4f}%"
                 if X_test is not None else "") + f"\nmodel written to {model_path}")
    return 0


def _train_fit(args, est, X, y, X_test, y_test, model_path):
    """Fit with a progress bar (recording the test error for --test/--plot), save, report."""
    import numpy as np

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
                        y_test, classes, _decision(est, X) if not linear else linear_decision,
                        pairs)
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
        if args.solver in ("svc", "nu-svc"):
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


def _decision(est, X):
    """A kernel model's decision values on X_test from a report (its coefficients on X)."""
    import numpy as np

    def decision(X_test, report):
        from sklearn.metrics.pairwise import pairwise_kernels

        support = np.flatnonzero(report.coef)
        scores = np.full(X_test.shape[0], report.intercept)
        if support.size:
            K = pairwise_kernels(X_test, X[support], metric=est.kernel, filter_params=True,
                                 gamma=est.gamma_, coef0=est.coef0, degree=est.degree)
            scores += K @ report.coef[support]
        return scores

    return decision


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
        import itertools

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
    from .plotting import plot_kernel_training, plot_training

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
        plot_training(curves, args.plot, title=f"Pegasos on {name}, lambda={est.lam_:.3g}",
                      average_start=plan.avg_start(1) if plan.n_average else None)
    else:
        plot_kernel_training(curves, args.plot,
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


def _fit_labels(est, X, y):
    """Fit ``est`` on labels as LIBSVM reads them: any numbers, each distinct value a class.

    scikit-learn's estimators refuse labels such as 1.5 and -2.5 as a
    regression target; LIBSVM and LIBLINEAR classify them.  The estimator is
    fitted on the classes' indices (in sorted order, so nothing else about
    the fit changes), then its ``classes_`` and ``class_weight`` are named by
    the labels again: it predicts, and saves, the file's labels.
    """
    import numpy as np

    classes, codes = np.unique(y, return_inverse=True)
    weights = est.class_weight
    est.set_params(class_weight=_class_weight_of_codes(weights, classes))
    try:
        est.fit(X, codes)
    finally:
        est.set_params(class_weight=weights)
    est.classes_ = classes


def _class_weight_of_codes(weights, classes):
    """``-w`` weights (by label) keyed by the classes' indices; a label not in the data is refused."""
    import numpy as np

    if not isinstance(weights, dict):
        return weights  # None or "balanced"
    missing = [label for label in weights if label not in classes]
    if missing:
        raise _Failure(f"-w gives a weight to the label {_label(missing[0])}, which the data "
                       f"does not have (its labels: {_labels(classes)})")
    return {int(np.searchsorted(classes, label)): weight for label, weight in weights.items()}


def _cross_validate(args, parser, est, X, y):
    import numpy as np
    from sklearn.model_selection import StratifiedKFold, cross_val_score

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


# ------------------------------------------------------------------- predict


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


def _predict(args, parser):
    import numpy as np

    inputs = [(args.data, "data file"), (args.model, "model")]
    _check_paths([(args.output, "predictions")] if args.output else [], inputs)
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
    from .datasets import DataFormatError
    from .stream import read_blocks

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
    from sklearn.base import is_regressor

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
    import numpy as np
    from sklearn.base import is_regressor

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
    from ._files import write_atomic

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
    import numpy as np
    from sklearn.base import is_regressor

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
    import numpy as np

    if len(classes) != 2:
        return {}
    truth, said = np.asarray(y) == classes[1], np.asarray(predicted) == classes[1]
    tp = int(np.sum(truth & said))
    p = tp / int(np.sum(said)) if np.any(said) else 0.0
    r = tp / int(np.sum(truth)) if np.any(truth) else 0.0
    f = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return {"positive_class": _label(classes[1]), "precision": float(p), "recall": float(r),
            "f1": float(f)}


def _accuracy(est, X, y):
    """The fraction of labels predicted right (any numeric labels, as LIBSVM's)."""
    import numpy as np

    return float(np.mean(est.predict(X) == y))


def _labels(classes, most=10):
    """The first ``most`` labels, comma-separated, and how many more there are."""
    text = ", ".join(_label(c) for c in classes[:most])
    return text + (f" and {len(classes) - most} more" if len(classes) > most else "")


def _label(value):
    """A label as LIBSVM writes it: integers without a decimal point."""
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)


# ------------------------------------------------------ export, import, info


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


def _export(args, parser):
    from .interchange import SVM_TYPES, to_liblinear, to_libsvm

    _check_paths([(args.output, "exported model")], [(args.model, "model")])
    est = _load_model(args.model)
    kind = args.format or ("libsvm" if type(est).__name__ in SVM_TYPES else "liblinear")
    name = "LIBSVM" if kind == "libsvm" else "LIBLINEAR"
    try:
        (to_libsvm if kind == "libsvm" else to_liblinear)(est, args.output)
    except OSError as exc:
        raise _Failure(f"cannot write the {name} model {args.output}: {_reason(exc)}") from exc
    except ValueError as exc:
        raise _Failure(f"{args.model}: {exc}") from exc
    return 0


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


def _convert(args, parser):
    import numpy as np

    from .datasets import DataFormatError
    from .stream import convert

    if len(args.paths) < 2:
        parser.error("give the data files, then the cache file")
    *sources, cache = args.paths
    if not 0 < args.block_mb <= 1 << 20:
        parser.error(f"--block-mb must be in (0, 1048576]; got {args.block_mb}")
    _check_paths([(cache, "cache")], [(p, "data file") for p in sources])
    try:
        header = convert(sources, cache, zero_based=args.zero_based,
                         dtype=np.float32 if args.float32 else np.float64,
                         block_bytes=max(1, int(args.block_mb * 2**20)))
    except DataFormatError as exc:
        raise _Failure(str(exc)) from exc
    except OSError as exc:
        raise _Failure(f"cannot convert to {cache}: {_reason(exc)}") from exc
    if not args.quiet:
        print(f"{cache}: {header['n_rows']} rows, {header['n_features']} features, "
              f"{header['nnz']} values ({header['file_size'] / 2**20:.1f} MB)")
    return 0


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


def _import(args, parser):
    from .interchange import from_liblinear, from_libsvm

    _check_paths([(args.output, "model")], [(args.model, "model file")])
    libsvm = _first_word(args.model) == "svm_type"
    if libsvm and args.lam is not None:
        parser.error("-l is for LIBLINEAR's files: a LIBSVM model has no lambda")
    if args.lam is not None and not args.lam > 0:
        parser.error(f"-l must be > 0; got {args.lam}")
    try:
        est = (from_libsvm(args.model) if libsvm
               else from_liblinear(args.model, lam=1e-4 if args.lam is None else args.lam))
    except ValueError as exc:
        raise _Failure(str(exc)) from exc
    except OSError as exc:
        raise _Failure(f"cannot read {args.model}: {_reason(exc)}") from exc
    _save(est, args.output)
    return 0


def _first_word(path):
    """The first word of a text file (LIBSVM's models start with svm_type, LIBLINEAR's with
    solver_type), or "" when it cannot be read."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            words = f.read(4096).split(None, 1)  # (any whitespace before and after it,
            return words[0] if words else ""  # blank lines: svm-predict reads words)
    except OSError:
        return ""


def _info_parser(sub):
    p = sub.add_parser("info", help="describe a model file",
                       description="Print what MODEL holds: estimator, parameters, classes, "
                       "features, support vectors, format version.")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--json", action="store_true", help="print a JSON summary instead")
    return p


def _info(args, parser):
    import numpy as np

    _check_inputs([(args.model, "model")])
    est, meta = _load_model(args.model, with_header=True)
    summary = {
        "model": args.model, "estimator": meta["estimator"], "format_version": meta["version"],
        "written_by": f"pegasos {meta.get('pegasos_version', '?')}",
        "classes": [_label(c) if np.asarray(est.classes_).dtype.kind in "iuf" else str(c)
                    for c in getattr(est, "classes_", [])],
        "n_features": int(est.n_features_in_),
        "parameters": est.get_params(),
        "fitted": meta["attributes"],
    }
    if isinstance(getattr(est, "n_iter_", None), np.ndarray):  # DualSVC's, one per problem
        summary["fitted"] = {**summary["fitted"], "n_iter_": est.n_iter_.tolist()}
    if hasattr(est, "support_"):
        summary["support_vectors"] = int(len(est.support_))
        summary["kernel"] = est.kernel
    if hasattr(est, "components_"):  # a kernel map's
        summary["map"] = _map_summary(est)
    summary["regularisation"] = _regularisation(est)
    if meta.get("certificate") is not None:  # checked by the loader
        summary["certificate"] = meta["certificate"]
    if args.json:
        _print_json(summary)
        return 0
    print(f"{args.model}: {summary['estimator']}, model format version "
          f"{summary['format_version']}, written by {summary['written_by']}")
    print((f"classes {', '.join(summary['classes'])}; " if summary["classes"] else
           "no classes (regression or one-class); ") + f"{summary['n_features']} features"
          + (f"; {summary['support_vectors']} support vectors ({summary['kernel']} kernel)"
             if "support_vectors" in summary else ""))
    if "map" in summary:
        print(f"kernel map: {summary['map']['text']}")
    print("regularisation: " + summary["regularisation"]["text"])
    print("fitted: " + ", ".join(f"{k} = {v:.6g}" if isinstance(v, float) else f"{k} = {v}"
                                 for k, v in summary["fitted"].items()))
    if "certificate" in summary:
        print("certificate at the end of training: " + "; ".join(
            f"primal {c['primal']:.6g}, dual {c['dual']:.6g}, relative gap <= "
            f"{c['relative_gap']:.3g}" for c in summary["certificate"]))
    else:
        print("certificate: none recorded (train with -e TOL, --test or --plot to record one)")
    print("parameters: " + ", ".join(f"{k}={v!r}" for k, v in summary["parameters"].items()))
    return 0


def _regularisation(est):
    """The regularisation a model was trained with, resolved: C and lambda (or nu), and how.

    The parameters keep what was asked (``C=None, lam=None`` for the default
    C = 1); the fitted ``lam_`` is lambda = 1 / (C n), from which n follows.
    """
    import numpy as np

    from ._base import DEFAULT_C

    params = est.get_params(deep=False)
    out = {}
    if "lam" in params and getattr(est, "lam_", None) is not None:  # Pegasos, linear or kernel
        out["lam"] = float(est.lam_)
        if params["lam"] is not None:
            out["text"] = f"lambda = {est.lam_:.6g} (given as lam)"
            return out
        C = DEFAULT_C if params["C"] is None else float(params["C"])
        with np.errstate(over="ignore", divide="ignore"):
            n = np.float64(1.0) / (np.float64(C) * est.lam_)
        n = round(float(n)) if np.isfinite(n) else float(n)  # a header's extremes: inf
        out.update(C=C, n_samples=n)
        out["text"] = (f"C = {C:.6g}{' (the default)' if params['C'] is None else ''}, so "
                       f"lambda = 1 / (C n) = {est.lam_:.6g} for n = {n} training samples")
        return out
    if hasattr(est, "nu_"):  # the SBP: a slack budget per problem
        out["nu"] = [float(v) for v in est.nu_]
        nu = ", ".join(f"{v:.6g}" for v in est.nu_)
        if params.get("nu") is not None:
            out["text"] = f"nu = {nu} (given)"
        else:
            C = DEFAULT_C if params.get("C") is None else float(params["C"])
            out["C"] = C
            out["text"] = (f"nu = {nu}, estimated for C = {C:.6g}"
                           f"{' (the default)' if params.get('C') is None else ''}")
        return out
    if type(est).__name__.startswith("Dual") and not hasattr(est, "violation_"):
        # (every fit records its violation_; a LIBSVM model file records no C, nu, epsilon)
        out["text"] = ("not recorded (read from a LIBSVM model file, which keeps no C, nu or "
                       "epsilon: the parameters below are the defaults)")
        return out
    if type(est).__name__ == "DualSVC":  # SVC's C, the loss weight of its problem
        out["C"] = float(params["C"])
        out["text"] = (f"C = {params['C']:.6g} (SVC's C, the weight of the hinge loss; "
                       "a free intercept)")
        return out
    if type(est).__name__ in ("DualSVR", "DualNuSVR"):
        out["C"] = float(params["C"])
        out["text"] = f"C = {params['C']:.6g} (the weight of the epsilon-insensitive loss)"
        if "nu" in params:
            out["nu"] = float(params["nu"])
            out["text"] += f", nu = {params['nu']:.6g} (epsilon = {est.epsilon_:.6g} found)"
        else:
            out["text"] += f", epsilon = {params['epsilon']:.6g}"
        return out
    if "nu" in params:  # nu-SVC, one-class: nu in place of C
        out["nu"] = float(params["nu"])
        out["text"] = f"nu = {params['nu']:.6g}" + (
            f" (each pair's C = 1/r: {', '.join(f'{c:.6g}' for c in est.C_)})"
            if hasattr(est, "C_") else "")
        return out
    out["text"] = "none (the kernel Perceptron is not regularised)"
    return out


def _load_model(path, with_header=False):
    """The model at ``path`` (and its header, ``with_header``), or a one-line failure."""
    from .model_io import ModelFileError, load_model_with_header

    try:
        est, header = load_model_with_header(path)
        return (est, header) if with_header else est
    except ModelFileError as exc:
        raise _Failure(str(exc)) from exc
    except OSError as exc:
        raise _Failure(f"cannot read {path}: {_reason(exc)}") from exc


def _compile_parser(sub):
    p = sub.add_parser(
        "compile", help="compile every solver into Numba's cache ahead of use",
        description="Compile the solvers for every input kind (dense float64 and float32, "
        "CSR with int32 and int64 indices) into Numba's on-disk cache, so that no later fit "
        "or prediction waits for the compiler: once per install (an image, CI). Reports the "
        "time; a second run only loads the cache.")
    p.add_argument("--json", action="store_true", help="print a JSON summary instead")
    return p


def _compile(args, parser):
    import numpy as np

    from . import (
        DualSVC,
        KernelPegasosClassifier,
        KernelPerceptron,
        PegasosClassifier,
        SBPClassifier,
    )
    from ._numba._jit import CACHE_DIR
    from ._solvers.engine import PARALLEL_ROWS
    from ._solvers.gram import engine_only

    # small sets train and predict on their kernel matrix; larger ones on the blocked
    # engine, on threads from PARALLEL_ROWS rows, and a few rows predict in one thread
    inputs = _compile_inputs(40)
    larger = _compile_inputs(PARALLEL_ROWS)
    # a short linear run draws fewer rows than there are (their norms are computed as drawn),
    # a long or checked one computes every row's norm at once: two compiled paths
    estimators = [PegasosClassifier(n_iter=5, random_state=0),
                  PegasosClassifier(n_iter=50, track_objective=True, random_state=0),
                  KernelPegasosClassifier(n_iter=20, random_state=0),
                  SBPClassifier(n_iter=10, random_state=0),
                  SBPClassifier(n_iter=10, fit_intercept=True, random_state=0),
                  KernelPerceptron(n_iter=20, random_state=0),
                  DualSVC(working_set_size=8)]
    with _compile_events() as events:
        tic = time.perf_counter()
        for kind, data in inputs.items():
            for est in estimators:
                est.fit(data, np.arange(data.shape[0]) % 2).predict(data)
                if not isinstance(est, PegasosClassifier):
                    with engine_only():
                        est.fit(larger[kind], np.arange(PARALLEL_ROWS) % 2).predict(larger[kind])
                        est.predict(data)
        from .stream import _parse_compiled

        _parse_compiled(b"1 qid:1 1:0.5 2:1e400\n-1 3:1\n", False)  # the LIBSVM parser
        seconds = time.perf_counter() - tic
    summary = {"seconds": seconds, "compiled_functions": len(events), "cache": CACHE_DIR,
               "inputs": list(inputs), "estimators": sorted({type(e).__name__
                                                              for e in estimators})}
    if args.json:
        _print_json(summary)
    elif events:
        print(f"pegasos: compiled {len(events)} functions in {seconds:.1f} s into {CACHE_DIR}")
    else:
        print(f"pegasos: every solver was already compiled; loaded from {CACHE_DIR} in "
              f"{seconds:.1f} s")
    return 0


def _compile_inputs(n_rows):
    """``pegasos compile``'s data: n_rows x 5 random values in every input kind, by name."""
    import numpy as np
    import scipy.sparse as sp

    X = np.random.default_rng(0).standard_normal((n_rows, 5))
    csr32 = sp.csr_matrix(X)
    csr32.indices, csr32.indptr = csr32.indices.astype(np.int32), csr32.indptr.astype(np.int32)
    csr64 = sp.csr_matrix(X)
    csr64.indices, csr64.indptr = csr64.indices.astype(np.int64), csr64.indptr.astype(np.int64)
    return {"dense float64": X, "dense float32": X.astype(np.float32),
            "csr float64, int32 indices": csr32, "csr float64, int64 indices": csr64,
            "csr float32": csr32.astype(np.float32)}


@contextlib.contextmanager
def _compile_events():
    """The names of the functions Numba compiles within the block (loads from the cache are
    not compiles)."""
    import numba.core.event as event

    names = []

    class Listener(event.Listener):
        def on_start(self, ev):
            pass

        def on_end(self, ev):
            fn = ev.data["dispatcher"].py_func
            names.append(f"{fn.__module__}.{fn.__qualname__}")

    with event.install_listener("numba:compile", Listener()):
        yield names


@contextlib.contextmanager
def _compile_notice(quiet):
    """Say on stderr, once, that the solver is compiling (the first run after installing):
    a first kernel fit compiles for tens of seconds, which without a word looks like a hang."""
    if quiet:
        yield
        return
    import numba.core.event as event

    started = []

    class Listener(event.Listener):
        def on_start(self, ev):
            if not started:
                started.append(time.perf_counter())
                print("pegasos: compiling the solver for this input, once per install "
                      "(`pegasos compile` does it ahead) ...", file=sys.stderr, flush=True)

        def on_end(self, ev):
            pass

    with event.install_listener("numba:compile", Listener()):
        yield
    if started:
        print(f"pegasos: compiled in {time.perf_counter() - started[0]:.1f} s",
              file=sys.stderr, flush=True)


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


def _demo(args, parser):
    if args.lam is not None and not args.lam > 0:
        parser.error(f"--lam must be > 0; got {args.lam}")
    from .demo import print_demo, run_demo

    summary = run_demo(args.dataset, args.lam, args.seed, None if args.no_plot else args.plot)
    if args.json:
        _print_json(summary)
    else:
        print_demo(summary, sys.stdout)
    return 0


# ---------------------------------------------------------------------- main


def _print_json(summary, out=None):
    out = out or sys.stdout
    json.dump(summary, out, indent=2)
    print(file=out)


def _note(args, text, err=False):
    """A note for the user (``pegasos: TEXT``), unless ``-q``."""
    if not getattr(args, "quiet", False):
        print(f"pegasos: {text}", file=sys.stderr if err else sys.stdout)


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


def main(argv=None):
    from . import __version__

    parser = _Parser(prog="pegasos", description="Support vector machines trained by Pegasos.")
    parser.add_argument("-V", "--version", action="version", version=f"pegasos {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    commands = {
        "train": (_train_parser(sub), _train),
        "predict": (_predict_parser(sub), _predict),
        "demo": (_demo_parser(sub), _demo),
        "export": (_export_parser(sub), _export),
        "import": (_import_parser(sub), _import),
        "convert": (_convert_parser(sub), _convert),
        "info": (_info_parser(sub), _info),
        "compile": (_compile_parser(sub), _compile),
    }
    args = parser.parse_args(_liblinear_spellings(sys.argv[1:] if argv is None else argv))
    command_parser, run = commands[args.command]
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            if args.command in ("train", "predict", "demo"):  # what can compile
                with _compile_notice(getattr(args, "quiet", False)):
                    status = run(args, command_parser)
            else:
                status = run(args, command_parser)
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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
