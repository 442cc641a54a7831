"""MNIST8M-like rows made on the fly: MNIST's 60,000 training digits and deformations of them.

Loosli, Canu and Bottou's *infimnist* (2007) made MNIST8M, the 8.1 million rows that
the large kernel SVM runs were measured on: each training digit and 134
deformations of it.  This module makes rows of the same kind, from the same
digits (MNIST's IDX files in ``../shared/data``), so that a benchmark can train on
millions of rows without a 19 GB file:

* row ``i`` is made from source digit ``i % 60000``; rows ``0 ... 59999`` are
  MNIST's training digits themselves, in their order, and row ``i`` has their label;
* every later row is the digit plus a small smooth displacement applied through
  its horizontal and vertical derivative images (central differences):
  ``x + s (F_a dx/dh + F_b dx/dv)``, with ``F_a`` and ``F_b`` two fields of a
  seeded bank of smoothed random fields (:func:`field_bank`: Gaussian-smoothed
  noise, scaled to ``amplitude`` pixels at most) and ``s`` a sign, all three
  chosen from the row's index by a hash; rounded and clipped to bytes;
* then shifted by one pixel in one of the eight directions (the hash's choice).

A row is a function of its index, the seed and the bank's settings alone, so
any range of rows is made on its own (:meth:`Infimnist.rows`), the same
whatever the blocks that ask for it, and 8.1 million rows take minutes on two
cores (a compiled loop over rows, in parallel).

Usage::

    python -m benchmarks.infimnist --rows 810000 --out DIR   # DIR/infimnist-810000.{X,y}.npy

writes the rows as NumPy files (uint8 pixels, uint8 labels) for memory mapping;
a benchmark usually makes its blocks on the fly instead (:meth:`Infimnist.blocks`).
"""

import argparse
import gzip
import math
import os
import shutil
import time
from numbers import Integral, Real
from pathlib import Path

import numba
import numpy as np
from scipy.ndimage import gaussian_filter

from pegasos._memory import check_memory, format_bytes

from .common import SHARED_DATA

#: MNIST's training digits: the sources of every row.
N_SOURCE = 60_000
#: MNIST8M's rows: the 60,000 digits and 134 deformations of each.
MNIST8M_ROWS = 135 * N_SOURCE
SIDE = 28
PIXELS = SIDE * SIDE

#: The bank's settings: how many smoothed random fields, their smoothing (a Gaussian's
#: standard deviation, in pixels) and the largest displacement they give (pixels).
N_FIELDS = 64
SIGMA = 4.0
AMPLITUDE = 1.5

#: The eight one-pixel shifts (rows, columns).
SHIFTS = np.array([(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)],
                  dtype=np.int64)

#: Row indices are below this: the compiled loop adds a row's position to ``start`` in
#: signed 64-bit integers, which must not wrap around.
MAX_INDEX = 2**62

#: Bytes a row costs while it is made: its pixels, its label and its index.
ROW_BYTES = PIXELS + 1 + 8


def _integer(name, value, low, high=MAX_INDEX):
    """``value`` as an int in [low, high], or a clear error naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an integer; got {type(value).__name__} {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be an integer in [{low}, {high}]; got {value}")
    return int(value)


def _number(name, value, low):
    """``value`` as a finite float >= low, or a clear error naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) \
            or value < low:
        raise ValueError(f"{name} must be a finite number >= {low}; got {value!r}")
    return float(value)


