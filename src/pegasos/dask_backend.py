"""Scale out: mini-batch Pegasos over the partitions of a Dask array.

:class:`DaskPegasosClassifier` is :class:`~pegasos.PegasosClassifier` that also
accepts dask arrays.  Given one, it trains on a ``dask.distributed`` cluster --
a ``LocalCluster`` started for the fit by default, or the scheduler at
``scheduler`` -- with the data left in the workers' memory:

``mode="minibatch"``: synchronous mini-batch Pegasos rounds, exactly
the paper's Fig. 2 with a global batch of ``batch_size`` examples.  Each round
the driver draws how many of the k examples come from each partition
(multinomial with the partition sizes, from a generator keyed by (seed,
round)), each partition draws its rows (keyed by (seed, round, partition)) and
sums its margin violators' y x with the broadcast w (the Numba kernel
:func:`pegasos._numba.linear.violator_sum`), a tree reduction adds the sums,
and the driver takes the step, projects and averages.  Every random draw is
keyed by round and partition, so a task recomputed after a worker dies draws
the same samples: same seed and chunking, same model, whatever happens to the
workers.  It equals the in-memory mini-batch iteration on the same samples.

``mode="average"`` (default, measured faster): iterative parameter mixing --
each partition runs one
epoch of local Pegasos from the current model (continuing its own step
counter), and the driver averages the partitions' models, weighted by their
sizes.  One round per epoch: few messages, but no longer the paper's
algorithm.

With more than two classes, the one-vs-rest problems share the rounds: a
partition's task in a round serves every problem (each with its own draws,
keyed by its own seed), so a fit takes the rounds of one binary problem, not
one set per class.

LIBSVM shards: ``fit(SVMLightStream("shards/part-*.svm"))`` trains on files
that the workers read themselves, one task per file, each shard (parsed by
:func:`pegasos.stream.read_blocks`, checked as dask chunks are) one partition
held in its worker's memory; the driver receives only each shard's rows, width
and labels, widens every part to the common width on the workers, and runs
either mode as on a dask array chunked one shard a chunk (the same model).
The files must be readable at the same paths on every worker.

Dask is an optional dependency: ``pip install "pegasos[dask]"``.
"""

import math
import os
from dataclasses import replace
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import check_classification_targets

from ._base import binary_targets, budget, check_finite_fit, check_finite_weights, check_two_classes
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
from ._memory import check_memory
from ._rows import as_rows, stack_rows
from ._sklearn_private import StrOptions, _fit_context
from ._solvers import linear as _solver
from ._solvers.linear import PegasosState
from ._solvers.report import Report
from .datasets import DataFormatError
from .linear import STREAM_ATTRIBUTES, PegasosClassifier
from .stream import SVMLightStream, is_cache, load_cache, read_blocks

__all__ = ["DaskPegasosClassifier"]


# --- tasks that run on the workers (module level: picklable) ---------------


def round_counts(seed, round_, sizes, k):
    """How many of round ``round_``'s k examples each partition contributes.

    Examples
    --------
    >>> from pegasos.dask_backend import round_counts
    >>> int(round_counts(seed=0, round_=1, sizes=[100, 300], k=40).sum())
    40
    """
    sizes = np.asarray(sizes, dtype=np.float64)
    return np.random.default_rng([seed, round_]).multinomial(k, sizes / sizes.sum())


def partition_draws(seed, round_, part, n_rows, count):
    """The rows (local indices) partition ``part`` draws in round ``round_``.

    Examples
    --------
    >>> from pegasos.dask_backend import partition_draws
    >>> rows = partition_draws(seed=0, round_=1, part=2, n_rows=100, count=5)
    >>> len(rows), bool((rows < 100).all())
    (5, True)
    """
    rng = np.random.default_rng([seed, round_, part])
    return rng.integers(0, n_rows, size=count, dtype=np.int64)


