"""What the kernel estimators share (:mod:`pegasos.kernel`, :mod:`pegasos.svc`, ...):
the kernel table by name, the docstrings' shared entries, the fitted model's
prediction and certificate (:class:`_KernelModel`, :class:`_KernelClassifier`) and
the fit of kernel Pegasos and the Perceptron (:class:`_ResponseSolver`)."""

import math
import warnings
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import _safe_indexing
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _num_samples,
    check_consistent_length,
    check_is_fitted,
    validate_data,
)

from ._base import (
    ESTIMATOR_CONSTRAINTS,
    binary_targets,
    check_finite_scores,
    check_known_labels,
    check_two_classes,
    check_weighted_classes,
    drop_fitted,
    loss_weights,
    positive_classes,
)
from ._budget import BUDGET_PARAMETERS, BUDGET_STATE, PARTIAL_FIT_PARAMETERS, _BudgetMixin
from ._memory import check_memory
from ._numba.codes import KERNEL_TABLE
from ._probability import ProbabilityMixin
from ._rows import as_rows, check_sparse_structure, column_products, compact_columns
from ._sampling import IndexStream
from ._sklearn_private import Interval, StrOptions
from ._solvers import kernel_pegasos as _kp
from ._solvers.engine import (
    check_kernel_finite,
    decision_values,
    kernel_of,
    norms_and_diagonal,
)
from ._solvers.gram import training_matrix, use_gram
from ._solvers.report import Report
from .block_stream import BlockStream
from .objective import DualityGap, best_multiple, feasible, finite_gap
from .stream import SVMLightStream

#: Each kernel's code, by name (:data:`pegasos._numba.codes.KERNEL_TABLE`).
KERNELS = {k.name: k.code for k in KERNEL_TABLE}


#: The kernel parameters' entry in the docstrings of the Perceptron and the SBP.
_KERNEL_PARAMETERS = """    kernel : {"rbf", "linear", "poly", "sigmoid", "precomputed"}, default="rbf"
        As in :class:`sklearn.svm.SVC`.
    gamma : {"scale", "auto"} or float >= 0, default="scale"
        The kernel coefficient of rbf, poly and sigmoid, resolved as ``SVC``
        resolves it (``gamma_``).
    coef0 : float, default=0.0
        The constant of poly and sigmoid.
    degree : int >= 0, default=3
        The degree of poly.
"""


#: The ``callback`` parameter's entry in the three estimators' docstrings.
_CALLBACK_PARAMETER = """    callback : callable, default=None
        Called about 20 times per one-vs-rest problem with one
        :class:`~pegasos.Report`: ``problem``, ``n_problems``, ``t`` and
        ``iterations`` (so far), ``iterations_total``, ``kernel_evals`` and
        ``seconds`` (so far, all problems together), ``coef`` (the current
        output coefficients, one per training row) and ``intercept``.  The
        fit is the same with or without it.  Used by ``pegasos train`` for
        its progress bar and, with ``--plot``, its test error curves.
"""

#: The ``shrinking`` and ``verbose`` entries of the working-set estimators' docstrings.
_LIBSVM_FLAGS = """    shrinking : bool, default=True
        Accepted for the API of scikit-learn's LIBSVM estimators, with no
        effect on the model: the working sets do not shrink (LIBSVM's
        shrinking changes its speed, not its model).
    verbose : bool, default=False
        Print a line per problem once it is solved (to standard output, as
        LIBSVM's messages): its iterations, support vectors, LIBSVM's ``rho``
        and the violation left.
"""

#: The ``fit`` methods' Parameters and Returns.
_FIT_PARAMETERS = """        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows (float64 or float32, kept as given; CSR with int32
            or int64 indices), or with ``kernel="precomputed"`` the Gram
            matrix of shape (n_samples, n_samples).
        y : array-like of shape (n_samples,)
            Labels of any type; at least two classes.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the samples' losses.

        Returns
        -------
        self : object
            The fitted estimator.
"""


