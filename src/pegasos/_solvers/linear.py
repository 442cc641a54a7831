"""Linear Pegasos' solver layer: its state, its driver, and the Dask backend's steps.

The estimator (:class:`pegasos.PegasosClassifier`) validates, plans and keeps
the fitted attributes; this module runs the plan.  :func:`fit_binary` drives
the compiled steps (:func:`pegasos._numba.linear.pegasos_steps`) of one binary
problem from a :class:`PegasosState`; a :class:`Monitor` decides what happens
between compiled calls (certificate checks, history, the ``callback``'s
:class:`~pegasos.Report`).  The distributed fit's worker and driver steps
(:func:`partition_sum`, :func:`local_epoch`, :func:`step_from_sum`) call the
same compiled step by its named settings.  :func:`set_fitted` is the one
place a fitted linear model's attributes and state are built (fit, load,
LIBLINEAR import, Dask).
"""

import math
import time
import warnings
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .._base import BLOCK_DRAWS, MAX_COUNT, NEVER, check_finite_weights
from .._numba import linear as _k
from .._numba.linear import LinearData, LinearPlan, LinearState
from .._rows import (
    Rows,
    as_rows,
    check_array,
    check_draws,
    check_linear_state,
    check_per_row,
)
from .._sampling import IndexStream
from ..objective import gap_from_rows
from .report import Report


class Layout(NamedTuple):
    """Where the intercept lives: an augmented constant feature, or a free ``b``.

    Parameters
    ----------
    bias_feature : float
        The value of the constant feature appended to every row (0: none).
    unregularized : bool
        A free intercept outside the norm.

    See Also
    --------
    PegasosState : The state the layout reads.

    Examples
    --------
    >>> from pegasos.linear import Layout
    >>> Layout(1.0, False).bias_feature
    1.0
    """

    bias_feature: float
    unregularized: bool


class Problem(NamedTuple):
    """One binary problem's data, in the compiled code's layout."""

    rows: object
    target: np.ndarray
    weights: np.ndarray
    lam: float
    layout: Layout
    sqnorms: "SquaredNorms"