def _partition_sums(X, y, W, classes, bias_feature, seeds, round_, part, counts):
    """Every binary problem's violators' sum of y x among its ``counts[c]`` rows drawn
    from this partition: (n_problems, d+1), row c problem c's (its targets
    :func:`~pegasos._base.binary_targets` of ``classes``, its draws keyed by
    ``seeds[c]``, its weights ``W[c]``)."""
    rows, out = as_rows(_prepare(X)), np.zeros(W.shape)
    for c, target in enumerate(binary_targets(classes, y)):
        if counts[c]:
            idx = partition_draws(seeds[c], round_, part, X.shape[0], int(counts[c]))
            out[c] = _solver.partition_sum(rows, target, idx, W[c], bias_feature)
    return out


def _local_epochs(X, y, W, classes, t0, lam, bias_feature, radius2, seeds, round_, part):
    """One epoch of local Pegasos on this partition for every binary problem, problem c
    from ``W[c]`` (its draws keyed by ``seeds[c]``); returns (new W, steps per problem)."""
    n, rows, out = X.shape[0], as_rows(_prepare(X)), np.empty(W.shape)
    for c, target in enumerate(binary_targets(classes, y)):
        draws = np.random.default_rng([seeds[c], round_, part]).integers(0, n, size=n,
                                                                          dtype=np.int64)
        out[c] = _solver.local_epoch(rows, target, W[c], t0=t0, lam=lam,
                                     bias_feature=bias_feature, radius2=radius2, draws=draws)
    return out, n


def _add(a, b):
    return a + b


def _prepare(X):
    if sp.issparse(X):
        return sp.csr_matrix(X, dtype=np.float64)
    return np.ascontiguousarray(X, dtype=np.float64)


def _tree_sum(client, futures):
    """Add futures pairwise on the workers, log2(P) levels deep."""
    while len(futures) > 1:
        pairs = [client.submit(_add, a, b) for a, b in zip(futures[::2], futures[1::2])]
        if len(futures) % 2:
            pairs.append(futures[-1])
        futures = pairs
    return futures[0].result()


# --- the estimator -----------------------------------------------------------


#: ``batch_size`` as the distributed modes read it (the rest of PegasosClassifier's
#: parameters are documented as there).
_BATCH_SIZE = """    batch_size : int, default=1
        With ``mode="minibatch"``, the global mini-batch k of each round; set
        it (and ``n_iter``) yourself: a round costs a scheduler round trip
        (~50 ms measured on a LocalCluster), so large k and few rounds, but
        at small lambda Pegasos needs many rounds whatever k (at lambda =
        1e-5, k = 1000 needed ~10,000 rounds on ijcnn1).  The mixing mode
        runs k = 1 locally and ignores it.
"""