def _documented(obj):
    """Put the shared docstring parts in place of their markers: :data:`_KERNEL_PARAMETERS`,
    :data:`_CALLBACK_PARAMETER` and :data:`_LIBSVM_FLAGS` in a class's docstring,
    :data:`_FIT_PARAMETERS` in a ``fit`` method's."""
    obj.__doc__ = (obj.__doc__.replace("    __KERNEL_PARAMETERS__\n", _KERNEL_PARAMETERS)
                   .replace("    __CALLBACK_PARAMETER__\n", _CALLBACK_PARAMETER)
                   .replace("    __LIBSVM_FLAGS__\n", _LIBSVM_FLAGS)
                   .replace("        __FIT_PARAMETERS__\n", _FIT_PARAMETERS)
                   .replace("        __GAP_PARAMETERS__\n", _GAP_PARAMETERS)
                   .replace("    __BUDGET_PARAMETERS__\n", BUDGET_PARAMETERS)
                   .replace("        __PARTIAL_FIT_PARAMETERS__\n", PARTIAL_FIT_PARAMETERS))
    return obj


#: The ``duality_gap`` methods' Parameters, Returns and cost.
_GAP_PARAMETERS = """        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows of the problem, usually the training rows (then the dual
            vector starts from the model's own coefficients; otherwise from the
            sample weights of X's margin violators).  With
            ``kernel="precomputed"``, the training Gram matrix.
        y : array-like of shape (n_samples,)
            Their labels, among ``classes_``.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples' losses, as given to ``fit``.

        Returns
        -------
        list of DualityGap
            One :class:`~pegasos.objective.DualityGap` per one-vs-rest problem
            (one for two classes), in the lambda form of
            :mod:`pegasos.objective`: ``primal`` is P(w), ``dual`` a certified
            ``D(alpha) <= P*``, and ``gap`` bounds ``P(w) - P*`` from above.

        Notes
        -----
        The dual vector is the start made feasible (clipped to the box) at its
        best multiple inside the box.  Kernel values: the decision values on X
        (n x n_SV), the model's norm (n_SV^2) and the dual vector's norm (its
        non-zero rows squared: n_SV^2 on the training rows).
"""


class Prepared(NamedTuple):
    """A training set made ready for the solvers (:meth:`_KernelModel._prepare`): the
    rows (``_rows.as_rows``), their squared norms, K's diagonal, and K itself for a
    small set (else None)."""

    rows: object
    sqnorm: np.ndarray
    diag: np.ndarray
    gram: np.ndarray | None


class FittedProblem(NamedTuple):
    """One fitted binary problem, as its certificate reads it: its ``rows`` (None for
    all), their targets ``Y`` (m, problems) in {-1, +1}, the coefficients ``coef``
    over the support vectors and the ``intercept``."""

    rows: np.ndarray | None
    Y: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray


class _SparseGram(TypeError, ValueError):
    """A sparse Gram matrix: SVC's TypeError, and the ValueError of other bad input."""


def _indexable(X):
    """A callable kernel's rows: as given (CSR for sparse, an array for a list)."""
    if sp.issparse(X):
        return sp.csr_matrix(X)
    return X if hasattr(X, "shape") else np.asarray(X)


def _matrix(K):
    """A callable kernel's matrix as a float64 array (a sparse one made dense)."""
    return np.asarray(dense(K), dtype=np.float64)


def dense(coef):
    """Dual coefficients as an array (SVC's are a sparse matrix after a sparse fit)."""
    return coef.toarray() if sp.issparse(coef) else coef


def write_support(est, X, support, dual_coef, intercept, n_support):
    """SVC's attributes of a model's support vectors, the rows ``support`` of X:
    ``support_``, ``dual_coef_``, ``intercept_``, ``support_vectors_`` (empty with
    ``kernel="precomputed"``) and ``n_support_``."""
    est.support_ = support.astype(np.int32)
    est.dual_coef_ = dual_coef
    est.intercept_ = np.asarray(intercept, dtype=np.float64)
    est.support_vectors_ = np.empty((0, 0)) if est.kernel == "precomputed" else X[support]
    est.n_support_ = np.asarray(n_support).astype(np.int32)


