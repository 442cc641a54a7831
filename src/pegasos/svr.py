"""SVR's and NuSVR's models by the working-set dual solver: :class:`DualSVR`,
:class:`DualNuSVR`."""

import math
from numbers import Real

import numpy as np
from sklearn.base import RegressorMixin, clone
from sklearn.utils import check_random_state

from ._dual import _SingleDual, documented
from ._probability import laplace_scale
from ._rows import as_rows, compact_columns
from ._sklearn_private import Interval
from ._solvers.engine import norms_and_diagonal

__all__ = ["DualNuSVR", "DualSVR"]


class _DualRegressor(RegressorMixin, _SingleDual):
    """The regressors' prediction and probability model."""

    _parameter_constraints: dict = {
        **_SingleDual._parameter_constraints,
        "probability": ["boolean"],
        "random_state": ["random_state"],
    }

    def predict(self, X):
        """Predicted values: ``dual_coef_ @ K(support_vectors_, X) + intercept_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows; with ``kernel="precomputed"``, K(X, X_train) of shape
            (n_samples, n_training_samples).

        Returns
        -------
        ndarray of shape (n_samples,)
            The regression function at each row.
        """
        return self._decision(X)

    def _with_probability(self, X, y, w):
        """``probability=True``: LIBSVM's probability model of a regression
        (:func:`~pegasos._probability.laplace_scale` on the fitted rows X, targets y,
        weights w) as ``probA_`` of shape (1,); without it, no ``probA_``."""
        self.__dict__.pop("probA_", None)
        if self.probability:
            seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
            # (the folds keep the fit's gamma, as LIBSVM's cross-validation)
            folds = self if self.kernel == "precomputed" else clone(self).set_params(
                gamma=self.gamma_)
            self.probA_ = np.array([laplace_scale(folds, X, y, w, seed)])
        return self


@documented
class DualSVR(_DualRegressor):
    """Epsilon-support vector regression: LIBSVM's epsilon-SVR by working sets.

    The problem is :class:`sklearn.svm.SVR`'s: ``1/2 ||w||^2 + C sum_i w_i
    max(0, |f(x_i) - z_i| - epsilon)`` with an unregularised intercept, solved in
    LIBSVM's dual of 2n variables (``a_i`` and ``a*_i`` for each row, ``0 <= a <= C
    w_i``, ``sum a - a* = 0``) by the working-set solver of :class:`DualSVC`:
    each iteration takes the variables that violate the optimality conditions
    most, solves the dual restricted to them by SMO, and brings every gradient
    up to date with one block product of kernel columns (one column per row,
    shared by its two variables).  The model is SVR's: ``dual_coef_`` holds
    ``a_i - a*_i`` of the support vectors, ``intercept_`` is LIBSVM's ``-rho``.

    Parameters
    ----------
    C : float > 0 or inf, default=1.0
        Weight of the epsilon-insensitive loss, as in :class:`sklearn.svm.SVR`;
        ``inf``: every row within epsilon (an error when no function of the
        kernel fits them so).
    epsilon : float >= 0, default=0.1
        The width of the tube in which errors cost nothing (LIBSVM's ``-p``).
    __KERNEL_PARAMETERS__
    __WORKING_SET_PARAMETERS__
    __LIBSVM_FLAGS__
    probability : bool, default=False
        Also fit LIBSVM's probability model of a regression (``svm-train -b
        1``): the target is the prediction plus a Laplace noise of scale
        ``probA_[0]``, from 5-fold cross-validated residuals (5 more fits of
        80% of the rows).  :class:`sklearn.svm.SVR` has no such parameter.
    random_state : int, RandomState instance or None, default=None
        The folds of ``probability``.
    __ONE_PROBLEM_CALLBACK__

    Attributes
    ----------
    support_, support_vectors_, dual_coef_, intercept_, n_support_
        As :class:`sklearn.svm.SVR`: ``dual_coef_`` (1, n_SV) holds ``a_i -
        a*_i``, a CSR matrix after a fit on sparse rows; ``n_support_`` is
        ``[n_SV]``.
    __ONE_PROBLEM_ATTRIBUTES__
    probA_ : ndarray of shape (1,)
        With ``probability=True`` only: the scale sigma of the residuals' Laplace
        density ``exp(-|z| / sigma) / (2 sigma)`` (LIBSVM's ``probA``), the mean
        absolute cross-validated residual of the rows whose residual is at most
        5 sqrt(2) times the mean.

    See Also
    --------
    sklearn.svm.SVR : LIBSVM's SMO for the same problem.
    DualSVC : The same solver for SVC's problem.

    Examples
    --------
    >>> import numpy as np
    >>> from pegasos import DualSVR
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-3, 3, size=(500, 1))
    >>> z = np.sin(X[:, 0]) + 0.1 * rng.randn(500)
    >>> reg = DualSVR(C=10, epsilon=0.1).fit(X, z)
    >>> reg.fit_status_, bool(reg.score(X, z) > 0.95)
    (0, True)
    """

    _problem = "epsilon_svr"
    _parameter_constraints: dict = {
        **_DualRegressor._parameter_constraints,
        "C": [Interval(Real, 0, math.inf, closed="right")],
        "epsilon": [Interval(Real, 0, math.inf, closed="left")],
    }

    def __init__(self, *, C=1.0, epsilon=0.1, kernel="rbf", gamma="scale", coef0=0.0, degree=3,
                 tol=1e-3, max_iter=-1, working_set_size=1024, cache_size=200.0,
                 shrinking=True, verbose=False, probability=False, random_state=None,
                 callback=None):
        self.C = C
        self.epsilon = epsilon
        self.kernel = kernel
        self.gamma = gamma
        self.coef0 = coef0
        self.degree = degree
        self.tol = tol
        self.max_iter = max_iter
        self.working_set_size = working_set_size
        self.cache_size = cache_size
        self.shrinking = shrinking
        self.verbose = verbose
        self.probability = probability
        self.random_state = random_state
        self.callback = callback


