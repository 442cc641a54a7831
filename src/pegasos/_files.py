"""Files: atomic writes, input paths that are special files, text quoted from files.

Atomic writes: a temporary file in the target's folder, flushed, then renamed.

The temporary file is named ``TARGET.pegasos-PID-XXXXXXXX.tmp``.  It is
removed when the write fails, is interrupted (Ctrl-C), or the process is told
to stop (SIGTERM, SIGHUP: the signal is turned into an exception for the
duration of the write, the file removed, then the signal delivered again with
the handler it had before).  SIGKILL cannot be caught: a file it leaves
behind is recognised by its name and removed by the next write to the same
target, once the process named in it is gone.
"""

import contextlib
import os
import re
import signal
import stat
import tempfile
import threading

_TMP = re.compile(r"(?P<target>.+)\.pegasos-(?P<pid>\d+)-[A-Za-z0-9_]+\.tmp\Z")
_STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


class _Stopped(BaseException):
    """A stop signal received during a write."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def _alive(pid):
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # somebody else's process
        return True
    return True


def remove_stale_temporaries(path):
    """Remove this library's temporary files for ``path`` left by processes that are gone."""
    folder, target = os.path.split(os.path.abspath(path))
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    removed = []
    for name in names:
        match = _TMP.match(name)
        if match and match["target"] == target and not _alive(int(match["pid"])):
            try:
                os.unlink(os.path.join(folder, name))
                removed.append(name)
            except OSError:
                pass
    return removed


@contextlib.contextmanager
def _stop_signals_raise():
    """Within the block, SIGTERM/SIGHUP raise :class:`_Stopped` (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise _Stopped(signum)

    previous = {}
    try:
        for signum in _STOP_SIGNALS:
            previous[signum] = signal.signal(signum, handler)
        yield
    finally:
        for signum, old in previous.items():
            # None: a handler installed outside Python, which cannot be put back
            signal.signal(signum, old if old is not None else signal.SIG_DFL)


def write_atomic(path, write, mode="wb"):
    """Call ``write(f)`` on a temporary file, then rename it over ``path``.

    An interrupted or failed write leaves ``path`` as it was (absent, or the
    previous version), never half-written; the temporary file is removed.
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    remove_stale_temporaries(path)
    try:
        with _stop_signals_raise():
            fd, tmp = tempfile.mkstemp(
                dir=folder, prefix=f"{os.path.basename(path)}.pegasos-{os.getpid()}-", suffix=".tmp"
            )
            try:
                with os.fdopen(fd, mode) as f:
                    write(f)
                    f.flush()
                    os.fsync(f.fileno())
                os.chmod(tmp, 0o644)  # mkstemp creates 0600
                os.replace(tmp, path)
            except BaseException:
                try:
                    os.unlink(tmp)
                except FileNotFoundError:
                    pass
                raise
    except _Stopped as stop:
        signal.raise_signal(stop.signum)  # with the handler restored: usually, terminate
        # the previous handler returned: the write did not happen
        raise InterruptedError(f"writing {path} was interrupted by signal {stop.signum}") from None


_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def special_file(path):
    """What ``path`` is when it is a special file that reading could block on, else None.

    A named pipe nobody writes to, a terminal or a socket would block a read
    forever, and a reader that needs to read a file twice (the error path of
    the data reader, a zip archive's directory) cannot; input files must be
    regular files.  Links are followed; a missing path or a folder gives None
    (opening it then fails with the system's own message).

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> os.mkfifo(os.path.join(folder, "pipe"))
    >>> special_file(os.path.join(folder, "pipe"))
    'a named pipe (FIFO)'
    >>> special_file(folder) is None
    True
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    for test, kind in _KINDS:
        if test(mode):
            return kind
    return None


def same_file(a, b):
    """Whether paths ``a`` and ``b`` name one existing file (links and hard links followed)."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def quote(value, limit=80):
    """``repr(value)`` (an exception's message), cut to ``limit`` characters: what an error
    message may echo of what it read.

    >>> quote("abc"), quote(99), quote("x" * 1000)
    ("'abc'", '99', "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (1002 characters)")
    """
    text = str(value) if isinstance(value, BaseException) else repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"
