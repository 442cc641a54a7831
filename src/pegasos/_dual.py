"""LIBSVM's problems fitted by one driver: the pairs of classes of
:class:`~pegasos.DualSVC` and :class:`~pegasos.DualNuSVC`, or the one problem of
:class:`~pegasos.DualSVR`, :class:`~pegasos.DualNuSVR` and
:class:`~pegasos.DualOneClassSVM` (:class:`_SingleDual`).

LIBSVM solves its five problems with one solver of
``min 1/2 a'Qa + p'a, 0 <= a_v <= C_v, y'a = const``; each problem (a :class:`Cut`) is
what its entry of :data:`~pegasos._solvers.problems.PROBLEMS` hands
:func:`pegasos._solvers.working_set.run`.  :func:`solve_all` solves a list of them (the
pairs, or the one) and :func:`write_model` writes the fitted attributes once.
"""

import contextlib
import itertools
import math
import warnings
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.validation import check_is_fitted

from ._base import loss_weights
from ._kernel_base import _documented, _KernelModel, dense, write_support
from ._memory import check_memory
from ._probability import pair_sigmoid, warm_pair_decisions
from ._rows import as_rows, compact_columns
from ._sklearn_private import Interval, _fit_context
from ._solvers import working_set as _ws
from ._solvers.engine import engine_for, points
from ._solvers.problems import entry, hard_margin
from ._solvers.report import Report
from ._solvers.threads import one_blas_thread

#: Rows replaced per iteration, as a share of the working set (ThunderSVM's is half).
#: A quarter computes fewer columns in more iterations, each with more of the set kept
#: (docs/journal/dualsvc_profile.md): on the covtype subset (C = 10)
#: 13,122 columns against 14,937, on Adult 16,887 against 19,127, on 20,000 Fashion-MNIST
#: rows, 10 classes, 74,088 against 89,528, on ijcnn1 as SVR 35,434 against 50,014; no
#: fit measured was slower, SVR's was 25% faster.
NEW_SHARE = 0.25

#: An inner solve stops when the block's violation falls to this share of where it
#: started (ThunderSVM's rule), or to ``tol``.
INNER_RATIO = 0.1

#: Pair steps per inner solve, at most, per row of the working set.
INNER_STEPS_PER_ROW = 100

#: Probability's folds (:func:`fold_plan`) of a problem larger than the fit's
#: working set take sets of this share of it: started near their solution, they move
#: few variables, and a large set cost its gathering and the columns of rows that did
#: not move.  20,000 Fashion-MNIST rows of 10 classes (pairs of 4,000 rows, q = 1024):
#: the fit with probabilities took 2.3x the plain fit with the folds' sets at 1024,
#: 1.7x at 512, 1.5x at 256, 1.6x at 128.  (A problem that one set holds is solved as
#: one block: on digits, sets of a quarter took 1.4x the time.)
FOLD_SET_DIVISOR = 4


