""":class:`SBPClassifier`, the kernelized Stochastic Batch Perceptron, and its ``nu``
from an SVM (:func:`nu_from_svm`) or from C (:func:`nu_for`)."""

import math
import warnings
from numbers import Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import validate_data

from ._base import (
    DEFAULT_C,
    binary_targets,
    check_exclusive_params,
    constraints_of,
    loss_weights,
    make_plan,
    positive_classes,
)
from ._kernel_base import (
    KERNELS,
    _documented,
    _kernel_args,
    _KernelClassifier,
    dense,
)
from ._rows import as_rows, check_sparse_structure
from ._sklearn_private import Interval, _fit_context
from ._solvers import kernel_pegasos as _kp
from ._solvers import sbp as _sbp
from ._solvers.engine import decision_values
from .kernel_pegasos import KernelPegasosClassifier


@_documented
class SBPClassifier(_KernelClassifier):
    r"""The Kernelized Stochastic Batch Perceptron (Cotter, Shalev-Shwartz & Srebro, 2012).

    Maximises the margin under a budget on the total slack: over the unit
    ball of the RKHS, :math:`\max_w \max_{\xi \ge 0, \sum\xi_i \le n\nu}
    \min_i (y_i\langle w, \phi(x_i)\rangle + \xi_i)`.  For fixed :math:`w`
    the inner problem is water filling: the lowest responses are raised to a
    common level :math:`\kappa` with :math:`\sum_i \max(0, \kappa - c_i) =
    n\nu`; the minimax-optimal distribution is uniform over the responses at
    or below it.  Each iteration finds the level by selection in expected
    O(n) (quickselect; sorting the responses was 15x slower at n = 10,000),
    draws ``batch_size`` examples from that distribution, takes the step
    :math:`1/(R\sqrt t)` (:math:`R^2 = \max_i K(x_i, x_i)`) along the
    average of their :math:`y_i\phi(x_i)`, updates every response with one
    block of kernel columns (shared by every one-vs-rest problem), and
    projects onto the unit ball through the maintained :math:`\|w\|^2`.
    The model returned is the averaged iterate rescaled so that its
    water-level margin is 1 -- the usual hinge-loss form.

    ``nu = 0`` is the Batch Perceptron (hard margin: the level is the smallest
    response).  ``nu`` is not LIBSVM's nu: it is the average slack in margin
    units, :math:`\nu = L_\lambda / \|w_\lambda\|` for the SVM solution
    :math:`w_\lambda` of a given :math:`\lambda` (or ``C``) with average
    hinge loss :math:`L_\lambda`.  :func:`nu_from_svm` computes it from an
    SVM you trust, :func:`nu_for` trains one to get it.

    Parameters
    ----------
    nu : float >= 0 or array of one per one-vs-rest problem, default=None
        The average slack (weighted by the examples' weights, when given).
        When neither ``nu`` nor ``C`` is given, the nu that matches ``C = 1``,
        SVC's default, estimated as for ``C``.
    C : float > 0, default=None
        SVC's C instead of nu: nu is estimated per problem from one pass of
        :class:`KernelPegasosClassifier` (no intercept, lambda = 1/(C n),
        its last iterate: the mean hinge loss over ||w||, both read from its
        state), stored in ``nu_``; the pass's kernel evaluations are
        included in ``n_kernel_evals_``.
    __KERNEL_PARAMETERS__
    n_iter : int >= 1, default=None
        Iterations; default: ceil(n / batch_size), one draw per sample.
    n_epochs : float > 0, default=None
        The budget in passes instead: ceil(n_epochs * n / batch_size) iterations.
    batch_size : int >= 1, default=16
        Draws per iteration and problem (two per class with an intercept).
    average : bool, default=True
        Return the average of all iterates (the algorithm's output), or the
        last one.
    fit_intercept : bool, default=False
        The biased variant: an unregularised intercept, two water levels (one
        per class, with as many points -- as much weight -- of each class at
        or below its level), ``batch_size`` positive and ``batch_size``
        negative draws per step.
    class_weight : dict or "balanced", default=None
        Multiplies ``sample_weight``, as in :class:`sklearn.svm.SVC`.
    cache_size : float >= 0, default=200.0
        Deprecated, no effect (a warning when set): the blocked engine
        computes the columns of a whole mini-batch at once.  Removed in 0.3.
        Measured: a cache of 200 MB would have served 6-8% of the default
        fit's columns on ijcnn1 and Adult (docs/journal/kernel_engine.md).
    random_state : int, RandomState instance or None, default=None
        Seeds the draws: the same seed gives the same model, bit for bit.
    probability : bool, default=False
        Also fit ``predict_proba``, as ``SVC(probability=True)``: Platt's
        sigmoid of 5-fold cross-validated decision values (five more fits of
        80% of the data); the sigmoids are ``probA_``, ``probB_``.
    __CALLBACK_PARAMETER__

    Attributes
    ----------
    support_, support_vectors_, dual_coef_, intercept_, n_support_, classes_
        As :class:`sklearn.svm.SVC`.
    margin_ : ndarray
        The water level of the averaged (unit-ball) iterate, per problem.  When
        it is not positive (too few iterations for the budget nu), a
        ConvergenceWarning is raised and the iterate is returned unscaled.
    nu_ : ndarray
        The nu of each problem (given, or estimated from ``C``).
    n_iter_ : int
    n_kernel_evals_ : int

    See Also
    --------
    KernelPegasosClassifier : Kernelized Pegasos on the same engine.
    nu_for : The nu of the C you know.
    nu_from_svm : The nu of a fitted SVM.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from pegasos import SBPClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = SBPClassifier(C=1, n_epochs=3, random_state=0).fit(X, y)
    >>> clf.nu_.shape, clf.score(X, y) > 0.95
    ((1,), True)
    """

    _parameter_constraints: dict = {
        **_KernelClassifier._parameter_constraints,
        **constraints_of("C", "n_iter", "n_epochs", "batch_size", "fit_intercept",
                         "class_weight", average=["boolean"],
                         nu=[Interval(Real, 0, math.inf, closed="left"), "array-like", None]),
    }
    _PER_ROW = 6  # targets, the SBP's 4 state arrays, the output
    _NU_OR_C = True  # (check_exclusive_params: nu is the budget that C would give)

    def __init__(
        self, nu=None, *, C=None, kernel="rbf", gamma="scale", coef0=0.0, degree=3, n_iter=None,
        n_epochs=None, batch_size=16, average=True, fit_intercept=False, class_weight=None,
        cache_size=200.0, random_state=None, probability=False, callback=None,
    ):
        self.class_weight = class_weight
        self.probability = probability
        self.callback = callback
        self.cache_size = cache_size
        self.nu = nu
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.coef0 = coef0
        self.degree = degree
        self.n_iter = n_iter
        self.n_epochs = n_epochs
        self.batch_size = batch_size
        self.average = average
        self.fit_intercept = fit_intercept
        self.random_state = random_state

    def _describe_regularisation(self):
        """The regularisation the model was trained with, as ``pegasos info`` prints it: a
        slack budget nu per problem, given or estimated for C."""
        nu = ", ".join(f"{v:.6g}" for v in self.nu_)
        out = {"nu": [float(v) for v in self.nu_]}
        if self.nu is not None:
            out["text"] = f"nu = {nu} (given)"
            return out
        out["C"] = DEFAULT_C if self.C is None else float(self.C)
        out["text"] = (f"nu = {nu}, estimated for C = {out['C']:.6g}"
                       f"{' (the default)' if self.C is None else ''}")
        return out

    @_documented
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit by ``n_iter`` mini-batch SBP iterations, every one-vs-rest problem at once.

        With weights s_i (``sample_weight`` times ``class_weight``) nu is the
        weighted average slack, :math:`\\sum_i s_i\\xi_i \\le \\nu\\sum_i s_i`
        (weight 2 counts as two copies of the example, as in SVC): water
        filling raises the lowest responses at a cost of s_i per unit, and
        the minimax distribution gives each point at or below the level a
        probability in proportion to s_i (an example of weight 0 is never
        drawn).

        __FIT_PARAMETERS__
        """
        check_exclusive_params(self)
        X, y, (rows, sqnorm, diag, gram), sw = self._begin_fit(X, y, sample_weight)
        n = rows.n_rows
        Y = np.ascontiguousarray(np.column_stack(self._binary_targets(y)))
        if self.fit_intercept and not (np.all(sw @ (Y > 0) > 0) and np.all(sw @ (Y < 0) > 0)):
            raise ValueError(
                "The biased SBP (fit_intercept=True) needs both classes with a positive total "
                "weight in every one-vs-rest problem."
            )
        # one pass by default: one draw per sample and problem
        plan = self.plan_ = make_plan(
            lam=1.0, C=None, n=n, n_iter=self.n_iter, n_epochs=self.n_epochs,
            batch_size=self.batch_size, average=self.average, radius2=0.0,
            random_state=self.random_state, n_problems=1, default=("epochs", 1.0),
        )
        matrix = 0 if gram is None else gram.size  # the kernel matrix's values, if any
        evals = matrix
        if self.nu is None:  # from C, or from the default C = 1
            nu, spent = _kp.nu_from_one_pass(self.C, rows, sqnorm, diag, Y, self._kargs,
                                             plan.seeds[0], sw, gram)
            evals += spent
        else:
            nu = self._nu_array(Y.shape[1])
        self.nu_ = nu
        with np.errstate(over="ignore"):
            budgets = nu * sw.sum()
        if not np.all(np.isfinite(budgets)):
            raise ValueError(
                f"nu={float(nu.max()):.4g} is too large for these weights: the slack budget, nu "
                f"times the total weight {sw.sum():.4g}, overflows float64. nu is the average "
                "slack in margin units; scale nu or the weights down.")
        state, more = _sbp.fit(rows, sqnorm, diag, Y, budgets, sw, self._kargs, plan,
                               self.fit_intercept, self._sbp_report(Y, budgets, sw, matrix), gram)
        self._sbp_finish(X, y, Y, nu, budgets, sw, state)
        self.n_kernel_evals_ = int(evals + more)
        self.n_iter_ = int(plan.n_iter)
        return self._fit_probability(X, y, sample_weight)

    def _sbp_report(self, Y, budgets, sw, before):
        """The callback's reporter for :func:`pegasos._solvers.sbp.run`, or None; ``before``:
        the kernel evaluations counted before the SBP's iterations (the kernel matrix's)."""
        if self.callback is None:
            return None

        def report(t, done, evals, seconds, state):
            for c in range(Y.shape[1]):
                coef, b, _, _ = _sbp.output(state, c, Y[:, c], sw, budgets[c], self.fit_intercept)
                self._report(c, t - 1, done, before + evals, seconds, coef, b)
        return report

    def _sbp_finish(self, X, y, Y, nu, budgets, sw, state):
        """Support vectors, intercepts and water levels of every problem's output model."""
        coefs, intercepts, margins = [], [], []
        for c in range(Y.shape[1]):
            coef, b, kappa, scale = _sbp.output(state, c, Y[:, c], sw, budgets[c],
                                                self.fit_intercept)
            if kappa <= 0:
                warnings.warn(
                    f"The SBP's averaged iterate has no positive water-level margin "
                    f"({kappa / scale:.3g}) for nu={nu[c]:.4g} after {self.plan_.n_iter} "
                    "iterations, so it cannot be rescaled to margin 1 and is returned as it is "
                    "(normalised by its number of iterates); increase n_iter or nu.",
                    ConvergenceWarning,
                )
            if not (np.all(np.isfinite(coef)) and np.isfinite(b)):
                raise ValueError(
                    "Floating-point overflow in the SBP's coefficients. Scale the input."
                )
            coefs.append(coef)
            intercepts.append(b)
            margins.append(kappa / scale)
        self._set_support(X, y, coefs, intercepts)
        self.margin_ = np.asarray(margins)

    def _nu_array(self, n_problems):
        nu = np.broadcast_to(np.asarray(self.nu, dtype=np.float64),
                             (n_problems,)) if np.ndim(self.nu) == 0 else np.asarray(
                                 self.nu, dtype=np.float64)
        if nu.shape != (n_problems,) or not np.all(nu >= 0) or not np.all(np.isfinite(nu)):
            raise ValueError(
                f"nu must be a finite float >= 0 or one per one-vs-rest problem ({n_problems} "
                f"here); got {self.nu!r}."
            )
        return np.array(nu)


