"""LIBSVM files read a block at a time, and a binary cache of them that is memory-mapped.

:func:`read_blocks` reads one file, a list or a glob of shards (plain, ``.gz``,
``.bz2``, ``.xz``) in blocks of a bounded number of bytes cut at line ends (a
line longer than the block is read whole), and parses each block with
a compiled parser (:mod:`pegasos._numba.svmlight`; a line it cannot read goes to
scikit-learn's loader, so the two accept the same files): it never holds more than one block and its
rows.  Errors are :class:`~pegasos.datasets.DataFormatError` naming the file and
the line, as :func:`~pegasos.load_svmlight` gives them.

:func:`convert` writes what the blocks hold to a cache file, as Vowpal Wabbit's
``--cache_file``: the labels, the CSR row offsets, the feature indices (int32
where they and the offsets fit, else int64) and the values (float64, or float32
when asked), behind a JSON header with the counts, the dtypes and each source's
size and modification time.  It is written atomically (an interrupted convert
leaves no cache) and never over one of its inputs.  :func:`load_cache` maps it:
the rows come back as a CSR matrix over the file's pages, read-only, so that a
fit draws from it without parsing and the operating system keeps in memory
only the pages in use.  A cache that is truncated, of another format or
version, or older than a source that is still there, is refused with a
:class:`CacheError` that says which.  ``pegasos convert DATA CACHE`` makes one;
``pegasos train`` and ``predict`` take a cache wherever they take a data file.
"""

import bz2
import glob
import gzip
import io
import lzma
import os
import time
import zlib
from numbers import Real

import numpy as np
import scipy.sparse as sp

from ._cache import (
    _PIECE,
    CacheError,
    _CacheWriter,
    _fresh_cache,
    _refuse_an_input,
    _source_record,
    _Unrepresentable,
    is_cache,
    load_cache,
)
from ._files import quote, special_file
from ._rows import check_width, rows_of, stack_rows
from ._svmlight import MAX_FEATURE_INDEX, DataFormatError, _line_problem

__all__ = ["CacheError", "convert", "is_cache", "load_cache", "read_blocks", "sources_of"]

#: Bytes read and parsed at a time by default.
BLOCK_BYTES = 16 << 20

def sources_of(paths):
    """The files that ``paths`` names: one path, a glob pattern, or a list of either, in
    order (each pattern's matches sorted); a pattern that matches nothing is an error.

    >>> sources_of(["a.svm", "b.svm.gz"])
    ['a.svm', 'b.svm.gz']
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out = []
    for path in map(os.fspath, paths):
        if glob.has_magic(path):
            matches = sorted(glob.glob(path))
            if not matches:
                raise DataFormatError(path, None, "no file matches this pattern")
            out.extend(matches)
        else:
            out.append(path)
    if not out:
        raise ValueError("no data file given")
    return out


def _open_binary(path):
    special = special_file(path)
    if special is not None:
        raise DataFormatError(path, None, f"is {special}, not a regular file; give the data as "
                              "a file (plain, .gz, .bz2 or .xz)")
    if os.path.isdir(path):
        raise DataFormatError(path, None, "is a folder, not a data file")
    opener = {".xz": lzma.open, ".bz2": bz2.open, ".gz": gzip.open}.get(
        os.path.splitext(path)[1], open)
    try:
        return opener(path, "rb")
    except FileNotFoundError:
        raise DataFormatError(path, None, "does not exist") from None
    except OSError as exc:
        raise DataFormatError(path, None, f"cannot be read: {exc.strerror or exc}") from None


def _read_upto(f, size):
    """Up to ``size`` bytes of ``f`` (fewer at its end), read :data:`_PIECE` bytes at a
    time: however large ``size`` is, no read asks for more (a buffer of ``size`` bytes
    is never requested before anything is read)."""
    if size <= _PIECE:
        return f.read(size)
    pieces = []
    while size > 0:
        piece = f.read(min(size, _PIECE))
        if not piece:
            break
        pieces.append(piece)
        size -= len(piece)
    return b"".join(pieces)


def _chunks(f, block_bytes):
    """Byte strings of whole lines, about ``block_bytes`` each (a longer line whole)."""
    carry, size = b"", block_bytes
    while True:
        data = _read_upto(f, size)
        if not data:
            break
        data = carry + data
        cut = data.rfind(b"\n") + 1
        if cut == 0:  # no line end yet: a line longer than the block, read in ever larger
            carry, size = data, 2 * size  # reads (not one copy of it per block)
            continue
        carry, size = data[cut:], block_bytes
        yield data[:cut]
    if carry:
        yield carry


class _Indexing:
    """How the feature indices of a stream of blocks are read: ``zero_based`` True, False,
    or ``"auto"`` until the first block with a feature settles it as scikit-learn's
    ``load_svmlight_file(zero_based="auto")`` settles a whole file: zero-based if an
    index 0 is there, else one-based (a later index 0 is then an error that says to
    give ``zero_based=True``).  ``given`` is what was asked."""

    def __init__(self, zero_based):
        if not (isinstance(zero_based, (bool, np.bool_)) or zero_based == "auto"):
            raise ValueError(f"zero_based must be True, False or 'auto'; got {zero_based!r}")
        self.given = self.zero_based = zero_based if zero_based == "auto" else bool(zero_based)

    def parse(self, path, chunk, first_line):
        """(X, y) of a chunk, its indices read as settled (settling them if "auto")."""
        if self.zero_based != "auto":
            try:
                return _parse(path, chunk, first_line, self.zero_based)
            except DataFormatError as exc:
                if self.given == "auto" and "is below 1" in exc.reason:
                    raise DataFormatError(path, exc.line, exc.reason + "; zero_based='auto' "
                                          "read the stream as one-based (its first block has "
                                          "no index 0): give zero_based=True") from exc
                raise
        X, y = _parse(path, chunk, first_line, True)
        if X.nnz:
            self.zero_based = bool(X.indices.min() == 0)
            if not self.zero_based:  # one-based after all: every index one lower
                X = sp.csr_matrix((X.data, X.indices - 1, X.indptr),
                                  shape=(X.shape[0], max(1, X.shape[1] - 1)))
        return X, y


def _parse(path, chunk, first_line, zero_based):
    """(X, y) of one chunk of whole lines, or a DataFormatError naming the line: the
    compiled parser's, or where it cannot read a line, scikit-learn's loader's."""
    parsed = _parse_compiled(chunk, zero_based)
    return _parse_with_scikit_learn(path, chunk, first_line, zero_based) if parsed is None \
        else parsed


