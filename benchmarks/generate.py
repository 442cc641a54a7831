"""A seeded generator of large LIBSVM files with a known best test error.

Rows with an RCV1-like profile: a heavy-tailed number of stored values per row
(lognormal, about 75 on average, 1 to 2,000), feature indices drawn with a density
that falls as 1/sqrt(index) over 50,000 features (common terms and rare ones),
positive values 1 + log(1 + e) for an exponential e, each row scaled to unit norm
and written with 6 decimals.  The label is the sign of a planted linear model
w* (standard normal, fixed by the seed) on the row, flipped with probability
``flip`` (0.05), independently of the row: no classifier has an expected test
error below ``flip``, and w* has exactly that, so the best possible test error is
known without solving anything.  The test file's own share of flipped labels is
reported beside it.

The rows are drawn and formatted by a compiled loop (Numba) a chunk of rows at
a time, each chunk from its own seed, so the same seed and size give the same
bytes, and a 30 GB file takes minutes, not hours.

Usage::

    python -m benchmarks.generate --out DIR --size 300MB [--seed 0] [--test-rows 50000]

writes ``DIR/train-300MB-seed0.svm`` and ``DIR/test-seed0.svm`` (once per seed), and
``DIR/train-300MB-seed0.json``: rows, bytes, the flipped shares.
"""

import argparse
import json
import os
import time

import numba
import numpy as np

N_FEATURES = 50_000
FLIP = 0.05
CHUNK_ROWS = 2_000


@numba.njit(cache=True)
def _write_int(out, at, value):
    """Decimal digits of a non-negative int at out[at:]; the position after them."""
    if value == 0:
        out[at] = 48
        return at + 1
    start = at
    while value > 0:
        out[at] = 48 + value % 10
        value //= 10
        at += 1
    out[start:at] = out[start:at][::-1].copy()
    return at


@numba.njit(cache=True)
def _chunk(seed, n_rows, w, flip, out):
    """Rows of one chunk, formatted into ``out``: (bytes written, flipped labels)."""
    np.random.seed(seed)
    d = w.shape[0]
    at, flipped = 0, 0
    idx = np.empty(2000, np.int64)
    val = np.empty(2000)
    for _ in range(n_rows):
        m = int(np.exp(np.random.normal(3.9, 0.9)))
        m = min(max(m, 1), 2000)
        for j in range(m):
            u = np.random.random()
            idx[j] = int(d * u * u)
        ids = np.unique(idx[:m])
        m = ids.shape[0]
        norm2 = 0.0
        for j in range(m):
            val[j] = 1.0 + np.log(1.0 + np.random.exponential(1.0))
            norm2 += val[j] * val[j]
        scale = 1.0 / np.sqrt(norm2)
        margin = 0.0
        for j in range(m):
            q = int(np.round(val[j] * scale * 1e6))  # the value written: 6 decimals
            val[j] = q / 1e6
            margin += w[ids[j]] * val[j]
        label = 1 if margin > 0 else -1
        if np.random.random() < flip:
            label, flipped = -label, flipped + 1
        if label < 0:
            out[at] = 45  # '-'
            at += 1
        out[at] = 49  # '1'
        at += 1
        for j in range(m):
            out[at] = 32
            at = _write_int(out, at + 1, ids[j] + 1)
            out[at] = 58  # ':'
            q = int(np.round(val[j] * 1e6))
            if q >= 1000000:
                out[at + 1] = 49
                at += 2
            else:
                out[at + 1], out[at + 2] = 48, 46  # '0.'
                digits = at + 3
                end = _write_int(out, digits, q)
                pad = 6 - (end - digits)
                if pad > 0:  # leading zeros of the decimals
                    out[digits + pad:end + pad] = out[digits:end].copy()
                    out[digits:digits + pad] = 48
                at = digits + 6
        out[at] = 10
        at += 1
    return at, flipped


#: The planted model weighs the most frequent features only (the first RELEVANT indices,
#: about 14% of the values drawn): a topic that its common terms decide, learnable to
#: within half a point of the best error from a few million examples.
RELEVANT = 1000


def planted_model(seed):
    w = np.random.default_rng([seed, 7]).standard_normal(N_FEATURES)
    w[RELEVANT:] = 0.0
    return w


def _chunk_seed(seed, stream, chunk):
    """A chunk's seed: the training rows' (stream 0) below 2**31, the test rows' (stream 1)
    above, so that no training chunk repeats a test chunk, however large the file."""
    return (stream * 2**31 + seed * 1_000_003 + chunk) % 2**32


def write_rows(path, n_rows=None, n_bytes=None, seed=0, stream=0):
    """Write rows to ``path`` until ``n_rows`` rows or ``n_bytes`` bytes; (rows, bytes,
    flipped).  ``stream`` separates the training rows' seeds from the test rows'."""
    w = planted_model(seed)
    out = np.empty(CHUNK_ROWS * 2000 * 17 + 64, np.uint8)
    rows = written = flipped = 0
    tmp = f"{path}.tmp"
    with open(tmp, "wb") as f:
        chunk = 0
        while (n_rows is None or rows < n_rows) and (n_bytes is None or written < n_bytes):
            todo = CHUNK_ROWS if n_rows is None else min(CHUNK_ROWS, n_rows - rows)
            size, flips = _chunk(_chunk_seed(seed, stream, chunk), todo, w, FLIP, out)
            f.write(out[:size].tobytes())
            rows, written, flipped, chunk = rows + todo, written + size, flipped + flips, chunk + 1
    os.replace(tmp, path)
    return rows, written, flipped


def parse_size(text):
    units = {"KB": 10**3, "MB": 10**6, "GB": 10**9}
    for unit, factor in units.items():
        if text.upper().endswith(unit):
            return int(float(text[:-2]) * factor)
    return int(text)


def generate(out, size, seed=0, test_rows=50_000):
    """The training file of about ``size`` bytes and the test file; their description."""
    os.makedirs(out, exist_ok=True)
    name = f"train-{size}-seed{seed}"
    train = os.path.join(out, f"{name}.svm")
    test = os.path.join(out, f"test-seed{seed}.svm")
    meta_path = os.path.join(out, f"{name}.json")
    if os.path.exists(meta_path) and os.path.exists(train):
        with open(meta_path) as f:
            return json.load(f)
    tic = time.perf_counter()
    rows, written, flipped = write_rows(train, n_bytes=parse_size(size), seed=seed)
    seconds = time.perf_counter() - tic
    if not os.path.exists(test):
        write_rows(test, n_rows=test_rows, seed=seed, stream=1)
    test_flipped = _flipped_share(test, seed)
    meta = {"train": train, "test": test, "rows": rows, "bytes": written, "seed": seed,
            "flip": FLIP, "train_flipped": flipped / rows, "test_flipped": test_flipped,
            "n_features": N_FEATURES, "seconds": seconds}
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1)
    return meta


def _flipped_share(test, seed):
    """The planted model's test error on the file: the share of flipped labels."""
    from pegasos import load_svmlight

    X, y = load_svmlight(test, n_features=N_FEATURES)
    return float(np.mean(np.where(X @ planted_model(seed) > 0, 1, -1) != y))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--size", default="300MB")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--test-rows", type=int, default=50_000)
    args = parser.parse_args(argv)
    print(json.dumps(generate(args.out, args.size, args.seed, args.test_rows), indent=1))


if __name__ == "__main__":
    main()
