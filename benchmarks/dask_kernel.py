"""Kernel SVMs on a Dask cluster: `DaskDualSVC` against the in-memory `DualSVC`.

    python -m benchmarks.dask_kernel [--quick] [--repeats 3]

Data: Fashion-MNIST's first 20,000 training rows (``--quick``: 3,000), 10 classes (45
one-vs-one problems), dense float64, C = 10, gamma fixed at "scale"'s value on these
rows (so that every arm solves the same problems, and the models can be compared bit
for bit), all 10,000 test rows.

On one machine the fair comparison is workers against the same number of threads:

- ``memory-1-thread``: ``DualSVC`` with Numba's threads (the engine) and BLAS at one;
- ``memory-2-threads``: the same at two threads (this machine's cores);
- ``dask-W-workers``: ``DaskDualSVC`` on a LocalCluster of W worker processes of one
  thread each (W = 1, 2, 4; 4 workers on 2 cores measure overhead, not speed), started
  and warmed up (one small fit) before the timings; the chunks are scattered to the
  workers before the timings too, as data already on a cluster.

Per distributed fit: its time, each problem's time on its worker (``task_seconds_``,
assembling its rows included), the bytes of each problem's rows (``task_bytes_``),
and from Dask's task stream the time the workers spent moving data between them
(transfers) against computing; whether the model equals the in-memory one bit for
bit; test accuracy.  Beside it, the linear backend's rounds on the same cluster
(``DaskPegasosClassifier``, mini-batch rounds, 10 one-vs-rest problems sharing each
round) so that the two backends' overheads are comparable: the linear backend pays
its overhead once per round (thousands of rounds), this one once per problem.

From the one-worker run's problem times, a projection of the fit time on W = 2 to 64
workers: the problems scheduled largest first onto the first free worker (what Dask's
priorities do), plus the driver's measured time outside the tasks; checked against
the measured 2-worker run.  Its arithmetic is written in the Markdown.

Rows across workers (``distribute="rows"``), one binary problem: ``fashion-binary``
(Fashion-MNIST T-shirt/top against shirt, all 12,000 training rows, C = 10) and
``ijcnn1`` (its 49,990 training rows, dense, C = 1); ``--quick``: their first 3,000
and 5,000 rows.  The same in-memory arms, then 2 and 4 workers; per iteration the
driver's own time, the workers' compute, the time lost to the calls, the round trip
of a call to an actor on every worker (measured alone), and the bytes sent and
received; from them a projection per iteration for 4 to 64 workers on 100,000 to 10
million rows (its arithmetic in the Markdown).

Writes ``benchmarks/results/dask_kernel.{json,md}``.
"""

import contextlib
import heapq
import sys
import time

import numpy as np

from .common import (
    environment_markdown,
    fashion_mnist,
    fashion_mnist_binary,
    linear_data,
    run_part,
    spread,
)

DATASETS = ["fashion10", "fashion-binary", "ijcnn1"]
#: The binary sets of the rows-across-workers table: (what, rows with --quick).
ROW_SETS = {"fashion-binary": ("Fashion-MNIST T-shirt/top against shirt", 3_000),
            "ijcnn1": ("ijcnn1, dense", 5_000)}
ROWS, QUICK_ROWS, C = 20_000, 3_000, 10.0
WORKERS = (1, 2, 4)
PROJECTED_WORKERS = (2, 4, 8, 16, 32, 45, 64)
LINEAR_ROUNDS, QUICK_LINEAR_ROUNDS = 50, 10


def _threads(n):
    """Numba's threads and BLAS's at ``n`` in this process (a context)."""
    import numba
    from threadpoolctl import threadpool_limits

    stack = contextlib.ExitStack()
    before = numba.get_num_threads()
    numba.set_num_threads(n)
    stack.callback(numba.set_num_threads, before)
    stack.enter_context(threadpool_limits(limits=n))
    return stack


