"""Linear Pegasos: :class:`PegasosClassifier`."""

import math
import os
from numbers import Real

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import BaseEstimator
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from ._base import (
    N_JOBS_CONSTRAINT,
    PEGASOS_CONSTRAINTS,
    binary_targets,
    check_exclusive_params,
    check_finite_fit,
    check_finite_scores,
    check_known_labels,
    check_stream_labels,
    check_two_classes,
    check_weighted_classes,
    describe_lambda,
    label_text,
    loss_weights,
    make_plan,
    positive_classes,
    resolve_lam,
)
from ._memory import check_memory
from ._probability import ProbabilityMixin
from ._rows import as_rows, check_sparse_structure, check_width, stack_rows
from ._sklearn_private import Interval, LinearClassifierMixin, StrOptions, _fit_context
from ._solvers.linear import (
    HISTORY_KEYS,
    Layout,
    Monitor,
    PegasosState,
    Problem,
    SquaredNorms,
    StreamMonitor,
    certificate,
    check_first_step,
    fit_binary,
    fit_stream,
    new_history,
    set_fitted,
    warn_unconverged,
)
from ._stream_params import stream_refusals
from .block_stream import BlockStream
from .datasets import load_svmlight
from .objective import finite_gap
from .stream import SVMLightStream

__all__ = ["HISTORY_KEYS", "Layout", "PegasosClassifier", "PegasosState", "fit_binary"]

#: What only a fit on a stream sets (a later fit on arrays drops them).
STREAM_ATTRIBUTES = ("n_rows_read_", "holdout_errors_")