@with_local_parameters({"batch_size": _BATCH_SIZE})
class DaskPegasosClassifier(ParallelPostFit, PegasosClassifier):
    """:class:`~pegasos.PegasosClassifier` across a Dask cluster: dask arrays or LIBSVM shards.

    With NumPy/SciPy input (and in :meth:`partial_fit`, which is what
    ``dask_ml.wrappers.Incremental`` calls block by block) it is exactly
    :class:`~pegasos.PegasosClassifier`.  With a dask array ``X`` (row
    chunks; all columns in one chunk) and a dask array ``y`` chunked like
    X's rows, :meth:`fit` runs on ``dask.distributed``; see the module
    docstring for the two modes.  Given a
    :class:`~pegasos.stream.SVMLightStream` instead (and no ``y``), each
    worker reads its shards, one file a partition, and the driver never holds
    the rows.  With either, ``sample_weight``, ``class_weight``,
    ``intercept_mode="unregularized"``, ``init="random"``, ``tol``,
    ``warm_start`` and ``probability=True`` are not supported and raise an
    error.

    Parameters
    ----------
    __LOCAL_PARAMETERS__
    mode : {"average", "minibatch"}, default="average"
        One round of local Pegasos per epoch with model averaging
        (``n_epochs`` rounds; default: 10/lambda examples' worth of epochs),
        or synchronous mini-batch rounds (``n_iter`` rounds of ``batch_size``
        examples; default 10/lambda rounds -- set ``n_iter``).  Measured
        (python -m benchmarks.dask_scaling): each mini-batch round costs ~50 ms of
        scheduling on a LocalCluster, and at lambda = 1e-5 Pegasos with
        k = 1000 needs thousands of rounds, so parameter mixing reaches a
        given test error one to two orders of magnitude sooner; it is the
        default.
    scheduler : str or distributed.Client, default=None
        Where to run: a ``Client`` object, or the address of a running Dask
        scheduler (``"tcp://host:8786"``).  None uses the active client (the
        last ``Client`` created in this process) when there is one, and
        otherwise starts a ``LocalCluster`` of ``n_workers`` processes for
        the fit and closes it afterwards.
    n_workers : int, default=2
        Workers of the local cluster (only when there is no client).

    Attributes
    ----------
    As :class:`~pegasos.PegasosClassifier`, plus ``n_rounds_`` (rounds of
    the last distributed fit) and ``n_partitions_``; after a fit on shards,
    ``n_rows_read_`` (their rows, each read once).

    See Also
    --------
    PegasosClassifier : The in-memory estimator it extends.

    Notes
    -----
    :meth:`predict`, :meth:`decision_function` and (with ``probability=True``,
    after a fit on in-memory data) :meth:`predict_proba` given a dask array
    return dask arrays, computed chunk by chunk where the data lives (as
    dask-ml's ``ParallelPostFit``).

    Examples
    --------
    >>> import dask.array as da
    >>> from distributed import Client, LocalCluster
    >>> from sklearn.datasets import make_classification
    >>> from pegasos.dask_backend import DaskPegasosClassifier
    >>> X, y = make_classification(2_000, 10, random_state=0)
    >>> Xd, yd = da.from_array(X, chunks=(500, -1)), da.from_array(y, chunks=500)
    >>> with LocalCluster(n_workers=2, processes=False, dashboard_address=":0") as cluster, \\
    ...         Client(cluster) as client:
    ...     clf = DaskPegasosClassifier(lam=1e-3, n_epochs=2, random_state=0).fit(Xd, yd)
    ...     labels = clf.predict(Xd)                  # a dask array
    ...     accuracy = float((labels == yd).mean().compute())
    >>> accuracy > 0.8
    True
    """

    _parameter_constraints: dict = {
        **PegasosClassifier._parameter_constraints,
        "mode": [StrOptions({"minibatch", "average"})],
        **CLUSTER_CONSTRAINTS,
    }

    #: The in-memory estimator whose model it fits (:class:`~pegasos._dask.ParallelPostFit`).
    _local_class = PegasosClassifier

    def __init__(
        self, lam=None, *, C=None, n_iter=None, n_epochs=None, batch_size=1, sampling="uniform",
        projection=True, average=0.5, fit_intercept=True, intercept_mode="augment",
        intercept_scaling=1.0, init="zero", tol=None, check_every=2.0, class_weight=None,
        random_state=None, warm_start=False, track_objective=False, n_jobs=None, verbose=0,
        callback=None, probability=False, mode="average", scheduler=None, n_workers=2,
    ):
        super().__init__(
            lam, C=C, n_iter=n_iter, n_epochs=n_epochs, batch_size=batch_size, sampling=sampling,
            projection=projection, average=average, fit_intercept=fit_intercept,
            intercept_mode=intercept_mode, intercept_scaling=intercept_scaling, init=init,
            tol=tol, check_every=check_every, class_weight=class_weight,
            random_state=random_state, warm_start=warm_start, track_objective=track_objective,
            n_jobs=n_jobs, verbose=verbose, callback=callback, probability=probability)
        self.mode = mode
        self.scheduler = scheduler
        self.n_workers = n_workers

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Fit on in-memory data (as PegasosClassifier), or on dask arrays or shards (distributed).

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features), \
or SVMLightStream
            Training rows; a dask array in row chunks (all columns in one).  A
            :class:`~pegasos.stream.SVMLightStream` of LIBSVM shards
            (``SVMLightStream("shards/part-*.svm")``) is read by the workers, one
            task and one partition per file, wherever every worker can read the
            files; its ``n_features`` and ``classes`` apply (by default the
            widest shard's width and all the shards' labels), ``buffer_rows``
            does not (a worker holds its shards whole), and ``cache`` and
            ``holdout`` must be None.
        y : array-like or dask array of shape (n_samples,), default=None
            Labels, chunked like X's rows when a dask array; None with a stream
            (its labels are in its files).
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples' losses (in-memory data only).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        if isinstance(X, SVMLightStream):
            return self._fit_shards(X, y, sample_weight)
        if not (is_dask(X) or is_dask(y)):
            return super().fit(X, y, sample_weight=sample_weight)
        self._refuse_unsupported(sample_weight, "dask input")
        X, y = _check_dask_input(X, y)
        for name in STREAM_ATTRIBUTES:  # a fit on shards'
            self.__dict__.pop(name, None)
        with fit_client(self.scheduler, self.n_workers) as client:
            return self._fit_distributed(client, self._dask_parts(client, X, y))

    def _fit_shards(self, stream, y, sample_weight):
        """:meth:`fit` on the shards of an :class:`~pegasos.stream.SVMLightStream`."""
        self._refuse_unsupported(sample_weight, "an SVMLightStream on Dask")
        _check_stream(stream, y)
        with fit_client(self.scheduler, self.n_workers) as client:
            parts = self._shard_parts(client, stream)
            self._fit_distributed(client, parts)
        for name in STREAM_ATTRIBUTES:
            self.__dict__.pop(name, None)
        self.n_rows_read_ = int(parts.sizes.sum())
        return self

    def _refuse_unsupported(self, sample_weight, source):
        """The parameters' checks, and a ValueError for an option the distributed fit lacks."""
        self._more_validate_params(partial=False)
        unsupported = {
            "sample_weight": sample_weight is not None,
            "class_weight": self.class_weight is not None,
            "intercept_mode='unregularized'": self.fit_intercept
            and self.intercept_mode == "unregularized",
            "init='random'": self.init != "zero",
            "tol": self.tol is not None,
            "warm_start": self.warm_start,
            "probability=True": self.probability,
        }
        for name, used in unsupported.items():
            if used:
                raise ValueError(f"{name} is not supported with {source} (use in-memory data).")

    def _dask_parts(self, client, X, y):
        """The checked dask arrays' chunks on the workers, as :class:`_Parts`."""
        import dask.array as da  # (Dask: an optional dependency)

        classes = np.unique(da.unique(y).compute())
        self._check_problem(X.shape[1], classes)
        return _Parts(to_workers(client, X), to_workers(client, y),
                      np.asarray(X.chunks[0], dtype=np.int64), X.shape[1], classes)

    def _shard_parts(self, client, stream):
        """The stream's files read on the workers, one task and one part each, widened to
        their common width there, as :class:`_Parts`; the driver gathers their summaries."""
        shards = [client.submit(_read_shard, os.path.abspath(path), stream.zero_based,
                                stream.block_bytes, pure=False) for path in stream.paths]
        summaries = client.gather([client.submit(_summary, shard) for shard in shards])
        sizes, width, classes = _check_shards(stream, summaries)
        self._check_problem(width, classes)
        return _Parts([client.submit(_widened, shard, width) for shard in shards],
                      [client.submit(_labels, shard) for shard in shards], sizes, width, classes)

    def _check_problem(self, d, classes):
        """Refuse one class, or a model whose weights the driver cannot hold."""
        check_two_classes(classes)
        n_problems = 1 if len(classes) == 2 else len(classes)
        # on the driver: each problem's state (weights and their average), the round's
        # weights and coef_
        check_memory(8 * 4 * n_problems * (d + 1),
                     f"{type(self).__name__}'s {n_problems} binary problems on {d} features "
                     "(4 values per feature each on the driver, 8 bytes a value)")

    def _fit_distributed(self, client, parts):
        """Both modes' rounds over the parts on the workers (:class:`_Parts`)."""
        x_parts, y_parts, sizes, d, classes = parts
        n = int(sizes.sum())
        self.n_partitions_ = len(sizes)
        self.classes_ = classes
        self.n_features_in_ = d
        plan = self.fit_plan(n, len(classes))
        if self.mode == "average":  # local epochs of k = 1, whatever batch_size says
            plan = replace(plan, batch_size=1, n_average=0,
                           n_iter=budget(self.n_iter, self.n_epochs, n, 1, plan.lam, "iterations"))
        self.plan_ = plan
        self.lam_ = plan.lam
        bias_feature = float(self.intercept_scaling) if self.fit_intercept else 0.0
        # every binary problem in the same rounds: one round trip per round, not one per problem
        run = self._rounds if self.mode == "minibatch" else self._mixing
        W, rounds = run(client, x_parts, y_parts, sizes, d, bias_feature, plan, classes)
        # with the state of the output model, for duality_gap on in-memory data and save_model
        _solver.set_fitted(self, classes=classes, coef=W[:, :d].copy(),
                           intercept=W[:, d] * bias_feature, lam=plan.lam, t=rounds,
                           n_iter=rounds)
        self.n_rounds_ = rounds
        check_finite_fit(self)
        return self

    def _rounds(self, client, x_parts, y_parts, sizes, d, bias_feature, plan, classes):
        """``plan.n_iter`` synchronous mini-batch rounds of every problem; (outputs, rounds)."""
        seeds, k = plan.seeds, plan.batch_size
        avg_start = plan.avg_start(1)
        states = [PegasosState.start(1, d) for _ in seeds]
        for t in range(1, plan.n_iter + 1):
            counts = np.array([round_counts(seed, t, sizes, k) for seed in seeds])
            W = _broadcast(client, np.array([state.iterate(0) for state in states]))
            futures = [
                client.submit(_partition_sums, xp, yp, W, classes, bias_feature, seeds, t, p,
                              counts[:, p], pure=True)
                for p, (xp, yp) in enumerate(zip(x_parts, y_parts))
            ]
            G = _tree_sum(client, futures)
            for c, state in enumerate(states):
                _solver.step_from_sum(G[c], k, t, plan, avg_start, state)
                check_finite_weights(f"round {t}", state.v[0], state.scal[0])
                self._report(client, c, len(seeds), t, plan.n_iter, state.output(0)[0],
                             bias_feature, d)
        return np.array([state.output(0)[0] for state in states]), plan.n_iter

    def _mixing(self, client, x_parts, y_parts, sizes, d, bias_feature, plan, classes):
        """Parameter mixing, one epoch a round, of every problem; (models, rounds)."""
        n, seeds = int(sizes.sum()), plan.seeds
        epochs = max(1, math.ceil(plan.n_iter / n))  # k = 1: n iterations per epoch
        W = np.zeros((len(seeds), d + 1))
        for e in range(1, epochs + 1):
            sent = _broadcast(client, W)
            futures = [
                client.submit(_local_epochs, xp, yp, sent, classes, 1 + (e - 1) * int(sizes[p]),
                              plan.lam, bias_feature, plan.radius2, seeds, e, p, pure=True)
                for p, (xp, yp) in enumerate(zip(x_parts, y_parts))
            ]
            results = client.gather(futures)
            W = sum(Wp * (m / n) for Wp, m in results)
            for c in range(len(seeds)):
                check_finite_weights(f"round {e}", W[c])
                self._report(client, c, len(seeds), e, epochs, W[c], bias_feature, d)
        return W, epochs

    def _report(self, client, problem, n_problems, t, total, w, bias_feature, d):
        if self.callback is None:
            return
        self.callback(Report(
            problem=problem, n_problems=n_problems, t=t, iterations=t, iterations_total=total,
            seconds=None, coef=w[:d].copy(), intercept=float(w[d] * bias_feature),
            client=client))


