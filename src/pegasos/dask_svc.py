"""SVC's model on a Dask cluster: :class:`DaskDualSVC`.

A :class:`~pegasos.DualSVC` fit is a set of binary problems: one per pair of
classes (one-vs-one, SVC's), or one per class (one-vs-rest), or the one
problem of two classes.  Given a dask array, :class:`DaskDualSVC` spreads
them over ``dask.distributed`` workers in one of two ways (``distribute``):

**Problems as tasks** (``"problems"``; the default for more than two
classes): each problem is solved in a task on a worker, by the in-memory
solver.

- The rows stay on the workers.  Each chunk of X gives the rows of each class
  (one small task per chunk and class), gathered into one block per class on
  a worker; a pair's task takes its two classes' blocks (Dask moves a block to
  the worker that lacks it, once while it is held there) and puts their rows
  back in training order, so that the problem is the in-memory fit's, row for
  row.  One-vs-rest problems take every row.
- The driver holds the labels (and the sample weights): it builds each
  problem's targets and bounds, as the in-memory fit does, and sends them with
  the task.  It receives each problem's dual variables, intercept and
  counts, and assembles SVC's model (support vectors gathered from the
  workers, ``dual_coef_``, intercepts) with the in-memory fit's own code.
- The largest problems start first (Dask's task priority), so that the
  slowest does not start last.
- Each task runs the engine on as many threads as its worker has
  (``threads_per_worker``), BLAS at one.

**Rows across workers** (``"rows"``; the default for two classes, and
possible for ``multi_class="ovr"``): one problem on all rows, its rows, dual
variables, gradients and kernel columns split between the workers (one
actor each, holding consecutive chunks), the selection and the q x q
subproblem on the driver (:mod:`pegasos._solvers.across`): per iteration the
workers propose their most violating rows, the driver merges them by the
in-memory rule, gathers the new rows of the working set (q/4 rows of d
values) and sends them to every worker, which computes their kernel columns
for its rows and returns its rows of the working set's block; the driver
solves the subproblem and sends its step, and each worker updates its
gradients.  A problem larger than one worker's memory fits in theirs.

Either way the model is the in-memory fit's, bit for bit, where the problems
are the same (with ``gamma`` given: ``gamma="scale"`` is resolved from each
chunk's moments, within rounding of NumPy's variance of the whole): the pairs
of a one-vs-one fit, and a problem on all rows across workers (the same
iterates).  One-vs-rest problems as tasks, solved jointly in memory (shared
working sets), each equal the in-memory binary fit of their class against
the rest.

A worker lost during a fit: Dask computes the tasks of problems again
elsewhere from their inputs (the solver is deterministic: the same model);
rows that cannot be computed again (scattered from this process, and lost
with the worker), a task that kills its worker again and again (out of
memory), and a worker lost with rows of a problem across workers end the
fit with a :class:`LostRowsError` that says so.

Dask is an optional dependency: ``pip install "pegasos[dask]"``.
"""

import contextlib
import copy
import threading
import time
import uuid
from typing import NamedTuple

import numba
import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import check_classification_targets

from ._base import check_two_classes, check_weighted_classes
from ._dask import (
    CLUSTER_CONSTRAINTS,
    ParallelPostFit,
    checked_rows,
    dask_labels,
    dask_rows,
    fit_client,
    is_dask,
    to_workers,
    with_local_parameters,
)
from ._dual import Cut, Problem, say, solve, training_coef, working_set_plan
from ._heap import held_heap
from ._kernel_base import _kernel_args
from ._rows import COMPACT_ROW_BYTES, as_rows, compact_columns, stack_rows
from ._sklearn_private import StrOptions, _fit_context
from ._solvers.across import Partition, plan_rows, run_across
from ._solvers.gram import use_gram
from ._solvers.problems import hard_margin
from ._solvers.report import Report
from ._solvers.working_set import Arena
from .svc import DualSVC

__all__ = ["DaskDualSVC", "LostRowsError"]


class _Spread(NamedTuple):
    """What ``gamma="scale"`` reads of X: its shape and the variance of its values."""

    shape: tuple
    variance: float

    def var(self, dtype=None):
        return self.variance


