"""DualSVC's problems as tasks on a dask.distributed LocalCluster (DaskDualSVC)."""

import os
import time

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("distributed")
import dask  # noqa: E402
import dask.array as da  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402
from distributed.diagnostics.plugin import WorkerPlugin  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402

from pegasos import DualSVC, load_model, save_model  # noqa: E402
from pegasos._solvers.gram import engine_only  # noqa: E402
from pegasos.dask_svc import (  # noqa: E402
    DaskDualSVC,
    LostRowsError,
    _Counted,
    _moments,
    _pooled_variance,
)


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X / 16, y


def _dense(a):
    return a.toarray() if sp.issparse(a) else np.asarray(a)


def _assert_same_model(a, b, probabilities=False):
    """The same SVC model, bit for bit."""
    np.testing.assert_array_equal(a.support_, b.support_)
    np.testing.assert_array_equal(_dense(a.dual_coef_), _dense(b.dual_coef_))
    np.testing.assert_array_equal(a.intercept_, b.intercept_)
    np.testing.assert_array_equal(_dense(a.support_vectors_), _dense(b.support_vectors_))
    np.testing.assert_array_equal(a.n_support_, b.n_support_)
    assert a.n_kernel_evals_ == b.n_kernel_evals_
    assert a.n_kernel_columns_ == b.n_kernel_columns_
    np.testing.assert_array_equal(a.n_iter_, b.n_iter_)
    if probabilities:
        np.testing.assert_array_equal(a.probA_, b.probA_)
        np.testing.assert_array_equal(a.probB_, b.probB_)


def _chunked(X, y, chunks):
    return da.from_array(X, chunks=(chunks, -1)), da.from_array(y, chunks=chunks)


@pytest.mark.parametrize("params", [
    dict(C=10, gamma=0.02),
    dict(C=3, gamma=0.05, probability=True, random_state=1),
    dict(C=2, gamma=0.03, class_weight={0: 0.5, 7: 3.0}, working_set_size=64),
], ids=["plain", "probability", "weighted"])
def test_one_vs_one_pairs_are_the_in_memory_fit(cluster, digits, params):
    X, y = digits
    memory = DualSVC(**params).fit(X, y)
    Xd, yd = _chunked(X, y, 437)  # (uneven chunks, classes split across them)
    dist = DaskDualSVC(scheduler=cluster.scheduler_address, **params).fit(Xd, yd)
    _assert_same_model(memory, dist, params.get("probability", False))
    assert dist.n_partitions_ == 5 and len(dist.task_seconds_) == 45
    assert np.all(dist.task_bytes_ > 0)
    np.testing.assert_array_equal(dist.predict(Xd).compute(), memory.predict(X))


def test_engine_path_csr_float32_and_sample_weights(cluster):
    # 2,500 rows: the engine computes the columns (no kernel matrix); CSR rows in float32,
    # sample weights given as a dask array, a row of weight 0
    rng = np.random.default_rng(0)
    X = sp.random(2_500, 40, density=0.2, format="csr", random_state=1, dtype=np.float32)
    y = rng.integers(0, 3, 2_500)
    X[np.flatnonzero(y == 1)[:200]] *= 3.0
    w = rng.uniform(0.0, 2.0, 2_500)
    w[5] = 0.0
    params = dict(C=5.0, gamma=0.5, working_set_size=128, cache_size=1)
    memory = DualSVC(**params).fit(X, y, sample_weight=w)
    Xd = da.from_array(X, chunks=(700, -1), asarray=False)
    dist = DaskDualSVC(scheduler=cluster.scheduler_address, **params).fit(
        Xd, da.from_array(y, chunks=700), sample_weight=da.from_array(w, chunks=700))
    assert sp.issparse(dist.support_vectors_) and dist.support_vectors_.dtype == np.float32
    _assert_same_model(memory, dist)

    # the workers' arenas (each thread's pairs in one memory) are freed with the fit
    from pegasos import dask_svc

    with Client(cluster.scheduler_address) as client:
        assert set(client.run(lambda: len(dask_svc._ARENAS)).values()) == {0}


