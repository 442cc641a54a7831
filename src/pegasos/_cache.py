"""The cache file of LIBSVM rows (:func:`pegasos.stream.convert` writes it,
:func:`load_cache` maps it): the format, its writer and its checked reader.

The labels, the CSR row offsets, the feature indices (int32 where they and the
offsets fit, else int64) and the values (float64, or float32 when asked), each
section aligned and CRC-32'd, behind a JSON header with the counts, the dtypes and
each source's size and modification time.  Read through once before any row is
trusted; refused with a :class:`CacheError` that says why (truncated, foreign, of
another version, corrupt, or older than a source that is still there).  The header
is read and parsed once per open (:func:`_mapped`).
"""

import json
import os
import re
import tempfile
import zlib

import numpy as np
import scipy.sparse as sp

from ._files import quote, same_file, special_file, write_atomic
from ._rows import at_width, check_sparse_structure
from ._svmlight import MAX_FEATURE_INDEX

__all__ = ["CacheError", "is_cache", "load_cache"]

MAGIC = b"PEGASOS-CACHE\n"
FORMAT = "pegasos-cache"
#: 2: a CRC-32 per section and of the header; every field checked (1: no checksums,
#: refused with "run pegasos convert again")
VERSION = 2
_HEADER_KEYS = ("format", "version", "n_rows", "n_features", "nnz", "value_dtype",
                "index_dtype", "zero_based", "zero_based_given", "sources", "checksums",
                "header_checksum", "offsets", "file_size")
_PIECE = 8 << 20  # bytes read, checksummed, converted at a time
_HEADER_CAP = 1 << 20  # bytes of JSON header: a few hundred
_ALIGN = 64
_SECTIONS = ("y", "indptr", "indices", "data")


class CacheError(ValueError):
    """A cache file that cannot be used: truncated, foreign, of another version, or stale.

    The message starts with the cache's path and says which.

    See Also
    --------
    load_cache : Raises it.
    """


def is_cache(path):
    """Whether ``path`` starts as a cache file does (a regular file only)."""
    path = os.fspath(path)
    if special_file(path) is not None or not os.path.isfile(path):
        return False
    with open(path, "rb") as f:
        return f.read(len(MAGIC)) == MAGIC


def _source_record(path):
    info = os.stat(path)
    return {"path": os.path.abspath(path), "size": info.st_size, "mtime_ns": info.st_mtime_ns}


def _refuse_an_input(cache, sources):
    for source in sources:
        if os.path.exists(cache) and same_file(source, cache):
            raise ValueError(f"the cache {cache} is the input {source}; a cache never replaces "
                             "its data")


class _StaleCache(CacheError):
    """A cache older than one of its sources (which a stream writes again)."""


class _OldCache(CacheError):
    """A cache of an older version of the format (which a stream writes again)."""