def _moments(block):
    """(values, mean, sum of squared deviations) of one chunk's values (its implicit
    zeros counted), in float64."""
    count = block.shape[0] * block.shape[1]
    if count == 0:
        return 0, 0.0, 0.0
    if sp.issparse(block):
        mean = float(block.sum(dtype=np.float64)) / count
        return count, mean, max(float(block.multiply(block).sum(dtype=np.float64))
                                - count * mean * mean, 0.0)
    values = np.asarray(block, dtype=np.float64)
    mean = float(values.mean())
    return count, mean, float(((values - mean) ** 2).sum())


def _pooled_variance(moments):
    """The variance of all values from the chunks' :func:`_moments` (Chan et al.'s
    pairwise update)."""
    n, mean, m2 = 0, 0.0, 0.0
    for count, mean_b, m2_b in moments:
        if count:
            total = n + count
            delta = mean_b - mean
            mean += delta * count / total
            m2 += m2_b + delta * delta * n * count / total
            n = total
    return m2 / n if n else 0.0


# --- tasks that run on the workers (module level: picklable) ---------------


def _take(block, rows):
    """The rows ``rows`` (local numbers) of one chunk."""
    return block[rows]


def _stack(*blocks):
    """The blocks' rows, one after another (CSR if they are)."""
    blocks = [b for b in blocks if b.shape[0]] or list(blocks[:1])
    if len(blocks) == 1:
        return blocks[0]
    return stack_rows(blocks) if sp.issparse(blocks[0]) else np.concatenate(blocks)


def _training_matrix(est, X):
    """A small training set's squared norms and kernel matrix, as the in-memory fit
    computes them (:meth:`~pegasos._kernel_base._KernelModel._prepare`)."""
    rows, sqnorm, _, gram = est._rows_of(X, with_gram=True)
    return sqnorm, gram


class _Task(NamedTuple):
    """What the driver sends with a problem: the targets, labels and bounds of its rows
    (:class:`~pegasos._dual.Cut`'s), the rows' numbers in the training set (None: all),
    the training set's size, the order that puts the blocks' rows back in training
    order (None: they are), and the problem's number and count."""

    labels: np.ndarray
    Y: np.ndarray
    bounds: np.ndarray
    keep: object
    n_total: int
    order: object
    problem: int
    n_problems: int


def _in_order(blocks, order):
    """The blocks' rows, one after another, then taken in ``order`` (None: as they are):
    one copy of the dense rows (each block's rows written to their places)."""
    if order is None:
        return _stack(*blocks)
    if sp.issparse(blocks[0]):
        return _stack(*blocks)[order]
    place = np.empty_like(order)
    place[order] = np.arange(order.size)
    out = np.empty((order.size, blocks[0].shape[1]), blocks[0].dtype)
    at = 0
    for block in blocks:
        out[place[at:at + block.shape[0]]] = block
        at += block.shape[0]
    return out


#: The worker threads' :class:`~pegasos._solvers.working_set.Arena`, by (fit, thread):
#: the problems of one fit that a thread solves one after another keep their columns in
#: one memory, as the in-memory fit's do; the driver drops a fit's when it ends.
_ARENAS = {}
_ARENAS_LOCK = threading.Lock()


def _arena(fit):
    """This thread's arena for the fit ``fit`` (its tag)."""
    with _ARENAS_LOCK:
        return _ARENAS.setdefault((fit, threading.get_ident()), Arena())


def _drop_arenas(fit):
    """Free this worker's arenas of the fit ``fit`` (run on every worker when it ends)."""
    with _ARENAS_LOCK:
        for key in [key for key in _ARENAS if key[0] == fit]:
            del _ARENAS[key]


