"""What every estimator decides the same way: parameter rules and the fit plan.

One place turns an estimator's parameters and the training-set size into
the numbers a solver runs with -- lambda, the iteration budget T, the
mini-batch size k, which iterates are averaged, the projection radius and the
per-problem seeds -- as a frozen :class:`FitPlan`.  The linear and kernel
estimators, the Dask backend and the command line read the plan (a fitted
estimator keeps it as ``plan_``); none of them derives these numbers itself.

The one default regularisation is ``C = 1``, as in ``LinearSVC`` and ``SVC``:
:math:`\\lambda = 1/(C n)` for n training samples.  :meth:`partial_fit`
cannot know n, so it needs ``lam``.
"""

import math
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state, compute_class_weight
from sklearn.utils.validation import _num_samples

from ._sampling import SAMPLING_MODES
from ._sklearn_private import Interval, StrOptions, _check_sample_weight

#: The regularisation used when neither ``lam`` nor ``C`` is given.
DEFAULT_C = 1.0
#: An averaging start that is never reached (no averaging).
NEVER = np.iinfo(np.int64).max
#: Examples drawn per compiled call when nothing needs checking between calls (linear
#: Pegasos' blocks, the kernel solvers' calls): large enough that Python's overhead per
#: call vanishes (~0.3 ns per example), small enough that the index buffer (512 KiB)
#: stays in cache (measured: 4 MiB blocks cost ~4 ns more per example on a9a).
BLOCK_DRAWS = 1 << 16

#: The largest count (iterations, examples drawn, steps) a fit may ask for:
#: the solvers' counters are int64.
MAX_COUNT = 2**62
_FLOAT_MAX = float(np.finfo(np.float64).max)
#: The range of intercept_scaling: its square (1e300 at most, with room for a row's norm)
#: and its reciprocal (an intercept over it is a weight) stay finite.
MIN_INTERCEPT_SCALING, MAX_INTERCEPT_SCALING = 1e-150, 1e150

#: The constraints of the parameters that every estimator has.
ESTIMATOR_CONSTRAINTS: dict = {
    "random_state": ["random_state"],
    "probability": ["boolean"],
    "callback": [callable, None],
}

#: ``n_jobs``: threads, or with -1, -2, ... all the cores but |n_jobs| - 1 (joblib's rule);
#: 0 means nothing.
N_JOBS_CONSTRAINT = [Interval(Integral, None, -1, closed="right"),
                     Interval(Integral, 1, None, closed="left"), None]

#: The constraints of the parameters that the Pegasos estimators share (others
#: take the ones they have from here, by name).
PEGASOS_CONSTRAINTS: dict = {
    "lam": [Interval(Real, 0, math.inf, closed="neither"), None],
    "C": [Interval(Real, 0, math.inf, closed="neither"), None],
    "n_iter": [Interval(Integral, 1, MAX_COUNT, closed="both"), None],
    "n_epochs": [Interval(Real, 0, math.inf, closed="neither"), None],
    "batch_size": [Interval(Integral, 1, MAX_COUNT, closed="both")],
    "sampling": [StrOptions(set(SAMPLING_MODES))],
    "projection": ["boolean"],
    "average": ["boolean", Interval(Real, 0, 1, closed="right")],
    "fit_intercept": ["boolean"],
    # the intercept feature's square, in every row's squared norm and kernel value, and
    # its reciprocal stay finite
    "intercept_scaling": [Interval(Real, MIN_INTERCEPT_SCALING, MAX_INTERCEPT_SCALING,
                                   closed="both")],
    "class_weight": [dict, StrOptions({"balanced"}), None],
    **ESTIMATOR_CONSTRAINTS,
}


def constraints_of(*names, **others):
    """The shared constraints of the parameters ``names``, plus ``others``."""
    return {**{name: PEGASOS_CONSTRAINTS[name] for name in names}, **others}