class _CacheWriter:
    """A cache written as blocks of rows arrive: each section into a temporary file beside
    the cache, then :meth:`finish` writes the cache atomically (:meth:`close` in any case).

    ``indexing``: the :class:`_Indexing` the rows were read with (its ``zero_based`` is
    settled by the time :meth:`finish` runs)."""

    def __init__(self, cache, indexing, dtype):
        self.cache, self.indexing, self.dtype = cache, indexing, np.dtype(dtype)
        folder = os.path.dirname(os.path.abspath(cache))
        self.parts = {}
        try:
            for name in _SECTIONS:
                self.parts[name] = tempfile.TemporaryFile(dir=folder)
        except OSError as exc:
            self.close()
            raise CacheError(f"{cache}: cannot be written there ({exc.strerror or exc})") from exc
        self.parts["indptr"].write(np.zeros(1, np.int64).tobytes())
        self.n_rows = self.nnz = self.width = 0

    def add(self, X, y):
        """Append the rows; a value that the cache's dtype cannot hold (beyond float32's
        range) raises :class:`_Unrepresentable` before anything is written."""
        with np.errstate(over="ignore"):  # (an overflow is refused just below)
            data = X.data.astype(self.dtype)
        if data.dtype != X.data.dtype and not np.all(np.isfinite(data)):
            at = int(np.flatnonzero(~np.isfinite(data))[0])
            raise _Unrepresentable(int(np.searchsorted(X.indptr, at, side="right")) - 1,
                                   float(X.data[at]), int(X.indices[at]))
        parts = self.parts
        parts["y"].write(y.astype(np.float64).tobytes())
        parts["indptr"].write((X.indptr[1:] + self.nnz).astype(np.int64).tobytes())
        parts["indices"].write(X.indices.astype(np.int64).tobytes())
        parts["data"].write(data.tobytes())
        self.n_rows, self.nnz = self.n_rows + X.shape[0], self.nnz + X.nnz
        self.width = max(self.width, X.shape[1])

    def finish(self, records):
        """Write the cache (``records``: each source's path, size and modification time,
        taken before it was read); its header."""
        n_rows, nnz, width, dtype = self.n_rows, self.nnz, self.width, self.dtype
        index = _index_dtype(nnz, width)
        zero_based = self.indexing.zero_based
        header = {"format": FORMAT, "version": VERSION, "n_rows": n_rows, "n_features": width,
                  "nnz": nnz, "value_dtype": dtype.str, "index_dtype": index.str,
                  "zero_based": True if zero_based == "auto" else zero_based,
                  "zero_based_given": self.indexing.given, "sources": records,
                  "checksums": {name: "0" * 8 for name in _SECTIONS},
                  "header_checksum": "0" * 8}
        _layout(header, _section_sizes(n_rows, nnz, dtype, index))
        write_atomic(self.cache, lambda f: _write_cache(f, header, self.parts, index))
        return header

    def close(self):
        for part in self.parts.values():
            part.close()


class _Unrepresentable(ValueError):
    """A value the cache's dtype cannot hold: the block's ``row``, the ``value``, its
    feature ``column`` (as stored)."""

    def __init__(self, row, value, column):
        super().__init__(row, value, column)
        self.row, self.value, self.column = row, value, column


def _index_dtype(nnz, width):
    """The cache's index dtype: int32 where the offsets and indices fit, else int64."""
    return np.dtype(np.int32 if max(nnz, width) <= np.iinfo(np.int32).max else np.int64)


def _section_sizes(n_rows, nnz, values, index):
    return {"y": 8 * n_rows, "indptr": index.itemsize * (n_rows + 1),
            "indices": index.itemsize * nnz, "data": values.itemsize * nnz}


def _layout(header, sizes):
    """Each section's offset (aligned) and the file's size, into the header; the header's
    own length is fixed first, so the offsets it holds do not move it."""
    header["offsets"], header["file_size"] = {name: 0 for name in _SECTIONS}, 0
    for _ in range(3):  # the header's length depends on the numbers it holds: to a fixed point
        offsets, size = _offsets(len(json.dumps(header).encode()), sizes)
        header["offsets"], header["file_size"] = offsets, size


def _offsets(length, sizes):
    """The sections' offsets and the file's size behind a header of ``length`` bytes."""
    at, offsets = _aligned(len(MAGIC) + 8 + length), {}
    for name in _SECTIONS:
        offsets[name] = at
        at = _aligned(at + sizes[name])
    return offsets, at