def _parse_compiled(chunk, zero_based):
    """(X, y) by :func:`pegasos._numba.svmlight.parse_block` (the numbers it leaves to
    Python rounded by ``float``), or None where a line is not read as valid."""
    from ._numba.svmlight import Parsed, parse_block

    buf = np.frombuffer(chunk, np.uint8)
    lines, colons = chunk.count(b"\n") + 1, chunk.count(b":")
    out = Parsed(np.empty(lines), np.empty(lines + 1, np.int64), np.empty(colons, np.int64),
                 np.empty(colons), np.empty((colons + lines, 3), np.int64))
    rows, nnz, n_slow, bad = parse_block(buf, np.int64(0 if zero_based else 1), out)
    if bad >= 0:
        return None
    for where, start, stop in out.slow[:n_slow].tolist():
        try:
            value = float(chunk[start:stop])
        except ValueError:
            return None
        if where >= 0:
            out.values[where] = value
        else:
            out.labels[-1 - where] = value
    indices, values, labels = out.indices[:nnz], out.values[:nnz], out.labels[:rows]
    width = int(indices.max()) + 1 if nnz else 1
    if width > MAX_FEATURE_INDEX + 1 or not (np.all(np.isfinite(values))
                                             and np.all(np.isfinite(labels))):
        return None
    X = sp.csr_matrix((values, indices, out.indptr[:rows + 1]), shape=(rows, width))
    return X, labels


def _parse_with_scikit_learn(path, chunk, first_line, zero_based):
    """:func:`_parse` by scikit-learn's loader, its errors located by line."""
    from sklearn.datasets import load_svmlight_file

    try:
        X, y = load_svmlight_file(io.BytesIO(chunk), zero_based=zero_based, dtype=np.float64)
        ok = (X.shape[1] <= MAX_FEATURE_INDEX + 1 and np.all(np.isfinite(X.data))
              and np.all(np.isfinite(y)))
        error = None if ok else ValueError("a non-finite value or a feature index too large")
    except (ValueError, OverflowError) as exc:
        error = exc
    if error is None:
        return X, y
    text = chunk.decode("utf-8", errors="replace").split("\n")
    for number, line in enumerate(text, start=first_line):
        problem = _line_problem(line.split("#", 1)[0], zero_based is True)
        if problem is not None:
            raise DataFormatError(path, number, problem) from error
    raise DataFormatError(path, None, quote(error)) from error