@dataclass
class PegasosState:
    """Linear Pegasos' solver state: all a fit continues from, one row per binary problem.

    The weights are ``w = scal[A] * v`` (``v`` has one more entry than there are
    features, the augmented intercept feature's), the running average is
    ``u + scal[BETA] * v`` over ``scal[N_AVG]`` iterates, ``t`` is the next
    step of each problem, and ``gamma``/``ugamma`` are the expansion
    coefficients of ``v`` and of the average in the training rows (empty after
    :meth:`~PegasosClassifier.partial_fit`), from which the certificate's dual
    vector is read.  See :mod:`pegasos._numba.linear` for ``scal``'s layout.
    Saved and loaded by :func:`pegasos.save_model`/:func:`pegasos.load_model`.

    Parameters
    ----------
    v : ndarray of shape (n_problems, d + 1)
        The weights' direction; ``w = scal[A] * v``.
    u : ndarray of shape (n_problems, d + 1)
        The running average's accumulated part.
    scal : ndarray of shape (n_problems, N_SCALARS)
        Each problem's scalars: the scale, the average's weights, the free
        intercept, ``||w||^2``.
    t : ndarray of int64, shape (n_problems,)
        The next step of each problem.
    gamma : ndarray of shape (n_problems, n_rows)
        The expansion coefficients of ``v`` in the training rows (n_rows 0:
        none kept).
    ugamma : ndarray of shape (n_problems, n_rows)
        Those of the average.

    See Also
    --------
    fit_binary : Runs the iterations on it.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from pegasos import PegasosClassifier
    >>> clf = PegasosClassifier(lam=0.01, random_state=0).fit(*load_iris(return_X_y=True))
    >>> clf.state_.v.shape, clf.state_.t.tolist() == [clf.t_ + 1] * 3
    ((3, 5), True)
    """

    v: np.ndarray
    u: np.ndarray
    scal: np.ndarray
    t: np.ndarray
    gamma: np.ndarray
    ugamma: np.ndarray

    @classmethod
    def start(cls, n_problems, d):
        """The state of w = 0 for every problem, at step 1.

        Parameters
        ----------
        n_problems : int
            Binary problems.
        d : int
            Features.

        Returns
        -------
        PegasosState
            A new state.
        """
        scal = np.zeros((n_problems, _k.N_SCALARS))
        scal[:, _k.A] = 1.0
        return cls(v=np.zeros((n_problems, d + 1)), u=np.zeros((n_problems, d + 1)), scal=scal,
                   t=np.ones(n_problems, dtype=np.int64), gamma=np.zeros((n_problems, 0)),
                   ugamma=np.zeros((n_problems, 0)))

    @classmethod
    def from_model(cls, coef, intercept, layout, t):
        """The state of a model known only by ``coef_``/``intercept_``, at step t (no average).

        Parameters
        ----------
        coef : ndarray of shape (n_problems, d)
            The weights.
        intercept : ndarray of shape (n_problems,)
            The intercepts.
        layout : Layout
            Where the intercept lives.
        t : int
            The step to continue from.

        Returns
        -------
        PegasosState
            A state with no dual coefficients.
        """
        n_problems, d = coef.shape
        state = cls.start(n_problems, d)
        state.v[:, :d] = coef
        if layout.bias_feature:
            state.v[:, d] = np.asarray(intercept) / layout.bias_feature
        elif layout.unregularized:
            state.scal[:, _k.BIAS] = intercept
        state.scal[:, _k.WNORM2] = np.einsum("ij,ij->i", state.v, state.v)
        state.t[:] = t
        return state

    def solver_state(self, c):
        """Problem c's rows of the state, as the compiled steps take them.

        Parameters
        ----------
        c : int
            The problem.

        Returns
        -------
        LinearState
            Views of this state's rows
            (:func:`~pegasos._numba.linear.pegasos_steps` updates them in place).
        """
        return LinearState(self.v[c], self.u[c], self.gamma[c], self.ugamma[c], self.scal[c])

    def keep_alpha(self, n_rows):
        """Track dual coefficients for ``n_rows`` training rows; they refer to one set.

        Parameters
        ----------
        n_rows : int
            Training rows (0: none kept).
        """
        if self.gamma.shape[1] != n_rows:
            self.gamma = np.zeros((self.v.shape[0], n_rows))
            self.ugamma = np.zeros((self.v.shape[0], n_rows))

    def restart_average(self):
        """Forget the running average (a new fit's suffix average starts afresh)."""
        self.u[:] = 0.0
        self.ugamma[:] = 0.0
        self.scal[:, [_k.BETA, _k.N_AVG, _k.BIAS_SUM, _k.N_FOLD]] = 0.0

    def iterate(self, c):
        """The current iterate of binary problem c, not averaged.

        Parameters
        ----------
        c : int
            The problem.

        Returns
        -------
        ndarray of shape (d + 1,)
            The weights, the intercept feature's last.
        """
        return self.scal[c, _k.A] * self.v[c]

    def output(self, c):
        """The output model of binary problem c: averaged, or the last iterate.

        Parameters
        ----------
        c : int
            The problem.

        Returns
        -------
        w : ndarray of shape (d + 1,)
            The weights, the intercept feature's last.
        b : float
            The unregularised intercept (0 unless the layout has one).
        """
        v, u, s = self.v[c], self.u[c], self.scal[c]
        if s[_k.N_AVG] > 0:
            return (u + s[_k.BETA] * v) / s[_k.N_AVG], s[_k.BIAS_SUM] / s[_k.N_AVG]
        return s[_k.A] * v, s[_k.BIAS]

    def alpha(self, c, target, lam):
        """Pegasos' implicit dual vector for the output model of problem c.

        Parameters
        ----------
        c : int
            The problem.
        target : ndarray of shape (n_rows,)
            Its targets in {-1, +1}.
        lam : float
            The regularisation.

        Returns
        -------
        ndarray of shape (n_rows,) or None
            The dual vector, or None when no coefficients are kept for these rows.
        """
        gamma = self.gamma[c]
        if gamma.shape[0] != target.shape[0]:
            return None
        s = self.scal[c]
        if s[_k.N_AVG] > 0:
            coef = (self.ugamma[c] + s[_k.BETA] * gamma) / s[_k.N_AVG]
        else:
            coef = s[_k.A] * gamma
        return lam * len(target) * coef * target

    def model(self, c, layout):
        """Problem c's output model as a linear model's attributes.

        Parameters
        ----------
        c : int
            The problem.
        layout : Layout
            Where the intercept lives.

        Returns
        -------
        coef : ndarray of shape (d,)
            The weights.
        intercept : float
            The intercept.
        """
        w, b = self.output(c)
        return w[:-1], float(w[-1] * layout.bias_feature + b)

    def coef_intercept(self, layout):
        """The output models as ``coef_`` and ``intercept_``.

        Parameters
        ----------
        layout : Layout
            Where the intercept lives.

        Returns
        -------
        coef : ndarray of shape (n_problems, d)
            The weights.
        intercept : ndarray of shape (n_problems,)
            The intercepts.
        """
        models = [self.model(c, layout) for c in range(self.v.shape[0])]
        return np.array([coef for coef, _ in models]), np.array([b for _, b in models])

    def check(self, n_problems, d):
        """Refuse a state whose shapes or values cannot belong to this model (a loaded file).

        Parameters
        ----------
        n_problems : int
            The model's binary problems.
        d : int
            Its features.

        Raises
        ------
        ValueError
            Naming the field that does not fit.
        """
        shapes = {"v": (n_problems, d + 1), "u": (n_problems, d + 1),
                  "scal": (n_problems, _k.N_SCALARS), "t": (n_problems,)}
        for name in ("v", "u", "scal", "t", "gamma", "ugamma"):
            value, dtype = getattr(self, name), np.int64 if name == "t" else np.float64
            if not (isinstance(value, np.ndarray) and value.dtype == dtype):
                raise ValueError(f"state_.{name} must be a {np.dtype(dtype)} array; got "
                                 f"{getattr(value, 'dtype', type(value).__name__)}")
        for name, shape in shapes.items():
            if getattr(self, name).shape != shape:
                raise ValueError(f"state_.{name} must have shape {list(shape)} for "
                                 f"{n_problems} problems and {d} features; got "
                                 f"{list(getattr(self, name).shape)}")
        if (self.gamma.ndim != 2 or self.gamma.shape != self.ugamma.shape
                or self.gamma.shape[0] != n_problems):
            raise ValueError("state_.gamma and state_.ugamma must have one row per problem")
        if not np.all((self.t >= 1) & (self.t < MAX_COUNT)):
            raise ValueError("state_.t must be in [1, 2**62)")
        for name in ("v", "u", "scal", "gamma", "ugamma"):
            if not np.all(np.isfinite(getattr(self, name))):
                raise ValueError(f"state_.{name} holds NaN or infinite values")
        if not np.all(self.scal[:, _k.A] > 0):
            raise ValueError("state_.scal's scale (column A) must be > 0")