class _KernelModel(BaseEstimator):
    """Kernel parameters, the training rows made ready for the solvers, and the decision
    values of support vectors: what the kernel classifiers, :class:`~pegasos.DualSVR`
    and :class:`~pegasos.DualOneClassSVM` share."""

    _parameter_constraints: dict = {
        "kernel": [StrOptions(set(KERNELS))],
        "gamma": [StrOptions({"scale", "auto"}), Interval(Real, 0, math.inf, closed="left")],
        "coef0": [Interval(Real, -math.inf, math.inf, closed="neither")],
        "degree": [Interval(Integral, 0, 2**31 - 1, closed="both")],  # LIBSVM's int
        "cache_size": [Interval(Real, 0, math.inf, closed="left")],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.kernel != "precomputed"
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    def _check_gram(self, X):
        """Refuse a precomputed kernel that is not a dense square Gram matrix."""
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"With kernel='precomputed', X must be the square Gram matrix of the training "
                f"samples; got shape {X.shape}."
            )
        if self.kernel == "precomputed" and sp.issparse(X):
            raise _SparseGram("Sparse precomputed kernels are not supported: with "
                              "kernel='precomputed', X must be a dense Gram matrix.")

    def _validate_xy(self, X, y, reset=True, y_numeric=False):
        """X and y (``"no_validation"``: X alone) checked as the fit takes them: a
        classifier's labels, or with ``y_numeric`` float64 targets."""
        check_sparse_structure(X)
        kwargs = dict(accept_sparse="csr", order="C", accept_large_sparse=True, reset=reset,
                      dtype=np.float64 if self.kernel == "precomputed"
                      else [np.float64, np.float32])
        if isinstance(y, str) and y == "no_validation":
            X = validate_data(self, X, **kwargs)
        elif y_numeric:
            X, y = validate_data(self, X, y, y_numeric=True, **kwargs)
            y = np.asarray(y, dtype=np.float64)
        else:
            X, y = validate_data(self, X, y, **kwargs)
            check_classification_targets(y)
        self._check_gram(X)
        return X, y

    def _kernel_args(self, X):
        """The :class:`~pegasos._numba.kernels.Kernel`, gamma resolved on X as SVC does."""
        return _kernel_args(self.kernel, self.gamma, self.coef0, self.degree, X)

    @property
    def _kargs(self):
        """The fitted kernel for the compiled code (:class:`~pegasos._numba.kernels.Kernel`)."""
        return _kernel_args(self.kernel, self.gamma_, self.coef0, self.degree, None)

    def _prepare(self, X):
        """gamma resolved on X (``gamma_``); the rows, their squared norms, the diagonal of K,
        and K itself for a small training set (:func:`~pegasos._solvers.gram.use_gram`;
        else None): the solvers then run on it, and compile once for every kind of rows."""
        self.gamma_ = self._kernel_args(X).gamma
        return self._rows_of(X, use_gram(X.shape[0]))

    def _rows_of(self, X, with_gram):
        """:meth:`_prepare`'s :class:`Prepared` of X, its kernel matrix only ``with_gram``,
        ``gamma_`` resolved (a distributed fit's problems prepare their rows with it)."""
        (compact,) = compact_columns(X)  # rows reach the engine without unused columns
        rows = as_rows(compact, X.dtype)
        if not with_gram:
            return Prepared(rows, *norms_and_diagonal(rows, self._kargs), None)
        sqnorm, gram = training_matrix(rows, self._kargs)
        diag = np.diag(gram).copy()
        check_kernel_finite(sqnorm, diag)
        return Prepared(rows, sqnorm, diag, gram)

    def _fit_callable(self, X, y, sample_weight):
        """``fit`` with a callable kernel: the precomputed problem of ``kernel(X, X)``,
        solved by a copy of this estimator, whose fitted attributes become this one's;
        the support vectors are the training rows."""
        rows = _indexable(X)
        gram = _matrix(self.kernel(rows, rows))
        n = _num_samples(rows)
        if gram.shape != (n, n):
            raise ValueError(f"the callable kernel returned shape {list(gram.shape)} for the "
                             f"{n} training rows; ({n}, {n}) was expected")
        inner = clone(self).set_params(kernel="precomputed", callback=self.callback)
        inner.fit(gram, y, sample_weight)
        for key in [key for key in vars(self) if key.endswith("_") and not key.startswith("_")]:
            delattr(self, key)  # (a previous fit's)
        for key, value in vars(inner).items():
            if key.endswith("_") and not key.startswith("_"):
                setattr(self, key, value)
        self.support_vectors_ = _safe_indexing(rows, self.support_)
        if "shape_fit_" in vars(self):  # (SVC's: the rows' shape, not the kernel matrix's)
            self.shape_fit_ = getattr(rows, "shape", (n,))
        if getattr(rows, "ndim", 0) == 2:
            self.n_features_in_ = rows.shape[1]
        else:
            del self.n_features_in_
        return self

    def _scores(self, X, coef, intercept):
        """``coef @ K(support_vectors_, X) + intercept``, (n_samples, len(coef)), for the
        coefficients ``coef`` over the support vectors; X validated here (a callable
        kernel's: ``kernel(X, support_vectors_)``, X as given)."""
        if callable(self.kernel):
            rows = _indexable(X)
            K = _matrix(self.kernel(rows, self.support_vectors_))
            if K.shape != (_num_samples(rows), self.support_.shape[0]):
                raise ValueError(f"the callable kernel returned shape {list(K.shape)}; "
                                 f"({_num_samples(rows)}, {self.support_.shape[0]}) was "
                                 "expected: the rows against the support vectors")
            scores = K @ dense(coef).T + intercept
            check_finite_scores(scores)
            return scores
        check_sparse_structure(X)
        coef = dense(coef)
        dtype = self.support_vectors_.dtype if self.kernel != "precomputed" else np.float64
        X = validate_data(
            self, X, accept_sparse="csr", dtype=dtype, order="C",
            accept_large_sparse=True, reset=False,
        )
        if self.kernel == "precomputed":
            scores = column_products(X, self.support_, coef)
        else:
            X, support_vectors = compact_columns(X, self.support_vectors_)
            scores = decision_values(as_rows(X, dtype), as_rows(support_vectors, dtype),
                                     np.ascontiguousarray(coef, dtype=np.float64), self._kargs)
        scores += intercept
        check_finite_scores(scores)
        return scores

    def _products(self, X, left, right, coef, bias2=0.0):
        """``(K(X[left], X[right]) + bias2) @ coef.T``, of shape (len(left), n_problems);
        ``left`` or ``right`` None for every row of X.  With ``kernel="precomputed"``,
        X is the training Gram matrix, which both index."""
        A = X if left is None else X[left]
        if self.kernel == "precomputed":
            products = A @ coef.T if right is None else column_products(A, right, coef)
        else:
            A, B = compact_columns(A, X if right is None else X[right])
            products = decision_values(as_rows(A, A.dtype), as_rows(B, B.dtype), coef,
                                       self._kargs)
        return products + bias2 * coef.sum(axis=1)

    def _report_scores(self, X, report, X_train):
        """The decision values on X of a fit's :class:`Report` (its ``coef`` over the
        training rows ``X_train``, its ``intercept``), while the fit runs: the kernel of
        :meth:`decision_function`, against the report's support vectors (the command
        line's test error during training)."""
        support = np.flatnonzero(report.coef)
        scores = np.full(X.shape[0], report.intercept)
        if support.size and self.kernel == "precomputed":  # X: K(rows, training rows)
            scores += X[:, support] @ report.coef[support]
        elif support.size:
            A, B = compact_columns(X, X_train[support])
            coef = np.ascontiguousarray(report.coef[support][None, :], dtype=np.float64)
            scores += decision_values(as_rows(A, A.dtype), as_rows(B, B.dtype), coef,
                                      self._kargs)[:, 0]
        return scores


