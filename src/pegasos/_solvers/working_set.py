"""The working-set dual solver (ThunderSVM's decomposition on the blocked engine):
the driver of :func:`pegasos._numba.working_set.solve_block`.

For every one-vs-rest problem c the solver keeps the dual variables ``a[:, c]``
and ``F[:, c] = K @ (y_c * a[:, c])`` for all n rows (the gradient is
``G = y * F - 1``).  Each iteration:

1. every problem that still violates the optimality conditions by more than
   ``tol`` names its worst rows outside the working set -- alternately the
   largest -y G among rows that may move up and the smallest among rows that
   may move down, each only if it forms a violating pair -- and the union over
   the problems, pair by pair with the problems taking turns, gives up to
   ``new`` rows (``q`` at the first iteration);
2. they replace the oldest rows of the working set (first in, first out), so
   the newer part of the previous set stays, with its kernel columns: only
   the new rows' columns are computed, one engine block
   (:func:`pegasos._numba.blocks.kernel_rows`, or its serial twin when the whole
   training set has fewer than :data:`~pegasos._solvers.engine.PARALLEL_ROWS` rows);
3. each active problem solves its q x q block by SMO
   (:func:`~pegasos._numba.working_set.solve_block`) until the block's
   violation falls to ``ratio`` of where it started;
4. one product of the kept columns (n, q) with the change of every
   problem's coefficients (q, problems) brings every F up to date.

Memory: the rows, ``a`` and ``F`` (n x problems each), and the working set's
columns (n x q); never an n x n matrix.  No randomness: the same data gives
the same model.
"""

import time
from typing import NamedTuple

import numpy as np

from .._memory import check_memory
from .._numba import blocks as _blocks
from .._numba import working_set as _ws
from .._numba.working_set import Block, InnerPlan, solve_block
from .engine import dtype_of, one_blas_thread


class WorkingSetPlan(NamedTuple):
    """The solver's settings (see :class:`pegasos.DualSVC`)."""

    q: int  # rows in the working set
    new: int  # rows replaced per iteration after the first
    tol: float  # stop when every problem's violation is <= tol
    ratio: float  # an inner solve stops at ratio times its first violation (or tol)
    max_inner: int  # pair steps per inner solve, at most
    max_iter: int  # iterations (working sets), at most; -1: no limit
    cache_rows: int  # kernel columns kept beyond the working set's
    #: the engine of the kernel rows (``engine.engine_for`` the whole training set's rows,
    #: so that one-vs-one's pairs of classes take the threads when the fit as a whole does:
    #: digits' 45 pairs of about 360 rows fitted 1.11-1.16x slower without them, measured)
    engine: object


class WorkingSetState(NamedTuple):
    """Dual variables ``a`` and responses ``F = K @ (Y * a)`` (n, problems; ``F`` is
    the transpose of a C-ordered array)."""

    a: np.ndarray
    F: np.ndarray


class Result(NamedTuple):
    """What a fit ends with: the state, the intercepts, the violations, and its cost."""

    state: WorkingSetState
    intercept: np.ndarray  # (problems,)
    violation: np.ndarray  # (problems,) max_up(-yG) - min_low(-yG)
    n_iter: int
    seconds: float
    columns: int  # kernel columns computed
    inner_steps: int
    converged: bool


def masks(Y, C, a):
    """(up, low): the rows whose variable may move so that -y G's side moves up / down."""
    pos = Y > 0
    below, above = a < C[:, None], a > 0.0
    return (pos & below) | (~pos & above), (pos & above) | (~pos & below)


def violations(Y, C, state):
    """Each problem's largest violation ``max_up(-yG) - min_low(-yG)`` (LIBSVM's measure, 0
    when it is negative), with m, M, -yG and the two masks."""
    score = -Y * (Y * state.F - 1.0)
    up, low = masks(Y, C, state.a)
    m = np.where(up, score, -np.inf).max(axis=0)
    M = np.where(low, score, np.inf).min(axis=0)
    return np.maximum(m - M, 0.0), m, M, score, up, low  # 0: no pair can move