#: The LIBSVM family's shared docstring entries, by marker (:func:`documented`).
_PARTS = {
    # the working-set solver's parameters, after the kernel's
    "__WORKING_SET_PARAMETERS__": """    tol : float > 0, default=1e-3
        Stop when every problem's largest violation of the optimality
        conditions, ``max -y_i G_i`` over the variables that may grow minus
        ``min -y_i G_i`` over those that may shrink, is at most ``tol``
        (LIBSVM's ``-e``, SVC's ``tol``); the nu problems' (nu-SVC's,
        nu-SVR's), each class's or sign's on its own.
    max_iter : int, default=-1
        SMO's iterations (pair steps) at most, per problem, as SVC's: the
        steps of the inner solves counted across the working sets; -1 for no
        limit.  A problem that reaches it stops there, with SVC's
        :class:`~sklearn.exceptions.ConvergenceWarning` ("Solver terminated
        early", which also gives the violation, and a classifier's duality
        gap) and ``fit_status_`` 1, as SVC's, even where the last step solved
        it.
    working_set_size : int >= 4, default=1024
        Variables per working set (q: rows, SVR's two per row).  Each
        iteration computes at most ``q/4`` new kernel columns (2 at least,
        ``q`` at the first): each problem's worst pairs of variables, the
        problems taking turns (at least two pairs, so that a pair that moves
        together stays together).
    cache_size : float >= 0, default=200.0
        Memory in MB for kernel columns kept beyond the working set's own
        (``1.25 q`` columns of n values, always kept), in float32 whatever the
        rows' type, as LIBSVM's cache; any size is honoured.  Columns of
        rows chosen again are reused, least recently used out.  SVC's default.
        How much more pays depends on what a column costs (measured in
        docs/guide/dual.md, "Measured").
""",
    "__ONE_PROBLEM_CALLBACK__": """    callback : callable, default=None
        Called after working sets 1, 2, 4, 8, ... and the last with one
        :class:`~pegasos.Report` (``coef``: each training row's coefficient,
        SVR's ``a_i - a*_i``; ``kernel_evals``: the kernel values so far).
        The fit is the same with or without it.
""",
    # the one problem's attributes after its support vectors (and epsilon_)
    "__ONE_PROBLEM_ATTRIBUTES__": """    gamma_ : float
        The kernel coefficient used.
    n_iter_ : int
        SMO's iterations (pair steps across the working sets), as SVC's; at
        most ``max_iter``.
    objective_ : float
        LIBSVM's ``obj``: the dual objective ``1/2 a'Qa + p'a`` at the end
        (the one-class SVM's ``p`` is 0).
    violation_ : float
        The largest violation of the optimality conditions at the end.
    n_kernel_columns_, n_kernel_evals_ : int
        Kernel columns computed, and kernel values in all, the start's
        included (as :class:`DualSVC`'s).
    fit_status_ : int
        0 if ``tol`` was reached within ``max_iter``, 1 otherwise (as SVC's).
    shape_fit_ : tuple
        The training rows' shape.
    coef_ : ndarray of shape (1, n_features)
        With ``kernel="linear"`` only: ``dual_coef_ @ support_vectors_``.
""",
}


def documented(obj):
    """:func:`~pegasos._kernel_base._documented`, with the LIBSVM family's shared entries
    (:data:`_PARTS`) in place of their markers."""
    for marker, text in _PARTS.items():
        obj.__doc__ = obj.__doc__.replace(f"    {marker}\n", text)
    return _documented(obj)


class Problem(NamedTuple):
    """One problem of a fit: the training rows it is on (``keep``; None: all of them) and
    its variables' targets (variables, problems) in {-1, +1}."""

    keep: object
    Y: np.ndarray


class Cut(NamedTuple):
    """One problem of a fit, cut from the training set: its rows X (of the labels
    ``labels``: the training labels or targets, or a pair's 1 and 0), the targets ``Y``
    (variables, problems), the bounds, the prepared rows and their squared norms, the
    kernel matrix ``gram`` of a small training set as
    :func:`~pegasos._solvers.working_set.run` takes it (or None), the rows' numbers
    ``keep`` in the training set (None: all), and the training set's rows ``n_total``."""

    X: object
    labels: object
    Y: np.ndarray
    bounds: np.ndarray
    rows: object
    sqnorm: np.ndarray
    gram: object
    keep: object
    n_total: int


# --- the plan, the problem's dual and its start -----------------------------------------

def _set_size(q):
    """The fields of a :class:`~pegasos._solvers.working_set.WorkingSetPlan` that follow
    from its working-set size ``q``: the rows new per iteration and the inner steps."""
    return {"q": q, "new": max(2, int(q * NEW_SHARE)), "max_inner": INNER_STEPS_PER_ROW * q}