def test_one_vs_rest_problems_are_each_class_binary_fit(cluster, digits):
    X, y = digits
    params = dict(C=4, gamma=0.04, multi_class="ovr")
    dist = DaskDualSVC(scheduler=cluster.scheduler_address, **params).fit(*_chunked(X, y, 600))
    for c in (0, 5, 9):  # class c against the rest, in memory
        binary = DualSVC(C=4, gamma=0.04).fit(X, y == c)
        full = np.zeros(len(y))
        full[dist.support_] = _dense(dist.dual_coef_)[c]
        expected = np.zeros(len(y))
        expected[binary.support_] = _dense(binary.dual_coef_)[0]
        np.testing.assert_array_equal(full, expected)
        assert dist.intercept_[c] == binary.intercept_[0]
    memory = DualSVC(**params).fit(X, y)  # (its problems share working sets: to tol)
    assert np.mean(dist.predict(X) == memory.predict(X)) > 0.99


def test_binary_problem_as_one_task_and_gamma_scale(cluster, digits):
    X, y = digits
    y = y % 2
    memory = DualSVC(C=2).fit(X, y)
    dist = DaskDualSVC(C=2, distribute="problems", scheduler=cluster.scheduler_address).fit(
        *_chunked(X, y, 500))
    assert dist.gamma_ == pytest.approx(memory.gamma_, rel=1e-14)
    fixed = DualSVC(C=2, gamma=dist.gamma_).fit(X, y)
    _assert_same_model(fixed, dist)
    scores = dist.decision_function(da.from_array(X, chunks=(500, -1)))
    assert isinstance(scores, da.Array)
    # (chunk by chunk: the products in other tiles, within rounding)
    np.testing.assert_allclose(scores.compute(), fixed.decision_function(X), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("kind", ["dense", "csr-float32-weights", "ovr"])
def test_rows_across_workers_are_the_in_memory_fit(cluster, digits, kind):
    X, y = digits
    params, w = dict(C=3.0, gamma=0.03, working_set_size=128), None
    if kind == "dense":
        y = (y > 4).astype(int)
    elif kind == "csr-float32-weights":
        X, y = sp.csr_matrix(X, dtype=np.float32), (y > 4).astype(int)
        w = np.random.default_rng(1).uniform(0.0, 2.0, len(y))
    else:
        params["multi_class"] = "ovr"
    with engine_only():  # (the kernel columns from the engine, as the workers compute them)
        memory = DualSVC(**params).fit(X, y, sample_weight=w)
    Xd = da.from_array(X, chunks=(300, -1), asarray=False)
    dist = DaskDualSVC(distribute="rows", scheduler=cluster.scheduler_address, **params).fit(
        Xd, da.from_array(y, chunks=300), sample_weight=w)
    assert dist.distribute_ == "rows" and dist.across_["holders"] == 2
    assert sum(dist.across_["rows"]) == len(y)
    np.testing.assert_array_equal(dist.n_iter_, memory.n_iter_)  # the same pair steps
    _assert_same_model(memory, dist)


def test_empty_chunks_hold_nothing(cluster, digits):
    X, y = digits
    chunks = (0, 900, 0, 897)
    Xd, yd = da.from_array(X, chunks=(chunks, (64,))), da.from_array(y % 2, chunks=(chunks,))
    with engine_only():
        memory = DualSVC(C=3, gamma=0.03).fit(X, y % 2)
    dist = DaskDualSVC(C=3, gamma=0.03, scheduler=cluster.scheduler_address).fit(Xd, yd)
    assert dist.distribute_ == "rows" and dist.across_["rows"] == [900, 897]
    _assert_same_model(memory, dist)


def test_distribute_auto_and_its_refusals(cluster, digits):
    X, y = digits
    at = dict(scheduler=cluster.scheduler_address)
    binary = DaskDualSVC(C=1, gamma=0.05, **at).fit(*_chunked(X, y % 2, 600))
    assert binary.distribute_ == "rows"
    with pytest.raises(ValueError, match="distribute='rows' spreads the rows of problems on"):
        DaskDualSVC(distribute="rows", **at).fit(*_chunked(X, y, 600))
    with pytest.raises(ValueError, match="probability=True is not supported with distribute"):
        DaskDualSVC(distribute="rows", probability=True, **at).fit(*_chunked(X, y % 2, 600))
    with pytest.raises(ValueError, match="start_epochs > 0 is not supported with distribute"):
        DaskDualSVC(distribute="rows", start_epochs=1.0, **at).fit(*_chunked(X, y % 2, 600))


def test_a_client_that_is_not_the_default_serves_both_modes(cluster, digits):
    # (as the LocalCluster a fit starts for itself: its client is nobody's default)
    X, y = digits
    with Client(cluster, set_as_default=False) as client:
        pairs = DaskDualSVC(C=10, gamma=0.02, scheduler=client).fit(*_chunked(X, y, 600))
        rows = DaskDualSVC(C=10, gamma=0.02, scheduler=client).fit(*_chunked(X, y % 2, 600))
    assert (pairs.distribute_, rows.distribute_) == ("problems", "rows")
    assert pairs.score(X, y) > 0.95 and rows.score(X, y % 2) > 0.95


def test_pooled_variance_is_numpys():
    rng = np.random.default_rng(3)
    X = rng.normal(2.0, 3.0, (1_000, 7))
    parts = [X[:10], X[10:400], X[400:401], X[401:]]
    assert _pooled_variance([_moments(p) for p in parts]) == pytest.approx(X.var(), rel=1e-13)
    S = sp.random(500, 9, density=0.3, format="csr", random_state=0)
    pooled = _pooled_variance([_moments(S[:250]), _moments(S[250:])])
    assert pooled == pytest.approx(S.toarray().var(), rel=1e-12)


def test_reports_predictions_and_model_files(cluster, digits, tmp_path, capsys):
    X, y = digits
    reports = []
    est = DaskDualSVC(C=10, gamma=0.02, probability=True, random_state=0, verbose=True,
                      callback=reports.append, scheduler=cluster.scheduler_address)
    Xd, yd = _chunked(X, y, 500)
    est.fit(Xd, yd)
    assert sorted(r.problem for r in reports) == list(range(45))
    assert all(r.n_problems == 45 and r.client is not None and r.coef.shape == (len(y),)
               for r in reports)
    assert capsys.readouterr().out.count("DaskDualSVC: problem") == 45
    proba = est.predict_proba(Xd)
    assert isinstance(proba, da.Array)
    np.testing.assert_allclose(proba.compute(), est.predict_proba(X), rtol=1e-10, atol=1e-12)
    assert est.decision_function(Xd).compute().shape == (len(y), 10)
    est.set_params(decision_function_shape="ovo")
    assert est.decision_function(Xd).compute().shape == (len(y), 45)
    save_model(est, tmp_path / "dist.model")
    back = load_model(tmp_path / "dist.model")
    assert type(back) is DaskDualSVC
    np.testing.assert_array_equal(back.predict(X), est.predict(X))


def test_refusals(cluster, digits):
    X, y = digits
    Xd, yd = _chunked(X, y, 500)
    at = dict(scheduler=cluster.scheduler_address)
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        DaskDualSVC(**at).fit(da.from_array(X, chunks=(500, -1))[da.from_array(y) > 4], y)
    with pytest.raises(ValueError, match="kernel='precomputed' is not supported with dask"):
        DaskDualSVC(kernel="precomputed", **at).fit(Xd, yd)
    with pytest.raises(ValueError, match="multi_class='ovr' refits 5 folds"):
        DaskDualSVC(probability=True, multi_class="ovr", **at).fit(Xd, yd)
    with pytest.raises(ValueError, match="one label per row of X"):
        DaskDualSVC(**at).fit(Xd, y[:-1])
    bad = X.copy()
    bad[1500, 3] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        DaskDualSVC(**at).fit(*_chunked(bad, y, 500))
    with pytest.raises(ValueError, match="has only one class|one class"):
        DaskDualSVC(**at).fit(Xd, da.zeros(len(y), chunks=500))


def test_in_memory_input_is_dualsvc(digits):
    X, y = digits
    _assert_same_model(DualSVC(C=3).fit(X, y), DaskDualSVC(C=3).fit(X, y))


def _claimed(flag):
    """Whether this process is the first to claim ``flag`` (created atomically: of two
    workers asking at once, one kills itself, not both)."""
    try:
        os.close(os.open(flag, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


class _KillOnProblem(WorkerPlugin):
    """Kill the worker process that starts a problem's task: once (a file marks it done),
    or every time."""

    def __init__(self, flag=None):
        self.flag = flag

    def transition(self, key, start, finish, **kwargs):
        if finish == "executing" and "dualsvc-problem" in str(key):
            if self.flag is None or _claimed(self.flag):
                os._exit(1)


@pytest.mark.slow
def test_a_worker_killed_mid_fit_gives_the_same_model(digits, tmp_path):
    X, y = digits
    clean = DualSVC(C=10, gamma=0.02).fit(X, y)
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        client.register_plugin(_KillOnProblem(str(tmp_path / "killed")))
        est = DaskDualSVC(C=10, gamma=0.02, scheduler=client).fit(*_chunked(X, y, 500))
    assert os.path.exists(tmp_path / "killed")
    _assert_same_model(clean, est)


@pytest.mark.slow
def test_a_task_that_kills_its_worker_every_time_is_an_error(digits):
    X, y = digits
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}), \
            LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        client.register_plugin(_KillOnProblem())
        with pytest.raises(LostRowsError, match="killed its Dask worker each time it ran"):
            DaskDualSVC(C=10, scheduler=client).fit(*_chunked(X, y, 500))


class _KillOnCall(WorkerPlugin):
    """Kill the worker process at its first task after ``setup`` (once: a file marks it)."""

    def __init__(self, flag):
        self.flag = flag

    def setup(self, worker):
        import threading

        def later():
            time.sleep(1.0)
            if _claimed(self.flag):
                os._exit(1)

        threading.Thread(target=later, daemon=True).start()


@pytest.mark.slow
def test_a_worker_lost_with_rows_across_workers_is_an_error(tmp_path):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20_000, 30)), rng.integers(0, 2, 20_000)
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        Xd, yd = client.persist(_chunked(X, y, 2_500))
        DaskDualSVC(C=1, scheduler=client).fit(Xd[:3000], yd[:3000])  # (compiled, warm)
        client.register_plugin(_KillOnCall(str(tmp_path / "killed")))  # in 1 s, one worker
        with pytest.raises(LostRowsError, match="holding rows of the problem was lost"):
            DaskDualSVC(C=100, gamma=1.0, tol=1e-6, scheduler=client).fit(Xd, yd)
    assert os.path.exists(tmp_path / "killed")