class PegasosClassifier(ProbabilityMixin, LinearClassifierMixin, BaseEstimator):
    r"""Linear SVM trained by Pegasos (primal estimated sub-gradient solver).

    Minimises the SVM objective

    .. math::

        P(w) = \frac{\lambda}{2}\|w\|^2
               + \frac{1}{n}\sum_{i=1}^n s_i\max(0,\, 1 - y_i\langle w, x_i\rangle)

    (with an intercept as set by ``fit_intercept``/``intercept_mode``) by the
    mini-batch Pegasos iteration of Shalev-Shwartz, Singer, Srebro and Cotter:
    for :math:`t = 1, \dots, T` draw a batch :math:`A_t` of ``batch_size``
    examples, take the step :math:`\eta_t = 1/(\lambda t)`,

    .. math::

        w \leftarrow (1 - \eta_t\lambda)\,w
               + \frac{\eta_t}{k}\sum_{i \in A_t:\ y_i\langle w, x_i\rangle < 1} s_i y_i x_i,

    and project :math:`w` back onto the ball that contains the optimum.  An
    iteration costs O(k * nnz per row) whatever the training-set size: the
    weights are stored as a scale times a vector with :math:`\|w\|^2` tracked.

    Parameters
    ----------
    lam : float > 0, default=None
        The regularisation :math:`\lambda` of the paper (``alpha`` in
        ``SGDClassifier``).  None: from ``C``, whose default is 1 (as
        ``LinearSVC`` and ``SVC``), i.e. :math:`\lambda = 1/n`.
        :meth:`partial_fit` needs ``lam``.
    C : float > 0, default=None
        LIBLINEAR/LIBSVM's form of the same parameter: :math:`\lambda =
        1/(C\,n)` with :math:`n` the number of training samples.  Give
        ``lam`` or ``C``, not both.  ``C`` cannot be used with
        :meth:`partial_fit`, whose batches have no fixed size.
    n_iter : int >= 1, default=None
        The iteration budget :math:`T`: the number of Pegasos **iterations**
        (mini-batch steps, each of ``batch_size`` examples), as in the paper.
        Not epochs.  Give ``n_iter`` or ``n_epochs``, not both.  When both are
        None, :math:`T = \lceil 10 / \lambda \rceil` iterations (the default
        of VLFeat's ``vl_pegasos``), whatever the batch size: like the paper's
        bound, it depends on T and not on k or the number of samples.
        (Measured on ijcnn1, lambda = 1e-5: at a fixed k*T the test error is
        the same for k = 1 and k = 10, but k = 1000 needs about 10x more
        examples -- the 1/(lambda t) schedule needs T itself to grow).
    n_epochs : float > 0, default=None
        The budget in passes over the data instead:
        :math:`T = \lceil n_\text{epochs} \cdot n / k\rceil` iterations.
    batch_size : int >= 1, default=1
        :math:`k`, the number of examples per iteration.  The error reached
        depends mostly on :math:`kT`, the number of examples processed.
    sampling : {"uniform", "permutation", "cyclic"}, default="uniform"
        How batches are drawn: i.i.d. with replacement (the paper), from a
        random permutation renewed every epoch, or in the fixed order of the
        data (0, 1, ..., n-1, 0, ...; deterministic).
    projection : bool, default=True
        Project onto the ball :math:`\|w\| \le \sqrt{\bar s/\lambda}` after
        each step (:math:`1/\sqrt{\lambda}` with unit weights; :math:`\bar s`
        is the mean loss weight).  The optimum always lies in it.
    average : bool or float in (0, 1], default=0.5
        Which iterate to return: False, the last one (the paper's output);
        True, the uniform average of all iterates; a float :math:`\alpha`,
        the average of the last :math:`\lceil\alpha T\rceil` iterates of the
        fit (:math:`\alpha`-suffix averaging, Rakhlin, Shamir & Sridharan
        2012), kept lazily at no extra cost per step.  The default, the last
        half, was measured to give the best test error per second: on a9a
        (lambda = 3e-5) after one epoch it is at 15.0% test error (the exact
        SVM: 15.0%), the last iterate at 17-18% and the full average at 15.4%
        (see ``benchmarks/``).
    fit_intercept : bool, default=True
        Whether to learn an intercept.
    intercept_mode : {"augment", "unregularized"}, default="augment"
        ``"augment"``: append the constant feature ``intercept_scaling`` to
        every sample; the intercept is regularised like the other weights,
        exactly as LIBLINEAR's ``-B`` and ``LinearSVC``, and the convergence
        guarantee holds.  ``"unregularized"``: a free intercept :math:`b`
        updated by its own sub-gradient, :math:`b \leftarrow b +
        (\eta_t/k)\sum s_i y_i` over the violators, outside the norm and the
        projection (the paper's second option; it has no fast-rate guarantee).
    intercept_scaling : float > 0, default=1.0
        The constant feature of the ``"augment"`` mode.
    init : {"zero", "random"}, default="zero"
        Start from :math:`w_1 = 0` or from a uniform random point of the
        projection ball.  (With :math:`\eta_1 = 1/\lambda` the first step
        discards :math:`w_1`; it only decides the first batch's violators.)
    tol : float > 0, default=None
        Stop once the relative duality gap (see :mod:`pegasos.objective`)
        :math:`(P(w) - D(\alpha))/D(\alpha)`, an upper bound on the relative
        suboptimality :math:`(P(w) - P^*)/P^*`, falls below ``tol``.  Checked
        every ``check_every`` epochs, at the cost of one pass over the data
        each time.  When the budget runs out first, a ``ConvergenceWarning``
        gives the certified gap and what to try.  None: run the whole budget,
        as in the paper.
    check_every : float > 0, default=2.0
        Epochs between two duality-gap checks (with ``tol`` or
        ``track_objective``).
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes in the loss: sample i's loss weight is
        ``class_weight[y_i] * sample_weight[i]``, in every one-vs-rest
        problem.  "balanced" uses ``n / (n_classes * bincount(y))``.
    random_state : int, RandomState instance or None, default=None
        Seeds the sample order (and a random ``init``).  The same seed gives
        the same model bit for bit, whatever ``n_jobs``.
    warm_start : bool, default=False
        When True, :meth:`fit` continues the previous fit -- same step
        counter :math:`t`, same weights -- for another budget (restarting at
        :math:`t = 1` would discard the weights, since :math:`\eta_1\lambda =
        1`).  X must have the fitted number of features (a ``ValueError``
        otherwise); other classes or another lambda start a new fit.
    track_objective : bool, default=False
        Record the primal objective and the dual certificate every
        ``check_every`` epochs in ``objective_history_``.
    n_jobs : int, default=None
        Threads for the one-vs-rest problems of a multi-class fit (the solver
        releases the GIL).  Results do not depend on it.
    verbose : int, default=0
        Print the objective at each check when > 0.
    callback : callable, default=None
        Called after every block of iterations (at most 65,536 examples, or
        ``check_every`` epochs when checking) with one :class:`~pegasos.Report`:
        ``problem`` and ``n_problems`` (the one-vs-rest problem), ``t``
        (iterations so far), ``iterations`` and ``iterations_total`` (of this
        call), ``seconds`` (solver time), ``coef`` and ``intercept`` (the
        current output model) and ``gap`` (a DualityGap at checks, else
        None); ``report["coef"]`` reads as the dict of earlier versions.  Used
        by the command line for its progress bar and its test error during
        training.
    probability : bool, default=False
        Also fit probability estimates (``predict_proba``), as
        ``SVC(probability=True)``: Platt's sigmoid of the decision values,
        fitted on 5-fold cross-validated decision values during ``fit`` (five
        more fits of 80% of the data).  Not with ``partial_fit``.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of shape (n_classes,)
    probA_, probB_ : ndarray of shape (1,) or (n_classes,)
        With ``probability=True``: each binary problem's sigmoid,
        ``P = 1 / (1 + exp(probA_ * f + probB_))``.
    lam_ : float
        The :math:`\lambda` used (from ``lam`` or ``C``).
    n_iter_ : int
        Iterations run by the last call to :meth:`fit` or :meth:`partial_fit`
        (the most over the one-vs-rest problems).
    t_ : int
        Iterations run since the model was initialised (the step counter of
        the last iteration; ``warm_start`` and :meth:`partial_fit` continue it).
    duality_gap_ : list of DualityGap or None
        The last certificate of each binary problem when ``tol`` or
        ``track_objective`` is set, else None (call :meth:`duality_gap`).  A
        certificate costs three passes over the data: 16-50% of a default
        fit on the benchmark sets (docs/journal/certificate.md), so a default
        fit does not compute one.
    state_ : PegasosState
        The solver state the next :meth:`partial_fit` or ``warm_start`` fit
        continues from, and that :meth:`duality_gap` reads the dual vector
        from; saved and loaded with the model.
    plan_ : FitPlan
        The numbers the last call ran with: lambda, iterations, batch size,
        averaged iterates, projection radius, seeds.
    objective_history_ : list of dict
        With ``track_objective``: per binary problem, arrays ``t``,
        ``primal``, ``dual`` and ``time`` (solver seconds) at each check.
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    See Also
    --------
    pegasos.DaskPegasosClassifier : The same solver on a Dask cluster.
    pegasos.KernelPegasosClassifier : Kernelized Pegasos.
    sklearn.svm.LinearSVC : LIBLINEAR's exact solver of the same problem.

    Notes
    -----
    Multi-class problems are solved one-vs-rest, each with its own seed drawn
    up front from ``random_state``.  The projection radius and the duality
    gap follow from :math:`\lambda\|w^*\|^2 = \frac1n\sum_i\alpha^*_i -
    L(w^*) \le \bar s` (strong duality).

    References
    ----------
    S. Shalev-Shwartz, Y. Singer, N. Srebro, A. Cotter. Pegasos: primal
    estimated sub-gradient solver for SVM. Math. Programming 127(1), 2011.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from pegasos import PegasosClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = PegasosClassifier(lam=1e-3, random_state=0).fit(X, y)
    >>> round(clf.score(X, y), 2) >= 0.95
    True
    """

    _parameter_constraints: dict = {
        **PEGASOS_CONSTRAINTS,
        "intercept_mode": [StrOptions({"augment", "unregularized"})],
        "init": [StrOptions({"zero", "random"})],
        "tol": [Interval(Real, 0, math.inf, closed="neither"), None],
        "check_every": [Interval(Real, 0, math.inf, closed="neither")],
        "warm_start": ["boolean"],
        "track_objective": ["boolean"],
        "n_jobs": N_JOBS_CONSTRAINT,
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        lam=None,
        *,
        C=None,
        n_iter=None,
        n_epochs=None,
        batch_size=1,
        sampling="uniform",
        projection=True,
        average=0.5,
        fit_intercept=True,
        intercept_mode="augment",
        intercept_scaling=1.0,
        init="zero",
        tol=None,
        check_every=2.0,
        class_weight=None,
        random_state=None,
        warm_start=False,
        track_objective=False,
        n_jobs=None,
        verbose=0,
        callback=None,
        probability=False,
    ):
        self.lam = lam
        self.C = C
        self.n_iter = n_iter
        self.n_epochs = n_epochs
        self.batch_size = batch_size
        self.sampling = sampling
        self.projection = projection
        self.average = average
        self.fit_intercept = fit_intercept
        self.intercept_mode = intercept_mode
        self.intercept_scaling = intercept_scaling
        self.init = init
        self.tol = tol
        self.check_every = check_every
        self.class_weight = class_weight
        self.random_state = random_state
        self.warm_start = warm_start
        self.track_objective = track_objective
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.callback = callback
        self.probability = probability

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # ------------------------------------------------------------------ API

    def _describe_regularisation(self):
        """The regularisation the model was trained with, as ``pegasos info`` prints it."""
        return describe_lambda(self)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Fit the model by ``n_iter`` (or ``n_epochs``) Pegasos iterations.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), or SVMLightStream
            Dense (C- or F-ordered, any float dtype) or sparse; CSR with int32
            or int64 indices is used without conversion.  A
            :class:`~pegasos.stream.SVMLightStream` (LIBSVM files read as a
            stream, with their labels) trains without loading the files, as a
            :class:`~pegasos.BlockStream` (blocks of rows from any iterable) does:
            ``n_iter`` iterations drawn from a shuffle buffer (it needs ``lam``,
            not ``C``, and no ``y``).
        y : array-like of shape (n_samples,)
            Labels of any type; at least two classes.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the samples' losses.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        self._more_validate_params(partial=False)
        if isinstance(X, (SVMLightStream, BlockStream)):
            return self._fit_stream(X, y, sample_weight)
        for name in STREAM_ATTRIBUTES:  # a stream fit's
            self.__dict__.pop(name, None)
        # A continued fit checks X against the fitted width (and feature names)
        # instead of resetting them: its state has one weight per feature.
        continuing = self.warm_start and hasattr(self, "state_")
        X, y = self._validate_xy(X, y, reset=not continuing)
        classes = np.unique(y)
        check_two_classes(classes)
        sw = loss_weights(X, y, sample_weight, self.class_weight, classes)
        check_weighted_classes(y, sw)
        plan = self.fit_plan(X.shape[0], len(classes), sw)
        keep = continuing and self._can_continue(classes, X.shape[1], plan.lam)
        if not keep:
            self.classes_ = classes
            self.lam_ = plan.lam
        self.plan_ = plan
        self._solve(X, y, sw, plan, reset=not keep, keep_alpha=True)
        return self._fit_probability(X, y, sample_weight)

    def _fit_labels_as_read(self, X, y):
        """:meth:`fit` on a stream's rows, their labels read as LIBSVM reads them (any
        numbers, each distinct one a class: 1.5 and -2.5 too, which scikit-learn's check
        calls a regression's): fitted on the classes' indices, in sorted order (nothing
        else about the fit changes), then named by the labels again."""
        if type_of_target(y) != "continuous":
            return self.fit(X, y)
        classes, codes = np.unique(y, return_inverse=True)
        weights = self.class_weight
        if isinstance(weights, dict):
            self.class_weight = {int(np.searchsorted(classes, label)): w
                                 for label, w in weights.items() if label in classes}
        try:
            self.fit(X, codes)
        finally:
            self.class_weight = weights
        self.classes_ = classes
        return self

    def _fit_stream(self, stream, y, sample_weight):
        """:meth:`fit` on a :class:`~pegasos.stream.SVMLightStream` or a
        :class:`~pegasos.BlockStream` (see their docstrings)."""
        unsupported = {"y": y is not None, "sample_weight": sample_weight is not None,
                       **dict.fromkeys(stream_refusals(self.get_params()).values(), True)}
        for name, used in unsupported.items():
            if used:
                raise ValueError(f"A stream fit takes no {name}; a stream holds its labels and "
                                 "draws uniformly from its shuffle buffer.")
        source = stream.rows()
        try:
            return self._fit_rows(stream, source)
        finally:
            source.close()

    def _fit_rows(self, stream, source):
        """:meth:`_fit_stream` from its :class:`~pegasos.stream.RowSource`."""
        for name in STREAM_ATTRIBUTES:
            self.__dict__.pop(name, None)
        holdout = stream.holdout
        if isinstance(holdout, int):
            holdout = source.hold_out(holdout)
        width, y = source.fill()
        if stream.n_features is not None:
            check_width(width, stream.n_features)
            width = stream.n_features
        source.set_width(width)
        classes = np.unique(y) if stream.classes is None else stream.classes
        if stream.classes is None and len(classes) < 2:
            raise ValueError(
                f"{source.name}: the first buffer's {y.shape[0]} rows (buffer_rows="
                f"{stream.buffer_rows}) all have the label {label_text(classes[0])}, and a "
                "stream takes its classes from its first buffer: give classes (or a buffer "
                "that reaches the other labels; pegasos train: --buffer-rows)")
        if holdout is None and np.array_equal(classes, np.unique(y)):
            whole = source.whole()
            if whole is not None:
                self._fit_labels_as_read(*whole)  # all of it fits in the buffer: the
                self.n_rows_read_ = source.rows_read  # in-memory fit, exactly
                return self
        if isinstance(holdout, (str, os.PathLike)):
            holdout = load_svmlight(holdout, zero_based=source.zero_based)
        if holdout is not None:
            check_width(holdout[0].shape[1], width, "a held-out row")
            holdout = (stack_rows([holdout[0]], width), holdout[1])
            check_stream_labels(holdout[1], classes, held_out=True)
        check_two_classes(classes)
        plan = make_plan(
            lam=self.lam, C=None, n=y.shape[0], n_iter=self.n_iter, n_epochs=None,
            batch_size=self.batch_size, average=self.average, radius2=None,
            projection=self.projection, random_state=self.random_state,
            n_problems=len(positive_classes(classes)))
        n_problems = len(plan.seeds)
        check_memory(8 * 3 * n_problems * (width + 1),
                     f"{type(self).__name__}'s {n_problems} binary problem"
                     f"{'s' * (n_problems > 1)} on {width} features (3 values per feature each, "
                     "8 bytes a value)")
        weight_of = self.class_weight or {}

        def problems(labels):
            check_stream_labels(labels, classes)
            weights = np.array([weight_of.get(label, 1.0) for label in labels.tolist()])
            return binary_targets(classes, labels), weights

        self.classes_, self.lam_, self.plan_ = classes, plan.lam, plan
        state = PegasosState.start(n_problems, width)
        layout = self._intercept_layout()
        monitor = StreamMonitor(
            source=source, classes=classes, total=plan.n_iter, k=plan.batch_size,
            layout=layout, holdout=holdout, patience=stream.n_iter_no_change,
            verbose=self.verbose, callback=self.callback)
        done = fit_stream(source, problems, plan, state, layout, monitor)
        monitor.finish(state, done)
        coef, intercept = state.coef_intercept(layout)
        set_fitted(self, classes=classes, coef=coef, intercept=intercept, lam=plan.lam,
                   t=int(state.t.max() - 1), n_iter=done, state=state,
                   history=[new_history() for _ in range(n_problems)])
        self.n_rows_read_ = source.rows_read
        if holdout is not None:
            self.holdout_errors_ = np.array(monitor.errors, dtype=np.float64).reshape(-1, 2)
        check_finite_fit(self)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One epoch of Pegasos over the given batch, continuing the step counter.

        Runs ``ceil(n_epochs * n / batch_size)`` iterations on ``(X, y)``
        (``n_epochs`` defaults to 1 here; ``n_iter`` is used when set).  The
        step counter ``t_`` continues across calls, so a stream of batches is
        solved as one Pegasos run.  With ``average=True`` the average runs
        over all calls' iterates; with a float ``average`` (suffix averaging)
        it covers the last fraction of this call's iterates.

        ``lam`` must be given: ``C`` (and the default ``C = 1``) mean
        ``lam = 1 / (C n)``, and a stream of batches has no fixed n.
        No certificate is computed (Pegasos' dual coefficients refer to one
        training set); call :meth:`duality_gap` on the data you care about.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The batch's rows, as :meth:`fit` takes them.
        y : array-like of shape (n_samples,)
            Their labels, among ``classes``.
        classes : array-like of shape (n_classes,), default=None
            All the classes that will ever appear; required on the first call.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the samples' losses.

        Returns
        -------
        self : object
            The estimator, one batch further.
        """
        first = not hasattr(self, "classes_")
        if first:
            self._more_validate_params(partial=True)
        X, y = self._validate_xy(X, y, reset=first)
        if first:
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit.")
            classes = np.unique(classes)
            check_two_classes(classes)
            self.classes_ = classes
        elif classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(
                f"classes={np.unique(classes).tolist()} is not the same as on the first "
                f"call to partial_fit: {self.classes_.tolist()}."
            )
        unseen = np.setdiff1d(y, self.classes_)
        if unseen.size:
            raise ValueError(
                f"y has labels {unseen.tolist()} that are not in classes {self.classes_.tolist()}."
            )
        sw = self._loss_weights(X, y, sample_weight)
        if first:
            self.lam_ = resolve_lam(self.lam, None, None)  # partial_fit needs lam
        # the batch's own budget: n_iter, or n_epochs (default 1) passes over it
        plan = make_plan(
            lam=self.lam_, C=None, n=X.shape[0], n_iter=self.n_iter,
            n_epochs=self.n_epochs or 1.0, batch_size=self.batch_size, average=self.average,
            radius2=None, projection=self.projection, weights=sw,
            random_state=self.random_state, n_problems=len(binary_targets(self.classes_, y)),
        )
        self.plan_ = plan
        self._solve(X, y, sw, plan, reset=first or not hasattr(self, "state_"),
                    keep_alpha=False)
        check_finite_fit(self)
        return self

    def fit_plan(self, n_samples, n_classes=2, sample_weight=None):
        """The :class:`~pegasos._base.FitPlan` that :meth:`fit` runs on ``n_samples`` samples.

        Lambda, the iterations T, the batch size, how many last iterates are
        averaged, the projection radius and one seed per one-vs-rest problem,
        resolved from the parameters exactly as :meth:`fit` resolves them (the
        fitted estimator keeps its plan as ``plan_``).

        Parameters
        ----------
        n_samples : int
            Training rows.
        n_classes : int, default=2
            Classes (one problem for two, one per class otherwise).
        sample_weight : array-like of shape (n_samples,), default=None
            The loss weights, which set the default budget and the radius.

        Returns
        -------
        FitPlan
            The resolved plan.

        Examples
        --------
        >>> from pegasos import PegasosClassifier
        >>> plan = PegasosClassifier(n_epochs=2, batch_size=4).fit_plan(1000)
        >>> plan.lam, plan.n_iter, plan.avg_start(1)
        (0.001, 500, 251)
        """
        weights = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        return make_plan(
            lam=self.lam, C=self.C, n=n_samples, n_iter=self.n_iter, n_epochs=self.n_epochs,
            batch_size=self.batch_size, average=self.average, radius2=None,
            projection=self.projection, weights=weights, random_state=self.random_state,
            n_problems=1 if n_classes == 2 else n_classes,
        )

    def decision_function(self, X):
        """Signed distance to the hyperplane of each one-vs-rest problem.

        Sparse input is checked for a consistent structure first (a malformed
        CSR matrix is a ``ValueError``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes, positive for ``classes_[1]``; otherwise one
            column per one-vs-rest problem.
        """
        check_sparse_structure(X)
        with np.errstate(over="ignore", invalid="ignore"):  # reported as a ValueError
            scores = super().decision_function(X)
        return check_finite_scores(scores)

    def duality_gap(self, X, y, sample_weight=None):
        """Primal objective and duality-gap certificate of the fitted model on (X, y).

        Computed with the fitted ``lam_`` and the estimator's intercept
        settings (see :mod:`pegasos.objective`).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows of the problem, usually the training rows.
        y : array-like of shape (n_samples,)
            Their labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples' losses, as given to ``fit``.

        Returns
        -------
        list of DualityGap
            One per binary problem (one for two classes, one per class
            one-vs-rest otherwise); ``gap`` bounds ``P(w) - P*`` from above on
            this data.
        """
        check_is_fitted(self)
        X, y = self._validate_xy(X, y, reset=False)
        check_known_labels(y, self.classes_)
        sw = self._loss_weights(X, y, sample_weight)
        rows = as_rows(X)
        targets = self._binary_targets(y)
        self.state_.check(len(targets), X.shape[1])
        layout = self._intercept_layout()
        sqnorms = SquaredNorms(rows, layout.bias_feature, now=True)
        with np.errstate(over="ignore", invalid="ignore"):
            return [finite_gap(certificate(Problem(rows, target, sw, self.lam_, layout, sqnorms),
                                           self.state_, c))
                    for c, target in enumerate(targets)]

    # ------------------------------------------------------------ internals

    def _validate_xy(self, X, y, reset):
        """The input contract: float64, C-ordered dense or CSR (int32/int64 indices kept)."""
        check_sparse_structure(X)
        X, y = validate_data(
            self,
            X,
            y,
            accept_sparse="csr",
            dtype=np.float64,
            order="C",
            accept_large_sparse=True,
            reset=reset,
        )
        check_classification_targets(y)
        return X, y

    def _more_validate_params(self, partial):
        check_exclusive_params(self)
        if not partial:
            return
        if self.probability:
            raise ValueError(
                "probability=True needs fit: its sigmoids are fitted by cross-validation on "
                "the whole training set, which partial_fit does not see."
            )
        if self.C is not None:
            raise ValueError(
                "partial_fit needs lam, not C: C fixes lam = 1 / (C * n_samples), and a "
                "stream of batches has no fixed n_samples."
            )
        if self.class_weight == "balanced":
            raise ValueError(
                "class_weight='balanced' needs the class counts of the whole training "
                "set, which partial_fit does not see; pass a dict of class weights."
            )

    def _can_continue(self, classes, n_features, lam):
        return (
            hasattr(self, "state_")
            and np.array_equal(classes, self.classes_)
            and n_features == self.n_features_in_
            and lam == self.lam_
        )

    def _loss_weights(self, X, y, sample_weight):
        return loss_weights(X, y, sample_weight, self.class_weight, self.classes_)

    def _binary_targets(self, y):
        return binary_targets(self.classes_, y)

    def _intercept_layout(self):
        """(bias_feature, unregularised?) for the kernels."""
        if not self.fit_intercept:
            return Layout(0.0, False)
        if self.intercept_mode == "augment":
            return Layout(float(self.intercept_scaling), False)
        return Layout(0.0, True)

    def _solve(self, X, y, sw, plan, reset, keep_alpha):
        """Run ``plan`` on every binary problem from ``state_`` (new when ``reset``)."""
        rows = as_rows(X)
        n_problems, d = len(positive_classes(self.classes_)), X.shape[1]
        # each problem's targets and, with keep_alpha, dual coefficients (and their average),
        # one per row; its weights, their average and coef_, one per feature
        per_row, per_feature = (3 if keep_alpha else 1), 3
        check_memory(8 * n_problems * (per_row * rows.n_rows + per_feature * (d + 1)),
                     f"{type(self).__name__}'s {n_problems} binary problem"
                     f"{'s' * (n_problems > 1)} on {rows.n_rows} rows and {d} features "
                     f"({per_row} values per row and {per_feature} per feature each, 8 bytes a "
                     "value)")
        targets = self._binary_targets(y)
        layout = self._intercept_layout()
        state = PegasosState.start(n_problems, d) if reset else self.state_
        if not reset:  # a continued fit's state may have been loaded or set by hand: check it
            state.check(n_problems, d)
        history = self.objective_history_ if not reset and hasattr(
            self, "objective_history_") else [new_history() for _ in range(n_problems)]
        state.keep_alpha(rows.n_rows if keep_alpha else 0)
        if plan.n_average:  # suffix averaging: this call's last iterates only
            state.restart_average()
        check_first_step(rows, sw, plan.lam, plan.batch_size, layout.bias_feature)
        monitor = Monitor(
            n_problems=n_problems, total=plan.n_iter, layout=layout, tol=self.tol,
            track=self.track_objective, check_every=self.check_every, verbose=self.verbose,
            callback=self.callback, history=history)
        sqnorms = SquaredNorms(rows, layout.bias_feature, now=n_problems > 1 or monitor.checking)
        calls = [(rows, targets[c], sw, plan, state, c, monitor) for c in range(n_problems)]
        options = dict(layout=layout, sampling=self.sampling, init=self.init, sqnorms=sqnorms)
        if n_problems == 1 or self.n_jobs in (None, 1):
            done = [fit_binary(*call, **options) for call in calls]
        else:  # the compiled solver releases the GIL
            # (no more threads than problems: joblib starts every thread it is given)
            threads = max(1, min(effective_n_jobs(self.n_jobs), n_problems))
            done = Parallel(n_jobs=threads, prefer="threads")(
                delayed(fit_binary)(*call, **options) for call in calls)
        # No certificate unless asked for (tol, track_objective): at the end of a
        # default fit it would cost 16-50% of the fit on the benchmark sets
        # (benchmarks/results/certificate.md), above the 10% that pays.
        coef, intercept = state.coef_intercept(layout)
        set_fitted(self, classes=self.classes_, coef=coef, intercept=intercept, lam=self.lam_,
                   t=int(state.t.max() - 1), n_iter=max(done), state=state,
                   history=monitor.histories(), gaps=monitor.gaps)
        if self.tol is not None:
            warn_unconverged(monitor.gaps, self.tol, plan.n_iter)
