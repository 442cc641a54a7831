"""The boundary between estimators and kernels: fixed dtypes, one row format."""

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

_EMPTY_2D = np.empty((0, 0), dtype=np.float64)
_EMPTY_F = np.empty(0, dtype=np.float64)
_EMPTY_I = np.empty(0, dtype=np.int32)


class Rows(NamedTuple):
    """Training rows as the kernels take them (see ``pegasos._numba.linear``)."""

    dense: bool
    X: np.ndarray  # (n, d) float64 C-ordered, or an empty placeholder
    data: np.ndarray  # CSR values (float64), or a placeholder
    indices: np.ndarray  # CSR column indices (int32 or int64, as given)
    indptr: np.ndarray  # CSR row pointers (same dtype as indices)
    n_rows: int
    n_features: int

    def args(self):
        """The first five kernel arguments."""
        return self.dense, self.X, self.data, self.indices, self.indptr


def as_rows(X) -> Rows:
    """Wrap validated float64 input (C-ordered dense or CSR) for the kernels.

    CSR input is brought to canonical form (duplicates summed) so that row
    norms are exact; its index dtype is kept, so int32 and int64 each compile
    once.
    """
    n, d = X.shape
    if sp.issparse(X):
        X = sp.csr_matrix(X) if X.format != "csr" else X
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        indptr = X.indptr.astype(X.indices.dtype, copy=False)
        return Rows(False, _EMPTY_2D, X.data, X.indices, indptr, n, d)
    X = np.ascontiguousarray(X, dtype=np.float64)
    return Rows(True, X, _EMPTY_F, _EMPTY_I, _EMPTY_I, n, d)
