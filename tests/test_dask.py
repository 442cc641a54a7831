"""Distributed mini-batch Pegasos on a dask.distributed LocalCluster."""

import os

import numpy as np
import pytest

pytest.importorskip("distributed")
import dask  # noqa: E402
import dask.array as da  # noqa: E402
from sklearn.utils import check_random_state  # noqa: E402

from pegasos import PegasosClassifier  # noqa: E402
from pegasos.dask_backend import DaskPegasosClassifier, partition_draws, round_counts  # noqa: E402

from . import naive  # noqa: E402
from .conftest import make_binary  # noqa: E402


@pytest.fixture(scope="module")
def data():
    X, y = make_binary(n=300, d=5, seed=40)
    return X, y, da.from_array(X, chunks=(100, 5)), da.from_array(y, chunks=100)


async def _exit_worker():
    """Kill the worker process outright (its nanny starts a new one)."""
    os._exit(1)


def _global_order(random_state, sizes, k, rounds, seed=None):
    """The samples the distributed fit draws, as global row indices, round after round
    (``seed``: a problem's own, by default the first problem's of ``random_state``)."""
    if seed is None:
        seed = check_random_state(random_state).randint(np.iinfo(np.int32).max, size=1)[0]
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    order = []
    for t in range(1, rounds + 1):
        counts = round_counts(seed, t, sizes, k)
        for p, n_p in enumerate(sizes):
            order.extend(offsets[p] + partition_draws(seed, t, p, n_p, counts[p]))
    return np.asarray(order)


@pytest.mark.parametrize("average", [False, True, 0.5], ids=["last", "full", "suffix"])
def test_distributed_fit_equals_the_in_memory_iteration(cluster, data, average):
    X, y, Xd, yd = data
    T, k = 40, 25
    est = DaskPegasosClassifier(lam=0.01, n_iter=T, batch_size=k, average=average,
                                mode="minibatch", random_state=3,
                                scheduler=cluster.scheduler_address)
    est.fit(Xd, yd)
    avg_from = None if average is False else (1 if average is True else T - int(np.ceil(0.5 * T)) + 1)
    w, b = naive.pegasos(X, y, 0.01, _global_order(3, [100, 100, 100], k, T), k,
                         bias_mode="augment", avg_from=avg_from)
    np.testing.assert_allclose(est.coef_[0], w, rtol=0, atol=1e-10)
    assert est.intercept_[0] == pytest.approx(b, abs=1e-10)
    assert est.n_rounds_ == T and est.n_partitions_ == 3


