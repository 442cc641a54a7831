"""Reading LIBSVM / SVMlight files, with errors that name the file and the line.

The fast path is this package's compiled parser, a block at a time
(:func:`pegasos.stream.read_blocks`: 7.8x scikit-learn's loader on a 0.3 GB file,
the same values bit for bit); ``zero_based="auto"`` goes to scikit-learn's
compiled :func:`~sklearn.datasets.load_svmlight_file`.  The loader's errors
carry no line number, so when it fails -- or when the data it returns is not
usable -- the file is scanned once more in Python, only on that error path, to
find the first offending line and say what is wrong with it.
"""

import lzma
import os
import zlib

import numpy as np
import scipy.sparse as sp

from ._files import quote, special_file
from ._rows import stack_rows
from ._svmlight import MAX_FEATURE_INDEX, DataFormatError, _find_bad_line
from .stream import read_blocks

__all__ = ["MAX_FEATURE_INDEX", "DataFormatError", "load_svmlight", "read_svmlight"]


def load_svmlight(path, *, n_features=None, zero_based=False):
    r"""Read a LIBSVM/SVMlight file into a CSR matrix and a label vector.

    Parameters
    ----------
    path : str or path-like
        Plain text, or compressed as ``.gz``, ``.bz2`` or ``.xz``.
    n_features : int, default=None
        The number of features (e.g. ``model.n_features_in_`` for a test
        file): the matrix gets exactly that many columns, and features with a
        larger index are ignored, as LIBLINEAR's and LIBSVM's ``predict`` do
        (:func:`read_svmlight` also counts them).  By default the largest index
        in the file.
    zero_based : bool or "auto", default=False
        Whether feature indices start at 0.  LIBSVM and LIBLINEAR files are
        one-based, the default; in a one-based file index 0 is an error.

    Returns
    -------
    X : scipy.sparse.csr_matrix
        The rows: float64 values, int64 indices, as scikit-learn gives them.
    y : ndarray
        The labels, float64.

    Raises
    ------
    DataFormatError
        For an empty file, or a malformed or non-finite entry: the message
        names the file and the line.

    See Also
    --------
    read_svmlight : Also counts the values beyond ``n_features``.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.svm")
    >>> with open(path, "w") as f:
    ...     _ = f.write("1 1:0.5 3:2\n-1 2:1 7:4\n")
    >>> X, y = load_svmlight(path, n_features=3)  # feature 7 is not the model's: ignored
    >>> X.toarray()
    array([[0.5, 0. , 2. ],
           [0. , 1. , 0. ]])
    """
    X, y, _ = read_svmlight(path, n_features=n_features, zero_based=zero_based)
    return X, y


def read_svmlight(path, *, n_features=None, zero_based=False):
    """:func:`load_svmlight`, plus the number of entries ignored: ``(X, y, n_ignored)``.

    Parameters
    ----------
    path : str or path-like
        Plain text, or compressed as ``.gz``, ``.bz2`` or ``.xz``.
    n_features : int, default=None
        The number of features, as :func:`load_svmlight` takes it.
    zero_based : bool or "auto", default=False
        Whether feature indices start at 0.

    Returns
    -------
    X : scipy.sparse.csr_matrix
        The rows, float64.
    y : ndarray
        The labels, float64.
    n_ignored : int
        The stored values whose feature index is beyond ``n_features`` (0
        when ``n_features`` is None).

    See Also
    --------
    load_svmlight : Without the count.

    Examples
    --------
    >>> import tempfile, os
    >>> from pegasos.datasets import read_svmlight
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.svm")
    >>> with open(path, "w") as f:
    ...     _ = f.write("+1 1:0.5 3:1\\n-1 2:1 5:2\\n")
    >>> X, y, n_ignored = read_svmlight(path, n_features=3)
    >>> X.shape, y.tolist(), n_ignored
    ((2, 3), [1.0, -1.0], 1)
    """
    from sklearn.datasets import load_svmlight_file

    path = os.fspath(path)
    special = special_file(path)
    if special is not None:
        raise DataFormatError(path, None, f"is {special}, not a regular file; give the data as "
                              "a file (plain, .gz, .bz2 or .xz)")
    if zero_based in (True, False):  # the compiled parser, block by block (7.8x the loader's)
        X, y = _read_blocks(path, zero_based)
    else:
        try:
            if path.endswith(".xz"):
                with lzma.open(path) as f:
                    X, y = load_svmlight_file(f, zero_based=zero_based)
            else:
                X, y = load_svmlight_file(path, zero_based=zero_based)
        except (ValueError, OverflowError, EOFError, OSError, lzma.LZMAError, zlib.error) as exc:
            if isinstance(exc, OSError) and exc.errno is not None:  # missing, a folder, ...
                raise
            _raise_with_line(path, zero_based, exc)
    if X.shape[1] > MAX_FEATURE_INDEX + 1:
        _raise_with_line(path, zero_based, ValueError("feature index too large"))
    if X.shape[0] == 0:
        raise DataFormatError(path, None, "no data: the file has no examples")
    if not (np.all(np.isfinite(X.data)) and np.all(np.isfinite(y))):
        _raise_with_line(path, zero_based, ValueError("non-finite values"))
    from ._rows import at_width  # (with SciPy: not at import)

    X, ignored = at_width(X, n_features)
    return X, y, ignored


def _read_blocks(path, zero_based):
    """(X, y) of a whole file from :func:`pegasos.stream.read_blocks`: the blocks' rows
    stacked, as wide as the widest (the loader's width; one column for rows of none)."""
    blocks = list(read_blocks(path, zero_based=zero_based))
    if not blocks:
        return sp.csr_matrix((0, 1)), np.zeros(0)
    return stack_rows([X for X, _ in blocks]), np.concatenate([y for _, y in blocks])


def _raise_with_line(path, zero_based, exc):
    try:
        found = _find_bad_line(path, zero_based is True)
    except (EOFError, OSError, lzma.LZMAError, zlib.error) as read_error:
        raise DataFormatError(path, None, f"cannot be read: {quote(read_error)}") from exc
    if found is not None:
        raise DataFormatError(path, found[0], found[1]) from exc
    raise DataFormatError(path, None, quote(exc)) from exc