def _solve_task(est, task, blocks, gram, fit):
    """One problem on a worker: its rows from ``blocks`` (in training order), prepared
    as in memory, solved by :func:`~pegasos._dual.solve` on the worker's
    threads.  ``gram``: the small training set's (squared norms, kernel matrix), or
    None; ``fit``: the fit's tag, whose arena (:func:`_arena`) keeps the columns.
    Returns (the result, its kernel evaluations, its probability sigmoid or None, the
    worker's seconds, the bytes of its rows)."""
    from distributed import get_worker  # (Dask: an optional dependency)

    tic = time.perf_counter()
    est = copy.copy(est)  # (the worker's tasks share the object: each its own sigmoids)
    X = _in_order(blocks, task.order)
    if gram is None:
        rows, sqnorm, _, _ = est._rows_of(X, with_gram=False)
        matrix = None
    else:
        (compact,) = compact_columns(X)
        rows, matrix = as_rows(compact, X.dtype), (gram[1], task.keep)
        sqnorm = gram[0] if task.keep is None else gram[0][task.keep]
    cut = Cut(X, task.labels, task.Y, task.bounds, rows, sqnorm, matrix, task.keep,
              task.n_total)
    before = numba.get_num_threads()
    numba.set_num_threads(max(1, min(get_worker().state.nthreads,
                                     numba.config.NUMBA_NUM_THREADS)))
    try:
        est._sigmoids = {} if est.probability else None
        with held_heap():
            result, cost = solve(est, cut, (task.problem, task.n_problems, 0.0), _arena(fit))
    finally:
        numba.set_num_threads(before)
    sigmoid = None if est._sigmoids is None else est._sigmoids.get(task.problem)
    nbytes = (X.data.nbytes + X.indices.nbytes + X.indptr.nbytes) if sp.issparse(X) else X.nbytes
    return result, cost, sigmoid, time.perf_counter() - tic, nbytes


class _Holder:
    """A worker's rows of one problem solved across workers (``distribute="rows"``): a
    Dask actor around :class:`~pegasos._solvers.across.Partition`, whose calls run on the
    worker's threads with its heap kept (:func:`~pegasos._heap.held_heap`) until
    :meth:`close`, their time counted."""

    def __init__(self, chunks, rows, Y, C, kern, slots, used, threads):
        X = _stack(*chunks)
        if used is not None:  # (wide CSR rows: the training set's used columns, as in memory)
            X = sp.csr_matrix((X.data, np.searchsorted(used, X.indices).astype(X.indices.dtype),
                               X.indptr), shape=(X.shape[0], max(used.size, 1)))
        self.part = Partition(X, rows, Y, C, kern, slots)
        self.threads, self.busy = threads, 0.0
        self.heap = contextlib.ExitStack()
        self.heap.enter_context(held_heap())

    def _run(self, name, *args):
        tic = time.perf_counter()
        before = numba.get_num_threads()
        numba.set_num_threads(max(1, min(self.threads, numba.config.NUMBA_NUM_THREADS)))
        try:
            return getattr(self.part, name)(*args)
        finally:
            numba.set_num_threads(before)
            self.busy += time.perf_counter() - tic

    def step(self, *args):
        return self._run("step", *args)

    def vectors(self, *args):
        return self._run("vectors", *args)

    def fill(self, *args):
        return self._run("fill", *args)

    def gradients(self, *args):
        return self._run("gradients", *args)

    def close(self):
        """Let go of the heap; the seconds this holder's calls took."""
        self.heap.close()
        return self.busy


def _used_columns(block):
    return np.unique(block.indices[:block.indptr[-1]]) if sp.issparse(block) else None


def _lost_holder(exc):
    return LostRowsError(
        f"a Dask worker holding rows of the problem was lost, or failed, in the middle of "
        f"the fit ({type(exc).__name__}: {exc}); the rows spread over the workers "
        "(distribute='rows') do not survive it: fit again.")


class _Counted:
    """Calls to a holder, the bytes of their arguments counted (``stats``); a holder lost
    when called (Dask refuses the call at once) is a :class:`LostRowsError`, as one lost
    while its answer is awaited."""

    def __init__(self, actor, stats):
        self.actor, self.stats = actor, stats

    def __getattr__(self, name):
        from dask.sizeof import sizeof  # (Dask: an optional dependency)

        def call(*args):
            self.stats["bytes_sent"] += sizeof(args)
            try:
                return getattr(self.actor, name)(*args)
            except Exception as exc:  # noqa: BLE001 - any loss of a holder ends the fit
                raise _lost_holder(exc) from exc

        return call


# --- the estimator ---------------------------------------------------------------


class LostRowsError(RuntimeError):
    """A distributed fit lost rows, or a task, that it cannot compute again.

    Raised by :meth:`DaskDualSVC.fit` when a worker died with rows scattered
    from the driver, or with rows of a problem spread across workers
    (``distribute="rows"``), or when a problem's task killed its worker each
    time it ran (out of memory); never a model.

    See Also
    --------
    DaskDualSVC : The estimator whose fit raises it.

    Examples
    --------
    >>> from pegasos.dask_svc import LostRowsError
    >>> issubclass(LostRowsError, RuntimeError)
    True
    """


