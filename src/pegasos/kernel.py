"""Kernel classifiers: :class:`KernelPegasosClassifier`, :class:`SBPClassifier`
and :class:`KernelPerceptron`.

All three keep O(n) state per one-vs-rest problem -- coefficients and the
responses of every training point -- and never store a kernel matrix.  They
run on the blocked engine (:mod:`pegasos._numba.blocks`): each iteration
draws ``batch_size`` examples, and the kernel columns of every example that
changes any problem's model are computed together, one pass over the data by
tiles of rows (BLAS for dense rows), updating every problem's responses from
the same tiles.  Kernel Pegasos and the Perceptron, whose draws do not depend
on the model, make that pass once per chunk of about 256 draws, for all the
chunk's changed examples at once, and keep only the chunk's drawn rows
current in between (exactly: every margin is the iterate's own).  One draw
stream serves all the problems.  Prediction takes tiles of test rows against
all support vectors, every problem at once.  With
``kernel="precomputed"`` the n x n Gram matrix you pass is the only large
object (8 n^2 bytes: 20 GB for n = 50,000).

Fitted attributes follow :class:`sklearn.svm.SVC`: ``support_``,
``support_vectors_``, ``dual_coef_`` (n_problems, n_SV), ``intercept_`` and
``n_support_`` (support vectors per class); the decision function is
``dual_coef_ @ K(support_vectors_, X) + intercept_``.  Multi-class problems
are one-vs-rest (not SVC's one-vs-one): one row of ``dual_coef_`` per class
over the union of the support vectors.
"""

import math
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import ConvergenceWarning
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
    PEGASOS_CONSTRAINTS,
    binary_targets,
    check_exclusive_params,
    check_finite_scores,
    check_known_labels,
    check_two_classes,
    check_weighted_classes,
    constraints_of,
    loss_weights,
    make_plan,
    positive_classes,
)
from ._memory import check_memory
from ._numba.codes import KERNEL_TABLE
from ._numba.kernels import Kernel
from ._probability import ProbabilityMixin
from ._rows import as_rows, check_sparse_structure, column_products, compact_columns
from ._sampling import IndexStream
from ._sklearn_private import Interval, StrOptions, _fit_context
from ._solvers import kernel_pegasos as _kp
from ._solvers import sbp as _sbp
from ._solvers.engine import check_kernel_finite, decision_values, norms_and_diagonal
from ._solvers.gram import training_matrix, use_gram
from ._solvers.report import Report
from ._solvers.threads import one_blas_thread
from .objective import DualityGap, best_multiple, feasible, finite_gap

__all__ = ["KernelPegasosClassifier", "KernelPerceptron", "SBPClassifier", "nu_for",
           "nu_from_svm", "one_blas_thread"]

#: Each kernel's code, by name (:data:`pegasos._numba.codes.KERNEL_TABLE`).
KERNELS = {k.name: k.code for k in KERNEL_TABLE}