@documented
class DualNuSVR(_DualRegressor):
    """Nu-support vector regression: LIBSVM's nu-SVR by working sets.

    The problem is :class:`sklearn.svm.NuSVR`'s: epsilon-SVR whose tube width
    is a variable, ``nu`` bounding the fraction of errors from above and of
    support vectors from below.  LIBSVM's dual of 2n variables (``0 <= a, a* <=
    C w_i``, ``sum a - a* = 0``, ``sum a + a* = C nu sum w``) is solved from
    LIBSVM's start by :class:`DualSVC`'s working sets with LIBSVM's Solver_NU
    rules (pairs of variables of one sign).  The model is NuSVR's:
    ``dual_coef_`` holds ``a_i - a*_i``, ``intercept_`` is ``-rho``, and the
    tube's width comes out as ``epsilon_``.

    Parameters
    ----------
    nu : float in (0, 1], default=0.5
        LIBSVM's ``-n``.
    C : float > 0, default=1.0
        Weight of the loss, as in :class:`sklearn.svm.NuSVR`.  nu-SVR's dual
        variables sum to ``C nu n``, so they grow with C: a C so large that
        one variable at its bound moves the gradients by more than float64
        resolves within ``tol`` (``C max K(x, x) 2**-52 > tol``) is refused,
        as the solver could never meet ``tol`` (LIBSVM's NuSVR does not stop
        either); raise ``tol`` with C.
    __KERNEL_PARAMETERS__
    __WORKING_SET_PARAMETERS__
    __LIBSVM_FLAGS__
    probability : bool, default=False
        As :class:`DualSVR`'s.
    random_state : int, RandomState instance or None, default=None
        As :class:`DualSVR`'s.
    __ONE_PROBLEM_CALLBACK__

    Attributes
    ----------
    support_, support_vectors_, dual_coef_, intercept_, n_support_
        As :class:`sklearn.svm.NuSVR`.
    epsilon_ : float
        The tube's width the solution found (LIBSVM's ``-r``).
    __ONE_PROBLEM_ATTRIBUTES__
    probA_ : ndarray of shape (1,)
        As :class:`DualSVR`'s.

    See Also
    --------
    sklearn.svm.NuSVR : LIBSVM's SMO for the same problem.
    DualSVR : The epsilon form.

    Examples
    --------
    >>> import numpy as np
    >>> from pegasos import DualNuSVR
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-3, 3, size=(500, 1))
    >>> z = np.sin(X[:, 0]) + 0.1 * rng.randn(500)
    >>> reg = DualNuSVR(nu=0.3, C=10).fit(X, z)
    >>> reg.fit_status_, bool(reg.score(X, z) > 0.95)
    (0, True)
    """

    _problem = "nu_svr"
    _parameter_constraints: dict = {
        **_DualRegressor._parameter_constraints,
        "C": [Interval(Real, 0, math.inf, closed="neither")],
        "nu": [Interval(Real, 0.0, 1.0, closed="right")],
    }

    def __init__(self, *, nu=0.5, C=1.0, kernel="rbf", gamma="scale", coef0=0.0, degree=3,
                 tol=1e-3, max_iter=-1, working_set_size=1024, cache_size=200.0,
                 shrinking=True, verbose=False, probability=False, random_state=None,
                 callback=None):
        self.nu = nu
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.coef0 = coef0
        self.degree = degree
        self.tol = tol
        self.max_iter = max_iter
        self.working_set_size = working_set_size
        self.cache_size = cache_size
        self.shrinking = shrinking
        self.verbose = verbose
        self.probability = probability
        self.random_state = random_state
        self.callback = callback

    def _largest_diagonal(self, X):
        """The largest K(x, x) of the rows (gamma resolved on them as fit resolves it)."""
        (compact,) = compact_columns(X)
        rows = as_rows(compact, X.dtype)
        diag = norms_and_diagonal(rows, self._kernel_args(X))[1]
        return float(np.max(np.abs(diag), initial=0.0))