def _same(a, b):
    return (np.array_equal(a.support_, b.support_) and np.array_equal(a.dual_coef_, b.dual_coef_)
            and np.array_equal(a.intercept_, b.intercept_))


def project(task_seconds, workers, outside):
    """The fit time on ``workers`` workers: the problems (their one-worker times) taken
    largest first, each by the worker free first (LPT), plus the driver's time outside
    the tasks ``outside``."""
    free = [0.0] * workers
    for t in sorted(task_seconds, reverse=True):
        heapq.heappush(free, heapq.heappop(free) + t)
    return max(free) + outside


def _transfers(stream):
    """(seconds moving data between workers, seconds computing, bytes moved) in a Dask
    task stream."""
    moving = computing = moved = 0.0
    for task in stream:
        for part in task.get("startstops", ()):
            span = part["stop"] - part["start"]
            if part["action"] == "transfer":
                moving += span
            elif part["action"] == "compute":
                computing += span
        moved += task.get("nbytes", 0) if any(
            p["action"] == "transfer" for p in task.get("startstops", ())) else 0
    return moving, computing, moved


def _on_workers(client, A, chunk):
    """A dask array of A's row chunks, scattered to the workers (data already on the
    cluster: the graph holds futures, not the values)."""
    import dask.array as da

    parts = [A[i:i + chunk] for i in range(0, A.shape[0], chunk)]
    futures = client.scatter(parts)
    return da.concatenate([da.from_delayed(f, shape=p.shape, dtype=p.dtype)
                           for f, p in zip(futures, parts)])


