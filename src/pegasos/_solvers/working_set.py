"""The working-set dual solver (ThunderSVM's decomposition on the blocked engine):
the driver of :func:`pegasos._numba.working_set.solve_block`.

The problems are LIBSVM's dual form::

    min_a  1/2 a'Qa + p'a   subject to  0 <= a_v <= C_v,  y'a = const,

Q_uv = y_u y_v K(row(u), row(v)), over variables v that each stand for a row of
the data: one per row for SVC (p = -1) and the one-class SVM (y = 1, p = 0), two
per row for epsilon-SVR (a_i with y = +1, p = epsilon - z_i; a*_i with y = -1,
p = epsilon + z_i).  For every problem c (one-vs-rest problems share one solve)
the solver keeps the variables ``a[:, c]`` and, for every row of the data,
``F[:, c] = K @ beta`` with ``beta_r`` the sum of ``y_v a_v`` over the row's
variables, so that the gradient is ``G_v = y_v F[row(v)] + p_v``.  Each iteration:

1. every problem that still violates the optimality conditions by more than
   ``tol`` names its worst rows outside the working set -- alternately the
   largest -y G among rows that may move up and the smallest among rows that
   may move down, each only if it forms a violating pair -- and the union over
   the problems, pair by pair with the problems taking turns, gives up to
   ``new`` rows (``q`` at the first iteration);
2. they replace the oldest rows of the working set (first in, first out), so
   the newer part of the previous set stays, with its kernel columns: only
   the new rows' columns are computed, one engine block
   (:func:`pegasos._numba.blocks.block_rows`, or its serial twin when the whole
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
from .._numba import working_set as _nws
from .._numba.working_set import InnerPlan, Subproblem, solve_block, solve_block_by_sign
from .threads import one_blas_thread

#: The kept kernel columns' type, whatever the rows' (computed in float64 for float64
#: rows, then rounded): LIBSVM keeps its cache in float (``Qfloat``), and so the solution
#: is that of the kernel values rounded to float32, a relative 6e-8 (the rbf's within
#: 6e-8 of those: its exponential is taken in float32, ``blocks.exp32_into``).  Half
#: the memory and half the bandwidth of float64 columns: on ijcnn1 (dense float64,
#: 49,990 rows) the fit went from 0.67x scikit-learn-intelex's time to 0.49x, on the
#: covtype subset from 0.80x to 0.66x (``benchmarks.dualsvc_profile``, 3 runs each), the
#: test accuracy within 0.06 point and the same support vectors but one (of 5,755 and
#: 7,696).  A small set's kernel matrix (:mod:`.gram`) stays float64.
STORE_DTYPE = np.float32


class WorkingSetPlan(NamedTuple):
    """The solver's settings (see :class:`pegasos.DualSVC`)."""

    q: int  # rows in the working set
    new: int  # rows replaced per iteration after the first
    tol: float  # stop when every problem's violation is <= tol
    ratio: float  # an inner solve stops at ratio times its first violation (or tol)
    max_inner: int  # pair steps per inner solve, at most
    #: pair steps (SMO's iterations, SVC's max_iter) of each problem, at most, counted
    #: across its working sets; -1: no limit
    max_iter: int
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
    #: the nu problems' r (Solver_NU's, (problems,)); None for the others
    r: object = None
    #: the result solves the C-form problem whose bounds are the given ones times scale
    #: (the nu-SVC's 1/r, once its variables are scaled by it)
    scale: object = 1.0
    #: the kept kernel columns (a :class:`_Columns`), for another solve of the same rows
    store: object = None
    #: each problem's pair steps ((problems,) int64: SVC's n_iter_); None where not counted
    problem_steps: object = None
    #: whether a problem spent ``max_iter``'s pair steps (:func:`out_of_steps`)
    out_of_steps: bool = False


