"""Budgeted kernel Pegasos and the budgeted kernel Perceptron: the driver of
:func:`pegasos._numba.budget.budget_steps` (see that module for the algorithm)."""

import time

import numpy as np

from .._base import check_finite_weights
from .._numba import budget as _nb
from .._numba import kernel_pegasos as _nkp
from .._numba.budget import Budget, BudgetPlan
from .._numba.kernel_pegasos import ResponseData
from .._rows import check_draws
from .engine import REPORTS, points
from .threads import one_blas_thread

#: The strategies by name (the estimators' ``budget_strategy``).
STRATEGIES = {"merge": _nb.MERGE, "remove": _nb.REMOVE, "project": _nb.PROJECT}

#: Draws per compiled call (a report comes between calls).
CALL_DRAWS = 1 << 14


def budget_bytes(budget, k, n_problems, n_features, itemsize):
    """Bytes a :class:`~pegasos._numba.budget.Budget` of ``budget`` points holds (its
    points, their kernel matrix, coefficients and averages), for the memory check."""
    cap = budget + k
    return cap * n_features * itemsize + 8 * cap * (cap + 2 * n_problems + 2)


def new_budget(budget, k, n_problems, n_features, dtype):
    """An empty :class:`~pegasos._numba.budget.Budget` for ``budget`` points and batches
    of ``k`` rows of ``n_features`` values of ``dtype``, every problem at w = 0."""
    cap = budget + k
    scal = np.zeros((_nkp.N_SCALARS, n_problems))
    scal[_nkp.S] = 1.0
    return Budget(Z=np.zeros((cap, n_features), dtype), sqz=np.zeros(cap),
                  A=np.zeros((cap, n_problems)), U=np.zeros((cap, n_problems)),
                  G=np.zeros((cap, cap)), ids=np.full(cap, -1, np.int64), scal=scal,
                  count=np.zeros(1, np.int64))


def plan_of(plan, mode, budget, strategy):
    """The compiled :class:`~pegasos._numba.budget.BudgetPlan` from an estimator's plan
    (``pegasos._base.make_plan``'s), ``mode``, the ``budget`` and the strategy's name."""
    return BudgetPlan(k=plan.batch_size, lam=plan.lam, radius2=plan.radius2, mode=mode,
                      avg_start=plan.avg_start(1), budget=int(budget),
                      strategy=STRATEGIES[strategy])


def output(budget):
    """The points held and their output coefficients (m, n_problems): the average, or
    the last iterate (:func:`pegasos._solvers.kernel_pegasos.output`'s rule)."""
    m = int(budget.count[_nb.N_POINTS])
    a, u, scal = budget.A[:m], budget.U[:m], budget.scal
    out = scal[_nkp.S] * a
    averaged = scal[_nkp.N_AVG] > 0
    out[:, averaged] = (u[:, averaged] + scal[_nkp.BETA, averaged] * a[:, averaged]) / scal[
        _nkp.N_AVG, averaged]
    return budget.Z[:m], out


def run(budget, rows, sqnorm, data, kern, plan, T, stream, t, first=0, report=None):
    """T iterations of :func:`~pegasos._numba.budget.budget_steps` on prepared ``rows``
    (their squared norms ``sqnorm``; ``data`` a
    :class:`~pegasos._numba.kernel_pegasos.ResponseData` without points), from step
    ``t``; row i is the training row ``first + i``.  ``stream`` gives the draws
    (:class:`~pegasos._sampling.IndexStream`); ``report(t, done, evals, seconds)`` is
    called about :data:`~.engine.REPORTS` times when given.  Returns (t, evals)."""
    n = rows.n_rows
    data = data._replace(points=points(rows, sqnorm))
    per_call = max(1, CALL_DRAWS // plan.k)
    if report is not None:
        per_call = min(per_call, max(1, -(-T // REPORTS)))
    done, evals, seconds = 0, 0, 0.0
    while done < T:
        steps = min(per_call, T - done)
        idx = stream.take(steps * plan.k)
        check_draws(idx, n)
        tic = time.perf_counter()
        with one_blas_thread():
            t, e = _nb.budget_steps(budget, data, kern, plan, idx, t, first)
        seconds += time.perf_counter() - tic
        done, evals = done + steps, evals + e
        check_finite_weights(f"iteration {t - 1}", budget.scal)
        if report is not None:
            report(t, done, evals, seconds)
    return t, evals


def data_of(diag, Y, sw):
    """The :class:`~pegasos._numba.kernel_pegasos.ResponseData` of a block of rows (its
    points set by :func:`run`)."""
    return ResponseData(None, diag, np.ascontiguousarray(Y, dtype=np.float64),
                        np.ascontiguousarray(sw, dtype=np.float64))
