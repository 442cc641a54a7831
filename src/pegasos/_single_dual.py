"""One dual problem of LIBSVM's form on the working-set solver: the fit that
:class:`~pegasos.DualSVR` and :class:`~pegasos.DualOneClassSVM` share.

LIBSVM solves its five problems with one solver of
``min 1/2 a'Qa + p'a, 0 <= a_v <= C_v, y'a = const``; these estimators hand their
targets, bounds and linear term to :func:`pegasos._solvers.working_set.run` (the
solver of :class:`~pegasos.DualSVC`), with a start where LIBSVM starts from one,
and read SVC-style attributes off its result.
"""

import math
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted, validate_data

from ._base import loss_weights
from ._kernel_base import _KernelModel, dense
from ._memory import check_memory
from ._rows import check_sparse_structure
from ._sklearn_private import Interval, _fit_context
from ._solvers import working_set as _ws
from ._solvers.engine import points
from ._solvers.problems import describe_regularisation, entry
from ._solvers.report import Report
from .svc import working_set_plan, write_status


def row_coefficients(Y, a, dual, n):
    """Each row's coefficient ``beta_r``: the sum of ``y_v a_v`` over its variables."""
    coef = Y[:, 0] * a[:, 0]
    if dual.rows is None:
        return coef
    return np.bincount(dual.rows, weights=coef, minlength=n)