class Dual(NamedTuple):
    """The problems' linear term and variables (see the module's docstring): ``p`` the
    linear term ((n_vars, problems), or one number for all: SVC's -1), ``rows`` the
    data row of each variable ((n_vars,) int64, or None: variable i is row i).
    ``by_sign``: the nu problems' second constraint (LIBSVM's Solver_NU), that the
    variables of each sign keep their sum (``e'a``, as well as ``y'a``, fixed by the
    start): pairs are of one sign, each sign's violation is measured on its own, and
    the intercept and ``r`` are Solver_NU's."""

    p: object = -1.0
    rows: object = None
    by_sign: bool = False
    #: the intercept where LIBSVM's rho is not finite (no free variable, one bound only):
    #: SVC's 0, or NaN where the caller refuses such a model (as scikit-learn does); the
    #: nu problems' r then: NaN, or (any number) the one finite bound
    undefined: float = 0.0


#: SVC's dual: one variable per row, p = -1.
SVC_DUAL = Dual()


def gradients(Y, state, dual):
    """``G = Y * F[rows] + p`` of every variable, (n_vars, problems)."""
    F = state.F if dual.rows is None else state.F[dual.rows]
    return Y * F + dual.p


def masks(Y, C, a):
    """(up, low): the rows whose variable may move so that -y G's side moves up / down."""
    pos = Y > 0
    below, above = a < C[:, None], a > 0.0
    return (pos & below) | (~pos & above), (pos & above) | (~pos & below)


def violations(Y, C, state, dual=SVC_DUAL):
    """Each problem's largest violation ``max_up(-yG) - min_low(-yG)`` (LIBSVM's measure, 0
    when it is negative), with m, M, -yG and the two masks.  With ``dual.by_sign`` each
    sign's own (m and M then (2, problems): y = +1, then y = -1) and the larger of the
    two violations."""
    score = -Y * gradients(Y, state, dual)
    up, low = masks(Y, C, state.a)
    if not dual.by_sign:
        m = np.where(up, score, -np.inf).max(axis=0)
        M = np.where(low, score, np.inf).min(axis=0)
        return np.maximum(m - M, 0.0), m, M, score, up, low  # 0: no pair can move
    m = np.stack([np.where(up & side, score, -np.inf).max(axis=0) for side in (Y > 0, Y < 0)])
    M = np.stack([np.where(low & side, score, np.inf).min(axis=0) for side in (Y > 0, Y < 0)])
    return np.maximum((m - M).max(axis=0), 0.0), m, M, score, up, low


def _top(values, mask, k):
    """Up to k rows where ``mask`` holds, by ``values`` descending, ties by row index."""
    rows = np.flatnonzero(mask)
    if rows.size > k:
        v = values[rows]
        threshold = v[np.argpartition(-v, k - 1)[:k]].min()
        above = rows[v > threshold]
        rows = np.concatenate([above, rows[v == threshold][: k - above.size]])
    return rows[np.lexsort((rows, -values[rows]))]


def candidates(score, up, low, m, M, free, k, refill=False):
    """One problem's worst rows outside the working set (``free`` marks the rows
    outside), alternately from the up side and the low side, at most k.  ``refill``
    (the nu problems, whose two signs take turns in the set): the maximal violating pair
    (of the problem's rows, in the set or not: brought again) comes first, so that each
    turn of a sign steps on it (without it a working set of 4 lost each sign's pair in
    turn and went round without a step)."""
    ups = _top(score, up & free & (score > M), k)
    lows = _top(-score, low & free & (score < m), k)
    if refill and m > M:  # the maximal violating pair first, wherever it is
        i, j = np.argmax(np.where(up, score, -np.inf)), np.argmin(np.where(low, score, np.inf))
        ups = np.concatenate([[i], ups[(ups != i) & (ups != j)]])
        lows = np.concatenate([[j], lows[(lows != i) & (lows != j)]])
    return alternate(ups, lows, k)


def alternate(ups, lows, k):
    """The rows of ``ups`` and ``lows`` taken in turn, first occurrences kept, at most k
    (:func:`candidates`' list)."""
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


