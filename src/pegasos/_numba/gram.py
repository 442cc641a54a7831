"""Kernel Pegasos, the kernel Perceptron and the SBP on a precomputed kernel matrix.

For a small training set (``_solvers.gram.GRAM_ROWS`` rows at most) the
estimators compute the whole kernel matrix once, with NumPy's BLAS, and train
on it here, step by step: a changed example's kernel column is a row of the
matrix (it is symmetric), so every response is brought up to date at once and
no chunk, block or tile is needed.  The algorithms, their states and their
iterates are those of :func:`.kernel_pegasos.kernel_pegasos_blocks` and
:func:`.sbp.sbp_blocks`, up to the rounding of the sums' order and of the
kernel values.  The one-vs-rest problems share nothing here but the matrix
and the draws, so each is stepped on its own: no merge of their changes by
example, which the engine needs to share a kernel column between them, and
code that compiles in about half the time (BENCHMARKS.md "Compile time").

Why a second path: the blocked engine is compiled once per kind of rows
(dense or CSR, float64 or float32) and engine, and its solvers link in the
kernel computation; these functions read one float64 matrix whatever the
rows were, so they compile once per install and in a fraction of the time
(a first fit of a few seconds instead of tens; BENCHMARKS.md "Compile time").
"""

import math
from typing import NamedTuple

import numpy as np

from ._jit import njit
from .kernel_pegasos import BETA, N_FOLD, PEGASOS, W2, S, _fold, finish_step
from .sbp import SBP_W2, draw_one, finish_all
from .scale import settled, shrunk

#: A step that never joins an average (gram_pegasos_pass keeps none).
_NO_AVERAGE = np.iinfo(np.int64).max


class GramData(NamedTuple):
    """The training problem on its kernel matrix: ``K`` (n, n) float64, K(x_i, x_j)
    plus the kernel's ``bias2``; targets ``Y`` (n, n_problems) in {-1, +1}; loss
    weights ``sw`` (n,)."""

    K: np.ndarray
    Y: np.ndarray
    sw: np.ndarray


@njit
def gram_pegasos_steps(data, plan, state, idx, t):
    """Run ``len(idx) // plan.k`` iterations of mini-batch kernel Pegasos (or the kernel
    Perceptron) on every one-vs-rest problem, on the kernel matrix.

    The algorithm of :func:`.kernel_pegasos.kernel_pegasos_blocks` (``plan``
    a :class:`~.kernel_pegasos.ResponsePlan`, ``state`` a
    :class:`~.kernel_pegasos.ResponseState` updated in place, the iterations
    ``idx[step*k:(step+1)*k]``), with every response current after each
    step: no chunk, so a call may stop at any step.  ``data`` a
    :class:`GramData`.  Returns t after the last step.

    The problems share only their draws, so each runs all its steps in turn,
    its scalars (scale, ||w||^2, the lazy average's beta) kept in locals, and
    compiles in half the time of the engine's form (all problems in each step;
    BENCHMARKS.md "Compile time").  The scale step is the engine's own
    (:mod:`.scale`, through :func:`.kernel_pegasos.finish_step`).  A draw made
    twice in a batch counts twice, as :func:`.changes.merge` adds it up on the
    engine.
    """
    K, Y, sw = data
    a, g, u, scal = state
    k, n, steps = plan.k, K.shape[0], idx.shape[0] // plan.k
    pegasos = plan.mode == PEGASOS
    coef = np.empty(k)  # the batch's steps in units of w, 0 where the margin holds
    for c in range(Y.shape[1]):
        s, w2, beta = scal[S, c], scal[W2, c], scal[BETA, c]
        for step in range(steps):
            batch = idx[step * k : (step + 1) * k]
            tt = t + step
            eta = 1.0 / (plan.lam * k) / tt if pegasos else 1.0
            for m in range(k):
                i = batch[m]
                margin = Y[i, c] * s * g[i, c]
                violates = margin < 1.0 if pegasos else margin <= 0.0
                coef[m] = eta * Y[i, c] * sw[i] if violates else 0.0
            if pegasos:  # shrink by (1 - 1/t); t = 1 starts from w = 0
                s, w2, restart = shrunk(tt, s, w2)
                if restart:
                    if beta != 0.0:
                        _fold(c, beta, a, u)
                        beta = 0.0
                        scal[N_FOLD, c] = 0.0
                    for j in range(n):
                        a[j, c] = 0.0
                        g[j, c] = 0.0
            # ||w + dw||^2 = ||w||^2 + 2 <w, dw> + <dw, dw>, with <w, phi(x_i)> = s g[i];
            # the draws that hold their margin add 0 (skipped: their kernel values, read
            # problem after problem, were the Perceptron's cost)
            lin, quad = 0.0, 0.0
            for m in range(k):
                if coef[m] == 0.0:
                    continue
                i = batch[m]
                lin += coef[m] * g[i, c]
                inner = 0.0
                for q in range(k):
                    if coef[q] != 0.0:
                        inner += K[i, batch[q]] * coef[q]
                quad += coef[m] * inner
            w2 += 2.0 * s * lin + quad
            for m in range(k):  # units of w to coefficients of the scaled iterate
                if coef[m] == 0.0:
                    continue
                i = batch[m]
                change = coef[m] / s
                if beta != 0.0:  # the lazy average stays in step
                    u[i, c] -= beta * change
                a[i, c] += change
                column = K[i]  # the matrix is symmetric: example i's kernel column
                for j in range(n):
                    g[j, c] += column[j] * change
            scal[S, c], scal[BETA, c] = s, beta
            finish_step(tt, c, w2, plan, state)
            s, w2, beta = scal[S, c], scal[W2, c], scal[BETA, c]
        scal[S, c], scal[W2, c], scal[BETA, c] = s, w2, beta
    return t + steps