def read_blocks(paths, *, block_bytes=BLOCK_BYTES, zero_based=False):
    """Iterate over the rows of LIBSVM files a block at a time.

    Parameters
    ----------
    paths : str, path-like, or list of them
        One file, a glob pattern (``"shards/part-*.svm.gz"``) or a list of
        either, read in order; plain, ``.gz``, ``.bz2`` or ``.xz``.
    block_bytes : int, default=16 MiB
        The uncompressed bytes read and parsed at a time (cut at a line end).
    zero_based : bool or "auto", default=False
        Whether feature indices start at 0 (LIBSVM's files are one-based);
        "auto" decides as scikit-learn's ``load_svmlight_file`` does, from the
        first block with a feature (zero-based if it has an index 0, else
        one-based; an index 0 in a later block of a stream read as one-based
        is then an error that says to give True).

    Yields
    ------
    X : scipy.sparse.csr_matrix
        The block's rows, float64 values, int32 or int64 indices; as wide as
        its largest index (the stream's width grows block by block).
    y : ndarray of float64
        Their labels.

    Raises
    ------
    DataFormatError
        For a malformed or non-finite entry (the file and the line), a
        special file, or a pattern that matches nothing.

    See Also
    --------
    convert : The blocks into a cache file.
    pegasos.load_svmlight : A whole file at once.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.svm")
    >>> with open(path, "w") as f:
    ...     _ = f.write("1 1:0.5 3:2\\n-1 2:1\\n1 7:4\\n")
    >>> [(X.shape, y.tolist()) for X, y in read_blocks(path, block_bytes=12)]
    [((1, 3), [1.0]), ((1, 2), [-1.0]), ((1, 7), [1.0])]
    """
    _check_block_bytes(block_bytes)
    indexing = _Indexing(zero_based)
    for path in sources_of(paths):
        for X, y, _ in _file_blocks(path, block_bytes, indexing):
            yield X, y


def _check_block_bytes(block_bytes):
    if not (isinstance(block_bytes, (int, np.integer)) and block_bytes >= 1):
        raise ValueError(f"block_bytes must be a positive integer; got {block_bytes!r}")


def _file_blocks(path, block_bytes, indexing):
    """``(X, y, nbytes)`` of one file's blocks with rows: ``nbytes`` the uncompressed
    bytes read for them (and for any rowless block before them); ``indexing`` an
    :class:`_Indexing`, shared by the files of a stream."""
    line, nbytes = 1, 0
    with _open_binary(path) as f:
        try:
            for chunk in _chunks(f, block_bytes):
                X, y = indexing.parse(path, chunk, line)
                line += chunk.count(b"\n")
                nbytes += len(chunk)
                if X.shape[0]:
                    yield X, y, nbytes
                    nbytes = 0
        except (EOFError, OSError, lzma.LZMAError, zlib.error) as exc:
            if isinstance(exc, OSError) and exc.errno is not None:
                raise
            raise DataFormatError(path, None, f"cannot be read: {quote(exc)}") from exc


# --- the cache (its format: pegasos._cache) ----------------------------------------


def convert(paths, cache, *, zero_based=False, dtype=np.float64, block_bytes=BLOCK_BYTES):
    """Parse LIBSVM files once, a block at a time, into a cache file for :func:`load_cache`.

    Parameters
    ----------
    paths : str, path-like, or list of them
        The data: one file, a glob pattern or a list (see :func:`read_blocks`).
    cache : str or path-like
        The cache file, written atomically; it may not be one of the inputs.
    zero_based : bool or "auto", default=False
        Whether the files' feature indices start at 0; "auto": zero-based if
        the first block with a feature has an index 0 (see :func:`read_blocks`).
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
        The values' type in the cache (float32 halves it; the linear
        estimators compute in float64 and would convert it in memory).  A
        value beyond float32's range (about 3.4e38) is an error naming its
        file and line, never an infinity in the cache.
    block_bytes : int, default=16 MiB
        The bytes parsed at a time: memory holds one block's rows, plus the
        writes' buffers.

    Returns
    -------
    dict
        The cache's header: ``n_rows``, ``n_features``, ``nnz``, the dtypes,
        the sources, each section's offset and CRC-32 (which :func:`load_cache`
        verifies before it trusts a row).

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "tiny.svm"), "w") as f:
    ...     _ = f.write("1 1:0.5 3:2\\n-1 2:1\\n")
    >>> header = convert(os.path.join(folder, "tiny.svm"), os.path.join(folder, "tiny.cache"))
    >>> header["n_rows"], header["n_features"], header["nnz"]
    (2, 3, 3)
    >>> X, y = load_cache(os.path.join(folder, "tiny.cache"))
    >>> X.toarray().tolist(), y.tolist()
    ([[0.5, 0.0, 2.0], [0.0, 1.0, 0.0]], [1.0, -1.0])
    """
    dtype = np.dtype(dtype)
    if dtype not in (np.float64, np.float32):
        raise ValueError(f"dtype must be float64 or float32; got {dtype}")
    cache = os.fspath(cache)
    sources = sources_of(paths)
    _check_block_bytes(block_bytes)
    indexing = _Indexing(zero_based)
    _refuse_an_input(cache, sources)
    records = []
    for source in sources:  # before reading: a change shows as stale
        with _open_binary(source):  # (a missing file, a folder: named)
            records.append(_source_record(source))
    writer = _CacheWriter(cache, indexing, dtype)
    try:
        for source in sources:
            rows = 0
            for X, y, _ in _file_blocks(source, block_bytes, indexing):
                try:
                    writer.add(X, y)
                except _Unrepresentable as exc:
                    feature = exc.column + (0 if indexing.zero_based is True else 1)
                    raise DataFormatError(
                        source, _line_of_row(source, rows + exc.row),
                        f"the value {exc.value!r} of feature {feature} is beyond the range "
                        f"of {dtype.name} (at most {float(np.finfo(dtype).max):.6g} in "
                        f"magnitude): convert it as float64") from None
                rows += X.shape[0]
        if writer.n_rows == 0:
            raise DataFormatError(sources[0], None, "no data: the files have no examples")
        return writer.finish(records)
    finally:
        writer.close()