class SquaredNorms:
    """||x_i||^2 + bias_feature^2, computed for the rows drawn until an epoch's worth.

    A short run never touches most rows, so its cost does not grow with n; after
    an epoch's worth of draws the rest are filled at once.  Filled up front
    (``now``) when one-vs-rest problems share it across threads, and when a
    certificate, which needs every row, is due.
    """

    def __init__(self, rows, bias_feature, now):
        self.rows, self.bias_feature = rows, bias_feature
        self.values = np.full(rows.n_rows, -1.0)
        self.done, self.drawn = False, 0
        if now:
            self.fill()

    def fill(self):
        if not self.done:
            _k.fill_sqnorms_at(self.rows.kernel, self.values,
                               np.flatnonzero(self.values < 0.0), self.bias_feature)
            self.done = True

    def at(self, idx):
        if self.done:
            return
        self.drawn += idx.shape[0]
        if self.drawn >= self.rows.n_rows:
            self.fill()
        else:
            _k.fill_sqnorms_at(self.rows.kernel, self.values, idx, self.bias_feature)


def certificate(problem, state, c):
    """The :class:`~pegasos.objective.DualityGap` of problem c's output model."""
    w, b = state.output(c)
    alpha = state.alpha(c, problem.target, problem.lam)
    layout = problem.layout
    return gap_from_rows(problem.rows, problem.target, problem.weights, problem.lam, w,
                         layout.bias_feature, b, layout.unregularized, alpha,
                         problem.sqnorms.values)


