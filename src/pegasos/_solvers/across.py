"""One working-set problem with its rows spread over several holders (Dask workers).

The iteration of :func:`~pegasos._solvers.working_set.run` for SVC's dual, its rows,
dual variables, gradients and kernel columns split between :class:`Partition`
objects (one per worker, each holding some rows of the training set in their
training order), and its selection, working set and inner solve on the driver
(:func:`run_across`).  Each iteration:

1. every partition applies the last step (its gradients updated by one product
   of its kept columns, its dual variables set), and proposes the ``k`` most
   violating rows of each side of each problem outside the working set, with
   its share of m, M and ``max |F|``;
2. the driver merges the proposals by the in-memory rule (the same order, the
   same ties: by score, then by row number) into the new rows of the working
   set, and keeps the column cache's book (which rows' columns are kept, in
   which slot: the same on every partition);
3. the partitions holding the new rows whose columns are not kept send them
   (q/4 rows at most); the driver sends them to every partition, which
   computes their kernel columns for its own rows (the engine, one block) and
   returns its rows of the working set's block and their gradients;
4. the driver solves the q x q subproblem and keeps the step for the next
   call.

Every number a step reads is the one the in-memory solver reads (kernel
values are stored in float32, gradients updated entry by entry in the same
order), so the iterates, and the model, are the in-memory solver's.
"""

import time
from types import SimpleNamespace

import numpy as np

from .._numba import blocks as _blocks
from .._numba import working_set as _nws
from .._rows import as_rows
from .engine import engine_for, norms_and_diagonal, points
from .threads import one_blas_thread
from .working_set import (
    STORE_DTYPE,
    SVC_DUAL,
    InnerPlan,
    Result,
    WorkingSetState,
    _Columns,
    _top,
    alternate,
    intercepts,
    out_of_steps,
    solve_set,
    steps_left,
    tolerance_of,
    union_by_pairs,
    violations,
    with_steps_left,
)


class Partition:
    """One holder's rows of a problem solved across holders.

    ``X``: its rows (dense or CSR, in the training set's column space, float64 or
    float32), ``rows``: their numbers in the training set (increasing), ``Y`` and
    ``C`` their targets (rows, problems) and bounds, ``kern`` the kernel
    (:class:`~pegasos._numba.kernels.Kernel`), ``slots`` the columns the cache keeps
    (every holder the same).
    """

    def __init__(self, X, rows, Y, C, kern, slots):
        self.rows = np.asarray(rows, dtype=np.int64)
        prepared = as_rows(X, X.dtype)
        self.points = points(prepared, norms_and_diagonal(prepared, kern)[0])
        self.Y, self.C, self.kern = np.ascontiguousarray(Y), np.asarray(C, np.float64), kern
        n, n_problems = self.Y.shape
        self.a = np.zeros((n, n_problems))
        self.F = np.zeros((n_problems, n)).T
        self.store = np.empty((slots, n), STORE_DTYPE)
        self.engine = engine_for(n)

    def _local(self, rows):
        """(which of ``rows`` (training numbers) are held here, their local numbers)."""
        at = np.searchsorted(self.rows, rows)
        mine = at < self.rows.size
        mine[mine] = self.rows[at[mine]] == rows[mine]
        return mine, at[mine]

    def step(self, update, working, k):
        """Apply ``update`` (:func:`run_across`'s last step: the working set's slots, the
        change of its variables, the variables and their new values), then propose: per
        problem, this holder's share of m, M, and its k most violating rows outside the
        ``working`` set on each side (training numbers, with their scores)."""
        self._apply(update)
        free = np.ones(self.rows.size, bool)
        free[self._local(working)[1]] = False
        _, m, M, score, up, low = violations(self.Y, self.C, WorkingSetState(self.a, self.F))
        ups, lows = [], []
        for c in range(self.Y.shape[1]):
            top = _top(score[:, c], up[:, c] & free, k)
            ups.append((self.rows[top], score[top, c]))
            top = _top(-score[:, c], low[:, c] & free, k)
            lows.append((self.rows[top], -score[top, c]))
        return m, M, float(np.abs(self.F).max(initial=0.0)), ups, lows

    def _apply(self, update):
        """The step ``update`` (None: none): F += the moved columns times their change;
        the variables' new values."""
        if update is None:
            return
        slots, delta, variables, values = update
        moved = np.flatnonzero(np.any(delta != 0.0, axis=1))
        if moved.size:
            _nws.add_columns(self.store, slots[moved], np.ascontiguousarray(delta[moved]),
                             self.F.T)
        mine, at = self._local(variables)
        self.a[at] = values[mine]

    def vectors(self, rows):
        """The rows ``rows`` (training numbers, held here) as dense vectors in X's dtype,
        and their squared norms."""
        at = self._local(rows)[1]
        return (_blocks.gather(self.points.rows, at, self.points.n_features),
                self.points.sqnorm[at])

    def fill(self, Z, sq_z, victims, working, slots):
        """Compute the kernel columns of the rows ``Z`` (dense, with their squared norms
        ``sq_z``; None: none) for this holder's rows into the slots ``victims``; return
        this holder's rows of the working set (training numbers ``working``, their
        columns in ``slots``): K over the set's columns (q, held), as kept (float32), and
        their gradients."""
        if Z is not None:
            Zt = _blocks.transposed(self.points.rows, Z)
            block = _blocks.Block(np.arange(len(sq_z), dtype=np.int64), Z, Zt, sq_z)
            with one_blas_thread():
                _blocks.fill_block_rows(self.engine, self.points, block, self.kern,
                                        self.store, victims)
        at = self._local(working)[1]
        # (sent as kept, in float32: half the bytes of float64, the same numbers)
        out = np.empty((slots.size, at.size), STORE_DTYPE)
        return _nws.gather_set(self.store, slots, at, out), self.F[at].copy()

    def gradients(self, update):
        """The gradients of this holder's rows after ``update`` (the fit's last step)."""
        self._apply(update)
        return np.array(self.F)


