"""The commands' reading and writing: data files (LIBSVM's text, a cache, LIBSVM's
precomputed-kernel rows) and model files, each failure one line; and what the training
commands share (labels as LIBSVM reads them, a fit with a progress bar, the numbers they
report)."""

import sys
import time

import numpy as np
import scipy.sparse as sp

from .._rows import at_width
from ..datasets import DataFormatError, read_svmlight
from ..model_io import ModelFileError, load_model_with_header, save_model
from ..stream import is_cache, load_cache
from ._common import _Failure, _label, _labels, _reason


def _load_rows(path, zero_based, kernel, n_train=None, needed=None):
    """(X, y) of a training file (``n_train`` None) or a test file, read as :func:`_load`
    reads it; with ``kernel="precomputed"`` (-t 4), LIBSVM's precomputed format made the
    Gram matrix (:func:`_gram`)."""
    if kernel != "precomputed":
        return _load(path, zero_based, n_features=n_train)
    X, y = _load(path, True)
    return _gram(X, path, n_train, needed), y


def _gram(X, path, n_train=None, needed=None):
    """LIBSVM's precomputed-kernel rows (``-t 4``), read with zero-based indices: ``0:i``
    the row's serial number, then ``j:K(x, x_j)`` against the training rows j = 1..L.
    Training rows (``n_train`` None) must be numbered 1..n in order (their kernel values
    are the n x n Gram matrix); test rows give their values against the ``n_train``
    training rows, at least up to the training row ``needed`` (the model's last support
    vector's), checked before anything as wide as ``n_train`` is allocated."""
    n = X.shape[0] if n_train is None else n_train
    if n_train is None:
        serial = X[:, [0]].toarray().ravel()
        if not np.array_equal(serial, np.arange(1, n + 1)):
            at = int(np.flatnonzero(serial != np.arange(1, n + 1))[0])
            raise _Failure(f"{path}: -t 4 (a precomputed kernel): row {at + 1}'s serial number "
                           f"(0:) is {serial[at]:g}; the training rows must be numbered 1..{n} "
                           "in order")
    if X.shape[1] > n + 1 and X[:, n + 1:].nnz:
        if n_train is None:  # (a training file: its rows' own numbers bound the indices)
            raise _Failure(f"{path}: -t 4 (a precomputed kernel): kernel values beyond the {n} "
                           "training rows (indices 1..n)")
        # a model read from svm-train's file knows the training rows up to its last support
        # vector only: the values against later rows take no part (as in svm-predict)
        print(f"pegasos: note: {path}: kernel values beyond the model's {n} training rows are "
              "not used", file=sys.stderr)
    if needed is not None and X.shape[1] - 1 < needed:
        raise _Failure(f"{path}: -t 4 (a precomputed kernel): the model's support vectors "
                       f"include training row {needed}, but the rows give kernel values "
                       f"against training rows 1..{X.shape[1] - 1} only; each row needs "
                       "K(x, x_j) for every support vector's training row j (LIBSVM's format)")
    X = X.tocsr()
    keep = (X.indices >= 1) & (X.indices <= n)  # (the serial numbers, 0:, dropped)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))[keep]
    X = sp.csr_matrix((X.data[keep], (rows, X.indices[keep] - 1)), shape=(X.shape[0], n))
    # dense as the training Gram matrix is, unless test rows would be far larger dense than
    # the file's values call for (a model that claims 2**31 training rows: read sparse)
    dense = n_train is None or X.shape[0] * n <= max(1 << 24, 4 * X.nnz)
    return X.toarray() if dense else X


def _load(path, zero_based, n_features=None, counted=False):
    """(X, y), or (X, y, values ignored beyond n_features) when ``counted``; a cache file
    (``pegasos convert``) is memory-mapped instead of parsed."""
    try:
        if is_cache(path):
            X, y, ignored = _load_cache(path, n_features)
        else:
            X, y, ignored = read_svmlight(path, n_features=n_features, zero_based=zero_based)
        return (X, y, ignored) if counted else (X, y)
    except DataFormatError as exc:
        raise _Failure(str(exc)) from exc
    except OSError as exc:
        raise _Failure(f"cannot read {path}: {_reason(exc)}") from exc


