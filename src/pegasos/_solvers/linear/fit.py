"""Linear Pegasos in memory: :func:`fit_binary` drives the compiled steps
(:func:`pegasos._numba.linear.pegasos_steps`) of one binary problem from a
:class:`~.state.PegasosState`; a :class:`Monitor` decides what happens between compiled
calls (certificate checks, history, the ``callback``'s :class:`~pegasos.Report`)."""

import math
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..._base import BLOCK_DRAWS, check_finite_weights
from ..._numba import linear as _k
from ..._numba.linear import LinearData, LinearPlan
from ..._rows import Rows, as_rows, check_draws, check_linear_state, check_per_row
from ..._sampling import IndexStream
from ..report import Report
from .state import Layout, Problem, SquaredNorms, certificate, random_init


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