#: The kernel parameters' entry in the docstrings of the Perceptron and the SBP.
_KERNEL_PARAMETERS = """    kernel : {"rbf", "linear", "poly", "sigmoid", "precomputed"}, default="rbf"
        As in :class:`sklearn.svm.SVC`.
    gamma : {"scale", "auto"} or float > 0, default="scale"
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
                   .replace("        __GAP_PARAMETERS__\n", _GAP_PARAMETERS))
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


#: The kernel Perceptron's default budget in passes (see its ``n_epochs``).
PERCEPTRON_EPOCHS = 10.0


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


class _KernelModel(BaseEstimator):
    """Kernel parameters, the training rows made ready for the solvers, and the decision
    values of support vectors: what the kernel classifiers, :class:`~pegasos.DualSVR`
    and :class:`~pegasos.DualOneClassSVM` share."""

    _parameter_constraints: dict = {
        "kernel": [StrOptions(set(KERNELS))],
        "gamma": [StrOptions({"scale", "auto"}), Interval(Real, 0, math.inf, closed="neither")],
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
        """:meth:`_prepare`'s rows, squared norms, diagonal and kernel matrix (``with_gram``;
        else None) of X, ``gamma_`` resolved (a distributed fit's problems prepare their
        rows with it)."""
        (compact,) = compact_columns(X)  # rows reach the engine without unused columns
        rows = as_rows(compact, X.dtype)
        if not with_gram:
            return (rows, *norms_and_diagonal(rows, self._kargs), None)
        sqnorm, gram = training_matrix(rows, self._kargs)
        diag = np.diag(gram).copy()
        check_kernel_finite(sqnorm, diag)
        return rows, sqnorm, diag, gram

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

    def _validate_xy(self, X, y, reset):
        check_sparse_structure(X)
        X, y = validate_data(
            self, X, y, accept_sparse="csr", order="C", accept_large_sparse=True, reset=reset,
            dtype=np.float64 if self.kernel == "precomputed" else [np.float64, np.float32],
        )
        check_classification_targets(y)
        self._check_gram(X)
        return X, y

    def _binary_targets(self, y):
        return binary_targets(self.classes_, y)

    def _setup(self, X, y):
        """Classes and :meth:`_prepare`'s rows, squared norms, diagonal and kernel matrix."""
        classes = np.unique(y)
        check_two_classes(classes)
        self._check_memory(X.shape[0], len(classes))
        self.classes_ = classes
        return self._prepare(X)

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
        self.support_ = support.astype(np.int32)
        self.dual_coef_ = coefs[:, support]
        self.intercept_ = np.asarray(intercepts, dtype=np.float64)
        if self.kernel == "precomputed":
            self.support_vectors_ = np.empty((0, 0))
        else:
            self.support_vectors_ = X[support]
        # as SVC: the number of support vectors of each class (by their labels)
        labels = np.searchsorted(self.classes_, y[support])
        self.n_support_ = np.bincount(labels, minlength=len(self.classes_)).astype(np.int32)

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
        coef = np.ascontiguousarray(np.vstack([p[2] for p in problems]))
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
        """The fitted binary problems on rows with labels y: (the rows, None for all;
        their ±1 targets (m, problems); the coefficients over the support vectors;
        the intercepts).  One-vs-rest here."""
        return [(None, np.column_stack(self._binary_targets(y)),
                 np.ascontiguousarray(dense(self.dual_coef_), dtype=np.float64), self.intercept_)]

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
        if sv.size == 0 or X.shape[0] <= sv.max() or sp.issparse(X) != sp.issparse(vectors):
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


