"""Kernel Pegasos, the kernel Perceptron and the SBP on a precomputed kernel matrix.

For a small training set (``_solvers.gram.GRAM_ROWS`` rows at most) the
estimators compute the whole kernel matrix once, with NumPy's BLAS, and train
on it here, step by step: a changed example's kernel column is a row of the
matrix (it is symmetric), so every response is brought up to date at once and
no chunk, block or tile is needed.  The algorithms, their states and their
iterates are those of :func:`.kernel_pegasos.kernel_pegasos_blocks` and
:func:`.sbp.sbp_blocks` (the same helpers, inlined), up to the rounding of the
sums' order and of the kernel values.

Why a second path: the blocked engine is compiled once per kind of rows
(dense or CSR, float64 or float32) and engine, and its solvers link in the
kernel computation; these functions read one float64 matrix whatever the
rows were, so they compile once per install and in a fraction of the time
(a first fit of a few seconds instead of tens; BENCHMARKS.md section 11).
"""

from typing import NamedTuple

import numpy as np

from ._jit import njit
from .changes import clear, new_changes
from .kernel_pegasos import BETA, PEGASOS, PERCEPTRON, W2, S, finish_step, shrink
from .sbp import SBP_W2, Scratch, draw_all, finish_all


class GramData(NamedTuple):
    """The training problem on its kernel matrix: ``K`` (n, n) float64, K(x_i, x_j)
    plus the kernel's ``bias2``; targets ``Y`` (n, n_problems) in {-1, +1}; loss
    weights ``sw`` (n,)."""

    K: np.ndarray
    Y: np.ndarray
    sw: np.ndarray


@njit(inline="always")
def _judge(batch, Y, sw, g, scal, mode, step_size, coef_w):
    """``coef_w[m]`` (units of w): step * y * weight of the batch's m-th draw in each
    problem where it violates its margin with the current iterate (the responses ``g``
    are current), 0 elsewhere.  A draw made twice in a batch counts twice, as
    :func:`.changes.merge` adds it up on the engine."""
    for m in range(batch.shape[0]):
        i = batch[m]
        for c in range(Y.shape[1]):
            margin = Y[i, c] * scal[S, c] * g[i, c]
            if (mode == PEGASOS and margin < 1.0) or (mode == PERCEPTRON and margin <= 0.0):
                coef_w[m, c] = step_size * Y[i, c] * sw[i]
            else:
                coef_w[m, c] = 0.0


@njit(inline="always")
def _norms(K, members, coef_w, scale, g, w2_new):
    """``w2_new`` (||w||^2 on entry) becomes ||w + dw||^2 = ||w||^2 + 2 <w, dw> + <dw, dw>:
    <w, phi(x_i)> = scale * g[i], <dw, dw> from the members' kernel values (``coef_w``
    in units of w)."""
    count = members.shape[0]
    for c in range(scale.shape[0]):
        lin = 0.0
        quad = 0.0
        for m in range(count):
            i = members[m]
            lin += coef_w[m, c] * g[i, c]
            inner = 0.0
            for q in range(count):
                inner += K[i, members[q]] * coef_w[q, c]
            quad += coef_w[m, c] * inner
        w2_new[c] += 2.0 * scale[c] * lin + quad


@njit(inline="always")
def _add_columns(K, members, coef, a, g):
    """``a[members] += coef`` and every response ``g += K[:, members] @ coef``, row by row
    of K (the members' kernel columns); a member whose coefficients are all 0 is skipped."""
    n, n_problems = g.shape
    for m in range(members.shape[0]):
        i = members[m]
        column = K[i]
        zero = True
        for c in range(n_problems):
            a[i, c] += coef[m, c]
            zero = zero and coef[m, c] == 0.0
        if zero:
            continue
        for j in range(n):
            for c in range(n_problems):
                g[j, c] += column[j] * coef[m, c]


@njit
def gram_pegasos_steps(data, plan, state, idx, t):
    """Run ``len(idx) // plan.k`` iterations of mini-batch kernel Pegasos (or the kernel
    Perceptron) on every one-vs-rest problem at once, on the kernel matrix.

    The algorithm of :func:`.kernel_pegasos.kernel_pegasos_blocks` (``plan``
    a :class:`~.kernel_pegasos.ResponsePlan`, ``state`` a
    :class:`~.kernel_pegasos.ResponseState` updated in place, the iterations
    ``idx[step*k:(step+1)*k]``), with every response current after each
    step: no chunk, so a call may stop at any step.  ``data`` a
    :class:`GramData`.  Returns t after the last step.
    """
    k, scal = plan.k, state.scal
    a, g, u, _ = state
    coef_w = np.empty((k, scal.shape[1]))
    coef = np.empty((k, scal.shape[1]))
    for step in range(idx.shape[0] // k):
        batch = idx[step * k : (step + 1) * k]
        step_size = 1.0 / (plan.lam * k) / t if plan.mode == PEGASOS else 1.0
        _judge(batch, data.Y, data.sw, g, scal, plan.mode, step_size, coef_w)
        if plan.mode == PEGASOS:
            shrink(t, state)
        w2_new = scal[W2].copy()
        _norms(data.K, batch, coef_w, scal[S], g, w2_new)
        for m in range(k):  # units of w to coefficients of the scaled iterate
            for c in range(scal.shape[1]):
                coef[m, c] = coef_w[m, c] / scal[S, c]
                if scal[BETA, c] != 0.0:  # the lazy average stays in step
                    u[batch[m], c] -= scal[BETA, c] * coef[m, c]
        _add_columns(data.K, batch, coef, a, g)
        for c in range(scal.shape[1]):
            finish_step(t, c, w2_new[c], plan, state)
        t += 1
    return t


@njit
def gram_sbp_steps(data, plan, state, draws, t):
    """Run ``len(draws)`` iterations of the mini-batch SBP on every one-vs-rest problem,
    on the kernel matrix.

    The algorithm of :func:`.sbp.sbp_blocks` (``plan`` an
    :class:`~.sbp.SBPPlan`, whose ``max_cols`` and ``engine`` go unused;
    ``state`` an :class:`~.sbp.SBPState` updated in place; ``draws[step, c]``
    problem c's uniforms), its draws' kernel columns read from the matrix.
    ``data`` an :class:`~.sbp.SBPData` whose ``points`` is the kernel matrix
    K (n, n) (no ``bias2``).  Returns t after the last step.
    """
    a, r, _, _, scal = state
    K = data.points
    n, n_problems = data.Y.shape
    changes = new_changes(n, draws.shape[2] * n_problems, n_problems)
    scratch = Scratch(np.empty(3 * n), np.empty(n, np.int64), np.empty(n))
    for step in range(draws.shape[0]):
        count = draw_all(t, data, plan, r, draws[step], changes, scratch)
        clear(changes, count)
        w2 = scal[SBP_W2].copy()
        members, coef_w = changes.members[:count], changes.coef_w[:count]
        _norms(K, members, coef_w, np.ones(n_problems), r, w2)
        _add_columns(K, members, coef_w, a, r)
        finish_all(t, plan, w2, state)
        t += 1
    return t