@with_local_parameters()
class DaskDualSVC(ParallelPostFit, DualSVC):
    """:class:`~pegasos.DualSVC` across a Dask cluster: its problems as tasks, or rows.

    With NumPy/SciPy input it is exactly :class:`~pegasos.DualSVC`.  With a
    dask array ``X`` (row chunks, dense or CSR; all columns in one chunk) and
    labels ``y`` (a dask array chunked like X's rows, or in memory), :meth:`fit`
    runs on ``dask.distributed``: each pair of classes (or each class, with
    ``multi_class="ovr"``) is solved in a task on a worker, next to its rows,
    the largest first; the problem of two classes has its rows spread over the
    workers; see the module docstring.  The model is the in-memory fit's,
    saved and loaded as any :class:`~pegasos.DualSVC`'s.  Callable and
    precomputed kernels, and ``probability=True`` with ``multi_class="ovr"``
    (whose sigmoids refit folds of all rows), are not supported with dask
    input.

    Parameters
    ----------
    __LOCAL_PARAMETERS__
    distribute : {"auto", "problems", "rows"}, default="auto"
        How a fit on a dask array is spread: ``"problems"``, each problem a
        task; ``"rows"``, one problem on all rows (two classes, or
        ``multi_class="ovr"``'s problems together) with its rows, dual
        variables and kernel columns split between the workers (without
        ``probability``, ``start_epochs`` or an infinite C); ``"auto"``, rows
        for two classes (problems with those options), else problems.
    scheduler : str or distributed.Client, default=None
        Where to run: a ``Client`` object, or the address of a running Dask
        scheduler (``"tcp://host:8786"``).  None uses the active client (the
        last ``Client`` created in this process) when there is one, and
        otherwise starts a ``LocalCluster`` of ``n_workers`` processes of one
        thread each for the fit and closes it afterwards.
    n_workers : int, default=2
        Workers of the local cluster (only when there is no client).

    Attributes
    ----------
    As :class:`~pegasos.DualSVC`, plus, after a distributed fit,
    ``n_partitions_`` (X's chunks) and ``distribute_`` (how it was spread);
    with problems as tasks ``task_seconds_`` (each problem's time on its
    worker, putting its rows together included) and ``task_bytes_`` (the
    bytes of each problem's rows: what its task reads, local or moved); with
    rows across workers ``across_``, a dict: the workers' rows, the
    iterations, the solver's seconds (its iterations), the bytes the driver
    sent and received, its seconds waiting for the workers and each worker's
    seconds computing.

    See Also
    --------
    DualSVC : The in-memory estimator it extends.
    pegasos.dask_backend.DaskPegasosClassifier : Linear Pegasos on a Dask cluster.

    Notes
    -----
    :meth:`predict`, :meth:`decision_function` and :meth:`predict_proba`
    given a dask array return dask arrays, computed chunk by chunk where the
    data lives.  The ``callback`` receives one report per problem, when its
    task ends, with ``client`` set.

    Examples
    --------
    >>> import dask.array as da
    >>> from distributed import Client, LocalCluster
    >>> from sklearn.datasets import load_digits
    >>> from pegasos.dask_svc import DaskDualSVC
    >>> X, y = load_digits(return_X_y=True)
    >>> Xd, yd = da.from_array(X / 16, chunks=(600, -1)), da.from_array(y, chunks=600)
    >>> with LocalCluster(n_workers=2, processes=False, dashboard_address=":0") as cluster, \\
    ...         Client(cluster) as client:
    ...     clf = DaskDualSVC(C=10).fit(Xd, yd)
    ...     accuracy = float((clf.predict(Xd) == yd).mean().compute())
    >>> accuracy
    1.0
    """

    _parameter_constraints: dict = {
        **DualSVC._parameter_constraints,
        "distribute": [StrOptions({"auto", "problems", "rows"})],
        **CLUSTER_CONSTRAINTS,
    }

    #: The in-memory estimator whose model it fits (:class:`~pegasos._dask.ParallelPostFit`).
    _local_class = DualSVC

    def __init__(
        self, C=1.0, *, kernel="rbf", gamma="scale", coef0=0.0, degree=3, tol=1e-3,
        max_iter=-1, working_set_size=1024, cache_size=200.0, shrinking=True, verbose=False,
        class_weight=None, multi_class="ovo", decision_function_shape="ovr", break_ties=False,
        start_epochs=0.0, probability=False, random_state=None, callback=None,
        distribute="auto", scheduler=None, n_workers=2,
    ):
        super().__init__(
            C, kernel=kernel, gamma=gamma, coef0=coef0, degree=degree, tol=tol,
            max_iter=max_iter, working_set_size=working_set_size, cache_size=cache_size,
            shrinking=shrinking, verbose=verbose, class_weight=class_weight,
            multi_class=multi_class, decision_function_shape=decision_function_shape,
            break_ties=break_ties, start_epochs=start_epochs, probability=probability,
            random_state=random_state, callback=callback)
        self.distribute = distribute
        self.scheduler = scheduler
        self.n_workers = n_workers

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit on in-memory data (as DualSVC), or on a dask array, problem by problem.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
            Training rows; a dask array in row chunks (all columns in one),
            dense or of CSR chunks, float64 or float32.
        y : array-like or dask array of shape (n_samples,)
            Labels; a dask array chunked like X's rows, or in memory.
        sample_weight : array-like or dask array of shape (n_samples,), default=None
            Per-sample weights (rescale C per sample, as in SVC).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        if not (is_dask(X) or is_dask(y) or is_dask(sample_weight)):
            for name in ("n_partitions_", "task_seconds_", "task_bytes_", "distribute_",
                         "across_"):
                self.__dict__.pop(name, None)
            return super().fit(X, y, sample_weight)
        X = dask_rows(X)
        self._refuse_unsupported()
        # (the client is current in this thread for the fit: the actors' handles and
        # as_completed find it there, whichever client it is)
        with fit_client(self.scheduler, self.n_workers) as client:
            return self._fit_distributed(client, X, y, sample_weight)

    def _refuse_unsupported(self):
        """A ValueError for an option a fit on dask input lacks."""
        if callable(self.kernel) or self.kernel == "precomputed":
            raise ValueError(f"kernel={self.kernel!r} is not supported with dask input: the "
                             "workers compute the kernel from the rows (use in-memory data).")
        if self.probability and self.multi_class != "ovo":
            raise ValueError("probability=True with multi_class='ovr' refits 5 folds of all "
                             "the rows (Platt's); with dask input use multi_class='ovo' "
                             "(LIBSVM's probabilities, fitted with each problem on its "
                             "worker), or in-memory data.")

    def _fit_distributed(self, client, X, y, sample_weight):
        """The fit on the workers: labels and weights to the driver, the rows checked
        on the workers, the problems' tasks, the model assembled here."""
        self.__dict__.pop("tie_order_", None)
        dtype = np.float32 if X.dtype == np.float32 else np.float64
        parts = to_workers(client, X.map_blocks(checked_rows, dtype, dtype=dtype,
                                                 meta=X._meta.astype(dtype)))
        y = self._labels(client, y, X)
        n, d = X.shape
        if sample_weight is not None and is_dask(sample_weight):
            sample_weight = client.compute(sample_weight).result()
        classes = np.unique(y)
        check_two_classes(classes)
        self._check_memory(n, len(classes))
        self.classes_ = classes
        self.n_features_in_ = d
        spread = _Spread((n, d), 1.0)
        if self.gamma == "scale":
            moments = client.gather([client.submit(_moments, p, pure=False) for p in parts])
            spread = _Spread((n, d), _pooled_variance(moments))
        self.gamma_ = _kernel_args(self.kernel, self.gamma, self.coef0, self.degree, spread).gamma
        training = _TrainingRows(client, parts, np.asarray(X.chunks[0], np.int64), (n, d), dtype,
                                 X._meta)
        bounds = self._bounds(np.empty((n, 0)), y, sample_weight)
        check_weighted_classes(y, bounds)
        problems = self._split(y)
        self.distribute_ = self._mode(problems)
        if self.distribute_ == "problems" and problems[0].Y.shape[1] > 1:
            # one-vs-rest: each class a task of its own
            problems = [Problem(None, problems[0].Y[:, [c]]) for c in range(len(classes))]
        self._keep_sigmoids(len(problems))
        if self.distribute_ == "rows":
            solved, evals = self._run_across(client, training, y, bounds, problems)
        else:
            solved, evals = self._run_tasks(client, training, y, bounds, problems)
        self.n_partitions_ = len(parts)
        return self._finish(training, y, sample_weight, bounds, problems, solved, evals)

    def _labels(self, client, y, X):
        """The labels on the driver, checked against X's rows."""
        if is_dask(y):
            y = client.compute(dask_labels(y)).result()
        y = np.asarray(y)
        if y.ndim != 1 or len(y) != X.shape[0]:
            raise ValueError(f"y must be 1-D with one label per row of X; got shape "
                             f"{list(y.shape)} for {X.shape[0]} rows.")
        check_classification_targets(y)
        return y

    def _mode(self, problems):
        """"problems" or "rows" (``distribute``'s "auto": rows for the binary problem, unless
        it asks for what rows across workers lack), checked."""
        on_all_rows = problems[0].keep is None
        unsupported = [name for name, used in (("probability=True", self.probability),
                                               ("start_epochs > 0", self.start_epochs > 0),
                                               ("C=inf", hard_margin(self.C))) if used]
        if self.distribute == "auto":
            return ("rows" if on_all_rows and problems[0].Y.shape[1] == 1 and not unsupported
                    else "problems")
        if self.distribute == "rows":
            if not on_all_rows:
                raise ValueError(
                    "distribute='rows' spreads the rows of problems on all rows: two classes, "
                    "or multi_class='ovr'; one-vs-one pairs are distributed as tasks "
                    "(distribute='problems' or 'auto').")
            if unsupported:
                raise ValueError(f"{unsupported[0]} is not supported with distribute='rows' "
                                 "(its rows spread over the workers); use "
                                 "distribute='problems' or in-memory data.")
        return self.distribute

    def _run_across(self, client, training, y, bounds, problems):
        """The one problem on all rows, its rows spread over the workers
        (:func:`~pegasos._solvers.across.run_across`): ([its result], kernel
        evaluations)."""
        Y = problems[0].Y  # (the one problem, on all rows)
        n = len(y)
        plan = working_set_plan(self, n, plan_rows(n), n)
        slots = min(n, plan.q + min(plan.new, plan.q) + plan.cache_rows)
        info = client.scheduler_info()["workers"]
        used = None
        if sp.issparse(training.meta) and 8 * training.shape[1] > COMPACT_ROW_BYTES:
            found = client.gather([client.submit(_used_columns, p, pure=False)
                                   for p in training.parts])
            used = np.unique(np.concatenate(found))
        stats = {"bytes_sent": 0, "bytes_received": 0, "waiting_seconds": 0.0}
        holders, owned = [], []
        for worker, chunks in training.groups(len(info)):
            rows = np.concatenate([np.arange(training.offsets[i], training.offsets[i + 1])
                                   for i in chunks])
            actor = client.submit(_Holder, [training.parts[i] for i in chunks], rows, Y[rows],
                                  bounds[rows], self._kargs, slots, used,
                                  info[worker]["nthreads"], actor=True, workers=[worker],
                                  pure=False).result()
            holders.append(actor)
            owned.append(rows)

        def resolve(futures):
            from dask.sizeof import sizeof  # (Dask: an optional dependency)

            tic = time.perf_counter()
            try:
                out = [f.result() for f in futures]
            except Exception as exc:  # noqa: BLE001 - any loss of a holder ends the fit
                raise _lost_holder(exc) from exc
            stats["waiting_seconds"] += time.perf_counter() - tic
            stats["bytes_received"] += sizeof(out)
            return out

        try:
            result = run_across([_Counted(h, stats) for h in holders], owned, Y, bounds, plan,
                                resolve)
        finally:
            busy = []
            with contextlib.suppress(Exception):
                busy = [h.close().result() for h in holders]
        self.across_ = {**stats, "n_iter": int(result.n_iter), "holders": len(holders),
                        "rows": [int(r.size) for r in owned], "busy_seconds": busy,
                        "solver_seconds": float(result.seconds)}
        if self.verbose:
            say(self, 0, 1, result)
        if self.callback is not None:
            self._report(client, problems, 0, result, result.seconds, n)
        return [result], n + int(result.columns) * n

    def _worker_copy(self):
        """The in-memory estimator the tasks run: these parameters, silent, with
        ``gamma_`` and the probability folds' seed."""
        est = self._as_local(fitted=False).set_params(verbose=False)
        est.gamma_ = self.gamma_
        est._fold_seed = getattr(self, "_fold_seed", 0)
        return est

    def _run_tasks(self, client, training, y, bounds, problems):
        """Every problem's task, the largest first; (results in problem order, kernel
        evaluations)."""
        from distributed import as_completed  # (Dask: an optional dependency)

        n = len(y)
        small = use_gram(n)
        blocks, orders = training.problem_blocks(y, problems)
        # the estimator's copy travels inside each task (a few kB), not scattered: a scattered
        # copy is lost for good once every worker holding it dies, and the tasks needing it
        # are then forgotten, hiding the failure that killed the workers
        est, tag = self._worker_copy(), uuid.uuid4().hex[:8]
        gram = client.submit(_training_matrix, est, training.all_rows(),
                             pure=False) if small else None
        futures = {}
        for p, (keep, Y) in enumerate(problems):
            labels = y if keep is None else (Y[:, 0] > 0).astype(np.int64)
            task = _Task(labels, Y, bounds if keep is None else bounds[keep], keep, n,
                         orders[p], p, len(problems))
            future = client.submit(_solve_task, est, task, blocks[p], gram, tag, pure=False,
                                   key=f"dualsvc-problem-{p}-{tag}", priority=len(Y))
            futures[future] = p
        solved, seconds = [None] * len(problems), np.zeros(len(problems))
        nbytes = np.zeros(len(problems), np.int64)
        evals = n * n if small else n
        tic = time.perf_counter()
        try:
            for future in as_completed(futures, loop=client.loop):
                p = futures[future]
                result, cost, sigmoid, seconds[p], nbytes[p] = _result(future, problems, p,
                                                                       self.classes_)
                solved[p] = result
                evals += cost
                if getattr(self, "_sigmoids", None) is not None:
                    self._sigmoids[p] = sigmoid
                if self.verbose:
                    say(self, p, len(problems), result)
                if self.callback is not None:
                    self._report(client, problems, p, result, time.perf_counter() - tic, n)
        finally:  # (an error: the other problems' tasks stop too)
            client.cancel(list(futures))
            client.run(_drop_arenas, tag, on_error="ignore")
        self.task_seconds_, self.task_bytes_ = seconds, nbytes
        return solved, evals

    def _report(self, client, problems, p, result, seconds, n):
        keep, Y = problems[p]
        coef = training_coef(Y[:, 0] * result.state.a[:, 0], keep, n)
        self.callback(Report(
            problem=p, n_problems=len(problems), t=int(result.n_iter),
            iterations=int(result.problem_steps[0]),
            iterations_total=max(int(self.max_iter), 0),
            seconds=seconds, coef=coef, intercept=float(result.intercept[0]),
            kernel_evals=int(result.columns) * len(Y), client=client))