def intercepts(Y, C, state, dual=SVC_DUAL):
    """Each problem's intercept as LIBSVM computes rho: minus the mean y G over the free
    variables, or minus the middle of the feasible interval when none is free
    (``dual.undefined`` when that interval is unbounded)."""
    yG = Y * gradients(Y, state, dual)
    at_upper = state.a >= C[:, None]
    at_lower = (state.a <= 0.0) & ~at_upper  # LIBSVM asks "at the upper bound?" first
    free = ~at_upper & ~at_lower
    pos = Y > 0
    # (a variable of bound 0 is a row LIBSVM drops before solving: it bounds nothing)
    present = (C > 0.0)[:, None]
    ub_rows = ((at_upper & ~pos) | (at_lower & pos)) & present
    lb_rows = ((at_upper & pos) | (at_lower & ~pos)) & present
    out = np.empty(Y.shape[1])
    for c in range(Y.shape[1]):
        if free[:, c].any():
            rho = yG[free[:, c], c].mean()
        else:
            ub = yG[ub_rows[:, c], c].min(initial=np.inf)
            lb = yG[lb_rows[:, c], c].max(initial=-np.inf)
            rho = (ub + lb) / 2 if np.isfinite(ub + lb) else -dual.undefined
        out[c] = -rho
    return out


def dual_objectives(Y, state, dual):
    """Each problem's dual objective ``1/2 a'Qa + p'a`` (LIBSVM's ``obj``), from the kept F:
    ``a'Qa`` is the sum of ``beta_r F_r`` over the rows."""
    F = state.F if dual.rows is None else state.F[dual.rows]
    return np.einsum("ij,ij->j", state.a, 0.5 * Y * F + dual.p)


def nu_intercepts(Y, C, state, dual):
    """LIBSVM's Solver_NU ``calculate_rho``: for each sign, r_s the mean G over its free
    variables (or the middle of its feasible interval; NaN when that is unbounded, where
    LIBSVM's is infinite); returns the intercepts ``-(r+ - r-)/2`` and ``r = (r+ + r-)/2``,
    each (problems,)."""
    G = gradients(Y, state, dual)
    at_upper = state.a >= C[:, None]
    at_lower = (state.a <= 0.0) & ~at_upper
    free = ~at_upper & ~at_lower
    present = (C > 0.0)[:, None]
    r = np.empty((2, Y.shape[1]))
    for s, side in enumerate((Y > 0, Y < 0)):
        for c in range(Y.shape[1]):
            mine = side[:, c] & present[:, 0]
            if (free[:, c] & mine).any():
                r[s, c] = G[free[:, c] & mine, c].mean()
            else:
                ub = G[at_lower[:, c] & mine, c].min(initial=np.inf)
                lb = G[at_upper[:, c] & mine, c].max(initial=-np.inf)
                if np.isfinite(ub + lb):
                    r[s, c] = (ub + lb) / 2
                elif np.isnan(dual.undefined):  # LIBSVM's is infinite: refused
                    r[s, c] = np.nan
                else:  # the bound there is (a cross-validation fold's: some model)
                    r[s, c] = ub if np.isfinite(ub) else lb if np.isfinite(lb) else 0.0
    return -(r[0] - r[1]) / 2, (r[0] + r[1]) / 2


def objectives(Y, C, state, intercept):
    """(primal, dual) of each problem in SVC's C form, both from the kept F:
    the primal 1/2 ||w||^2 + sum C_i hinge_i, the dual sum a - 1/2 ||w||^2.  Rows of
    infinite C (the hard margin) add no hinge: their constraints hold to the solver's
    tolerance, not exactly."""
    w2 = np.einsum("ij,ij->j", Y * state.a, state.F)
    hinge = np.maximum(0.0, 1.0 - Y * (state.F + intercept))
    finite = np.isfinite(C)
    primal = 0.5 * w2 + (C @ hinge if finite.all() else C[finite] @ hinge[finite])
    dual = state.a.sum(axis=0) - 0.5 * w2
    return primal, dual