def _exit_soon():
    import threading

    threading.Timer(0.2, os._exit, [1]).start()


@pytest.mark.slow
def test_a_holder_lost_before_it_is_called_is_an_error():
    # Dask refuses a call to an actor whose worker it knows is gone (a RuntimeError at the
    # call, not at its answer): the same LostRowsError
    with LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        holder = _Counted(client.submit(list, actor=True).result(), {"bytes_sent": 0})
        holder.append(1).result()
        gone = set(client.scheduler_info()["workers"])
        client.run(_exit_soon)
        deadline = time.monotonic() + 60
        while gone & set(client.scheduler_info()["workers"]):
            assert time.monotonic() < deadline, "the killed worker was never removed"
            time.sleep(0.05)
        with pytest.raises(LostRowsError, match="holding rows of the problem was lost"):
            holder.append(2)


@pytest.mark.slow
def test_rows_scattered_from_here_and_lost_are_an_error(tmp_path):
    # over LOCAL_GRAPH_BYTES: the chunks are scattered from this process, and a worker's
    # death loses them for good
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(6_000, 64)), rng.integers(0, 4, 6_000)
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        client.register_plugin(_KillOnProblem(str(tmp_path / "killed")))
        with pytest.raises(LostRowsError, match="lost its rows with a Dask worker"):
            DaskDualSVC(C=1, gamma=0.01, scheduler=client).fit(*_chunked(X, y, 1_000))