def read_idx(path):
    """An IDX file of MNIST (gzip-compressed) as a uint8 array of its dimensions."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    if data[:2] != b"\0\0" or data[2] != 8:
        raise ValueError(f"{path}: not an IDX file of unsigned bytes")
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * k: 8 + 4 * k], "big") for k in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load_mnist(data_dir=SHARED_DATA, part="train"):
    """MNIST's digits of ``part`` ("train": 60,000, "t10k": 10,000) as (n, 784) uint8 and
    their labels (n,) uint8."""
    data_dir = Path(data_dir)
    X = read_idx(data_dir / f"mnist-{part}-images-idx3-ubyte.gz").reshape(-1, PIXELS)
    y = read_idx(data_dir / f"mnist-{part}-labels-idx1-ubyte.gz")
    return X, y


def field_bank(seed=0, n_fields=N_FIELDS, sigma=SIGMA, amplitude=AMPLITUDE):
    """``n_fields`` smooth random displacement fields (n_fields, 28, 28), float32.

    Each is white noise (seeded) smoothed by a Gaussian of ``sigma`` pixels and scaled
    so that its largest absolute value is ``amplitude`` pixels.
    """
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal((n_fields, SIDE, SIDE))
    fields = np.stack([gaussian_filter(f, sigma, mode="constant") for f in noise])
    fields *= amplitude / np.abs(fields).max(axis=(1, 2), keepdims=True)
    return np.ascontiguousarray(fields, dtype=np.float32)


@numba.njit(cache=True)
def _mix(z):
    """SplitMix64's finaliser: a well-spread 64-bit hash of ``z`` (uint64)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@numba.njit(cache=True)
def _choices(i, seed, n_fields):
    """Row ``i``'s two fields, sign and shift: (a, b, sign, shift)."""
    h = _mix(np.uint64(i) * np.uint64(0x9E3779B97F4A7C15) + _mix(np.uint64(seed)))
    a = np.int64(h % np.uint64(n_fields))
    b = np.int64((h >> np.uint64(16)) % np.uint64(n_fields))
    sign = 1.0 if (h >> np.uint64(32)) & np.uint64(1) else -1.0
    shift = np.int64((h >> np.uint64(40)) % np.uint64(8))
    return a, b, sign, shift


@numba.njit(cache=True)
def _deform(x, fa, fb, sign, dr, dc, out):
    """``out`` (28 x 28 uint8, zeroed) = digit ``x`` displaced by ``sign (fa, fb)`` through
    its derivative images, rounded, clipped to [0, 255], shifted by (dr, dc)."""
    for r in range(SIDE):
        for c in range(SIDE):
            left = x[r, c - 1] if c > 0 else 0.0
            right = x[r, c + 1] if c < SIDE - 1 else 0.0
            up = x[r - 1, c] if r > 0 else 0.0
            down = x[r + 1, c] if r < SIDE - 1 else 0.0
            v = x[r, c] + sign * (fa[r, c] * 0.5 * (right - left) + fb[r, c] * 0.5 * (down - up))
            v = min(255.0, max(0.0, math.floor(v + 0.5)))
            rr, cc = r + dr, c + dc
            if 0 <= rr < SIDE and 0 <= cc < SIDE:
                out[rr, cc] = np.uint8(v)


@numba.njit(cache=True, parallel=True)
def _make_rows(digits, fields, shifts, start, seed, out):
    """Rows ``start ... start + len(out) - 1`` into ``out`` (n, 784) uint8."""
    n_fields = fields.shape[0]
    for m in numba.prange(out.shape[0]):
        i = start + m
        src = i % N_SOURCE
        if i < N_SOURCE:
            out[m, :] = digits[src]
            continue
        a, b, sign, shift = _choices(i, seed, n_fields)
        x = digits[src].reshape(SIDE, SIDE).astype(np.float32)
        row = out[m].reshape(SIDE, SIDE)
        row[:, :] = 0
        _deform(x, fields[a], fields[b], sign, shifts[shift, 0], shifts[shift, 1], row)