@njit
def gram_sbp_steps(data, plan, state, draws, t, scratch):
    """Run ``len(draws)`` iterations of the mini-batch SBP on every one-vs-rest problem,
    on the kernel matrix.

    The algorithm of :func:`.sbp.sbp_blocks` (``plan`` an
    :class:`~.sbp.SBPPlan`, whose ``max_cols`` and ``engine`` go unused;
    ``state`` an :class:`~.sbp.SBPState` updated in place; ``draws[step, c]``
    problem c's uniforms), its draws' kernel columns read from the matrix.
    ``data`` an :class:`~.sbp.SBPData` whose ``points`` is the kernel matrix
    K (n, n) (no ``bias2``); ``scratch`` a :class:`~.sbp.Scratch` for n
    examples and ``draws.shape[2]`` draws.  Returns t after the last step.

    The problems share nothing but the matrix, so each step takes them in
    turn, its draws (:func:`.sbp.draw_one`) added one by one: nothing is
    merged by example, as the engine does to share a kernel column between
    problems.  A draw made twice counts twice either way.
    """
    a, r, _, _, scal = state
    K, n = data.points, data.Y.shape[0]
    picks, values = scratch.picks, scratch.values
    for step in range(draws.shape[0]):
        eta = 1.0 / (plan.radius * math.sqrt(t))
        w2 = scal[SBP_W2].copy()
        for c in range(data.Y.shape[1]):
            count = draw_one(c, eta, data, plan, r, draws[step, c], scratch)
            # ||w + dw||^2 = ||w||^2 + 2 <w, dw> + <dw, dw>, with <w, phi(x_i)> = r[i]
            for m in range(count):
                i = picks[m]
                inner = 0.0
                for q in range(count):
                    inner += K[i, picks[q]] * values[q]
                w2[c] += values[m] * (2.0 * r[i, c] + inner)
            for m in range(count):
                i, change = picks[m], values[m]
                a[i, c] += change
                column = K[i]  # example i's kernel column (the matrix is symmetric)
                for j in range(n):
                    r[j, c] += column[j] * change
        finish_all(t, plan, w2, state)
        t += 1
    return t


@njit
def gram_pegasos_pass(data, lam, idx, coef, g, scal):
    """One pass of mini-batch projected kernel Pegasos from w = 0 on every one-vs-rest
    problem, on the kernel matrix: the SBP's nu from C (``_solvers.kernel_pegasos.
    nu_from_one_pass``) needs its last iterate's responses and norm alone.

    What :func:`gram_pegasos_steps` computes for a fresh state and the plan (k =
    ``coef.shape[0]``, ``lam``, the radius 1/sqrt(lam), no average), without the
    coefficients, the average and the Perceptron that function carries: it
    compiles in about half its time, a second less for the default SBP's first
    fit (BENCHMARKS.md "Compile time").  ``data`` a :class:`GramData`; the batches
    ``idx[step*k:(step+1)*k]``; ``g`` (n, n_problems) zeros, filled with the
    responses in units of each problem's scale; ``scal`` (2, n_problems) receives
    the scales and ||w||^2.
    """
    K, Y, sw = data
    k, n = coef.shape[0], K.shape[0]
    radius2 = 1.0 / lam
    for c in range(Y.shape[1]):
        s, w2 = 1.0, 0.0
        for step in range(idx.shape[0] // k):
            batch = idx[step * k : (step + 1) * k]
            t = step + 1
            for m in range(k):  # judged with the iterate before the step
                i = batch[m]
                violates = Y[i, c] * s * g[i, c] < 1.0
                coef[m] = Y[i, c] * sw[i] / (lam * k) / t if violates else 0.0
            s, w2, _ = shrunk(t, s, w2)  # (w = 0 at t = 1 already)
            for m in range(k):  # ||w + dw||^2 = ||w||^2 + 2 <w, dw> + <dw, dw>
                if coef[m] == 0.0:
                    continue
                i = batch[m]
                inner = 0.0
                for q in range(k):
                    if coef[q] != 0.0:
                        inner += K[i, batch[q]] * coef[q]
                w2 += 2.0 * s * coef[m] * g[i, c] + coef[m] * inner
            for m in range(k):
                if coef[m] != 0.0:
                    change, column = coef[m] / s, K[batch[m]]
                    for j in range(n):
                        g[j, c] += column[j] * change
            s, w2, factor, _, _, _, _, _ = settled(t, s, w2, 0.0, 0.0, 0.0, radius2, _NO_AVERAGE)
            if factor != 1.0:  # (no coefficients, no average)
                for j in range(n):
                    g[j, c] *= factor
        scal[0, c], scal[1, c] = s, w2
