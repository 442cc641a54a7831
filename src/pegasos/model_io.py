"""Model files: versioned, pickle-free, written atomically.

A model file is a NumPy ``.npz`` archive (a zip of ``.npy`` arrays) holding the
fitted arrays -- ``coef_``, ``intercept_``, ``classes_``, ... -- and one more
entry, ``__meta__``, a JSON document::

    {"format": "pegasos-model", "version": 1, "estimator": "PegasosClassifier",
     "pegasos_version": "...", "params": {...}, "attributes": {...}}

``params`` are the estimator's constructor parameters (JSON values only: a
``class_weight`` dict is kept as a list of pairs, and parameters that cannot
be written, such as a ``RandomState`` instance or a callback, are recorded in
``dropped_params`` and restored to None).  ``attributes`` holds the fitted
scalars.  A sparse fitted matrix (the support vectors of sparse training
data) is stored as its CSR arrays, ``NAME__csr_data``/``indices``/``indptr``/
``shape``.  Arrays are read with ``allow_pickle=False``: nothing in a model file
can run code, and a pickle is refused, never loaded.

Writes go to a temporary file in the target's folder, are flushed to disk and
then renamed over the target, so an interrupted or failed save never leaves a
half-written or stale model behind.
"""

import json
import os
import zipfile
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp

from ._files import write_atomic

FORMAT = "pegasos-model"
VERSION = 1
_META = "__meta__"
_ZIP_MAGIC = b"PK\x03\x04"
_PICKLE_MAGIC = (b"\x80",)  # protocols 2 and above start with PROTO (0x80)

__all__ = ["ModelFileError", "load_model", "save_model"]


class ModelFileError(ValueError):
    """A model file that cannot be loaded: corrupt, truncated, pickled or of another version."""


def _estimators():
    from .kernel import KernelPegasosClassifier, KernelPerceptron, SBPClassifier
    from .linear import PegasosClassifier

    classes = (PegasosClassifier, KernelPegasosClassifier, SBPClassifier, KernelPerceptron)
    return {cls.__name__: cls for cls in classes}


_CSR_PARTS = ("data", "indices", "indptr", "shape")


def _json_param(value):
    """(JSON-able value, ok)"""
    if value is None or isinstance(value, (bool, str)):
        return value, True
    if isinstance(value, Integral):
        return int(value), True
    if isinstance(value, Real):
        return float(value), True
    if isinstance(value, dict):
        items = []
        for k, v in value.items():
            (jk, ok_k), (jv, ok_v) = _json_param(k), _json_param(v)
            if not (ok_k and ok_v):
                return None, False
            items.append([jk, jv])
        return {"__dict_items__": items}, True
    return None, False


def _from_json_param(value):
    if isinstance(value, dict) and "__dict_items__" in value:
        return {k: v for k, v in value["__dict_items__"]}
    return value


def _plain_array(name, value):
    arr = np.asarray(value)
    if arr.dtype == object:
        arr = np.asarray(arr.tolist())
        if arr.dtype == object:
            raise ModelFileError(
                f"{name} holds Python objects, which a model file cannot store without "
                "pickle; use numbers or strings as labels."
            )
    return arr


def save_model(estimator, path):
    """Write a fitted estimator to ``path`` (atomically; see the module docstring)."""
    from sklearn.utils.validation import check_is_fitted

    from . import __version__

    check_is_fitted(estimator)
    name = type(estimator).__name__
    if name not in _estimators():
        raise ModelFileError(f"cannot save a {name}: not an estimator of this library")
    params, dropped = {}, []
    for key, value in estimator.get_params(deep=False).items():
        jv, ok = _json_param(value)
        params[key] = jv
        if not ok:
            dropped.append(key)
    arrays, attributes = {}, {}
    for key, value in vars(estimator).items():
        if not key.endswith("_") or key.startswith("_") or key in _NOT_SAVED:
            continue
        if sp.issparse(value):  # e.g. support_vectors_ of sparse training data
            value = sp.csr_matrix(value)
            for part in _CSR_PARTS:
                arrays[f"{key}__csr_{part}"] = np.asarray(getattr(value, part))
        elif isinstance(value, np.ndarray):
            arrays[key] = _plain_array(key, value)
        else:
            jv, ok = _json_param(value)
            if ok:
                attributes[key] = jv
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "estimator": name,
        "pegasos_version": __version__,
        "params": params,
        "dropped_params": dropped,
        "attributes": attributes,
    }
    arrays[_META] = np.asarray(json.dumps(meta))
    write_atomic(path, lambda f: np.savez(f, **arrays))


# Diagnostics of the last fit, not part of the model.
_NOT_SAVED = {"duality_gap_", "objective_history_"}


def load_model(path):
    """Read a model written by :func:`save_model` and return the fitted estimator.

    Raises
    ------
    ModelFileError
        If the file is not a pegasos model (a pickle, another format),
        truncated or corrupt, or written in a format version this release does
        not read.
    """
    path = os.fspath(path)
    with open(path, "rb") as f:
        head = f.read(4)
    if head[:1] in _PICKLE_MAGIC:
        raise ModelFileError(
            f"{path} is a pickle; pegasos model files are never unpickled (unpickling can "
            "run arbitrary code). Save models with pegasos.save_model."
        )
    if head != _ZIP_MAGIC:
        raise ModelFileError(f"{path} is not a pegasos model file (it is not an npz archive)")
    try:
        with np.load(path, allow_pickle=False) as archive:
            if _META not in archive.files:
                raise ModelFileError(f"{path} is an npz archive but not a pegasos model file")
            meta = json.loads(str(archive[_META]))
            arrays = {k: archive[k] for k in archive.files if k != _META}
    except ModelFileError:
        raise
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, KeyError) as exc:
        raise ModelFileError(f"{path} is truncated or corrupt ({exc})") from exc
    if meta.get("format") != FORMAT:
        raise ModelFileError(f"{path} is not a pegasos model file (format {meta.get('format')!r})")
    if meta.get("version") != VERSION:
        raise ModelFileError(
            f"{path} has model format version {meta.get('version')!r}; this pegasos "
            f"reads version {VERSION}"
        )
    classes = _estimators()
    if meta.get("estimator") not in classes:
        raise ModelFileError(f"{path} holds an unknown estimator {meta.get('estimator')!r}")
    params = {k: _from_json_param(v) for k, v in meta["params"].items()}
    estimator = classes[meta["estimator"]](**params)
    for key, value in meta["attributes"].items():
        setattr(estimator, key, value)
    for key in [k for k in arrays if k.endswith("__csr_data")]:
        name = key[: -len("__csr_data")]
        parts = {part: arrays.pop(f"{name}__csr_{part}") for part in _CSR_PARTS}
        arrays[name] = sp.csr_matrix(
            (parts["data"], parts["indices"], parts["indptr"]), shape=tuple(parts["shape"])
        )
    for key, value in arrays.items():
        setattr(estimator, key, value)
    return estimator
