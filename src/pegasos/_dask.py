"""What the Dask estimators share: their cluster, their input's checks, their prediction.

:class:`~pegasos.dask_backend.DaskPegasosClassifier` and
:class:`~pegasos.dask_svc.DaskDualSVC` each fit an in-memory estimator's model
on a ``dask.distributed`` cluster.  Both take the cluster from the same
parameters (``scheduler``, ``n_workers``: :data:`CLUSTER_CONSTRAINTS`,
:func:`fit_client`), check a dask array's chunks the same way
(:func:`dask_rows`, :func:`checked_rows`), send its chunks to the workers the
same way (:func:`to_workers`), and predict on a dask array chunk by chunk
through :class:`ParallelPostFit`, as dask-ml's wrapper of the same name.

Dask is an optional dependency: this module imports it only inside the
functions that run with it.
"""

import contextlib
import math
import re
import threading
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array
from sklearn.utils.metaestimators import available_if

from ._probability import _has_probability
from ._rows import check_sparse_structure
from ._sklearn_private import HasMethods, Interval

__all__ = ["CLUSTER_CONSTRAINTS", "ParallelPostFit", "checked_rows", "dask_labels", "dask_rows", "fit_client",
           "is_dask", "row_chunks", "to_workers"]

#: The constraints of the cluster's parameters, as ``_parameter_constraints`` reads them.
CLUSTER_CONSTRAINTS = {
    "scheduler": [str, HasMethods(["submit", "gather", "scatter"]), None],
    "n_workers": [Interval(Integral, 1, None, closed="left")],
}


def is_dask(X):
    """Whether ``X`` is a Dask collection (without importing Dask).

    Examples
    --------
    >>> import numpy as np
    >>> from pegasos._dask import is_dask
    >>> is_dask(np.zeros(3))
    False
    """
    return type(X).__module__.startswith("dask.")


def row_chunks(X):
    """The 2-D dask array X with all its columns in one chunk (each block a set of whole rows)."""
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D; got {X.ndim}-D.")
    return X if len(X.chunks[1]) == 1 else X.rechunk({1: -1})


def dask_rows(X):
    """The training rows X of a distributed fit in row chunks, or the ValueError that says
    what is wrong: not a dask array, chunks of unknown sizes, not 2-D."""
    if not is_dask(X) or not hasattr(X, "chunks"):
        raise ValueError(f"With dask input, X must be a dask array (got {type(X).__name__}).")
    if any(math.isnan(c) for c in X.chunks[0]):
        raise ValueError("X has unknown chunk sizes (as after a dask dataframe conversion); "
                         "call X.compute_chunk_sizes() first.")
    return row_chunks(X)


def dask_labels(y):
    """The labels y of a distributed fit, a 1-D dask array of known chunk sizes, or the
    ValueError that says what is wrong."""
    if (not hasattr(y, "chunks") or y.ndim != 1
            or any(math.isnan(c) for c in y.chunks[0])):
        raise ValueError(f"y must be a 1-D dask array of known chunk sizes (got "
                         f"{type(y).__name__}; call y.compute_chunk_sizes() first).")
    return y


def checked_rows(block, dtype=np.float64):
    """One chunk of X, checked on its worker as the in-memory fit checks X (finite values,
    CSR structure), in ``dtype``, C-ordered when dense."""
    check_sparse_structure(block)
    return check_array(block, accept_sparse="csr", dtype=dtype, order="C",
                       accept_large_sparse=True, ensure_min_samples=0, input_name="X")


#: A graph holding more than this many bytes carries its data with it
#: (``da.from_array`` of an in-memory array): its chunks are scattered instead.
LOCAL_GRAPH_BYTES = 1 << 20