def _line_of_row(path, row):
    """The number of the line of ``path`` that holds its row ``row`` (from 0): the rows
    are the lines with something before any ``#``."""
    seen = -1
    with _open_binary(path) as f:
        for number, line in enumerate(f, start=1):
            if line.split(b"#", 1)[0].strip():
                seen += 1
                if seen == row:
                    return number
    return None


# --- a stream of rows, for fit ------------------------------------------------------

#: Rows in the shuffle buffer by default (see :class:`SVMLightStream`).
BUFFER_ROWS = 1 << 16


def label_kind(y, where):
    """``"number"`` or ``"string"``: what the labels ``y`` (1-D) are, or an error naming
    ``where`` when they are neither, or a mix (an object array of numbers and text, None)."""
    kind = y.dtype.kind
    if kind in "biuf":
        return "number"
    if kind in "US":
        return "string"
    if kind == "O":
        kinds = {"string" if isinstance(v, str) else "number" if isinstance(v, Real)
                 else None for v in y.tolist()}
        if len(kinds) <= 1 and None not in kinds:
            return kinds.pop() if kinds else "number"
    raise ValueError(f"{where} has labels of {y.dtype}"
                     + (" mixing numbers, strings or other objects" if kind == "O" else "")
                     + ": give labels that are all numbers or all strings")


def checked_classes(classes, numbers=False):
    """A stream's ``classes`` parameter as its sorted distinct labels: at least two, all
    numbers (finite) or all strings (``numbers``: numbers only, as the labels of a text)."""
    arr = np.asarray(classes)
    if arr.ndim != 1:
        raise ValueError(f"classes must be a list of labels; got an array of shape "
                         f"{list(arr.shape)}")
    kind = label_kind(arr, "classes")
    if numbers and kind != "number":
        raise ValueError("classes must be numbers: a LIBSVM file's labels are numbers")
    if kind == "number" and arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError("classes holds NaN or infinite labels")
    arr = np.unique(arr)
    if len(arr) < 2:
        raise ValueError(f"classes must list at least two labels; got {arr.tolist()}")
    return arr