def fit_binary(X, target, weights, plan, state, c=0, monitor=None, *, layout=Layout(1.0, False),
               sampling="uniform", init="zero", sqnorms=None):
    """Run ``plan.n_iter`` Pegasos iterations of binary problem c from ``state``, in place.

    The module-level driver every linear fit runs, once per one-vs-rest problem
    (in the spirit of scikit-learn's ``fit_binary``): ``X`` (dense, CSR, or
    rows already prepared), ``target`` in {-1, +1}, the loss ``weights``, a
    :class:`~pegasos._base.FitPlan` and a :class:`PegasosState` whose row c
    is continued.  The draws come from ``plan.seeds[c]``.

    Parameters
    ----------
    X : {ndarray, sparse matrix, Rows}
        The training rows.
    target : ndarray of shape (n_rows,)
        The problem's targets in {-1, +1}.
    weights : ndarray of shape (n_rows,)
        The loss weights.
    plan : FitPlan
        Lambda, the budget, the batch size, the averaging, the radius, the seeds.
    state : PegasosState
        Continued in place.
    c : int, default=0
        The problem, a row of ``state``.
    monitor : Monitor, default=None
        How many iterations go to one compiled call and, after each, the
        tolerance check, the history and the reports; None: no checks.
    layout : Layout, default=Layout(1.0, False)
        Where the intercept lives.
    sampling : {"uniform", "permutation", "cyclic"}, default="uniform"
        How the batches are drawn.
    init : {"zero", "random"}, default="zero"
        At step 1, start from the state's w (zero from :meth:`PegasosState.start`)
        or from a random point of the ball, as the estimator's ``init``.
    sqnorms : SquaredNorms, default=None
        The rows' squared norms, shared between problems; computed when None.

    Returns
    -------
    int
        The iterations run: ``plan.n_iter``, or fewer when the tolerance is met.

    See Also
    --------
    pegasos.PegasosClassifier : Calls it once per problem.

    Examples
    --------
    >>> import numpy as np
    >>> from pegasos._base import make_plan
    >>> from pegasos.linear import Layout, PegasosState, fit_binary
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = np.where(X[:, 0] > 0, 1.0, -1.0)
    >>> plan = make_plan(lam=0.01, C=None, n=200, n_iter=2000, n_epochs=None, batch_size=1,
    ...                  average=0.5, radius2=None, random_state=0, n_problems=1)
    >>> state = PegasosState.start(1, 3)
    >>> fit_binary(X, y, np.ones(200), plan, state)
    2000
    >>> coef, intercept = state.coef_intercept(Layout(1.0, False))
    >>> float(np.mean(np.sign(X @ coef[0] + intercept[0]) == y)) > 0.9
    True
    """
    rows = X if isinstance(X, Rows) else as_rows(X)
    if sqnorms is None:
        sqnorms = SquaredNorms(rows, layout.bias_feature, now=False)
    if monitor is None:
        monitor = Monitor(n_problems=len(plan.seeds), total=plan.n_iter, layout=layout)
    problem = Problem(rows, target, weights, plan.lam, layout, sqnorms)
    check_per_row(rows, targets=target, loss_weights=weights, squared_norms=sqnorms.values)
    solver_state = state.solver_state(c)
    check_linear_state(rows, *solver_state, _k.N_SCALARS)
    rng = np.random.default_rng(plan.seeds[c])
    t = int(state.t[c])
    if init == "random" and t == 1:
        random_init(state.v[c], state.scal[c], plan.radius2 or 1.0 / plan.lam,
                    layout.bias_feature, rng)
    data = LinearData(rows=rows.kernel, y=target, sw=weights, sqnorm=sqnorms.values)
    settings = LinearPlan(k=plan.batch_size, lam=plan.lam, bias_feature=layout.bias_feature,
                          unreg_bias=layout.unregularized, radius2=plan.radius2,
                          avg_start=plan.avg_start(t), every=False)
    stream = IndexStream(sampling, rows.n_rows, rng)
    k, done, elapsed = plan.batch_size, 0, 0.0
    while done < plan.n_iter:
        steps = min(monitor.block(rows.n_rows, k), plan.n_iter - done)
        idx = stream.take(steps * k)
        check_draws(idx, rows.n_rows)
        tic = time.perf_counter()
        sqnorms.at(idx)
        t = _k.pegasos_steps(data, settings, solver_state, idx, t)
        elapsed += time.perf_counter() - tic
        done += steps
        check_finite_weights(f"iteration {t - 1}", state.v[c], state.scal[c])
        state.t[c] = t
        if monitor.after_block(problem, state, c, done, elapsed):
            break
    return done


