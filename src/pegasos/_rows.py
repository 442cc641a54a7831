"""The boundary between estimators and kernels: fixed dtypes, one row format."""

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp


class Rows(NamedTuple):
    """Training rows as the kernels take them (see ``pegasos._numba.rows``)."""

    #: a dense C-ordered float64 2-D array, or the CSR triplet
    #: (data float64, indices int32|int64, indptr of the same dtype)
    kernel: object
    n_rows: int
    n_features: int


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
        data = np.asarray(X.data, dtype=np.float64)
        return Rows((data, X.indices, indptr), n, d)
    return Rows(np.ascontiguousarray(X, dtype=np.float64), n, d)
