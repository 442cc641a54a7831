"""Linear Pegasos: :class:`PegasosClassifier`."""

import math
import time
import warnings
from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state, compute_class_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ._numba import linear as _k
from ._probability import ProbabilityMixin
from ._rows import as_rows, check_sparse_structure
from ._sampling import SAMPLING_MODES, IndexStream
from ._sklearn_private import (
    Interval,
    LinearClassifierMixin,
    StrOptions,
    _check_sample_weight,
    _fit_context,
)
from .objective import gap_from_rows

# Examples drawn per compiled call when nothing needs checking between calls:
# large enough that Python's overhead per call vanishes (~0.3 ns per example),
# small enough that the index buffer (512 KiB) stays in cache (measured: 4 MiB
# blocks cost ~4 ns more per example on a9a).
_BLOCK_DRAWS = 1 << 16


#: The constraints of the parameters that linear and kernel Pegasos share.
PEGASOS_CONSTRAINTS: dict = {
    "lam": [Interval(Real, 0, None, closed="neither"), None],
    "C": [Interval(Real, 0, None, closed="neither"), None],
    "n_iter": [Interval(Integral, 1, None, closed="left"), None],
    "n_epochs": [Interval(Real, 0, None, closed="neither"), None],
    "batch_size": [Interval(Integral, 1, None, closed="left")],
    "sampling": [StrOptions(set(SAMPLING_MODES))],
    "projection": ["boolean"],
    "average": ["boolean", Interval(Real, 0, 1, closed="right")],
    "fit_intercept": ["boolean"],
    "intercept_scaling": [Interval(Real, 0, None, closed="neither")],
    "class_weight": [dict, StrOptions({"balanced"}), None],
}


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
        ``SGDClassifier``).  None means 1e-4, unless ``C`` is given.
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
        examples -- the 1/(lambda t) schedule needs T itself to grow.)
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
        1`).
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
        ``check_every`` epochs when checking) with one dict: ``problem`` and
        ``n_problems`` (the one-vs-rest problem), ``t`` (iterations so far),
        ``iterations`` and ``iterations_total`` (of this call), ``seconds``
        (solver time), ``coef`` and ``intercept`` (the current output model)
        and ``gap`` (a DualityGap at checks, else None).  Used by the command
        line for its progress bar and its test error during training.
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
        ``track_objective`` is set, else None (call :meth:`duality_gap`).
    objective_history_ : list of dict
        With ``track_objective``: per binary problem, arrays ``t``,
        ``primal``, ``dual`` and ``time`` (solver seconds) at each check.
    n_features_in_ : int
    feature_names_in_ : ndarray of str

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
        "tol": [Interval(Real, 0, None, closed="neither"), None],
        "check_every": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
        "warm_start": ["boolean"],
        "track_objective": ["boolean"],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
        "callback": [callable, None],
        "probability": ["boolean"],
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

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the model by ``n_iter`` (or ``n_epochs``) Pegasos iterations.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Dense (C- or F-ordered, any float dtype) or sparse; CSR with int32
            or int64 indices is used without conversion.
        y : array-like of shape (n_samples,)
            Labels of any type; at least two classes.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the samples' losses.

        Returns
        -------
        self : object
        """
        self._more_validate_params(partial=False)
        X, y = self._validate_xy(X, y, reset=True)
        classes = np.unique(y)
        check_two_classes(classes)
        n = X.shape[0]
        lam = self._effective_lam(n)
        keep = self.warm_start and self._can_continue(classes, X.shape[1], lam)
        if not keep:
            self.classes_ = classes
            self.lam_ = lam
        sw = self._loss_weights(X, y, sample_weight)
        T = self._budget(n)
        self._solve(X, y, sw, T, reset=not keep, suffix=self._suffix_fraction(), keep_alpha=True)
        return self._fit_probability(X, y, sample_weight)

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One epoch of Pegasos over the given batch, continuing the step counter.

        Runs ``ceil(n_epochs * n / batch_size)`` iterations on ``(X, y)``
        (``n_epochs`` defaults to 1 here; ``n_iter`` is used when set).  The
        step counter ``t_`` continues across calls, so a stream of batches is
        solved as one Pegasos run.  With ``average=True`` the average runs
        over all calls' iterates; with a float ``average`` (suffix averaging)
        it covers the last fraction of this call's iterates.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            All the classes that will ever appear; required on the first call.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : object
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
            self.lam_ = self._effective_lam(None)
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
        T = self.n_iter or math.ceil(
            (self.n_epochs or 1.0) * X.shape[0] / batch_for(self.batch_size, X.shape[0])
        )
        self._solve(X, y, sw, T, reset=first, suffix=self._suffix_fraction(), keep_alpha=False)
        return self

    def decision_function(self, X):
        """Signed distance to the hyperplane of each one-vs-rest problem.

        Shape (n_samples,) for two classes (positive for ``classes_[1]``),
        else (n_samples, n_classes).  Sparse input is checked for a consistent
        structure first (a malformed CSR matrix is a ``ValueError``).
        """
        check_sparse_structure(X)
        with np.errstate(over="ignore", invalid="ignore"):  # reported as a ValueError
            scores = super().decision_function(X)
        return check_finite_scores(scores)

    def duality_gap(self, X, y, sample_weight=None):
        """Primal objective and duality-gap certificate of the fitted model on (X, y).

        Returns one :class:`pegasos.objective.DualityGap` per binary problem
        (one for two classes, one per class one-vs-rest otherwise), computed
        with the fitted ``lam_`` and the estimator's intercept settings.
        ``gap`` bounds ``P(w) - P*`` from above on this data.
        """
        check_is_fitted(self)
        X, y = self._validate_xy(X, y, reset=False)
        sw = self._loss_weights(X, y, sample_weight)
        rows = as_rows(X)
        bias_feature, unreg = self._intercept_layout()
        out = []
        for c, y_pm in enumerate(self._binary_targets(y)):
            w, b = self._output_model(c)
            alpha = self._pegasos_alpha(c, y_pm)
            out.append(gap_from_rows(rows, y_pm, sw, self.lam_, w, bias_feature, b, unreg, alpha))
        return out

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
        if partial and self.probability:
            raise ValueError(
                "probability=True needs fit: its sigmoids are fitted by cross-validation on "
                "the whole training set, which partial_fit does not see."
            )
        if partial:
            if self.C is not None:
                raise ValueError(
                    "partial_fit needs lam: C fixes lam = 1 / (C * n_samples), and a "
                    "stream of batches has no fixed n_samples."
                )
            if self.class_weight == "balanced":
                raise ValueError(
                    "class_weight='balanced' needs the class counts of the whole training "
                    "set, which partial_fit does not see; pass a dict of class weights."
                )

    def _suffix_fraction(self):
        if isinstance(self.average, (bool, np.bool_)):
            return None
        return float(self.average)

    def _budget(self, n):
        if self.n_iter is not None:
            return int(self.n_iter)
        if self.n_epochs is not None:
            return max(1, math.ceil(self.n_epochs * n / batch_for(self.batch_size, n)))
        return max(1, math.ceil(10.0 / self.lam_))

    def _can_continue(self, classes, n_features, lam):
        return (
            hasattr(self, "_v")
            and np.array_equal(classes, self.classes_)
            and n_features == self.n_features_in_
            and lam == self.lam_
        )

    def _effective_lam(self, n):
        """lambda from ``C`` (needs n), from ``lam``, or the default 1e-4."""
        if self.C is not None:
            return 1.0 / (self.C * n)
        return 1e-4 if self.lam is None else float(self.lam)

    def _loss_weights(self, X, y, sample_weight):
        return loss_weights(X, y, sample_weight, self.class_weight, self.classes_)

    def _binary_targets(self, y):
        return binary_targets(self.classes_, y)

    def _intercept_layout(self):
        """(bias_feature, unregularised?) for the kernels."""
        if not self.fit_intercept:
            return 0.0, False
        if self.intercept_mode == "augment":
            return float(self.intercept_scaling), False
        return 0.0, True

    def _output_model(self, c):
        """(w of length d+1, unregularised b) of binary problem c: averaged or last."""
        v, u, s = self._v[c], self._u[c], self._scal[c]
        if s[_k.N_AVG] > 0:
            return (u + s[_k.BETA] * v) / s[_k.N_AVG], s[_k.BIAS_SUM] / s[_k.N_AVG]
        return s[_k.A] * v, s[_k.BIAS]

    def _pegasos_alpha(self, c, y_pm):
        """Pegasos' implicit dual vector for the output model of problem c (or None)."""
        gamma = self._gamma[c]
        if gamma.shape[0] != y_pm.shape[0]:
            return None
        s = self._scal[c]
        if s[_k.N_AVG] > 0:
            coef = (self._ugamma[c] + s[_k.BETA] * gamma) / s[_k.N_AVG]
        else:
            coef = s[_k.A] * gamma
        return self.lam_ * len(y_pm) * coef * y_pm

    def _solve(self, X, y, sw, T, reset, suffix, keep_alpha):
        rows = as_rows(X)
        targets = self._binary_targets(y)
        n_problems = len(targets)
        d = X.shape[1]
        bias_feature, unreg = self._intercept_layout()
        radius2 = float(np.mean(sw)) / self.lam_ if self.projection else 0.0
        rng = check_random_state(self.random_state)
        seeds = rng.randint(np.iinfo(np.int32).max, size=n_problems)
        checking = self.tol is not None or self.track_objective
        if reset:
            self._v = np.zeros((n_problems, d + 1))
            self._u = np.zeros((n_problems, d + 1))
            self._scal = np.zeros((n_problems, _k.N_SCALARS))
            self._scal[:, _k.A] = 1.0
            self._t = np.ones(n_problems, dtype=np.int64)
            self._gamma = self._ugamma = np.zeros((n_problems, 0))
            self.objective_history_ = [
                {"t": [], "primal": [], "dual": [], "time": []} for _ in range(n_problems)
            ]
        else:  # a continued run extends its history
            self.objective_history_ = [
                {key: list(val) for key, val in hist.items()} for hist in self.objective_history_
            ]
        self.duality_gap_ = [None] * n_problems if checking else None
        n_alpha = rows.n_rows if keep_alpha else 0
        if self._gamma.shape[1] != n_alpha:
            # Pegasos' dual coefficients refer to the rows of one training set.
            self._gamma = np.zeros((n_problems, n_alpha))
            self._ugamma = np.zeros((n_problems, n_alpha))
        if suffix is not None:
            # Suffix averaging restarts the average for this fit's last iterates.
            self._ugamma[:] = 0.0
            self._u[:] = 0.0
            self._scal[:, [_k.BETA, _k.N_AVG, _k.BIAS_SUM, _k.N_FOLD]] = 0.0
        # ||x_i||^2 + bias_feature^2, filled block by block for the rows drawn
        # until an epoch's worth of draws, then all at once (a short run never
        # touches most rows, so its cost does not grow with n; a long one
        # stops checking).  Filled up front when one-vs-rest problems share it
        # across threads, and when a certificate, which needs every row, is due.
        k = batch_for(self.batch_size, rows.n_rows)
        _check_first_step(rows, sw, self.lam_, k, bias_feature)
        sqnorm = np.full(rows.n_rows, -1.0)
        # [all filled, draws so far]; one list shared by the problems' runs
        norms_done = [n_problems > 1 or checking, 0]
        if norms_done[0]:
            _k.fill_sqnorms(rows.kernel, sqnorm, bias_feature)
        per_epoch = math.ceil(rows.n_rows / k)
        block = max(1, round(self.check_every * per_epoch)) if checking else max(1, _BLOCK_DRAWS // k)

        def _report(c, t, done, elapsed, gap):
            if self.callback is None:
                return
            w, b = self._output_model(c)
            self.callback(
                {
                    "problem": c,
                    "n_problems": n_problems,
                    "t": int(t - 1),
                    "iterations": int(done),
                    "iterations_total": int(T),
                    "seconds": elapsed,
                    "coef": w[:d].copy(),
                    "intercept": float(w[d] * bias_feature + b),
                    "gap": gap,
                }
            )

        def run(c):
            v, u, scal, hist = self._v[c], self._u[c], self._scal[c], self.objective_history_[c]
            gamma, ugamma = self._gamma[c], self._ugamma[c]
            seed_rng = np.random.default_rng(seeds[c])
            if reset and self.init == "random":
                _random_init(v, scal, radius2 or 1.0 / self.lam_, bias_feature, unreg, seed_rng)
            t0 = int(self._t[c])
            if suffix is None:
                avg_start = 1 if self.average else np.iinfo(np.int64).max
            else:
                avg_start = t0 + T - max(1, math.ceil(suffix * T))
            stream = IndexStream(self.sampling, rows.n_rows, seed_rng)
            t, done, elapsed = t0, 0, 0.0
            while done < T:
                steps = min(block, T - done)
                idx = stream.take(steps * k)
                tic = time.perf_counter()
                if not norms_done[0]:
                    norms_done[1] += idx.shape[0]
                    if norms_done[1] >= rows.n_rows:  # an epoch's worth: fill the rest
                        _k.fill_sqnorms(rows.kernel, sqnorm, bias_feature)
                        norms_done[0] = True
                    else:
                        _k.fill_sqnorms_at(rows.kernel, sqnorm, idx, bias_feature)
                t = _k.pegasos_steps(
                    rows.kernel,
                    targets[c],
                    sw,
                    sqnorm,
                    idx,
                    k,
                    t,
                    self.lam_,
                    bias_feature,
                    unreg,
                    radius2,
                    avg_start,
                    v,
                    u,
                    gamma,
                    ugamma,
                    scal,
                )
                elapsed += time.perf_counter() - tic
                done += steps
                check_finite_weights(f"iteration {t - 1}", v, scal)
                if checking:
                    w, b = self._output_model(c)
                    alpha = self._pegasos_alpha(c, targets[c])
                    gap = gap_from_rows(
                        rows, targets[c], sw, self.lam_, w, bias_feature, b, unreg, alpha, sqnorm
                    )
                    self.duality_gap_[c] = gap
                    if self.track_objective:
                        for key, val in zip(
                            ("t", "primal", "dual", "time"), (t - 1, gap.primal, gap.dual, elapsed)
                        ):
                            hist[key].append(val)
                    if self.verbose:
                        print(
                            f"[pegasos] problem {c}: t={t - 1} P={gap.primal:.6g} "
                            f"D={gap.dual:.6g} rel.gap={gap.relative_gap:.3g} ({elapsed:.2f}s)"
                        )
                    if self.tol is not None and gap.relative_gap <= self.tol:
                        _report(c, t, done, elapsed, gap)
                        break
                _report(c, t, done, elapsed, gap if checking else None)
            self._t[c] = t
            return done

        if n_problems == 1 or self.n_jobs in (None, 1):
            done = [run(c) for c in range(n_problems)]
        else:
            done = Parallel(n_jobs=self.n_jobs, prefer="threads")(
                delayed(run)(c) for c in range(n_problems)
            )
        self.n_iter_ = int(max(done))
        self.t_ = int(self._t.max() - 1)
        if self.tol is not None:
            _warn_unconverged(self.duality_gap_, self.tol, T)
        for hist in self.objective_history_:
            for key in hist:
                hist[key] = np.asarray(hist[key])
        coef = np.empty((n_problems, d))
        intercept = np.empty(n_problems)
        for c in range(n_problems):
            w, b = self._output_model(c)
            coef[c] = w[:d]
            intercept[c] = w[d] * bias_feature + b
        self.coef_ = coef
        self.intercept_ = intercept


def check_exclusive_params(est):
    """lam and C, and n_iter and n_epochs, are alternatives: at most one of each."""
    if est.lam is not None and est.C is not None:
        raise ValueError(
            f"Give either lam or C, not both (lam={est.lam!r}, C={est.C!r}); "
            "C is converted to lam = 1 / (C * n_samples)."
        )
    if est.n_iter is not None and est.n_epochs is not None:
        raise ValueError(
            f"Give either n_iter (iterations) or n_epochs (passes over the data), "
            f"not both (n_iter={est.n_iter!r}, n_epochs={est.n_epochs!r})."
        )


def loss_weights(X, y, sample_weight, class_weight, classes):
    """s_i = sample_weight[i] * class_weight[y_i] ("balanced": from these y), checked."""
    sw = _check_sample_weight(sample_weight, X, dtype=np.float64)
    if np.any(sw < 0):
        raise ValueError(f"sample_weight must be non-negative; got a minimum of {sw.min():g}.")
    if class_weight is not None:
        cw = compute_class_weight(class_weight, classes=classes, y=y)
        if np.any(cw < 0) or not np.all(np.isfinite(cw)):
            bad = {c.item(): float(w) for c, w in zip(classes, cw) if not w >= 0 or w == np.inf}
            raise ValueError(f"class_weight must be finite and non-negative; got {bad}.")
        sw = sw * cw[np.searchsorted(classes, y)]
    if not np.sum(sw) > 0:
        raise ValueError("The loss weights (sample_weight times class_weight) are all zero.")
    return sw


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
    if len(classes) < 2:
        raise ValueError(
            f"The training data must contain samples of at least 2 classes; "
            f"got only one class: {classes.tolist()[0]!r}."
        )


def _warn_unconverged(gaps, tol, T):
    """A ConvergenceWarning for each problem whose certified gap is still above ``tol``."""
    for c, gap in enumerate(gaps):
        if gap is not None and not gap.relative_gap <= tol:
            which = f" (one-vs-rest problem {c})" if len(gaps) > 1 else ""
            warnings.warn(
                f"Pegasos did not reach tol={tol:g} in {T} iterations{which}: the certified "
                f"relative duality gap is {gap.relative_gap:.3g} (primal {gap.primal:.6g}, dual "
                f"{gap.dual:.6g}). Scale the features (e.g. StandardScaler), raise n_iter or "
                "n_epochs, or increase lam.",
                ConvergenceWarning,
                stacklevel=5,  # the caller of fit (through _fit_context)
            )


def check_finite_scores(scores):
    """Decision values, or a ValueError when any is NaN or infinite (never a prediction)."""
    if not np.all(np.isfinite(scores)):
        raise ValueError(
            "Non-finite decision values: the input's magnitudes overflow the model's "
            "arithmetic. Scale the input as the training data was scaled."
        )
    return scores


def _check_first_step(rows, sw, lam, k, bias_feature):
    """Refuse a lambda so small that the first step, of size 1/lam, overflows ||w||^2."""
    step = float(np.max(sw)) / (lam * k)
    if step < 1e100:  # (1e100)^2 times a squared norm below 1e108 is finite: no need to look
        return
    largest = float(np.max(_k.row_sqnorms(rows.kernel, rows.n_rows), initial=0.0))
    largest += bias_feature**2
    if not np.isfinite(largest):
        raise ValueError(
            "Floating-point overflow in the rows' squared norms (infinite in float64). "
            "Scale the input (e.g. with StandardScaler or MaxAbsScaler)."
        )
    if not np.isfinite(step * step * largest):
        floor = float(np.max(sw)) * math.sqrt(largest) / k / 1e150
        raise ValueError(
            f"lam={lam:.3g} is too small for this data: the first Pegasos step has size "
            f"1/lam, and its squared norm overflows float64. Use lam >= {floor:.3g} (or a "
            "smaller C)."
        )


def check_finite_weights(when, *arrays):
    """Refuse weights that overflowed; ``when`` says where (``"iteration 12"``, ``"round 3"``)."""
    if not all(np.all(np.isfinite(a)) for a in arrays):
        raise ValueError(
            f"Floating-point overflow in the weights by {when}. "
            "Scale the input (e.g. with StandardScaler or MaxAbsScaler) or increase lam."
        )


def _random_init(v, scal, radius2, bias_feature, unreg, rng):
    """A uniform random point of the ball of squared radius ``radius2``."""
    d = v.shape[0] - 1
    dims = d + (1 if bias_feature else 0)
    z = rng.standard_normal(dims)
    r = math.sqrt(radius2) * rng.random() ** (1.0 / dims)
    v[:dims] = z * (r / np.linalg.norm(z))
    scal[_k.A] = 1.0
    scal[_k.WNORM2] = float(v @ v)