def run_across(parts, owned, Y, C, plan, resolve):
    """Solve SVC's dual of the problems ``Y`` (n, problems) with bounds ``C`` over the
    holders ``parts`` (:class:`Partition` or handles whose calls ``resolve`` turns into
    their values; ``owned[w]`` the training numbers of part w's rows) by the iteration of
    :func:`~pegasos._solvers.working_set.run` (its ``plan``); returns its
    :class:`~pegasos._solvers.working_set.Result` (no ``store``)."""
    n, n_problems = Y.shape
    q = min(plan.q, n)
    book = _Columns.book(n, q, min(n, q + min(plan.new, q) + plan.cache_rows))
    owner = np.empty(n, np.int64)
    for w, rows in enumerate(owned):
        owner[rows] = w
    a = np.zeros((n, n_problems))
    inner = InnerPlan(tol=plan.tol, ratio=plan.ratio, max_steps=plan.max_inner, by_sign=False)
    update, it, steps, seconds, stalled = None, 0, 0, 0.0, 0
    done = np.zeros(n_problems, np.int64)  # each problem's pair steps
    while True:
        tic = time.perf_counter()
        k = q if it == 0 else min(plan.new, q)
        proposals = resolve([p.step(update, book.vars, k) for p in parts])
        update = None  # (applied)
        m = np.max([r[0] for r in proposals], axis=0)
        M = np.min([r[1] for r in proposals], axis=0)
        largest = max(r[2] for r in proposals)
        viol = np.maximum(m - M, 0.0)
        active = with_steps_left(np.flatnonzero(viol > tolerance_of(plan.tol, largest)),
                                 done, plan.max_iter)
        if active.size == 0:
            break
        lists = [alternate(_merged([r[3][c] for r in proposals], M[c], k),
                           _merged([r[4][c] for r in proposals], -m[c], k), k) for c in active]
        new = union_by_pairs(lists, k, it)
        Z = sq_z = None
        missed, victims = book.place(new) if new.size else (np.empty(0, np.int64),) * 2
        if missed.size:
            Z, sq_z = _vectors(parts, owner, missed, resolve)
        wvars = book.vars
        slots = book.slot_of[wvars]
        blocks = resolve([p.fill(Z, sq_z, victims, wvars, slots) for p in parts])
        K = np.empty((wvars.size, wvars.size), STORE_DTYPE)  # (the kept values as they are)
        F = np.empty((wvars.size, n_problems))
        for w, (columns, gradients) in enumerate(blocks):
            at = np.flatnonzero(owner[wvars] == w)
            K[:, at] = columns
            F[at] = gradients
        delta, moved = solve_set(K, Y[wvars], C[wvars], a, wvars, F, SVC_DUAL.p, active,
                                 inner, steps_left(done, plan.max_iter))
        done += moved
        moved = int(moved.sum())
        update = (slots, delta, wvars, a[wvars])
        steps += moved
        it += 1
        seconds += time.perf_counter() - tic
        if new.size == 0 and moved == 0:
            break
        stalled = 0 if moved else stalled + 1
        if stalled > q // max(1, min(plan.new, q)) + 2:
            break
    F = np.empty((n_problems, n)).T
    for rows, gradients in zip(owned, resolve([p.gradients(update) for p in parts])):
        F[rows] = gradients
    state = WorkingSetState(a, F)
    viol = violations(Y, C, state)[0]
    largest = float(np.abs(F).max(initial=0.0))
    return Result(state, intercepts(Y, C, state), viol, it, seconds, book.computed, steps,
                  bool(np.all(viol <= tolerance_of(plan.tol, largest))), problem_steps=done,
                  out_of_steps=out_of_steps(done, plan.max_iter))


def _merged(proposals, floor, k):
    """The k best of the holders' proposals (training numbers, values), above ``floor``,
    by value descending, ties by training number: what ``_top`` gives on all rows."""
    rows = np.concatenate([r for r, _ in proposals])
    values = np.concatenate([v for _, v in proposals])
    keep = values > floor
    rows, values = rows[keep], values[keep]
    order = np.lexsort((rows, -values))[:k]
    return rows[order]


def _vectors(parts, owner, missed, resolve):
    """The rows ``missed`` gathered from their holders, in that order, and their squared
    norms."""
    holders = np.unique(owner[missed])
    got = resolve([parts[w].vectors(missed[owner[missed] == w]) for w in holders])
    Z = np.empty((missed.size, got[0][0].shape[1]), got[0][0].dtype)
    sq = np.empty(missed.size)
    for w, (vectors, norms) in zip(holders, got):
        at = owner[missed] == w
        Z[at], sq[at] = vectors, norms
    return Z, sq


def plan_rows(n):
    """What :func:`~pegasos._dual.working_set_plan` reads of the rows: their number."""
    return SimpleNamespace(n_rows=n)
