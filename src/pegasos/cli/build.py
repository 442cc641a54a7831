"""``train``'s estimator: the options (checked by :mod:`.options`) made into the
estimator they describe, and checked by the estimator's own rules, a refused parameter a
usage error naming its option -- LIBLINEAR's ``train.c`` over its library."""

import sys

from .._base import DEFAULT_C, check_params
from .._solvers.problems import PROBLEMS, estimator_class
from ..kernel import KernelPegasosClassifier, KernelPerceptron, SBPClassifier
from ..kernel_map import NystroemPegasosClassifier
from ..linear import PegasosClassifier
from .options import (
    DUAL,
    OPTIONS,
    _average,
    _check_solver_options,
    _class_weights,
    _given,
    _kernel_params,
    _option,
)


def _estimator(args, parser):
    """The estimator the options describe, checked by the estimator's own rules.

    A table from options to parameters, as LIBLINEAR's ``train.c`` over its
    library: the defaults are the estimators' (C = 1, their budgets), and a
    parameter the estimator refuses is a usage error naming the option.
    """
    _check_solver_options(args, parser)
    bias = _option(args, "bias")
    if not (bias > 0 or bias == -1):
        parser.error(f"-B must be > 0, or -1 for no intercept; got {bias}")
    average = _average(_option(args, "average"), parser)
    class_weight = _class_weights(args, parser)
    common = dict(random_state=args.seed, **_given(
        batch_size=args.batch_size, n_iter=args.iter, n_epochs=args.epochs,
        sampling=args.sampling))
    intercept = dict(fit_intercept=bias != -1, intercept_scaling=bias if bias > 0 else 1.0)
    if args.map is None and (args.components is not None or args.landmarks is not None
                             or args.map_solver is not None):
        parser.error("--components, --landmarks and --map-solver are options of --map "
                     "nystroem")
    if args.budget_strategy is not None and args.budget is None:
        parser.error("--budget-strategy needs --budget")
    if args.map is not None:
        est = _map_estimator(args, parser, average, class_weight, common)
    elif args.solver == "pegasos":
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
    kernel = _kernel_params(args, parser)
    budget = _given(budget=args.budget, budget_strategy=args.budget_strategy)
    if args.average is None:  # the estimators' "auto": the last iterate with a budget
        average = "auto"
    if args.solver == "kernel-pegasos":
        return KernelPegasosClassifier(
            lam=args.lam, C=args.cost, projection=not args.no_projection, average=average,
            class_weight=class_weight, **intercept, **kernel, **common, **budget)
    if args.solver == "perceptron":
        return KernelPerceptron(average=average if average == "auto" else average is not False,
                                class_weight=class_weight, **intercept, **kernel, **common,
                                **budget)
    if args.solver in DUAL:
        return _dual_estimator(args, kernel, class_weight)
    C = None if args.nu is not None else DEFAULT_C if args.cost is None else args.cost
    return SBPClassifier(
        nu=args.nu, C=C, average=average is not False, fit_intercept=args.unregularized_bias,
        class_weight=class_weight, **kernel, **common)


def _dual_estimator(args, kernel, class_weight):
    """The working-set solver's estimator of ``-s`` (LIBSVM's five problems)."""
    if args.shrinking is not None:
        print(f"pegasos: note: -h {args.shrinking} has no effect with -s {args.solver} (its "
              "working sets do not shrink; the model is the same either way)", file=sys.stderr)
    common = {**kernel, **_given(tol=args.tol, max_iter=args.iter, cache_size=args.cache_size,
                                 shrinking=None if args.shrinking is None
                                 else bool(args.shrinking))}
    problem = next(p for p in PROBLEMS.values() if p.solver == args.solver)
    given = _given(C=args.cost, nu=args.nu, epsilon=args.epsilon)
    chosen = {"class_weight": class_weight, "random_state": args.seed, **given}
    return estimator_class(problem)(
        **common, **{k: v for k, v in chosen.items() if k in problem.options})


def _map_estimator(args, parser, average, class_weight, common):
    """``--map nystroem``: :class:`~pegasos.NystroemPegasosClassifier`."""
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
                                                  landmarks=args.landmarks,
                                                  solver=args.map_solver), **common)