@dataclass(frozen=True)
class FitPlan:
    """The numbers one fit runs with, resolved once from the parameters and n.

    Attributes
    ----------
    lam : float
        The regularisation :math:`\\lambda` (from ``lam``, or ``C``: 1/(C n)).
    n_iter : int
        T, the iterations of this call (each of ``batch_size`` examples).
    batch_size : int
        k, the examples per iteration (at most n).
    n_average : int or None
        How many of the last iterates are averaged into the output: None for
        all of them since the model was initialised, 0 for none (the last
        iterate).
    radius2 : float
        The squared radius of the projection ball, 0 for no projection.
    seeds : tuple of int
        One seed per one-vs-rest problem, drawn from ``random_state``.

    Examples
    --------
    >>> from pegasos._base import make_plan
    >>> plan = make_plan(lam=None, C=1.0, n=1000, n_iter=None, n_epochs=2.0, batch_size=10,
    ...                  average=0.5, radius2=None, random_state=0, n_problems=1)
    >>> plan.lam, plan.n_iter, plan.batch_size, plan.avg_start(1)
    (0.001, 200, 10, 101)
    """

    lam: float
    n_iter: int
    batch_size: int
    n_average: int | None
    radius2: float
    seeds: tuple

    def avg_start(self, t0):
        """The first step whose iterate enters the average, for a call starting at step t0."""
        if self.n_average is None:
            return 1
        if self.n_average == 0:
            return NEVER
        return t0 + self.n_iter - self.n_average


def resolve_lam(lam, C, n):
    """lambda from ``lam``, else from ``C`` (default :data:`DEFAULT_C`) and n samples.

    ``n=None`` (:meth:`partial_fit`, a stream with no fixed size) needs ``lam``.
    """
    if lam is not None:
        return _checked_lam(float(lam), f"lam={lam!r}")
    if n is None:
        raise ValueError(
            "partial_fit needs lam (e.g. PegasosClassifier(lam=1e-4)): C, and the default "
            f"C={DEFAULT_C:g}, fix lam = 1 / (C * n_samples), and a stream of batches has no "
            "fixed n_samples."
        )
    C = DEFAULT_C if C is None else float(C)
    return _checked_lam(1.0 / (C * n), f"C={C!r} on {n} samples (lam = 1 / (C * n_samples))")


def _checked_lam(lam, source):
    """lam, refused when it or 1/lam is not a positive finite float64 (the step sizes are 1/(lam t))."""
    if not (lam > 0 and math.isfinite(lam) and math.isfinite(1.0 / lam)):
        raise ValueError(
            f"{source} gives lambda = {lam:.3g}, outside float64's range for Pegasos' step "
            f"sizes 1/(lambda t): lambda must lie in [{1 / _FLOAT_MAX:.3g}, {_FLOAT_MAX:.3g}]."
        )
    return lam


def budget(n_iter, n_epochs, n, k, lam, default):
    """T: ``n_iter``, or ``n_epochs`` passes of n / k iterations, or the default.

    The default depends on what an iteration costs.  ``"iterations"``: 10/lambda
    iterations whatever k (linear Pegasos, VLFeat's default: at small lambda the
    1/(lambda t) schedule needs T itself to grow, measured in ``PegasosClassifier``'s
    docstring).  ``"examples"``: 10/lambda examples drawn, i.e. 10/(lambda k)
    iterations (the kernel solvers, whose iteration costs k kernel columns).
    ``("epochs", E)``: E passes.
    """
    if n_iter is not None:
        T, source = int(n_iter), f"n_iter={n_iter}"
    else:
        if n_epochs is None and isinstance(default, tuple):
            n_epochs = default[1]
        if n_epochs is not None:
            T, source = n_epochs * n / k, f"n_epochs={n_epochs!r} on {n} samples"
        else:
            per = 1 if default == "iterations" else k
            T, source = 10.0 / (lam * per), f"the default budget 10/lambda at lambda={lam:.3g}"
        T = max(1, math.ceil(T)) if math.isfinite(T) else math.inf
    if T * k > MAX_COUNT:  # the step counter and the draws are int64 in compiled code
        raise ValueError(
            f"{source} gives {T:.3g} iterations of {k} examples; at most 2**62 examples can "
            "be drawn. Use fewer iterations (n_iter or n_epochs)."
        )
    return T


