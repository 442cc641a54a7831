"""A kernel SVM from a stream: Nystroem's kernel map, a block at a time, into linear Pegasos.

:class:`NystroemPegasosClassifier` approximates a kernel SVM by a linear one on
Nystroem's features (Williams & Seeger 2001): ``m`` landmarks ``z_1 ... z_m``,
drawn uniformly from the training rows or the centres of k-means on them, and
the map ``phi(x) = K_mm^{-1/2} (k(x, z_1), ..., k(x, z_m))`` with ``K_mm`` the
landmarks' kernel matrix, so that ``<phi(x), phi(x')>`` is the kernel projected
on the landmarks' span.  Linear Pegasos is then run on ``phi(x)``: every class
of a one-vs-rest fit shares the one map.  Its cost per row is that of ``m``
kernel values and an ``m x m`` product, whatever the training set's size, and it
reads the rows a block at a time -- from memory, a
:class:`~pegasos.BlockStream` or a :class:`~pegasos.stream.SVMLightStream` (LIBSVM
files or a cache) -- so that memory holds the landmarks, the shuffle buffer of
mapped rows and one block, never the data.

The kernel values ``K(X_block, Z)`` come from the blocked engine
(:mod:`pegasos._numba.blocks`, the rows a tile at a time), in the rows' dtype:
float32 rows (``BlockStream(..., dtype=np.float32)``, float32 arrays) are
multiplied in float32 and mapped by a float32 matrix product; float64 rows in
float64, where the map equals scikit-learn's ``Nystroem`` on the same landmarks
to rounding.
"""

import math
from numbers import Integral, Real

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _landmark
from ._base import (
    N_JOBS_CONSTRAINT,
    PEGASOS_CONSTRAINTS,
    check_finite_scores,
    check_held_out,
    check_two_classes,
    describe_lambda,
    drop_fitted,
    loss_weights,
    make_plan,
)
from ._kernel_base import KERNELS, _kernel_args
from ._memory import check_memory
from ._numba import blocks as _blocks
from ._numba.linear import row_sqnorms
from ._rows import as_rows, check_sparse_structure
from ._sklearn_private import Interval, StrOptions, _fit_context
from ._solvers.engine import engine_for, kernel_of, points
from ._solvers.threads import one_blas_thread
from .block_stream import BlockStream, as_block_stream
from .linear import PegasosClassifier
from .stream import SVMLightStream

__all__ = ["NystroemPegasosClassifier"]

#: Eigenvalues of K_mm below this are raised to it before the inverse square root
#: (scikit-learn's Nystroem does the same).
EIGEN_FLOOR = 1e-12

#: The linear SVM's fitted attributes, kept as the estimator's own.
LINEAR_ATTRIBUTES = ("classes_", "coef_", "intercept_", "lam_", "n_iter_", "t_",
                     "holdout_errors_")

#: The linear stage's parameters, passed on to :class:`~pegasos.PegasosClassifier`.
LINEAR_PARAMS = ("lam", "C", "n_iter", "n_epochs", "batch_size", "average", "class_weight",
                 "n_jobs", "random_state", "verbose", "callback")


