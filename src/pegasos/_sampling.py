"""Streams of example indices: the order in which Pegasos visits the data.

The stream is drawn in Python from a seeded :class:`numpy.random.Generator`
and handed to the compiled solver as an array, so a seed fixes the sample
order, and hence the model, exactly.
"""

import numpy as np

SAMPLING_MODES = ("uniform", "permutation", "cyclic")


class IndexStream:
    """Indices of examples, consumed in mini-batches across calls.

    ``"uniform"``: i.i.d. uniform draws with replacement (the paper's A_t);
    ``"permutation"``: a fresh random permutation each epoch, batches running
    across epoch boundaries; ``"cyclic"``: 0, 1, ..., n-1, 0, 1, ... (the
    fixed order of the data, deterministic).
    """

    def __init__(self, mode, n, rng):
        if mode not in SAMPLING_MODES:
            raise ValueError(f"unknown sampling mode {mode!r}")
        self.mode = mode
        self.n = n
        self.rng = rng
        self._perm = np.empty(0, dtype=np.int64)
        self._pos = 0

    def take(self, count):
        """The next ``count`` indices as an int64 array."""
        if self.mode == "uniform":
            return self.rng.integers(0, self.n, size=count, dtype=np.int64)
        if self.mode == "cyclic":
            out = (self._pos + np.arange(count, dtype=np.int64)) % self.n
            self._pos = int((self._pos + count) % self.n)
            return out
        parts = []
        while count > 0:
            if self._pos == len(self._perm):
                self._perm = self.rng.permutation(self.n).astype(np.int64)
                self._pos = 0
            chunk = self._perm[self._pos : self._pos + count]
            self._pos += len(chunk)
            count -= len(chunk)
            parts.append(chunk)
        return np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)