def n_averaged(average, T):
    """How many of the last iterates ``average`` puts in the output (see :class:`FitPlan`)."""
    if isinstance(average, (bool, np.bool_)):
        return None if average else 0
    return max(1, math.ceil(float(average) * T))


def make_plan(*, lam, C, n, n_iter, n_epochs, batch_size, average, radius2, random_state,
              n_problems, default="iterations", weights=None, projection=True):
    """The :class:`FitPlan` of a fit on n samples.

    ``radius2=None`` means the Pegasos ball, :math:`\\bar s/\\lambda` (mean loss
    weight over lambda; 1/lambda without weights), when ``projection`` is set.
    """
    lam = resolve_lam(lam, C, n)
    k = batch_for(batch_size, n)
    T = budget(n_iter, n_epochs, n, k, lam, default)
    if radius2 is None:
        mean_weight = 1.0 if weights is None else float(np.mean(weights))
        radius2 = mean_weight / lam if projection else 0.0
    return FitPlan(
        lam=lam,
        n_iter=T,
        batch_size=k,
        n_average=n_averaged(average, T),
        radius2=float(radius2),
        seeds=problem_seeds(random_state, n_problems),
    )


def problem_seeds(random_state, n_problems):
    """One seed per one-vs-rest problem, drawn up front from ``random_state``."""
    rng = check_random_state(random_state)
    return tuple(int(s) for s in rng.randint(np.iinfo(np.int32).max, size=n_problems))


def check_params(est):
    """The estimator's own parameter checks, as its ``fit`` starts with them.

    For callers that build an estimator before they have the data (the command
    line checks its options before it reads a file).
    """
    est._validate_params()
    check_exclusive_params(est)
    check_class_weight(getattr(est, "class_weight", None))


def check_class_weight(class_weight):
    """A ``class_weight`` dict's weights are finite non-negative numbers (``fit`` checks
    them again once the classes are known: :func:`loss_weights`)."""
    if not isinstance(class_weight, dict):
        return
    for label, weight in class_weight.items():
        if isinstance(weight, bool) or not isinstance(weight, Real) or not (
                0 <= weight < math.inf):
            raise ValueError(
                f"class_weight must map each label to a finite non-negative number; got "
                f"{weight!r} for label {label!r}."[:300])


def check_exclusive_params(est):
    """lam and C, nu and C (where ``_NU_OR_C``: the SBP's), and n_iter and n_epochs, are
    alternatives: at most one of each.
    (The parameters are read as attributes: ``get_params`` costs tens of microseconds.)"""
    lam, C, nu = (getattr(est, name, None) for name in ("lam", "C", "nu"))
    n_iter, n_epochs = getattr(est, "n_iter", None), getattr(est, "n_epochs", None)
    if nu is not None and C is not None and getattr(est, "_NU_OR_C", False):
        raise ValueError("Give either nu or C, not both.")
    if lam is not None and C is not None:
        raise ValueError(
            f"Give either lam or C, not both (lam={lam!r}, C={C!r}); "
            "C is converted to lam = 1 / (C * n_samples)."
        )
    if n_iter is not None and n_epochs is not None:
        raise ValueError(
            f"Give either n_iter (iterations) or n_epochs (passes over the data), "
            f"not both (n_iter={n_iter!r}, n_epochs={n_epochs!r})."
        )


_NO_WEIGHT = ("Invalid input - all samples have zero or negative weights: the loss weights "
              "(sample_weight times class_weight) are all zero.")