class _KernelClassifier(ProbabilityMixin, ClassifierMixin, _KernelModel):
    """Kernel parameters, one-vs-rest, support vectors and prediction."""

    _parameter_constraints: dict = {
        **_KernelModel._parameter_constraints,
        **ESTIMATOR_CONSTRAINTS,
    }

    #: Values per training row that each one-vs-rest problem's fit holds: its targets,
    #: the solver's state (kernel Pegasos and the Perceptron: 3 arrays) and its output.
    _PER_ROW = 5

    def _check_memory(self, n, n_classes):
        """Refuse, before allocating them, problems whose per-row arrays exceed memory."""
        n_problems = 1 if n_classes == 2 else n_classes
        check_memory(8 * self._PER_ROW * n_problems * n,
                     f"{type(self).__name__}'s {n_problems} one-vs-rest problems on {n} rows "
                     f"({self._PER_ROW} values per row each, 8 bytes a value)")

    # -- input ---------------------------------------------------------------

    def _binary_targets(self, y):
        return binary_targets(self.classes_, y)

    def _setup(self, X, y):
        """Classes and :meth:`_prepare`'s rows, squared norms, diagonal and kernel matrix."""
        classes = np.unique(y)
        check_two_classes(classes)
        self._check_memory(X.shape[0], len(classes))
        self.classes_ = classes
        return self._prepare(X)

    def _begin_fit(self, X, y, sample_weight):
        """The stochastic solvers' first steps of a fit: X and y validated, the classes,
        the :class:`Prepared` rows and the loss weights (each class's checked); returns
        the four."""
        X, y = self._validate_xy(X, y, reset=True)
        _warn_cache_size(self)
        prepared = self._setup(X, y)
        sw = loss_weights(X, y, sample_weight, self.class_weight, self.classes_)
        check_weighted_classes(y, sw)
        return X, y, prepared, sw

    def _report(self, problem, t, done, evals, seconds, coef, intercept):
        """Call ``callback`` with the current output model of one binary problem."""
        self.callback(Report(
            problem=problem, n_problems=len(positive_classes(self.classes_)), t=int(t),
            iterations=int(done), iterations_total=int(self.plan_.n_iter), seconds=seconds,
            coef=coef.copy(), intercept=float(intercept), kernel_evals=int(evals)))

    # -- output --------------------------------------------------------------

    def _set_support(self, X, y, coefs, intercepts):
        """SVC-style attributes from dense per-problem coefficient vectors (n_problems, n)."""
        coefs = np.asarray(coefs)
        support = np.flatnonzero(np.any(coefs != 0.0, axis=0))
        # as SVC: the number of support vectors of each class (by their labels)
        labels = np.searchsorted(self.classes_, y[support])
        write_support(self, X, support, coefs[:, support], intercepts,
                      np.bincount(labels, minlength=len(self.classes_)))

    def decision_function(self, X):
        """Signed distance: ``dual_coef_ @ K(support_vectors_, X) + intercept_``.

        Computed by tiles of X's rows against every support vector, all the
        one-vs-rest problems at once.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to score; with ``kernel="precomputed"``, K(X, X_train) of
            shape (n_samples, n_training_samples).

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes, positive for ``classes_[1]``; otherwise one
            column per one-vs-rest problem.
        """
        check_is_fitted(self)
        scores = self._scores(X, self.dual_coef_, self.intercept_)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X):
        """Class labels: the sign of the decision (binary) or its argmax (one-vs-rest).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to classify (see :meth:`decision_function`).

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    # -- certificate -----------------------------------------------------------

    def _certificate(self, X, y, sample_weight, lam_of, bias2, unregularized):
        """One :class:`~pegasos.objective.DualityGap` per problem of the fitted model on
        ``(X, y)``: the primal of ``lam_of(m)`` for a problem on m rows (the kernel plus
        ``bias2``, an intercept feature's term; or a free intercept when
        ``unregularized``) and the dual value of a feasible start, at its best multiple."""
        check_is_fitted(self)
        check_sparse_structure(X)
        dtype = self.support_vectors_.dtype if self.kernel != "precomputed" else np.float64
        X = validate_data(self, X, accept_sparse="csr", dtype=dtype, order="C",
                          accept_large_sparse=True, reset=False)
        y = np.asarray(y)
        check_consistent_length(X, y)
        check_known_labels(y, self.classes_)
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"With kernel='precomputed', duality_gap takes the Gram matrix of the training "
                f"samples, of shape ({X.shape[1]}, {X.shape[1]}); got shape {X.shape}: the "
                "certificate needs the kernel between its rows.")
        sw = loss_weights(X, y, sample_weight, getattr(self, "class_weight", None), self.classes_)
        training = self._is_training_set(X)
        problems = self._problems(y)
        # every problem's RKHS norm from one pass of the support vectors against themselves
        coef = np.ascontiguousarray(np.vstack([p.coef for p in problems]))
        w2 = np.einsum("cs,sc->c", coef, (
            self._products(X, self.support_, self.support_, coef, bias2)
            if self.kernel == "precomputed"
            else self._products(self.support_vectors_, None, None, coef, bias2)))
        gaps, first = [], 0
        for rows, Y, coef, intercept in problems:
            m = len(y) if rows is None else len(rows)
            gaps += self._gaps(X, rows, Y, sw if rows is None else sw[rows], coef, intercept,
                               w2[first:first + len(coef)], lam_of(m), bias2, unregularized,
                               training)
            first += len(coef)
        return gaps

    def _problems(self, y):
        """The :class:`FittedProblem` of the model on rows with labels y: one-vs-rest
        here."""
        return [FittedProblem(None, np.column_stack(self._binary_targets(y)),
                              np.ascontiguousarray(dense(self.dual_coef_), dtype=np.float64),
                              self.intercept_)]

    def _gaps(self, X, rows, Y, sw, coef, intercept, w2, lam, bias2, unregularized, training):
        """The certificates of the problems ``coef`` (RKHS norms squared ``w2``) on X's
        ``rows`` (all when None)."""
        n = X.shape[0]
        m = n if rows is None else len(rows)
        where = np.arange(n) if rows is None else rows
        z = 1.0 - Y * self._scores(X if rows is None else X[rows], coef, intercept)
        if training:
            # The model's own expansion: w = sum_i alpha_i y_i phi(x_i) / (lam m).
            at = np.full(n, -1, np.int64)
            at[where] = np.arange(m)
            at = at[self.support_]
            start = np.zeros((m, Y.shape[1]))
            start[at[at >= 0]] = lam * m * coef.T[at >= 0]
            start *= Y
        else:
            start = np.where(z > 0.0, sw[:, None], 0.0)
        alpha = np.column_stack([feasible(start[:, c], sw, Y[:, c], unregularized)
                                 for c in range(Y.shape[1])])
        v = alpha * Y
        nonzero = np.flatnonzero(np.any(v != 0.0, axis=1))
        vr = np.ascontiguousarray(v[nonzero].T)
        quad = np.einsum("cs,sc->c", vr, self._products(X, where[nonzero], where[nonzero], vr,
                                                        bias2))
        quad /= 2.0 * lam * m * m
        return [finite_gap(DualityGap(
            primal=float(0.5 * lam * w2[c] + sw @ np.maximum(z[:, c], 0.0) / m),
            dual=float(best_multiple(alpha[:, c], sw, m, quad[c]))))
            for c in range(Y.shape[1])]

    def _is_training_set(self, X):
        """Whether X holds the support vectors at their training rows (the start of
        the certificate's dual vector is then the model's own)."""
        if self.kernel == "precomputed":
            return True
        sv, vectors = self.support_, self.support_vectors_
        if sv.size == 0 or sv.min() < 0 or X.shape[0] <= sv.max() or sp.issparse(X) != sp.issparse(vectors):
            return False
        ours = X[sv]
        if sp.issparse(ours):
            return ours.shape == vectors.shape and (ours != vectors).nnz == 0
        return np.array_equal(ours, vectors)


def _warn_cache_size(est):
    if est.cache_size != 200.0:
        warnings.warn(
            f"cache_size has no effect on {type(est).__name__}: its blocked engine computes "
            "the kernel columns of a whole mini-batch at once instead of caching single "
            "columns. The parameter will be removed in pegasos 0.3.",
            FutureWarning,
        )


class _ResponseSolver(_BudgetMixin, _KernelClassifier):
    """Kernel Pegasos and the kernel Perceptron: one compiled loop, two modes, and the
    same with a budget of support vectors (:class:`~pegasos._budget._BudgetMixin`)."""

    def _fit(self, X, y, sample_weight, mode):
        """Either's fit, ``mode`` :data:`~pegasos._solvers.kernel_pegasos.PEGASOS` or
        ``PERCEPTRON``, its plan :meth:`_plan`'s; with a budget below the rows (or a
        stream), the budgeted solver's.  The last fit's model goes first, and a fit that
        fails half-way (a callback that raises, a stream's bad block) leaves none: not a
        new ``gamma_`` or ``classes_`` beside the old points."""
        drop_fitted(self, BUDGET_STATE)
        try:
            return self._fit_anew(X, y, sample_weight, mode)
        except BaseException:
            drop_fitted(self, BUDGET_STATE)
            raise

    def _fit_anew(self, X, y, sample_weight, mode):
        """:meth:`_fit` on an estimator that holds no fitted model."""
        if isinstance(X, (SVMLightStream, BlockStream)):
            return self._fit_budget_stream(X, y, sample_weight, mode)
        if self.budget is not None:
            self._check_budget_kernel()
            X, y = self._validate_xy(X, y, reset=True)
            if self.budget < X.shape[0]:
                _warn_cache_size(self)
                return self._fit_budget(X, y, sample_weight, mode)
        X, y, (rows, sqnorm, diag, gram), sw = self._begin_fit(X, y, sample_weight)
        n = rows.n_rows
        bias2 = self._bias2()
        plan = self.plan_ = self._plan(n, sw)
        if mode == _kp.PEGASOS:
            self.lam_ = plan.lam
        Y = np.ascontiguousarray(np.column_stack(self._binary_targets(y)))
        first = 0 if gram is None else gram.size  # the kernel matrix's values, if any
        report = None
        if self.callback is not None:
            def report(t, done, evals, seconds, state):
                coef = _kp.output(state)
                for c in range(Y.shape[1]):
                    self._report(c, t - 1, done, first + evals, seconds, coef[:, c],
                                 bias2 * coef[:, c].sum())

        state, evals = _kp.fit(
            rows, sqnorm, diag + bias2, Y, sw, self._kargs._replace(bias2=bias2), plan, mode,
            IndexStream(self.sampling, n, np.random.default_rng(plan.seeds[0])), report, gram)
        coef = _kp.output(state)
        if not np.all(np.isfinite(coef)):
            raise ValueError(
                "Floating-point overflow in the coefficients. Scale the input or increase lam."
            )
        self._set_support(X, y, coef.T, bias2 * coef.sum(axis=0))
        self.n_kernel_evals_ = int(first + evals)
        self.n_iter_ = int(plan.n_iter)
        return self._fit_probability(X, y, sample_weight)

    def _bias2(self):
        """The intercept feature's term in the kernel, intercept_scaling**2 (0 without one)."""
        if not self.fit_intercept:
            return 0.0
        scale = float(self.intercept_scaling)  # at most MAX_INTERCEPT_SCALING: finite
        return scale * scale


def _kernel_args(kernel, gamma, coef0, degree, X):
    """The :class:`~pegasos._numba.kernels.Kernel` for the compiled code, gamma resolved on X
    as SVC resolves it (X is not read for a numeric gamma)."""
    if gamma == "scale":
        # in float64 whatever X's dtype, as SVC (which converts X) computes it
        var = ((X.multiply(X)).mean(dtype=np.float64) - X.mean(dtype=np.float64) ** 2
               if sp.issparse(X) else X.var(dtype=np.float64))
        gamma = 1.0 / (X.shape[1] * var) if var > 0 else 1.0
    elif gamma == "auto":
        gamma = 1.0 / X.shape[1]
    return kernel_of(KERNELS[kernel], gamma, coef0, degree)
