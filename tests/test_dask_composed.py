"""The Dask estimators composed: their parameters explicit, their prediction written once
(pegasos._dask.ParallelPostFit), their modules sharing pegasos._dask, glibc's heap behind
pegasos._heap.held_heap."""

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("distributed")
import dask.array as da  # noqa: E402
from distributed import Client  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.datasets import load_iris  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402

from pegasos import DualSVC, PegasosClassifier  # noqa: E402
from pegasos.dask_backend import DaskPegasosClassifier  # noqa: E402
from pegasos.dask_svc import DaskDualSVC  # noqa: E402

SRC = Path(__file__).resolve().parents[1] / "src" / "pegasos"

DASK_ESTIMATORS = [
    (DaskPegasosClassifier, PegasosClassifier,
     {"mode": "average", "scheduler": None, "n_workers": 2}),
    (DaskDualSVC, DualSVC, {"distribute": "auto", "scheduler": None, "n_workers": 2}),
]


@pytest.mark.parametrize("dask_cls, local_cls, own", DASK_ESTIMATORS,
                         ids=["DaskPegasosClassifier", "DaskDualSVC"])
def test_the_parameters_are_the_in_memory_estimators_and_the_clusters(dask_cls, local_cls, own):
    """Written out in ``__init__`` (as scikit-learn requires), they stay the in-memory
    estimator's, in its order and with its defaults, then the cluster's."""
    local = inspect.signature(local_cls).parameters
    mine = inspect.signature(dask_cls).parameters
    assert list(mine) == [*local, *own]
    assert {n: p.default for n, p in mine.items()} == {
        **{n: p.default for n, p in local.items()}, **own}
    assert [p.kind for p in mine.values()][:len(local)] == [p.kind for p in local.values()]
    est = dask_cls(**{name: own[name] for name in own}).set_params(n_workers=3)
    assert clone(est).get_params() == est.get_params()


def test_no_signature_is_patched_and_no_private_name_crosses_estimator_modules():
    assert not [p.name for p in SRC.rglob("*.py") if "__signature__" in p.read_text()]
    public = {p.stem for p in SRC.glob("*.py") if not p.stem.startswith("_")}
    for name in ("dask_backend", "dask_svc"):
        tree = ast.parse((SRC / f"{name}.py").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module in public:
                assert not node.module.startswith("dask_"), (name, node.module)
                assert not [a.name for a in node.names if a.name.startswith("_")], \
                    (name, node.module)


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X, y, da.from_array(X, chunks=(50, 2)), da.from_array(y, chunks=50)


@pytest.mark.parametrize("dask_cls, params",
                         [(DaskPegasosClassifier, {"lam": 1e-2, "n_epochs": 3,
                                                   "random_state": 0}),
                          (DaskDualSVC, {"C": 10.0})],
                         ids=["DaskPegasosClassifier", "DaskDualSVC"])
def test_a_model_fitted_with_a_client_object_predicts_a_dask_array(cluster, iris, dask_cls,
                                                                   params):
    """The chunks' tasks carry the in-memory estimator, not the client (a task holding
    DaskPegasosClassifier(scheduler=client) could not be serialized)."""
    X, y, Xd, yd = iris
    with Client(cluster) as client:
        est = dask_cls(scheduler=client, **params).fit(Xd, yd)
        labels, scores = est.predict(Xd), est.decision_function(Xd)
        assert isinstance(labels, da.Array) and isinstance(scores, da.Array)
        assert scores.shape == (150, 3) and scores.chunks == ((50, 50, 50), (3,))
        np.testing.assert_array_equal(labels.compute(), est.predict(X))
        np.testing.assert_allclose(scores.compute(), est.decision_function(X), rtol=1e-13,
                                   atol=1e-13)


@pytest.mark.parametrize("dask_cls, params",
                         [(DaskPegasosClassifier, {"lam": 1e-2, "random_state": 0}),
                          (DaskDualSVC, {"C": 10.0, "random_state": 0})],
                         ids=["DaskPegasosClassifier", "DaskDualSVC"])
def test_probabilities_of_a_dask_array_chunk_by_chunk(cluster, iris, dask_cls, params):
    """predict_proba, written once for both, on a dask array of CSR chunks: a dask array
    of the in-memory probabilities (DaskPegasosClassifier fitted in memory: its
    distributed fit refuses probability=True)."""
    X, y, _, _ = iris
    est = dask_cls(probability=True, **params).fit(X, y)
    Xd = da.from_array(sp.csr_matrix(X), chunks=(40, 4), asarray=False)
    with Client(cluster):
        proba = est.predict_proba(Xd)
        assert isinstance(proba, da.Array) and proba.chunks == ((40, 40, 40, 30), (3,))
        np.testing.assert_allclose(proba.compute(), est.predict_proba(X), rtol=1e-12,
                                   atol=1e-15)
    assert not hasattr(dask_cls(**params).fit(X, y), "predict_proba")


def test_an_unfitted_model_or_another_width_is_refused_when_the_graph_is_made(iris):
    X, y, Xd, _ = iris
    with pytest.raises(NotFittedError):
        DaskDualSVC().predict(Xd)
    est = DaskPegasosClassifier(lam=1e-2, random_state=0).fit(X[:, :3], y)
    with pytest.raises(ValueError, match="X has 4 features"):
        est.decision_function(Xd)


HEAP_PROBE = """
import resource
import numpy as np
from pegasos._heap import held_heap

def faults():  # page faults of 40 arrays of 1 MB, each freed before the next
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(40):
        a = np.ones(1 << 17)
        del a
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

plain = faults()
with held_heap() as held:
    with held_heap():  # (a second holder: the settings stay until the last lets go)
        pass
    kept = faults()
print(held, plain, kept, faults())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_held_heap_keeps_freed_memory_under_dasks_trim_threshold():
    """Under Dask's nanny's MALLOC_TRIM_THRESHOLD_ every 1 MB temporary is a fresh
    mapping (256 page faults); held, the heap keeps it; after, the setting is back."""
    import os

    env = dict(os.environ, MALLOC_TRIM_THRESHOLD_="65536")
    out = subprocess.run([sys.executable, "-c", HEAP_PROBE], env=env, capture_output=True,
                         text=True, timeout=120, check=True).stdout.split()
    held, (plain, kept, after) = out[0], map(int, out[1:])
    if held != "True":
        pytest.skip("not glibc")
    assert plain > 40 * 200 and after > 40 * 200  # (measured: 10,280 each)
    assert kept * 10 < plain  # (measured: 238)
    env.pop("MALLOC_TRIM_THRESHOLD_")
    out = subprocess.run([sys.executable, "-c", HEAP_PROBE], env=env, capture_output=True,
                         text=True, timeout=120, check=True).stdout.split()
    assert out[0] == "False"  # glibc's defaults are dynamic already: nothing to hold


@pytest.mark.parametrize("module", ["pegasos._dask", "pegasos._heap"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0