#: Weights of more bytes than this go to each worker once a round (scattered), not
#: inside every part's task.
BROADCAST_BYTES = 1 << 16


def _broadcast(client, W):
    """W for a round's tasks: scattered to every worker when large, else as it is."""
    return client.scatter(W, broadcast=True) if W.nbytes > BROADCAST_BYTES else W


def _check_dask_input(X, y):
    """X and y of a fit on dask arrays, checked here (types, chunks) and, chunk by chunk
    on the workers, in the fit's graph (values)."""
    import dask.array as da  # (Dask: an optional dependency)

    if not isinstance(X, da.Array) or not isinstance(y, da.Array):
        raise ValueError(
            "With dask input, X and y must both be dask arrays (got "
            f"{type(X).__name__} and {type(y).__name__})."
        )
    X, y = dask_rows(X), dask_labels(y)
    if X.chunks[0] != y.chunks[0]:
        raise ValueError(
            f"X and y are partitioned differently: X's row chunks {X.chunks[0]} but y's "
            f"{y.chunks[0]}; rechunk y like X (y.rechunk(X.chunks[0]))."
        )
    X = X.map_blocks(checked_rows, dtype=np.float64, meta=X._meta)
    y = y.map_blocks(_checked_labels, dtype=y.dtype)
    return X, y