def _aligned(n):
    return -(-n // _ALIGN) * _ALIGN


def _header_checksum(header):
    """The CRC-32 of the header's JSON without its own checksum, as 8 hex digits."""
    rest = {key: value for key, value in header.items() if key != "header_checksum"}
    return f"{zlib.crc32(json.dumps(rest).encode()):08x}"


def _write_cache(f, header, parts, index):
    """The magic, the header (its checksums written last, in place: they are of fixed
    length) and the sections, each CRC-32'd as written."""
    text = json.dumps(header).encode()
    f.write(MAGIC + len(text).to_bytes(8, "little") + text)
    for name in _SECTIONS:
        f.write(b"\0" * (header["offsets"][name] - f.tell()))
        part, crc = parts[name], 0
        part.seek(0)
        while chunk := part.read(_PIECE):
            if name in ("indptr", "indices") and index == np.int32:  # int64 as written,
                chunk = np.frombuffer(chunk, np.int64).astype(np.int32).tobytes()  # narrowed
            crc = zlib.crc32(chunk, crc)
            f.write(chunk)
        header["checksums"][name] = f"{crc:08x}"
    f.write(b"\0" * (header["file_size"] - f.tell()))
    header["header_checksum"] = _header_checksum(header)
    final = json.dumps(header).encode()
    if len(final) != len(text):  # (cannot happen: the checksums are 8 hex digits each)
        raise AssertionError("the cache's header changed length")
    f.seek(len(MAGIC) + 8)
    f.write(final)


def _refuse(path, what):
    raise CacheError(f"{path}: {what}")


def _unique_keys(pairs):
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        twice = next(key for key in keys if keys.count(key) > 1)
        raise ValueError(f"the field {twice!r} is given twice")
    return dict(pairs)


def _read_header(path, f, size):
    head = f.read(len(MAGIC) + 8)
    if head[:len(MAGIC)] != MAGIC:
        _refuse(path, "is not a pegasos cache file (make one with pegasos convert)")
    length = int.from_bytes(head[len(MAGIC):], "little")
    if len(head) < len(MAGIC) + 8 or length > min(_HEADER_CAP, size):
        _refuse(path, "is truncated or corrupt (its header's length is not plausible)")
    text = f.read(length)
    try:
        header = json.loads(text, object_pairs_hook=_unique_keys)
    except (ValueError, RecursionError) as exc:
        _refuse(path, f"is truncated or corrupt (its header is not JSON: {quote(exc)})")
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        _refuse(path, "is not a pegasos cache file (its header is of another format)")
    version = header.get("version")
    if version != VERSION or type(version) is not int:
        kind = _OldCache if type(version) is int and 1 <= version < VERSION else CacheError
        raise kind(f"{path}: has cache version {quote(version)}; this pegasos reads version "
                   f"{VERSION} (run pegasos convert again to make it anew)")
    if sorted(header) != sorted(_HEADER_KEYS):
        odd = sorted(set(header) ^ set(_HEADER_KEYS))
        _refuse(path, f"is corrupt (its header's fields are not a cache's: {quote(odd)})")
    if header["header_checksum"] != _header_checksum(header) or len(text) != length:
        _refuse(path, "is corrupt: its header does not match its checksum (run pegasos "
                      "convert again)")
    header["_length"] = length
    return header


def _checked_layout(path, header, size):
    """The dtypes and (offset, count) of each section: every field typed, and the offsets
    and file size those that the counts and dtypes give (as :func:`_layout` made them)."""
    def count(key, low, high):
        value = header.get(key)
        if type(value) is not int or not low <= value <= high:
            _refuse(path, f"is corrupt (its header's {key!r} is {quote(value)}; "
                          f"[{low}, {high}] is expected)")
        return value

    n_rows = count("n_rows", 1, size)
    width = count("n_features", 1, MAX_FEATURE_INDEX + 1)
    nnz = count("nnz", 0, size)
    values, index = header.get("value_dtype"), header.get("index_dtype")
    if values not in ("<f8", "<f4") or index not in ("<i4", "<i8"):
        _refuse(path, f"is corrupt (dtypes {quote(values)}, {quote(index)})")
    values, index = np.dtype(values), np.dtype(index)
    if index != _index_dtype(nnz, width):
        _refuse(path, f"is corrupt (index dtype {index.str} for {nnz} values and {width} "
                      "features)")
    if type(header.get("zero_based")) is not bool or \
            header.get("zero_based_given") not in (True, False, "auto"):
        _refuse(path, "is corrupt (its header's zero_based fields are malformed)")
    checksums = header.get("checksums")
    if not (isinstance(checksums, dict) and sorted(checksums) == sorted(_SECTIONS)
            and all(isinstance(v, str) and re.fullmatch(r"[0-9a-f]{8}", v)
                    for v in checksums.values())):
        _refuse(path, "is corrupt (its header's checksums are malformed)")
    if header.get("file_size") != size:
        _refuse(path, f"is truncated or corrupt: its header says {quote(header.get('file_size'))} "
                      f"bytes, the file has {size}")
    offsets, file_size = _offsets(header["_length"], _section_sizes(n_rows, nnz, values, index))
    if header.get("offsets") != offsets or file_size != size:
        _refuse(path, f"is corrupt: its header's section offsets and size "
                      f"({quote(header.get('offsets'))}, {size} bytes) are not those of "
                      f"{n_rows} rows and {nnz} values ({offsets}, {file_size} bytes)")
    sections = {"y": (np.dtype("<f8"), n_rows), "indptr": (index, n_rows + 1),
                "indices": (index, nnz), "data": (values, nnz)}
    return sections, offsets, width


def _check_sources(path, header):
    """Refuse a cache older than a source that is still there (changed since it was made)."""
    sources = header.get("sources")
    if not isinstance(sources, list):
        _refuse(path, "is corrupt (its header's sources are malformed)")
    for record in sources:
        if not (isinstance(record, dict) and isinstance(record.get("path"), str)
                and type(record.get("size")) is int and type(record.get("mtime_ns")) is int):
            _refuse(path, "is corrupt (its header's sources are malformed)")
        try:
            now = _source_record(record["path"])
        except (OSError, ValueError):
            continue  # moved or removed: the cache holds the data on its own
        if (now["size"], now["mtime_ns"]) != (record.get("size"), record.get("mtime_ns")):
            raise _StaleCache(f"{path}: is stale: its source {quote(record['path'])} changed "
                              "after it was made (run pegasos convert again)")


def _verify_sections(path, f, header, sections, offsets):
    """Read every section once, in pieces: its CRC-32 against the header's, and (labels,
    values) each number finite; the first non-finite one as ``(section, position,
    value)``, or None."""
    bad = None
    for name, (dtype, n) in sections.items():
        f.seek(offsets[name])
        left, done, crc = dtype.itemsize * n, 0, 0
        while left:
            piece = f.read(min(left, _PIECE))
            if not piece:
                _refuse(path, f"is truncated: its {name} end before the file does")
            crc, left = zlib.crc32(piece, crc), left - len(piece)
            if name in ("y", "data") and bad is None:
                numbers = np.frombuffer(piece, dtype)
                finite = np.isfinite(numbers)
                if not finite.all():
                    at = int(np.flatnonzero(~finite)[0])
                    bad = (name, done + at, float(numbers[at]))
            done += len(piece) // dtype.itemsize
        if f"{crc:08x}" != header["checksums"][name]:
            _refuse(path, f"is corrupt: its {name} section does not match its checksum (the "
                          "file was changed or damaged after pegasos convert wrote it; run "
                          "pegasos convert again)")
    return bad


def _check_n_features(n_features):
    if n_features is None:
        return
    if isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer)):
        raise TypeError(f"n_features must be an integer (or None); got {n_features!r}")
    if not 1 <= n_features <= MAX_FEATURE_INDEX + 1:
        raise ValueError(f"n_features must be in [1, {MAX_FEATURE_INDEX + 1}]; "
                         f"got {n_features!r}")


