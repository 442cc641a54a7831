"""The blocked kernel engine: K(X, Z) for a block of rows Z at once.

A kernel column costs one pass over X, and a pass over X for one column is
memory-bound; a pass for ``b`` columns costs nearly the same memory traffic
and turns the work into a matrix product.  X is cut into tiles of rows; for
each tile (in parallel over tiles, ``prange``) the engine computes

* dense X: ``X[tile] @ Z.T`` -- one BLAS ``dgemm`` (``np.dot``);
* CSR X: ``out[j, :] += x_jf * Z.T[f, :]`` over the stored entries of each
  row, in the order of its entries -- O(nnz * b), a contiguous inner loop;

then the kernel's transform from the squared norms computed once per fit,
and uses the tile while it is in cache: ``g[tile] += K(X[tile], Z) @ delta``
(:func:`add_gathered`), the solvers' responses (:func:`add_block`, Z rows of
X) and the decision values (X the test rows, Z the support vectors), so no
n x b matrix is held.  Each tile is
computed by one thread with single-threaded BLAS (the caller limits BLAS to
one thread: BLAS threads and Numba's threads on the same cores slowed a
block 40x, measured), so the results do not depend on the number of threads.

float32 rows (the kernel estimators keep float32 input as it is) are
multiplied in float32: ``sgemm`` for dense rows, float32 products for CSR;
the inner products are then widened to float64, and the transform, the
squared norms and everything downstream stay in float64 -- but for the rbf's
kept float32 columns (the working-set solvers'), whose exponential is taken in
float32 (:func:`exp32_into`: its float64 digits would be rounded away).  ``sgemm`` does
twice the work of ``dgemm`` per second and the rows take half the memory
traffic; the cost is float32's rounding of each inner product, which the
rbf's ||x||^2 + ||z||^2 - 2 <x, z> passes on (measured on the kernel values:
7e-6 relative on Fashion-MNIST, 1.4e-6 on ijcnn1, exact on Adult's binary
features; docs/journal/kernel_engine.md).

With ``PRECOMPUTED`` the rows of X are rows of a Gram matrix and the block
is its columns.  :func:`gather` turns rows of X (dense or CSR) into the dense
block ``Z``.
"""

import math
from typing import NamedTuple

import numpy as np
from numba import prange, types
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic, overload
from numba.np.numpy_support import as_dtype

from ._jit import njit, njit_parallel
from .kernels import (
    LINEAR,
    POLY,
    PRECOMPUTED,
    RBF,
    SIGMOID,
    Points,
    named_kernel,
    plain_kernel,
    rbf_exponent,
)
from .rows import row_axpy

#: Entries per tile (512 kB): rows per tile = TILE_ENTRIES // columns, within
#: [MIN_TILE, MAX_TILE].  Fixed numbers, so tiles do not depend on the threads.
TILE_ENTRIES = 65536
MIN_TILE = 64
MAX_TILE = 8192


