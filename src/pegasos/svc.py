"""SVC's model by a working-set dual solver on the blocked engine: :class:`DualSVC`."""

import math
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._base import constraints_of, loss_weights
from ._sklearn_private import Interval, _fit_context
from ._solvers import working_set as _ws
from ._solvers.engine import points
from ._solvers.report import Report
from .kernel import _documented, _KernelClassifier

__all__ = ["DualSVC"]

#: Rows replaced per iteration, as a share of the working set (ThunderSVM's half).
#: On 20,000 Fashion-MNIST rows with the column cache, q = 1024 and half new took
#: 14.1 s (185 iterations), a quarter 18.1 s (232), and q = 2048 with half 17.0 s.
NEW_SHARE = 0.5

#: An inner solve stops when the block's violation falls to this share of where it
#: started (ThunderSVM's rule), or to ``tol``.
INNER_RATIO = 0.1

#: Pair steps per inner solve, at most, per row of the working set.
INNER_STEPS_PER_ROW = 100


@_documented
class DualSVC(_KernelClassifier):
    """SVC's model: the exact SVM dual, solved by working sets on the blocked engine.

    The problem is LIBSVM's C-SVC (:class:`sklearn.svm.SVC`): the hinge loss
    with weight ``C`` times the sample and class weights, and an unregularised
    intercept.  It is solved in its dual as ThunderSVM does (the algorithm of
    ``scikit-learn-intelex``'s SVC): the gradient of every dual variable is
    kept; each iteration takes the ``working_set_size`` rows that violate the
    optimality conditions most -- half of them new, the newer half of the
    previous set kept -- solves the dual restricted to them by SMO (LIBSVM's
    second-order pair selection) until their violation falls to a tenth, and
    brings every gradient up to date with one block product.  Kernel columns
    are computed by the blocked engine, a block of rows at a time, and kept:
    a row chosen again costs nothing while its column is in the cache.

    Multi-class problems are one-vs-rest (as the library's other kernel
    estimators; not SVC's one-vs-one), trained together: one working set
    of the union of every problem's worst rows, one block of columns for all.

    Parameters
    ----------
    C : float > 0, default=1.0
        Weight of the hinge loss, as in :class:`sklearn.svm.SVC`.
    __KERNEL_PARAMETERS__
    tol : float > 0, default=1e-3
        Stop when every problem's largest violation of the optimality
        conditions, ``max -y_i G_i`` over the variables that may grow minus
        ``min -y_i G_i`` over those that may shrink, is at most ``tol``
        (LIBSVM's ``-e``, SVC's ``tol``).
    max_iter : int, default=-1
        Iterations (working sets) at most; -1 for no limit.  When reached,
        a :class:`~sklearn.exceptions.ConvergenceWarning` gives the violation
        and the duality gap.
    working_set_size : int >= 4, default=1024
        Rows per working set (q).  Each iteration computes at most ``q/2``
        new kernel columns (``q`` at the first): each problem's worst pairs
        of rows, the problems taking turns (at least two pairs, so that a
        pair that moves together stays together).
    cache_size : float >= 0, default=200.0
        Memory in MB for kernel columns kept beyond the working set's own
        (``1.5 q`` columns of n values, always kept), in the rows' dtype
        (float32 rows: float32 columns); any size is honoured.  Columns of
        rows chosen again are reused, least recently used out.  SVC's default.
        How much more pays depends on what a column costs (BENCHMARKS.md,
        section 12): on 10-class Fashion-MNIST (784 features, 60,000 rows)
        the fit took 233 s with 200 MB, 139 s with 2 GB, 56 s with 8 GB (every
        support vector's column computed once); on ijcnn1 (22
        features) 1.9 s with 200 MB and 3.9 s with 2 GB, where filling fresh
        memory costs more than computing the columns again.
    class_weight : dict or "balanced", default=None
        As in :class:`sklearn.svm.SVC`: ``C`` of class ``i`` is
        ``C * class_weight[i]``.
    probability : bool, default=False
        Also fit ``predict_proba`` (Platt's sigmoid of 5-fold cross-validated
        decision values, as ``SVC(probability=True)``).
    random_state : int, RandomState instance or None, default=None
        Only for ``probability``'s folds: the solver has no randomness.
    callback : callable, default=None
        Called after iterations 1, 2, 4, 8, ... and the last, once per
        one-vs-rest problem, with one :class:`~pegasos.Report`: ``t`` and
        ``iterations`` (working sets so far), ``iterations_total``
        (``max_iter``, 0 for no limit), ``kernel_evals`` (columns computed
        times n) and ``seconds`` (so far, all problems together), ``coef``
        (``y_i a_i`` of every training row) and ``intercept``.  The fit is the
        same with or without it.  Used by ``pegasos train`` for its progress
        bar and, with ``--plot``, its test error curves.

    Attributes
    ----------
    support_, support_vectors_, dual_coef_, intercept_, n_support_
        As :class:`sklearn.svm.SVC` (binary); one-vs-rest rows otherwise.
    classes_ : ndarray
    gamma_ : float
        The kernel coefficient used ("scale"/"auto" resolved as in SVC).
    n_iter_ : int
        Iterations (working sets).
    n_kernel_columns_ : int
        Kernel columns computed (each n kernel values), shared by the problems.
    n_kernel_evals_ : int
        ``n_kernel_columns_ * n`` plus the n diagonal values.
    violation_ : ndarray of shape (n_problems,)
        Each problem's largest violation of the optimality conditions at the end.
    relative_gap_ : ndarray of shape (n_problems,)
        Each problem's relative duality gap ``(P - D) / P`` at the end: the
        primal from the kept gradients, the dual from the variables.
    fit_status_ : int
        0 if every problem reached ``tol``, 1 otherwise (as SVC's).

    See Also
    --------
    sklearn.svm.SVC : LIBSVM's SMO for the same problem (one-vs-one).
    KernelPegasosClassifier : The stochastic solver of the same problem's primal.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from pegasos import DualSVC
    >>> X, y = load_digits(return_X_y=True)
    >>> X = X / 16
    >>> clf = DualSVC(C=10).fit(X[:1000], y[:1000])
    >>> clf.fit_status_, round(clf.score(X[1000:], y[1000:]), 2) >= 0.95
    (0, True)
    """

    _parameter_constraints: dict = {
        **_KernelClassifier._parameter_constraints,
        "C": [Interval(Real, 0, math.inf, closed="neither")],
        "tol": [Interval(Real, 0, math.inf, closed="neither")],
        "max_iter": [Interval(Integral, -1, None, closed="left")],
        "working_set_size": [Interval(Integral, 4, None, closed="left")],
        **constraints_of("class_weight"),
    }

    def __init__(
        self, C=1.0, *, kernel="rbf", gamma="scale", coef0=0.0, degree=3, tol=1e-3,
        max_iter=-1, working_set_size=1024, cache_size=200.0, class_weight=None,
        probability=False, random_state=None, callback=None,
    ):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.coef0 = coef0
        self.degree = degree
        self.tol = tol
        self.max_iter = max_iter
        self.working_set_size = working_set_size
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.probability = probability
        self.random_state = random_state
        self.callback = callback

    @_documented
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Solve the SVM dual of every one-vs-rest problem to ``tol``.

        __FIT_PARAMETERS__
        """
        X, y = self._validate_xy(X, y, reset=True)
        rows, sqnorm, _ = self._setup(X, y)
        n = rows.n_rows
        bounds = self.C * loss_weights(X, y, sample_weight, self.class_weight, self.classes_)
        Y = np.ascontiguousarray(np.column_stack(self._binary_targets(y)))
        q = min(int(self.working_set_size), n)
        itemsize = np.dtype(_ws._dtype(points(rows, sqnorm))).itemsize
        plan = _ws.WorkingSetPlan(
            q=q, new=max(1, int(q * NEW_SHARE)), tol=float(self.tol), ratio=INNER_RATIO,
            max_inner=INNER_STEPS_PER_ROW * q, max_iter=int(self.max_iter),
            cache_rows=int(min(n, self.cache_size * 2**20 // (itemsize * n))),
        )
        report, reported = None, [0]
        if self.callback is not None:
            def report(it, columns, seconds, state, intercept):
                reported[0] = it
                for c in range(Y.shape[1]):
                    self.callback(Report(
                        problem=c, n_problems=Y.shape[1], t=it, iterations=it,
                        iterations_total=max(plan.max_iter, 0), seconds=seconds,
                        coef=Y[:, c] * state.a[:, c], intercept=float(intercept[c]),
                        kernel_evals=int(columns) * n))

        result = _ws.run(points(rows, sqnorm), self._kargs, Y, bounds, plan, report)
        if report is not None and reported[0] != result.n_iter:
            report(result.n_iter, result.columns, result.seconds, result.state, result.intercept)
        primal, dual = _ws.objectives(Y, bounds, result.state, result.intercept)
        self.violation_ = result.violation
        self.relative_gap_ = (primal - dual) / np.maximum(np.abs(primal), np.finfo(float).tiny)
        self.n_iter_ = int(result.n_iter)
        self.n_kernel_columns_ = int(result.columns)
        self.n_kernel_evals_ = int(result.columns) * n + n
        self.fit_status_ = 0 if result.converged else 1
        if not result.converged:
            warnings.warn(
                f"DualSVC stopped after {self.n_iter_} iterations (max_iter={self.max_iter}) "
                f"with a largest violation of {result.violation.max():.3g} (tol={self.tol:g}) "
                f"and a relative "
                f"duality gap of {self.relative_gap_.max():.3g}. Increase max_iter.",
                ConvergenceWarning,
            )
        self._set_support(X, y, (Y * result.state.a).T, result.intercept)
        return self._fit_probability(X, y, sample_weight)
