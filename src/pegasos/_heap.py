"""glibc's allocator told to keep freed memory while a problem is solved: :func:`held_heap`.

Dask's nanny starts its workers with ``MALLOC_TRIM_THRESHOLD_=65536`` (to hand
memory back to the system as soon as it is freed).  Setting that variable
also turns off glibc's dynamic mmap threshold, so that every temporary of over
128 kB in the engine's tiles becomes a fresh mapping whose pages are faulted in
anew, and is handed back when freed.  Measured on 20,000 Fashion-MNIST rows (45
pairs, one thread): 19.5 s under that setting, 16.5 s without it, 16.0 s with
it and the values :func:`held_heap` sets (docs/journal/dask.md, "Kernel SVMs on
Dask: `DaskDualSVC`").

:func:`held_heap` puts glibc's own dynamic mmap threshold at its ceiling (32 MB
on 64 bits) and the trim threshold at twice it while a solve runs, and puts the
process's settings (its environment's) back, and the freed memory returned
(``malloc_trim``), when the last holder in the process lets go.  It does
nothing in a process that set neither threshold (glibc's defaults are already
dynamic) or whose C library is not glibc.  The settings are the process's: the
holders in its threads are counted under a lock.
"""

import contextlib
import ctypes
import functools
import os
import platform
import threading

__all__ = ["held_heap"]

#: glibc's mallopt parameters (malloc.h's M_TRIM_THRESHOLD and M_MMAP_THRESHOLD).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3

#: The values :func:`held_heap` sets: glibc's dynamic mmap threshold's ceiling on 64
#: bits, and the trim threshold twice it.
KEPT_MMAP, KEPT_TRIM = 32 << 20, 64 << 20

#: glibc's default for both thresholds, put back when the environment sets none.
GLIBC_DEFAULT = 128 << 10

_HOLDERS = {"lock": threading.Lock(), "count": 0}


@contextlib.contextmanager
def held_heap():
    """Keep glibc's freed memory for the next allocation while the block runs.

    Yields whether it holds (a glibc process started with a fixed trim or mmap
    threshold, as Dask's workers are); see the module docstring for why.  Held
    across calls (a Dask actor's lifetime), enter it in a
    :class:`contextlib.ExitStack` and close that.

    Examples
    --------
    >>> from pegasos._heap import held_heap
    >>> with held_heap() as held:
    ...     isinstance(held, bool)
    True
    """
    held = _hold()
    try:
        yield held
    finally:
        if held:
            _release()


def _hold():
    """:func:`held_heap`'s start; whether it holds."""
    env = os.environ
    if not ("MALLOC_TRIM_THRESHOLD_" in env or "MALLOC_MMAP_THRESHOLD_" in env):
        return False
    libc = _glibc()
    if libc is None:
        return False
    with _HOLDERS["lock"]:
        _HOLDERS["count"] += 1
        if _HOLDERS["count"] == 1:
            libc.mallopt(_M_MMAP_THRESHOLD, KEPT_MMAP)
            libc.mallopt(_M_TRIM_THRESHOLD, KEPT_TRIM)
    return True


def _release():
    """:func:`held_heap`'s end, for a holder that :func:`_hold` counted."""
    libc = _glibc()
    with _HOLDERS["lock"]:
        _HOLDERS["count"] -= 1
        if _HOLDERS["count"] == 0:
            libc.mallopt(_M_MMAP_THRESHOLD, _env_bytes("MALLOC_MMAP_THRESHOLD_"))
            libc.mallopt(_M_TRIM_THRESHOLD, _env_bytes("MALLOC_TRIM_THRESHOLD_"))
            libc.malloc_trim(0)


def _env_bytes(name):
    """The environment's threshold ``name`` in bytes, or glibc's default."""
    try:
        return int(os.environ.get(name, GLIBC_DEFAULT))
    except ValueError:
        return GLIBC_DEFAULT


@functools.cache
def _glibc():
    """glibc's C library (None on another one)."""
    if platform.libc_ver()[0] != "glibc":
        return None
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:
        return None
