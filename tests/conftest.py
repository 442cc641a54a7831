"""Shared fixtures: small seeded problems and the shared benchmark data."""

import bz2
import lzma
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def make_binary(n=60, d=5, density=1.0, seed=0):
    """A noisy linearly separable-ish problem with labels in {-1, +1}."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    if density < 1.0:
        X[rng.random((n, d)) > density] = 0.0
    w = rng.standard_normal(d)
    y = np.where(X @ w + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


def stored_rbf(X, gamma, path):
    """The rbf kernel values the working-set solver solves with on ``path`` (the
    ``solver_path`` fixture's): a small set's kernel matrix, float64, and on the engine
    its kept columns, float32 as LIBSVM's cache (``Qfloat``), computed as the engine
    computes them (its float32 exponential: within 6e-8 of the float64 kernel rounded to
    float32, ``test_kernel``), so that a reference solver is given the same kernel
    values."""
    from sklearn.metrics.pairwise import rbf_kernel

    if path != "engine":
        return rbf_kernel(X, gamma=gamma)
    from pegasos._numba.codes import RBF
    from pegasos._numba.linear import row_sqnorms
    from pegasos._rows import as_rows
    from pegasos._solvers import engine

    rows = as_rows(X, np.float64)
    points = engine.points(rows, row_sqnorms(rows.kernel, rows.n_rows))
    idx = np.arange(len(X), dtype=np.int64)
    return engine.kernel_block(points, idx, engine.kernel_of(RBF, gamma, 0.0, 3),
                               dtype=np.float32).astype(np.float64)


@pytest.fixture
def binary():
    return make_binary()


@pytest.fixture
def sparse_binary():
    X, y = make_binary(n=80, d=12, density=0.3, seed=1)
    return sp.csr_matrix(X), y


def load_shared(name, n_features=None):
    """A file of ../shared/data, read with scikit-learn's loader (xz/bz2 opened here)."""
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"{path} not found (the shared data sits beside the repository)")
    opener = lzma.open if name.endswith(".xz") else bz2.open
    with opener(path) as f:
        return load_svmlight_file(f, n_features=n_features)


@pytest.fixture(scope="session")
def a9a():
    X, y = load_shared("a9a.xz")
    Xt, yt = load_shared("a9a.t.xz", n_features=X.shape[1])
    return X, y, Xt, yt


@pytest.fixture(scope="module")
def cluster():
    """A dask.distributed LocalCluster of 2 worker processes of one thread each, one per
    test module (the Dask backends' tests)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        yield cluster


@pytest.fixture(params=["kernel-matrix", "engine"])
def solver_path(request, monkeypatch):
    """Both ways a fit runs: on the training set's kernel matrix (``_solvers.gram``, the
    default up to GRAM_ROWS rows) and on the blocked engine on threads (the way of larger
    sets, forced here for small ones)."""
    from pegasos._solvers import engine, gram

    if request.param == "engine":
        monkeypatch.setattr(gram, "GRAM_ROWS", 0)
        monkeypatch.setattr(engine, "PARALLEL_ROWS", 0)
    return request.param


#: ``solver_path`` for tests whose engine variant compiles the blocked solvers for rows of
#: another kind (CSR, float32; a minute and more on an empty cache): that variant runs
#: with the slow tests (CI), the kernel-matrix one by default.
ENGINE_VARIANT_SLOW = pytest.mark.parametrize(
    "solver_path", ["kernel-matrix", pytest.param("engine", marks=pytest.mark.slow)],
    indirect=True)
