"""Kernel Pegasos and the kernel Perceptron with a budget of support vectors: the fit
from memory, from a stream or a cache, and ``partial_fit`` (the estimators'
``budget`` and ``budget_strategy``; the algorithm is :mod:`pegasos._numba.budget`'s)."""

import os
from dataclasses import replace
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from ._base import (
    binary_targets,
    check_held_out,
    check_known_labels,
    check_stream_labels,
    check_two_classes,
    check_weighted_classes,
    drop_fitted,
    loss_weights,
    positive_classes,
)
from ._memory import check_memory
from ._rows import as_rows, check_width, stack_rows
from ._sampling import IndexStream
from ._sklearn_private import Interval, StrOptions
from ._solvers import budget as _sb
from ._solvers import kernel_pegasos as _kp
from ._solvers.engine import norms_and_diagonal
from ._solvers.report import Report
from ._stream_params import HeldOutRule
from .datasets import load_svmlight

#: The budget's parameters' constraints (scikit-learn's ``_parameter_constraints``).
BUDGET_CONSTRAINTS = {
    "budget": [Interval(Integral, 1, None, closed="left"), None],
    "budget_strategy": [StrOptions(set(_sb.STRATEGIES))],
}

#: The budget's entries in the two estimators' docstrings.
BUDGET_PARAMETERS = """    budget : int >= 1, default=None
        Keep at most ``budget`` support vectors (BSGD: Wang, Crammer & Vucetic,
        JMLR 2012): the model is ``budget`` points and their coefficients,
        whatever the number of training rows, and a step costs O(budget *
        batch_size * n_features).  Every one-vs-rest problem shares the
        points (each has its own coefficients).  A budget at least the
        number of training rows changes nothing: the solver without a budget
        runs, the same model bit for bit.  With a budget, ``fit`` also takes
        an :class:`~pegasos.stream.SVMLightStream` (LIBSVM files or a cache,
        read a block at a time) or a :class:`~pegasos.BlockStream`, with
        their ``holdout`` (``holdout_errors_``: iterations and held-out error
        at each measurement), and ``partial_fit`` learns online.
        ``support_`` then holds the training row of each support vector
        (-1 for a merged point), and the kernel must be one of rbf, linear,
        poly or sigmoid.
    budget_strategy : {"merge", "remove", "project"}, default="merge"
        How the budget is kept once a step takes it past ``budget``: the
        point of the smallest coefficients (their norm over the problems) is
        merged with the point whose merge loses the least weight (rbf only:
        ``z = h x_m + (1 - h) x_n``, ``h`` by a golden-section search, BSGD's
        best by far), removed, or projected onto the other points (O(budget^3)
        a step).  With a budget, ``average="auto"`` (the default) gives the
        last iterate, BSGD's output: an explicit ``average`` is honoured (the
        lazy average is mapped by each maintenance as the coefficients are),
        but measured on 20,000 MNIST digits (round digits against the rest,
        B = 1000, lambda = 1e-5, gamma = 0.035, one pass) that average was
        unreliable (6.5% and 47.9% test error over two seeds, where the last
        iterate had 4.7% and 5.0%): maintenance removes or merges the point of
        the smallest coefficients now, whatever its weight in the average.
"""


#: ``partial_fit``'s Parameters and Returns.
PARTIAL_FIT_PARAMETERS = """        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows (float64 or float32; CSR).
        y : array-like of shape (n_samples,)
            Their labels, among ``classes``.
        classes : array-like, default=None
            Every label the calls will bring: required on the first call,
            optional (and checked) later.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the samples' losses.

        Returns
        -------
        self : object
            The estimator, updated.
"""


def average_of(est, default):
    """The ``average`` a fit runs with: ``"auto"`` is ``default`` (the estimator's
    average without a budget) and the last iterate (False) with a ``budget``."""
    if isinstance(est.average, str):  # "auto", the only string the constraints allow
        return False if est.budget is not None else default
    return est.average