def _result(future, problems, p, classes):
    """A problem's task's output, or a :class:`LostRowsError` naming it."""
    from distributed.client import FutureCancelledError  # (Dask: an optional dependency)
    from distributed.scheduler import KilledWorker  # (Dask: an optional dependency)

    try:
        return future.result()
    except KilledWorker as exc:
        raise LostRowsError(
            f"problem {p + 1} of {len(problems)} ({_name(problems, p, classes)}) killed its "
            f"Dask worker each time it ran ({exc}): a worker that runs out of memory is "
            "killed by its nanny. Give the workers more memory (memory_limit), or fewer "
            "threads per worker.") from exc
    except FutureCancelledError as exc:
        raise LostRowsError(
            f"problem {p + 1} of {len(problems)} ({_name(problems, p, classes)}) lost its "
            f"rows with a Dask worker ({exc}); {_CANNOT_RECOMPUTE}") from exc


#: Why rows lost with a worker end the fit, and what to do.
_CANNOT_RECOMPUTE = ("rows scattered from this process (a dask array of an in-memory array) "
                     "cannot be computed again: fit again, or build X from a source the "
                     "workers can read again (files, dask.array functions).")


def _name(problems, p, classes):
    if len(problems) == 1:
        return "the binary problem"
    if problems[p].keep is None:
        return f"class {classes[p].item()!r} against the rest"
    k = len(classes)
    i, j = [(i, j) for i in range(k) for j in range(i + 1, k)][p]
    return f"classes {classes[i].item()!r} and {classes[j].item()!r}"


