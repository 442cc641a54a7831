"""Where kernel Pegasos' and the Perceptron's steps read and change the responses.

Kernel Pegasos' step runs on either of two kinds of memory:

* :class:`Chunk`, on the engine's rows: only the rows drawn in the current chunk
  are kept current, their kernel values with the chunk's changed examples
  computed as rows join and as examples change, and the other rows' changes
  wait in ``pending`` for the chunk's flush (``_solvers.kernel_pegasos.flush``);
* :class:`~.blocks.OnMatrix`, on a small training set's kernel matrix
  (``_solvers.gram``): every row is current after every step, a change is added
  to every response at once from a row of K, and no kernel value is computed.
  Joining rows, new columns, pending changes and the flush have nothing to do.

The step's source is written once (:func:`.kernel_pegasos.kernel_pegasos_blocks`),
with the chunk's operations below (:func:`join`, :func:`new_columns`,
:func:`response`, :func:`kernel_at`, :func:`add_change`, :func:`rescale`,
:func:`forget`), and compiled again with the matrix's in their place
(:data:`ON_MATRIX`, ``_jit.recompiled``): either way they are inlined into it at
Numba's level, as every helper of a solver is, and nothing is chosen at run time.
"""

from typing import NamedTuple

import numpy as np

from ._jit import njit
from .blocks import pair_block

# the chunk's counters (Chunk.counts)
N_ROWS = 0
N_COLS = 1


class Chunk(NamedTuple):
    """The rows drawn in the current chunk and the examples changed in it.

    ``chunk_rows[:counts[N_ROWS]]`` are the examples drawn so far (``local``
    maps an example to its position there, -1 outside),
    ``col_rows[:counts[N_COLS]]`` those whose coefficients changed
    (``column`` likewise), ``kc[r, q]`` the augmented kernel between chunk row
    r and column q, ``pending[q]`` the change of column q's coefficients not
    yet in the responses ``g``, ``gl[r]`` chunk row r's current responses.
    """

    local: np.ndarray
    column: np.ndarray
    chunk_rows: np.ndarray
    col_rows: np.ndarray
    kc: np.ndarray
    pending: np.ndarray
    gl: np.ndarray
    counts: np.ndarray


@njit(inline="always")
def _put(dst, r0, c0, src, shift):
    """dst[r0:, c0:] <- src + shift over src's shape.

    A loop, not a slice assignment: Numba links into every function that
    assigns an array to a slice the code that formats its shape-mismatch
    error, and compiles it again there (docs/journal/compile_time.md)."""
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst[r0 + i, c0 + j] = src[i, j] + shift


@njit(inline="always")
def cross_block(points, kern, idx_a, idx_b, max_cols):
    """K(X[idx_a], X[idx_b]) + bias2, the rows ``idx_b`` copied at most ``max_cols`` at a time."""
    out = np.empty((idx_a.shape[0], idx_b.shape[0]))
    for start in range(0, idx_b.shape[0], max_cols):
        part = pair_block(points, idx_a, idx_b[start : start + max_cols], kern)
        _put(out, 0, start, part, kern.bias2)
    return out


@njit(inline="always")
def _admit(items, position, listed, count):
    """Append to ``listed[:count]`` the items not yet in it (``position[i] < 0``),
    recording each one's position; returns the new count."""
    for j in range(items.shape[0]):
        i = items[j]
        if position[i] < 0:
            position[i] = count
            listed[count] = i
            count += 1
    return count


class Operations(NamedTuple):
    """What the step asks of where it runs, one function each (all ``@njit(inline=
    "always")``): ``join(points, kern, max_cols, batch, g, chunk)`` brings the batch's
    rows in and ``new_columns(points, kern, max_cols, members, g, chunk)`` gives changed
    examples a column (both return kernel evaluations); ``response(chunk, g, i, c)``
    reads a current row's response; ``kernel_at(chunk, i, j)`` K(x_i, x_j) + bias2 of a
    current row i and a changed example j; ``add_change(chunk, g, i, c, delta)`` adds
    delta to example i's coefficient in problem c, to the current responses at once and
    pending for the others; ``rescale(chunk, c, factor)`` after the coefficients and
    ``g`` were multiplied by ``factor``; ``forget(chunk, c)`` when problem c restarts
    from w = 0 (``g`` zeroed)."""

    join: object
    new_columns: object
    response: object
    kernel_at: object
    add_change: object
    rescale: object
    forget: object


