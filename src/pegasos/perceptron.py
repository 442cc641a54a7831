""":class:`KernelPerceptron`: the (averaged) kernel Perceptron, run on the blocked engine."""

from sklearn.utils.metaestimators import available_if

from ._base import NOT_REGULARISED, check_exclusive_params, constraints_of, make_plan
from ._budget import BUDGET_CONSTRAINTS, average_of, has_budget
from ._kernel_base import _documented, _KernelClassifier, _ResponseSolver
from ._sklearn_private import StrOptions, _fit_context
from ._solvers import kernel_pegasos as _kp

#: The kernel Perceptron's default budget in passes (see its ``n_epochs``).
PERCEPTRON_EPOCHS = 10.0


@_documented
class KernelPerceptron(_ResponseSolver):
    """The kernel Perceptron: add y_i phi(x_i) whenever y_i f(x_i) <= 0.

    The baseline of the SBP paper's experiments.  Runs the same compiled loop
    as :class:`~pegasos.KernelPegasosClassifier` in its Perceptron mode: no
    regularisation, no step size, no projection.  With ``average=True`` it is
    the averaged Perceptron.

    Parameters
    ----------
    __KERNEL_PARAMETERS__
    n_iter : int >= 1, default=None
        Iterations of ``batch_size`` examples (give this or ``n_epochs``).
    n_epochs : float > 0, default=None
        Passes over the data; the default is 10 passes.  Measured against
        ``SVC`` (rbf, C = 1) on ijcnn1, Adult and Fashion-MNIST T-shirt vs
        shirt: the averaged Perceptron's one pass ends 4.05 points below
        SVC's test accuracy on ijcnn1 and 2.0 on Fashion-MNIST; 10 passes end
        0.01 to 0.17 point above it on all three, in 0.22x to 0.34x SVC's fit
        time (docs/journal/kernel_solvers.md).  Later passes cost less than the
        first: only mistakes cost kernel columns.
    batch_size : int >= 1, default=16
        Examples judged per iteration with the same iterate; the mistakes of a
        batch, over every one-vs-rest problem, cost one block of kernel
        columns (1 is the classic Perceptron).
    sampling : {"permutation", "uniform", "cyclic"}, default="permutation"
    average : bool or "auto", default="auto"
        The averaged Perceptron (the average of all iterates), or the last
        iterate.  ``"auto"``: averaged (True) without a ``budget``, the last
        iterate with one (see ``budget``).  Measured on scikit-learn's blob check (binary, one epoch):
        averaged 0.97 training accuracy for every seed, last iterate 0.825 to
        0.975 depending on the seed.
    fit_intercept : bool, default=True
        Adds ``intercept_scaling**2`` to the kernel.
    intercept_scaling : float > 0, default=1.0
        The constant feature's value.
    class_weight : dict or "balanced", default=None
        Multiplies ``sample_weight``, as in :class:`sklearn.svm.SVC`.
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
    support_, support_vectors_, dual_coef_, intercept_, n_support_, classes_,
    n_iter_, n_kernel_evals_ : as :class:`~pegasos.KernelPegasosClassifier`

    See Also
    --------
    KernelPegasosClassifier : The regularised, projected variant.
    sklearn.linear_model.Perceptron : The linear Perceptron.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from pegasos import KernelPerceptron
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = KernelPerceptron(random_state=0).fit(X[:1000] / 16, y[:1000])
    >>> round(clf.score(X[1000:] / 16, y[1000:]), 1) >= 0.9
    True
    """

    _STREAM_PASSES = PERCEPTRON_EPOCHS

    _parameter_constraints: dict = {
        **_KernelClassifier._parameter_constraints,
        **constraints_of("n_iter", "n_epochs", "batch_size", "sampling", "fit_intercept",
                         "intercept_scaling", "class_weight",
                         average=["boolean", StrOptions({"auto"})]),
        **BUDGET_CONSTRAINTS,
    }

    def __init__(
        self, *, kernel="rbf", gamma="scale", coef0=0.0, degree=3, n_iter=None, n_epochs=None,
        batch_size=16, sampling="permutation", average="auto", fit_intercept=True,
        intercept_scaling=1.0, class_weight=None, cache_size=200.0, random_state=None,
        probability=False, callback=None, budget=None, budget_strategy="merge",
    ):
        self.budget = budget
        self.budget_strategy = budget_strategy
        self.batch_size = batch_size
        self.class_weight = class_weight
        self.probability = probability
        self.callback = callback
        self.cache_size = cache_size
        self.kernel = kernel
        self.gamma = gamma
        self.coef0 = coef0
        self.degree = degree
        self.n_iter = n_iter
        self.n_epochs = n_epochs
        self.sampling = sampling
        self.average = average
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.random_state = random_state

    def _describe_regularisation(self):
        """The regularisation the model was trained with, as ``pegasos info`` prints it."""
        return {"text": NOT_REGULARISED}

    @_documented
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Run ``n_epochs`` Perceptron passes, every one-vs-rest problem at once.

        A mistake on example i adds s_i y_i phi(x_i), with s_i its
        ``sample_weight`` times its ``class_weight``.

        __FIT_PARAMETERS__
        """
        check_exclusive_params(self)
        return self._fit(X, y, sample_weight, _kp.PERCEPTRON)

    @available_if(has_budget)
    @_documented
    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Online learning with a budget: one pass of ``sampling`` over (X, y), the
        budget's points and coefficients continued from the last call.

        Available with ``budget`` set.  A call runs ``ceil(n / batch_size)``
        iterations (``n_epochs`` passes or ``n_iter`` iterations when set); with
        ``average=True`` every iterate since the first call is averaged.

        __PARTIAL_FIT_PARAMETERS__
        """
        check_exclusive_params(self)
        return self._partial_fit(X, y, classes, sample_weight, _kp.PERCEPTRON)

    def _plan(self, n, weights):
        """10 passes by default, no projection; lambda is unused in Perceptron mode."""
        return make_plan(
            lam=1.0, C=None, n=n, n_iter=self.n_iter, n_epochs=self.n_epochs,
            batch_size=self.batch_size, average=average_of(self, True), radius2=0.0,
            random_state=self.random_state, n_problems=1, default=("epochs", PERCEPTRON_EPOCHS),
        )