def load_cache(path, *, n_features=None):
    """The rows and labels of a cache file, memory-mapped: ``(X, y)``.

    Before any row is returned, the file is read through once: its header's
    fields against each other and the file's size, each section against the
    CRC-32 that :func:`convert` wrote, and every label and value finite; then
    the rows' structure (offsets increasing, indices within the width).  This
    costs one read of the file (about a tenth of the time of parsing its text,
    see :func:`convert`), after which the pages are the operating system's to
    keep or drop.

    Parameters
    ----------
    path : str or path-like
        A cache made by :func:`convert` (``pegasos convert``).
    n_features : int, default=None
        The number of columns (``model.n_features_in_`` for a test file): a
        larger one widens the matrix; a smaller one is an error here (the
        mapped rows are not rewritten).  By default the cache's.

    Returns
    -------
    X : scipy.sparse.csr_matrix
        Read-only CSR arrays over the file's pages (float64 or float32
        values; int32 or int64 indices as stored).
    y : ndarray of float64
        The labels, mapped likewise.

    Raises
    ------
    CacheError
        A file that is not a cache, of another version (caches of version 1,
        before the checksums, are refused: run ``pegasos convert`` again),
        truncated, corrupt (a field, a checksum, a value that is not finite,
        the rows' structure), or older than a source file that is still there.

    See Also
    --------
    convert : Makes the cache.

    Examples
    --------
    >>> import os, tempfile
    >>> from pegasos.stream import convert
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "tiny.svm"), "w") as f:
    ...     _ = f.write("1 2:0.5\\n-1 1:1\\n")
    >>> _ = convert(os.path.join(folder, "tiny.svm"), os.path.join(folder, "tiny.cache"))
    >>> X, y = load_cache(os.path.join(folder, "tiny.cache"), n_features=4)
    >>> X.shape, X.data.flags.writeable
    ((2, 4), False)
    """
    _check_n_features(n_features)
    return _mapped(os.fspath(path), n_features)


