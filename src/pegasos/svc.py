"""SVC's model by a working-set dual solver on the blocked engine: :class:`DualSVC`."""

import itertools
import math
from numbers import Real

import numpy as np
from sklearn.base import clone
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._base import check_weighted_classes, constraints_of, loss_weights
from ._dual import (
    DUAL_CONSTRAINTS,
    Problem,
    _DualModel,
    bounds_of,
    documented,
    solve_all,
    write_model,
)
from ._kernel_base import FittedProblem, _documented, _KernelClassifier, dense
from ._memory import check_memory
from ._probability import _has_probability, pair_decisions, pair_probabilities, pair_sigmoid
from ._sklearn_private import Interval, StrOptions, _fit_context, _ovr_decision_function
from ._solvers import working_set as _ws
from ._solvers.problems import check_nu_feasible, entry, hard_margin
from .kernel_pegasos import KernelPegasosClassifier

__all__ = ["DualNuSVC", "DualSVC"]


#: Bytes of bookkeeping that each one-vs-one problem holds until the model is assembled
#: (its tuple of rows and targets, its result, its arrays' headers): tracemalloc's peak
#: was 1.8 KB per pair on 400 classes of 2 rows.
_PAIR_BYTES = 1792


def _sigmoid_part(name, doc):
    """The property ``probA_`` or ``probB_``: the fitted array (kept in ``vars(self)``, as
    model files save it), or SVC's empty array after a fit without probabilities."""

    def get(self):
        check_is_fitted(self)
        found = self.__dict__.get(name)
        return np.empty(0) if found is None else found

    def put(self, value):
        self.__dict__[name] = value

    def drop(self):
        del self.__dict__[name]

    return property(get, put, drop, doc)


