""":class:`KernelPegasosClassifier`: kernelized Pegasos, run on the blocked engine."""

from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._base import PEGASOS_CONSTRAINTS, check_exclusive_params, describe_lambda, make_plan
from ._budget import BUDGET_CONSTRAINTS, average_of, has_budget
from ._kernel_base import _documented, _KernelClassifier, _ResponseSolver
from ._sklearn_private import StrOptions, _fit_context
from ._solvers import kernel_pegasos as _kp


@_documented
class KernelPegasosClassifier(_ResponseSolver):
    r"""Kernelized Pegasos: the Pegasos iteration in an RKHS, without a dual solver.

    The iterate is kept as :math:`w = s\sum_l a_l\phi(x_l)`: the Pegasos
    step :math:`w \leftarrow (1 - 1/t)w + \frac{1}{\lambda t k}\sum s_i y_i
    \phi(x_i)` over the margin violators scales ``s`` and adds to the
    violators' coefficients, exactly the linear algorithm of
    :class:`~pegasos.PegasosClassifier` (with a linear kernel and no
    intercept the two give the same model).  The coefficients are the
    paper's violation counts, scaled.  Every training point's response
    :math:`\langle w, \phi(x_j)\rangle` is kept (the drawn ones current, all
    of them brought up to date once per chunk of about 256 draws), so a margin
    costs nothing and each violator costs one kernel column (n evaluations;
    a chunk's columns are one matrix product);
    :math:`\|w\|^2` follows from the response and :math:`K(x_i, x_i)`, so the
    projection onto the ball of radius :math:`\sqrt{\bar s/\lambda}` is
    sound and cheap, and so is averaging the coefficients (lazily, O(1) per
    violation).  A training set of at most 2,048 rows computes its whole
    kernel matrix once (NumPy's BLAS) and steps on it, every response current
    after each step: the same iterates up to rounding, and a first fit that
    compiles in seconds (the solvers for larger sets, on the blocked engine,
    compile once per kind of rows for 20-40 s; ``pegasos compile`` compiles
    them ahead).

    Parameters
    ----------
    lam : float > 0, default=None
        The regularisation :math:`\lambda`.  Give ``lam`` or ``C``, not both.
    C : float > 0, default=None
        SVC's ``C``: :math:`\lambda = 1/(C n)`.  When neither is given,
        ``C = 1``, as in ``SVC``.
    kernel : {"rbf", "linear", "poly", "sigmoid", "precomputed"}, default="rbf"
        As in :class:`sklearn.svm.SVC`.
    gamma : {"scale", "auto"} or float > 0, default="scale"
        As in :class:`sklearn.svm.SVC` (resolved in ``gamma_``).
    coef0 : float, default=0.0
        The constant of poly and sigmoid.
    degree : int, default=3
        The degree of poly.
    n_iter : int >= 1, default=None
        The budget in iterations of ``batch_size`` examples each.  When
        neither ``n_iter`` nor ``n_epochs`` is given, :math:`\lceil
        10/(\lambda k)\rceil` iterations: :math:`10/\lambda` examples drawn,
        10 C passes.
    n_epochs : float > 0, default=None
        The budget in passes over the data instead.
    batch_size : int, default=16
        The examples drawn per iteration, k (the Pegasos paper's mini-batch step, all
        judged with :math:`w_t`).  The violators of a chunk of about 256
        draws, over every one-vs-rest problem, cost one pass over the data for
        all their kernel columns, whatever k.  Measured on 10,000
        Fashion-MNIST rows (10 classes, C = 10): about the same test accuracy
        per example drawn for k = 1 and k = 16 (85.5% and 85.3% after 2
        passes, in 4.7 s and 3.5 s); k = 32 and 64 lost 1.5 and 10 points at
        2 passes (docs/journal/kernel_engine.md).
    sampling : {"uniform", "permutation", "cyclic"}, default="uniform"
        How examples are drawn: independently, by a fresh permutation per
        pass, or in order.
    projection : bool, default=True
        Project onto the ball of radius :math:`\sqrt{\bar s/\lambda}` after
        each step (the paper's optional step).
    average : bool, float in (0, 1] or "auto", default="auto"
        Last iterate, average of all iterates, or of the last fraction.
        ``"auto"``: the last half (0.5) without a ``budget``, the last iterate
        with one (see ``budget``).
    fit_intercept : bool, default=True
        Adds ``intercept_scaling**2`` to the kernel (a constant feature of the
        feature map, regularised like the rest, as LIBLINEAR's ``-B``).
    intercept_scaling : float > 0, default=1.0
        The constant feature's value.
    class_weight : dict or "balanced", default=None
        As in :class:`sklearn.svm.SVC`: multiplies each class's losses.
    cache_size : float >= 0, default=200.0
        Deprecated, no effect (a warning when set): the blocked engine
        computes the columns of a whole mini-batch at once.  Removed in 0.3.
    random_state : int, RandomState instance or None, default=None
        Seeds the draws: the same seed gives the same model, bit for bit.
    probability : bool, default=False
        Also fit ``predict_proba``, as ``SVC(probability=True)``: Platt's
        sigmoid of 5-fold cross-validated decision values (five more fits of
        80% of the data); the sigmoids are ``probA_``, ``probB_``.
    __CALLBACK_PARAMETER__
    __BUDGET_PARAMETERS__

    Attributes
    ----------
    support_, support_vectors_, dual_coef_, intercept_, n_support_
        As :class:`sklearn.svm.SVC` (binary); one-vs-rest rows otherwise.
    classes_ : ndarray
    n_iter_ : int
        Iterations per binary problem.
    gamma_ : float
        The kernel coefficient used ("scale"/"auto" resolved as in SVC).
    n_kernel_evals_ : int
        Kernel evaluations during training (n per violation, summed over the
        problems; the n diagonal values once).  A training set of at most
        2,048 rows computes its whole kernel matrix once, n^2 values, and the
        solver then reads it: n^2.

    See Also
    --------
    SBPClassifier : The Stochastic Batch Perceptron on the same engine.
    KernelPerceptron : The mistake-driven special case.
    PegasosClassifier : Linear Pegasos, O(nnz) per example.
    DualSVC : SVC's model, exactly, on the same engine.
    sklearn.svm.SVC : LIBSVM's exact solver of the same problem.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from pegasos import KernelPegasosClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> X = X / 16                                  # pixels in [0, 1]
    >>> clf = KernelPegasosClassifier(C=10, random_state=0).fit(X[:1000], y[:1000])
    >>> clf.dual_coef_.shape[0], round(clf.score(X[1000:], y[1000:]), 1) >= 0.9
    (10, True)
    """

    _parameter_constraints: dict = {
        **_KernelClassifier._parameter_constraints,
        **PEGASOS_CONSTRAINTS,
        **BUDGET_CONSTRAINTS,
        "average": [*PEGASOS_CONSTRAINTS["average"], StrOptions({"auto"})],
    }

    def __init__(
        self, lam=None, *, C=None, kernel="rbf", gamma="scale", coef0=0.0, degree=3,
        n_iter=None, n_epochs=None, batch_size=16, sampling="uniform", projection=True,
        average="auto", fit_intercept=True, intercept_scaling=1.0, class_weight=None,
        cache_size=200.0, random_state=None,
        probability=False, callback=None, budget=None, budget_strategy="merge",
    ):
        self.budget = budget
        self.budget_strategy = budget_strategy
        self.probability = probability
        self.callback = callback
        self.cache_size = cache_size
        self.lam = lam
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.coef0 = coef0
        self.degree = degree
        self.n_iter = n_iter
        self.n_epochs = n_epochs
        self.batch_size = batch_size
        self.sampling = sampling
        self.projection = projection
        self.average = average
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.random_state = random_state

    def _describe_regularisation(self):
        """The regularisation the model was trained with, as ``pegasos info`` prints it."""
        return describe_lambda(self)

    @_documented
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Fit by ``n_iter`` kernel Pegasos iterations per one-vs-rest problem.

        Every one-vs-rest problem is trained at once, from one stream of draws.

        __FIT_PARAMETERS__
        """
        check_exclusive_params(self)
        return self._fit(X, y, sample_weight, _kp.PEGASOS)

    @available_if(has_budget)
    @_documented
    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        r"""Online learning with a budget: one pass of ``sampling`` over (X, y), the
        budget's points, coefficients and step counter continued from the last call.

        Available with ``budget`` set.  Needs ``lam`` (``C`` sets
        :math:`\lambda = 1/(C n)`, and an online fit has no fixed n).  A call runs
        ``ceil(n / batch_size)`` iterations (``n_epochs`` passes or ``n_iter``
        iterations when set); every iterate since the first call is averaged
        (``average=False``: the last iterate).  ``gamma="scale"`` is resolved on the
        first call's rows.

        __PARTIAL_FIT_PARAMETERS__
        """
        check_exclusive_params(self)
        return self._partial_fit(X, y, classes, sample_weight, _kp.PEGASOS)

    @_documented
    def duality_gap(self, X, y, sample_weight=None):
        """Primal objective and duality-gap certificate of the fitted model on (X, y).

        The problem is the one the model was fitted for: ``lam_``, the class
        weights and, with ``fit_intercept``, the intercept as a feature of
        value ``intercept_scaling`` (regularised, as in the kernel).  Use it to
        see how far from the SVM's optimum a stochastic fit stopped.

        __GAP_PARAMETERS__
        """
        check_is_fitted(self)
        return self._certificate(X, y, sample_weight, lambda m: self.lam_, self._bias2(), False)

    def _plan(self, n, weights):
        """Budget: 10/lambda examples drawn by default (each iteration costs k columns)."""
        return make_plan(
            lam=self.lam, C=self.C, n=n, n_iter=self.n_iter, n_epochs=self.n_epochs,
            batch_size=self.batch_size, average=average_of(self, 0.5), radius2=None,
            projection=self.projection, weights=weights, random_state=self.random_state,
            n_problems=1, default="examples",
        )
