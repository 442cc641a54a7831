"""Linear Pegasos from a stream: :func:`fit_stream` runs every binary problem on the
rounds of rows a :class:`~pegasos.stream.RowSource` draws (it knows no storage: a
shuffle buffer or a cache, text files or blocks), and a :class:`StreamMonitor` decides
what happens between rounds (the held-out error and the rule that stops on it, verbose
lines, the ``callback``'s :class:`~pegasos.Report`)."""

import time

import numpy as np

from ..._base import check_finite_weights
from ..._numba import linear as _k
from ..._numba.linear import LinearData, LinearPlan
from ..._rows import as_rows, check_draws, check_linear_state, check_per_row
from ..._stream_params import HeldOutRule
from ..report import Report
from .state import SquaredNorms


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
        self.k, self.layout, self.holdout = k, layout, holdout
        self.verbose, self.callback = verbose, callback
        self.rule = HeldOutRule(0 if holdout is None else holdout[0].shape[0], patience)
        self.errors = self.rule.errors  # (iterations, held-out error) at each measurement
        self.tic = source.started  # (the rows and bytes read count from there)
        self.printed = time.perf_counter()

    def after_round(self, state, done):
        """Measure, print and report after a round; True to stop (no new lowest error in
        ``patience`` measurements)."""
        error, stop, now = None, False, time.perf_counter()
        if self.holdout is not None and self.rule.due(done * self.k):
            error = self.holdout_error(state)
            stop = self.rule.record(done, done * self.k, error)
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
        return stop

    def finish(self, state, done):
        """Measure the final model too (a fit that ran to its budget)."""
        if self.holdout is not None and self.rule.due(done * self.k, last=True):
            self.rule.record(done, done * self.k, self.holdout_error(state))

    def holdout_error(self, state):
        """The held-out rows' classification error of the current models."""
        X, y = self.holdout
        coef, intercept = state.coef_intercept(self.layout)
        scores = X @ coef.T + intercept
        labels = self.classes[(scores[:, 0] > 0).astype(int)] if len(self.classes) == 2 \
            else self.classes[np.argmax(scores, axis=1)]
        return float(np.mean(labels != y))