def to_workers(client, arr):
    """Futures of ``arr``'s chunks on the workers.

    A graph that embeds its data (``da.from_array`` on an array in this process)
    would be shipped whole to the scheduler, which warns about large graphs and
    copies the data once more; such chunks are computed here and scattered.
    """
    import dask  # (Dask: an optional dependency)
    from dask.sizeof import sizeof  # (Dask: an optional dependency)

    blocks = arr.to_delayed().ravel().tolist()
    if sizeof(dict(arr.__dask_graph__())) > LOCAL_GRAPH_BYTES:
        return client.scatter(list(dask.compute(*blocks, scheduler="sync")))
    return client.compute(blocks)


# --- the cluster of a fit ----------------------------------------------------------

#: Seconds to connect to a scheduler and complete Dask's handshake.
CONNECT_TIMEOUT = 10.0

#: Seconds more for the handshake of a server that accepted the connection.
CONNECT_GRACE = 5.0


def _connect(address):
    """A Client of the scheduler at ``address``, or a ValueError within CONNECT_TIMEOUT +
    CONNECT_GRACE seconds.

    ``Client(address, timeout=...)`` bounds the TCP connection only: a server
    that accepts but is not Dask can keep the handshake waiting forever, or
    send bytes that Dask reads as a frame length (seen: ``MemoryError: Unable
    to allocate 3.01 EiB``).  The client is therefore made in a thread with a
    deadline, and every failure becomes one message.
    """
    from distributed import Client  # (Dask: an optional dependency)

    timeout, deadline = CONNECT_TIMEOUT, CONNECT_TIMEOUT + CONNECT_GRACE
    box = {}

    def connect():
        try:
            box["client"] = Client(address, timeout=f"{timeout}s", set_as_default=False)
        except BaseException as exc:  # noqa: BLE001 - reported below, whatever it is
            box["error"] = exc

    thread = threading.Thread(target=connect, name="pegasos-dask-connect", daemon=True)
    thread.start()
    thread.join(deadline)
    if thread.is_alive():
        raise ValueError(
            f"no Dask scheduler answered at {address!r} within {deadline:.0f} s (a server "
            "is listening there, but it does not speak Dask's protocol)"
        )
    if "error" in box:
        exc = box["error"]
        raise ValueError(
            f"cannot connect to a Dask scheduler at {address!r} ({type(exc).__name__}: {exc})"
        ) from exc
    return box["client"]


def _active_client():
    """The client this process made last (``distributed.default_client``), or None."""
    from distributed import default_client  # (Dask: an optional dependency)

    try:
        return default_client()
    except ValueError:  # no client
        return None


@contextlib.contextmanager
def fit_client(scheduler, n_workers):
    """The Client of a fit, current in this thread while the fit runs: the one given, the
    active one, one of an address, or one of a LocalCluster of ``n_workers`` processes of
    one thread made here.

    Only a client (and cluster) made here is closed afterwards.  None of them becomes the
    process's default client, and Dask's configuration is changed only within the fit
    (``Client.as_current``): a client made as the default sets ``scheduler`` in the
    configuration and restores it when it closes, unless another default client lives
    then, so that a connection that was still failing in its thread (:func:`_connect`)
    while another client opened and closed had left later ``.compute()`` calls asking
    for a client that no longer existed.
    """
    from distributed import Client, LocalCluster  # (Dask: an optional dependency)

    with contextlib.ExitStack() as stack:
        if scheduler is not None and not isinstance(scheduler, str):
            client = scheduler
        elif scheduler is not None:
            client = stack.enter_context(_connect(scheduler))
        else:
            client = _active_client()
            if client is None:
                cluster = stack.enter_context(LocalCluster(
                    n_workers=n_workers, threads_per_worker=1, processes=True,
                    dashboard_address=":0"))
                client = stack.enter_context(Client(cluster, set_as_default=False))
        stack.enter_context(client.as_current())
        yield client


# --- the estimators' parameters and prediction ----------------------------------------