class Infimnist:
    """MNIST8M-like rows by index (see the module's docstring).

    Parameters
    ----------
    data_dir : path, default=../shared/data
        Where MNIST's IDX files are.
    seed : int, default=0
        The bank's seed and the hash's: another seed, other deformations.
    n_fields, sigma, amplitude
        The bank's settings (:func:`field_bank`).

    Examples
    --------
    >>> gen = Infimnist()                                   # doctest: +SKIP
    >>> X, y = gen.rows(59_998, 60_002)                     # doctest: +SKIP
    >>> X.shape, X.dtype, (y == gen.labels[[59_998, 59_999, 0, 1]]).all()  # doctest: +SKIP
    ((4, 784), dtype('uint8'), True)
    """

    def __init__(self, data_dir=SHARED_DATA, *, seed=0, n_fields=N_FIELDS, sigma=SIGMA,
                 amplitude=AMPLITUDE):
        seed = _integer("seed", seed, 0, 2**63 - 1)
        n_fields = _integer("n_fields", n_fields, 1)
        sigma, amplitude = _number("sigma", sigma, 0.0), _number("amplitude", amplitude, 0.0)
        check_memory(n_fields * PIXELS * 16, f"a bank of {n_fields} fields ({PIXELS} float64 "
                     "values each, twice)")
        self.digits, self.labels = load_mnist(data_dir, "train")
        if self.digits.shape != (N_SOURCE, PIXELS):
            raise ValueError(f"MNIST's training digits are {N_SOURCE} rows of {PIXELS} pixels; "
                             f"got {self.digits.shape}")
        self.seed = seed
        self.fields = field_bank(seed, n_fields, sigma, amplitude)

    def rows(self, start, stop):
        """Rows ``start ... stop - 1``: pixels (n, 784) uint8 and labels (n,) uint8."""
        start, stop = _integer("start", start, 0), _integer("stop", stop, 0)
        if not start <= stop:
            raise ValueError(f"rows must satisfy 0 <= start <= stop <= {MAX_INDEX}; got "
                             f"{start}, {stop}")
        check_memory(ROW_BYTES * (stop - start),
                     f"rows {start} ... {stop - 1} ({stop - start} rows of {PIXELS} pixels; "
                     "make fewer at a time, as blocks() does)")
        out = np.empty((stop - start, PIXELS), np.uint8)
        _make_rows(self.digits, self.fields, SHIFTS, np.int64(start), np.int64(self.seed), out)
        return out, self.labels[np.arange(start, stop) % N_SOURCE]

    def blocks(self, n_rows, block_rows=65_536, start=0):
        """The rows ``start ... start + n_rows - 1`` as ``(X, y)`` blocks of ``block_rows``
        (the arguments checked now, the rows made as the blocks are asked for)."""
        start = _integer("start", start, 0)
        n_rows = _integer("n_rows", n_rows, 0, MAX_INDEX - start)
        block_rows = _integer("block_rows", block_rows, 1)
        check_memory(ROW_BYTES * min(block_rows, n_rows),
                     f"a block of {block_rows} rows of {PIXELS} pixels (give a smaller "
                     "block_rows)")
        return (self.rows(lo, min(start + n_rows, lo + block_rows))
                for lo in range(start, start + n_rows, block_rows))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=MNIST8M_ROWS)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-dir", type=Path, default=SHARED_DATA)
    args = parser.parse_args(argv)
    if not 1 <= args.rows <= MAX_INDEX:
        parser.error(f"--rows must be in [1, {MAX_INDEX}]; got {args.rows}")
    if not 0 <= args.seed < 2**63:
        parser.error(f"--seed must be in [0, 2**63); got {args.seed}")
    try:
        gen = Infimnist(args.data_dir, seed=args.seed)
    except OSError as exc:
        parser.error(f"cannot read MNIST's training digits in {args.data_dir}: {exc}")
    args.out.mkdir(parents=True, exist_ok=True)
    need = args.rows * (PIXELS + 1) + 4096
    free = shutil.disk_usage(args.out).free
    if need > free:  # (a memory map written past a full disk ends the process by SIGBUS)
        parser.error(f"{args.rows} rows need {format_bytes(need)} in {args.out}, which has "
                     f"{format_bytes(free)} free")
    stem = args.out / f"infimnist-{args.rows}"
    partial = f"{stem}.X.npy.partial"  # (renamed once whole: no half-written file is left)
    X = np.lib.format.open_memmap(partial, mode="w+", dtype=np.uint8,
                                  shape=(args.rows, PIXELS))
    tic = time.perf_counter()
    for lo in range(0, args.rows, 1 << 18):
        hi = min(args.rows, lo + (1 << 18))
        X[lo:hi], _ = gen.rows(lo, hi)
    X.flush()
    del X
    np.save(f"{stem}.y.npy", gen.labels[np.arange(args.rows) % N_SOURCE])
    os.replace(partial, f"{stem}.X.npy")
    print(f"{args.rows} rows in {time.perf_counter() - tic:.1f} s -> {stem}.X.npy")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
