"""A stream of rows from any iterable of blocks: :class:`BlockStream`.

:class:`~pegasos.stream.SVMLightStream` reads LIBSVM files; a :class:`BlockStream`
takes rows that are already numbers -- a generator of ``(X, y)`` blocks (rows made
on the fly), a NumPy memory map read a block at a time
(:meth:`BlockStream.from_arrays`), pixels stored as bytes -- and hands them to a
fit the same way: ``PegasosClassifier(lam=...).fit(BlockStream(...))`` trains
from a shuffle buffer refilled block by block, with the same ``buffer_rows``,
``holdout`` and ``n_iter_no_change``, and never holds more than the buffer and
one block.  Each block is converted as it arrives: to float64 (or float32),
multiplied by ``scale`` (``1 / 255`` for pixels), dense blocks kept dense and
sparse ones as CSR.  A later block wider than the first, or of another width
when the blocks are dense, is an error that names the block.
"""

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp

from ._rows import check_sparse_structure
from .datasets import load_svmlight
from .stream import BUFFER_ROWS, RowSource, checked_classes, label_kind

__all__ = ["BlockStream"]

#: Blocks without rows in a row that end a fit (a pass of nothing but empty blocks, endless).
EMPTY_BLOCKS = 100_000


class BlockStream:
    """Rows from an iterable of ``(X, y)`` blocks, as a stream that ``fit`` takes in place of X.

    ``PegasosClassifier(lam=...).fit(BlockStream(blocks))`` is the stream fit of
    :class:`~pegasos.stream.SVMLightStream` on rows that are not in a text file:
    ``n_iter`` iterations drawn from a shuffle buffer of ``buffer_rows`` rows,
    the rows drawn replaced by the next rows of the blocks (another pass starts
    at the end); when all the rows fit in the buffer, the fit is the in-memory
    fit of them, bit for bit.  :class:`~pegasos.NystroemPegasosClassifier`
    takes it too.

    Parameters
    ----------
    blocks : callable or iterable
        Each pass's blocks: a function called once per pass that returns an
        iterable of ``(X, y)`` (a generator function, say: every pass reads
        the rows again), or an iterable of them (a list passes again and
        again; a generator object gives one pass, after which the fit draws
        from its buffer as it stands).  ``X``: a 2-D array (any real or
        integer dtype; a memory map is read as it is sliced) or a sparse
        matrix; ``y``: one label per row.
    n_features : int, default=None
        The rows' width; by default the first block's for dense blocks (which
        must all be as wide), the first buffer's widest row for sparse ones
        (as :class:`~pegasos.stream.SVMLightStream`'s).
    classes : array-like, default=None
        The labels; by default those of the first buffer's rows (a later row
        of another label is an error that says to give them).
    scale : float, default=None
        A factor applied to every value as the block is converted (``1 / 255``
        for pixels stored as bytes); None: none.
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
        The converted values' type (linear Pegasos computes in float64; the
        kernel map's engine multiplies float32 rows in float32).
    buffer_rows : int, default=65536
        The shuffle buffer's rows.
    holdout : int or tuple (X, y), default=None
        The held-out rows of the early stopping rule (see
        :class:`~pegasos.stream.SVMLightStream`): the stream's first
        ``holdout`` rows (never trained on), or rows given as ``(X, y)``.
    n_iter_no_change : int, default=5
        Measurements of the held-out error without a new lowest one before
        the fit stops.
    name : str, default="the block stream"
        How errors name the stream.

    See Also
    --------
    pegasos.stream.SVMLightStream : LIBSVM files as a stream.
    pegasos.NystroemPegasosClassifier : A kernel map fitted from a stream.

    Examples
    --------
    >>> import numpy as np
    >>> from pegasos import BlockStream, PegasosClassifier
    >>> def blocks():
    ...     rng = np.random.default_rng(0)
    ...     for _ in range(20):
    ...         X = rng.integers(0, 256, size=(100, 2), dtype=np.uint8)
    ...         yield X, np.where(X[:, 0] > 127, 1, -1)
    >>> stream = BlockStream(blocks, scale=1 / 255, buffer_rows=500)
    >>> clf = PegasosClassifier(lam=0.001, n_iter=2000, random_state=0).fit(stream)
    >>> clf.n_rows_read_ < 2000 + 500, clf.classes_.tolist()
    (True, [-1, 1])
    """

    def __init__(self, blocks, *, n_features=None, classes=None, scale=None, dtype=np.float64,
                 buffer_rows=BUFFER_ROWS, holdout=None, n_iter_no_change=5,
                 name="the block stream"):
        if not (callable(blocks) or hasattr(blocks, "__iter__")):
            raise TypeError("blocks must be a function returning an iterable of (X, y) "
                            f"blocks, or such an iterable; got {type(blocks).__name__}")
        for what, value in (("buffer_rows", buffer_rows), ("n_iter_no_change", n_iter_no_change)):
            if not (isinstance(value, Integral) and value >= 1):
                raise ValueError(f"{what} must be a positive integer; got {value!r}")
        if n_features is not None and not (isinstance(n_features, Integral) and n_features >= 1):
            raise ValueError(f"n_features must be a positive integer; got {n_features!r}")
        if scale is not None and not (isinstance(scale, Real) and np.isfinite(scale)
                                      and scale > 0):
            raise ValueError(f"scale must be a finite number > 0 or None; got {scale!r}")
        if np.dtype(dtype) not in (np.float64, np.float32):
            raise ValueError(f"dtype must be float64 or float32; got {np.dtype(dtype)}")
        if not (holdout is None or (isinstance(holdout, Integral) and holdout >= 1)
                or (isinstance(holdout, tuple) and len(holdout) == 2)):
            raise ValueError("holdout must be a positive number of rows or a pair (X, y); got "
                             f"{type(holdout).__name__}")
        self.blocks = blocks
        self.n_features = None if n_features is None else int(n_features)
        self.classes = None if classes is None else checked_classes(classes)
        self.scale = None if scale is None else float(scale)
        self.dtype = np.dtype(dtype)
        self.buffer_rows = int(buffer_rows)
        self.n_iter_no_change = int(n_iter_no_change)
        self.name = str(name)
        self.holdout = int(holdout) if isinstance(holdout, Integral) else holdout
        if isinstance(holdout, tuple):
            X, y = self.convert(*holdout, where="the held-out rows")
            self.holdout = X, y

    @classmethod
    def from_arrays(cls, X, y, *, block_rows=65_536, **kwargs):
        """A stream of the rows of ``X`` (an array or a NumPy memory map) and labels ``y``.

        The rows are read ``block_rows`` at a time: only the rows of a block are
        converted at once.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            The rows (uint8 pixels in a memory map: ``np.load(path, mmap_mode="r")``).
        y : array-like of shape (n_samples,)
            The labels.
        block_rows : int, default=65536
            Rows read and converted at a time.
        **kwargs
            The other parameters of :class:`BlockStream`.

        Returns
        -------
        BlockStream
            A stream whose passes read X from its start.
        """
        if not (isinstance(block_rows, Integral) and block_rows >= 1):
            raise ValueError(f"block_rows must be a positive integer; got {block_rows!r}")
        if not (sp.issparse(X) or isinstance(X, np.ndarray)):  # (a memory map is one)
            X = np.asarray(X)
        y = y if isinstance(y, np.ndarray) else np.asarray(y)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (rows of features); got shape {list(X.shape)}")
        if y.ndim != 1 or len(y) != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has labels of shape "
                             f"{list(y.shape)}: give one label per row")
        n = X.shape[0]

        def blocks():
            for lo in range(0, n, block_rows):
                yield X[lo:lo + block_rows], y[lo:lo + block_rows]

        return cls(blocks, **kwargs)

    def passes(self):
        """One pass's blocks, as given (not converted).

        Returns
        -------
        iterator
            The ``(X, y)`` blocks of a new pass.
        """
        blocks = self.blocks() if callable(self.blocks) else self.blocks
        try:
            return iter(blocks)
        except TypeError:
            raise TypeError(f"{self.name}: blocks() returned {type(blocks).__name__}, not an "
                            "iterable of (X, y) blocks: give a function that returns one "
                            "(a generator function, say)") from None

    def convert(self, X, y, *, where="a block"):
        """A block ``(X, y)`` converted and checked.

        Parameters
        ----------
        X : array-like or sparse matrix
            The block's rows.
        y : array-like
            Their labels.
        where : str, default="a block"
            How errors name the block.

        Returns
        -------
        X : ndarray or scipy.sparse.csr_matrix
            The values in ``dtype``, times ``scale``: dense C-ordered or CSR.
        y : ndarray
            The labels.
        """
        y = np.asarray(y)
        if sp.issparse(X):
            X = sp.csr_matrix(X)
            if X.dtype.kind not in "biuf":
                raise ValueError(f"{where} of {self.name} holds {X.dtype} values, not numbers")
            check_sparse_structure(X)
            data = X.data.astype(self.dtype)
            if self.scale is not None:
                data *= self.scale
            X = sp.csr_matrix((data, X.indices, X.indptr), shape=X.shape)
            values = data
        else:
            X = np.asarray(X)
            if X.ndim != 2 or X.dtype.kind not in "biuf":
                raise ValueError(f"{where} of {self.name} must be a 2-D array of numbers; got "
                                 f"{X.dtype} of shape {list(X.shape)}")
            X = np.array(X, dtype=self.dtype, order="C")  # (a copy: a memory map is not changed)
            if self.scale is not None:
                X *= self.scale
            values = X
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(f"{where} of {self.name} has {X.shape[0]} rows but labels of shape "
                             f"{list(y.shape)}: give one label per row")
        if X.shape[1] == 0 and not sp.issparse(X):
            raise ValueError(f"{where} of {self.name} has rows of no features (shape "
                             f"{list(X.shape)}): give rows of at least one feature")
        if not np.all(np.isfinite(values)):
            raise ValueError(f"{where} of {self.name} holds NaN or infinite values")
        if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
            raise ValueError(f"{where} of {self.name} has NaN or infinite labels")
        kind = label_kind(y, f"{where} of {self.name}")
        if self.classes is not None and y.size and kind != label_kind(self.classes, ""):
            raise ValueError(f"{where} of {self.name} has labels that are {kind}s, the "
                             f"stream's classes {self.classes[:10].tolist()} are not: give "
                             "classes of the labels' type")
        return X, y

    def rows(self):
        """The rows a fit reads, from the blocks' start.

        Returns
        -------
        RowSource
            The rows, taken a number at a time, pass after pass, or a round at a time.
        """
        return RowSource(_Blocks(self), self.buffer_rows)