def test_a_worker_killed_mid_fit_changes_nothing(cluster, data):
    _, _, Xd, yd = data
    params = dict(lam=0.01, n_iter=30, batch_size=30, mode="minibatch", random_state=5,
                  scheduler=cluster.scheduler_address)
    clean = DaskPegasosClassifier(**params).fit(Xd, yd)
    killed = []

    def kill_one_worker(info):
        if info["t"] == 10 and not killed:
            client = info["client"]
            victim = sorted(client.scheduler_info()["workers"])[0]
            client.run(_exit_worker, workers=[victim], wait=False)
            killed.append(victim)

    survivor = DaskPegasosClassifier(callback=kill_one_worker, **params).fit(Xd, yd)
    assert killed
    np.testing.assert_allclose(survivor.coef_, clean.coef_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(survivor.intercept_, clean.intercept_, rtol=0, atol=1e-12)


def test_default_local_cluster_and_the_mixing_mode(data):
    X, y, Xd, yd = data
    est = DaskPegasosClassifier(lam=0.01, n_epochs=5, mode="average", random_state=0, n_workers=2)
    est.fit(Xd, yd)
    assert est.score(X, y) > 0.85 and est.n_rounds_ == 5


def test_multiclass_on_dask(cluster, monkeypatch):
    from sklearn.datasets import load_iris
    from sklearn.preprocessing import StandardScaler

    from pegasos import dask_backend

    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    reductions = []  # one per round trip of the mini-batch rounds
    tree_sum = dask_backend._tree_sum
    monkeypatch.setattr(dask_backend, "_tree_sum",
                        lambda *args: reductions.append(1) or tree_sum(*args))
    est = DaskPegasosClassifier(lam=1e-2, n_iter=100, batch_size=50, mode="minibatch",
                                random_state=0, scheduler=cluster.scheduler_address)
    est.fit(da.from_array(X, chunks=(50, 4)), da.from_array(y, chunks=50))
    assert len(reductions) == 100  # not 300: the three problems' steps share each round trip
    # the in-memory estimator with the same k and T scores 0.92-0.93 here
    assert est.coef_.shape == (3, 4) and est.score(X, y) > 0.88
    assert est.n_rounds_ == 100  # the three problems share the rounds
    for c in range(3):  # each is the in-memory iteration on its own draws
        order = _global_order(None, [50, 50, 50], 50, 100, seed=est.plan_.seeds[c])
        w, b = naive.pegasos(X, np.where(y == c, 1.0, -1.0), 1e-2, order, 50,
                             bias_mode="augment", avg_from=100 - 50 + 1)
        np.testing.assert_allclose(est.coef_[c], w, rtol=0, atol=1e-10)
        assert est.intercept_[c] == pytest.approx(b, abs=1e-10)


def test_in_memory_input_is_the_plain_estimator(data):
    X, y, _, _ = data
    a = DaskPegasosClassifier(lam=0.01, batch_size=1, random_state=0).fit(X, y)
    b = PegasosClassifier(lam=0.01, random_state=0).fit(X, y)
    assert np.array_equal(a.coef_, b.coef_)
    inc = DaskPegasosClassifier(lam=0.01, batch_size=1, random_state=0)
    for start in range(0, 300, 100):  # what dask_ml.wrappers.Incremental does, block by block
        inc.partial_fit(X[start : start + 100], y[start : start + 100], classes=[-1.0, 1.0])
    assert inc.t_ == 300 and inc.score(X, y) > 0.85


def test_errors(cluster, data, monkeypatch):
    from pegasos import _dask

    X, y, Xd, yd = data
    monkeypatch.setattr(_dask, "CONNECT_TIMEOUT", 1.0)  # Dask retries a refusal until then
    unknown = da.from_array(X, chunks=(100, 5))[da.from_array(y, chunks=100) > -2]
    with pytest.raises(ValueError, match=r"unknown chunk sizes .*compute_chunk_sizes\(\)"):
        DaskPegasosClassifier(scheduler=cluster.scheduler_address).fit(unknown, yd)
    with pytest.raises(ValueError, match=r"partitioned differently: X's row chunks \(100, 100, 100\) but y's \(150, 150\)"):
        DaskPegasosClassifier(scheduler=cluster.scheduler_address).fit(Xd, yd.rechunk(150))
    with pytest.raises(ValueError, match=r"cannot connect to a Dask scheduler at 'tcp://127.0.0.1:9'"):
        DaskPegasosClassifier(scheduler="tcp://127.0.0.1:9").fit(Xd, yd)
    with pytest.raises(ValueError, match=r"sample_weight is not supported with dask input"):
        DaskPegasosClassifier(scheduler=cluster.scheduler_address).fit(Xd, yd, sample_weight=np.ones(300))
    with pytest.raises(ValueError, match=r"X and y must both be dask arrays"):
        DaskPegasosClassifier(scheduler=cluster.scheduler_address).fit(Xd, y)


@pytest.mark.parametrize("mode, budget", [("minibatch", dict(n_iter=20, batch_size=20)),
                                          ("average", dict(n_epochs=3))])
def test_sparse_chunks_give_the_dense_model(cluster, mode, budget):
    import scipy.sparse as sp

    X, y = make_binary(n=300, d=5, density=0.5, seed=41)
    Xd, yd = da.from_array(X, chunks=(100, 5)), da.from_array(y, chunks=100)
    Xs = Xd.map_blocks(sp.csr_matrix, dtype=float)
    params = dict(lam=0.01, mode=mode, random_state=0, scheduler=cluster.scheduler_address,
                  **budget)
    dense = DaskPegasosClassifier(**params).fit(Xd, yd)
    sparse = DaskPegasosClassifier(**params).fit(Xs, yd)
    assert np.array_equal(dense.coef_, sparse.coef_)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_chunks_are_checked_on_the_workers(cluster, data, bad):
    X, y, _, yd = data
    Z = X.copy()
    Z[250, 2] = bad  # in the last chunk
    with pytest.raises(ValueError, match=r"Input X contains (NaN|infinity)"):
        DaskPegasosClassifier(scheduler=cluster.scheduler_address, n_epochs=1).fit(
            da.from_array(Z, chunks=(100, 5)), yd)


def test_overflow_in_the_weights_is_an_error(cluster, data):
    X, y, _, yd = data
    Z = X * 1e200
    with pytest.raises(ValueError, match=r"Floating-point overflow in the weights"):
        DaskPegasosClassifier(lam=1e-3, scheduler=cluster.scheduler_address, n_epochs=2).fit(
            da.from_array(Z, chunks=(100, 5)), yd)


def test_a_server_that_is_not_dask_is_a_message_within_the_deadline(data, monkeypatch):
    import socket
    import threading
    import time

    from pegasos import _dask

    _, _, Xd, yd = data
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    accepted = []

    def accept():  # accepts, then never says a word
        try:
            while True:
                accepted.append(server.accept()[0])
        except OSError:
            pass

    threading.Thread(target=accept, daemon=True).start()
    monkeypatch.setattr(_dask, "CONNECT_TIMEOUT", 1.0)
    monkeypatch.setattr(_dask, "CONNECT_GRACE", 1.0)
    tic = time.perf_counter()
    before = dask.config.get("scheduler", None)
    try:
        with pytest.raises(ValueError, match=rf"no Dask scheduler answered at 'tcp://127.0.0.1:{port}'"
                                             r" within 2 s"):
            DaskPegasosClassifier(scheduler=f"tcp://127.0.0.1:{port}").fit(Xd, yd)
        # the client still trying in its thread left Dask's configuration alone (made as
        # the default, it had set scheduler="dask.distributed" until its attempt failed:
        # a .compute() elsewhere then asked for a client that did not exist)
        assert dask.config.get("scheduler", None) == before
    finally:
        server.close()
        for conn in accepted:
            conn.close()
    assert time.perf_counter() - tic < 30


def test_the_active_client_and_a_client_object_are_used(cluster, data):
    from distributed import Client

    X, y, Xd, yd = data
    params = dict(lam=0.01, n_epochs=3, random_state=0)
    before = dask.config.get("scheduler", None)
    expected = DaskPegasosClassifier(scheduler=cluster.scheduler_address, **params).fit(Xd, yd)
    assert dask.config.get("scheduler", None) == before  # (the fit's client was its own)
    with Client(cluster) as client:
        by_object = DaskPegasosClassifier(scheduler=client, **params).fit(Xd, yd)
        active = DaskPegasosClassifier(n_workers=7, **params).fit(Xd, yd)  # no new cluster
        assert client.status == "running"  # a client it was given is left open
        assert len(client.scheduler_info()["workers"]) == 2
        labels = active.predict(Xd)
        scores = active.decision_function(Xd)
        assert isinstance(labels, da.Array) and isinstance(scores, da.Array)
        np.testing.assert_array_equal(labels.compute(), active.predict(X))
        # (a chunk's scores are BLAS's products of fewer rows: equal up to rounding)
        np.testing.assert_allclose(scores.compute(), active.decision_function(X), rtol=1e-13,
                                   atol=1e-13)
    np.testing.assert_array_equal(by_object.coef_, expected.coef_)
    np.testing.assert_array_equal(active.coef_, expected.coef_)


def test_multiclass_predictions_of_a_dask_array(cluster):
    from distributed import Client

    from pegasos import dask_backend

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = np.argmax(X[:, :3], axis=1)
    Xd, yd = da.from_array(X, chunks=(40, 2)), da.from_array(y, chunks=40)
    with Client(cluster) as client:
        tasks = []  # the functions submitted by the fit
        submit = client.submit
        client.submit = lambda fn, *args, **kwargs: tasks.append(fn) or submit(fn, *args,
                                                                               **kwargs)
        est = DaskPegasosClassifier(lam=0.01, n_epochs=2, random_state=0).fit(Xd, yd)
        del client.submit
        # 2 epochs x 3 partitions, not x 3 problems as well: the problems share each task
        assert tasks.count(dask_backend._local_epochs) == 6 and len(tasks) == 6
        scores = est.decision_function(Xd)
        assert scores.shape == (120, 3)
        np.testing.assert_allclose(scores.compute(), est.decision_function(X), rtol=1e-13,
                                   atol=1e-13)  # (BLAS on chunks of rows: up to rounding)
        np.testing.assert_array_equal(est.predict(Xd).compute(), est.predict(X))


def test_data_held_in_this_process_is_scattered_not_sent_as_a_graph(cluster):
    import warnings

    from distributed import Client

    X, y = make_binary(n=30_000, d=50, seed=3)  # 12 MB: above Dask's large-graph warning
    Xd, yd = da.from_array(X, chunks=(10_000, 50)), da.from_array(y, chunks=10_000)
    with Client(cluster), warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # "Sending large graph of size ..."
        est = DaskPegasosClassifier(lam=1e-3, n_epochs=1, random_state=0).fit(Xd, yd)
    assert est.score(X, y) > 0.8


def test_save_model_keeps_a_distributed_fit(cluster, data, tmp_path):
    from pegasos import load_model, save_model

    X, y, Xd, yd = data
    est = DaskPegasosClassifier(lam=0.01, n_epochs=3, random_state=0,
                                scheduler=cluster.scheduler_address).fit(Xd, yd)
    save_model(est, tmp_path / "d.model")
    back = load_model(tmp_path / "d.model")
    assert type(back) is DaskPegasosClassifier and back.n_rounds_ == est.n_rounds_ == 3
    np.testing.assert_array_equal(back.decision_function(X), est.decision_function(X))
    assert back.duality_gap(X, y) == est.duality_gap(X, y)  # from the state of its model
    assert back.plan_ == est.plan_ and back.get_params()["scheduler"] == est.scheduler
    memory = DaskPegasosClassifier(lam=0.01, random_state=0).fit(X, y)  # in memory
    save_model(memory, tmp_path / "m.model")
    again = load_model(tmp_path / "m.model")
    again.set_params(warm_start=True).fit(X, y)
    memory.set_params(warm_start=True).fit(X, y)
    np.testing.assert_array_equal(again.coef_, memory.coef_)