def loss_weights(X, y, sample_weight, class_weight, classes, negative_as_zero=False):
    """s_i = sample_weight[i] * class_weight[y_i] ("balanced": from these y), checked;
    ``negative_as_zero``: a negative sample weight drops its row (SVC's rule), else it is
    an error."""
    try:
        sw = _check_sample_weight(sample_weight, X, dtype=np.float64)
    except ValueError:
        raw = None if sample_weight is None else np.asarray(sample_weight)
        if (raw is not None and raw.dtype.kind in "iuf" and raw.shape == (_num_samples(X),)
                and np.all(np.isfinite(raw)) and not np.any(raw > 0)):
            raise ValueError(_NO_WEIGHT) from None  # (SVC's words, for zero and negative)
        raise
    if negative_as_zero:
        sw = np.maximum(sw, 0.0)
    elif np.any(sw < 0):
        raise ValueError(f"sample_weight must be non-negative; got a minimum of {sw.min():g}.")
    if class_weight is not None:
        cw = compute_class_weight(class_weight, classes=classes, y=y)
        if np.any(cw < 0) or not np.all(np.isfinite(cw)):
            bad = {c.item(): float(w) for c, w in zip(classes, cw) if not w >= 0 or w == np.inf}
            raise ValueError(f"class_weight must be finite and non-negative; got {bad}.")
        sw = sw * cw[np.searchsorted(classes, y)]
    total = np.sum(sw)
    if not total > 0:
        raise ValueError(_NO_WEIGHT)
    if not np.isfinite(total):
        raise ValueError("The loss weights (sample_weight times class_weight) sum to more "
                         "than float64 holds; scale them down (only their ratios matter with "
                         "C or lam scaled likewise).")
    return sw


def check_weighted_classes(y, sw):
    """Refuse training data whose positive loss weights all fall on one class (SVC's
    refusal): a model of one class would predict it for every row."""
    if np.all(sw > 0):  # then every class of y (two at least) weighs
        return
    weighted = np.unique(y[sw > 0])
    if weighted.size < 2:
        raise ValueError(
            "Invalid input - all samples with positive weights belong to the same class "
            f"({weighted[:1].tolist()[0]!r}); a classifier needs positive weight on at least "
            "two classes.")


def positive_classes(classes):
    """The positive class of each binary problem: classes[1], or each class one-vs-rest."""
    return [classes[1]] if len(classes) == 2 else list(classes)


def binary_targets(classes, y):
    """The {-1, +1} targets of each binary problem, one row per problem."""
    return [np.where(y == c, 1.0, -1.0) for c in positive_classes(classes)]


def batch_for(batch_size, n):
    """The mini-batch size k used on n examples: a batch larger than the data is the data."""
    return min(int(batch_size), n)


def check_two_classes(classes):
    """Refuse training data with fewer than two classes."""
    if len(classes) < 2:
        got = f"only one class: {classes.tolist()[0]!r}" if len(classes) else "no class"
        raise ValueError(
            f"The training data must contain samples of at least 2 classes; got {got}."
        )


def check_known_labels(y, classes):
    """Refuse labels the model was not fitted on (a certificate of problems it never had)."""
    unknown = np.setdiff1d(y, classes)
    if unknown.size:
        raise ValueError(
            f"y holds labels the model was not fitted on: {unknown[:5].tolist()}; its "
            f"classes are {classes[:10].tolist()}.")


def drop_fitted(est, private=()):
    """Remove the estimator's fitted attributes (public names ending in ``_``) and the
    ``private`` ones it keeps beside them: a fit starts from none, and a fit that fails
    half-way leaves an unfitted estimator, never a mix of two fits."""
    for key in [k for k in vars(est) if k.endswith("_") and not k.startswith("_")]:
        del est.__dict__[key]
    for key in private:
        est.__dict__.pop(key, None)


