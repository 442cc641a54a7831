"""LIBSVM's five problems as data: one table, read by the fit, the model files and the CLI.

LIBSVM solves c_svc, nu_svc, one_class, epsilon_svr and nu_svr with one solver of
``min 1/2 a'Qa + p'a, 0 <= a_v <= C_v, y'a = const`` (and, for the nu problems,
``e'a`` fixed per sign); :func:`~pegasos._solvers.working_set.run` is that solver.  A
problem is what it hands the solver: each variable's sign and row (:attr:`Problem.variables`),
its bound (:attr:`Problem.bounds`), the linear term, the start, whether it solves by sign,
what the solution is divided by, and what the fit adds to the model.  Each public
estimator sets ``_problem`` to its entry's ``svm_type``; :mod:`pegasos.model_io`,
:mod:`pegasos.interchange` and the CLI read the same entry (the estimator's name, its
model file's arrays and scalars, LIBSVM's ``svm_type``, the CLI's ``-s`` and options).

(scikit-learn's ``svm/_base.py`` answers the same need with ``LIBSVM_IMPL``.)  Only
NumPy here, and only once a rule runs: model files read this table without the compiled
solver, and ``pegasos --help`` (the solvers' names and options) without NumPy.
"""

import importlib
import itertools
import math
from numbers import Integral, Real
from typing import Callable, NamedTuple


class _NumPy:
    """NumPy, imported when a rule first uses it: ``pegasos --help`` reads this table's
    names and options (measured: importing NumPy would double its 60-80 ms)."""

    def __getattr__(self, name):
        import numpy  # (see the class docstring)

        return getattr(numpy, name)


np = _NumPy()

__all__ = ["PROBLEMS", "Problem", "estimator_class", "hard_margin", "problem_of",
           "scaled_bounds"]


# --- what C = inf means, written once --------------------------------------------

def hard_margin(C):
    """Whether ``C`` is the hard margin (``C = inf``: no loss is allowed, every row on its
    side of the margin or within epsilon), which has no lambda = 1/(C n) form."""
    return not math.isfinite(C)


def scaled_bounds(C, w):
    """Each row's bound ``C w_i``; ``C = inf`` bounds the weighted rows by inf and keeps the
    rows of weight 0 out (bound 0), without ``inf * 0``."""
    return np.multiply(C, w, out=np.zeros_like(w), where=w > 0)


# --- the five problems' pieces ---------------------------------------------------

def spread(total, w):
    """LIBSVM's first points: ``total`` spread over the variables in order, each up to its
    bound ``w_i`` (``a_i = min(w_i, what is left)``)."""
    return np.clip(total - (np.cumsum(w) - w), 0.0, w)


def nu_start(w, nu, positive):
    """nu-SVC's (``solve_nu_svc``): ``nu sum(w) / 2`` spread over each side's rows."""
    a = np.zeros(len(w))
    for side in (positive, ~positive):
        a[side] = spread(nu * w.sum() / 2, w[side])
    return a


def nu_svr_start(C, nu):
    """nu-SVR's (``solve_nu_svr``): ``nu sum(C) / 2`` spread over the rows, each pair of
    variables ``a_i = a*_i``."""
    a = spread(nu * C.sum() / 2, C)
    return np.concatenate([a, a])


def libsvm_start(w, nu):
    """The one-class SVM's: ``nu sum(w)`` spread over the rows."""
    return spread(nu * w.sum(), w)


def check_nu_feasible(nu, y, w):
    """Refuse a pair of classes whose smaller one weighs less than ``nu`` times half the
    pair (LIBSVM's ``svm_check_parameter``, with the sample weights ``w``)."""
    classes, labels = np.unique(y, return_inverse=True)
    totals = np.bincount(labels, weights=w, minlength=len(classes))
    for i, j in itertools.combinations(range(len(classes)), 2):
        if nu * (totals[i] + totals[j]) / 2 > min(totals[i], totals[j]):
            raise ValueError(
                f"specified nu is infeasible: nu={nu:g} asks for more than the "
                f"weight of the smaller class of the pair ({classes[i].item()!r}, "
                f"{classes[j].item()!r}); nu is at most 2 min(n_i, n_j) / "
                "(n_i + n_j), the classes' weights")


def refuse_unresolvable_C(est, X, y, C):
    """Refuse bounds ``C`` (per row: ``est.C`` times the sample weights) at which one dual
    variable at its bound moves the gradients (by up to ``C K(x, x)``, ``largest`` the
    largest K(x, x) of X) by more than float64 resolves within ``tol``: the solver's
    violations would then be rounding, and its iterations never end
    (``DualNuSVR(C=1e300)`` on 40 rows did not; LIBSVM's NuSVR neither)."""
    given, largest, tol = est.C, est._largest_diagonal(X), est.tol
    top = float(np.max(C, initial=0.0))
    if top * largest * np.finfo(np.float64).eps > tol:
        limit = tol / (largest * np.finfo(np.float64).eps) * (given / top)
        raise ValueError(
            f"C={given:.6g} is too large for tol={tol:g}: nu-SVR's dual variables sum to "
            f"C nu n, and one at its bound moves the gradients by up to C max K(x, x) "
            f"(times its sample weight) = {top * largest:.3g}, whose float64 rounding "
            f"(2**-52 of it) exceeds tol, so the solver could never stop; give C <= "
            f"{limit:.3g}, or a larger tol")


