"""The memory a request needs, against what this process can have.

A small input can ask for a large allocation: a CSR matrix of 3e9 columns and
a few values (a weight vector per problem of 3e9 entries), a file of 100,000
distinct labels (100,000 one-vs-rest problems, each with its per-row arrays).
The fits compute what their arrays take before allocating them and refuse, with
a ``ValueError`` that gives both numbers, a request beyond the memory
available, instead of failing with a ``MemoryError`` half-way (or being killed
by the kernel's out-of-memory killer).
"""

import bz2
import lzma
import os
import zlib
from typing import NamedTuple

try:
    import resource
except ImportError:  # not on Windows
    resource = None

__all__ = ["FileFootprint", "available_memory", "check_memory", "file_footprint",
           "format_bytes"]


def _meminfo_available():
    """The kernel's estimate of the memory available without swapping (MemAvailable:
    free memory plus the page cache it can drop), or free memory where it is absent."""
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _read_number(path):
    try:
        with open(path, "rb") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):  # absent, "max", unreadable
        return None


def _stat(path, key):
    """A counter of a cgroup's memory.stat, or 0."""
    try:
        with open(path, "rb") as f:
            for line in f:
                name, _, value = line.partition(b" ")
                if name == key:
                    return int(value)
    except (OSError, ValueError):
        pass
    return 0


def _cgroup_available():
    """The memory left under this process's cgroup limit (cgroup v2, then v1), if any: the
    limit less the usage, less the inactive file pages in it (page cache the kernel drops
    before it fails an allocation: the working set, as Docker and Kubernetes count it)."""
    root = "/sys/fs/cgroup/"
    for limit, usage, inactive in (
            ("memory.max", "memory.current", b"inactive_file"),
            ("memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes",
             b"total_inactive_file")):
        cap = _read_number(root + limit)
        if cap is not None and cap < 1 << 60:  # v1 says "no limit" with a huge number
            stat = root + ("memory.stat" if inactive == b"inactive_file" else "memory/memory.stat")
            used = max((_read_number(root + usage) or 0) - _stat(stat, inactive), 0)
            return max(cap - used, 0)
    return None


def _address_space_available():
    """The address space left under an ``RLIMIT_AS`` limit (``ulimit -v``), if one is set."""
    if resource is None:
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    used = 0
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmSize:"):
                    used = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return max(soft - used, 0)


def available_memory():
    """Bytes this process can allocate now, or None when it cannot be told: the least of
    the system's available memory, the room under a cgroup limit and the room under an
    address-space limit."""
    known = [v for v in (_meminfo_available(), _cgroup_available(), _address_space_available())
             if v is not None]
    return min(known) if known else None


def format_bytes(n):
    """``n`` bytes in the largest binary unit that keeps a number of at least 1.

    >>> format_bytes(512), format_bytes(3 * 2**30 // 2), format_bytes(24 * 10**9), format_bytes(2**50)
    ('512 bytes', '1.5 GiB', '22.4 GiB', '1024 TiB')
    """
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            value = n / size
            return f"{value:.3g} {unit}" if value < 1000 else f"{value:.0f} {unit}"
    return f"{int(n)} bytes"


#: Requests below this are not checked: no machine this runs on lacks 64 MiB, and reading
#: what is available costs about 0.1 ms, 10% of a small fit.
SMALL = 64 << 20


def check_memory(need, what):
    """Refuse (``ValueError``) a request of ``need`` bytes beyond :func:`available_memory`.

    ``what`` names the request and says what it is made of; the message adds both
    sizes.  A request below :data:`SMALL` passes unchecked.
    """
    if need < SMALL:
        return
    available = available_memory()
    if available is not None and need > available:
        raise ValueError(
            f"{what} need {format_bytes(need)}, more than the {format_bytes(available)} of "
            "memory available to this process.")


#: Uncompressed bytes of a data file's beginning that :func:`file_footprint` reads.
SAMPLE_BYTES = 1 << 20

#: Compressed bytes fed to the decompressor at a time: the sample's last piece of input
#: counts whole, so the compression ratio is estimated to ``_FEED`` bytes of input; the
#: sample goes on to :data:`_FED_AT_LEAST` bytes of input (a ratio within 1/64) or 16
#: times :data:`SAMPLE_BYTES` of text, whichever comes first.
_FEED = 1 << 10
_FED_AT_LEAST = 64 << 10

#: Compressed bytes read at most for the sample (a bzip2 block is 900 KB at most).
_FEED_CAP = 16 << 20

#: The text that an in-memory load holds while it parses (two of the reader's 16 MiB
#: blocks: one read, one parsed).
_PARSE_BYTES = 32 << 20