def fit_stream(source, problems, plan, state, layout, monitor):
    """Pegasos on every problem from a stream: ``plan.n_iter`` iterations, a round at a
    time, each round's draws from ``source`` (a :class:`~pegasos.stream.RowSource`, whose
    shuffle buffer is filled and whose width is set).

    ``problems(y)`` gives the targets (one row per problem) and loss weights of rows.
    Each round's draws (:meth:`~pegasos.stream.RowSource.draw_round`: one seed for all
    problems, which share the rows) go to every problem's compiled steps.  ``monitor``
    (a :class:`StreamMonitor`) may stop the fit after a round.  Returns the iterations
    run (the source counts the rows read).
    """
    rng = np.random.default_rng(plan.seeds[0])
    k, done = plan.batch_size, 0
    settings = LinearPlan(k=k, lam=plan.lam, bias_feature=layout.bias_feature,
                          unreg_bias=layout.unregularized, radius2=plan.radius2,
                          avg_start=plan.avg_start(int(state.t[0])), every=False)
    while done < plan.n_iter:
        X, labels, idx = source.draw_round(rng, k, plan.n_iter - done)
        _stream_round(as_rows(X), labels, idx, problems, settings, state, layout)
        done += idx.shape[0] // k
        if monitor.after_round(state, done) or done >= plan.n_iter:
            break
    return done


def _stream_round(rows, labels, idx, problems, settings, state, layout):
    """Every problem's compiled steps on the draws ``idx`` of ``rows``."""
    check_draws(idx, rows.n_rows)
    targets, weights = problems(labels)
    sqnorms = SquaredNorms(rows, layout.bias_feature, now=False)
    sqnorms.at(idx)
    for c, target in enumerate(targets):
        check_per_row(rows, targets=target, loss_weights=weights, squared_norms=sqnorms.values)
        solver_state = state.solver_state(c)
        check_linear_state(rows, *solver_state, _k.N_SCALARS)
        data = LinearData(rows=rows.kernel, y=target, sw=weights, sqnorm=sqnorms.values)
        state.t[c] = _k.pegasos_steps(data, settings, solver_state, idx, int(state.t[c]))
        check_finite_weights(f"iteration {state.t[c] - 1}", state.v[c], state.scal[c])


class StreamMonitor:
    """Between a stream fit's rounds: the held-out error and the rule that stops on it,
    verbose lines, the ``callback``'s :class:`Report` (with the rows and bytes read)."""

    def __init__(self, *, source, classes, total, k, layout, holdout=None, patience=5,
                 verbose=0, callback=None):
        self.source, self.classes, self.total = source, classes, total
        self.k, self.layout, self.holdout, self.patience = k, layout, holdout, patience
        self.verbose, self.callback = verbose, callback
        self.errors = []  # (iterations, held-out error) at each measurement
        self.tic = source.started  # (the rows and bytes read count from there)
        self.printed = time.perf_counter()
        self.checked = 0  # iterations at the last measurement

    def after_round(self, state, done):
        """Measure, print and report after a round; True to stop (no new lowest error in
        ``patience`` measurements)."""
        error, now = None, time.perf_counter()
        if self.holdout is not None and (done - self.checked) * self.k >= max(
                self.holdout[0].shape[0], done * self.k / 10):
            error, self.checked = self.holdout_error(state), done
            self.errors.append((done, error))
        elapsed, source = now - self.tic, self.source
        if self.verbose and (error is not None or now - self.printed >= 2.0):
            self.printed = now
            print(f"[pegasos] stream: {done} iterations, {source.progress(elapsed)}"
                  + ("" if error is None else f", held-out error {error:.4f}")
                  + f" ({elapsed:.2f}s)")
        if self.callback is not None:
            for c in range(state.v.shape[0]):
                coef, intercept = state.model(c, self.layout)
                self.callback(Report(
                    problem=c, n_problems=state.v.shape[0], t=int(state.t[c]) - 1,
                    iterations=done, iterations_total=self.total, seconds=elapsed,
                    coef=coef.copy(), intercept=intercept, rows_read=source.rows_read,
                    bytes_read=source.bytes_read, holdout_error=error))
        if error is None:
            return False
        best = min(range(len(self.errors)), key=lambda i: self.errors[i][1])  # the first lowest
        return len(self.errors) - 1 - best >= self.patience

    def finish(self, state, done):
        """Measure the final model too (a fit that ran to its budget)."""
        if self.holdout is not None and self.checked != done:
            self.errors.append((done, self.holdout_error(state)))

    def holdout_error(self, state):
        """The held-out rows' classification error of the current models."""
        X, y = self.holdout
        coef, intercept = state.coef_intercept(self.layout)
        scores = X @ coef.T + intercept
        labels = self.classes[(scores[:, 0] > 0).astype(int)] if len(self.classes) == 2 \
            else self.classes[np.argmax(scores, axis=1)]
        return float(np.mean(labels != y))