def nu_from_svm(model, X, y, sample_weight=None):
    """The SBP's ``nu`` that matches a fitted SVM: L / ||w||, one per one-vs-rest problem.

    ``model`` is a kernel classifier of pegasos, or a binary ``sklearn.svm.SVC``
    (any estimator with ``support_``, ``support_vectors_``, ``dual_coef_``,
    ``classes_``, ``decision_function`` and SVC's kernel parameters, one row of
    ``dual_coef_`` per one-vs-rest problem), fitted on ``(X, y)``: a
    multi-class ``SVC`` is one-vs-one, which has no such rows, and is refused.
    L is its average hinge loss on ``(X, y)``, weighted by ``sample_weight``
    times the model's ``class_weight`` (if it has one), and ||w|| the RKHS
    norm of ``dual_coef_ @ phi(support_vectors_)`` (n_SV^2 kernel
    evaluations).  On the SVM's Pareto front the SBP optimum is ``w / ||w||``
    with margin ``1 / ||w||``.

    Parameters
    ----------
    model : estimator
        A fitted kernel classifier of pegasos, or a binary ``SVC``.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Its training rows.
    y : array-like of shape (n_samples,)
        Their labels.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples' losses.

    Returns
    -------
    float or ndarray of shape (n_classes,)
        A float for two classes, else one value per class (its problem
        against the rest).

    See Also
    --------
    nu_for : Fits the SVM for a C, then calls this.
    SBPClassifier : Takes the result as ``nu``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from pegasos import KernelPegasosClassifier, nu_from_svm
    >>> X, y = load_iris(return_X_y=True)
    >>> svm = KernelPegasosClassifier(C=10, fit_intercept=False, random_state=0).fit(X, y)
    >>> nu_from_svm(svm, X, y).shape
    (3,)
    """
    check_sparse_structure(X)
    X, y = validate_data(model, X, y, accept_sparse="csr", dtype=np.float64, reset=False)
    n_problems = len(positive_classes(model.classes_))
    if np.shape(model.dual_coef_)[0] != n_problems:
        raise ValueError(
            f"nu_from_svm needs one row of dual_coef_ per one-vs-rest problem ({n_problems} for "
            f"{len(model.classes_)} classes); {type(model).__name__}'s has "
            f"{np.shape(model.dual_coef_)[0]} (SVC's multi-class model is one-vs-one). Use "
            "KernelPegasosClassifier, or one binary SVC per class."
        )
    kargs = _kernel_args_of(model, X)
    sw = loss_weights(X, y, sample_weight, getattr(model, "class_weight", None), model.classes_)
    targets = np.column_stack(binary_targets(model.classes_, y))
    scores = model.decision_function(X).reshape(len(y), -1)
    hinge = np.average(np.maximum(0.0, 1.0 - targets * scores), axis=0, weights=sw)
    coef = np.ascontiguousarray(dense(model.dual_coef_), dtype=np.float64)
    if model.kernel == "precomputed":
        gram = X[np.ix_(model.support_, model.support_)]
        w2 = np.einsum("cs,st,ct->c", coef, gram, coef)
    else:
        rows = as_rows(model.support_vectors_, model.support_vectors_.dtype)
        f = decision_values(rows, rows, coef, kargs)  # (n_SV, n_problems)
        w2 = np.einsum("cs,sc->c", coef, f)
    nu = np.where(w2 > 0, hinge / np.sqrt(np.where(w2 > 0, w2, 1.0)), np.inf)
    return float(nu[0]) if len(nu) == 1 else nu


