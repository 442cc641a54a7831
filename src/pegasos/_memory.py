"""The memory a request needs, against what this process can have.

A small input can ask for a large allocation: a CSR matrix of 3e9 columns and
a few values (a weight vector per problem of 3e9 entries), a file of 100,000
distinct labels (100,000 one-vs-rest problems, each with its per-row arrays).
The fits compute what their arrays take before allocating them and refuse, with
a ``ValueError`` that gives both numbers, a request beyond the memory
available, instead of failing with a ``MemoryError`` half-way (or being killed
by the kernel's out-of-memory killer).
"""

import os

try:
    import resource
except ImportError:  # not on Windows
    resource = None

__all__ = ["available_memory", "check_memory", "format_bytes"]


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