class SVMLightStream:
    """LIBSVM files as a stream of rows that ``PegasosClassifier.fit`` takes in place of X, y.

    ``PegasosClassifier(lam=...).fit(SVMLightStream(paths))`` trains without
    loading the files: the rows are read a block at a time into a shuffle
    buffer of ``buffer_rows`` rows; each round of iterations draws its
    mini-batches uniformly from the buffer, and the rows drawn are replaced by
    the next rows of the files (another pass starts at the end).  A fit of T
    iterations of k examples reads about ``buffer_rows + T k`` rows, whatever
    the files' size, and never parses the rest.  When the whole data fits in
    the buffer, the fit is the in-memory fit of those rows, bit for bit (the
    same seed gives the same model).  As dask-ml's wrappers take a dask array
    where scikit-learn takes an array, ``fit`` takes the stream where it takes
    ``X`` (and no ``y``: the labels are in the files).

    With ``cache``, the first pass also writes the rows it parses to a cache
    file (as Vowpal Wabbit's ``--cache_file``); once the pass is complete, the
    rounds draw uniformly from all the rows of the memory-mapped cache, and no
    text is parsed again.  A stream of a cache file (``pegasos convert``)
    draws uniformly from the start.

    With ``holdout``, the fit stops early: the held-out rows' error of the
    current model is measured whenever the examples drawn since the last
    measurement are at least as many as the held-out rows and a tenth of all
    those drawn so far, and the fit stops after ``n_iter_no_change``
    measurements without a new lowest error (or at its budget, measured once
    more), keeping its last model.

    The files are watched (their size and modification time, at every block):
    one that changes or disappears while a fit reads it ends the fit with a
    :class:`~pegasos.datasets.DataFormatError`.

    Parameters
    ----------
    paths : str, path-like, or list of them
        One file, a glob pattern of shards, or a list (see :func:`read_blocks`);
        or one cache file.
    n_features : int, default=None
        The number of features; by default the largest index of the first
        buffer's rows, or a cache's (a later row beyond it is an error that
        says to give it).
    classes : array-like, default=None
        The labels; by default those of the first buffer's rows (of a cache:
        of its first ``buffer_rows`` rows); a later row of another label is an
        error that says to give them.
    zero_based : bool or "auto", default=False
        Whether feature indices start at 0; "auto" as :func:`read_blocks`
        decides it (from the first block with a feature).
    block_bytes : int, default=16 MiB
        The bytes parsed at a time (read in pieces of at most 8 MiB, whatever
        this is).
    buffer_rows : int, default=65536
        The shuffle buffer's rows: memory holds them (about 12 bytes a stored
        value) and one block.  A round draws an eighth of them.
    cache : str or path-like, default=None
        A cache file for the stream: used if it holds these files (and is not
        older than them), else written by the first pass (atomically, once the
        pass is complete, and then read through once to check its structure;
        a fit that ends sooner writes none).  A file there that is not a
        cache, or a cache of other files, is refused.
    holdout : int or str or path-like, default=None
        The held-out rows of the stopping rule: the stream's first ``holdout``
        rows (never trained on, in any pass), or a LIBSVM file (the test
        file, say) read whole.
    n_iter_no_change : int, default=5
        Measurements of the held-out error without a new lowest one before
        the fit stops.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from pegasos import PegasosClassifier
    >>> path = os.path.join(tempfile.mkdtemp(), "stream.svm")
    >>> rng = np.random.default_rng(0)
    >>> with open(path, "w") as f:
    ...     for x in rng.normal(size=(2000, 2)):
    ...         _ = f.write(f"{1 if x[0] > 0 else -1} 1:{x[0]:.4f} 2:{x[1]:.4f}\\n")
    >>> stream = SVMLightStream(path, buffer_rows=500)
    >>> clf = PegasosClassifier(lam=0.01, n_iter=400, random_state=0).fit(stream)
    >>> clf.n_rows_read_ < 2000, clf.classes_.tolist()
    (True, [-1.0, 1.0])
    >>> stopped = PegasosClassifier(lam=0.001, random_state=0).fit(
    ...     SVMLightStream(path, buffer_rows=500, holdout=200))
    >>> stopped.n_iter_ < 10_000, stopped.holdout_errors_.shape[1]  # 10/lam is the budget
    (True, 2)
    """

    def __init__(self, paths, *, n_features=None, classes=None, zero_based=False,
                 block_bytes=BLOCK_BYTES, buffer_rows=BUFFER_ROWS, cache=None, holdout=None,
                 n_iter_no_change=5):
        self.paths = sources_of(paths)
        if n_features is not None and not (isinstance(n_features, (int, np.integer))
                                           and 1 <= n_features <= MAX_FEATURE_INDEX + 1):
            raise ValueError(f"n_features must be an integer in [1, {MAX_FEATURE_INDEX + 1}]; "
                             f"got {n_features!r}")
        for name, value in (("buffer_rows", buffer_rows), ("n_iter_no_change", n_iter_no_change)):
            if not (isinstance(value, (int, np.integer)) and value >= 1):
                raise ValueError(f"{name} must be a positive integer; got {value!r}")
        _check_block_bytes(block_bytes)
        if not (holdout is None or isinstance(holdout, (str, os.PathLike))
                or (isinstance(holdout, (int, np.integer)) and holdout >= 1)):
            raise ValueError("holdout must be a positive number of rows or a file's path; got "
                             f"{holdout!r}")
        _Indexing(zero_based)  # (checked)
        self.n_features = None if n_features is None else int(n_features)
        self.classes = None if classes is None else checked_classes(classes, numbers=True)
        self.zero_based = zero_based
        self.block_bytes = int(block_bytes)
        self.buffer_rows = int(buffer_rows)
        self.cache = None if cache is None else os.fspath(cache)
        self.holdout = holdout if isinstance(holdout, (str, os.PathLike)) or holdout is None \
            else int(holdout)
        self.n_iter_no_change = int(n_iter_no_change)
        if self.cache is not None:
            if self.is_cache_file():
                raise ValueError(f"{self.paths[0]} is a cache already: give no cache")
            held = [os.fspath(holdout)] if isinstance(holdout, (str, os.PathLike)) else []
            _refuse_an_input(self.cache, self.paths + held)

    def rows(self):
        """A :class:`RowSource` over the files (or the cache), from their start."""
        return RowSource(_Files(self), self.buffer_rows)

    def is_cache_file(self):
        """Whether the stream is one cache file (``pegasos convert``'s)."""
        return len(self.paths) == 1 and is_cache(self.paths[0])

    def pass_blocks(self):
        """The rows as a function that gives each pass's ``(X, y)`` blocks (what a
        :class:`~pegasos.BlockStream` takes): of the stream's cache file, or of its
        ``cache`` (used if it holds these files and is not older, else written first, in
        one pass, now), or of its files."""
        cached = None
        if self.is_cache_file():
            cached = load_cache(self.paths[0])
        elif self.cache is not None:
            cached = _fresh_cache(self.cache, self.paths, self.zero_based)
            if cached is None:
                convert(self.paths, self.cache, zero_based=self.zero_based,
                        block_bytes=self.block_bytes)
                cached = load_cache(self.cache)
        if cached is None:
            return lambda: read_blocks(self.paths, block_bytes=self.block_bytes,
                                       zero_based=self.zero_based)
        X_all, y_all = cached
        step = 1 << 14

        def blocks():
            for lo in range(0, X_all.shape[0], step):
                yield X_all[lo:lo + step], y_all[lo:lo + step]

        return blocks


