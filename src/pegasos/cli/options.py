"""``train``'s options: the solvers and their names (LIBSVM's numbers too), what each
solver accepts and why not, and the options' values read and checked -- what LIBLINEAR's
``train.c`` does in ``parse_command_line``, before any data are read.  Only the standard
library at import: the parser uses the solvers' names for ``pegasos --help``."""

import argparse
import sys

from .._numba.codes import KERNEL_TABLE, KERNEL_TYPES
from .._solvers.problems import PROBLEMS
from .._stream_params import stream_refusals

DEMO_DATASETS = ("generated", "breast_cancer", "digits")
STOCHASTIC = ("pegasos", "kernel-pegasos", "sbp", "perceptron")  # with a budget of draws
#: LIBSVM's problems, by the working-set solver: their -s names from the problem table
DUAL = tuple(p.solver for p in PROBLEMS.values())
SOLVERS = (*STOCHASTIC, *DUAL)
KERNEL_SOLVERS = SOLVERS[1:]
#: the dual solvers whose output is a number or +1/-1, not one of the file's classes
UNLABELLED = tuple(p.solver for p in PROBLEMS.values() if not p.classifier)
REGRESSION = tuple(p.solver for p in PROBLEMS.values() if p.supervised and not p.classifier)
#: LIBSVM's svm-train -s numbers (the table is in LIBSVM's svm_type order)
LIBSVM_NUMBERS = {str(number): p.solver for number, p in enumerate(PROBLEMS.values())}


def _taking(parameter):
    """The dual solvers whose estimator takes ``parameter`` from the options."""
    return tuple(p.solver for p in PROBLEMS.values() if parameter in p.options)

#: LIBSVM's -t numbers
KERNEL_NAMES = {str(k.libsvm): k.name for k in KERNEL_TABLE}


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


def _defaults(solver):
    """The defaults the command line resolves itself, by solver, in one place (as
    LIBLINEAR's ``parse_command_line`` sets its solver-dependent tolerance); every other
    option left out keeps the estimator's default (C = 1, the budgets, the tolerances)."""
    # LIBSVM's gamma under its numbers: 1 / the number of features (SVC's "auto")
    return {"kernel": "rbf", "gamma": "auto" if isinstance(solver, _Numbered) else "scale",
            "coef0": 0.0, "degree": 3, "bias": 1.0,
            "average": "all" if solver in ("sbp", "perceptron") else 0.5}


def _option(args, name):
    """An option's value: as given, else the solver's default (:func:`_defaults`)."""
    value = getattr(args, name)
    return _defaults(args.solver)[name] if value is None else value


def _average(text, parser):
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
    kernel = KERNEL_NAMES.get(args.kernel, args.kernel) or _option(args, "kernel")
    if kernel not in KERNEL_TYPES:
        parser.error(f"-t must be {', '.join(KERNEL_TYPES)} or 0-{len(KERNEL_TABLE) - 1}; got "
                     f"{args.kernel!r}")
    if kernel == "precomputed" and args.solver not in DUAL:
        parser.error("-t 4 (precomputed, LIBSVM's format) is for the dual solvers: -s svc, "
                     "nu-svc, one-class, svr, nu-svr (0-4)")
    if kernel == "precomputed" and (args.plot or args.zero_based):
        parser.error("-t 4 reads LIBSVM's precomputed format (0:serial, then the kernel "
                     "values from 1:): --plot and --zero-based do not apply")
    gamma = _option(args, "gamma")
    try:
        gamma = float(gamma)
    except ValueError:
        pass  # "scale", "auto", or refused by the estimator
    if args.cache_size is not None and args.cache_size < 0:
        parser.error(f"-m must be >= 0; got {args.cache_size}")
    if args.cache_size is not None and args.solver not in DUAL:  # no column cache
        print(f"pegasos: note: -m has no effect with -s {args.solver} (its kernel columns "
              "are computed a mini-batch at a time, not cached)", file=sys.stderr)
    return {"kernel": kernel, "gamma": gamma, "coef0": _option(args, "coef0"),
            "degree": _option(args, "degree")}


#: Options that only some solvers take: (dest, option, solvers).  Given to
#: another solver, an option is refused rather than silently ignored.
_ONLY_FOR = (
    ("kernel", "-t/--kernel", KERNEL_SOLVERS),
    ("gamma", "-g", KERNEL_SOLVERS),
    ("coef0", "-r", KERNEL_SOLVERS),
    ("degree", "-d", KERNEL_SOLVERS),
    ("cache_size", "-m", KERNEL_SOLVERS),
    ("shrinking", "-h", DUAL),
    ("nu", "-n", ("sbp", *_taking("nu"))),
    ("epsilon", "-p", _taking("epsilon")),
    ("cost", "-c", ("pegasos", "kernel-pegasos", "sbp", *_taking("C"))),
    ("lam", "-l", ("pegasos", "kernel-pegasos")),
    ("tol", "-e", ("pegasos", *DUAL)),
    ("weight", "-w", (*STOCHASTIC, *_taking("class_weight"))),
    ("balanced", "--balanced", (*STOCHASTIC, *_taking("class_weight"))),
    ("probability_estimates", "-b 1", (*STOCHASTIC, *(p.solver for p in PROBLEMS.values()
                                                      if p.supervised))),
    ("batch_size", "-k", STOCHASTIC),
    ("epochs", "--epochs", STOCHASTIC),
    ("average", "--average", STOCHASTIC),
    ("no_projection", "--no-projection", ("pegasos", "kernel-pegasos")),
    ("unregularized_bias", "--unregularized-bias", ("pegasos", "sbp")),
    ("bias", "-B", ("pegasos", "kernel-pegasos", "perceptron")),
    ("sampling", "--sampling", ("pegasos", "kernel-pegasos", "perceptron")),
    ("keep_state", "--keep-state", ("pegasos",)),
    ("budget", "--budget", ("kernel-pegasos", "perceptron")),
    ("budget_strategy", "--budget-strategy", ("kernel-pegasos", "perceptron")),
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
    "solver": "--map-solver", "budget": "--budget", "budget_strategy": "--budget-strategy",
}


_MAP_KERNEL_OPTIONS = ("kernel", "gamma", "coef0", "degree")


#: The parameters a fit on a stream refuses (the library's table,
#: :data:`~pegasos._stream_params.STREAM_REFUSALS`) that the options can set, in the command
#: line's words and in the order it names them.
STREAM_NEEDS = {
    "lam": "-l LAMBDA (C fixes lambda from n, which a stream does not know before it is read)",
    "track_objective": "no --plot", "probability": "no -b 1",
    "n_epochs": "no --epochs (give --iter)", "tol": "no -e",
}


def _stream_refused(args):
    """Of :data:`STREAM_NEEDS`, those the options ask for: the library's
    :func:`~pegasos._stream_params.stream_refusals` of the parameters they set."""
    return stream_refusals({"lam": args.lam, "n_epochs": args.epochs, "tol": args.tol,
                            "track_objective": args.plot is not None,
                            "probability": bool(args.probability_estimates)})