#: A budgeted fit's state beside its fitted attributes (``partial_fit`` continues it).
BUDGET_STATE = ("_budget_state", "_budget_t", "_budget_rows", "_budget_rng")


def has_budget(est):
    """Whether ``partial_fit`` is available: a ``budget`` is set."""
    return est.budget is not None


class _BudgetMixin:
    """``fit`` with ``budget`` (from memory or a stream) and ``partial_fit``, for kernel
    Pegasos and the kernel Perceptron (:class:`~pegasos._kernel_base._ResponseSolver`)."""

    #: Passes over a stream when neither ``n_iter`` nor ``n_epochs`` is given (None: the
    #: plan's default iterations, kernel Pegasos' 10 / lambda examples).
    _STREAM_PASSES = None

    def _check_budget_kernel(self):
        """Refuse the kernels a budget cannot hold (its points are rows, not columns of a
        Gram matrix) and merging without the rbf."""
        if callable(self.kernel) or self.kernel == "precomputed":
            raise ValueError("budget needs the rows themselves: kernel='precomputed' and a "
                             "callable kernel keep no points; give budget=None, or one of "
                             "the kernels 'rbf', 'linear', 'poly', 'sigmoid'")
        if self.budget_strategy == "merge" and self.kernel != "rbf":
            raise ValueError(f"budget_strategy='merge' merges rbf points only; with "
                             f"kernel={self.kernel!r} give budget_strategy='remove' or "
                             "'project'")

    def _budget_plan(self, n, weights, mode, n_iter=None, n_epochs=None):
        """The fit's plan (``make_plan``'s) and its compiled
        :class:`~pegasos._numba.budget.BudgetPlan`."""
        plan = self._plan(n, weights) if n_iter is None and n_epochs is None else \
            self._plan_for(n, weights, n_iter, n_epochs)
        return plan, _sb.plan_of(plan, mode, self.budget, self.budget_strategy)

    def _plan_for(self, n, weights, n_iter, n_epochs):
        """:meth:`_plan` with ``n_iter`` or ``n_epochs`` set here (online calls)."""
        saved = self.n_iter, self.n_epochs
        self.n_iter, self.n_epochs = n_iter, n_epochs
        try:
            return self._plan(n, weights)
        finally:
            self.n_iter, self.n_epochs = saved

    def _start_budget(self, n_problems, width, dtype):
        """A new budget (room for one batch of ``batch_size`` new points beyond it), its
        memory checked first."""
        k = int(self.batch_size)
        need = _sb.budget_bytes(self.budget, k, n_problems, width, np.dtype(dtype).itemsize)
        check_memory(need, f"a budget of {self.budget} support vectors ({width} features, "
                     f"their kernel matrix and {n_problems} coefficient"
                     f"{'s' * (n_problems > 1)} each; room for a batch_size={k} more)")
        return _sb.new_budget(self.budget, k, n_problems, width, dtype)

    def _budget_report(self, t0, plan, first_evals=0):
        """The ``report`` of :func:`pegasos._solvers.budget.run` for ``callback``."""
        if self.callback is None:
            return None
        bias2 = self._bias2()
        state = self._budget_state

        def report(t, done, evals, seconds):
            _, coef = _sb.output(state)
            for c in range(coef.shape[1]):
                self.callback(Report(
                    problem=c, n_problems=coef.shape[1], t=int(t - 1), iterations=int(done),
                    iterations_total=int(plan.n_iter), seconds=seconds, coef=coef[:, c].copy(),
                    intercept=float(bias2 * coef[:, c].sum()),
                    kernel_evals=int(first_evals + evals), support_vectors=coef.shape[0]))

        return report

    def _run_budget(self, X, y, sw, stream, plan, bplan, first):
        """``plan``'s iterations on the rows X (validated; labels y, loss weights sw),
        drawn by ``stream``, row i the training row ``first + i``: the budget's state
        (``_budget_state``, ``_budget_t``) continues."""
        # (in the budget's dtype, the first call's: a later call of float64 rows after float32
        # ones, or the reverse, never reaches the compiled step with points of another type)
        rows = as_rows(X, self._budget_state.Z.dtype)
        sqnorm, diag = norms_and_diagonal(rows, self._kargs)
        Y = np.column_stack(binary_targets(self.classes_, y))
        bias2 = self._bias2()
        t, evals = _sb.run(self._budget_state, rows, sqnorm, _sb.data_of(diag + bias2, Y, sw),
                           self._kargs._replace(bias2=bias2), bplan, plan.n_iter, stream,
                           self._budget_t, first,
                           self._budget_report(self._budget_t, plan, self.n_kernel_evals_))
        self._budget_t = t
        self.n_kernel_evals_ += int(evals)
        self.n_iter_ = int(t - 1)

    def _fit_budget(self, X, y, sample_weight, mode):
        """``fit`` from memory with a budget below the rows: X and y validated."""
        classes = np.unique(y)
        check_two_classes(classes)
        self.classes_ = classes
        self.gamma_ = self._kernel_args(X).gamma
        sw = loss_weights(X, y, sample_weight, self.class_weight, classes)
        check_weighted_classes(y, sw)
        n = X.shape[0]
        plan, bplan = self._budget_plan(n, sw, mode)
        self.plan_ = plan
        if mode == _kp.PEGASOS:
            self.lam_ = plan.lam
        n_problems = len(positive_classes(classes))
        self._budget_state = self._start_budget(n_problems, X.shape[1], X.dtype)
        self._budget_t, self.n_kernel_evals_ = 1, 0
        self._budget_rng = np.random.default_rng(plan.seeds[0])  # (partial_fit goes on)
        stream = IndexStream(self.sampling, n, self._budget_rng)
        self._run_budget(X, y, sw, stream, plan, bplan, 0)
        self._budget_rows = n
        self._set_budget_model(sp.issparse(X))
        return self._fit_probability(X, y, sample_weight)

    def _set_budget_model(self, sparse):
        """SVC-style attributes from the budget: its points with a non-zero coefficient."""
        Z, coef = _sb.output(self._budget_state)
        if not np.all(np.isfinite(coef)):
            raise ValueError(
                "Floating-point overflow in the coefficients. Scale the input or increase lam.")
        keep = np.flatnonzero(np.any(coef != 0.0, axis=1))
        Z, coef = Z[keep], coef[keep]
        m = int(self._budget_state.count[0])
        self.support_ = self._budget_state.ids[:m][keep].copy()
        self.support_vectors_ = sp.csr_matrix(Z) if sparse else Z.copy()
        self.dual_coef_ = np.ascontiguousarray(coef.T)
        self.intercept_ = self._bias2() * coef.sum(axis=0)
        # each point counted for the class its coefficients vote for
        votes = (coef[:, 0] > 0).astype(int) if coef.shape[1] == 1 else np.argmax(coef, axis=1)
        self.n_support_ = np.bincount(votes, minlength=len(self.classes_)).astype(np.int32)

    def _partial_fit(self, X, y, classes, sample_weight, mode):
        """``partial_fit``: one pass of ``sampling`` over (X, y), the budget continued; a
        first call that fails half-way (a label not among ``classes``, a callback that raises)
        leaves no model behind, and the next call starts again."""
        # (a model fitted otherwise -- loaded, or unbudgeted -- is refused, and kept)
        new = not hasattr(self, "_budget_state") and not hasattr(self, "classes_")
        try:
            return self._partial_fit_call(X, y, classes, sample_weight, mode)
        except BaseException:
            if new:
                drop_fitted(self, BUDGET_STATE)
            raise

    def _partial_fit_call(self, X, y, classes, sample_weight, mode):
        """:meth:`_partial_fit`'s call."""
        if self.budget is None:
            raise ValueError(f"{type(self).__name__}.partial_fit keeps at most `budget` "
                             "support vectors: give budget (an int >= 1)")
        self._check_budget_kernel()
        if mode == _kp.PEGASOS and self.lam is None:
            raise ValueError("partial_fit needs lam: C sets lam = 1 / (C n), and an online "
                             "fit has no fixed n")
        first_call = not hasattr(self, "_budget_state")
        if first_call and hasattr(self, "classes_"):
            raise ValueError("partial_fit continues a budgeted fit made in this process, and "
                             "this model holds none (fitted while its budget held every "
                             "training row, or loaded from a file): fit again, or call "
                             "partial_fit on a new estimator")
        if first_call and classes is None:
            raise ValueError("classes must be given on the first call to partial_fit (every "
                             "label the calls will bring)")
        X, y = self._validate_xy(X, y, reset=first_call)
        if first_call:
            classes = np.unique(np.asarray(classes))
            check_two_classes(classes)
            self.classes_ = classes
            self.gamma_ = self._kernel_args(X).gamma
        elif classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(f"classes={np.unique(classes).tolist()} differs from the first "
                             f"call's {self.classes_.tolist()}")
        check_known_labels(y, self.classes_)
        sw = loss_weights(X, y, sample_weight, self.class_weight, self.classes_)
        n = X.shape[0]
        epochs = self.n_epochs if self.n_epochs is not None or self.n_iter is not None else 1.0
        plan, bplan = self._budget_plan(n, sw, mode, self.n_iter, epochs)
        bplan = bplan._replace(avg_start=_online_average(plan))
        if first_call:
            self._budget_state = self._start_budget(len(positive_classes(self.classes_)),
                                                    X.shape[1], X.dtype)
            self._budget_t, self.n_kernel_evals_, self._budget_rows = 1, 0, 0
            self._budget_rng = np.random.default_rng(plan.seeds[0])
            self.plan_ = plan
            if mode == _kp.PEGASOS:
                self.lam_ = plan.lam
        self._run_budget(X, y, sw, IndexStream(self.sampling, n, self._budget_rng), plan,
                         bplan, self._budget_rows)
        self._budget_rows += n
        self._set_budget_model(sp.issparse(X))
        return self

    def _fit_budget_stream(self, stream, y, sample_weight, mode):
        """``fit`` on a :class:`~pegasos.stream.SVMLightStream`: its rows a block of
        ``buffer_rows`` at a time, each block's rows in a random order, pass after pass."""
        unsupported = {
            "y": y is not None, "sample_weight": sample_weight is not None,
            "budget=None (a stream fit keeps a budget of support vectors)": self.budget is None,
            "C (it sets lam = 1 / (C n), and a stream's n is not known before it is read): "
            "give lam": mode == _kp.PEGASOS and self.lam is None,
            "probability=True": self.probability, "class_weight='balanced'":
            self.class_weight == "balanced"}
        for name, used in unsupported.items():
            if used:
                raise ValueError(f"A stream fit takes no {name}; a stream holds its labels.")
        self._check_budget_kernel()
        source = stream.rows()
        try:
            return self._stream_passes(stream, source, mode)
        finally:
            source.close()

    def _stream_passes(self, stream, source, mode):
        """:meth:`_fit_budget_stream` from its :class:`~pegasos.stream.RowSource`: each
        block's rows once, in a random order, until ``n_iter`` iterations or ``n_epochs``
        passes (whole blocks; a first pass is always whole)."""
        for key in ("_budget_state", "n_rows_read_", "holdout_errors_"):
            self.__dict__.pop(key, None)
        held = stream.holdout
        if isinstance(held, int):
            held = source.hold_out(held)
        elif isinstance(held, (str, os.PathLike)):
            held = load_svmlight(held, zero_based=source.zero_based)[:2]
        blocks = source.blocks_of(stream.buffer_rows)
        X, y, first, ends = next(blocks, (None, None, 0, False))
        if X is None:
            raise ValueError(f"{source.name}: no data: the stream has no rows to train on")
        width = X.shape[1] if stream.n_features is None else stream.n_features
        if width == 0:  # (sparse rows with no stored value, and no n_features)
            raise ValueError(f"{source.name}: the first block's rows have no features: give "
                             "rows of at least one feature (or the stream's n_features)")
        classes = np.unique(y) if stream.classes is None else stream.classes
        check_two_classes(classes)
        self.classes_, self.n_features_in_ = classes, width
        self.gamma_ = self._kernel_args(stack_rows([X], width)).gamma  # "scale": 1st block's
        plan, _ = self._budget_plan(X.shape[0], None, mode)
        k = plan.batch_size
        rng = self._budget_rng = np.random.default_rng(plan.seeds[0])
        passes = self.n_epochs if self.n_iter is None else None
        passes = self._STREAM_PASSES if passes is None and self.n_iter is None else passes
        total = self.n_iter if passes is not None or self.n_iter is not None else plan.n_iter
        self.plan_ = plan
        if mode == _kp.PEGASOS:
            self.lam_ = plan.lam
        self._budget_state = self._start_budget(len(positive_classes(classes)), width,
                                                X.dtype)
        self._budget_t, self.n_kernel_evals_, self._budget_rows = 1, 0, 0
        done, passes_done, pass_rows = 0, 0, None
        monitor = None if held is None else _Holdout(self, source.name, held, width, classes,
                                                     stream.n_iter_no_change)
        while X is not None and (total is None or done < total):
            check_width(X.shape[1], width)
            X = stack_rows([X], width)
            check_stream_labels(y, classes, first="block")
            T = -(-X.shape[0] // k)
            T = T if total is None else min(T, total - done)
            block_plan, bplan = self._budget_plan(X.shape[0], None, mode, n_iter=T)
            bplan = bplan._replace(k=k, avg_start=_online_average(plan))
            sw = loss_weights(X, y, None, self.class_weight, classes)
            self._run_budget(X, y, sw, IndexStream("permutation", X.shape[0], rng),
                             replace(block_plan, batch_size=k), bplan, first)
            done, self._budget_rows = done + T, self._budget_rows + X.shape[0]
            if ends:
                passes_done += 1
                pass_rows = pass_rows or self._budget_rows
            if passes is not None and (passes_done >= passes or (
                    pass_rows is not None and self._budget_rows >= passes * pass_rows)):
                break
            if monitor is not None and monitor.stop(done, k):
                break
            X, y, first, ends = next(blocks, (None, None, 0, False))
        self.n_rows_read_ = source.rows_read
        if monitor is not None:
            monitor.stop(done, k, last=True)
            self.holdout_errors_ = np.array(monitor.errors, dtype=np.float64).reshape(-1, 2)
        self._set_budget_model(True)
        return self


class _Holdout:
    """A budgeted stream fit's held-out error, measured after a block by the stream fits'
    one :class:`~pegasos._stream_params.HeldOutRule`."""

    def __init__(self, est, name, held, width, classes, patience):
        check_held_out(name, held, width, classes)
        self.est, self.X, self.y = est, stack_rows([held[0]], width), held[1]
        self.rule = HeldOutRule(len(self.y), patience)
        self.errors = self.rule.errors

    def stop(self, done, k, last=False):
        """Measure after ``done`` iterations of ``k`` rows if due; True to stop."""
        if not self.rule.due(done * k, last):
            return False
        self.est._set_budget_model(True)  # (the model a stream fit outputs)
        error = float(np.mean(self.est.predict(self.X) != self.y))
        return self.rule.record(done, done * k, error)


def _online_average(plan):
    """A stream's and ``partial_fit``'s first averaged step: every iterate is averaged
    unless ``average=False`` (the last iterate; ``plan.n_average == 0``)."""
    return 1 if plan.n_average is None or plan.n_average > 0 else plan.avg_start(1)




def check_budget_fitted(est):
    """The estimator holds a budgeted fit (``partial_fit``'s or ``fit``'s)."""
    check_is_fitted(est)
    return hasattr(est, "_budget_state")

