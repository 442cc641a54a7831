"""The distributed fit's worker and driver steps (:mod:`pegasos.dask_backend`):
:func:`partition_sum`, :func:`local_epoch` and :func:`step_from_sum` call the in-memory
fit's compiled step (:func:`pegasos._numba.linear.pegasos_steps`) by its named
settings."""

import numpy as np

from ..._base import NEVER
from ..._numba import linear as _k
from ..._numba.linear import LinearData, LinearPlan, LinearState
from ..._rows import as_rows, check_array, check_draws, check_linear_state, check_per_row


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