@documented
class DualSVC(_DualModel, _KernelClassifier):
    """SVC's model: the exact SVM dual, solved by working sets on the blocked engine.

    The problem is LIBSVM's C-SVC (:class:`sklearn.svm.SVC`): the hinge loss
    with weight ``C`` times the sample and class weights, and an unregularised
    intercept.  It is solved in its dual as ThunderSVM does (the algorithm of
    ``scikit-learn-intelex``'s SVC): the gradient of every dual variable is
    kept; each iteration takes the ``working_set_size`` rows that violate the
    optimality conditions most -- a quarter of them new, the newer three
    quarters of the previous set kept -- solves the dual restricted to them by
    SMO (LIBSVM's second-order pair selection) until their violation falls to
    a tenth, and brings every gradient up to date with one block product.
    Kernel columns are computed by the blocked engine, a block of rows at a
    time, and kept: a row chosen again costs nothing while its column is in
    the cache.

    Multi-class problems are one-vs-one by default, as in SVC: one problem
    per pair of classes on their rows, the model SVC's (its support vectors,
    ``dual_coef_`` layout, intercepts, decision values and votes).  With
    ``multi_class="ovr"`` they are one-vs-rest instead (as the library's other
    kernel estimators), trained together: one working set of the union of
    every problem's worst rows, one block of columns for all.  One-vs-one is
    the faster: its columns are shorter, so the cache keeps more of them, and
    its problems are smaller (measured in docs/guide/dual.md, "Measured").

    ``kernel`` may also be a callable, as SVC's: ``kernel(A, B)`` returns the
    (len(A), len(B)) kernel matrix of two sets of rows (of any type the callable
    reads: arrays, strings...).  The fit solves the precomputed problem of
    ``kernel(X, X)``; ``support_vectors_`` keeps the training rows and prediction
    computes ``kernel(X, support_vectors_)``.  Such a model cannot be saved to a
    file (it would not hold the function).

    Parameters
    ----------
    C : float > 0 or inf, default=1.0
        Weight of the hinge loss, as in :class:`sklearn.svm.SVC`.  ``inf`` is
        the hard margin (every row on its side of the margin, to ``tol``); data
        that no margin separates with this kernel are an error once the dual
        variables run away, rather than a fit that never ends.
    __KERNEL_PARAMETERS__
    __WORKING_SET_PARAMETERS__
    __LIBSVM_FLAGS__
    class_weight : dict or "balanced", default=None
        As in :class:`sklearn.svm.SVC`: ``C`` of class ``i`` is
        ``C * class_weight[i]``.
    multi_class : {"ovo", "ovr"}, default="ovo"
        How more than two classes are trained: one problem per pair of
        classes (SVC's one-vs-one), or one per class against the rest,
        sharing kernel columns.
    decision_function_shape : {"ovr", "ovo"}, default="ovr"
        As in :class:`sklearn.svm.SVC`, for one-vs-one models: ``"ovo"``
        gives one decision column per pair, ``"ovr"`` SVC's per-class view
        of the votes.  One-vs-rest models always give one column per class.
    break_ties : bool, default=False
        As in :class:`sklearn.svm.SVC`: with ``decision_function_shape="ovr"``
        and more than two classes, :meth:`predict` returns the argmax of
        :meth:`decision_function` (votes, ties broken by the confidences)
        instead of the first class with most votes.  An error with
        ``decision_function_shape="ovo"``.
    start_epochs : float >= 0, default=0.0
        Passes of :class:`KernelPegasosClassifier` (same ``C``, kernel and
        weights, no intercept) to start from; 0 starts from zero.  Its
        coefficients become dual variables along their ray (the best multiple
        of the dual), clipped to the box and balanced between the classes, and
        their gradients come from one pass of every row against its support
        vectors.  Measured, it made every fit slower, hence the default
        (docs/guide/dual.md, "Measured").
    probability : bool, default=False
        Also fit ``predict_proba``, as ``SVC(probability=True)``: one-vs-one
        (and two classes), LIBSVM's -- for each pair of classes, a sigmoid of
        the decision values of 5 random folds of the pair's rows (a class of
        one row is no error), and for more than two classes the pairs'
        probabilities coupled into one distribution (``probA_``, ``probB_``:
        one per pair; with two classes, the sigmoid of the decision for
        ``classes_[1]``, so that ``probB_`` has the opposite sign of SVC's,
        which is oriented to ``classes_[0]``); one-vs-rest, Platt's sigmoids of
        5 stratified folds, one per class, normalised.  One-vs-one folds are
        solved right after their pair, on its kept kernel columns and from its
        solution (LIBSVM refits them; measured in docs/guide/dual.md,
        "Measured").  The folds keep the fit's ``gamma_``, as LIBSVM's.
    random_state : int, RandomState instance or None, default=None
        The start's draws (``start_epochs``) and ``probability``'s folds; the
        working-set solver itself has no randomness.
    callback : callable, default=None
        Called after working sets 1, 2, 4, 8, ... and the last, once per
        problem (one-vs-rest problems together; pairs of classes one after
        another), with one :class:`~pegasos.Report`: ``problem`` (the pair's
        number in SVC's order, or the class), ``t`` (working sets so far),
        ``iterations`` (the problem's pair steps so far), ``iterations_total``
        (``max_iter``, 0 for no limit), ``kernel_evals`` (columns computed times their length) and
        ``seconds`` (so far, all problems together), ``coef`` (``y_i a_i`` of
        every training row, 0 outside a pair's rows) and ``intercept``.  The fit is the
        same with or without it.  Used by ``pegasos train`` for its progress
        bar and, with ``--plot``, its test error curves.

    Attributes
    ----------
    support_, support_vectors_, dual_coef_, intercept_, n_support_
        As :class:`sklearn.svm.SVC`: one-vs-one, ``dual_coef_`` has
        ``n_classes - 1`` rows and ``intercept_`` one value per pair;
        one-vs-rest, one row and one intercept per class.  After a fit on
        sparse rows, ``support_vectors_`` and ``dual_coef_`` are CSR matrices.
    classes_ : ndarray
    gamma_ : float
        The kernel coefficient used ("scale"/"auto" resolved as in SVC).
    n_iter_ : ndarray of shape (n_problems,)
        SMO's iterations (pair steps, across the working sets) of each
        problem, as SVC's: one per pair of classes (one-vs-one), one for two
        classes, one per class (one-vs-rest).  At most ``max_iter``.  The
        working sets are the callback reports' ``t``.
    coef_ : ndarray or sparse matrix of shape (n_problems, n_features)
        With ``kernel="linear"`` only, as SVC's: the weights of each problem
        (``dual_coef_`` times the support vectors; sparse after a fit on
        sparse rows), read-only.
    n_kernel_columns_ : int
        Kernel columns computed (each as long as its problem's rows: n, or the
        two classes' rows of a pair), shared by the one-vs-rest problems.  A
        training set of at most 2,048 rows computes its whole kernel matrix
        once instead, and reads the columns from it: 0 with the whole matrix,
        the pairs' columns copied out of it with one-vs-one.
    n_kernel_evals_ : int
        The columns' kernel values plus the n diagonal values (or the n^2
        values of the kernel matrix), plus the start's (kernel Pegasos'
        evaluations, its support vectors against themselves and every row
        against them).
    violation_ : ndarray of shape (n_problems,)
        Each problem's (one per pair, or per one-vs-rest class, or one for two
        classes) largest violation of the optimality conditions at the end.
    relative_gap_ : ndarray of shape (n_problems,)
        Each problem's relative duality gap ``(P - D) / P`` at the end: the
        primal from the kept gradients, the dual from the variables.
    fit_status_ : int
        0 if every problem reached ``tol`` within ``max_iter``, 1 otherwise
        (as SVC's).
    class_weight_ : ndarray of shape (n_classes,)
        Each class's weight (1 without ``class_weight``), as SVC's.
    shape_fit_ : tuple
        The training rows' shape (not kept in model files).
    probA_, probB_ : ndarray of shape (n_problems,) or (0,)
        The sigmoids of ``probability=True`` (see ``probability``); an empty
        array after a fit without probabilities, as SVC's.

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
        **DUAL_CONSTRAINTS,
        "C": [Interval(Real, 0, math.inf, closed="right")],
        "start_epochs": [Interval(Real, 0, math.inf, closed="left")],
        "multi_class": [StrOptions({"ovo", "ovr"})],
        "decision_function_shape": [StrOptions({"ovo", "ovr"})],
        "break_ties": ["boolean"],
        **constraints_of("class_weight"),
    }
    _problem = "c_svc"  # (LIBSVM's problem: :data:`~pegasos._solvers.problems.PROBLEMS`)
    _PER_ROW = 4  # one-vs-rest: targets, the dual variables and gradients, the output
    #: probability's folds solved right after each problem, on its columns, where its
    #: problem's ``warm_folds`` says so (False: refitted, as LIBSVM does; the ablation of
    #: tests/test_svc.py and benchmarks/calibration.py)
    _WARM_FOLDS = True

    def _check_memory(self, n, n_classes):
        if self.multi_class == "ovr" or n_classes == 2:
            return super()._check_memory(n, n_classes)
        # one-vs-one: each pair's rows (the class's n_c rows in k - 1 pairs), their targets,
        # dual variables and gradients, and each pair's bookkeeping
        pairs = n_classes * (n_classes - 1) // 2
        check_memory(8 * 4 * (n_classes - 1) * n + _PAIR_BYTES * pairs,
                     f"DualSVC's {pairs} one-vs-one problems of {n_classes} classes on {n} rows "
                     f"(4 values of 8 bytes per row of each pair, and {_PAIR_BYTES} bytes of "
                     "bookkeeping per pair)")

    def __init__(
        self, C=1.0, *, kernel="rbf", gamma="scale", coef0=0.0, degree=3, tol=1e-3,
        max_iter=-1, working_set_size=1024, cache_size=200.0, shrinking=True, verbose=False,
        class_weight=None, multi_class="ovo", decision_function_shape="ovr", break_ties=False, start_epochs=0.0,
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
        self.shrinking = shrinking
        self.verbose = verbose
        self.class_weight = class_weight
        self.multi_class = multi_class
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.start_epochs = start_epochs
        self.probability = probability
        self.random_state = random_state
        self.callback = callback

    @_documented
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Solve the SVM dual of every problem (pair of classes, or class) to ``tol``.

        __FIT_PARAMETERS__
        """
        self.__dict__.pop("tie_order_", None)  # (a model read from LIBSVM's format, refitted)
        if callable(self.kernel):  # (a copy fits the Gram matrix, and gives its C_)
            return self._fit_callable(X, y, sample_weight)
        X, y = self._validate_xy(X, y, reset=True)
        prepared = self._setup(X, y)
        bounds = self._bounds(X, y, sample_weight)
        check_weighted_classes(y, bounds)
        problems = self._split(y)
        self._keep_sigmoids(len(problems))
        solved, evals = solve_all(self, X, y, problems, bounds, prepared)
        return self._finish(X, y, sample_weight, bounds, problems, solved, evals)

    def _split(self, y):
        """The :class:`Problem` of each pair of classes, one-vs-one, with LIBSVM's
        orientation (+1 for the pair's first class); else one, every one-vs-rest problem
        (or the binary one) on all rows."""
        if self.multi_class == "ovo" and len(self.classes_) > 2:
            return self._pairs(y)
        return [Problem(None, np.ascontiguousarray(np.column_stack(self._binary_targets(y))))]

    def _keep_sigmoids(self, n_problems):
        """With probabilities (one-vs-one), each problem's sigmoid is fitted right after
        it, on its kernel columns (:func:`~pegasos._probability.warm_pair_decisions`): their
        list, and the folds' seed."""
        self.__dict__.pop("_sigmoids", None)
        if (self.probability and self._WARM_FOLDS and entry(self._problem).warm_folds
                and self.multi_class == "ovo"):
            self._sigmoids = [None] * n_problems
            self._fold_seed = check_random_state(self.random_state).randint(
                np.iinfo(np.int32).max)

    def _finish(self, X, y, sample_weight, bounds, problems, solved, evals):
        """The fitted attributes of the problems' solutions (SVC's model,
        :func:`~pegasos._dual.write_model`), and the probabilities."""
        write_model(self, X, y, bounds, problems, solved, evals)
        return self._fit_probability(X, y, sample_weight)

    def _fold(self):
        """A copy for a cross-validation fold: of its problem's ``fold`` where it has one (a
        nu-SVC's does not check nu)."""
        if entry(self._problem).fold is None:
            return clone(self)
        return _NuSVCFold(**self.get_params(deep=False))

    def _bounds(self, X, y, sample_weight):
        """Each row's bound (:func:`~pegasos._dual.bounds_of`)."""
        return bounds_of(self, X, y, sample_weight)[1]

    def _start(self, X, labels, Y, bounds):
        """``start_epochs`` of kernel Pegasos on (X, labels) with the loss weights
        ``bounds / C``, made a feasible start for the problems ``Y``: the
        :class:`~pegasos._solvers.working_set.WorkingSetState` and its kernel evaluations."""
        pegasos = KernelPegasosClassifier(
            C=self.C, kernel=self.kernel, gamma=self.gamma_, coef0=self.coef0,
            degree=self.degree, n_epochs=self.start_epochs, fit_intercept=False,
            random_state=self.random_state,
        ).fit(X, labels, sample_weight=bounds / self.C)
        sv = pegasos.support_

        def products(coef, rows):
            return self._products(X, None if rows is None else sv[rows], sv, coef)

        a_sv, F = _ws.start_from(np.ascontiguousarray(pegasos.dual_coef_), Y[sv], bounds[sv],
                                 products)
        a = np.zeros(Y.shape)
        a[sv] = a_sv
        evals = pegasos.n_kernel_evals_ + sv.size * (sv.size + len(labels))
        return _ws.WorkingSetState(a, F), evals

    # -- the sigmoids, SVC's empty arrays without them ---------------------------

    probA_ = _sigmoid_part("probA_", """The sigmoids' slopes, one per problem (``probability=True``).

        An empty array after a fit without probabilities, as SVC's.
        """)
    probB_ = _sigmoid_part("probB_", """The sigmoids' offsets, one per problem (``probability=True``).

        An empty array after a fit without probabilities, as SVC's.
        """)

    # -- one-vs-one output ------------------------------------------------------

    @property
    def _one_vs_one(self):
        """Whether the fitted model is SVC's one-vs-one layout (more than two classes)."""
        k = len(self.classes_)
        return k > 2 and self.dual_coef_.shape[0] == k - 1

    def _pair_coef(self):
        """The pairs' coefficients over every support vector, (n_pairs, n_SV)."""
        k = len(self.classes_)
        ends = np.concatenate([[0], np.cumsum(self.n_support_)])
        dual = dense(self.dual_coef_)
        coef = np.zeros((k * (k - 1) // 2, dual.shape[1]))
        for p, (i, j) in enumerate(itertools.combinations(range(k), 2)):
            coef[p, ends[i]:ends[i + 1]] = dual[j - 1, ends[i]:ends[i + 1]]
            coef[p, ends[j]:ends[j + 1]] = dual[i, ends[j]:ends[j + 1]]
        return coef

    def _pairs(self, y):
        """SVC's one-vs-one problems of the labels ``y``: each pair of classes' rows and
        targets, +1 for the pair's first class (LIBSVM's orientation), in SVC's order."""
        labels = np.searchsorted(self.classes_, y)
        return [Problem(keep, np.where(labels[keep] == i, 1.0, -1.0)[:, None])
                for i, j in itertools.combinations(range(len(self.classes_)), 2)
                for keep in [np.flatnonzero((labels == i) | (labels == j))]]

    def _problems(self, y):
        """One-vs-one: each pair's rows, targets, coefficients and intercept (see
        :meth:`_KernelClassifier._problems`)."""
        if not self._one_vs_one:
            return super()._problems(y)
        coef = self._pair_coef()
        return [FittedProblem(keep, Y, coef[p:p + 1], self.intercept_[p:p + 1])
                for p, (keep, Y) in enumerate(self._pairs(y))]

    def _pair_scores(self, X):
        """The pairs' decision values, (n_samples, n_pairs), positive for each pair's first
        class."""
        return self._scores(X, self._pair_coef(), self.intercept_)

    def decision_function(self, X):
        """Signed distances: one-vs-rest columns, or with ``multi_class="ovo"`` SVC's.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score; with ``kernel="precomputed"``, K(X, X_train) of
            shape (n_samples, n_training_samples).  Dense or CSR whatever the
            training rows were, with the same values (SVC refuses sparse rows
            after a dense fit: scikit-learn wraps libsvm's dense and sparse
            builds, each with its own model).

        Returns
        -------
        ndarray of shape (n_samples,), (n_samples, n_classes) or (n_samples, n_pairs)
            For two classes, positive for ``classes_[1]``.  One-vs-rest
            models: one column per class.  One-vs-one models: with
            ``decision_function_shape="ovo"`` one column per pair (i, j),
            i < j, positive for class i (SVC's); with ``"ovr"`` SVC's votes plus
            their confidences, one column per class.
        """
        check_is_fitted(self)
        if not self._one_vs_one:
            return super().decision_function(X)
        if self.decision_function_shape == "ovo":
            return self._pair_scores(X)
        return self._probability_scores(X)

    def _probability_scores(self, X):
        """One column per class whatever ``decision_function_shape`` (SVC's ovr view)."""
        if not self._one_vs_one:
            return super()._probability_scores(X)
        scores = self._pair_scores(X)
        return _ovr_decision_function(scores < 0, -scores, len(self.classes_))

    def predict(self, X):
        """Class labels: by the decision's sign or argmax, or one-vs-one votes (SVC's).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to classify (see :meth:`decision_function`).

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.  One-vs-one: the class with most votes,
            ties to the first (LIBSVM's rule; a model read from a LIBSVM file
            keeps that file's order of labels for ties, ``tie_order_``).
        """
        check_is_fitted(self)
        if self.break_ties and self.decision_function_shape == "ovo":
            raise ValueError("break_ties must be False when decision_function_shape is 'ovo'")
        if not self._one_vs_one:
            return super().predict(X)
        if self.break_ties and len(self.classes_) > 2:
            return self.classes_[np.argmax(self.decision_function(X), axis=1)]
        scores = self._pair_scores(X)
        k = len(self.classes_)
        votes = np.zeros((scores.shape[0], k), np.int64)
        for p, (i, j) in enumerate(itertools.combinations(range(k), 2)):
            votes[:, i] += scores[:, p] > 0
            votes[:, j] += scores[:, p] <= 0
        order = getattr(self, "tie_order_", None)  # (a model read from LIBSVM's format)
        if order is not None:
            return self.classes_[order[np.argmax(votes[:, order], axis=1)]]
        return self.classes_[np.argmax(votes, axis=1)]

    # -- probabilities: LIBSVM's, for one-vs-one models ---------------------------

    def _fit_sigmoids(self, X, y, sample_weight):
        """One-vs-one: LIBSVM's probabilities (``svm_binary_svc_probability`` per pair of
        classes, 5 random folds of the pair's rows, a sigmoid each; a class of one row
        is no error); one-vs-rest: Platt's sigmoids per class (the mixin's)."""
        if sample_weight is not None:  # (a negative weight drops its row, as in the fit)
            sample_weight = np.maximum(np.asarray(sample_weight, dtype=np.float64), 0.0)
        if self.multi_class != "ovo":
            return super()._fit_sigmoids(X, y, sample_weight)
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        # the full fit's weights of every row (C per row, as LIBSVM's folds keep them): the
        # folds take them as sample weights, and rows of weight 0 take no part (LIBSVM
        # drops them before training)
        sw = loss_weights(X, y, sample_weight, self.class_weight, self.classes_)
        # (the folds keep the fit's gamma, resolved on all of X, as LIBSVM's: its
        # cross-validation shares one svm_parameter)
        folds = self._fold().set_params(class_weight=None, **(
            {} if callable(self.kernel) or self.kernel == "precomputed"
            else {"gamma": self.gamma_}))
        k = len(self.classes_)
        # two classes: the decision is positive for classes_[1] (as every estimator's);
        # pairs: for the pair's first class (SVC's one-vs-one decision)
        pairs = [(1, 0)] if k == 2 else list(itertools.combinations(range(k), 2))
        # (the fit's, pair by pair, where its folds were solved on the pair's columns:
        # warm_pair_decisions; the others refitted)
        sigmoids = self.__dict__.pop("_sigmoids", None) or [None] * len(pairs)
        self.__dict__.pop("_fold_seed", None)
        for p, (first, second) in enumerate(pairs):
            if sigmoids[p] is None:
                rows = np.flatnonzero(((y == self.classes_[first])
                                       | (y == self.classes_[second])) & (sw > 0))
                dec = pair_decisions(folds, X, y, sw, rows, self.classes_[first], seed + p)
                # (unweighted, as LIBSVM's sigmoid_train)
                sigmoids[p] = pair_sigmoid(dec, y[rows] == self.classes_[first], None)
        self.probA_ = np.array([a for a, _ in sigmoids], dtype=np.float64)
        self.probB_ = np.array([b for _, b in sigmoids], dtype=np.float64)
        if k > 2:
            self.pairwise_coupling_ = 1
        return self

    @available_if(_has_probability)
    def predict_proba(self, X):
        """Class probabilities, shape (n_samples, n_classes), columns in ``classes_`` order.

        Available with ``probability=True``.  One-vs-one models (more than two
        classes) give LIBSVM's: each pair's sigmoid of its decision values
        (clipped to [1e-7, 1 - 1e-7]), coupled into one distribution by
        ``multiclass_probability`` (Wu, Lin and Weng 2004), as SVC's.  Other
        models: Platt's sigmoids, one-vs-rest ones normalised to sum to one.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows (see :meth:`decision_function`).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Probabilities summing to one per row.
        """
        check_is_fitted(self)
        if not getattr(self, "pairwise_coupling_", 0) or not self._one_vs_one:
            return super().predict_proba(X)
        # (a model read from LIBSVM's format couples in its file's order of labels)
        return pair_probabilities(self._pair_scores(X), self.probA_, self.probB_,
                                  len(self.classes_), getattr(self, "tie_order_", None))

    @_documented
    def duality_gap(self, X, y, sample_weight=None):
        """Primal objective and duality-gap certificate of the fitted model on (X, y).

        The problem is SVC's on (X, y): ``C``, the class weights and a free
        intercept, written in the lambda form ``lam = 1 / (C n_samples)``
        (the same problem divided by ``C n_samples``; relative gaps are
        unchanged).  On the training rows, ``gap / primal`` is at most
        ``relative_gap_`` (the dual vector is the fit's own, at its best
        multiple), up to rounding.

        __GAP_PARAMETERS__
        """
        check_is_fitted(self)
        if callable(self.kernel):
            raise ValueError("duality_gap is not available with a callable kernel: compute "
                             "the Gram matrix and fit with kernel='precomputed' to certify a "
                             "model")
        if hard_margin(self.C):
            raise ValueError("duality_gap certifies the C form in lambda = 1/(C n), which is 0 "
                             "for C=inf (the hard margin): see relative_gap_ instead")
        return self._certificate(X, y, sample_weight, lambda m: 1.0 / (self.C * m), 0.0, True)


@documented
class DualNuSVC(DualSVC):
    """Nu-support vector classification: LIBSVM's nu-SVC by working sets.

    The problem is :class:`sklearn.svm.NuSVC`'s: for each pair of classes, the
    dual ``min 1/2 a'Qa`` subject to ``0 <= a_i <= w_i``, ``y'a = 0`` and
    ``sum a = nu sum w``, from LIBSVM's start, solved by :class:`DualSVC`'s
    working sets with LIBSVM's Solver_NU rules (pairs of one class, each
    class's violation on its own).  The solution, divided by LIBSVM's ``r``,
    is the C-SVC model with ``C = 1/r``: support vectors, ``dual_coef_`` and
    intercepts in SVC's one-vs-one layout, as NuSVC's.  ``nu`` bounds the
    fraction of margin errors from above and of support vectors from below.

    Parameters
    ----------
    nu : float in (0, 1], default=0.5
        LIBSVM's ``-n``.  A pair of classes whose smaller class weighs less
        than ``nu`` times half the pair is infeasible: an error, as in LIBSVM.
    __KERNEL_PARAMETERS__
    __WORKING_SET_PARAMETERS__
    __LIBSVM_FLAGS__
    class_weight : dict or "balanced", default=None
        Accepted and without effect, as in LIBSVM and
        :class:`sklearn.svm.NuSVC` (nu-SVC has no C to weight).
    decision_function_shape : {"ovr", "ovo"}, default="ovr"
        As :class:`DualSVC`'s.
    break_ties : bool, default=False
        As :class:`DualSVC`'s.
    probability : bool, default=False
        LIBSVM's pairwise probabilities, as :class:`DualSVC`'s.
    random_state : int, RandomState instance or None, default=None
        ``probability``'s folds.
    callback : callable, default=None
        As :class:`DualSVC`'s (the coefficients before the division by ``r``).

    Attributes
    ----------
    support_, support_vectors_, dual_coef_, intercept_, n_support_, classes_
        As :class:`sklearn.svm.NuSVC` (and :class:`DualSVC`).
    gamma_, n_iter_, n_kernel_columns_, n_kernel_evals_, violation_, fit_status_
        As :class:`DualSVC`'s.
    relative_gap_ : ndarray of shape (n_problems,)
        Each pair's relative duality gap as the C-SVC problem with ``C = 1/r``.
    C_ : ndarray of shape (n_problems,)
        Each pair's equivalent C-SVC cost ``1/r``.
    coef_ : ndarray or sparse matrix of shape (n_problems, n_features)
        With ``kernel="linear"`` only, as :class:`DualSVC`'s.

    See Also
    --------
    sklearn.svm.NuSVC : LIBSVM's SMO for the same problem.
    DualSVC : The C form.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from pegasos import DualNuSVC
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = DualNuSVC(nu=0.1).fit(X[:1000] / 16, y[:1000])
    >>> clf.fit_status_, round(clf.score(X[1000:] / 16, y[1000:]), 2) >= 0.95
    (0, True)
    """

    _parameter_constraints: dict = {
        **{k: v for k, v in DualSVC._parameter_constraints.items()
           if k not in ("C", "start_epochs", "multi_class")},
        "nu": [Interval(Real, 0.0, 1.0, closed="right")],
    }
    _problem = "nu_svc"
    #: (not parameters: nu-SVC is one-vs-one, from LIBSVM's start)
    multi_class = "ovo"
    start_epochs = 0.0

    def __init__(
        self, *, nu=0.5, kernel="rbf", gamma="scale", coef0=0.0, degree=3, tol=1e-3,
        max_iter=-1, working_set_size=1024, cache_size=200.0, shrinking=True, verbose=False,
        class_weight=None, decision_function_shape="ovr", break_ties=False, probability=False,
        random_state=None, callback=None,
    ):
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
        self.class_weight = class_weight
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.probability = probability
        self.random_state = random_state
        self.callback = callback

    def _check_feasible(self, y, w):
        """Refuse a pair of classes whose smaller one weighs less than ``nu`` times half the
        pair (LIBSVM's ``svm_check_parameter``, with the sample weights ``w``)."""
        check_nu_feasible(self.nu, y, w)

    @_documented
    def duality_gap(self, X, y, sample_weight=None):
        """Not available: nu-SVC's pairs each have their own C (``C_``).

        __GAP_PARAMETERS__
        """
        raise ValueError("duality_gap certifies C-SVC models; a nu-SVC model's pairs each "
                         "solve the C-SVC problem of their own C (C_): fit DualSVC(C=...) "
                         "to certify one")


class _NuSVCFold(DualNuSVC):
    """:class:`DualNuSVC` for a cross-validation fold: nu unchecked (LIBSVM's folds fill what
    each class's rows hold of nu, from the start on)."""

    _problem = "nu_svc_fold"