def _top(values, mask, k):
    """Up to k rows where ``mask`` holds, by ``values`` descending, ties by row index."""
    rows = np.flatnonzero(mask)
    if rows.size > k:
        v = values[rows]
        threshold = v[np.argpartition(-v, k - 1)[:k]].min()
        above = rows[v > threshold]
        rows = np.concatenate([above, rows[v == threshold][: k - above.size]])
    return rows[np.lexsort((rows, -values[rows]))]


def candidates(score, up, low, m, M, free, k):
    """One problem's worst rows outside the working set (``free`` marks the rows
    outside), alternately from the up side and the low side, at most k."""
    ups = _top(score, up & free & (score > M), k)
    lows = _top(-score, low & free & (score < m), k)
    both = np.full(2 * max(ups.size, lows.size), -1, np.int64)
    both[0 : 2 * ups.size : 2] = ups
    both[1 : 2 * lows.size : 2] = lows
    both = both[both >= 0]
    _, first = np.unique(both, return_index=True)
    return both[np.sort(first)][:k]


def union_by_pairs(lists, k, start=0):
    """The union of the problems' lists, pair by pair -- every problem's first two rows
    (its worst up and low rows), then every problem's next two, ... -- first occurrences
    kept, at most k rows.  The problems take turns from ``start`` (the iteration), so that
    when k is small no problem waits for ever; a pair keeps a violating pair together."""
    if not lists:
        return np.empty(0, np.int64)
    lists = lists[start % len(lists):] + lists[: start % len(lists)]
    width = 2 * ((max(len(r) for r in lists) + 1) // 2)
    table = np.full((len(lists), width), -1, np.int64)
    for c, r in enumerate(lists):
        table[c, : len(r)] = r
    flat = table.reshape(len(lists), -1, 2).transpose(1, 0, 2).ravel()
    flat = flat[flat >= 0]
    _, first = np.unique(flat, return_index=True)
    return flat[np.sort(first)][:k]


def intercepts(Y, C, state):
    """Each problem's intercept as LIBSVM computes rho: minus the mean y G over the free
    variables, or minus the middle of the feasible interval when none is free."""
    yG = Y * (Y * state.F - 1.0)
    at_upper = state.a >= C[:, None]
    at_lower = (state.a <= 0.0) & ~at_upper  # LIBSVM asks "at the upper bound?" first
    free = ~at_upper & ~at_lower
    pos = Y > 0
    ub_rows = (at_upper & ~pos) | (at_lower & pos)
    lb_rows = (at_upper & pos) | (at_lower & ~pos)
    out = np.empty(Y.shape[1])
    for c in range(Y.shape[1]):
        if free[:, c].any():
            rho = yG[free[:, c], c].mean()
        else:
            ub = yG[ub_rows[:, c], c].min(initial=np.inf)
            lb = yG[lb_rows[:, c], c].max(initial=-np.inf)
            rho = (ub + lb) / 2 if np.isfinite(ub + lb) else 0.0
        out[c] = -rho
    return out


def objectives(Y, C, state, intercept):
    """(primal, dual) of each problem in SVC's C form, both from the kept F:
    the primal 1/2 ||w||^2 + sum C_i hinge_i, the dual sum a - 1/2 ||w||^2."""
    w2 = np.einsum("ij,ij->j", Y * state.a, state.F)
    hinge = np.maximum(0.0, 1.0 - Y * (state.F + intercept))
    primal = 0.5 * w2 + C @ hinge
    dual = state.a.sum(axis=0) - 0.5 * w2
    return primal, dual


class _Columns:
    """Kernel columns kept as contiguous rows of ``store`` (slots, n), in the rows' dtype:
    the working set's (``ws``: its store slots, oldest first) and, in the other slots,
    the most recently used of the rest, so that a row chosen again costs nothing.  With
    the kernel matrix of all n rows the store is that matrix (row i in slot i), and no
    column is computed or copied."""

    def __init__(self, n, q, slots, dtype, engine, gram=None):
        self.engine = engine
        self.gram = gram  # (the kernel matrix, the rows of it these are: None for all), or None
        if gram is not None and gram[1] is None:  # every column kept already
            self.store, slots = self.gram[0], n
            self.slot_of = np.arange(n, dtype=np.int64)
            self.row_of = np.arange(n, dtype=np.int64)
        else:
            check_memory(slots * n * np.dtype(dtype).itemsize,
                         f"DualSVC's kernel columns ({slots} columns of {n} rows: the working set "
                         "and the columns that cache_size keeps)")
            self.store = np.empty((slots, n), dtype)
            self.slot_of = np.full(n, -1, np.int64)  # each row's slot, -1 if not kept
            self.row_of = np.full(slots, -1, np.int64)
        self.used = np.zeros(slots, np.int64)  # when each slot was last brought in
        self.ws = np.empty(0, np.int64)
        self.q = q
        self.clock = 0
        self.computed = 0

    @property
    def rows(self):
        """The working set's rows, oldest first."""
        return self.row_of[self.ws]

    def bring(self, new, points, kern):
        """Add the rows ``new`` to the working set, in place of its oldest rows beyond q;
        their columns come from the store, or are computed in one block."""
        self.clock += 1
        keep = self.ws[max(0, self.ws.size + new.size - self.q):]
        at = self.slot_of[new]
        missed = new[at < 0]
        if missed.size:
            pinned = np.zeros(self.row_of.size, bool)
            pinned[keep] = True
            pinned[at[at >= 0]] = True
            free = np.flatnonzero(~pinned)
            victims = free[_oldest(self.used[free], missed.size)]
            gone = self.row_of[victims]
            self.slot_of[gone[gone >= 0]] = -1
            if self.gram is not None:  # one pair of classes' rows of the whole matrix
                matrix, rows = self.gram
                self.store[victims] = matrix[np.ix_(rows[missed], rows)]
            else:
                with one_blas_thread():
                    _blocks.fill_rows(self.engine, points, missed, kern, self.store, victims)
            self.row_of[victims] = missed
            self.slot_of[missed] = victims
            self.computed += missed.size
        at = self.slot_of[new]
        self.used[at] = self.clock
        self.ws = np.concatenate([keep, at])

    def block(self):
        """K over the working set (q, q) in float64."""
        return _ws.gather_block(self.store, self.ws, self.rows)

    def add(self, F, delta):
        """F += K(X, working set) @ delta, over the rows whose delta is not zero (F is
        the transpose of a C-ordered (problems, n) array)."""
        moved = np.flatnonzero(np.any(delta != 0.0, axis=1))
        if self.gram is not None:  # small: NumPy, nothing compiled; add_columns' sums
            Ft = F.T
            for r in moved:
                Ft += delta[r][:, None] * self.store[self.ws[r]]
        elif moved.size:
            _ws.add_columns(self.store, self.ws[moved], np.ascontiguousarray(delta[moved]), F.T)


def start_from(coef, Y, C, products):
    """A feasible start from another model's expansion ``w_c = sum_j coef[c, j] phi(x_j)``
    over some rows S (``coef`` (problems, |S|); ``Y`` (|S|, problems) and ``C`` (|S|,)
    their targets and bounds): their dual variables ``a = y coef`` (no intercept),
    taken along the ray to the best multiple of the dual, ``sum a / ||w||^2`` (plain
    clipping of a stochastic model's coefficients, which early on are far larger
    than C, gave 10.7% accuracy in the issue's prototype), clipped to the box, the
    heavier class scaled down so that ``sum_j a_j y_j = 0``.

    ``products(coef, rows)`` returns ``K(rows, S) @ coef.T`` ((len(rows), problems);
    ``rows`` None for all n rows).  Two passes: S against S (for ``||w||^2``), all
    rows against S (for F).  Returns ``(a over S, F over all rows)``; F is the
    transpose of a C-ordered array, as :class:`WorkingSetState` keeps it.
    """
    a = np.maximum(Y * coef.T, 0.0)
    w2 = np.einsum("sc,sc->c", Y * a, products(coef, np.arange(len(C))))
    scale = np.divide(a.sum(axis=0), w2, out=np.zeros_like(w2), where=w2 > 0)
    a = np.minimum(a * scale, C[:, None])
    for c in range(a.shape[1]):  # the equality constraint of the free intercept
        pos = Y[:, c] > 0
        up, down = a[pos, c].sum(), a[~pos, c].sum()
        if up > down:
            a[pos, c] *= down / up
        elif down > up:
            a[~pos, c] *= up / down
    F = np.ascontiguousarray(products(np.ascontiguousarray((Y * a).T), None).T).T
    return a, F


def run(points, kern, Y, C, plan, report=None, start=None, gram=None):
    """Solve every problem's dual to ``plan.tol``; returns a :class:`Result`.

    ``points`` (:class:`~pegasos._numba.kernels.Points`), ``kern`` (without
    ``bias2``), ``Y`` (n, problems) in {-1, +1}, ``C`` (n,) the bounds;
    ``start`` a feasible :class:`WorkingSetState` (:func:`start_from`), or None
    for zero.  ``report(iteration, columns, seconds, state, intercept)`` is
    called after iterations 1, 2, 4, 8, ... when given (an accuracy curve on a
    log scale for the cost of a few decision functions).  ``gram``: for a small
    training set (:mod:`.gram`), the pair (its kernel matrix, float64; the rows of it
    these n rows are, or None for all of them), from which the columns are then read
    instead of computed; None: the engine computes them.
    """
    n, n_problems = Y.shape
    q = min(plan.q, n)
    # F is kept transposed, (problems, n) in memory: each column's update is contiguous
    if start is None:
        start = WorkingSetState(np.zeros((n, n_problems)), np.zeros((n_problems, n)).T)
    state = start
    ws = _Columns(n, q, q + min(plan.new, q) + plan.cache_rows,
                  dtype_of(points.rows) if gram is None else np.float64, plan.engine, gram)
    inner = InnerPlan(tol=plan.tol, ratio=plan.ratio, max_steps=plan.max_inner)
    it, steps, seconds = 0, 0, 0.0
    while True:
        viol, m, M, score, up, low = violations(Y, C, state)
        active = np.flatnonzero(viol > _tolerance(plan.tol, state))
        if active.size == 0 or it == plan.max_iter:
            break
        tic = time.perf_counter()
        k = q if it == 0 else min(plan.new, q)
        free = np.ones(n, bool)
        free[ws.rows] = False
        new = union_by_pairs([candidates(score[:, c], up[:, c], low[:, c], m[c], M[c], free, k)
                              for c in active], k, it)
        if new.size:
            ws.bring(new, points, kern)
        rows = ws.rows
        K = ws.block()
        bound = C[rows]
        delta = np.zeros((rows.size, n_problems))
        moved = 0
        for c in active:
            y = np.ascontiguousarray(Y[rows, c])
            block = Block(K, y, bound, state.a[rows, c], y * state.F[rows, c] - 1.0)
            s, _, _ = solve_block(block, inner)
            moved += s
            delta[:, c] = y * (block.a - state.a[rows, c])
            state.a[rows, c] = block.a
        ws.add(state.F, delta)
        steps += moved
        it += 1
        seconds += time.perf_counter() - tic
        if report is not None and it & (it - 1) == 0:  # iterations 1, 2, 4, 8, ...
            report(it, ws.computed, seconds, state, intercepts(Y, C, state))
        if new.size == 0 and moved == 0:
            break  # nothing left to move: what is left of the violation is rounding
    viol = violations(Y, C, state)[0]
    return Result(state, intercepts(Y, C, state), viol, it, seconds, ws.computed, steps,
                  bool(np.all(viol <= _tolerance(plan.tol, state))))


#: The violation that float64 can still tell from zero, per unit of the responses' size.
ROUNDING = 16 * np.finfo(np.float64).eps


def _tolerance(tol, state):
    """``tol``, or the rounding of the gradients where that is larger: a violation below
    ``ROUNDING (1 + max |F|)`` is noise that no step removes (with tol=1e-300 the solver
    would otherwise never stop)."""
    return max(tol, ROUNDING * (1.0 + float(np.abs(state.F).max(initial=0.0))))


def _oldest(used, k):
    """The k smallest of ``used`` (ties by position), in no particular order."""
    if k >= used.size:
        return np.arange(used.size)
    threshold = np.partition(used, k - 1)[k - 1]
    below = np.flatnonzero(used < threshold)
    return np.concatenate([below, np.flatnonzero(used == threshold)[: k - below.size]])