class _Columns:
    """Kernel columns kept as contiguous rows of ``store`` (slots, n), in float32
    (:data:`STORE_DTYPE`): those of the working set's variables' rows (``vars``: the
    variables, oldest first; two variables of one row share its column) and, in the
    other slots, the most recently used of the rest, so that a row chosen again costs
    nothing.  With the kernel matrix of all n rows the store is that matrix (row i in
    slot i), and no column is computed or copied.  ``var_rows``: the row of each
    variable (None: variable i is row i)."""

    def __init__(self, n, q, slots, dtype, engine, gram=None, var_rows=None, refill=False,
                 arena=None):
        self.engine = engine
        self.refill = refill
        self.gram = gram  # (the kernel matrix, the rows of it these are: None for all), or None
        self.var_rows = var_rows
        every = gram is not None and gram[1] is None  # every column kept already
        if every:
            self.store, slots = self.gram[0], n
        else:
            check_memory(slots * n * np.dtype(dtype).itemsize,
                         f"the working-set solver's kernel columns ({slots} columns of {n} rows: "
                         "the working set and the columns that cache_size keeps)")
            self.store = (np.empty((slots, n), dtype) if arena is None
                          else arena.take((slots, n), dtype))
        self._start_book(n, q, slots)
        if every:  # (row i's column in slot i)
            self.slot_of[:] = self.row_of[:] = np.arange(n)
        # (the block in the store's dtype: float32 kept columns gathered as they are, half
        # the bytes of float64 for the gather and the inner solve, the same numbers)
        self._block = self._spare = np.empty((0, 0), self.store.dtype)
        self._block_vars = np.empty(0, np.int64)  # the variables of ``_block``

    def _start_book(self, n, q, slots):
        """An empty working set of size ``q``, no column kept in the ``slots`` slots."""
        self.slot_of = np.full(n, -1, np.int64)  # each row's slot, -1 if not kept
        self.row_of = np.full(slots, -1, np.int64)
        self.used = np.zeros(slots, np.int64)  # when each slot was last brought in
        self.vars = np.empty(0, np.int64)
        self.q, self.clock, self.computed = q, 0, 0

    @classmethod
    def book(cls, n, q, slots):
        """The bookkeeping alone (no store): which rows' columns are kept, in which of
        ``slots`` slots, for holders that keep the columns themselves
        (:mod:`.across`)."""
        self = cls.__new__(cls)
        self.gram, self.var_rows, self.refill, self.store = None, None, False, None
        self._start_book(n, q, slots)
        return self

    @property
    def rows(self):
        """The working set's variables' rows, oldest first."""
        return self.vars if self.var_rows is None else self.var_rows[self.vars]

    @property
    def slots(self):
        """The store's slots of the working set's variables' columns."""
        return self.slot_of[self.rows]

    def bring(self, new, points, kern):
        """Add the variables ``new`` to the working set, in place of its oldest beyond q;
        their rows' columns come from the store, or are computed in one block."""
        missed, victims = self.place(new)
        if missed.size and self.gram is not None:  # one pair of classes' rows of the matrix
            matrix, rows = self.gram
            self.store[victims] = matrix[np.ix_(rows[missed], rows)]
        elif missed.size:
            with one_blas_thread():
                _blocks.fill_rows(self.engine, points, missed, kern, self.store, victims)

    def place(self, new):
        """:meth:`bring`'s bookkeeping: the variables ``new`` in the working set, and the
        rows whose columns are not kept (``missed``) given the slots they take
        (``victims``), whose columns the caller then computes; returns both."""
        self.clock += 1
        old = self.vars
        if self.refill:  # (the nu problems bring a variable of the set again: it moves)
            old = old[~np.isin(old, new)]
        kept = old[max(0, old.size + new.size - self.q):]
        self.vars = np.concatenate([kept, new])
        kept = self.slot_of[kept if self.var_rows is None else self.var_rows[kept]]
        new_rows = new if self.var_rows is None else self.var_rows[new]
        at = self.slot_of[new_rows]
        missed = new_rows[at < 0]
        if self.var_rows is not None:  # (two new variables of one row: one column)
            _, first = np.unique(missed, return_index=True)
            missed = missed[np.sort(first)]
        victims = np.empty(0, np.int64)
        if missed.size:
            pinned = np.zeros(self.row_of.size, bool)
            pinned[kept] = True
            pinned[at[at >= 0]] = True
            free = np.flatnonzero(~pinned)
            victims = free[_oldest(self.used[free], missed.size)]
            gone = self.row_of[victims]
            self.slot_of[gone[gone >= 0]] = -1
            self.row_of[victims] = missed
            self.slot_of[missed] = victims
            self.computed += missed.size
        self.used[self.slot_of[new_rows]] = self.clock
        return missed, victims

    def values(self, rows, points, kern):
        """K(all rows, ``rows``) as (len(rows), n) float64: the kept columns read, the others
        computed (and not kept)."""
        out = np.empty((len(rows), self.slot_of.size))
        at = self.slot_of[rows]
        out[at >= 0] = self.store[at[at >= 0]]
        missed = rows[at < 0]
        if missed.size and self.gram is not None:
            matrix, keep = self.gram
            out[at < 0] = matrix[missed] if keep is None else matrix[np.ix_(keep[missed], keep)]
        elif missed.size:
            fresh = np.empty((missed.size, self.slot_of.size), self.store.dtype)
            with one_blas_thread():
                _blocks.fill_rows(self.engine, points, missed, kern, fresh,
                                  np.arange(missed.size, dtype=np.int64))
            out[at < 0] = fresh
            self.computed += missed.size
        return out

    def block(self):
        """K over the working set's variables (q, q) in the store's dtype, in a buffer
        that the next call but one overwrites: the previous call's block is kept, and the
        entries of the variables still in the set are copied from it
        (:func:`~pegasos._numba.working_set.kept_block`); from a kernel matrix given or
        made whole, read as it is (:func:`~pegasos._numba.working_set.gather_set`)."""
        m = self.vars.size
        out = self._spare if self._spare.shape[0] == m else np.empty((m, m), self.store.dtype)
        if self.gram is not None:
            _nws.gather_set(self.store, self.slots, self.rows, out)
        else:
            at = np.full(m, -1, np.int64)
            if self._block_vars.size:
                _, mine, theirs = np.intersect1d(self.vars, self._block_vars,
                                                 assume_unique=True, return_indices=True)
                at[mine] = theirs
            _nws.kept_block(self.store, self.slots, self.rows, out, self._block, at)
        self._spare, self._block, self._block_vars = self._block, out, self.vars
        return out

    def add(self, F, delta):
        """F += K(X, working set) @ delta, over the variables whose delta is not zero (F is
        the transpose of a C-ordered (problems, n) array)."""
        moved = np.flatnonzero(np.any(delta != 0.0, axis=1))
        slots = self.slots
        if self.gram is not None:  # small: NumPy, nothing compiled; add_columns' sums
            Ft = F.T
            for r in moved:
                Ft += delta[r][:, None] * self.store[slots[r]]
        elif moved.size:
            _nws.add_columns(self.store, slots[moved], np.ascontiguousarray(delta[moved]), F.T)