#: The share of the shuffle buffer that one round of a stream fit draws
#: (:meth:`RowSource.draw_round`): the rows drawn are then replaced by the stream's next rows.
STREAM_ROUND = 1 / 8


class RowSource:
    """The rows of a stream, as a fit takes them: a pass at a time, a shuffle buffer's round
    at a time, or from the stream's cache once there is a complete one.

    It owns the storage: the blocks of a pass come from a ``reader`` (the files of a
    :class:`SVMLightStream`, watched for changes and written to its cache as the first
    pass reads them, or the blocks of a :class:`~pegasos.BlockStream`), and the fit sees
    rows either way.  :meth:`draw_round` is the call a stream fit makes for each round:
    ``STREAM_ROUND`` of the shuffle buffer drawn uniformly (the rows drawn in the round
    before replaced first by the stream's next rows), or as many rows drawn uniformly
    from all the rows of the cache once there is one.  :meth:`take` and
    :meth:`blocks_of` read the rows in order; :meth:`hold_out` sets the first rows
    apart.  It counts the rows and bytes read.

    ``reader`` has ``name`` (how errors name the stream), ``width`` (the fit's, None
    until known: a wider row taken is an error), ``cached`` (``(X, y)`` of a complete
    cache from the start, or None), ``zero_based`` (how a text's indices were read),
    ``blocks()`` (the ``(X, y, nbytes)`` of a new pass), ``part(X)`` (rows taken, as
    the fit sees them), ``end_pass()`` (a cache the pass completed, or None) and
    ``close()``.
    """

    def __init__(self, reader, buffer_rows):
        self.reader, self.name, self.buffer_rows = reader, reader.name, buffer_rows
        self.started = time.perf_counter()
        self.rows_read = self.bytes_read = 0
        self.passes = 0  # passes completed
        self.skip = self.cache_from = 0  # the held-out rows: passed over, in the rows and cache
        self.cached = reader.cached
        self._blocks = None
        self._pending = None  # (X, y) of a block not all taken
        self._buffer = None  # the shuffle buffer, (X, y)
        self._drawn = None  # the buffer's slots drawn by the last round: refilled next

    @property
    def width(self):
        """The fit's width, once known (:meth:`set_width`)."""
        return self.reader.width

    @property
    def zero_based(self):
        """Whether a text stream's indices were read as zero-based (settled by its first
        block with a feature)."""
        return self.reader.zero_based

    def hold_out(self, m):
        """The first ``m`` rows, ``(X, y)``, set apart: never taken again, nor drawn from
        the cache; an error if they are all the rows there are."""
        if self.cached is None:
            self.skip = m  # (first: a cache that this pass completes starts past them)
            held = self.take(m)
            every = held is None or self.passes > 0 or self.exhausted()
        else:
            X, y = self.cached
            self.cache_from = min(m, X.shape[0])
            held = rows_of(X, y, np.arange(self.cache_from), X.shape[1])
            every = self.cache_from == X.shape[0]
        if every:
            raise ValueError(f"{self.name}: holdout={m} takes every row of the stream: give "
                             "fewer held-out rows")
        return held

    def fill(self):
        """The shuffle buffer's first ``buffer_rows`` rows (of a cache: only their labels
        are read): ``(width, labels)``, the width as wide as their widest row (a cache's:
        its own)."""
        if self.cached is not None:
            X_all, y_all = self.cached
            first = y_all[self.cache_from:self.cache_from + self.buffer_rows]
            return X_all.shape[1], np.asarray(first, dtype=np.float64)
        self._buffer = self.take(self.buffer_rows)
        if self._buffer is None:
            raise ValueError(f"{self.name}: no data: the stream has no rows to train on")
        return self._buffer[0].shape[1], self._buffer[1]

    def set_width(self, width):
        """The fit's width: the buffer widened to it, and any row taken or drawn wider an
        error."""
        self.reader.width = width
        if self._buffer is not None:
            self._buffer = (stack_rows([self._buffer[0]], width), self._buffer[1])

    def whole(self):
        """The buffer ``(X, y)`` when it holds every row of the stream, else None."""
        if self._buffer is not None and (self.passes or self.exhausted()):
            return self._buffer
        return None

    def draw_round(self, rng, k, most):
        """One round's draws: ``(X, y, idx)``, the rows (float64, the fit's width), their
        labels, and ``idx`` the mini-batches' positions among them (``steps * k`` of
        them, ``steps`` at most ``most``).

        From the buffer: ``STREAM_ROUND`` of it, uniformly with replacement (first, the
        slots the round before drew get the stream's next rows); from a complete cache:
        as many rows, uniformly from all its rows past the held-out ones."""
        if self._drawn is not None:
            self._refill(self._drawn)
            self._drawn = None
        if self.cached is not None:
            X_all, y_all = self.cached
            share = int(min(self.buffer_rows, X_all.shape[0] - self.cache_from) * STREAM_ROUND)
            steps = min(max(1, share // k), most)
            idx = rng.integers(self.cache_from, X_all.shape[0], steps * k)
            drawn, local = np.unique(idx, return_inverse=True)
            X, y = rows_of(X_all, y_all, drawn, self.width)
            return X, y, local.astype(np.int64)
        X, y = self._buffer
        steps = min(max(1, int(X.shape[0] * STREAM_ROUND) // k), most)
        idx = rng.integers(0, X.shape[0], steps * k)
        self._drawn = np.unique(idx)
        return X, y, idx

    def _refill(self, drawn):
        """The buffer with the rows ``drawn`` replaced by the stream's next rows (none once
        the first pass completed a cache: the next rounds draw from it)."""
        X, y = self._buffer
        new = self.take(len(drawn))
        if self.cached is not None:
            check_width(self.cached[0].shape[1], X.shape[1])
            self._buffer = None
            return
        if new is None or new[0].shape[0] < len(drawn):  # the end of a pass: the next one
            more = self.take(len(drawn) - (0 if new is None else new[0].shape[0]))
            new = more if new is None else new if more is None else (
                _stack([new[0], more[0]], X.shape[1]), np.concatenate([new[1], more[1]]))
        if new is None:
            return
        slots = drawn[:new[0].shape[0]]  # (increasing) each takes one new row, in place
        if (isinstance(X, np.ndarray) and isinstance(new[0], np.ndarray)
                and new[0].shape[1] == X.shape[1]):
            # dense rows: written over the drawn ones (a copy of the buffer per round cost
            # more than the round's steps when the rows are wide, e.g. a kernel map's); the
            # buffer is made its own array first (it may be a block the caller gave)
            if not (X.flags.owndata and X.flags.writeable and y.flags.owndata):
                X, y = np.array(X), np.array(y)
                self._buffer = (X, y)
            X[slots], y[slots] = new
            return
        order = np.arange(X.shape[0])
        order[slots] = X.shape[0] + np.arange(len(slots))
        self._buffer = (_stack([X, new[0]], X.shape[1])[order],
                        np.concatenate([y, new[1]])[order])

    def progress(self, elapsed):
        """The rows read, the rate, and whether the rounds draw from the cache, as a
        verbose line says them."""
        return (f"{self.rows_read} rows read ({self.bytes_read / max(elapsed, 1e-9) / 1e6:.1f} "
                "MB/s)" + ("" if self.cached is None else ", drawing from the cache"))

    def blocks_of(self, rows):
        """The rows ``rows`` at a time, pass after pass, as ``(X, y, first, ends)``:
        ``first`` the position of X's first row in its pass (0 at each pass's first
        block), ``ends`` whether X's rows end the pass; from a complete cache, its rows a
        slice at a time (float64 CSR)."""
        position = 0
        while True:
            if self.cached is not None:
                X_all, y_all = self.cached
                start = self.cache_from
                if X_all.shape[0] <= start:
                    return
                for lo in range(start, X_all.shape[0], rows):
                    hi = min(X_all.shape[0], lo + rows)
                    self.rows_read += hi - lo
                    yield (sp.csr_matrix(X_all[lo:hi], dtype=np.float64),
                           np.asarray(y_all[lo:hi], dtype=np.float64), lo - start,
                           hi == X_all.shape[0])
                continue
            passes = self.passes
            got = self.take(rows)
            if got is None:  # a pass ended on a block boundary (or the stream has no rows)
                if position == 0:
                    return
                position = 0
                continue
            ends = self.passes != passes or self.exhausted()  # these rows end the pass
            yield got[0], got[1], position, ends
            position = 0 if ends else position + got[0].shape[0]

    def close(self):
        """Close the file being read, and drop an unfinished cache's parts (a fit that
        ended before its first pass did)."""
        if self._blocks is not None:
            self._blocks.close()
            self._blocks = None
        self.reader.close()

    def exhausted(self):
        """Whether the pass ends here: True once every row has been taken (it reads the
        next block ahead when it must, and ends the pass as :meth:`take` would)."""
        if self._pending is None:
            if self._blocks is None:
                return False  # a pass not started yet (or just ended: counted)
            self._pending = self._next_block()
            if self._pending is None:
                return True
        return False

    def take(self, m):
        """Up to ``m`` rows as ``(X, y)``: fewer (even none: None) at the end of a pass,
        after which :meth:`take` starts the next."""
        if self._blocks is None:
            self._blocks = self.reader.blocks()
            to_skip = self.skip if self.passes else 0
            while to_skip and self._take_part(to_skip) is not None:  # the held-out rows
                to_skip -= self._last
        parts, got = [], 0
        while got < m:
            part = self._take_part(m - got)
            if part is None:
                break
            parts.append(part)
            got += self._last
        if not parts:
            return None
        return stack_rows([X for X, _ in parts], self.width), np.concatenate(
            [y for _, y in parts])

    def _take_part(self, m):
        """At most ``m`` rows of the current block (reading the next when it is used up),
        or None at the end of the pass."""
        if self._pending is None:
            self._pending = self._next_block()
            if self._pending is None:
                return None
        X, y = self._pending
        part = self._last = min(m, X.shape[0])
        self._pending = None if part == X.shape[0] else (X[part:], y[part:])
        self.rows_read += part
        return self.reader.part(X[:part]), y[:part]

    def _next_block(self):
        """The pass's next block with rows, or None when it ends (the next take starts
        another)."""
        while True:
            block = next(self._blocks, None) if self._blocks is not None else None
            if block is None:
                self._blocks, self.passes = None, self.passes + 1
                cached = self.reader.end_pass()
                if cached is not None:  # the first pass completed the cache
                    self.cached, self.cache_from = cached, self.skip
                return None
            X, y, nbytes = block
            self.bytes_read += nbytes
            if X.shape[0]:
                return X, y


def _stack(blocks, width):
    for B in blocks:
        check_width(B.shape[1], width)
    return stack_rows(blocks, width)


class _Files:
    """The reader of a :class:`SVMLightStream`'s :class:`RowSource`: its files a block at a
    time, watched for changes (a file that changes or vanishes during the fit is an
    error), and written to the stream's cache by the first pass."""

    def __init__(self, stream):
        self.stream, self.name = stream, stream.paths[0]
        self.indexing = _Indexing(stream.zero_based)  # (settled by the first pass)
        self.width = None
        self.cached = None
        self._seen = {}  # path: its record (_source_record) when the fit began
        self._writer = None
        self._path = None  # the file being read
        paths, cache = stream.paths, stream.cache
        if stream.is_cache_file():
            self.cached = load_cache(paths[0])
            return
        for path in paths:  # each file as the fit found it: later changes are errors
            try:
                self._seen[path] = _source_record(path)
            except FileNotFoundError:
                raise DataFormatError(path, None, "does not exist") from None
        if cache is not None:
            self.cached = _fresh_cache(cache, paths, self.indexing.given)
            if self.cached is None:
                self._writer = _CacheWriter(cache, self.indexing, np.float64)

    @property
    def zero_based(self):
        return self.indexing.zero_based

    def blocks(self):
        """A pass's blocks ``(X, y, nbytes)``, each added to the cache being written."""
        stream = self.stream
        for path in stream.paths:
            self._path = path
            self._check_unchanged(path)
            for X, y, nbytes in _file_blocks(path, stream.block_bytes, self.indexing):
                self._check_unchanged(path)  # (a stat a block: nothing beside the parse)
                if self._writer is not None:
                    self._writer.add(X, y)
                yield X, y, nbytes
            self._check_unchanged(path)

    def part(self, X):
        """Rows taken as wide as their own largest index (the width rule then depends on
        the rows taken, never on where a block ends); wider than the fit's: an error."""
        rows = _own_width(X)
        if self.width is not None and rows.shape[1] > self.width:
            raise ValueError(
                f"{self._path}: a row is {rows.shape[1]} features wide, beyond the stream's "
                f"n_features={self.width}: give n_features >= {rows.shape[1]} (pegasos "
                "train: --n-features; by default, the width of the first buffer's rows)")
        return rows

    def end_pass(self):
        """The cache, once the first pass has written it whole (None before, and after)."""
        if self._writer is None or not self._writer.n_rows:
            return None
        self._writer.finish([self._seen[p] for p in self.stream.paths])
        self.close()
        return load_cache(self.stream.cache)

    def close(self):
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def _check_unchanged(self, path):
        try:
            now = _source_record(path)
        except FileNotFoundError:
            raise DataFormatError(path, None, "vanished while the fit was reading it") from None
        if self._seen[path] != now:
            raise DataFormatError(path, None, "changed while the fit was reading it (its size "
                                  "or modification time is not what it was when the fit "
                                  "began); the fit stops rather than mix two versions")


def _own_width(X):
    """CSR rows as wide as their own largest index (a block's are as wide as the block's):
    the stream's width rule then depends on the rows taken, never on where a block ends."""
    width = int(X.indices.max()) + 1 if X.nnz else 1
    if width == X.shape[1]:
        return X
    return sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], width))
