"""The one-class SVM by the working-set dual solver: :class:`DualOneClassSVM`."""

from numbers import Real

import numpy as np
from sklearn.base import OutlierMixin

from ._dual import _SingleDual, documented
from ._sklearn_private import Interval

__all__ = ["DualOneClassSVM"]


@documented
class DualOneClassSVM(OutlierMixin, _SingleDual):
    """Unsupervised outlier detection: LIBSVM's one-class SVM by working sets.

    The problem is :class:`sklearn.svm.OneClassSVM`'s (Schoelkopf et al.'s
    nu-formulation): its dual ``min 1/2 a'Ka`` subject to ``0 <= a_i <= w_i``
    and ``sum a = nu sum w``, from LIBSVM's start (the first rows at their
    bound), solved by the working-set solver of :class:`DualSVC`.  The decision
    function is ``sum_i a_i K(x_i, x) - rho``: positive inside the estimated
    support, negative outside.

    Parameters
    ----------
    nu : float in (0, 1], default=0.5
        An upper bound on the fraction of training errors and a lower bound
        on the fraction of support vectors (LIBSVM's ``-n``).
    __KERNEL_PARAMETERS__
    __WORKING_SET_PARAMETERS__
    __LIBSVM_FLAGS__
    __ONE_PROBLEM_CALLBACK__

    Attributes
    ----------
    support_, support_vectors_, dual_coef_, intercept_, n_support_
        As :class:`sklearn.svm.OneClassSVM`: ``dual_coef_`` (1, n_SV) holds the
        ``a_i`` (a CSR matrix after a fit on sparse rows), ``intercept_`` is
        ``-rho``, ``n_support_`` is ``[n_SV]``.
    offset_ : ndarray of shape (1,)
        ``rho``: :meth:`decision_function` is :meth:`score_samples` minus it.
    __ONE_PROBLEM_ATTRIBUTES__

    See Also
    --------
    sklearn.svm.OneClassSVM : LIBSVM's SMO for the same problem.
    DualSVC : The same solver for SVC's problem.

    Examples
    --------
    >>> import numpy as np
    >>> from pegasos import DualOneClassSVM
    >>> rng = np.random.RandomState(0)
    >>> X = 0.3 * rng.randn(200, 2)
    >>> det = DualOneClassSVM(nu=0.1, gamma=0.5).fit(X)
    >>> det.predict([[0.0, 0.0], [4.0, 4.0]])
    array([ 1, -1])
    """

    _problem = "one_class"
    _parameter_constraints: dict = {
        **_SingleDual._parameter_constraints,
        "nu": [Interval(Real, 0.0, 1.0, closed="right")],
    }

    def __init__(self, *, nu=0.5, kernel="rbf", gamma="scale", coef0=0.0, degree=3, tol=1e-3,
                 max_iter=-1, working_set_size=1024, cache_size=200.0, shrinking=True,
                 verbose=False, callback=None):
        self.nu = nu
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
        self.callback = callback

    def decision_function(self, X):
        """Signed distance to the separating hyperplane: positive for inliers.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows; with ``kernel="precomputed"``, K(X, X_train).

        Returns
        -------
        ndarray of shape (n_samples,)
            ``sum_i a_i K(x_i, x) - rho``.
        """
        return self._decision(X)

    def score_samples(self, X):
        """The unshifted scoring function: ``sum_i a_i K(x_i, x)``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows; with ``kernel="precomputed"``, K(X, X_train).

        Returns
        -------
        ndarray of shape (n_samples,)
            :meth:`decision_function` plus ``offset_``.
        """
        return self._decision(X) + self.offset_[0]

    def predict(self, X):
        """+1 for inliers, -1 for outliers (a decision of 0 is an outlier, as LIBSVM's).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows; with ``kernel="precomputed"``, K(X, X_train).

        Returns
        -------
        ndarray of shape (n_samples,)
            +1 or -1 per row.
        """
        return np.where(self._decision(X) > 0.0, 1, -1)
