"""``NystroemPegasosClassifier(solver="landmark")``: Pegasos in the landmarks'
coefficients (:mod:`pegasos._numba.landmark`), from memory or a stream.

The rows come in chunks (a multiple of the batch size): each chunk's kernel rows
against the landmarks are one block of the engine, then its mini-batches step in
order.  In memory the chunks cut consecutive permutations of the rows
(:func:`order_chunks`); from a stream, its rows as read, each chunk shuffled.
"""

import time

import numpy as np

from ._base import binary_targets
from ._numba import landmark as _nl
from ._solvers.report import Report
from ._stream_params import HeldOutRule


def order_chunks(n, total, chunk, rng):
    """The first ``total`` entries of consecutive permutations of ``range(n)`` (drawn
    by ``rng``, a NumPy Generator), in chunks of ``chunk`` (the last may be shorter)."""
    pending, done = np.empty(0, np.int64), 0
    while done < total:
        while len(pending) < min(chunk, total - done):
            pending = np.concatenate([pending, rng.permutation(n)])
        take = min(chunk, total - done)
        yield pending[:take]
        pending, done = pending[take:], done + take


def chunk_rows(block_rows, k):
    """Rows of a chunk: ``block_rows`` rounded down to a multiple of ``k`` (at least k)."""
    return max(k, block_rows - block_rows % k)


class Spectrum:
    """From K_mm's SVD ``U diag(S) V`` (S raised to the map's floor), of which the map is
    ``N = normalization_ = U diag(S)^{-1/2} V`` (``phi(x) = N k(x)``): the step's
    ``N^T N = V^T diag(1/S) V`` (K_mm's pseudo-inverse) and the map back from the
    coefficients ``beta = N^T w`` to the mapped rows' weights, ``w = U diag(S)^{1/2} V beta``."""

    def __init__(self, U, S, V, dtype=np.float64):
        self.inverse = np.ascontiguousarray((V.T / S) @ V, dtype=dtype)
        self._root = (U * np.sqrt(S)) @ V

    def weights(self, beta):
        """The weights (P, m) on the mapped rows of the coefficients beta (m, P)."""
        return (self._root @ beta).T


class HoldoutMonitor:
    """The held-out error of the current model (``K`` the held-out rows' kernel rows),
    measured after a chunk by the stream fits' one
    :class:`~pegasos._stream_params.HeldOutRule`."""

    def __init__(self, K, y, classes, patience):
        self.K, self.y, self.classes = K, y, classes
        self.rule = HeldOutRule(len(y), patience)
        self.errors = self.rule.errors

    def measure(self, state, t, drawn, last=False):
        """Measure after step t and ``drawn`` rows if due; True to stop."""
        if not self.rule.due(drawn, last):
            return False
        beta, bias = output(state)  # (the model the fit would output now)
        scores = self.K @ beta + bias
        labels = (self.classes[(scores[:, 0] > 0).astype(int)] if scores.shape[1] == 1
                  else self.classes[np.argmax(scores, axis=1)])
        return self.rule.record(t, drawn, float(np.mean(labels != self.y)))


def fit(est, chunks, classes, plan, spectrum, kernel_rows, holdout=None):
    """``plan.n_iter`` steps of ``plan.batch_size`` rows over ``chunks`` (an iterable of
    (X rows, labels, loss weights), each a multiple of the batch but the last);
    ``kernel_rows(X)`` is K(X, landmarks) (n, m), C-contiguous; ``holdout`` a
    :class:`HoldoutMonitor` or None.  Returns (weights (P, m) on the mapped rows,
    intercepts (P,), steps run)."""
    k, m = plan.batch_size, spectrum.inverse.shape[0]
    P = 1 if len(classes) == 2 else len(classes)
    lp = _nl.LandmarkPlan(k, float(plan.lam), float(plan.radius2), int(plan.avg_start(1)))
    state = new_state(m, P, spectrum.inverse.dtype)
    t, drawn, tic = 0, 0, time.perf_counter()
    for X, y, sw in chunks:
        K = kernel_rows(X)
        Y = np.ascontiguousarray(np.column_stack(binary_targets(classes, y)))
        t = _nl.landmark_steps(K, Y, np.ascontiguousarray(sw, dtype=np.float64),
                               spectrum.inverse, state, lp, t, plan.n_iter - t)
        drawn += len(y)
        if est.callback is not None:
            _report(est.callback, state, spectrum, t, plan, time.perf_counter() - tic)
        if holdout is not None and holdout.measure(state, t, drawn, last=t >= plan.n_iter):
            break
        if t >= plan.n_iter:
            break
    beta, bias = output(state)
    return spectrum.weights(beta), bias, t


def new_state(m, P, dtype=np.float64):
    """A zero model of m landmarks and P problems (its step's product in ``dtype``)."""
    z = np.zeros((m, P))
    return _nl.LandmarkState(z, np.zeros(P), z.copy(), np.zeros(P),
                             np.zeros((_nl.N_SCALARS, P)), z.copy(), np.zeros(P),
                             np.zeros((m, P), dtype))


def output(state):
    """The output coefficients (m, P) and intercepts (P,): the average, or the last
    iterate of a problem with none averaged."""
    n_avg = state.scal[_nl.N_AVG]
    averaged = n_avg > 0
    beta, bias = state.beta.copy(), state.bias.copy()
    beta[:, averaged] = state.total[:, averaged] / n_avg[averaged]
    bias[averaged] = state.total_bias[averaged] / n_avg[averaged]
    return beta, bias


def _report(callback, state, spectrum, t, plan, seconds):
    beta, bias = output(state)
    weights = spectrum.weights(beta)
    for c in range(weights.shape[0]):
        callback(Report(problem=c, n_problems=weights.shape[0], t=int(t), iterations=int(t),
                        iterations_total=int(plan.n_iter), seconds=seconds,
                        coef=weights[c].copy(), intercept=float(bias[c])))