class Arena:
    """Memory for the kept columns of problems solved one after another (a fit's pairs of
    classes): each :func:`run` given it carves its store out of one buffer, which grows
    to the largest store asked for, so that the pages one problem touched serve the
    next.  A fresh store per problem had its pages touched for the first time by every
    problem: the kernel zeroes them (and, NumPy asking for huge pages, assembles them),
    0.13-0.6 s per 300 MB here, for each of one-vs-one's 45 pairs.  Not for problems
    solved at the same time; a store taken is valid until the next is."""

    def __init__(self):
        self._buffer = np.empty(0, np.uint8)

    def take(self, shape, dtype):
        """An uninitialised array of ``shape`` and ``dtype`` in the buffer."""
        nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
        if self._buffer.size < nbytes:
            self._buffer = None  # (the smaller one freed before the larger is allocated)
            self._buffer = np.empty(nbytes, np.uint8)
        return self._buffer[:nbytes].view(dtype).reshape(shape)


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


def run(points, kern, Y, C, plan, report=None, start=None, gram=None, dual=SVC_DUAL,
        columns=None, arena=None):
    """Solve every problem's dual to ``plan.tol``, each in at most ``plan.max_iter`` pair
    steps (counted across working sets; -1: no limit); returns a :class:`Result`.

    ``points`` (:class:`~pegasos._numba.kernels.Points`), ``kern`` (without
    ``bias2``), ``Y`` (n_vars, problems) in {-1, +1}, ``C`` (n_vars,) the bounds,
    ``dual`` the linear term and the variables' rows (:class:`Dual`; SVC's by
    default); ``start`` a feasible :class:`WorkingSetState` (:func:`start_from`), or
    None for zero.  ``report(iteration, columns, seconds, state, intercept, steps)``
    (``steps``: each problem's pair steps so far) is called after iterations (working
    sets) 1, 2, 4, 8, ... when given (an accuracy curve on a
    log scale for the cost of a few decision functions).  ``gram``: for a small
    training set (:mod:`.gram`), the pair (its kernel matrix, float64; the rows of it
    these n rows are, or None for all of them), from which the columns are then read
    instead of computed; None: the engine computes them.  ``columns``: the kept columns
    of an earlier solve on the same rows (``Result.store``), to start from (probability's
    folds), instead of none.  ``arena``: an :class:`Arena` to keep the columns in, for
    problems solved one after another.
    """
    n_vars, n_problems = Y.shape
    n = n_vars if dual.rows is None else int(dual.rows.max(initial=-1)) + 1
    q = min(plan.q, n_vars)
    # F is kept transposed, (problems, n) in memory: each column's update is contiguous
    if start is None:
        start = WorkingSetState(np.zeros((n_vars, n_problems)), np.zeros((n_problems, n)).T)
    state = start
    if columns is None:
        ws = _Columns(n, q, min(n, q + min(plan.new, q) + plan.cache_rows),
                      STORE_DTYPE if gram is None else np.float64, plan.engine, gram,
                      dual.rows, refill=dual.by_sign, arena=arena)
    else:  # an empty working set of this plan's size, the columns kept
        ws, computed = columns, columns.computed
        ws.vars, ws.q = np.empty(0, np.int64), q
    inner = InnerPlan(tol=plan.tol, ratio=plan.ratio, max_steps=plan.max_inner,
                      by_sign=dual.by_sign)
    rho = nu_intercepts if dual.by_sign else intercepts
    it, steps, seconds, stalled = 0, 0, 0.0, 0
    done = np.zeros(n_problems, np.int64)  # each problem's pair steps
    while True:
        viol, m, M, score, up, low = violations(Y, C, state, dual)
        active = with_steps_left(np.flatnonzero(viol > _tolerance(plan.tol, state, dual)),
                                 done, plan.max_iter)
        if active.size == 0:
            break
        tic = time.perf_counter()
        k = q if it == 0 else min(plan.new, q)
        free = np.ones(n_vars, bool)
        free[ws.vars] = False
        if dual.by_sign:  # each sign's worst rows, as if two problems
            lists = [candidates(score[:, c], up[:, c] & side, low[:, c] & side, m[s, c],
                                M[s, c], free, k, refill=True)
                     for c in active for s, side in enumerate((Y[:, c] > 0, Y[:, c] < 0))]
        else:
            lists = [candidates(score[:, c], up[:, c], low[:, c], m[c], M[c], free, k)
                     for c in active]
        new = union_by_pairs(lists, k, it)
        if new.size:
            ws.bring(new, points, kern)
        wvars, rows = ws.vars, ws.rows
        K = ws.block()
        p = dual.p if np.ndim(dual.p) == 0 else dual.p[wvars]
        delta, moved = solve_set(K, Y[wvars], C[wvars], state.a, wvars, state.F[rows],
                                 p, active, inner, steps_left(done, plan.max_iter))
        done += moved
        moved = int(moved.sum())
        ws.add(state.F, delta)
        if not np.all(np.isfinite(C)) and _diverged(Y, state, dual):
            raise ValueError(
                "C=inf (the hard margin) has no solution here: the dual variables grow "
                "without bound while ||w|| does not, as the data are not separable (or "
                "fitted within epsilon) by this kernel; give a finite C")
        steps += moved
        it += 1
        seconds += time.perf_counter() - tic
        if report is not None and it & (it - 1) == 0:  # iterations 1, 2, 4, 8, ...
            report(it, ws.computed, seconds, state, rho(Y, C, state, dual)[0]
                   if dual.by_sign else rho(Y, C, state, dual), done.copy())
        if new.size == 0 and moved == 0:
            break  # nothing left to move: what is left of the violation is rounding
        stalled = 0 if moved else stalled + 1
        if stalled > q // max(1, min(plan.new, q)) + 2:
            break  # a whole set replaced with no step: no progress (reported unconverged)
    viol = violations(Y, C, state, dual)[0]
    intercept, r = rho(Y, C, state, dual) if dual.by_sign else (rho(Y, C, state, dual), None)
    return Result(state, intercept, viol, it, seconds,
                  ws.computed - (0 if columns is None else computed), steps,
                  bool(np.all(viol <= _tolerance(plan.tol, state, dual))), r, store=ws,
                  problem_steps=done, out_of_steps=out_of_steps(done, plan.max_iter))