class _ResponseSolver(_KernelClassifier):
    """Kernel Pegasos and the kernel Perceptron: one compiled loop, two modes."""

    def _fit(self, X, y, sample_weight, mode):
        """Either's fit, ``mode`` :data:`~pegasos._solvers.kernel_pegasos.PEGASOS` or
        ``PERCEPTRON``, its plan :meth:`_plan`'s."""
        X, y = self._validate_xy(X, y, reset=True)
        _warn_cache_size(self)
        rows, sqnorm, diag, gram = self._setup(X, y)
        n = rows.n_rows
        sw = loss_weights(X, y, sample_weight, self.class_weight, self.classes_)
        check_weighted_classes(y, sw)
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
        2 passes (BENCHMARKS.md, "The blocked kernel engine").
    sampling : {"uniform", "permutation", "cyclic"}, default="uniform"
        How examples are drawn: independently, by a fresh permutation per
        pass, or in order.
    projection : bool, default=True
        Project onto the ball of radius :math:`\sqrt{\bar s/\lambda}` after
        each step (the paper's optional step).
    average : bool or float in (0, 1], default=0.5
        Last iterate, average of all iterates, or of the last fraction.
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
    }

    def __init__(
        self, lam=None, *, C=None, kernel="rbf", gamma="scale", coef0=0.0, degree=3,
        n_iter=None, n_epochs=None, batch_size=16, sampling="uniform", projection=True,
        average=0.5, fit_intercept=True, intercept_scaling=1.0, class_weight=None,
        cache_size=200.0, random_state=None,
        probability=False, callback=None,
    ):
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

    @_documented
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit by ``n_iter`` kernel Pegasos iterations per one-vs-rest problem.

        Every one-vs-rest problem is trained at once, from one stream of draws.

        __FIT_PARAMETERS__
        """
        check_exclusive_params(self)
        return self._fit(X, y, sample_weight, _kp.PEGASOS)

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
            batch_size=self.batch_size, average=self.average, radius2=None,
            projection=self.projection, weights=weights, random_state=self.random_state,
            n_problems=1, default="examples",
        )


@_documented
class KernelPerceptron(_ResponseSolver):
    """The kernel Perceptron: add y_i phi(x_i) whenever y_i f(x_i) <= 0.

    The baseline of the SBP paper's experiments.  Runs the same compiled loop
    as :class:`KernelPegasosClassifier` in its Perceptron mode: no
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
        time (BENCHMARKS.md, "kernel solvers against SMO").  Later passes cost less than the
        first: only mistakes cost kernel columns.
    batch_size : int >= 1, default=16
        Examples judged per iteration with the same iterate; the mistakes of a
        batch, over every one-vs-rest problem, cost one block of kernel
        columns (1 is the classic Perceptron).
    sampling : {"permutation", "uniform", "cyclic"}, default="permutation"
    average : bool, default=True
        The averaged Perceptron (the average of all iterates), or the last
        iterate.  Measured on scikit-learn's blob check (binary, one epoch):
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

    Attributes
    ----------
    support_, support_vectors_, dual_coef_, intercept_, n_support_, classes_,
    n_iter_, n_kernel_evals_ : as :class:`KernelPegasosClassifier`

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

    _parameter_constraints: dict = {
        **_KernelClassifier._parameter_constraints,
        **constraints_of("n_iter", "n_epochs", "batch_size", "sampling", "fit_intercept",
                         "intercept_scaling", "class_weight", average=["boolean"]),
    }

    def __init__(
        self, *, kernel="rbf", gamma="scale", coef0=0.0, degree=3, n_iter=None, n_epochs=None,
        batch_size=16, sampling="permutation", average=True, fit_intercept=True,
        intercept_scaling=1.0, class_weight=None, cache_size=200.0, random_state=None,
        probability=False, callback=None,
    ):
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

    @_documented
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Run ``n_epochs`` Perceptron passes, every one-vs-rest problem at once.

        A mistake on example i adds s_i y_i phi(x_i), with s_i its
        ``sample_weight`` times its ``class_weight``.

        __FIT_PARAMETERS__
        """
        check_exclusive_params(self)
        return self._fit(X, y, sample_weight, _kp.PERCEPTRON)

    def _plan(self, n, weights):
        """10 passes by default, no projection; lambda is unused in Perceptron mode."""
        return make_plan(
            lam=1.0, C=None, n=n, n_iter=self.n_iter, n_epochs=self.n_epochs,
            batch_size=self.batch_size, average=self.average, radius2=0.0,
            random_state=self.random_state, n_problems=1, default=("epochs", PERCEPTRON_EPOCHS),
        )


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
        fit's columns on ijcnn1 and Adult (BENCHMARKS.md, "The blocked kernel engine").
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
        X, y = self._validate_xy(X, y, reset=True)
        _warn_cache_size(self)
        rows, sqnorm, diag, gram = self._setup(X, y)
        n = rows.n_rows
        sw = loss_weights(X, y, sample_weight, self.class_weight, self.classes_)
        check_weighted_classes(y, sw)
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

    ``model`` is an estimator of this module, or a binary ``sklearn.svm.SVC``
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
        A fitted kernel estimator of this module, or a binary ``SVC``.
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
    return Kernel(code=KERNELS[kernel], gamma=float(gamma), coef0=float(coef0),
                  degree=int(degree), bias2=0.0)


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