def label_text(label):
    """A label as an error names it: a number as ``%g`` (1, not 1.0), anything else as its
    repr ('cat').

    >>> label_text(1.0), label_text(-0.5), label_text("cat")
    ('1', '-0.5', "'cat'")
    """
    value = label.item() if isinstance(label, np.generic) else label
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:g}"
    return repr(value)


def check_stream_labels(y, classes, *, held_out=False, first="buffer"):
    """Refuse labels of a stream fit outside its classes (by default, those of its first
    ``first``): no problem was trained for them; held-out rows (``held_out``) of such a label
    would each count as an error whatever the model."""
    unknown = np.setdiff1d(y, classes)
    if not unknown.size:
        return
    label, listed = label_text(unknown[0]), classes[:10].tolist()
    if held_out:
        raise ValueError(
            f"the held-out rows have the label {label}, which is not among the stream's "
            f"classes {listed} (by default, the labels of its first {first}'s rows): hold out "
            "rows of those labels, or give the stream classes")
    raise ValueError(f"the stream has the label {label}, which is not among its classes "
                     f"{listed} (by default, the labels of the first {first}'s rows): give "
                     "classes")


def check_held_out(name, held, width, classes):
    """Refuse held-out rows ``held = (X, y)`` that a kernel stream fit of ``width`` features
    cannot measure: dense rows of another width, sparse rows wider, or a label outside
    ``classes`` (:func:`check_stream_labels`)."""
    X, y = held
    if X.shape[1] > width or (not sp.issparse(X) and X.shape[1] != width):
        raise ValueError(f"{name}: the held-out rows are {X.shape[1]} features wide, the "
                         f"stream's {width}: give held-out rows as wide as the stream's")
    check_stream_labels(y, classes, held_out=True)


def check_finite_fit(est):
    """Refuse a fit whose fitted arrays or numbers hold NaN or inf: no fit returns, and so
    none writes, such a model.  The support vectors are rows of the checked input."""
    for key, value in vars(est).items():
        if not key.endswith("_") or key.startswith("_") or key == "support_vectors_":
            continue
        if sp.issparse(value):  # (DualSVC's dual_coef_ after a sparse fit)
            value = value.data
        if isinstance(value, np.ndarray) and value.dtype.kind == "f":
            finite = bool(np.all(np.isfinite(value)))
        elif isinstance(value, float):
            finite = math.isfinite(value)
        else:
            continue
        if not finite:
            raise ValueError(
                f"Floating-point overflow: the fitted {key} holds NaN or infinite values. "
                "Scale the input (e.g. with StandardScaler or MaxAbsScaler), or use "
                "smaller weights, C, nu or intercept_scaling.")


def check_finite_scores(scores):
    """Decision values, or a ValueError when any is NaN or infinite (never a prediction)."""
    if not np.all(np.isfinite(scores)):
        raise ValueError(
            "Non-finite decision values: the input's magnitudes overflow the model's "
            "arithmetic. Scale the input as the training data was scaled."
        )
    return scores


def check_finite_weights(when, *arrays):
    """Refuse weights that overflowed; ``when`` says where (``"iteration 12"``, ``"round 3"``)."""
    if not all(np.all(np.isfinite(a)) for a in arrays):
        raise ValueError(
            f"Floating-point overflow in the weights by {when}. "
            "Scale the input (e.g. with StandardScaler or MaxAbsScaler) or increase lam."
        )


def describe_lambda(est):
    """The regularisation of a Pegasos model (linear, kernel, Nystroem's), as ``pegasos info``
    prints it: lambda, and the C and n it follows from.  The parameters keep what was asked
    (``C=None, lam=None`` for the default C = 1); the fitted ``lam_`` is lambda = 1 / (C n),
    from which n follows."""
    params = est.get_params(deep=False)
    if getattr(est, "lam_", None) is None:
        return {"text": NOT_REGULARISED}
    out = {"lam": float(est.lam_)}
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


#: ``pegasos info``'s regularisation of a model that has none.
NOT_REGULARISED = "none (the kernel Perceptron is not regularised)"