def steps_left(done, max_iter):
    """Each problem's pair steps left of ``max_iter`` (SVC's, counted across working sets)
    after ``done``; None for no limit (-1)."""
    return None if max_iter < 0 else np.maximum(max_iter - done, 0)


def with_steps_left(active, done, max_iter):
    """The problems of ``active`` that have pair steps left (:func:`steps_left`)."""
    return active if max_iter < 0 else active[done[active] < max_iter]


def out_of_steps(done, max_iter):
    """Whether a problem has spent ``max_iter``'s pair steps: LIBSVM's rule (its loop
    ends there without checking the solution), and so SVC's warning and ``fit_status_``
    1, even where the last step happened to solve the problem."""
    return bool(max_iter >= 0 and np.any(done >= max_iter))


def solve_set(K, Y, bound, a, wvars, F, p, active, inner, left=None):
    """Each active problem's subproblem on the working set ``wvars`` by SMO
    (:func:`~pegasos._numba.working_set.solve_block`): ``K`` the set's block, ``Y``,
    ``bound``, ``F`` and ``p`` its variables' targets, bounds, gradients' F rows and
    linear term (a number, or (set, problems)); ``a`` all the dual variables (n_vars,
    problems), the set's rows updated in place; ``left`` each problem's pair steps left
    (:func:`steps_left`; None: ``inner.max_steps`` each time).  Returns (the change of
    ``y a`` on the set, (set, problems); each problem's pair steps taken, (problems,))."""
    delta, moved = np.zeros((wvars.size, Y.shape[1])), np.zeros(Y.shape[1], np.int64)
    solve = solve_block_by_sign if inner.by_sign else solve_block
    for c in active:
        y = np.ascontiguousarray(Y[:, c])
        block = Subproblem(K, y, bound, a[wvars, c],
                           y * F[:, c] + (p if np.ndim(p) == 0 else p[:, c]))
        plan = inner if left is None or left[c] >= inner.max_steps else inner._replace(
            max_steps=int(left[c]))
        s, _, _ = solve(block, plan)
        moved[c] = s
        delta[:, c] = y * (block.a - a[wvars, c])
        a[wvars, c] = block.a
    return delta, moved