def _mapped(path, n_features=None, expect=None):
    """:func:`load_cache`'s work, the header read and parsed once: ``expect(header)``,
    when given, checks it before anything else is (a stream's cache: of its files)."""
    special = special_file(path)
    if special is not None:
        _refuse(path, f"is {special}, not a regular file")
    if os.path.isdir(path):
        _refuse(path, "is a folder, not a cache file")
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        header = _read_header(path, f, size)
        if expect is not None:
            expect(header)
        sections, offsets, width = _checked_layout(path, header, size)
        _check_sources(path, header)
        if n_features is not None and n_features < width:
            raise ValueError(f"{path} has {width} features, more than the {n_features} asked "
                             "for; a cache is read at its own width or wider")
        bad = _verify_sections(path, f, header, sections, offsets)
    arrays = {name: np.memmap(path, dtype=dtype, mode="r", offset=offsets[name], shape=(n,))
              if n else np.zeros(0, dtype) for name, (dtype, n) in sections.items()}
    if bad is not None:
        _refuse_not_finite(path, header, arrays, bad)
    if int(arrays["indptr"][-1]) != header["nnz"]:
        _refuse(path, f"is corrupt: its rows end at value {int(arrays['indptr'][-1])}, its "
                      f"header counts {header['nnz']} values")
    try:  # before anything compiled (SciPy's slicing too) reads it: O(nnz), once
        X = sp.csr_matrix((arrays["data"], arrays["indices"], arrays["indptr"]),
                          shape=(header["n_rows"], width), copy=False)
        check_sparse_structure(X)
    except ValueError as exc:
        _refuse(path, f"is corrupt: {exc}")
    return at_width(X, n_features)[0], arrays["y"]


def _refuse_not_finite(path, header, arrays, bad):
    """The message a text file's non-finite entry gets, with the cache's row for its line."""
    name, at, value = bad
    if name == "y":
        _refuse(path, f"row {at + 1}: the label {value!r} is not finite (the cache is corrupt; "
                      "run pegasos convert again)")
    row = int(np.searchsorted(arrays["indptr"], at, side="right"))  # 1-based
    feature = int(arrays["indices"][at]) + (0 if header["zero_based"] else 1)
    _refuse(path, f"row {row}: the value {value!r} of feature {feature} is not finite (the "
                  "cache is corrupt; run pegasos convert again)")


def _fresh_cache(cache, paths, zero_based):
    """``load_cache(cache)`` if it is a cache of ``paths`` not older than they are; None if
    there is none (or a stale one, to be written again); an error for any other file."""
    if not os.path.exists(cache):
        return None
    if not is_cache(cache):
        raise CacheError(f"{cache}: is not a pegasos cache file; a stream's cache is never "
                         "written over another file")

    def of_these_files(header):
        sources = header.get("sources")
        made_of = [r.get("path") for r in sources if isinstance(r, dict)] \
            if isinstance(sources, list) else None
        if made_of != [os.path.abspath(p) for p in paths]:
            raise CacheError(f"{cache}: is the cache of other files ({quote(made_of)}); give "
                             "another cache path, or delete it")
        if header.get("zero_based_given") != zero_based:
            raise CacheError(f"{cache}: was made with zero_based="
                             f"{header.get('zero_based_given')!r}, this stream reads its files "
                             f"with zero_based={zero_based!r}; give another cache path, or "
                             "delete it")

    try:
        return _mapped(cache, expect=of_these_files)
    except (_OldCache, _StaleCache):
        return None  # (a cache of an older format, or older than its files: written again)