@njit
def tile_rows(b):
    """Rows per tile for blocks of b columns."""
    return min(MAX_TILE, max(MIN_TILE, TILE_ENTRIES // max(b, 1)))


def zeros_like_rows(rows, n, d):
    """A zero (n, d) array of the rows' value dtype (float64 or float32)."""
    values = rows if isinstance(rows, np.ndarray) else rows[0]
    return np.zeros((n, d), values.dtype)


@overload(zeros_like_rows)
def _zeros_like_rows(rows, n, d):
    values = rows if isinstance(rows, types.Array) else rows[0]
    dtype = as_dtype(values.dtype)

    def impl(rows, n, d):
        return np.zeros((n, d), dtype)

    return impl


def transposed(rows, Z):
    """``Z.T`` in C order, what the loops over CSR rows read (:func:`products`).

    Dense rows are multiplied by ``Z`` and never read it: for them this is
    ``Z`` itself, no copy (and no ``np.ascontiguousarray`` compiled).
    """
    return Z if isinstance(rows, np.ndarray) else np.ascontiguousarray(Z.T)


@overload(transposed)
def _transposed(rows, Z):
    if isinstance(rows, types.Array):

        def impl(rows, Z):
            return Z

    else:

        def impl(rows, Z):
            return np.ascontiguousarray(Z.T)

    return impl


@njit
def gather(rows, idx, n_features):
    """The rows ``idx`` of X as a dense C-ordered (len(idx), n_features) block, in X's dtype."""
    out = zeros_like_rows(rows, idx.shape[0], n_features)
    for m in range(idx.shape[0]):
        row_axpy(rows, idx[m], 1.0, out[m])
    return out


@intrinsic
def _writable(typingctx, arr):
    """``arr`` typed as a writable array: the same array, no copy.

    The rows reach compiled code read-only (``_rows.as_rows``), the blocks
    gathered from them are new, writable arrays.  ``np.dot`` compiles once per
    pair of argument types, so a tile of the rows is multiplied as the type
    of a gathered block and both share one ``np.dot`` (about 0.5 s of a
    first fit).  Only for reading: ``np.dot`` writes nothing into it.
    """
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, signature, args):
        return impl_ret_borrowed(context, builder, signature.return_type, args[0])

    return arr.copy(readonly=False)(arr), codegen


def products(rows, lo, hi, Z, Zt):
    """``X[lo:hi] @ Z.T``: inner products of rows lo..hi-1 of X with the block's rows.

    ``Z`` has X's dtype; ``Zt`` is ``Z.T`` in C order (what the CSR loop reads).
    The products are computed in X's dtype and returned as float64.
    """
    if isinstance(rows, np.ndarray):
        return (rows[lo:hi] @ Z.T).astype(np.float64)
    data, indices, indptr = rows
    out = np.zeros((hi - lo, Zt.shape[1]))  # (Z may be left empty: prediction's blocks)
    for j in range(lo, hi):
        for p in range(indptr[j], indptr[j + 1]):
            out[j - lo] += data[p] * Zt[indices[p]]
    return out


@overload(products)
def _products(rows, lo, hi, Z, Zt):
    if isinstance(rows, types.Array) and rows.dtype == types.float32:

        def impl(rows, lo, hi, Z, Zt):
            return np.dot(_writable(rows[lo:hi]), Z.T).astype(np.float64)

    elif isinstance(rows, types.Array):

        def impl(rows, lo, hi, Z, Zt):
            return np.dot(_writable(rows[lo:hi]), Z.T)

    else:

        def impl(rows, lo, hi, Z, Zt):
            data, indices, indptr = rows
            out = np.zeros((hi - lo, Zt.shape[1]))
            for j in range(lo, hi):
                _csr_row(data, indices, indptr[j], indptr[j + 1], Zt, out[j - lo])
            return out

    return impl


@njit(inline="always")
def _csr_row(data, indices, start, end, Zt, row):
    """``row += data[p] * Zt[indices[p]]`` for the stored entries p = start..end-1 of one
    CSR row, one entry after the other as written (the same sums, rounded the same way),
    four entries per pass over ``row``: each of its values is read and written once for
    four products, not four times (one 512-column block of Adult's rows, 14 stored of
    123: 31 ms to 25 ms in one thread)."""
    b = row.shape[0]
    p = start
    while p + 4 <= end:
        v0, v1, v2, v3 = data[p], data[p + 1], data[p + 2], data[p + 3]
        z0, z1 = Zt[indices[p]], Zt[indices[p + 1]]
        z2, z3 = Zt[indices[p + 2]], Zt[indices[p + 3]]
        for m in range(b):
            o = row[m]
            o += v0 * z0[m]
            o += v1 * z1[m]
            o += v2 * z2[m]
            o += v3 * z3[m]
            row[m] = o
        p += 4
    for q in range(p, end):
        v, z = data[q], Zt[indices[q]]
        for m in range(b):
            row[m] += v * z[m]


def gram_columns(rows, lo, hi, idx):
    """Rows lo..hi-1, columns ``idx`` of a dense precomputed Gram matrix."""
    return np.ascontiguousarray(rows[lo:hi][:, idx])


@overload(gram_columns)
def _gram_columns(rows, lo, hi, idx):
    if isinstance(rows, types.Array):

        def impl(rows, lo, hi, idx):
            out = np.empty((hi - lo, idx.shape[0]))
            for j in range(lo, hi):
                for m in range(idx.shape[0]):
                    out[j - lo, m] = rows[j, idx[m]]
            return out

    else:  # never called: a Gram matrix is always dense

        def impl(rows, lo, hi, idx):
            return np.full((hi - lo, idx.shape[0]), np.nan)

    return impl


LOG2E = 1.4426950408889634
LN2_HI = 6.93147180369123816490e-01  # ln 2 in two parts (fdlibm's): x - k ln2 exactly
LN2_LO = 1.90821492927058770002e-10
ROUND = 6755399441055744.0  # 1.5 * 2**52: adding and subtracting it rounds to an integer
EXP_FLOOR = -708.0  # exp(-708) = 3.3e-308, the smallest kept normal; below it, that value


#: The bits of ROUND: (v / ln 2 + ROUND) holds round(v / ln 2) in its low bits.
ROUND_BITS = 0x4338000000000000


@njit(fastmath={"contract"})
def exp_in_place(x, scale):
    """x <- exp(x) for x <= 0, within 2.3e-16 relative (measured against NumPy).

    exp(x) = 2^k e^r with k = round(x / ln 2) and |r| <= ln(2)/2: e^r by its
    Taylor polynomial of degree 13 (remainder below 4e-18), 2^k built in the
    exponent bits (``scale``, an int64 scratch of len(x)) from the bits of
    x / ln 2 + ROUND, which hold k: integer arithmetic only, so that the
    compiler vectorises all three loops (AVX2 has no vector conversion from
    double to int64).  ``contract`` lets it fuse each multiply and add of
    the polynomial into one FMA (one rounding instead of two; it assumes
    nothing about NaN or inf).  3x faster than the same code without both,
    which was 2x faster than ``math.exp``; the RBF transform is the cost of
    low-dimensional data.  Values below ``EXP_FLOOR`` give exp(EXP_FLOOR)
    (an absolute error below 4e-308).
    """
    bits = scale.view(np.float64)
    for m in range(x.shape[0]):
        v = max(x[m], EXP_FLOOR)
        shifted = v * LOG2E + ROUND  # ROUND + k exactly: |k| <= 1022
        k = shifted - ROUND
        r = (v - k * LN2_HI) - k * LN2_LO
        x[m] = 1.0 + r * (1.0 + r * (1 / 2 + r * (1 / 6 + r * (1 / 24 + r * (1 / 120 + r * (
            1 / 720 + r * (1 / 5040 + r * (1 / 40320 + r * (1 / 362880 + r * (1 / 3628800 + r * (
                1 / 39916800 + r * (1 / 479001600 + r * (1 / 6227020800)))))))))))))
        bits[m] = shifted
    for m in range(x.shape[0]):
        scale[m] = (scale[m] - ROUND_BITS + 1023) << 52
    for m in range(x.shape[0]):
        x[m] *= bits[m]


#: :func:`exp32_into`'s constants, float32 (a float64 one would widen its arithmetic):
#: ln 2 in two parts (Cephes' ``expf``), 1.5 * 2**23 and its bits, the floor
#: (exp(-87) = 1.6e-38, float32's smallest normal is 1.2e-38), and the polynomial's
#: coefficients (Cephes' ``expf``, degree 5 after 1 + r).
LOG2E_32 = np.float32(LOG2E)
LN2_HI_32 = np.float32(0.693359375)
LN2_LO_32 = np.float32(-2.12194440e-4)
ROUND_32 = np.float32(12582912.0)
ROUND_BITS_32 = np.int32(0x4B400000)
EXP_FLOOR_32 = np.float32(-87.0)
ONE_32 = np.float32(1.0)
EXP_POLY_32 = tuple(np.float32(c) for c in (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3,
                                            4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1))


@njit(fastmath={"contract"})
def exp32_into(x, out, scale):
    """out <- exp(x) in float32 for float32 x <= 0, within 1.26 float32 units in the
    last place of exp(x) (measured on 3 million arguments in [-87, 0]; 27% of the
    values are not exp(x) correctly rounded, LIBSVM's kept values).

    :func:`exp_in_place`'s method in float32: twice the values per vector and a
    polynomial of degree 7 instead of 13, about a quarter of its time per value.
    For the kept kernel columns (float32, :func:`write_tile`), where the float64
    exponential's digits are rounded away.  ``scale`` is an int32 scratch of len(x).
    Values below ``EXP_FLOOR_32`` give exp(EXP_FLOOR_32).  ``out`` must not be ``x``:
    in place, the compiler's check that they do not overlap fails and none of the three
    loops is vectorised (measured: 5.7x slower).
    """
    bits = scale.view(np.float32)
    c0, c1, c2, c3, c4, c5 = EXP_POLY_32
    for m in range(x.shape[0]):
        v = max(x[m], EXP_FLOOR_32)
        shifted = v * LOG2E_32 + ROUND_32  # ROUND_32 + k exactly: |k| <= 126
        k = shifted - ROUND_32
        r = (v - k * LN2_HI_32) - k * LN2_LO_32
        out[m] = ONE_32 + r + r * r * (((((c0 * r + c1) * r + c2) * r + c3) * r + c4) * r + c5)
        bits[m] = shifted
    for m in range(x.shape[0]):
        scale[m] = (scale[m] - ROUND_BITS_32 + np.int32(127)) << np.int32(23)
    for m in range(x.shape[0]):
        out[m] *= bits[m]


@njit(inline="always")
def transform(out, sq_rows, sq_cols, kern):
    """Turn inner products ``out[j, m] = <x_j, z_m>`` into K(x_j, z_m), in place (no ``bias2``).

    ``out`` must be C-contiguous (the RBF's exponential runs over it flat).

    One loop per kernel (a branch per entry kept the loop from vectorising).
    """
    n, b = out.shape
    gamma, coef0, degree = kern.gamma, kern.coef0, kern.degree
    if kern.code == RBF:
        for j in range(n):
            sq_j = sq_rows[j]
            for m in range(b):
                out[j, m] = rbf_exponent(sq_j, sq_cols[m], out[j, m], gamma)
        exp_in_place(out.reshape(n * b), np.empty(n * b, np.int64))
    elif kern.code == POLY:
        for j in range(n):
            for m in range(b):
                out[j, m] = (gamma * out[j, m] + coef0) ** degree
    elif kern.code == SIGMOID:
        for j in range(n):
            for m in range(b):
                out[j, m] = math.tanh(gamma * out[j, m] + coef0)
    elif kern.code != LINEAR:  # a code missing here (see codes.KERNEL_TABLE)
        for j in range(n):
            for m in range(b):
                out[j, m] = math.nan


class Block(NamedTuple):
    """A block's columns, gathered once: the examples ``idx``, their rows ``Z``
    (X's dtype, dense), ``Zt = Z.T`` in C order, and their squared norms ``sq_z``.

    Dense rows X are multiplied by ``Z``, CSR rows by ``Zt`` (:func:`products`),
    so only CSR rows need ``Zt``: for dense rows :func:`gather_block` leaves it
    ``Z`` itself (:func:`transposed`), and prediction
    (``_solvers.engine.decision_values``) copies only the one it reads and leaves
    the other empty."""

    idx: np.ndarray
    Z: np.ndarray
    Zt: np.ndarray
    sq_z: np.ndarray


@njit
def gather_block(points, idx, kern):
    """The :class:`Block` of the examples ``idx`` (nothing gathered for a Gram matrix)."""
    if kern.code != PRECOMPUTED:
        Z = gather(points.rows, idx, points.n_features)
    else:
        Z = zeros_like_rows(points.rows, idx.shape[0], 1)
    return Block(idx, Z, transposed(points.rows, Z), points.sqnorm[idx])


@njit
def _plain(points, block, kern):
    """For a ``prange`` body (see :func:`.kernels.plain_kernel`): the rows (an array or
    the CSR triplet), the other fields of ``points`` and ``block`` as one flat tuple,
    and the kernel's."""
    flat = (points.n_features, points.sqnorm, block.idx, block.Z, block.Zt, block.sq_z)
    return points.rows, flat, plain_kernel(kern)


@njit
def _named(rows, flat, plain_kern):
    """(points, block, kern) again from :func:`_plain`'s three."""
    return (Points(rows, flat[0], flat[1]), Block(flat[2], flat[3], flat[4], flat[5]),
            named_kernel(plain_kern))


@njit(inline="always")
def _tile(points, lo, hi, block, kern):
    """K(X[lo:hi], X[block.idx]) for one tile of rows (no ``bias2``)."""
    if kern.code == PRECOMPUTED:
        return gram_columns(points.rows, lo, hi, block.idx)
    out = products(points.rows, lo, hi, block.Z, block.Zt)
    transform(out, points.sqnorm[lo:hi], block.sq_z, kern)
    return out


@njit_parallel
def block_rows(points, block, kern, out, slots):
    """``out[slots[m]] = K(block.Z[m], X)`` (no ``bias2``) for a :class:`Block`
    (:func:`gather_block`'s, or another worker's rows in the rows' column space), tile
    by tile, into rows of ``out`` (n columns, float64 or float32), so that each
    example's kernel column is one contiguous row (what the working-set solver keeps)."""
    n = points.sqnorm.shape[0]
    rows, flat, plain_kern = _plain(points, block, kern)
    rows_per = tile_rows(block.sq_z.shape[0])
    for tile in prange((n + rows_per - 1) // rows_per):
        lo = tile * rows_per
        hi = min(n, lo + rows_per)
        _plain_write(rows, flat, plain_kern, lo, hi, out, slots)


@njit
def block_rows_serial(points, block, kern, out, slots):
    """:func:`block_rows` with its tiles one after another in the calling thread."""
    n = points.sqnorm.shape[0]
    rows_per = tile_rows(block.sq_z.shape[0])
    for lo in range(0, n, rows_per):
        write_tile(points, lo, min(n, lo + rows_per), block, kern, out, slots)


def fill_rows(engine, points, idx, kern, out, slots):
    """``out[slots[m]] = K(X[idx[m]], X)``: :func:`fill_block_rows` of the examples
    ``idx``' :class:`Block`."""
    fill_block_rows(engine, points, gather_block(points, idx, kern), kern, out, slots)


def fill_block_rows(engine, points, block, kern, out, slots):
    """:func:`block_rows_serial` for :data:`SERIAL`, :func:`block_rows` for :data:`THREADS`
    (the same values bit for bit)."""
    fn = block_rows if isinstance(engine, Threads) else block_rows_serial
    fn(points, block, kern, out, slots)


#: Columns of a tile copied together into the rows of ``out`` (:func:`_write_rows`).
WRITE_COLUMNS = 32


def write_tile(points, lo, hi, block, kern, out, slots):
    """``out[slots[m], lo:hi] = K(X[block.idx[m]], X[lo:hi])``: one tile of
    :func:`block_rows`, the columns of the block written as rows of ``out``.

    Dense rows are multiplied the other way round, ``Z @ X[lo:hi].T``
    (:func:`slot_products`), so that each column of the block comes out as a
    contiguous row and is copied as one; CSR rows and a Gram matrix give the
    tile as (rows, columns), copied a few columns at a time (:func:`_write_rows`).
    The values are the same either way, bit for bit (the same products, the same
    transform).  Copying a (rows, columns) tile one column at a time read it with
    a stride of a whole row, a page apart: for 512 columns in one thread that copy
    took 22 of the block's 49 ms on the covtype subset and 74 of 128 ms on ijcnn1
    (dense), where the whole block now takes 31 and 64 ms.
    """
    K = _tile(points, lo, hi, block, kern)
    _write_rows(K, out, slots, lo)


@overload(write_tile)
def _write_tile(points, lo, hi, block, kern, out, slots):
    # float32 columns of the rbf: the transform in float32 (:func:`_rbf_rows32`)
    rbf32 = out.dtype == types.float32
    if isinstance(points.types[points.fields.index("rows")], types.Array):

        def impl(points, lo, hi, block, kern, out, slots):
            if kern.code == PRECOMPUTED:
                _write_rows(gram_columns(points.rows, lo, hi, block.idx), out, slots, lo)
                return
            if rbf32 and kern.code == RBF:
                P = _slot_dot(points.rows, lo, hi, block.Z)
                _rbf_rows32(P, block.sq_z, points.sqnorm[lo:hi], kern.gamma, out, slots, lo)
                return
            K = slot_products(points.rows, lo, hi, block.Z)
            transform(K, block.sq_z, points.sqnorm[lo:hi], kern)
            for m in range(slots.shape[0]):
                _row_copy(K[m], out[slots[m], lo:hi])

    else:

        def impl(points, lo, hi, block, kern, out, slots):
            if rbf32 and kern.code == RBF:
                P = products(points.rows, lo, hi, block.Z, block.Zt)  # (rows, columns)
                _rbf_rows32(P.T, block.sq_z, points.sqnorm[lo:hi], kern.gamma, out, slots, lo)
                return
            _write_rows(_tile(points, lo, hi, block, kern), out, slots, lo)

    return impl


@njit(inline="always")
def _rbf_rows32(P, sq_z, sq, gamma, out, slots, lo):
    """``out[slots[m], lo:lo + len(sq)] = exp(-gamma ||z_m - x_j||^2)`` in float32 from
    the products ``P = Z @ X[lo:hi].T`` (dense rows; for CSR rows the transpose of
    their (rows, columns) tile, read down its columns): each column's exponents in
    float64, rounded to float32, and :func:`exp32_into` straight into the kept column.

    Against :func:`transform`'s float64 exponential rounded to float32, the kept
    columns' type before: within 6e-8 (measured on 3,000 rows of the covtype subset,
    Adult and ijcnn1: at most one unit in the last place near 1, three in the tail).
    One block of 190 columns, one thread: the covtype subset 8.1-9.0 ms to 6.4-7.4 ms
    (the products widened as read, not copied into a float64 tile), Adult 23-34 ms to
    17.6-17.8 ms (no copy of the tile by :func:`_write_rows`).
    """
    arg = np.empty(P.shape[1], np.float32)
    scale = np.empty(P.shape[1], np.int32)
    for m in range(P.shape[0]):
        sq_m = sq_z[m]
        for j in range(P.shape[1]):
            arg[j] = rbf_exponent(sq_m, sq[j], P[m, j], gamma)
        exp32_into(arg, out[slots[m], lo:lo + P.shape[1]], scale)


@njit(inline="always")
def _slot_dot(rows, lo, hi, Z):
    """``Z @ X[lo:hi].T`` in the rows' dtype (dense rows): the block's rows against a tile."""
    return np.dot(Z, _writable(rows[lo:hi]).T)


def slot_products(rows, lo, hi, Z):
    """:func:`_slot_dot` in float64."""
    return (Z @ rows[lo:hi].T).astype(np.float64)


@overload(slot_products)
def _slot_products(rows, lo, hi, Z):
    if rows.dtype == types.float32:

        def impl(rows, lo, hi, Z):
            return _slot_dot(rows, lo, hi, Z).astype(np.float64)

    else:

        def impl(rows, lo, hi, Z):
            return _slot_dot(rows, lo, hi, Z)

    return impl


@njit
def _write_rows(part, out, slots, lo):
    """out[slots[m], lo:lo + len(part)] = part[:, m], :data:`WRITE_COLUMNS` columns of
    ``part`` at a time (each row of ``part`` read a few cache lines at once)."""
    b = slots.shape[0]
    for m0 in range(0, b, WRITE_COLUMNS):
        m1 = min(b, m0 + WRITE_COLUMNS)
        for j in range(part.shape[0]):
            for m in range(m0, m1):
                out[slots[m], lo + j] = part[j, m]


@njit
def _plain_write(rows, flat, plain_kern, lo, hi, out, slots):
    """:func:`write_tile` of :func:`_plain`'s three (in a ``prange`` body)."""
    points, block, kern = _named(rows, flat, plain_kern)
    write_tile(points, lo, hi, block, kern, out, slots)


@njit(inline="always")
def _row_copy(src, dst):
    """dst[:] = src, as a loop: Numba links into every function that assigns an array
    to a slice the code that formats its shape-mismatch error, and compiles it again
    there (a quarter of a second each; docs/journal/compile_time.md)."""
    for j in range(src.shape[0]):
        dst[j] = src[j]


@njit(inline="always")
def _add_tile(points, lo, hi, block, kern, delta, g, gram):
    """One tile of :func:`add_block`: ``g[lo:hi] += (K + bias2) @ delta``, and the rows of
    ``gram`` whose example lies in the tile."""
    K = _tile(points, lo, hi, block, kern)
    if kern.bias2 != 0.0:
        K += kern.bias2
    dg = np.dot(K, delta)
    for j in range(dg.shape[0]):  # loops, not slice assignments (see _row_copy)
        for c in range(dg.shape[1]):
            g[lo + j, c] += dg[j, c]
    idx = block.idx
    for m in range(idx.shape[0]):
        if lo <= idx[m] < hi:
            _row_copy(K[idx[m] - lo], gram[m])


class Serial(NamedTuple):
    """The engine's tiles one after another in the calling thread (:func:`add_tiles`)."""


class Threads(NamedTuple):
    """The engine's tiles in parallel over Numba's threads (:func:`add_gathered`)."""


class OnMatrix(NamedTuple):
    """A small training set's kernel matrix ``K`` (n, n) float64, computed whole
    beforehand (``_solvers.gram``) and symmetric: example i's kernel column is the row
    ``K[i]``.  The kernel solvers handed it read their kernel values there and compute
    none (``kernel_pegasos.kernel_pegasos_on_matrix`` as its chunk,
    ``sbp.sbp_on_matrix`` as its plan's engine)."""

    K: np.ndarray


#: The two engines, a type each: a solver given one (in its plan) is compiled with that
#: engine alone.  The values are the same bit for bit: each tile is computed alike and
#: writes only its own rows.  A parallel region costs seconds to compile (kernel Pegasos'
#: first fit, docs/journal/compile_time.md), so small problems take :data:`SERIAL`
#: (``_solvers.engine.engine_for``).
SERIAL = Serial()
THREADS = Threads()


def add(engine, points, block, kern, delta, g, gram):
    """:func:`add_tiles` for :data:`SERIAL`, :func:`add_gathered` for :data:`THREADS`."""
    fn = add_gathered if isinstance(engine, Threads) else add_tiles
    fn(points, block, kern, delta, g, gram)


@overload(add, inline="always")
def _add(engine, points, block, kern, delta, g, gram):
    if engine.instance_class is Threads:

        def impl(engine, points, block, kern, delta, g, gram):
            add_gathered(points, block, kern, delta, g, gram)

    else:

        def impl(engine, points, block, kern, delta, g, gram):
            add_tiles(points, block, kern, delta, g, gram)

    return impl


@njit(inline="always")
def add_block(engine, points, idx, kern, delta, g):
    """``g += (K(X, X[idx]) + bias2) @ delta`` tile by tile; returns K(X[idx], X[idx]) + bias2.

    ``delta`` (len(idx), n_problems), ``g`` (n, n_problems); ``engine``
    :data:`SERIAL` or :data:`THREADS`.  The returned Gram matrix of the
    block's own rows is read from the tiles that hold them (:func:`add_gathered`).
    """
    b = idx.shape[0]
    gram = np.empty((b, b))
    add(engine, points, gather_block(points, idx, kern), kern, delta, g, gram)
    return gram


@njit
def add_tiles(points, block, kern, delta, g, gram):
    """:func:`add_gathered` with its tiles one after another in the calling thread."""
    n = points.sqnorm.shape[0]
    rows_per = tile_rows(block.idx.shape[0])
    for lo in range(0, n, rows_per):
        _add_tile(points, lo, min(n, lo + rows_per), block, kern, delta, g, gram)


@njit_parallel
def add_gathered(points, block, kern, delta, g, gram):
    """``g += (K(X, Z) + bias2) @ delta`` over the gathered :class:`Block` ``Z``, tile by
    tile; ``gram[m]`` receives the row of X ``block.idx[m]`` when it is one (-1: none).

    The solvers' responses (:func:`add_block`) and prediction (the test rows as X,
    the support vectors as the block, ``gram`` of no rows) are this one function
    (or :func:`add_tiles`, its serial twin), so that a first prediction compiles
    nothing the fit did not.  A block of one tile runs in the calling thread: a
    parallel region for a single tile only makes it wait for the other threads
    (on a busy machine, for their time slices).  It calls the tile function the
    parallel region calls, so that :func:`add_tiles` is not linked in (a second
    copy of the engine to compile).
    """
    n = points.sqnorm.shape[0]
    rows_per = tile_rows(block.idx.shape[0])
    n_tiles = (n + rows_per - 1) // rows_per
    rows, flat, plain_kern = _plain(points, block, kern)
    if n_tiles == 1:  # np.int64(0): the literal 0 would compile the tile function a second time
        _plain_add_tile(rows, flat, plain_kern, np.int64(0), n, delta, g, gram)
        return
    for tile in prange(n_tiles):
        lo = tile * rows_per
        hi = min(n, lo + rows_per)
        _plain_add_tile(rows, flat, plain_kern, lo, hi, delta, g, gram)


@njit
def _plain_add_tile(rows, flat, plain_kern, lo, hi, delta, g, gram):
    """:func:`_add_tile` of :func:`_plain`'s three (in a ``prange`` body)."""
    points, block, kern = _named(rows, flat, plain_kern)
    _add_tile(points, lo, hi, block, kern, delta, g, gram)


def row_products(rows, idx, Z, Zt):
    """``X[idx] @ Z.T`` in float64 for rows ``idx`` of X (not a contiguous range).

    Dense rows are gathered and multiplied (``gemm``); CSR rows are streamed
    over their stored entries against ``Zt`` (``Z.T`` in C order), O(nnz * b),
    so a block of high-dimensional sparse rows is never densified.
    """
    if isinstance(rows, np.ndarray):
        return (rows[idx] @ Z.T).astype(np.float64)
    data, indices, indptr = rows
    out = np.zeros((len(idx), Zt.shape[1]))
    for m, j in enumerate(idx):
        for p in range(indptr[j], indptr[j + 1]):
            out[m] += data[p] * Zt[indices[p]]
    return out


@overload(row_products)
def _row_products(rows, idx, Z, Zt):
    if isinstance(rows, types.Array):

        def impl(rows, idx, Z, Zt):
            return np.dot(gather(rows, idx, Z.shape[1]), Z.T).astype(np.float64)

    else:

        def impl(rows, idx, Z, Zt):
            data, indices, indptr = rows
            out = np.zeros((idx.shape[0], Zt.shape[1]))
            for r in range(idx.shape[0]):
                _csr_row(data, indices, indptr[idx[r]], indptr[idx[r] + 1], Zt, out[r])
            return out

    return impl


@njit
def pair_block(points, idx_a, idx_b, kern):
    """K(X[idx_a], X[idx_b]) (len(idx_a), len(idx_b)), no ``bias2``.

    The rows ``idx_b`` are copied densely; the rows ``idx_a`` are multiplied
    against them as :func:`row_products` does (CSR rows over their entries).
    """
    rows, sqnorm = points.rows, points.sqnorm
    if kern.code == PRECOMPUTED:
        out = np.empty((idx_a.shape[0], idx_b.shape[0]))
        for m in range(idx_a.shape[0]):
            _row_copy(gram_columns(rows, idx_a[m], idx_a[m] + 1, idx_b)[0], out[m])
        return out
    Zb = gather(rows, idx_b, points.n_features)
    out = row_products(rows, idx_a, Zb, transposed(rows, Zb))
    transform(out, sqnorm[idx_a], sqnorm[idx_b], kern)
    return out
