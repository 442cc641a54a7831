"""Atomic file writes: a temporary file in the target's folder, flushed, then renamed."""

import os
import tempfile


def write_atomic(path, write, mode="wb"):
    """Call ``write(f)`` on a temporary file, then rename it over ``path``.

    An interrupted or failed write leaves ``path`` as it was (absent, or the
    previous version), never half-written; the temporary file is removed.
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=os.path.basename(path) + ".", suffix=".tmp")
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