@njit(inline="always")
def join(points, kern, max_cols, batch, g, chunk):
    """Bring the batch's examples into the chunk: their responses ``g`` plus the chunk's
    pending changes.  Returns kernel evaluations."""
    counts = chunk.counts  # (no tuple unpacking of arrays: see docs/journal/compile_time.md)
    gl = chunk.gl
    first = counts[N_ROWS]
    n_rows = counts[N_ROWS] = _admit(batch, chunk.local, chunk.chunk_rows, first)
    for r in range(first, n_rows):
        for c in range(gl.shape[1]):
            gl[r, c] = g[chunk.chunk_rows[r], c]
    n_cols = counts[N_COLS]
    if n_rows == first or n_cols == 0:
        return 0
    block = cross_block(points, kern, chunk.chunk_rows[first:n_rows], chunk.col_rows[:n_cols],
                        max_cols)
    _put(chunk.kc, first, 0, block, 0.0)
    dg = np.dot(block, chunk.pending[:n_cols])
    for r in range(dg.shape[0]):
        for c in range(dg.shape[1]):
            gl[first + r, c] += dg[r, c]
    return (n_rows - first) * n_cols


@njit(inline="always")
def new_columns(points, kern, max_cols, members, g, chunk):
    """Give the members that have no column in the chunk one: their kernel with every
    chunk row.  Returns kernel evaluations."""
    counts = chunk.counts
    first = counts[N_COLS]
    n_cols = counts[N_COLS] = _admit(members, chunk.column, chunk.col_rows, first)
    chunk.pending[first:n_cols] = 0.0
    n_rows = counts[N_ROWS]
    if n_cols > first:
        block = cross_block(points, kern, chunk.chunk_rows[:n_rows], chunk.col_rows[first:n_cols],
                            max_cols)
        _put(chunk.kc, 0, first, block, 0.0)
    return n_rows * (n_cols - first)


@njit(inline="always")
def response(chunk, g, i, c):
    """Example i's current response in problem c (i a chunk row)."""
    return chunk.gl[chunk.local[i], c]


@njit(inline="always")
def kernel_at(chunk, i, j):
    """K(x_i, x_j) + bias2 of a chunk row i and a changed example j."""
    return chunk.kc[chunk.local[i], chunk.column[j]]


@njit(inline="always")
def add_change(chunk, g, i, c, delta):
    """Add ``delta`` to example i's coefficient in problem c: to the chunk rows'
    responses at once, pending for the others."""
    q = chunk.column[i]
    chunk.pending[q, c] += delta
    for r in range(chunk.counts[N_ROWS]):
        chunk.gl[r, c] += chunk.kc[r, q] * delta


@njit(inline="always")
def rescale(chunk, c, factor):
    """Problem c's chunk responses and pending changes times ``factor`` (a rescaling,
    which multiplied its coefficients and ``g`` already)."""
    if factor != 1.0:
        for r in range(chunk.counts[N_ROWS]):
            chunk.gl[r, c] *= factor
        for q in range(chunk.counts[N_COLS]):
            chunk.pending[q, c] *= factor


@njit(inline="always")
def forget(chunk, c):
    """Problem c restarts from w = 0 (``g`` zeroed): its chunk responses and pending
    changes go with it."""
    chunk.gl[:, c] = 0.0
    chunk.pending[:, c] = 0.0


@njit(inline="always")
def _nothing_to_compute(points, kern, max_cols, items, g, matrix):
    return 0


@njit(inline="always")
def _response_of_all(matrix, g, i, c):
    return g[i, c]


@njit(inline="always")
def _kernel_value(matrix, i, j):
    return matrix.K[i, j]


@njit(inline="always")
def _add_change_to_all(matrix, g, i, c, delta):
    column = matrix.K[i]  # (the matrix is symmetric: example i's kernel column)
    for j in range(g.shape[0]):
        g[j, c] += column[j] * delta


@njit(inline="always")
def _no_rescale(matrix, c, factor):
    pass


@njit(inline="always")
def _no_forget(matrix, c):
    pass


#: The step on an :class:`~.blocks.OnMatrix`: every row current, nothing pending.
ON_MATRIX = Operations(_nothing_to_compute, _nothing_to_compute, _response_of_all,
                       _kernel_value, _add_change_to_all, _no_rescale, _no_forget)
