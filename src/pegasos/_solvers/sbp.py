"""The Stochastic Batch Perceptron: the driver of :func:`pegasos._numba.sbp.sbp_blocks`
and the output model of its state."""

import math

import numpy as np

from .._numba import sbp as _nsbp
from .._numba import water_filling as _wf
from .._numba.blocks import OnMatrix
from .._numba.changes import new_changes
from .._numba.sbp import Biased, SBPData, SBPPlan, SBPState, Scratch
from .._rows import check_array, check_per_row
from .engine import block_columns, engine_for, points, run_calls


def fit(rows, sqnorm, diag, Y, budgets, sw, kern, plan, biased, report=None, gram=None):
    """An estimator's fit: :func:`run` of its prepared rows (``rows``, their squared norms
    ``sqnorm``, K's diagonal ``diag``), targets ``Y`` (n, problems), slack budgets
    ``budgets`` (problems,) and loss weights ``sw``, with the compiled plan made here from
    the estimator's ``plan`` (``pegasos._base.make_plan``'s: averaging, ``n_iter``, batch
    size, seed): the ball's radius max sqrt K(x, x), the draws of the biased SBP or the
    unbiased one (``biased``).  Returns (state, evals) as :func:`run`."""
    radius = math.sqrt(max(float(diag.max()), np.finfo(float).tiny))
    draws = _nsbp.BIASED if biased else _nsbp.UNBIASED
    return run(
        rows, SBPData(points(rows, sqnorm), Y, budgets, sw), kern,
        SBPPlan(radius=radius, draws=draws, avg_start=plan.avg_start(1),
                max_cols=block_columns(rows.n_features), engine=engine_for(rows.n_rows)),
        plan.n_iter, plan.seeds[0], plan.batch_size, report, gram,
    )


def run(rows, data, kern, plan, n_iter, seed, batch_size, report=None, gram=None):
    """``n_iter`` iterations of :func:`~pegasos._numba.sbp.sbp_blocks` from w = 0.

    ``rows`` (:class:`~pegasos._rows.Rows`), ``data`` a
    :class:`~pegasos._numba.sbp.SBPData` whose ``points`` are those rows,
    ``kern`` and ``plan`` as that function takes them; the draws come from
    ``seed``, ``batch_size`` per problem (twice that with a bias);
    ``report(t, done, evals, seconds, state)`` is called about
    :data:`~.engine.REPORTS` times when given.  With ``gram``, the rows'
    kernel matrix (n, n) (:mod:`.gram`), the same steps read it
    (:func:`~pegasos._numba.sbp.sbp_on_matrix`, the plan's engine an
    :class:`~pegasos._numba.blocks.OnMatrix`) and evaluate no kernel
    (whoever computed the matrix counts its n^2 values).  Returns (state, evals): the
    :class:`~pegasos._numba.sbp.SBPState`.
    """
    n, n_problems = rows.n_rows, data.Y.shape[1]
    check_per_row(rows, squared_norms=data.points.sqnorm, loss_weights=data.sw)
    check_array("the targets Y", data.Y, (n, n_problems))
    check_array("the slack budgets", data.budgets, (n_problems,))
    state = SBPState(*(np.zeros((n, n_problems)) for _ in range(4)),
                     scal=np.zeros((_nsbp.SBP_SCALARS, n_problems)))
    rng = np.random.default_rng(seed)
    per = 2 * batch_size if isinstance(plan.draws, Biased) else batch_size
    scratch = new_scratch(n, per)

    if gram is not None:
        check_array("the kernel matrix", gram, (n, n))
        # (the rows go unused there: one type whatever they are, so one compile)
        data, plan = data._replace(points=None), plan._replace(engine=OnMatrix(gram))
    steps_of = _nsbp.sbp_blocks if gram is None else _nsbp.sbp_on_matrix
    changes = new_changes(n, per * n_problems, n_problems)

    def step(steps, t):
        draws = rng.random((steps, n_problems, per))
        return steps_of(data, kern, plan, state, draws, t, scratch, changes)

    evals = run_calls(n_iter, per * n_problems, step, state.scal, None if report is None
                      else lambda t, done, evals, seconds: report(t, done, evals, seconds, state))
    return state, evals


def new_scratch(n, per):
    """A :class:`~pegasos._numba.sbp.Scratch` for n examples and ``per`` uniforms per
    problem and step (allocated here: nothing to compile)."""
    return Scratch(np.empty(3 * n), np.empty(n, np.int64), np.empty(n), np.empty(per, np.int64),
                   np.empty(per))


def water_levels_biased(c_pos, s_pos, c_neg, s_neg, budget):
    """Water filling with a free bias b (two classes, equal weight below their levels).

    ``c_pos`` are the positives' responses r_i, ``c_neg`` the negatives' -r_i,
    ``s_pos``, ``s_neg`` their weights.  With margins r_i + b (positives) and
    -r_i - b (negatives), returns (kappa, b, i, j, mu): the common level, the
    bias, how many positives and negatives sit at or below it, and the weight
    of each class in the minimax distribution (see
    :func:`~pegasos._numba.water_filling.biased_levels_sorted`, which the draws
    compile).  The total weighted slack sum s_i max(0, kappa - margin_i) is
    ``budget``; kappa = (kappa_pos + kappa_neg) / 2 and b = kappa - kappa_pos.
    With unit weights, i = j = mu: as many points of each class.
    """
    op = np.argsort(c_pos, kind="stable")
    on = np.argsort(c_neg, kind="stable")
    kp, kn, i, j, mu = _wf.biased_levels_sorted(c_pos[op], s_pos[op], c_neg[on], s_neg[on],
                                                float(budget))
    kappa = 0.5 * (kp + kn)
    return kappa, kappa - kp, i, j, mu


def output(state, c, target, sw, budget, biased):
    """(coef, intercept, kappa, scale) of problem c's output model.

    The average (or the last iterate), rescaled to water-level margin 1 when
    that margin is positive: ``kappa`` is the water level of the averaged
    responses (before the rescaling, in units of ``scale``, the number of
    averaged iterates, or 1).
    """
    a, r = state.a[:, c], state.r[:, c]
    n_avg = state.scal[_nsbp.SBP_N_AVG, c]
    if n_avg > 0:
        a, r, scale = state.a_sum[:, c], state.r_sum[:, c], n_avg
    else:
        scale = 1.0
    if biased:
        pos = target > 0
        kappa, b, _, _, _ = water_levels_biased(r[pos], sw[pos], -r[~pos], sw[~pos],
                                                budget * scale)
    else:  # the draws' quickselect (compiled already), not a sort
        kappa = _wf.water_level_select(target * r, budget * scale, sw, np.empty(len(r)),
                                       np.empty(len(r)))
        b = 0.0
    norm = kappa if kappa > 0 else scale  # margin 1 (the hinge-loss form), if it can be
    return a / norm, b / norm, kappa, scale