class NystroemPegasosClassifier(ClassifierMixin, TransformerMixin, BaseEstimator):
    r"""Kernel SVM by Nystroem's kernel map and linear Pegasos, trained in memory or from a stream.

    ``NystroemPegasosClassifier(n_components=m, kernel="rbf", gamma=g, lam=l)``
    is what a scikit-learn user writes as ``make_pipeline(Nystroem(n_components=m,
    kernel="rbf", gamma=g), PegasosClassifier(lam=l))``: the same parameter names
    as :class:`sklearn.kernel_approximation.Nystroem` for the map and as
    :class:`~pegasos.PegasosClassifier` for the linear SVM, and Nystroem's
    fitted attributes (``components_``, ``normalization_``,
    ``component_indices_``).  It is one estimator rather than a pipeline because
    a pipeline maps every training row at once (``n x m`` values: 8.1 million
    rows and 2,000 components are 130 GB) and cannot train from a stream; this
    one maps the rows a block at a time, on the blocked kernel engine, maps only
    the rows a stream fit draws, and takes a :class:`~pegasos.BlockStream` or an
    :class:`~pegasos.stream.SVMLightStream` where ``fit`` takes ``X``.
    :meth:`transform` gives the map itself.

    Parameters
    ----------
    n_components : int, default=1000
        The landmarks, m: the map's dimension.  At most the training rows (of
        a stream: of its first buffer).
    kernel : {"rbf", "linear", "poly", "sigmoid"}, default="rbf"
        The kernel, as :class:`sklearn.svm.SVC`'s.
    gamma : {"scale", "auto"} or float > 0, default="scale"
        The kernel's gamma, resolved as SVC resolves it (``gamma_``), on the
        training rows (a stream's first buffer).
    degree : int >= 1, default=3
        The polynomial kernel's degree.
    coef0 : float, default=0.0
        The polynomial and sigmoid kernels' constant.
    landmarks : {"uniform", "kmeans"}, default="uniform"
        ``"uniform"``: m distinct training rows drawn uniformly, exactly as
        scikit-learn's ``Nystroem`` draws them (the same ``random_state``
        gives the same landmarks); ``"kmeans"``: the centres of mini-batch
        k-means with m clusters (:class:`sklearn.cluster.MiniBatchKMeans`) on
        the training rows (a stream's first buffer), which approximates the
        kernel better for the same m (Zhang, Tsang & Kwok 2008).
    lam, C, n_iter, n_epochs, batch_size, average, class_weight : see PegasosClassifier
        The linear SVM's (see :class:`~pegasos.PegasosClassifier`); a stream
        fit needs ``lam`` and ``n_iter``, not ``C`` or ``n_epochs``.
    solver : {"map", "landmark"}, default="map"
        ``"map"``: every row drawn is mapped, ``phi(x) = normalization_ @ k(x)``
        (``m`` kernel values and an ``m x m`` product), and
        :class:`~pegasos.PegasosClassifier` runs on the mapped rows.
        ``"landmark"``: the same mini-batch Pegasos kept in the landmarks'
        coefficients ``beta = normalization_.T @ w`` (the weights ``w`` of the
        mapped rows), so that a row costs its ``m`` kernel values only and a
        mini-batch step one product with ``K_mm``'s pseudo-inverse, shared by
        the batch's rows (a larger ``batch_size``: cheaper rows, fewer steps).  Its rows are drawn by
        consecutive permutations (a stream's: as read, each block shuffled),
        each block's kernel rows one block of the engine; the intercept is the
        weight of a constant feature 1, regularised (``PegasosClassifier``'s
        ``intercept_mode="augment"``); ``coef_`` holds ``w``, as ``"map"``'s
        does, and the iterates are linear Pegasos' on the mapped rows (to
        rounding) for the same draws.  In memory prefer ``"map"`` (it maps each
        row once; measured on 60,000 MNIST digits, 4,000 components: ``"map"``,
        ``batch_size=1``, 1.74% test error in 184 s; ``"landmark"``,
        ``batch_size=256``, 2.58% in 668 s, as its large batches take fewer
        steps; at 2,000 components ``"map"`` with ``batch_size=1`` 2.11%,
        ``"landmark"`` with ``batch_size=16`` 2.15%); the landmark solver is
        for streams read about once.
    block_rows : int, default=4096
        Rows mapped at a time (memory: ``block_rows * m`` values, twice).
    n_jobs : int, default=None
        Threads for the one-vs-rest problems of a multi-class fit in memory
        (``solver="map"``; also a stream whose rows all fit in its buffer), as
        :class:`~pegasos.PegasosClassifier`'s; the model does not depend on
        it.  A larger stream runs the problems one after another on each
        round's rows (its time goes to mapping them).
    random_state : int, RandomState instance or None, default=None
        Seeds the landmarks and the linear fit's draws.
    verbose : int, default=0
        Progress lines of the linear fit.
    callback : callable, default=None
        The linear fit's :class:`~pegasos.Report` callback.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        The landmarks (dense, the rows' dtype).
    component_indices_ : ndarray of shape (n_components,)
        Their rows in the training set (of a stream: in its first buffer);
        absent for k-means centres.
    normalization_ : ndarray of shape (n_components, n_components)
        ``K_mm^{-1/2}`` (float64): the map is ``K(x, components_) @
        normalization_.T``.
    gamma_ : float
        The kernel's gamma, resolved.
    coef_ : ndarray of shape (1, n_components) or (n_classes, n_components)
        The linear SVM's weights on the mapped rows (one-vs-rest).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Its intercepts.
    classes_ : ndarray of shape (n_classes,)
        The labels.
    lam_, n_iter_, t_ : float, int, int
        The linear fit's lambda, iterations of the last fit, and step counter.
    holdout_errors_ : ndarray of shape (n_measurements, 2)
        A stream fit with ``holdout``: (iterations, held-out error) at each
        measurement.
    n_features_in_ : int
        The rows' width.
    n_rows_read_ : int
        Rows a stream fit read (mapped rows drawn by the linear fit, plus the
        first buffer); absent after an in-memory fit.

    See Also
    --------
    sklearn.kernel_approximation.Nystroem : The same map, for a whole matrix.
    pegasos.PegasosClassifier : The linear SVM it trains.
    pegasos.BlockStream : Rows from blocks, for ``fit``.

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from pegasos import NystroemPegasosClassifier
    >>> X, y = make_moons(500, noise=0.1, random_state=0)
    >>> clf = NystroemPegasosClassifier(n_components=50, gamma=2.0, lam=1e-3, random_state=0)
    >>> clf.fit(X, y).score(X, y) > 0.95
    True
    >>> clf.transform(X[:3]).shape
    (3, 50)
    """

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "kernel": [StrOptions({"rbf", "linear", "poly", "sigmoid"})],
        "gamma": [StrOptions({"scale", "auto"}), Interval(Real, 0, math.inf, closed="neither")],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, -math.inf, math.inf, closed="neither")],
        "landmarks": [StrOptions({"uniform", "kmeans"})],
        **{name: PEGASOS_CONSTRAINTS[name] for name in (
            "lam", "C", "n_iter", "n_epochs", "batch_size", "average", "class_weight")},
        "solver": [StrOptions({"map", "landmark"})],
        "block_rows": [Interval(Integral, 1, None, closed="left")],
        "n_jobs": N_JOBS_CONSTRAINT,
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "callback": [callable, None],
    }

    def __init__(self, n_components=1000, *, kernel="rbf", gamma="scale", degree=3, coef0=0.0,
                 landmarks="uniform", lam=None, C=None, n_iter=None, n_epochs=None,
                 batch_size=1, average=0.5, class_weight=None, solver="map",
                 block_rows=4096, n_jobs=None, random_state=None, verbose=0, callback=None):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.landmarks = landmarks
        self.lam = lam
        self.C = C
        self.n_iter = n_iter
        self.n_epochs = n_epochs
        self.batch_size = batch_size
        self.average = average
        self.class_weight = class_weight
        self.solver = solver
        self.block_rows = block_rows
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # ------------------------------------------------------------------ fit

    def _describe_regularisation(self):
        """The regularisation the model was trained with, as ``pegasos info`` prints it."""
        return describe_lambda(self)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Choose the landmarks, then fit linear Pegasos on the mapped rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), BlockStream or SVMLightStream
            The training rows (float32 rows are mapped in float32), or a
            stream of them (and no ``y``): the landmarks and gamma then come
            from its first ``buffer_rows`` rows, and the linear fit draws from
            a shuffle buffer of mapped rows.
        y : array-like of shape (n_samples,)
            The labels (none with a stream).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        if self.lam is not None and self.C is not None:
            raise ValueError("Give lam or C, not both: C sets lam = 1 / (C n).")
        # the last fit's model goes first: a fit that fails half-way (a stream's bad block,
        # a callback that raises) leaves no coef_, not a new map beside the old weights
        drop_fitted(self, ("_blocks_by_kind",))
        if isinstance(X, (BlockStream, SVMLightStream)):
            if y is not None:
                raise ValueError("A stream fit takes no y: a stream holds its labels.")
            return self._fit_stream(as_block_stream(X))
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=[np.float64, np.float32],
                             order="C", accept_large_sparse=True, reset=True)
        check_sparse_structure(X)
        check_classification_targets(y)
        check_two_classes(np.unique(y))  # (before the map is made for nothing)
        spectrum = self._fit_map(X, what="training rows")
        if self.solver == "landmark":
            return self._fit_landmark(X, y, spectrum)
        check_memory(8 * X.shape[0] * self.n_components,
                     f"the mapped training rows ({X.shape[0]} x {self.n_components} float64; "
                     "fit from a BlockStream to map them a block at a time)")
        return self._set_linear(self._linear().fit(self._map(X, np.float64), y))

    def _linear(self):
        return PegasosClassifier(**{name: getattr(self, name) for name in LINEAR_PARAMS})

    def _set_linear(self, linear):
        """The linear SVM's fitted model and record, as this estimator's attributes."""
        for name in LINEAR_ATTRIBUTES:
            if hasattr(linear, name):
                setattr(self, name, getattr(linear, name))
        return self

    def _fit_map(self, X, what):
        """Landmarks, gamma and K_mm^{-1/2} from the rows X (validated)."""
        m, n = self.n_components, X.shape[0]
        if X.shape[1] == 0:  # (a stream's sparse rows with no stored value)
            raise ValueError(f"the {what} have no features: give rows of at least one "
                             "feature (a stream: its n_features)")
        if m > n:
            raise ValueError(f"n_components={m} is more than the {n} {what}: the landmarks "
                             f"are rows of them (or k-means centres); give n_components <= {n}")
        kmeans = 8 * max(1024, 3 * m) * m if self.landmarks == "kmeans" else 0
        check_memory(8 * (4 * m * m + 2 * m * X.shape[1]) + kmeans,
                     f"the map of {m} landmarks ({m} x {m} float64 matrices: K_mm, its "
                     "eigenvectors, the map and the solver's work space"
                     + (", and k-means' distances" if kmeans else "")
                     + "; give a smaller n_components)")
        self.n_features_in_ = X.shape[1]
        self.gamma_ = _kernel_args(self.kernel, self.gamma, self.coef0, self.degree, X).gamma
        rng = check_random_state(self.random_state)
        if self.landmarks == "uniform":  # scikit-learn's Nystroem's draw
            self.component_indices_ = rng.permutation(n)[:m]
            Z = X[self.component_indices_]
            Z = Z.toarray() if sp.issparse(Z) else Z
        else:
            from sklearn.cluster import MiniBatchKMeans  # (k-means landmarks only)

            km = MiniBatchKMeans(n_clusters=m, n_init=1, batch_size=max(1024, 3 * m),
                                 random_state=rng.randint(np.iinfo(np.int32).max))
            Z = km.fit(X).cluster_centers_
            self.__dict__.pop("component_indices_", None)  # (centres, not rows)
        self.components_ = np.ascontiguousarray(Z, dtype=X.dtype)
        Z64 = np.array(self.components_, dtype=np.float64)
        K = _kernel_rows(Z64, _landmark_block(Z64, dense=True), self._kern(), np.float64)
        if not np.all(np.isfinite(K)):
            raise ValueError(f"The landmarks' kernel values overflow float64 ({self.kernel} "
                             f"kernel, gamma_={self.gamma_:.6g}): scale the input (e.g. with "
                             "StandardScaler or MaxAbsScaler)"
                             + ("" if self.kernel == "linear" else ", or give a smaller gamma"))
        # K_mm is symmetric: eigh, faster than scikit-learn's Nystroem's SVD,
        # the same map to rounding; an indefinite K_mm (the sigmoid kernel's) takes the SVD
        S, U = scipy.linalg.eigh(K, driver="evd")
        V = U.T
        if S[0] < -EIGEN_FLOOR * max(S[-1], 1.0) * m:
            U, S, V = scipy.linalg.svd(K)
        S = np.maximum(S, EIGEN_FLOOR)
        self.normalization_ = np.dot(U / np.sqrt(S), V)
        self._blocks_by_kind = {}
        return U, S, V

    def _fit_landmark(self, X, y, spectrum):
        """``solver="landmark"`` on the rows X (validated) and labels y."""
        classes = np.unique(y)
        check_two_classes(classes)
        sw = loss_weights(X, y, None, self.class_weight, classes)
        n_problems = 1 if len(classes) == 2 else len(classes)
        plan = make_plan(lam=self.lam, C=self.C, n=X.shape[0], n_iter=self.n_iter,
                         n_epochs=self.n_epochs, batch_size=self.batch_size,
                         average=self.average, radius2=None, weights=sw,
                         random_state=self.random_state, n_problems=n_problems)
        rng = np.random.default_rng(plan.seeds[0])
        order = _landmark.order_chunks(X.shape[0], plan.n_iter * plan.batch_size,
                                       _landmark.chunk_rows(self.block_rows, plan.batch_size),
                                       rng)
        chunks = ((X[idx], y[idx], sw[idx]) for idx in order)
        return self._set_landmark(classes, plan, spectrum, chunks)

    def _fit_landmark_stream(self, raw, source, first, held, spectrum):
        """``solver="landmark"`` on a stream's rows (its first buffer ``first`` read, the
        held-out rows ``held`` set apart)."""
        classes = np.unique(first[1]) if raw.classes is None else raw.classes
        check_two_classes(classes)
        if self.class_weight == "balanced":
            raise ValueError("A stream fit takes no class_weight='balanced' (it needs the "
                             "class counts of the whole stream): give a dict")
        cw = np.ones(len(classes)) if self.class_weight is None else compute_class_weight(
            self.class_weight, classes=classes, y=classes)
        n_problems = 1 if len(classes) == 2 else len(classes)

        def weights(y):
            where = np.searchsorted(classes, y).clip(0, len(classes) - 1)
            if not np.array_equal(classes[where], y):
                new = np.setdiff1d(y, classes)[:3].tolist()
                raise ValueError(f"{raw.name}: the labels {new} are not among the stream's "
                                 f"classes {classes.tolist()} (those of its first buffer "
                                 "unless given): give the stream classes")
            return cw[where]

        plan = make_plan(lam=self.lam, C=None, n=first[1].shape[0], n_iter=self.n_iter,
                         n_epochs=None, batch_size=self.batch_size, average=self.average,
                         radius2=None, weights=weights(first[1]),
                         random_state=self.random_state, n_problems=n_problems)
        rng = np.random.default_rng(plan.seeds[0])
        size = _landmark.chunk_rows(self.block_rows, plan.batch_size)

        def chunks():  # the first buffer shuffled, then the stream's rows, each chunk shuffled
            X, y = first
            order = rng.permutation(len(y))
            for lo in range(0, len(y), size):
                part = order[lo:lo + size]
                yield X[part], y[part], weights(y[part])
            empty = False
            while True:
                got = source.take(size)
                if got is None:  # a pass's end: the next take starts another
                    if empty:
                        return
                    empty = True
                    continue
                empty = False
                part = rng.permutation(len(got[1]))
                yield got[0][part], got[1][part], weights(got[1][part])

        monitor = None
        if held is not None:
            weights(held[1])
            monitor = _landmark.HoldoutMonitor(self._kernel_rows(held[0]), held[1], classes,
                                               raw.n_iter_no_change)
        return self._set_landmark(classes, plan, spectrum, chunks(), monitor)

    def _set_landmark(self, classes, plan, spectrum, chunks, holdout=None):
        """The landmark solver's fit over ``chunks``, as this estimator's model."""
        check_memory(8 * 3 * self.n_components * (self.n_components + len(classes))
                     + 8 * self.block_rows * self.n_components * 2,
                     f"the landmark solver's matrices ({self.n_components} x "
                     f"{self.n_components} float64, three) and a block of kernel rows")
        coef, intercept, t = _landmark.fit(self, chunks, classes, plan,
                                           _landmark.Spectrum(*spectrum, self.components_.dtype),
                                           self._kernel_rows,
                                           holdout)
        self.classes_, self.coef_, self.intercept_ = classes, coef, intercept
        self.lam_, self.n_iter_, self.t_ = plan.lam, t, t
        if holdout is not None:
            self.holdout_errors_ = np.array(holdout.errors, dtype=np.float64).reshape(-1, 2)
        return self

    def _kernel_rows(self, X):
        """K(X, components_) (n, m), C-contiguous, in the components' dtype."""
        X = X if X.dtype == self.components_.dtype else X.astype(self.components_.dtype)
        X, block = self._as_wide(X)
        return np.ascontiguousarray(_kernel_rows(X, block, self._kern(),
                                                 self.components_.dtype).T)

    def _kern(self):
        return kernel_of(KERNELS[self.kernel], self.gamma_, self.coef0, self.degree)

    def _fit_stream(self, raw):
        """:meth:`fit` on a :class:`BlockStream` of raw rows
        (:func:`~pegasos.block_stream.as_block_stream`)."""
        if self.C is not None or self.n_epochs is not None or self.lam is None:
            raise ValueError("A stream fit needs lam (C sets lam = 1 / (C n), and a stream's "
                             "n is not known before it is read) and n_iter, not n_epochs: "
                             "give lam")
        source = raw.rows()
        try:
            return self._fit_source(raw, source)
        finally:
            source.close()

    def _fit_source(self, raw, source):
        """:meth:`_fit_stream` from the stream's :class:`~pegasos.stream.RowSource`."""
        start = [source.passes]  # the pass the next call of mapped() reads to its end
        held = source.hold_out(raw.holdout) if isinstance(raw.holdout, int) else raw.holdout
        first = source.take(raw.buffer_rows)
        if first is None:
            raise ValueError(f"{raw.name}: no data: the stream has no rows to train on")
        spectrum = self._fit_map(first[0], what=f"rows of {raw.name}'s first buffer "
                                                f"(buffer_rows={raw.buffer_rows})")
        if held is not None:
            check_held_out(raw.name, held, self.n_features_in_, np.unique(first[1])
                            if raw.classes is None else raw.classes)
        if self.solver == "landmark":
            self._fit_landmark_stream(raw, source, first, held, spectrum)
            self.n_rows_read_ = source.rows_read
            return self
        check_memory(8 * self.n_components * (raw.buffer_rows + 2 * self.block_rows),
                     f"the shuffle buffer of {raw.buffer_rows} mapped rows and a mapped block of "
                     f"block_rows={self.block_rows} ({self.n_components} float64 values a "
                     "row; give a smaller buffer_rows, block_rows or n_components)")
        pending = [first]

        def mapped():  # one pass of the mapped rows: the first buffer, then the rest
            if pending:
                X, y = pending.pop()
                for lo in range(0, X.shape[0], self.block_rows):
                    part = slice(lo, lo + self.block_rows)
                    yield self._map(X[part], np.float64), y[part]
            while source.passes == start[0]:  # (take() would start the next pass)
                part = source.take(self.block_rows)
                if part is None:
                    break
                yield self._map(part[0], np.float64), part[1]
            start[0] = source.passes

        holdout = None if held is None else (self._map(held[0], np.float64), held[1])
        stream = BlockStream(mapped, n_features=self.n_components, classes=raw.classes,
                             buffer_rows=raw.buffer_rows, holdout=holdout,
                             n_iter_no_change=raw.n_iter_no_change, name=raw.name)
        self._set_linear(self._linear().fit(stream))
        self.n_rows_read_ = source.rows_read
        return self

    # ------------------------------------------------------------------ the map

    def _map(self, X, out_dtype):
        """Rows X (dense C or CSR, the components' dtype) mapped, a block at a time."""
        n, m = X.shape[0], self.components_.shape[0]
        dtype = self.components_.dtype
        out = np.empty((n, m), out_dtype)
        X, block = self._as_wide(X)
        norm_T = np.ascontiguousarray(self.normalization_.T, dtype=dtype)
        for lo in range(0, n, self.block_rows):
            part = X[lo:lo + self.block_rows]
            K = _kernel_rows(part, block, self._kern(), dtype)  # (m, rows)
            out[lo:lo + part.shape[0]] = K.T @ norm_T
        return out

    def _as_wide(self, X):
        """Rows X as wide as the landmarks (a stream's sparse rows are as wide as their
        largest index) and the landmarks' engine block for their kind; rows of another
        width never reach the engine."""
        dense, d = not sp.issparse(X), self.components_.shape[1]
        if dense and X.shape[1] != d:
            raise ValueError(f"rows {X.shape[1]} features wide cannot be mapped on landmarks "
                             f"{d} features wide: give rows as wide as the training rows")
        if not dense and X.shape[1] != d:
            if X.shape[1] > d:
                raise ValueError(f"a row is {X.shape[1]} features wide, beyond the landmarks' "
                                 f"{d} (by default the first buffer's width): give the "
                                 f"stream n_features >= {X.shape[1]}")
            X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], d))
        block = self._blocks_by_kind.get(dense)
        if block is None:
            block = self._blocks_by_kind[dense] = _landmark_block(self.components_, dense)
        return X, block

    def _checked(self, X):
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, accept_sparse="csr", dtype=[np.float64, np.float32],
                          order="C", accept_large_sparse=True, reset=False)
        check_sparse_structure(X)
        if X.dtype != self.components_.dtype:
            X = X.astype(self.components_.dtype)
        if not hasattr(self, "_blocks_by_kind"):  # (a loaded model)
            self._blocks_by_kind = {}
        return X

    def transform(self, X):
        """Map the rows X to Nystroem's features, ``K(X, components_) @ normalization_.T``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        ndarray of shape (n_samples, n_components)
            The mapped rows, in the landmarks' dtype.
        """
        X = self._checked(X)
        check_memory(X.shape[0] * self.components_.shape[0] * self.components_.dtype.itemsize,
                     f"the {X.shape[0]} mapped rows ({self.components_.shape[0]} "
                     f"{self.components_.dtype} values each; transform fewer rows at a time)")
        out = self._map(X, self.components_.dtype)
        if not np.all(np.isfinite(out)):
            raise ValueError("Non-finite mapped values: the input's magnitudes overflow the "
                             "kernel. Scale the input as the training data was scaled.")
        return out

    def decision_function(self, X):
        """The linear SVM's decision values on the mapped rows, a block at a time.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            ``transform(X) @ coef_.T + intercept_`` (one column for two classes,
            raveled), as :meth:`pegasos.PegasosClassifier.decision_function`,
            computed as ``K(X, components_) @ (normalization_.T @ coef_.T)``: a
            row costs its ``m`` kernel values, not an ``m x m`` product.
        """
        X = self._checked(X)
        scores = np.empty((X.shape[0], self.coef_.shape[0]))
        beta = self.normalization_.T @ self.coef_.T  # (m, P): a row costs its kernel values
        for lo in range(0, X.shape[0], self.block_rows):
            K = self._kernel_rows(X[lo:lo + self.block_rows])
            scores[lo:lo + K.shape[0]] = K @ beta + self.intercept_
        check_finite_scores(scores)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X):
        """The predicted labels.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        ndarray of shape (n_samples,)
            A label of ``classes_`` per row.
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]


def _landmark_block(Z, dense):
    """The engine's :class:`~pegasos._numba.blocks.Block` of the landmarks Z (dense C,
    writable): Z for dense rows, Z.T for CSR ones (:func:`_blocks.products`)."""
    Z = np.array(Z, order="C")
    unused = np.empty((0, 0), Z.dtype)
    return _blocks.Block(np.full(Z.shape[0], -1, np.int64), Z if dense else unused,
                         unused if dense else np.ascontiguousarray(Z.T),
                         row_sqnorms(Z, Z.shape[0]))


def _kernel_rows(X, block, kern, dtype):
    """``K(block's Z, X)`` as (m, n) rows of ``dtype`` by the blocked engine."""
    rows = as_rows(X, dtype)
    n = rows.n_rows
    pts = points(rows, row_sqnorms(rows.kernel, n))
    m = block.sq_z.shape[0]
    out = np.empty((m, n), dtype)
    with one_blas_thread():
        _blocks.fill_block_rows(engine_for(n), pts, block, kern, out, np.arange(m, dtype=np.int64))
    return out