def with_local_parameters(replaced=None):
    """A class decorator: the in-memory estimator's (``_local_class``'s) parameter entries,
    in its order, in place of the marker ``__LOCAL_PARAMETERS__`` in the class's
    docstring; ``replaced``, {name: entry}: the entries that read otherwise here."""
    def document(cls):
        local, head = cls._local_class.__doc__, "    Parameters\n    ----------\n"
        entries = local[local.index(head) + len(head):local.index("\n    Attributes\n")]
        entries = entries.rstrip("\n") + "\n"
        for name, entry in (replaced or {}).items():
            first = entries.index(f"    {name} : ")
            after = re.search(r"^    \w+ : ", entries[first + 1:], flags=re.M)
            end = len(entries) if after is None else after.start() + first + 1
            entries = entries[:first] + entry + entries[end:]
        cls.__doc__ = cls.__doc__.replace("    __LOCAL_PARAMETERS__\n", entries)
        return cls

    return document


class ParallelPostFit:
    """Prediction chunk by chunk on a dask array, as dask-ml's ``ParallelPostFit``.

    A mixin before an in-memory estimator's class (``_local_class``, which a
    Dask estimator names) among its bases: given a dask array,
    :meth:`predict`, :meth:`decision_function` and :meth:`predict_proba`
    return dask arrays, each chunk computed where it lives by the in-memory
    estimator holding this model (:meth:`_as_local`); given anything else,
    the in-memory estimator's own method.  The output's width and dtype are
    those of the method on one row of zeros, computed here when the graph is
    made (as dask-ml does), which also raises a model's error (not fitted,
    another width) there.
    """

    #: The in-memory estimator whose model a Dask estimator fits (set by each).
    _local_class = None

    def _as_local(self, fitted=True):
        """A ``_local_class`` estimator of these parameters (the in-memory estimator's,
        without the callback: the driver reports), holding this model when ``fitted``
        (every attribute that is not a parameter)."""
        params = self.get_params(deep=False)
        local = self._local_class()
        local.set_params(**{name: params[name] for name in local.get_params(deep=False)
                            if name != "callback"})
        if fitted:
            vars(local).update((k, v) for k, v in vars(self).items() if k not in params)
        return local

    def _chunkwise(self, method, X):
        """The in-memory model's ``method`` on each row chunk of the dask array X."""
        X = row_chunks(X)
        local = getattr(self._as_local(), method)
        zeros = (sp.csr_matrix((1, X.shape[1]), dtype=X.dtype) if sp.issparse(X._meta)
                 else np.zeros((1, X.shape[1]), X.dtype))
        sample = np.asarray(local(zeros))
        meta = sample[:0]
        if sample.ndim == 1:
            return X.map_blocks(local, dtype=sample.dtype, drop_axis=1, meta=meta)
        return X.map_blocks(local, dtype=sample.dtype, chunks=(X.chunks[0], sample.shape[1:]),
                            meta=meta)

    def decision_function(self, X):
        """Decision values; for a dask array X, a dask array computed chunk by chunk.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
            The rows to score.

        Returns
        -------
        ndarray or dask array
            As the in-memory estimator's ``decision_function``.
        """
        if not is_dask(X):
            return super().decision_function(X)
        return self._chunkwise("decision_function", X)

    def predict(self, X):
        """Class labels; for a dask array X, a dask array computed chunk by chunk.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
            The rows to classify.

        Returns
        -------
        ndarray or dask array of shape (n_samples,)
            Labels from ``classes_``.
        """
        if not is_dask(X):
            return super().predict(X)
        return self._chunkwise("predict", X)

    @available_if(_has_probability)
    def predict_proba(self, X):
        """Class probabilities; for a dask array X, a dask array computed chunk by chunk.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
            The rows to score (with ``probability=True``).

        Returns
        -------
        ndarray or dask array of shape (n_samples, n_classes)
            As the in-memory estimator's ``predict_proba``.
        """
        if not is_dask(X):
            return super().predict_proba(X)
        return self._chunkwise("predict_proba", X)