def _checked_labels(block):
    if block.size:
        check_classification_targets(block)
    return block


class _Parts(NamedTuple):
    """A distributed fit's data: futures of the row parts and their labels on the workers,
    the parts' rows, the common width and the classes."""

    x: list
    y: list
    sizes: np.ndarray
    n_features: int
    classes: np.ndarray


# --- LIBSVM shards read on the workers --------------------------------------------


class _Summary(NamedTuple):
    """What the driver learns of a shard: its rows, its width, its labels."""

    rows: int
    width: int
    labels: np.ndarray


def _read_shard(path, zero_based, block_bytes):
    """``(X, y)`` of a whole shard, checked as a dask chunk is (a malformed file is the
    :class:`~pegasos.datasets.DataFormatError` that reaches the driver).  A cache file
    (``pegasos convert``) is mapped, not parsed."""
    if is_cache(path):
        X, y = load_cache(path)
        return checked_rows(X), y
    blocks = list(read_blocks(path, block_bytes=block_bytes, zero_based=zero_based))
    if not blocks:
        return sp.csr_matrix((0, 0)), np.zeros(0)
    return (checked_rows(stack_rows([X for X, _ in blocks])),
            np.concatenate([y for _, y in blocks]))


def _summary(shard):
    X, y = shard
    return _Summary(X.shape[0], X.shape[1], np.unique(y))