class _Blocks:
    """The reader of a :class:`BlockStream`'s :class:`~pegasos.stream.RowSource`: each
    pass's blocks converted and checked (a block wider than the stream's rows, or dense
    among sparse, is an error naming it)."""

    cached = None  # a block stream has no cache: its rounds draw from the buffer
    zero_based = None

    def __init__(self, stream):
        self.stream, self.name = stream, stream.name
        self.width = stream.n_features
        self.dense = None
        self.labels = None  # (the kind of the first labels: "number" or "string")

    def blocks(self):
        """A new pass's blocks ``(X, y, nbytes)``, converted (those without rows too)."""
        return self._converted(self.stream.passes())

    def _converted(self, blocks):
        empty = 0  # blocks in a row without rows
        for count, block in enumerate(blocks, start=1):
            try:
                X, y = block
            except (TypeError, ValueError):
                raise ValueError(f"block {count} of {self.stream.name} is not a pair "
                                 "(X, y)") from None
            nbytes = getattr(X, "nbytes", 0) or getattr(getattr(X, "data", None), "nbytes", 0)
            X, y = self.stream.convert(X, y, where=f"block {count}")
            self._check_width(X, count)
            self._check_labels(y, count)
            empty = 0 if X.shape[0] else empty + 1
            if empty >= EMPTY_BLOCKS:  # (an endless pass of empty blocks: never a hang)
                raise ValueError(f"{self.stream.name}: {EMPTY_BLOCKS} blocks in a row have no "
                                 "rows: give blocks with rows, and a pass that ends")
            yield X, y, nbytes

    def _check_labels(self, y, count):
        """Labels of one kind in every block: numbers among numbers, strings among strings
        (a mix would compare as text)."""
        if not y.size:
            return
        kind = label_kind(y, f"block {count} of {self.stream.name}")
        if self.labels is None:
            self.labels = kind
        elif kind != self.labels:
            raise ValueError(f"block {count} of {self.stream.name} has labels that are "
                             f"{kind}s, the first block's are not: give labels of one type")

    def part(self, X):
        return X

    def end_pass(self):
        return None

    def close(self):
        pass

    def _check_width(self, X, count):
        dense, width = not sp.issparse(X), X.shape[1]
        if self.dense is None:
            self.dense = dense
            if self.width is None and dense:
                self.width = width  # (sparse blocks: the widest of those taken together)
        if not dense and self.width is None:  # sparse rows as wide as their largest index:
            return  # the fit checks them against the first buffer's width
        if dense != self.dense:
            raise ValueError(f"block {count} of {self.stream.name} is "
                             f"{'dense' if dense else 'sparse'}, the first was not: give "
                             "blocks of one kind")
        if width > self.width or (dense and width != self.width):
            raise ValueError(f"block {count} of {self.stream.name} is {width} features "
                             f"wide, the stream's rows {self.width} (n_features, by default "
                             "the first block's width): give n_features"
                             + (" (dense blocks must all be as wide)" if dense else ""))


def as_block_stream(stream):
    """A :class:`BlockStream` of the rows of ``stream`` as they are read: itself, or a
    :class:`~pegasos.stream.SVMLightStream`'s blocks (of its files or its cache,
    :meth:`~pegasos.stream.SVMLightStream.pass_blocks`), with its settings and its
    held-out rows (a held-out file read whole)."""
    if isinstance(stream, BlockStream):
        return stream
    holdout = stream.holdout
    if holdout is not None and not isinstance(holdout, int):
        holdout = load_svmlight(holdout, zero_based=stream.zero_based)
    return BlockStream(stream.pass_blocks(), n_features=stream.n_features,
                       classes=stream.classes, buffer_rows=stream.buffer_rows,
                       holdout=holdout, n_iter_no_change=stream.n_iter_no_change,
                       name=stream.paths[0])