class _TrainingRows:
    """The training rows on the workers, as the driver sees them: their shape, the rows
    of a set of indices gathered here (support vectors), and each problem's blocks."""

    def __init__(self, client, parts, sizes, shape, dtype, meta):
        self.client, self.parts, self.sizes = client, parts, sizes
        self.shape, self.dtype, self.meta = shape, dtype, meta
        self.offsets = np.concatenate([[0], np.cumsum(sizes)])
        self._all = None

    def __len__(self):
        return self.shape[0]

    def __getitem__(self, rows):
        """The rows ``rows`` (training numbers), gathered to the driver."""
        rows = np.asarray(rows, dtype=np.int64)
        order = np.argsort(rows, kind="stable")
        ordered, futures = rows[order], []
        for p, part in enumerate(self.parts):
            lo, hi = np.searchsorted(ordered, self.offsets[p:p + 2])
            futures.append(self.client.submit(_take, part, ordered[lo:hi] - self.offsets[p],
                                              pure=False))
        from distributed.client import FutureCancelledError  # (Dask: an optional dependency)

        try:
            out = _stack(*self.client.gather(futures))
        except FutureCancelledError as exc:  # (a worker died after the problems were solved)
            raise LostRowsError(f"the fit lost its rows with a Dask worker while gathering "
                                f"its support vectors ({exc}); {_CANNOT_RECOMPUTE}") from exc
        return out[np.argsort(order, kind="stable")]

    def groups(self, n_workers):
        """The chunks split into at most ``n_workers`` consecutive groups of about equal
        rows, each with the worker that holds most of its rows (one worker a group):
        [(worker, chunk numbers)]."""
        who = self.client.who_has(self.parts)
        workers = sorted(self.client.scheduler_info()["workers"])
        bounds = np.searchsorted(self.offsets[1:], np.linspace(0, self.shape[0],
                                                              n_workers + 1)[1:-1])
        out, taken = [], set()
        for chunks in np.split(np.arange(len(self.parts)), np.unique(bounds + 1)):
            if not self.sizes[chunks].sum():  # (no rows: no holder)
                continue
            held = {}
            for i in chunks:
                for w in who.get(self.parts[i].key, ()):
                    held[w] = held.get(w, 0) + int(self.sizes[i])
            free = [w for w in sorted(held, key=held.get, reverse=True) if w not in taken]
            worker = free[0] if free else next(w for w in workers if w not in taken)
            taken.add(worker)
            out.append((worker, chunks.tolist()))
        return out

    def all_rows(self):
        """A future of every row, in one block on a worker."""
        if self._all is None:
            self._all = self.client.submit(_stack, *self.parts, pure=False)
        return self._all

    def problem_blocks(self, y, problems):
        """Each problem's blocks (futures) and the order that puts their rows in training
        order (None when they are): one block per class for the pairs of classes, all
        rows for the others."""
        labels = np.searchsorted(np.unique(y), y)
        members, by_class = {}, {}  # each class's training rows, and its block
        blocks, orders = [], []
        for keep, Y in problems:
            if keep is None:
                blocks.append([self.all_rows()])
                orders.append(None)
                continue
            pair = np.unique(labels[keep])
            for c in pair:
                if c not in by_class:
                    members[c] = np.flatnonzero(labels == c)
                    by_class[c] = self._class_block(members[c])
            blocks.append([by_class[c] for c in pair])
            orders.append(np.argsort(np.concatenate([members[c] for c in pair]),
                                     kind="stable"))
        return blocks, orders

    def _class_block(self, rows):
        """A future of the training rows ``rows`` (one class's, increasing) in one block."""
        ends = np.searchsorted(rows, self.offsets)
        takes = [self.client.submit(_take, part, rows[ends[p]:ends[p + 1]] - self.offsets[p],
                                    pure=False)
                 for p, part in enumerate(self.parts) if ends[p + 1] > ends[p]]
        return self.client.submit(_stack, *takes, pure=False)
