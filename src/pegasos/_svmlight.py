"""LIBSVM / SVMlight text format: its feature-index limit, the error that names a file's
line, and the check of one line in Python (what :mod:`pegasos.datasets` and
:mod:`pegasos.stream` both read files by; public as ``pegasos.datasets``'
``MAX_FEATURE_INDEX`` and ``DataFormatError``)."""

import bz2
import gzip
import lzma
import math
import os

from ._files import quote

#: The largest feature index a data file may use: LIBSVM's and LIBLINEAR's
#: (a C ``int``).  Memory runs out long before it for a linear model (each
#: index is a weight: 16 GiB of float64 here); the command line also refuses
#: data whose weights cannot fit in the memory available.
MAX_FEATURE_INDEX = 2**31 - 1


class DataFormatError(ValueError):
    """A malformed data file: ``path``, the 1-based ``line`` (or None) and ``reason``.

    Parameters
    ----------
    path : str or path-like
        The data file.
    line : int or None
        The line at fault, counted from 1, when one is.
    reason : str
        What is wrong with it.

    See Also
    --------
    pegasos.datasets.load_svmlight : Raises it.

    Examples
    --------
    >>> str(DataFormatError("train.svm", 3, "feature index 0 is below 1"))
    'train.svm, line 3: feature index 0 is below 1'
    """

    def __init__(self, path, line, reason):
        self.path = os.fspath(path)
        self.line = line
        self.reason = reason
        where = f"{self.path}, line {line}" if line is not None else self.path
        super().__init__(f"{where}: {reason}")

    def __reduce__(self):  # pickled as built (a Dask worker's error reaches the driver)
        return type(self), (self.path, self.line, self.reason)


DataFormatError.__module__ = "pegasos.datasets"  # (its public home, in errors and pickles)


def _open_text(path):
    path = os.fspath(path)
    if path.endswith(".xz"):
        return lzma.open(path, "rt", encoding="utf-8", errors="replace")
    if path.endswith(".bz2"):
        return bz2.open(path, "rt", encoding="utf-8", errors="replace")
    if path.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def is_number(text):
    """Whether ``text`` reads as a Python float."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def _line_problem(line, zero_based):
    """What is wrong with one data line (comments stripped), or None."""
    tokens = line.split()
    if not tokens:
        return None
    label = tokens[0]
    if ":" in label:
        return f"missing label: the line starts with the feature {quote(label)}"
    if not is_number(label):
        return f"the label {quote(label)} is not a number"
    if not math.isfinite(float(label)):
        return f"the label {quote(label)} is not finite"
    previous = -1
    for token in tokens[1:]:
        index, sep, value = token.partition(":")
        if not sep:
            return f"{quote(token)} is not of the form index:value"
        if index == "qid":
            continue
        try:
            idx = int(index)
        except ValueError:
            return f"the feature index {quote(index)} in {quote(token)} is not an integer"
        lowest = 0 if zero_based else 1
        if idx > MAX_FEATURE_INDEX:
            return (f"feature index {quote(idx)} in {quote(token)} exceeds the maximum "
                    f"{MAX_FEATURE_INDEX} "
                    "(LIBSVM's and LIBLINEAR's limit)")
        if idx < lowest:
            base = "zero-based" if zero_based else "one-based"
            return (f"feature index {quote(idx)} in {quote(token)} is below {lowest} "
                    f"({base} indices)")
        if idx <= previous:
            return f"feature indices must increase along a line; {idx} follows {previous}"
        previous = idx
        if not is_number(value):
            return f"the value {quote(value)} of feature {idx} is not a number"
        if not math.isfinite(float(value)):
            return f"the value {quote(value)} of feature {idx} is not finite"
    return None


def _find_bad_line(path, zero_based):
    """(line number, reason) of the first malformed line, or None."""
    with _open_text(path) as f:
        for number, line in enumerate(f, start=1):
            problem = _line_problem(line.split("#", 1)[0], zero_based)
            if problem is not None:
                return number, problem
    return None