#: With C=inf, a sum of the dual variables past this and this many times ||w||^2 says that
#: the hard margin has no solution: its dual is unbounded along a direction that leaves w
#: unchanged (at a solution the two are equal), an error rather than a loop for ever.
DIVERGED = 1e6


def _diverged(Y, state, dual):
    """Whether a problem's dual variables run away (:data:`DIVERGED`)."""
    beta = Y * state.a
    if dual.rows is not None:
        rows = np.zeros(state.F.shape)
        np.add.at(rows, dual.rows, beta)
        beta = rows
    w2 = np.einsum("ij,ij->j", beta, state.F)
    total = state.a.sum(axis=0)
    return bool(np.any((total > DIVERGED) & (total > DIVERGED * np.maximum(w2, 0.0))))

#: The violation that float64 can still tell from zero, per unit of the responses' size.
ROUNDING = 16 * np.finfo(np.float64).eps


def _tolerance(tol, state, dual=SVC_DUAL):
    """``tol``, or the rounding of the gradients where that is larger: a violation below
    ``ROUNDING (1 + max |F| + max |p|)`` is noise that no step removes (with tol=1e-300 the
    solver would otherwise never stop; an SVR's targets of 1e13 round its gradients too)."""
    p = 0.0 if np.ndim(dual.p) == 0 else float(np.abs(dual.p).max(initial=0.0))
    return tolerance_of(tol, float(np.abs(state.F).max(initial=0.0)) + p)


def tolerance_of(tol, largest):
    """:func:`_tolerance` given ``max |F| + max |p|``."""
    return max(tol, ROUNDING * (1.0 + largest))


def _oldest(used, k):
    """The k smallest of ``used`` (ties by position), in no particular order."""
    if k >= used.size:
        return np.arange(used.size)
    threshold = np.partition(used, k - 1)[k - 1]
    below = np.flatnonzero(used < threshold)
    return np.concatenate([below, np.flatnonzero(used == threshold)[: k - below.size]])

