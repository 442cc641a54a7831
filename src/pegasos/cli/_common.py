"""What every command shares and may use before it imports anything heavy: the one-line
failure, the checks of the paths it reads and writes (run before the command's module is
imported, so that a bad path is answered before NumPy or scikit-learn load), the memory
a file would need, and the JSON and label output.  Only the standard library (and
pegasos' own standard-library modules) at import."""

import glob
import json
import lzma
import math
import os
import shlex
import sys
import zlib

from .. import _memory
from .._files import same_file, special_file
from .._memory import file_footprint, format_bytes
from .._svmlight import is_number
from .options import STREAM_NEEDS, _stream_refused


class _Failure(Exception):
    """An error to report as ``pegasos: error: ...`` with exit status 1."""


def _reason(exc):
    """An OSError's reason without the (often temporary) file name."""
    return exc.strerror or str(exc) or type(exc).__name__


def _check_paths(outputs, inputs=()):
    """Refuse, before any work, outputs that cannot be written or would replace an input.

    ``outputs`` and ``inputs`` are (path, what) pairs.  An output that is an
    input -- the same name, a link to it or a hard link (the same file by
    device and inode) -- would be replaced by the output: LIBSVM's tools do
    that silently; here it is an error before anything is read.  Two outputs
    that are one file are refused too, and so is an input that is not a regular
    file (:func:`_check_inputs`).
    """
    inputs = _expanded(inputs)
    _check_inputs(inputs)
    for i, (path, what) in enumerate(outputs):
        _check_output(path, what)
        for source, source_what in inputs:
            if source is not None and same_file(path, source):
                raise _Failure(f"the {what} {path} is the {source_what} {source}: writing the "
                               f"{what} would destroy it; name another {what} file")
        for other, other_what in outputs[:i]:
            if (same_file(path, other)
                    or os.path.realpath(path) == os.path.realpath(other)):
                raise _Failure(f"the {what} and the {other_what} would both be written to "
                               f"{path}; name two files")


def _expanded(inputs):
    """``inputs`` with each glob pattern (``shards/part-*.svm``) replaced by the files it
    matches: an output is checked against each of them."""
    out = []
    for path, what in inputs:
        if path is not None and glob.has_magic(path):
            out.extend((match, what) for match in sorted(glob.glob(path)))
        else:
            out.append((path, what))
    return out


def _holdout_file(holdout):
    """``--holdout``'s file, or None when it is a number of rows (or not given)."""
    return None if holdout is None or is_number(holdout) and not os.path.exists(holdout) \
        else holdout


def _check_inputs(inputs):
    """Refuse an input that is a named pipe, a device or a socket, before anything
    else is imported: reading one could block forever.  The readers refuse it too
    (``read_svmlight``, ``load_model``, ``from_liblinear``), but only after the
    command has imported what it reads with: 2 s, against 0.25-0.75 s here.

    ``inputs``: (path or None, what) pairs.
    """
    for path, what in inputs:
        kind = None if path is None else special_file(path)
        if kind is not None:
            raise _Failure(f"{path} is {kind}, not a regular file; the {what} must be a "
                           "regular file")


def _check_output(path, what):
    """Refuse, before any work, an output path that cannot be written."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise _Failure(f"cannot write the {what} {path}: it is a folder")
    if not os.path.isdir(folder):
        raise _Failure(f"cannot write the {what} {path}: there is no folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise _Failure(f"cannot write the {what} {path}: the folder {folder} is not writable")


def _too_large(path):
    """(the :class:`~pegasos._memory.FileFootprint` of ``path``, the memory available) when
    loading the file needs more memory than this process has, else None (a file that
    cannot be read is the loader's to report)."""
    try:
        footprint = file_footprint(path)
    except (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error):
        return None
    available = _memory.available_memory()  # (looked up when called, as a test sets it)
    if available is None or footprint.need <= available:
        return None
    return footprint, available


def _too_large_text(found, what="loading it"):
    """The numbers of :func:`_too_large`'s answer, for a message."""
    footprint, available = found
    return (f"{footprint.path}: {what} needs about {format_bytes(footprint.need)} "
            f"({footprint.describe()}), more than the {format_bytes(available)} of memory "
            "available to this process")


def _print_json(summary, out=None):
    out = out or sys.stdout
    json.dump(summary, out, indent=2)
    print(file=out)


def _note(args, text, err=False):
    """A note for the user (``pegasos: TEXT``), unless ``-q``."""
    if not getattr(args, "quiet", False):
        print(f"pegasos: {text}", file=sys.stderr if err else sys.stdout)


def _labels(classes, most=10):
    """The first ``most`` labels, comma-separated, and how many more there are."""
    text = ", ".join(_label(c) for c in classes[:most])
    return text + (f" and {len(classes) - most} more" if len(classes) > most else "")


def _label(value):
    """A label as LIBSVM writes it: integers without a decimal point."""
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)


def _model_path(args):
    """``train``'s MODEL: as given, else DATA's file name + '.model', in the current folder."""
    return args.model or os.path.basename(args.data) + ".model"


def _stream_or_refuse(args, model_path, found):
    """``train`` of a file too large to load (``found``: :func:`_too_large`'s answer):
    stream it where the options allow (``-s pegasos`` with ``-l``: returns True, after a
    note), else refuse with the numbers and the command that trains it.  Returns False
    for a file that fits."""
    if found is None:
        return False
    if args.cv is not None:
        why = "-v (cross-validation) holds every row in memory"
    elif args.solver != "pegasos":
        why = f"-s {args.solver} holds its training rows in memory"
    else:
        refused = _stream_refused(args)  # (the lambda's words as this message has them)
        why = ["-l LAMBDA (C fixes lambda from the number of rows, which a stream does not know)"
               if name == "lam" else need for name, need in STREAM_NEEDS.items()
               if name in refused]
        if not why:
            _note(args, _too_large_text(found) + ": streaming it instead (as --stream)",
                  err=True)
            args.stream = True
            return True
        why = "--stream, which trains without loading it, needs " + ", ".join(why)
    footprint = found[0]
    lam = args.lam if args.lam is not None else 1.0 / (
        (args.cost or 1.0) * max(footprint.rows, 1))
    iterations = args.iter if args.iter is not None else math.ceil(10.0 / lam)
    command = (f"pegasos train --stream -l {lam:.3g} --iter {iterations}"
               + (f" --holdout {min(10000, max(footprint.rows // 10, 1))}"
                  if args.cv is not None else "")
               + f" {shlex.quote(args.data)}" + (f" {shlex.quote(model_path)}"
                                                 if args.model else ""))
    raise _Failure(f"{_too_large_text(found)}; {why}. A linear model trains without loading "
                   f"it: {command}" + (" (its error on held-out rows in place of -v's)"
                                       if args.cv is not None else ""))