def _linear_rounds(client, X, y, rounds):
    """Seconds per round of the linear backend's mini-batch rounds on this cluster."""
    from pegasos.dask_backend import DaskPegasosClassifier

    chunk = -(-X.shape[0] // 8)
    Xd, yd = _on_workers(client, X, chunk), _on_workers(client, y, chunk)
    est = DaskPegasosClassifier(lam=1e-4, n_iter=rounds, batch_size=1000, mode="minibatch",
                                random_state=0, scheduler=client)
    est.fit(Xd, yd)  # (warm-up: the workers' first tasks load the compiled code)
    tic = time.perf_counter()
    est.fit(Xd, yd)
    return (time.perf_counter() - tic) / rounds


def _memory_runs(X, y, Xt, yt, params, repeats):
    """The in-memory fits at one and two threads: (runs, the one-thread model)."""
    from pegasos import DualSVC

    DualSVC(**params).fit(X[:600], y[:600])  # (compiled code loaded before the timings)
    runs, models = {}, {}
    for threads in (1, 2):
        key = f"memory-{threads}-thread{'s' if threads > 1 else ''}"
        times = []
        with _threads(threads):
            for _ in range(repeats):
                tic = time.perf_counter()
                models[key] = DualSVC(**params).fit(X, y)
                times.append(time.perf_counter() - tic)
        runs[key] = {"seconds": spread(times), "accuracy": float(models[key].score(Xt, yt)),
                     "n_support": int(models[key].support_.size),
                     "n_iter": int(models[key].n_iter_.max())}
        print(f"{key}: {runs[key]['seconds']['median']:.2f} s", file=sys.stderr, flush=True)
    return runs, models["memory-1-thread"]


def _cluster(workers):
    from distributed import Client, LocalCluster

    stack = contextlib.ExitStack()
    cluster = stack.enter_context(LocalCluster(n_workers=workers, threads_per_worker=1,
                                               processes=True, dashboard_address=":0",
                                               silence_logs=40))
    return stack, stack.enter_context(Client(cluster))


def bench(name, *, data_dir, repeats, quick):
    if name in ROW_SETS:
        return _bench_rows(name, data_dir, repeats, quick)
    from distributed import get_task_stream

    from pegasos.dask_svc import DaskDualSVC

    n = QUICK_ROWS if quick else ROWS
    X, y, Xt, yt = fashion_mnist(n)
    gamma = 1.0 / (X.shape[1] * X.var())
    params = dict(C=C, gamma=gamma)
    runs, reference = _memory_runs(X, y, Xt, yt, params, repeats)
    chunk = -(-n // 8)
    linear = {}
    for workers in WORKERS:
        key = f"dask-{workers}-worker{'s' if workers > 1 else ''}"
        stack, client = _cluster(workers)
        with stack:
            Xd, yd = _on_workers(client, X, chunk), _on_workers(client, y, chunk)
            DaskDualSVC(**params, scheduler=client).fit(Xd[:600], yd[:600])  # warm-up
            times = []
            for _ in range(repeats):
                with get_task_stream(client) as stream:
                    tic = time.perf_counter()
                    est = DaskDualSVC(**params, scheduler=client).fit(Xd, yd)
                    times.append(time.perf_counter() - tic)
            moving, computing, moved = _transfers(stream.data)
            runs[key] = {
                "seconds": spread(times), "accuracy": float(est.score(Xt, yt)),
                "n_support": int(est.support_.size), "same_model": _same(est, reference),
                "task_seconds": est.task_seconds_.tolist(),
                "task_seconds_sum": float(est.task_seconds_.sum()),
                "task_seconds_max": float(est.task_seconds_.max()),
                "task_bytes_sum": int(est.task_bytes_.sum()),
                "transfer_seconds": moving, "compute_seconds": computing,
                "transferred_bytes": int(moved),
            }
            if workers == 2:
                linear = {"rounds": QUICK_LINEAR_ROUNDS if quick else LINEAR_ROUNDS,
                          "seconds_per_round": _linear_rounds(
                              client, X, y, QUICK_LINEAR_ROUNDS if quick else LINEAR_ROUNDS)}
        print(f"{key}: {runs[key]['seconds']['median']:.2f} s", file=sys.stderr, flush=True)
    one = runs["dask-1-worker"]
    outside = one["seconds"]["median"] - one["task_seconds_sum"]
    base = runs["memory-1-thread"]["seconds"]["median"]
    projection = [{"workers": w, "seconds": project(one["task_seconds"], w, outside),
                   "speedup_vs_1_thread": base / project(one["task_seconds"], w, outside)}
                  for w in PROJECTED_WORKERS]
    return {"dataset": name, "mode": "problems", "n_train": n, "n_features": X.shape[1],
            "n_classes": 10, "n_problems": len(one["task_seconds"]), "C": C, "gamma": gamma,
            "runs": runs, "linear_backend": linear, "driver_outside_tasks_seconds": outside,
            "projection": projection}


class _Echo:
    """An actor that answers at once: the round trip of a call, measured."""

    def echo(self, value):
        return value


def _actor_latency(client, calls=100):
    """Seconds of one round of calls to an actor on every worker (in parallel)."""
    workers = sorted(client.scheduler_info()["workers"])
    actors = [client.submit(_Echo, actor=True, workers=[w]).result() for w in workers]
    for _ in range(10):
        [f.result() for f in [a.echo(0) for a in actors]]
    tic = time.perf_counter()
    for _ in range(calls):
        [f.result() for f in [a.echo(0) for a in actors]]
    return (time.perf_counter() - tic) / calls


def rows_data(name, data_dir, quick):
    """(X, y, X_test, y_test, C) of a binary set of the rows-across-workers table."""
    if name == "fashion-binary":
        X, y, Xt, yt = fashion_mnist_binary()
        C_ = 10.0
    else:
        X, y, Xt, yt, _, _ = linear_data("ijcnn1", data_dir)
        X, Xt, C_ = X.toarray(), Xt.toarray(), 1.0
    n = ROW_SETS[name][1] if quick else X.shape[0]
    return X[:n], y[:n], Xt, yt, C_


def _bench_rows(name, data_dir, repeats, quick):
    """One binary problem, its rows across 2 (and 4) workers, against the in-memory fit."""
    from pegasos.dask_svc import DaskDualSVC

    X, y, Xt, yt, C_ = rows_data(name, data_dir, quick)
    n = X.shape[0]
    gamma = 1.0 / (X.shape[1] * X.var())
    params = dict(C=C_, gamma=gamma)
    runs, reference = _memory_runs(X, y, Xt, yt, params, repeats)
    chunk = -(-n // 8)
    for workers in (2, 4):
        key = f"dask-{workers}-workers"
        stack, client = _cluster(workers)
        with stack:
            Xd, yd = _on_workers(client, X, chunk), _on_workers(client, y, chunk)
            DaskDualSVC(**params, scheduler=client).fit(Xd[:2000], yd[:2000])  # warm-up
            times, accounts = [], []
            for _ in range(repeats):
                tic = time.perf_counter()
                est = DaskDualSVC(**params, distribute="rows", scheduler=client).fit(Xd, yd)
                times.append(time.perf_counter() - tic)
                accounts.append(est.across_)
            latency = _actor_latency(client)
        middle = accounts[int(np.argsort(times)[len(times) // 2])]
        runs[key] = {"seconds": spread(times), "accuracy": float(est.score(Xt, yt)),
                     "n_support": int(est.support_.size), "same_model": _same(est, reference),
                     "n_iter": middle["n_iter"], "account": middle,
                     "wall_of_account": float(np.median(times)), "call_latency": latency}
        print(f"{key}: {runs[key]['seconds']['median']:.2f} s", file=sys.stderr, flush=True)
    return {"dataset": name, "mode": "rows", "n_train": n, "n_features": X.shape[1], "C": C_,
            "gamma": gamma, "runs": runs, "projection": rows_projection(runs, n)}


#: Rows and workers of the rows-across-workers projection.
PROJECTED_ROWS = (100_000, 1_000_000, 10_000_000)
PROJECTED_ROW_WORKERS = (4, 16, 64)


def per_iteration(run):
    """A distributed fit's account per iteration: the driver's own seconds in the
    iterations, the workers' compute (all workers together), the time lost to calls
    (waiting beyond the busiest worker), bytes sent to each worker and received from
    all; and the fit's seconds outside the iterations (``setup``: labels, chunks to
    holders, the model)."""
    a, iters = run["account"], max(run["account"]["n_iter"], 1)
    busy = a["busy_seconds"] or [0.0]
    return {"driver": (a["solver_seconds"] - a["waiting_seconds"]) / iters,
            "setup": run["wall_of_account"] - a["solver_seconds"],
            "compute": sum(busy) / iters,
            "calls": max(a["waiting_seconds"] - max(busy), 0.0) / iters,
            "sent_per_worker": a["bytes_sent"] / iters / a["holders"],
            "received": a["bytes_received"] / iters}


def rows_projection(runs, n):
    """Each iteration on W workers and N rows, from the 2-worker run's account: the
    driver's seconds d (selection, subproblem: independent of N and W at fixed q), the
    workers' compute c for these n rows (kernel columns and gradients, linear in the
    rows at fixed q) split W ways, and the calls: 3 rounds of the measured latency L
    plus the bytes at the rate the 2-worker run moved them (B = its bytes over its call
    time beyond 3 L); the bytes sent grow with W (the new rows go to every worker), the
    block received does not.  Speed-up against one thread in memory, its measured time
    per iteration scaled to N rows whole (its selection and subproblem too: generous to
    it), while c, scaled, keeps the workers' own per-call costs (generous to it too)."""
    two = runs["dask-2-workers"]
    it = per_iteration(two)
    latency = two["call_latency"]
    moved = 2 * it["sent_per_worker"] + it["received"]
    rate = moved / max(it["calls"] - 3 * latency, 1e-6)
    one = runs["memory-1-thread"]
    memory = one["seconds"]["median"] / max(one["n_iter"], 1)
    out = []
    for rows in PROJECTED_ROWS:
        scale = rows / n
        for w in PROJECTED_ROW_WORKERS:
            calls = 3 * latency + (w * it["sent_per_worker"] + it["received"]) / rate
            seconds = it["driver"] + calls + it["compute"] * scale / w
            alone = memory * scale
            out.append({"rows": rows, "workers": w, "seconds_per_iteration": seconds,
                        "speedup_vs_1_thread": alone / seconds})
    return {"driver": it["driver"], "compute": it["compute"], "calls": it["calls"],
            "latency": latency, "rate": rate, "memory_per_iteration": memory,
            "table": out}


def markdown(result):
    env = result["environment"]
    lines = ["# Kernel SVMs on Dask (`DaskDualSVC`)", "",
             "Generated by `python -m benchmarks.dask_kernel`. Times: median (min-max) of "
             f"{env['repeats']} fits, one process, LocalCluster workers of one thread each, "
             "started, warmed up and holding the data before the timings. The in-memory "
             "fits run with Numba's threads and BLAS at 1 or 2.", ""]
    for ds in result["datasets"]:
        (_problems_markdown if ds["mode"] == "problems" else _rows_markdown)(ds, lines)
    lines += environment_markdown(env)
    return "\n".join(lines) + "\n"


def _fits_table(ds, lines):
    runs = ds["runs"]
    one_thread = runs["memory-1-thread"]["seconds"]["median"]
    two_threads = runs["memory-2-threads"]["seconds"]["median"]
    lines += ["| fit | seconds | x the 1-thread fit | x the 2-thread fit | accuracy | "
              "support vectors | model = in-memory's |", "|---|---:|---:|---:|---:|---:|---|"]
    for key, r in runs.items():
        s = r["seconds"]
        lines.append(
            f"| {key} | {s['median']:.2f} ({s['min']:.2f}-{s['max']:.2f}) | "
            f"{one_thread / s['median']:.2f}x | {two_threads / s['median']:.2f}x | "
            f"{100 * r['accuracy']:.2f}% | {r['n_support']} | "
            f"{'bit for bit' if r.get('same_model', True) else 'NO'} |")


def _problems_markdown(ds, lines):
    runs = ds["runs"]
    one_thread = runs["memory-1-thread"]["seconds"]["median"]
    lines += [f"## Problems as tasks: Fashion-MNIST, {ds['n_train']:,} rows, "
              f"{ds['n_classes']} classes ({ds['n_problems']} problems), C = {ds['C']:g}, "
              f"gamma = {ds['gamma']:.6g}", ""]
    _fits_table(ds, lines)
    lines += ["", "| distributed fit | problems' time on workers (sum, largest) | rows read "
              "by the problems | moved between workers (time, bytes) | computing (task "
              "stream) |", "|---|---:|---:|---:|---:|"]
    for key, r in runs.items():
        if key.startswith("dask"):
            lines.append(
                f"| {key} | {r['task_seconds_sum']:.2f} s, {r['task_seconds_max']:.2f} s | "
                f"{r['task_bytes_sum'] / 1e6:.0f} MB | {r['transfer_seconds']:.2f} s, "
                f"{r['transferred_bytes'] / 1e6:.0f} MB | {r['compute_seconds']:.2f} s |")
    lin = ds["linear_backend"]
    per_problem = ds["driver_outside_tasks_seconds"] / ds["n_problems"]
    lines += ["", f"Overheads: the linear backend's mini-batch round on the 2-worker "
              f"cluster costs {1e3 * lin['seconds_per_round']:.0f} ms "
              f"({lin['rounds']} rounds, 10 one-vs-rest problems a round); this backend's "
              f"driver spends {ds['driver_outside_tasks_seconds']:.2f} s outside the "
              f"problems' tasks on one worker ({1e3 * per_problem:.0f} ms a problem: "
              "labels, targets, the class blocks, gathering the support vectors, the "
              "model).", "",
              "### Projection to more workers", "",
              "From the one-worker run: each problem's time t_p on its worker, the "
              "problems taken largest first by the first free worker (Dask's priorities), "
              f"projected time = that schedule's longest worker + the driver's "
              f"{ds['driver_outside_tasks_seconds']:.2f} s outside the tasks; speed-up "
              f"against the in-memory one-thread fit ({one_thread:.2f} s). With "
              f"{ds['n_problems']} problems the speed-up stops at the sum of t_p over the "
              "largest (no problem is split; for that, rows across workers).",
              "", "| workers | projected seconds | speed-up |", "|---:|---:|---:|"]
    for p in ds["projection"]:
        lines.append(f"| {p['workers']} | {p['seconds']:.2f} | "
                     f"{p['speedup_vs_1_thread']:.2f}x |")
    measured = runs["dask-2-workers"]["seconds"]["median"]
    projected = next(p["seconds"] for p in ds["projection"] if p["workers"] == 2)
    lines += ["", f"Check: 2 workers measured {measured:.2f} s, projected {projected:.2f} s "
              f"({measured / projected:.2f}x). 4 workers on this machine's 2 cores "
              f"measured {runs['dask-4-workers']['seconds']['median']:.2f} s (overhead, "
              "not speed).", ""]


def _rows_markdown(ds, lines):
    runs, proj = ds["runs"], ds["projection"]
    lines += [f"## Rows across workers: {ROW_SETS[ds['dataset']][0]}, {ds['n_train']:,} rows "
              f"x {ds['n_features']}, C = {ds['C']:g}, gamma = {ds['gamma']:.6g}", ""]
    _fits_table(ds, lines)
    lines += ["", "| distributed fit | iterations | outside the iterations | driver's own "
              "s/it | workers' compute s/it (all) | lost to calls s/it | call round trip | "
              "sent to each worker /it | received /it |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for key, r in runs.items():
        if key.startswith("dask"):
            it = per_iteration(r)
            lines.append(
                f"| {key} | {r['n_iter']} | {it['setup']:.2f} s | {1e3 * it['driver']:.1f} ms | "
                f"{1e3 * it['compute']:.1f} ms | {1e3 * it['calls']:.1f} ms | "
                f"{1e3 * r['call_latency']:.1f} ms | {it['sent_per_worker'] / 1e6:.2f} MB | "
                f"{it['received'] / 1e6:.2f} MB |")
    lines += ["", "### Projection", "",
              "Per iteration on W workers and N rows (the iterations are the in-memory "
              "solver's, whatever W): the driver's own "
              f"d = {1e3 * proj['driver']:.1f} ms (selection and the q x q subproblem: "
              "independent of N and W), the workers' compute c = "
              f"{1e3 * proj['compute']:.1f} ms for these {ds['n_train']:,} rows (kernel "
              "columns, gradients: linear in the rows at fixed q) times N/n over W, and "
              f"the calls: 3 round trips of {1e3 * proj['latency']:.1f} ms plus the bytes "
              f"(sent: the new rows to each of the W workers; received: the q x q block) "
              f"at the 2-worker run's {proj['rate'] / 1e6:.0f} MB/s. One thread in memory: "
              f"{1e3 * proj['memory_per_iteration']:.1f} ms an iteration here, times N/n "
              "(all of it scaled, its selection and subproblem too, while c keeps the "
              "workers' fixed costs per call: both err against the distributed fit). "
              "4 workers measured on this machine's 2 cores: overhead, not speed.", "",
              "| rows | workers | projected s/iteration | speed-up against one thread |",
              "|---:|---:|---:|---:|"]
    for p in proj["table"]:
        lines.append(f"| {p['rows']:,} | {p['workers']} | {p['seconds_per_iteration']:.3f} | "
                     f"{p['speedup_vs_1_thread']:.1f}x |")
    lines.append("")


def main(argv=None):
    return run_part(argv, doc=__doc__, stem="dask_kernel", datasets=DATASETS, bench=bench,
                    markdown=markdown, quick_help=f"{QUICK_ROWS:,} rows")


if __name__ == "__main__":
    sys.exit(main())