def working_set_plan(est, n_vars, rows, n_total):
    """The :class:`~pegasos._solvers.working_set.WorkingSetPlan` of the estimator ``est``
    (its ``working_set_size``, ``tol``, ``max_iter``, ``cache_size``) for a problem of
    ``n_vars`` variables on the rows ``rows`` of a training set of ``n_total`` rows."""
    n = rows.n_rows
    q = min(int(est.working_set_size), n_vars)
    itemsize = np.dtype(_ws.STORE_DTYPE).itemsize
    return _ws.WorkingSetPlan(
        **_set_size(q), tol=float(est.tol), ratio=INNER_RATIO, max_iter=int(est.max_iter),
        cache_rows=int(min(n, est.cache_size * 2**20 // (itemsize * n))),
        engine=engine_for(n_total),
    )


def bounds_of(est, X, y, sample_weight):
    """(the loss weights, each variable's bound) of the estimator's problem: ``C`` times
    the sample (and class) weights, or the weights (nu-SVC, one-class); a negative sample
    weight drops its row, as LIBSVM's.  Its refusal of parameters the data cannot hold
    (nu-SVC's nu, nu-SVR's C) is made here."""
    problem = entry(est._problem)
    w = loss_weights(X, y, sample_weight, est.class_weight if problem.class_weighted else None,
                     getattr(est, "classes_", None), negative_as_zero=True)
    bounds = problem.bounds(est, w)
    if problem.check is not None:
        problem.check(est, X, y, bounds)
    return w, bounds


def dual_of(est, labels, n):
    """The :class:`~pegasos._solvers.working_set.Dual` of the estimator's problem on n
    rows of the targets ``labels`` (its linear term, variables' rows and nu rules)."""
    problem = entry(est._problem)
    rows = None if problem.variables is None else problem.variables(n)[1]
    return _ws.Dual(problem.linear(est, labels), rows, problem.by_sign, problem.undefined)


def row_coefficients(Y, a, rows, n):
    """Each row's coefficients (n, problems): the sums of ``y_v a_v`` over its variables
    (``rows``: each variable's row, None: one variable per row)."""
    coef = Y * a
    if rows is None:
        return coef
    return np.column_stack([np.bincount(rows, weights=coef[:, c], minlength=n)
                            for c in range(coef.shape[1])])


def training_coef(coef, keep, n_total):
    """A problem's coefficients on its rows ``keep`` (None: all) as one per training row
    (what a report carries)."""
    if keep is None:
        return coef
    full = np.zeros(n_total)
    full[keep] = coef
    return full


def first_point(est, cut, dual):
    """(the start, its kernel evaluations) of the problem ``cut``: LIBSVM's first point
    where its problem has one (nu-SVC's: each class holds ``nu`` times half the pair's
    weight), else zero (None) or ``start_epochs`` of kernel Pegasos (DualSVC's).  The
    start's responses are read from the kernel matrix where there is one, as every later
    step's are (LIBSVM's from its Q): the same diagonal, so that a symmetric problem's
    two classes stay symmetric to the last bit (its intercept 0)."""
    problem = entry(est._problem)
    if problem.start is None:
        if getattr(est, "start_epochs", 0.0) <= 0:
            return None, 0
        if hard_margin(est.C):
            raise ValueError("start_epochs needs a finite C: kernel Pegasos' lambda = "
                             "1/(C n) is 0 for C=inf (the hard margin)")
        return est._start(cut.X, cut.labels, cut.Y, cut.bounds)
    a = problem.start(est, cut.bounds, cut.Y)
    n = cut.rows.n_rows
    beta = row_coefficients(cut.Y, a[:, None], dual.rows, n)[:, 0]
    nz = np.flatnonzero(beta)
    if cut.gram is None:
        F = est._products(cut.X, None, nz, beta[nz][None, :])[:, 0]
    else:
        matrix, keep = cut.gram
        F = (matrix[:, nz] if keep is None else matrix[np.ix_(keep, keep[nz])]) @ beta[nz]
    state = _ws.WorkingSetState(a[:, None].copy(), np.ascontiguousarray(F[None]).T)
    # (a classifier's count has always included the start's columns read from the kernel
    # matrix, which cost no evaluation; kept, as its n_kernel_evals_)
    return state, (n * nz.size if cut.gram is None or problem.classifier else 0)


# --- solving ------------------------------------------------------------------------------

def _weighted_sides(Y, bounds):
    """(2, problems) booleans: whether each problem's positive (row 0) and negative (row 1)
    rows have a positive total weight."""
    weighted = (bounds > 0)[:, None]  # (a bound may be inf: C=inf)
    return np.array([np.any(weighted & (Y > 0), axis=0), np.any(weighted & (Y < 0), axis=0)])


def _one_sided(Y, positive):
    """The solution of a problem whose rows of one side all weigh 0 (LIBSVM drops such rows,
    and with them the class): no support vector, and the intercept that puts the weighted
    side at margin 1, so the pair always votes for the weighted class."""
    n, n_problems = Y.shape
    state = _ws.WorkingSetState(np.zeros((n, n_problems)), np.zeros((n_problems, n)).T)
    return _ws.Result(state=state, intercept=np.where(positive, 1.0, -1.0),
                      violation=np.zeros(n_problems), n_iter=0, seconds=0.0, columns=0,
                      inner_steps=0, converged=True,
                      problem_steps=np.zeros(n_problems, np.int64))


def cut_of(est, X, y, keep, Y, bounds, prepared):
    """The :class:`Cut` of one problem: X's rows ``keep`` (all when None), given the
    :class:`~pegasos._kernel_base.Prepared` rows of all of X."""
    rows, sqnorm, gram = prepared.rows, prepared.sqnorm, prepared.gram
    labels = y
    if keep is not None:
        X = X[np.ix_(keep, keep)] if est.kernel == "precomputed" else X[keep]
        (compact,) = compact_columns(X)
        rows, sqnorm, bounds = as_rows(compact, X.dtype), sqnorm[keep], bounds[keep]
        labels = (Y[:, 0] > 0).astype(np.int64)  # (the pair's, for start_epochs)
    return Cut(X, labels, Y, bounds, rows, sqnorm, None if gram is None else (gram, keep),
               keep, X.shape[0] if keep is None else len(y))


def solve(est, cut, position, arena=None, evals=0):
    """Solve one problem (:class:`Cut`), BLAS at one thread: the model's
    :class:`~pegasos._solvers.working_set.Result` and its kernel evaluations.  A pair of
    classes one of which weighs nothing is no problem to solve (:func:`_one_sided`).
    ``position``: (the first problem's number, the number of problems, seconds before)
    for the callback's reports; ``arena``: a :class:`~pegasos._solvers.working_set.Arena`
    for its kept columns, or None; ``evals``: the evaluations counted before it."""
    classifier = entry(est._problem).classifier
    sides = _weighted_sides(cut.Y, cut.bounds)
    if cut.keep is not None and not sides.all():  # a pair with an unweighted class
        return _one_sided(cut.Y, sides[0]), 0
    # a classifier's BLAS at one thread between the engine's threads: OpenBLAS's threads,
    # woken by the driver's small products (probability's folds and sigmoids), spin on
    # after them and took a core from the next pair's kernel columns (the pairs' solves
    # 1.3x slower).  (The one problem's BLAS keeps its threads: at one thread, its
    # products from a kernel matrix sum in another order, and its models would change.)
    with one_blas_thread() if classifier else contextlib.nullcontext():
        result, cost = _solve(est, cut, position, arena, evals)
    if classifier:  # one-vs-rest: a class of no weight is on no row's side, margin 1 below all
        result.intercept[~sides[0]] = -1.0
    return result, cost


def _solve(est, cut, position, arena, evals):
    X, labels, Y, bounds, rows, sqnorm, gram, keep, n_total = cut
    n = rows.n_rows
    first, total, before = position
    dual = dual_of(est, labels, n)
    plan = working_set_plan(est, len(Y), rows, n_total)
    start, start_evals = first_point(est, cut, dual)
    # (a classifier's reports count each problem's columns; a single problem's, every
    # evaluation so far)
    counted = 0 if entry(est._problem).classifier else evals + start_evals
    report, reported = None, [0]
    if est.callback is not None:
        def report(it, columns, seconds, state, intercept, steps):
            reported[0] = it
            coef = np.ascontiguousarray(row_coefficients(Y, state.a, dual.rows, n).T)
            for c in range(Y.shape[1]):
                est.callback(Report(
                    problem=first + c, n_problems=max(total, Y.shape[1]), t=it,
                    iterations=int(steps[c]), iterations_total=max(plan.max_iter, 0),
                    seconds=before + seconds, coef=training_coef(coef[c], keep, n_total),
                    intercept=float(intercept[c]), kernel_evals=counted + int(columns) * n))

    result = _ws.run(points(rows, sqnorm), est._kargs, Y, bounds, plan, report, start, gram,
                     dual, arena=arena)
    if report is not None and reported[0] != result.n_iter:
        report(result.n_iter, result.columns, result.seconds, result.state, result.intercept,
               result.problem_steps)
    if getattr(est, "_sigmoids", None) is not None:  # (probability's folds, on its columns)
        est._sigmoids[first] = pair_sigmoid(*warm_pair_decisions(
            points(rows, sqnorm), est._kargs, Y, bounds, fold_plan(plan, len(Y)), result,
            est._fold_seed + first), None)
    result = as_model(est, result._replace(store=None))
    # columns read from the kernel matrix cost no evaluation: the fit counted the matrix
    return result, (int(result.columns) * n if gram is None else 0) + start_evals


def as_model(est, result):
    """The solver's result as the model's: as it is, or for a rescaled problem divided by
    ``r``, the C-SVC model with ``C = 1/r`` (LIBSVM's ``solve_nu_svc``).  A solution
    whose offset or r is not finite, or (rescaled) whose r is not positive, is no model
    (LIBSVM's is infinite or NaN, which scikit-learn refuses), except in a fold (some
    decision values, whatever r is)."""
    problem = entry(est._problem)
    if not problem.rescale:
        if not (np.all(np.isfinite(result.intercept))
                and (result.r is None or np.all(np.isfinite(result.r)))):
            raise ValueError(
                f"{type(est).__name__} found no model: its offset (LIBSVM's rho) is not "
                "finite, as every variable is at one bound (nu = 1 puts every row at its "
                "bound); take a smaller nu")
        return result
    r = result.r
    if not np.isnan(problem.undefined):  # a fold's
        r = np.where(np.isfinite(r) & (r > 0), r, 1.0)
    if not np.all(np.isfinite(r) & (r > 1e-12 * (1.0 + np.abs(result.intercept)))):
        raise ValueError(
            f"nu-SVC found no model: r = {np.min(r):.3g}, where LIBSVM divides by r (C = "
            "1/r); every variable of a class at one bound (nu too large: nu = 1 on "
            "balanced classes), or classes that cannot be told apart (identical rows "
            "with different labels). Take a smaller nu.")
    state = _ws.WorkingSetState(result.state.a / r, result.state.F / r)
    return result._replace(state=state, intercept=result.intercept / r, scale=1.0 / r)


def fold_plan(plan, n_vars):
    """The plan of probability's folds of a problem of ``n_vars`` variables solved with
    ``plan`` (:func:`~pegasos._probability.warm_pair_decisions`): one block solved to tol
    where one working set holds the problem (from a start near the solution, that halved
    the time), else working sets :data:`FOLD_SET_DIVISOR` times smaller than the fit's."""
    if plan.q >= n_vars:
        return plan._replace(ratio=0.0)
    return plan._replace(**_set_size(max(2, plan.q // FOLD_SET_DIVISOR)))


def solve_all(est, X, y, problems, bounds, prepared):
    """Solve the fit's :class:`Problem` list (the pairs of classes, the one-vs-rest
    problems together, or the one problem) one after another, their kept columns in one
    memory: (their results, the kernel evaluations, the diagonal's or the small training
    set's kernel matrix's first)."""
    evals = prepared.rows.n_rows if prepared.gram is None else prepared.gram.size
    solved, seconds, arena = [], 0.0, _ws.Arena()
    for p, (keep, Y) in enumerate(problems):
        result, cost = solve(est, cut_of(est, X, y, keep, Y, bounds, prepared),
                             (p, len(problems), seconds), arena, evals)
        solved.append(result)
        seconds += result.seconds
        evals += cost
        if est.verbose:
            dual = None if entry(est._problem).classifier else dual_of(est, y, X.shape[0])
            say(est, p, len(problems), result, dual, Y)
    return solved, evals


# --- the model ------------------------------------------------------------------------

def say(est, p, total, result, dual=None, Y=None):
    """``verbose``: one line per solved problem, as LIBSVM's messages (with its dual
    objective, LIBSVM's ``obj``, given the problem's ``dual`` and targets ``Y``)."""
    used = np.any(result.state.a > 0, axis=1)
    rows = None if dual is None else dual.rows
    nsv = int(np.count_nonzero(used) if rows is None else np.unique(rows[used]).size)
    obj = ("" if dual is None else
           f"obj = {float(_ws.dual_objectives(Y, result.state, dual)[0]):.6g}, ")
    print(f"{type(est).__name__}: problem {p + 1} of {total}: {result.n_iter} working sets, "
          f"{int(result.problem_steps.sum())} pair steps, {obj}nSV = {nsv}, rho = "
          + ", ".join(f"{-b:.6g}" for b in result.intercept)
          + f", violation = {float(np.max(result.violation)):.3g}", flush=True)


def write_status(est, solved, violation, per=""):
    """What the fit of every LIBSVM problem writes last from its ``solved`` problems'
    :class:`~pegasos._solvers.working_set.Result`: ``dual_coef_`` as a CSR matrix after a
    fit on sparse rows (as SVC's), ``fit_status_`` (0: every problem reached ``tol``
    within ``max_iter``), and where it is 1 the
    :class:`~sklearn.exceptions.ConvergenceWarning` with the working sets, ``n_iter_``
    and the ``violation`` (its text) it stopped at: at ``max_iter``, SVC's words, whether
    or not the last step solved the problem, as SVC's."""
    if sp.issparse(est.support_vectors_):
        est.dual_coef_ = sp.csr_matrix(est.dual_coef_)
    out_of_steps = any(r.out_of_steps for r in solved)
    est.fit_status_ = 0 if all(r.converged for r in solved) and not out_of_steps else 1
    if not est.fit_status_:
        return
    name, steps = type(est).__name__, int(np.sum(est.n_iter_))
    if out_of_steps:
        said = (f"{name}: Solver terminated early (max_iter={est.max_iter}).  Consider "
                "pre-processing your data with StandardScaler or MinMaxScaler. ")
        advice = f"Increase max_iter (pair steps{per}; -1 for no limit)."
    else:  # (above tol, and no step moved the working sets)
        said, advice = f"{name}: ", "No step could reduce it further."
    warnings.warn(f"{said}It stopped after {sum(r.n_iter for r in solved)} working sets and "
                  f"{steps} pair steps (n_iter_) with a largest violation of {violation}. "
                  f"{advice}", ConvergenceWarning)


def _set_one_vs_one(est, X, y, problems, solved):
    """SVC's one-vs-one attributes: the support vectors grouped by class, and
    ``dual_coef_`` (n_classes - 1, n_SV), where a support vector of class i has its
    coefficient for the pair (i, j) in row j - 1 if i < j, else in row j."""
    k = len(est.classes_)
    labels = np.searchsorted(est.classes_, y)
    used = np.zeros(len(y), bool)
    for (keep, _), result in zip(problems, solved):
        used[keep[result.state.a[:, 0] > 0]] = True
    support = np.concatenate([np.flatnonzero(used & (labels == c)) for c in range(k)])
    at = np.full(len(y), -1, np.int64)
    at[support] = np.arange(support.size)
    dual = np.zeros((k - 1, support.size))
    for (i, j), (keep, Y), result in zip(itertools.combinations(range(k), 2), problems,
                                         solved):
        a = result.state.a[:, 0]
        mine = a > 0
        first = mine & (Y[:, 0] > 0)
        dual[j - 1, at[keep[first]]] = a[first]
        second = mine & (Y[:, 0] < 0)
        dual[i, at[keep[second]]] = -a[second]
    write_support(est, X, support, dual, [r.intercept[0] for r in solved],
                  np.bincount(labels[support], minlength=k))


def _set_classifier(est, X, y, bounds, problems, solved):
    """A classifier's attributes: per problem (pair of classes, one-vs-rest class) its
    violation, relative duality gap and pair steps; SVC's support vectors and layout;
    nu-SVC's ``C_``.  Returns the warning's text of the violation."""
    gaps = []
    for (keep, Y), result in zip(problems, solved):
        primal, dual = _ws.objectives(Y, (bounds if keep is None else bounds[keep])
                                      * result.scale, result.state, result.intercept)
        gaps.append((primal - dual) / np.maximum(np.abs(primal), np.finfo(float).tiny))
    est.violation_ = np.concatenate([r.violation for r in solved])
    est.class_weight_ = compute_class_weight(est.class_weight, classes=est.classes_, y=y)
    est.relative_gap_ = np.concatenate(gaps)
    est.n_iter_ = np.concatenate([r.problem_steps for r in solved])
    if problems[0].keep is None:
        Y = np.column_stack([problem.Y for problem in problems])
        a = np.column_stack([r.state.a for r in solved])
        est._set_support(X, y, (Y * a).T, np.concatenate([r.intercept for r in solved]))
    else:
        _set_one_vs_one(est, X, y, problems, solved)
    if entry(est._problem).rescale:
        est.C_ = np.concatenate([np.asarray(r.scale, dtype=np.float64) for r in solved])
    return (f"{est.violation_.max():.3g} (tol={est.tol:g}) and a relative duality gap of "
            f"{est.relative_gap_.max():.3g}")


def _set_single(est, X, y, problems, solved):
    """The one problem's attributes: the support vectors are the rows whose coefficient is
    not zero; its pair steps, violation and dual objective as numbers.  Returns the
    warning's text of the violation."""
    ((_, Y),), (result,) = problems, solved
    n = X.shape[0]
    dual = dual_of(est, y, n)
    beta = row_coefficients(Y, result.state.a, dual.rows, n)[:, 0]
    support = np.flatnonzero(beta)
    write_support(est, X, support, beta[support][None, :], result.intercept, [support.size])
    est.n_iter_ = int(result.problem_steps[0])
    est.violation_ = float(result.violation[0])
    est.objective_ = float(_ws.dual_objectives(Y, result.state, dual)[0])
    return f"{est.violation_:.3g} (tol={est.tol:g})"


def write_model(est, X, y, bounds, problems, solved, evals):
    """The fitted attributes of the ``solved`` :class:`Problem` list, written once: the
    classifier's (:func:`_set_classifier`) or the one problem's (:func:`_set_single`),
    the kernel columns and evaluations, the rows' shape and :func:`write_status`."""
    if entry(est._problem).classifier:
        violation = _set_classifier(est, X, y, bounds, problems, solved)
    else:
        violation = _set_single(est, X, y, problems, solved)
    est.n_kernel_columns_ = int(sum(r.columns for r in solved))
    est.n_kernel_evals_ = int(evals)
    est.shape_fit_ = X.shape
    write_status(est, solved, violation, " per pair of classes" if len(problems) > 1 else "")


#: The working-set solver's parameters, as each LIBSVM problem's estimator checks them.
DUAL_CONSTRAINTS = {
    "kernel": [*_KernelModel._parameter_constraints["kernel"], callable],
    "tol": [Interval(Real, 0, math.inf, closed="neither")],
    "max_iter": [Interval(Integral, -1, None, closed="left")],
    "working_set_size": [Interval(Integral, 4, None, closed="left")],
    "shrinking": ["boolean"],
    "verbose": ["verbose"],
}


class _DualModel:
    """What each LIBSVM problem's estimator has of its problem: the regularisation as
    ``pegasos info`` prints it, and a linear kernel's ``coef_``."""

    def _describe_regularisation(self):
        """The regularisation the model was trained with, as ``pegasos info`` prints it (its
        problem's ``describe``): a dict of its numbers and ``text``.  A model read from a
        LIBSVM file records no C, nu or epsilon (every fit records its ``violation_``)."""
        if not hasattr(self, "violation_"):
            return {"text": "not recorded (read from a LIBSVM model file, which keeps no C, "
                            "nu or epsilon: the parameters below are the defaults)"}
        return entry(self._problem).describe(self)

    @property
    def coef_(self):
        """The weights of a linear kernel's model: ``dual_coef_ @ support_vectors_``.

        One row per problem (per pair of classes for a one-vs-one model, as SVC's);
        sparse after a fit on sparse rows; read-only.
        """
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when using a linear kernel")
        check_is_fitted(self)
        coef = (self._pair_coef() if entry(self._problem).classifier and self._one_vs_one
                else dense(self.dual_coef_))
        if sp.issparse(self.support_vectors_):
            coef = (sp.csr_matrix(coef) @ self.support_vectors_).tocsr()
            coef.data.flags.writeable = False  # (a change to it would change no prediction)
            return coef
        coef = coef @ self.support_vectors_
        coef.flags.writeable = False
        return coef


class _SingleDual(_DualModel, _KernelModel):
    """The estimators of one dual problem (SVR, nu-SVR, one-class): parameters,
    validation and the fit by :func:`solve_all`."""

    _parameter_constraints: dict = {
        **_KernelModel._parameter_constraints,
        **DUAL_CONSTRAINTS,
        "callback": [callable, None],
    }

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Solve the estimator's LIBSVM problem (:data:`~pegasos._solvers.problems.PROBLEMS`)
        to ``tol``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows (float64 or float32; CSR), or with
            ``kernel="precomputed"`` the Gram matrix (n_samples, n_samples).
        y : array-like of shape (n_samples,), or None
            Target values (the one-class SVM's: ignored).
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows' losses (``C`` times the weight bounds each
            variable; the one-class SVM's bounds); rows of weight zero or less
            take no part, as in LIBSVM.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        if callable(self.kernel):
            return self._fit_callable(X, y, sample_weight)
        problem = entry(self._problem)
        X, y = self._validate_xy(X, y if problem.supervised else "no_validation",
                                 y_numeric=True)
        w, C = bounds_of(self, X, y, sample_weight)
        Y, rows = problem.variables(X.shape[0])
        n, n_vars = X.shape[0], Y.shape[0]
        check_memory(8 * (4 * n_vars + 2 * n),
                     f"{type(self).__name__}'s dual on {n} rows ({n_vars} variables: 4 values "
                     "of 8 bytes each, and 2 per row)")
        problems = [Problem(None, Y)]
        bounds = C if rows is None else np.concatenate([C, C])
        solved, evals = solve_all(self, X, y, problems, bounds, self._prepare(X))
        write_model(self, X, y, bounds, problems, solved, evals)
        return problem.done(self, X, y, w, solved[0])

    def _decision(self, X):
        """``dual_coef_ @ K(support_vectors_, X) + intercept_``, (n_samples,)."""
        check_is_fitted(self)
        return self._scores(X, self.dual_coef_, self.intercept_)[:, 0]