def _kernel_args_of(model, X):
    """The :class:`~pegasos._numba.kernels.Kernel` of a fitted model: ours, or SVC's, gamma
    resolved on X.

    ``gamma="scale"`` and ``"auto"`` are resolved as SVC resolves them on its
    training data, which X is.
    """
    if isinstance(model, _KernelClassifier):
        return model._kargs
    params = model.get_params()
    kernel = params.get("kernel")
    if not isinstance(kernel, str) or kernel not in KERNELS:
        raise ValueError(f"nu_from_svm takes the kernels {sorted(KERNELS)}; the model's is "
                         f"{kernel!r}.")
    return _kernel_args(kernel, params.get("gamma", "scale"), params.get("coef0", 0.0),
                        params.get("degree", 3), X)


def nu_for(X, y, *, C=None, lam=None, kernel="rbf", gamma="scale", coef0=0.0, degree=3,
           n_epochs=5.0, sample_weight=None, class_weight=None, random_state=0):
    """``nu`` for the SBP from the ``C`` (or lambda) you know.

    Trains a :class:`KernelPegasosClassifier` without intercept for that C
    and kernel on (X, y) (with ``sample_weight`` and ``class_weight``, as
    the SBP will be given them) and returns :func:`nu_from_svm` of it.  This
    costs about one kernel Pegasos fit of ``n_epochs`` passes;
    ``SBPClassifier(C=...)`` estimates nu itself from one pass.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Training rows.
    y : array-like of shape (n_samples,)
        Their labels.
    C : float > 0, default=None
        SVC's C; or give ``lam``.
    lam : float > 0, default=None
        The regularisation lambda, ``1 / (C n)``.
    kernel : {"rbf", "linear", "poly", "sigmoid", "precomputed"}, default="rbf"
        As in :class:`sklearn.svm.SVC`.
    gamma : {"scale", "auto"} or float > 0, default="scale"
        The kernel coefficient, resolved as ``SVC`` resolves it.
    coef0 : float, default=0.0
        The constant of poly and sigmoid.
    degree : int >= 0, default=3
        The degree of poly.
    n_epochs : float, default=5.0
        Passes of kernel Pegasos.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples' losses.
    class_weight : dict or "balanced", default=None
        Weights of the classes' losses.
    random_state : int, RandomState instance or None, default=0
        The draws of kernel Pegasos.

    Returns
    -------
    float or ndarray of shape (n_classes,)
        A float for two classes, one value per class otherwise
        (``SBPClassifier`` takes either).

    See Also
    --------
    nu_from_svm : The same from an SVM already fitted.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from pegasos import SBPClassifier, nu_for
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = X / X.max(axis=0)
    >>> nu = nu_for(X, y, C=10)
    >>> model = SBPClassifier(nu, random_state=0).fit(X, y)
    """
    model = KernelPegasosClassifier(
        lam=lam, C=C if lam is None else None, kernel=kernel, gamma=gamma, coef0=coef0,
        degree=degree, n_epochs=n_epochs, fit_intercept=False, class_weight=class_weight,
        random_state=random_state,
    ).fit(X, y, sample_weight=sample_weight)
    return nu_from_svm(model, X, y, sample_weight=sample_weight)