class FileFootprint(NamedTuple):
    """What :func:`file_footprint` measured and estimated of a LIBSVM file: its size on
    disk, its text (``compression`` times that), its rows and stored values, the bytes a
    load needs (``need``), and how many bytes of text the estimate read (``sampled``;
    all of them: ``exact``)."""

    path: str
    file_bytes: int
    text_bytes: int
    compression: float
    rows: int
    values: int
    need: int
    sampled: int
    exact: bool

    def describe(self):
        """The estimate in words, for a message."""
        if self.exact:
            where = "counted"
        else:
            where = f"estimated from its first {format_bytes(self.sampled)}"
        text = format_bytes(self.text_bytes) + " of text"
        if self.compression != 1.0:
            text += (f", {self.compression:.3g}x its {format_bytes(self.file_bytes)} "
                     "compressed")
        return f"{_count(self.rows)} rows and {_count(self.values)} values, {where}; {text}"


def _count(n):
    return f"{n:,}" if n < 10**7 else f"{n:.3g}"


def load_bytes(rows, values):
    """The bytes an in-memory load of ``rows`` rows and ``values`` stored values holds at
    its peak: the blocks' CSR arrays (8-byte values, 4-byte indices, a pointer and a label
    per row) and their stacked copy, and the text being parsed."""
    return 2 * (12 * values + 12 * rows) + _PARSE_BYTES


def _decompressor(path):
    """A decompressor for ``path``'s extension (``decompress(data)``, ``eof``,
    ``unused_data``), or None for plain text."""
    ext = os.path.splitext(path)[1]
    if ext == ".gz":
        return zlib.decompressobj(zlib.MAX_WBITS | 16)
    if ext == ".bz2":
        return bz2.BZ2Decompressor()
    if ext == ".xz":
        return lzma.LZMADecompressor()
    return None


def _sample(path, file_bytes):
    """(the first :data:`SAMPLE_BYTES` or more of ``path``'s text (see :data:`_FEED`), the
    compressed bytes read for them, whether that is the whole file)."""
    with open(path, "rb") as f:
        make = lambda: _decompressor(path)  # noqa: E731  (a new one per gzip member)
        d = make()
        if d is None:
            text = f.read(SAMPLE_BYTES)
            return text, len(text), len(text) == file_bytes
        out, fed = [], 0
        size = 0
        while (size < SAMPLE_BYTES or (fed < _FED_AT_LEAST and size < 16 * SAMPLE_BYTES)) \
                and fed < _FEED_CAP:
            data = f.read(_FEED)
            if not data:
                return b"".join(out), fed, True
            fed += len(data)
            while data:
                piece = d.decompress(data)
                out.append(piece)
                size += len(piece)
                if not d.eof:
                    break
                data, d = d.unused_data, make()  # (concatenated members: pigz, bgzip)
        return b"".join(out), fed, False


def file_footprint(path):
    """Estimate the memory that loading the LIBSVM file ``path`` takes, without parsing it.

    Reads the first :data:`SAMPLE_BYTES` of its text (decompressed, for a ``.gz``,
    ``.bz2`` or ``.xz`` file: the compression ratio is the text's bytes per compressed
    byte read for them), counts its lines and ``index:value`` pairs, and scales both
    to the whole file's estimated text; a cache file (``pegasos convert``) is its size.
    A few milliseconds: the command line decides with it, before anything is parsed,
    whether a file fits in memory (:func:`available_memory`).

    Returns
    -------
    FileFootprint
        ``need`` is :func:`load_bytes` of the estimated rows and values.
    """
    path = os.fspath(path)
    file_bytes = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(len(CACHE_MAGIC))
    if head == CACHE_MAGIC:  # a cache: its arrays, memory-mapped
        return FileFootprint(path, file_bytes, file_bytes, 1.0, 0, 0, file_bytes, 0, True)
    text, fed, whole = _sample(path, file_bytes)
    if not whole and text:  # (cut at the last line end: whole rows only)
        cut = text.rfind(b"\n") + 1
        text = text[:cut] if cut else text
    rows = text.count(b"\n") + (1 if text and not text.endswith(b"\n") else 0)
    values = text.count(b":") - text.count(b"qid:")
    compression = len(text) / fed if fed and _decompressor(path) is not None else 1.0
    if whole:
        text_bytes = len(text)
    else:
        text_bytes = int(file_bytes * compression)
        scale = text_bytes / max(len(text), 1)
        rows, values = int(rows * scale), int(values * scale)
    return FileFootprint(path, file_bytes, text_bytes, compression, rows, values,
                         load_bytes(rows, values), len(text), whole)


#: The first bytes of a cache file (``pegasos.stream.MAGIC``, not imported: the stream
#: module imports NumPy, and this check runs before anything is imported).
CACHE_MAGIC = b"PEGASOS-CACHE\n"