def _widened(shard, width):
    """The shard's rows, ``width`` columns wide (the same arrays)."""
    X = shard[0]
    return sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], width), copy=False)


def _labels(shard):
    return shard[1]


def _check_stream(stream, y):
    """Refuse a ``y`` beside the stream, and the single-machine stream's options."""
    if y is not None:
        raise ValueError("y must be None with an SVMLightStream: its labels are in its files.")
    for option in ("cache", "holdout"):
        if getattr(stream, option, None) is not None:
            raise ValueError(
                f"SVMLightStream's {option} is an option of the single-machine stream fit "
                f"(PegasosClassifier); DaskPegasosClassifier's workers read the shards whole: "
                f"leave {option}=None.")


def _check_shards(stream, summaries):
    """(rows per shard, the common width, the classes) of the shards' summaries, or the
    error of the first shard that cannot be used, naming its file."""
    sizes = np.array([s.rows for s in summaries], dtype=np.int64)
    if not sizes.sum():
        raise DataFormatError(stream.paths[0], None, "no data: the shards have no examples")
    widest = max(s.width for s in summaries)
    width = widest if stream.n_features is None else stream.n_features
    for path, summary in zip(stream.paths, summaries):
        if summary.width > width:
            raise ValueError(
                f"{path} has rows {summary.width} features wide, beyond the stream's "
                f"n_features={width}; give n_features >= {widest}, or None (the widest "
                "shard's).")
    return sizes, width, _shard_classes(stream, summaries)


def _shard_classes(stream, summaries):
    """The stream's classes (by default the shards' labels), each shard's labels checked."""
    for path, summary in zip(stream.paths, summaries):
        try:
            _checked_labels(summary.labels)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from exc
    if stream.classes is None:
        return np.unique(np.concatenate([s.labels for s in summaries]))
    for path, summary in zip(stream.paths, summaries):
        unknown = np.setdiff1d(summary.labels, stream.classes)
        if unknown.size:
            raise ValueError(
                f"{path} has the label {unknown[0].item()!r}, which is not among the stream's "
                f"classes {stream.classes[:10].tolist()}; give classes=None (the shards' "
                "labels) or classes that include it.")
    return stream.classes