#: What ``objective_history_`` records at each check.
HISTORY_KEYS = ("t", "primal", "dual", "time")


def new_history():
    return {key: [] for key in HISTORY_KEYS}


class Monitor:
    """What happens between compiled calls: tolerance checks, history, verbose lines, callback."""

    def __init__(self, *, n_problems, total, layout, tol=None, track=False, check_every=2.0,
                 verbose=0, callback=None, history=None):
        self.tol, self.track, self.verbose, self.callback = tol, track, verbose, callback
        self.checking = tol is not None or track
        self.check_every = check_every
        self.n_problems, self.total, self.layout = n_problems, total, layout
        self.gaps = [None] * n_problems if self.checking else None
        self.history = [{key: list(val) for key, val in hist.items()}
                        for hist in (history or [new_history() for _ in range(n_problems)])]

    def block(self, n_rows, k):
        """Iterations per compiled call: ``check_every`` epochs, else ~65,536 examples."""
        if self.checking:  # (no more than the whole run: check_every may be huge)
            return max(1, round(min(self.check_every * math.ceil(n_rows / k), self.total)))
        return max(1, BLOCK_DRAWS // k)

    def after_block(self, problem, state, c, done, elapsed):
        """Check, record and report after a compiled call; True to stop (``tol`` met)."""
        gap, t = None, int(state.t[c])
        if self.checking:
            gap = self.gaps[c] = certificate(problem, state, c)
            if self.track:
                for key, val in zip(HISTORY_KEYS, (t - 1, gap.primal, gap.dual, elapsed)):
                    self.history[c][key].append(val)
            if self.verbose:
                print(f"[pegasos] problem {c}: t={t - 1} P={gap.primal:.6g} D={gap.dual:.6g} "
                      f"rel.gap={gap.relative_gap:.3g} ({elapsed:.2f}s)")
        if self.callback is not None:
            coef, intercept = state.model(c, self.layout)
            self.callback(Report(
                problem=c, n_problems=self.n_problems, t=t - 1, iterations=done,
                iterations_total=self.total, seconds=elapsed, coef=coef.copy(),
                intercept=intercept, gap=gap))
        return self.tol is not None and gap.relative_gap <= self.tol

    def histories(self):
        return [{key: np.asarray(val) for key, val in hist.items()} for hist in self.history]


def warn_unconverged(gaps, tol, T):
    """A ConvergenceWarning for each problem whose certified gap is still above ``tol``."""
    for c, gap in enumerate(gaps):
        if gap is None or gap.relative_gap <= tol:
            continue
        which = f" (one-vs-rest problem {c})" if len(gaps) > 1 else ""
        warnings.warn(
            f"Pegasos did not reach tol={tol:g} in {T} iterations{which}: the certified relative "
            f"duality gap is {gap.relative_gap:.3g} (primal {gap.primal:.6g}, dual "
            f"{gap.dual:.6g}). Scale the features (e.g. StandardScaler), raise n_iter or "
            "n_epochs, or increase lam.",
            ConvergenceWarning,
            stacklevel=5,  # the caller of fit (through _fit_context)
        )


def check_first_step(rows, sw, lam, k, bias_feature):
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


def random_init(v, scal, radius2, bias_feature, rng):
    """A uniform random point of the ball of squared radius ``radius2``."""
    d = v.shape[0] - 1
    dims = d + (1 if bias_feature else 0)
    z = rng.standard_normal(dims)
    r = math.sqrt(radius2) * rng.random() ** (1.0 / dims)
    v[:dims] = z * (r / np.linalg.norm(z))
    scal[_k.A] = 1.0
    scal[_k.WNORM2] = float(v @ v)


# --- the distributed fit's steps (pegasos.dask_backend) ----------------------


def partition_sum(rows, y, idx, w, bias_feature):
    """The sum of y_i x_i over the margin violators among the rows ``idx`` (with w).

    One data partition's share of a synchronous mini-batch round: ``rows``
    are the partition's (:class:`~pegasos._rows.Rows`), ``w`` the broadcast
    weights (d+1, the augmented coordinate last).
    """
    out = np.zeros(w.shape[0])
    check_per_row(rows, targets=y)
    check_draws(idx, rows.n_rows)
    check_array("the weights w", w, (rows.n_features + 1,))
    _k.violator_sum(rows.kernel, y, idx, w, bias_feature, out)
    return out


def local_epoch(rows, y, w, *, t0, lam, bias_feature, radius2, draws):
    """Plain Pegasos (k = 1, no average) on one partition from w, step t0 first,
    over the rows ``draws``; returns the partition's new w (d+1)."""
    n = rows.n_rows
    v = np.asarray(w, dtype=np.float64).copy()
    scal = np.zeros(_k.N_SCALARS)
    scal[_k.A] = 1.0
    scal[_k.WNORM2] = float(v @ v)
    empty = np.zeros(0)
    state = LinearState(v=v, u=np.zeros_like(v), gamma=empty, ugamma=empty, scal=scal)
    sqnorm = _k.row_sqnorms(rows.kernel, n) + bias_feature**2
    check_per_row(rows, targets=y)
    check_draws(draws, n)
    check_linear_state(rows, *state, _k.N_SCALARS)
    _k.pegasos_steps(
        LinearData(rows=rows.kernel, y=y, sw=np.ones(n), sqnorm=sqnorm),
        LinearPlan(k=1, lam=lam, bias_feature=bias_feature, unreg_bias=False, radius2=radius2,
                   avg_start=NEVER, every=False),
        state, draws, t0)
    return scal[_k.A] * v


_ONE, _FIRST = np.ones(1), np.zeros(1, dtype=np.int64)


def step_from_sum(g, k, t, plan, avg_start, state):
    """Step t of the in-memory solver, given the sum g of its k examples' violators' y x.

    The compiled step itself, fed one row, ``g``, that is added whatever its
    margin (``every``), with weight 1/k: the same shrink, projection and
    averaging as in memory.  ``state`` is problem 0's :class:`PegasosState`,
    updated in place; returns the next step.
    """
    d = g.shape[0] - 1
    row = as_rows(np.ascontiguousarray(g[:d].reshape(1, d)))
    solver_state = state.solver_state(0)
    check_linear_state(row, *solver_state, _k.N_SCALARS)
    data = LinearData(rows=row.kernel, y=_ONE, sw=np.array([1.0 / k]),
                      sqnorm=np.array([float(g @ g)]))
    settings = LinearPlan(k=1, lam=plan.lam, bias_feature=float(g[d]), unreg_bias=False,
                          radius2=plan.radius2, avg_start=avg_start, every=True)
    return _k.pegasos_steps(data, settings, solver_state, _FIRST, t)


def set_fitted(est, *, classes, coef, intercept, lam, t, n_iter, state=None, history=None,
               gaps=None):
    """Set a linear estimator's fitted attributes, and its solver state, in one place.

    ``state`` is the :class:`PegasosState` a fit ran (None: the state of a
    model known only by ``coef``/``intercept``, at step ``t + 1``, as a
    LIBLINEAR import or a distributed fit gives it).  ``t`` is the last step
    taken; ``history`` the ``objective_history_`` (empty by default) and
    ``gaps`` the ``duality_gap_`` (None: not computed).
    """
    est.classes_ = classes
    est.coef_ = np.ascontiguousarray(coef, dtype=np.float64)
    est.intercept_ = np.asarray(intercept, dtype=np.float64)
    est.n_features_in_ = est.coef_.shape[1]
    est.lam_ = float(lam)
    est.n_iter_ = int(n_iter)
    est.t_ = int(t)
    if state is None:
        state = PegasosState.from_model(est.coef_, est.intercept_, est._intercept_layout(),
                                        t + 1)
    est.state_ = state
    est.objective_history_ = [] if history is None else history
    est.duality_gap_ = gaps
    return est