def _two_per_row(n):
    """SVR's variables: ``a_i`` (sign +1) then ``a*_i`` (sign -1) of each row."""
    return np.concatenate([np.ones(n), -np.ones(n)])[:, None], np.concatenate([np.arange(n)] * 2)


def _one_per_row(n):
    """One variable of sign +1 per row (the one-class SVM)."""
    return np.ones((n, 1)), None


def _nu_svr_done(est, X, y, w, result):
    est.epsilon_ = -float(result.r[0])
    return est._with_probability(X, y, w)


def _one_class_done(est, X, y, w, result):
    est.offset_ = -est.intercept_
    return est


# --- the regularisation as ``info`` prints it -------------------------------------------

def _describe_svc(est):
    return {"C": float(est.C),
            "text": f"C = {est.C:.6g} (SVC's C, the weight of the hinge loss; a free intercept)"}


def _describe_svr(est):
    return {"C": float(est.C), "text": f"C = {est.C:.6g} (the weight of the "
                                       f"epsilon-insensitive loss), epsilon = {est.epsilon:.6g}"}


def _describe_nu_svr(est):
    return {"C": float(est.C), "text": f"C = {est.C:.6g} (the weight of the epsilon-insensitive "
                                       f"loss), nu = {est.nu:.6g} (epsilon = {est.epsilon_:.6g} "
                                       "found)", "nu": float(est.nu)}


def _describe_nu(est):
    pairs = (f" (each pair's C = 1/r: {', '.join(f'{c:.6g}' for c in est.C_)})"
             if hasattr(est, "C_") else "")
    return {"nu": float(est.nu), "text": f"nu = {est.nu:.6g}{pairs}"}


# --- the table ------------------------------------------------------------------------

_KERNEL_ARRAYS = frozenset({"classes_", "intercept_", "support_", "dual_coef_",
                            "support_vectors_", "n_support_"})
_CLASSIFIER_SCALARS = {"n_features_in_": Integral, "gamma_": Real, "n_kernel_evals_": Integral,
                       "n_kernel_columns_": Integral, "fit_status_": Integral}
_SINGLE_ARRAYS = _KERNEL_ARRAYS - {"classes_"}
_SINGLE_SCALARS = {**_CLASSIFIER_SCALARS, "n_iter_": Integral}
#: (the solver's own numbers, which a model read from LIBSVM's format does not have)
_SINGLE_OPTIONAL = {"violation_": Real, "objective_": Real}


class Problem(NamedTuple):
    """One of LIBSVM's problems: what the fit hands the solver, what the model files keep
    and what the CLI and ``info`` say of it."""

    #: LIBSVM's ``svm_type``; the key of :data:`PROBLEMS` and the estimators' ``_problem``
    svm_type: str
    #: the public estimator (``pegasos.<estimator>``)
    estimator: str
    #: the CLI's ``-s`` name, and the estimator's parameters that the CLI's options give
    solver: str
    options: tuple
    #: of classes (one-vs-one pairs, LIBSVM's ``nr_class`` k), or one problem of no classes
    classifier: bool
    #: whether the fit reads targets (the one-class SVM's does not)
    supervised: bool
    #: (its variables' signs Y (n_vars, 1), each variable's row or None) of n rows: the
    #: single problems' (a classifier's come from its pairs of classes)
    variables: Callable
    #: whether the loss weights take the class weights
    class_weighted: bool
    #: (est, loss weights) -> each row's bound
    bounds: Callable
    #: (est, X, y, bounds) -> None: a refusal of parameters the data cannot hold, or None
    check: object
    #: (est, y) -> the linear term p (a number for all, or (n_vars, 1))
    linear: Callable
    #: the nu problems' second constraint (LIBSVM's Solver_NU), and the intercept where
    #: LIBSVM's rho is undefined (NaN: no model)
    by_sign: bool
    undefined: float
    #: (est, bounds, Y) -> LIBSVM's first point (n_vars,), or None: from zero
    start: object
    #: the solution divided by the solver's r (nu-SVC: the C-SVC model of C = 1/r)
    rescale: bool
    #: a cross-validation fold's problem (nu-SVC's: nu unchecked), or None: the same
    fold: object
    #: probability's folds solved right after each pair on its columns, from its solution
    warm_folds: bool
    #: (est, X, y, w, the solver's result) -> est: what the fit adds to the model after
    #: the solve
    done: object
    #: est -> dict of its numbers and ``text``: the regularisation as ``info`` prints it
    describe: Callable
    #: the model file's arrays and scalars (with their types), and those only some have
    arrays: frozenset
    scalars: dict
    optional_arrays: frozenset
    optional_scalars: dict