class _SingleDual(_KernelModel):
    """Parameters, validation, the solve and the fitted attributes of one dual problem."""

    _parameter_constraints: dict = {
        **_KernelModel._parameter_constraints,
        "kernel": [*_KernelModel._parameter_constraints["kernel"], callable],
        "tol": [Interval(Real, 0, math.inf, closed="neither")],
        "max_iter": [Interval(Integral, -1, None, closed="left")],
        "working_set_size": [Interval(Integral, 4, None, closed="left")],
        "shrinking": ["boolean"],
        "verbose": ["verbose"],
        "callback": [callable, None],
    }

    def _validate(self, X, y="no_validation"):
        """X (and y, as float64 targets, unless "no_validation") checked as the fit takes
        them."""
        check_sparse_structure(X)
        kwargs = dict(accept_sparse="csr", order="C", accept_large_sparse=True, reset=True,
                      dtype=np.float64 if self.kernel == "precomputed"
                      else [np.float64, np.float32])
        if isinstance(y, str) and y == "no_validation":
            X = validate_data(self, X, **kwargs)
        else:
            X, y = validate_data(self, X, y, y_numeric=True, **kwargs)
            y = np.asarray(y, dtype=np.float64)
        self._check_gram(X)
        return X, y

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Solve the estimator's LIBSVM problem (:data:`~pegasos._solvers.problems.PROBLEMS`)
        to ``tol``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows (float64 or float32; CSR), or with
            ``kernel="precomputed"`` the Gram matrix (n_samples, n_samples).
        y : array-like of shape (n_samples,), or None
            Target values (the one-class SVM's: ignored).
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows' losses (``C`` times the weight bounds each
            variable; the one-class SVM's bounds); rows of weight zero or less
            take no part, as in LIBSVM.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        if callable(self.kernel):
            return self._fit_callable(X, y, sample_weight)
        problem = entry(self._problem)
        X, y = self._validate(X, y) if problem.supervised else self._validate(X)
        w = loss_weights(X, None, sample_weight, None, None, negative_as_zero=True)
        C = problem.bounds(self, w)
        if problem.check is not None:
            problem.check(self, X, y, C)
        Y, rows = problem.variables(X.shape[0])
        dual = _ws.Dual(problem.linear(self, y), rows, problem.by_sign, problem.undefined)
        self._fit_dual(X, Y, C if rows is None else np.concatenate([C, C]), dual,
                       None if problem.start is None else problem.start(self, C, Y))
        return problem.done(self, X, y, w)

    def _fit_dual(self, X, Y, C, dual, start):
        """Solve the problem (targets ``Y`` (n_vars, 1), bounds ``C``, :class:`Dual`
        ``dual``) from the variables ``start`` (n_vars,) or zero (None), and set the fitted
        attributes: the support vectors are the rows whose coefficient is not zero."""
        n, n_vars = X.shape[0], Y.shape[0]
        check_memory(8 * (4 * n_vars + 2 * n),
                     f"{type(self).__name__}'s dual on {n} rows ({n_vars} variables: 4 values "
                     "of 8 bytes each, and 2 per row)")
        rows, sqnorm, _, gram = self._prepare(X)
        evals = n if gram is None else gram.size
        state = None
        if start is not None:
            beta = row_coefficients(Y, start[:, None], dual, n)
            nz = np.flatnonzero(beta)
            if gram is not None:
                F = gram[:, nz] @ beta[nz]
            else:
                F = self._products(X, None, nz, beta[nz][None, :])[:, 0]
                evals += n * nz.size
            state = _ws.WorkingSetState(start[:, None].copy(), np.ascontiguousarray(F[None]).T)
        plan = working_set_plan(self, n_vars, rows, n)
        report, reported = None, [0]
        if self.callback is not None:
            def report(it, columns, seconds, state, intercept, steps):
                reported[0] = it
                self.callback(Report(
                    problem=0, n_problems=1, t=it, iterations=int(steps[0]),
                    iterations_total=max(plan.max_iter, 0), seconds=seconds,
                    coef=row_coefficients(Y, state.a, dual, n), intercept=float(intercept[0]),
                    kernel_evals=evals + int(columns) * n))
        result = _ws.run(points(rows, sqnorm), self._kargs, Y, C, plan, report, state,
                         None if gram is None else (gram, None), dual)
        evals += 0 if gram is not None else int(result.columns) * n
        if report is not None and reported[0] != result.n_iter:  # the last iteration's
            report(result.n_iter, result.columns, result.seconds, result.state,
                   result.intercept, result.problem_steps)
        if not (np.all(np.isfinite(result.intercept)) and (
                result.r is None or np.all(np.isfinite(result.r)))):
            raise ValueError(
                f"{type(self).__name__} found no model: its offset (LIBSVM's rho) is not "
                "finite, as every variable is at one bound (nu = 1 puts every row at its "
                "bound); take a smaller nu")
        beta = row_coefficients(Y, result.state.a, dual, n)
        support = np.flatnonzero(beta)
        self.support_ = support.astype(np.int32)
        self.dual_coef_ = beta[support][None, :]
        self.intercept_ = np.asarray(result.intercept, dtype=np.float64)
        self.support_vectors_ = np.empty((0, 0)) if self.kernel == "precomputed" else X[support]
        self.n_support_ = np.array([support.size], dtype=np.int32)
        self.n_iter_ = int(result.problem_steps[0])
        self.violation_ = float(result.violation[0])
        self.objective_ = float(_ws.dual_objectives(Y, result.state, dual)[0])
        self._r = result.r  # (the nu problems': DualNuSVR's epsilon_)
        if self.verbose:
            print(f"{type(self).__name__}: {result.n_iter} working sets, {self.n_iter_} pair "
                  f"steps, obj = "
                  f"{self.objective_:.6g}, rho = {-self.intercept_[0]:.6g}, nSV = "
                  f"{support.size}, violation = {self.violation_:.3g}", flush=True)
        self.n_kernel_columns_ = int(result.columns)
        self.n_kernel_evals_ = int(evals)
        self.shape_fit_ = X.shape
        write_status(self, [result], sp.issparse(X), f"{self.violation_:.3g} (tol={self.tol:g})")
        return self

    def _describe_regularisation(self):
        """The regularisation the model was trained with, as ``pegasos info`` prints it (its
        problem's: :data:`~pegasos._solvers.problems.PROBLEMS`)."""
        return describe_regularisation(self)

    def _decision(self, X):
        """``dual_coef_ @ K(support_vectors_, X) + intercept_``, (n_samples,)."""
        check_is_fitted(self)
        return self._scores(X, self.dual_coef_, self.intercept_)[:, 0]

    @property
    def coef_(self):
        """The weights of a linear kernel's model.

        ``dual_coef_ @ support_vectors_``, shape (1, n_features); sparse after a fit on
        sparse rows.
        """
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when using a linear kernel")
        check_is_fitted(self)
        if sp.issparse(self.support_vectors_):
            coef = (sp.csr_matrix(dense(self.dual_coef_)) @ self.support_vectors_).tocsr()
            coef.data.flags.writeable = False
            return coef
        coef = dense(self.dual_coef_) @ self.support_vectors_
        coef.flags.writeable = False
        return coef