def _load_cache(path, n_features):
    """A cache's rows, as :func:`~pegasos.datasets.read_svmlight` gives a file's: columns
    beyond ``n_features`` dropped (and counted), fewer widened."""
    X, y = load_cache(path)
    X, ignored = at_width(X, n_features)
    return X, y, ignored


def _save(est, path, solver_state=False):
    try:
        save_model(est, path, solver_state=solver_state)
    except OSError as exc:
        raise _Failure(f"cannot write the model {path}: {_reason(exc)}") from exc


def _load_model(path, with_header=False):
    """The model at ``path`` (and its header, ``with_header``), or a one-line failure."""
    try:
        est, header = load_model_with_header(path)
        return (est, header) if with_header else est
    except ModelFileError as exc:
        raise _Failure(str(exc)) from exc
    except OSError as exc:
        raise _Failure(f"cannot read {path}: {_reason(exc)}") from exc


def _accuracy(est, X, y):
    """The fraction of labels predicted right (any numeric labels, as LIBSVM's)."""
    return float(np.mean(est.predict(X) == y))


def _map_summary(est):
    """What ``info`` says of a kernel map."""
    m, d = est.components_.shape
    kind = "k-means centres" if not hasattr(est, "component_indices_") else "training rows"
    return {"kind": "nystroem", "components": int(m), "landmarks": kind,
            "kernel": est.kernel, "gamma": float(est.gamma_),
            "dtype": str(est.components_.dtype),
            "text": f"Nystroem, {m} landmarks ({kind}, {d} features, "
                    f"{est.components_.dtype}), {est.kernel} kernel, gamma = {est.gamma_:.6g}"}


def _fit_with(progress, est, fit, *data):
    """``fit(est, *data)`` with ``progress`` as the estimator's callback (closed and taken
    off again however the fit ends); the seconds it took."""
    est.set_params(callback=progress)
    tic = time.perf_counter()
    try:
        fit(est, *data)
    finally:
        progress.close()
        est.set_params(callback=None)
    return time.perf_counter() - tic


def _laplace_text(sigma):
    """svm-train's and svm-predict's words for a regression's probability model (-b 1)."""
    return ("Prob. model for test data: target value = predicted value + z,\n"
            f"z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma={sigma:g}")


def _regression_metrics(y, predicted):
    """svm-predict's: the mean squared error and the squared correlation coefficient."""
    y, v = np.asarray(y, dtype=np.float64), np.asarray(predicted, dtype=np.float64)
    n = len(y)
    sv, sy, svv, syy, svy = v.sum(), y.sum(), v @ v, y @ y, v @ y
    denominator = (n * svv - sv * sv) * (n * syy - sy * sy)
    r2 = (n * svy - sv * sy) ** 2 / denominator if denominator > 0 else float("nan")
    return {"mean_squared_error": float(np.mean((v - y) ** 2)),
            "squared_correlation": float(r2)}


def _fit_labels(est, X, y):
    """Fit ``est`` on labels as LIBSVM reads them: any numbers, each distinct value a class.

    scikit-learn's estimators refuse labels such as 1.5 and -2.5 as a
    regression target; LIBSVM and LIBLINEAR classify them.  The estimator is
    fitted on the classes' indices (in sorted order, so nothing else about
    the fit changes), then its ``classes_`` and ``class_weight`` are named by
    the labels again: it predicts, and saves, the file's labels.
    """
    classes, codes = np.unique(y, return_inverse=True)
    weights = est.class_weight
    est.set_params(class_weight=_class_weight_of_codes(weights, classes))
    try:
        est.fit(X, codes)
    finally:
        est.set_params(class_weight=weights)
    est.classes_ = classes


def _class_weight_of_codes(weights, classes):
    """``-w`` weights (by label) keyed by the classes' indices; a label not in the data is refused."""
    if not isinstance(weights, dict):
        return weights  # None or "balanced"
    missing = [label for label in weights if label not in classes]
    if missing:
        raise _Failure(f"-w gives a weight to the label {_label(missing[0])}, which the data "
                       f"does not have (its labels: {_labels(classes)})")
    return {int(np.searchsorted(classes, label)): weight for label, weight in weights.items()}