_CLASSIFIERS = dict(classifier=True, supervised=True, variables=None)
_SINGLE = dict(classifier=False, supervised=True, class_weighted=False, rescale=False, fold=None,
               warm_folds=False, arrays=_SINGLE_ARRAYS, scalars=_SINGLE_SCALARS,
               optional_arrays=frozenset())

C_SVC = Problem(
    svm_type="c_svc", estimator="DualSVC", solver="svc",
    options=("C", "class_weight", "random_state"), class_weighted=True,
    bounds=lambda est, w: scaled_bounds(est.C, w), check=None,
    linear=lambda est, y: -1.0, by_sign=False, undefined=0.0, start=None, rescale=False,
    fold=None, warm_folds=True, done=None,
    describe=_describe_svc, arrays=_KERNEL_ARRAYS, scalars=_CLASSIFIER_SCALARS,
    # (n_iter_: a header number in older files; violation_, relative_gap_: absent from a
    # model read from LIBSVM's format, which does not record them)
    optional_arrays=frozenset({"n_iter_", "violation_", "relative_gap_", "tie_order_",
                               "class_weight_"}),
    # (n_iter_: a header number in files before it was per problem)
    optional_scalars={"n_iter_": Integral, "pairwise_coupling_": Integral}, **_CLASSIFIERS)

NU_SVC = Problem(
    svm_type="nu_svc", estimator="DualNuSVC", solver="nu-svc",
    options=("nu", "random_state"), class_weighted=False, bounds=lambda est, w: w,
    check=lambda est, X, y, w: check_nu_feasible(est.nu, y, w), linear=lambda est, y: 0.0, by_sign=True, undefined=math.nan,
    start=lambda est, w, Y: nu_start(w, est.nu, Y[:, 0] > 0), rescale=True,
    fold="nu_svc_fold", warm_folds=False, done=None, describe=_describe_nu,
    arrays=_KERNEL_ARRAYS | {"n_iter_"}, scalars=_CLASSIFIER_SCALARS,
    optional_arrays=frozenset({"violation_", "relative_gap_", "C_", "tie_order_",
                               "class_weight_"}),
    optional_scalars={"pairwise_coupling_": Integral}, **_CLASSIFIERS)

ONE_CLASS = Problem(
    svm_type="one_class", estimator="DualOneClassSVM", solver="one-class", options=("nu",),
    variables=_one_per_row, bounds=lambda est, w: w, check=None, linear=lambda est, y: 0.0, by_sign=False, undefined=math.nan,
    start=lambda est, w, Y: libsvm_start(w, est.nu), done=_one_class_done,
    describe=_describe_nu, optional_scalars=_SINGLE_OPTIONAL,
    **{**_SINGLE, "arrays": _SINGLE_ARRAYS | {"offset_"}, "supervised": False})

EPSILON_SVR = Problem(
    svm_type="epsilon_svr", estimator="DualSVR", solver="svr",
    options=("C", "epsilon", "random_state"), variables=_two_per_row,
    bounds=lambda est, w: scaled_bounds(est.C, w), check=None,
    linear=lambda est, y: np.concatenate([est.epsilon - y, est.epsilon + y])[:, None],
    by_sign=False, undefined=0.0, start=None, done=lambda est, X, y, w, result: est._with_probability(X, y, w), describe=_describe_svr,
    optional_scalars=_SINGLE_OPTIONAL, **_SINGLE)

NU_SVR = Problem(
    svm_type="nu_svr", estimator="DualNuSVR", solver="nu-svr",
    options=("nu", "C", "random_state"), variables=_two_per_row,
    bounds=lambda est, w: scaled_bounds(est.C, w), check=refuse_unresolvable_C,
    linear=lambda est, y: np.concatenate([-y, y])[:, None], by_sign=True, undefined=math.nan,
    start=lambda est, C, Y: nu_svr_start(C[:len(C) // 2], est.nu), done=_nu_svr_done,
    describe=_describe_nu_svr, optional_scalars={**_SINGLE_OPTIONAL, "epsilon_": Real},
    **_SINGLE)

#: LIBSVM's problems by ``svm_type``, in LIBSVM's order (``-s`` 0 to 4).
PROBLEMS = {p.svm_type: p for p in (C_SVC, NU_SVC, ONE_CLASS, EPSILON_SVR, NU_SVR)}

#: The problems a fit solves that are no model's: nu-SVC's cross-validation folds (LIBSVM's
#: folds fill what each class's rows hold of nu: unchecked, and some decision values
#: whatever r is).
FOLDS = {"nu_svc_fold": NU_SVC._replace(check=None, undefined=0.0, fold=None)}


def entry(name):
    """The :class:`Problem` of an estimator's ``_problem`` (a model's, or a fold's)."""
    return PROBLEMS[name] if name in PROBLEMS else FOLDS[name]


def problem_of(est):
    """The :class:`Problem` whose model ``est`` holds, or None (no LIBSVM problem's)."""
    return PROBLEMS.get(getattr(est, "_problem", None))


def estimator_class(problem):
    """The public estimator class of a :class:`Problem`: the package's export (imported on
    demand, as the table is read by model files and the CLI without the solver)."""
    return getattr(importlib.import_module("pegasos"), problem.estimator)
