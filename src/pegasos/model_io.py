"""Model files: versioned, pickle-free, written atomically.

A model file is a NumPy ``.npz`` archive (a zip of ``.npy`` arrays) holding the
fitted arrays -- ``coef_``, ``intercept_``, ``classes_``, ... -- and one more
entry, ``__meta__``, a JSON document::

    {"format": "pegasos-model", "version": 3, "estimator": "PegasosClassifier",
     "pegasos_version": "...", "params": {...}, "attributes": {...},
     "plan": {"lam": ..., "n_iter": ..., ...}, "certificate": [...],
     "arrays": {"coef_": {"dtype": "<f8", "shape": [1, 123]}, ...}}

``params`` are the estimator's constructor parameters (JSON values only: a
``class_weight`` dict is kept as a list of pairs, and parameters that cannot
be written, such as a ``RandomState`` instance or a callback, are recorded in
``dropped_params`` and restored to None).  ``attributes`` holds the fitted
scalars.  A sparse fitted matrix (the support vectors of sparse training
data) is stored as its CSR arrays, ``NAME__csr_data``/``indices``/``indptr``/
``shape``.  A linear model also keeps its solver state (``state__v``,
``state__u``, ``state__scal``, ``state__t``, ``state__gamma``,
``state__ugamma``: :class:`pegasos.linear.PegasosState`) unless saved with
``solver_state=False`` (as ``pegasos train`` writes), and its objective
history (``history__*``), and every model its fit plan (``plan``) and last
certificate, so that a loaded model's ``duality_gap``, ``partial_fit`` and
``warm_start`` behave exactly as the saved model's.  Files without a state
(versions 1 and 2 too): it is rebuilt from ``coef_``/``intercept_`` at step
``t_ + 1`` (continuing the step counter; the certificate then starts from
the margin violators).  Arrays are read by their ``.npy`` headers, which
never hold objects: nothing in a model file can run code, and a pickle is
refused, never loaded.

Loading never trusts the file (:func:`load_model`).  A path that is not a
regular file (a named pipe, a device) is refused before it is opened.  The
archive's end record bounds the number of members (:data:`pegasos._npz.MAX_MEMBERS`) and
the size of its directory before ``zipfile`` reads it; then every member must
be expected by the header's ``arrays`` table (by name, no extras, no
duplicates, no path-like names), unencrypted, stored uncompressed as
``numpy.savez`` writes it, and lie within the file.  Each member's own
``.npy`` header must declare exactly the bytes the member stores, and the
dtype and shape of the table, before its data is read: a small file cannot
make the loader allocate more than it holds.  Arrays load in native byte
order, floats as float64 (support vectors keep float32).  Then the arrays
must agree with each other and with the estimator (classes, features,
support vectors, CSR structure), every value must be finite, and every
header field (parameters, fitted scalars, plan, certificate) must have its
type and range.  Each failure is a :class:`ModelFileError` naming the file
and the problem, quoting at most 80 characters of what the file holds.
Version 1 files (no ``arrays`` table) are still read, with the same checks
of each member against its ``.npy`` header.

Writes go to a temporary file in the target's folder, are flushed to disk and
then renamed over the target, so an interrupted or failed save never leaves a
half-written or stale model behind.
"""

import dataclasses
import json
import math
import os
import struct
import zipfile
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

import pegasos as _package  # (its public estimators load on first use)

from . import __version__
from ._base import MAX_COUNT as _MAX_COUNT  # counts are int64 in the solvers
from ._base import FitPlan, check_params
from ._files import quote, special_file, write_atomic
from ._npz import META, directory_bounds, read_array, read_members
from ._rows import check_sparse_structure
from ._solvers.problems import PROBLEMS, estimator_class

FORMAT = "pegasos-model"
VERSION = 3
#: Format versions this release reads.
READABLE_VERSIONS = (1, 2, 3)


def _state_fields():
    """The fields of a linear model's solver state, stored as ``state__FIELD`` arrays."""
    from ._solvers.linear import PegasosState  # (Numba's import cost: a linear model's only)

    return [field.name for field in dataclasses.fields(PegasosState)]


_ZIP_MAGIC = b"PK\x03\x04"
_PICKLE_MAGIC = (b"\x80",)  # protocols 2 and above start with PROTO (0x80)

__all__ = ["ModelFileError", "load_model", "load_model_with_header", "save_model"]


class ModelFileError(ValueError):
    """A model file that cannot be loaded: corrupt, truncated, pickled or of another version.

    The message starts with the file's path and names what is wrong.

    See Also
    --------
    load_model : Raises it.

    Examples
    --------
    >>> import os, tempfile
    >>> from pegasos import load_model
    >>> path = os.path.join(tempfile.mkdtemp(), "empty.model")
    >>> open(path, "wb").close()
    >>> try:
    ...     load_model(path)
    ... except ModelFileError as exc:
    ...     print(type(exc).__name__)
    ModelFileError
    """


def _estimators():
    # (on first use: every estimator's module costs Numba's import, and imports this one)
    from .dask_backend import DaskPegasosClassifier  # imports dask only when it fits
    from .dask_svc import DaskDualSVC

    names = ("PegasosClassifier", "KernelPegasosClassifier", "SBPClassifier",
             "KernelPerceptron", "NystroemPegasosClassifier")
    return {**{name: getattr(_package, name) for name in names},
            **{p.estimator: estimator_class(p) for p in PROBLEMS.values()},
            "DaskPegasosClassifier": DaskPegasosClassifier, "DaskDualSVC": DaskDualSVC}


#: The estimators whose model is a linear one (coef_, intercept_, a solver state).
_LINEAR = ("PegasosClassifier", "DaskPegasosClassifier")


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


def _is_scalar(value):
    return value is None or isinstance(value, (bool, str, int, float))


def _from_json_param(key, value, refuse):
    """A parameter as the header stores it (:func:`_json_param`): a JSON scalar, or a
    dict as ``{"__dict_items__": [[key, value], ...]}`` of scalars, each key once."""
    if _is_scalar(value):
        return value
    items = value.get("__dict_items__") if isinstance(value, dict) and len(value) == 1 else None
    ok = isinstance(items, list) and all(
        isinstance(pair, list) and len(pair) == 2 and all(map(_is_scalar, pair))
        for pair in items)
    refuse.check(ok and len({k for k, _ in items}) == len(items),
                 f"header parameter {quote(key)} is {quote(value)}; a parameter is a number, "
                 "a string, a boolean, null, or a dict of them stored as "
                 '{"__dict_items__": [[key, value], ...]} with each key once')
    return dict(items)


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


def save_model(estimator, path, *, solver_state=True):
    """Write a fitted estimator to ``path`` (atomically; see the module docstring).

    Parameters
    ----------
    estimator : estimator of this library, fitted
        The model to write.
    path : str or path-like
        The file; replaced atomically.
    solver_state : bool, default=True
        Keep a linear model's solver state (``state_``: two weight vectors
        and two numbers per training row, 521 KB of the 534 KB of a9a's
        file), so that the loaded model's ``duality_gap``, ``partial_fit`` and
        ``warm_start`` continue exactly as the saved one's would.  False
        writes the model alone (8 KB for a9a, most of it the JSON header;
        LIBLINEAR's text file: 2.7 KB): a loaded model then continues from
        ``coef_`` at step ``t_ + 1`` and its ``duality_gap`` starts from the
        margin violators, as a file of version 1 or 2.  Kernel models have
        no solver state.

    See Also
    --------
    load_model : Read it back, checked against its header.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn.datasets import load_iris
    >>> from pegasos import PegasosClassifier, load_model, save_model
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = PegasosClassifier(lam=0.01, random_state=0).fit(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "iris.model")
    >>> save_model(clf, path)
    >>> back = load_model(path)
    >>> bool((back.predict(X) == clf.predict(X)).all()), back.t_ == clf.t_
    (True, True)
    """
    check_is_fitted(estimator)
    name = type(estimator).__name__
    if name not in _estimators():
        raise ModelFileError(f"cannot save a {name}: not an estimator of this library")
    if callable(getattr(estimator, "kernel", None)):
        raise ModelFileError(f"cannot save a {name} with a callable kernel: the file would not "
                             "hold the function (use kernel='precomputed', or pickle it "
                             "yourself)")
    converted = {key: _json_param(value) for key, value in estimator.get_params(deep=False).items()}
    params = {key: jv for key, (jv, _) in converted.items()}
    dropped = [key for key, (_, ok) in converted.items() if not ok]
    arrays, attributes = _solver_arrays(estimator, solver_state), {}
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
    meta = {"format": FORMAT, "version": VERSION, "estimator": name,
            "pegasos_version": __version__, "params": params, "dropped_params": dropped,
            "attributes": attributes}
    plan = getattr(estimator, "plan_", None)
    if plan is not None:
        meta["plan"] = {**dataclasses.asdict(plan), "seeds": list(plan.seeds)}
    gaps = getattr(estimator, "duality_gap_", None)
    if gaps and all(g is not None for g in gaps):
        # the fit's last certificate (duality_gap_ after loading; `pegasos info`)
        meta["certificate"] = [{"primal": float(g.primal), "dual": float(g.dual),
                                "relative_gap": float(g.relative_gap)} for g in gaps]
    meta["arrays"] = {name: {"dtype": arr.dtype.str, "shape": list(arr.shape)}
                      for name, arr in arrays.items()}
    arrays[META] = np.asarray(json.dumps(meta))
    write_atomic(path, lambda f: np.savez(f, **arrays))


def _solver_arrays(estimator, solver_state=True):
    """The solver state (``state__*``, when ``solver_state``) and objective history
    (``history__*``) as arrays.

    The history's checks are concatenated per key, with ``history__counts``
    giving each problem's number of checks.
    """
    from .linear import HISTORY_KEYS  # (Numba's import cost: a linear model's only)

    arrays = {}
    state = getattr(estimator, "state_", None) if solver_state else None
    if state is not None:
        for field in _state_fields():
            arrays[f"state__{field}"] = np.asarray(getattr(state, field))
    history = getattr(estimator, "objective_history_", None)
    if history:
        arrays["history__counts"] = np.array([len(h["t"]) for h in history], dtype=np.int64)
        for key in HISTORY_KEYS:
            arrays[f"history__{key}"] = np.concatenate(
                [np.asarray(h[key], dtype=np.int64 if key == "t" else np.float64)
                 for h in history])
    return arrays


# Saved in their own form (the header's "certificate" and "plan"; state__*/history__* arrays).
_NOT_SAVED = {"duality_gap_", "objective_history_", "state_", "plan_",
              # (a stream fit's record of its held-out error, not the model)
              "holdout_errors_",
              # (a distributed DualSVC fit's account of itself, not the model)
              "task_seconds_", "task_bytes_", "distribute_", "across_"}


# --- loading -----------------------------------------------------------------


_COMMON_ARRAYS = {"classes_", "intercept_"}
_OPTIONAL_ARRAYS = {"feature_names_in_", "probA_", "probB_"}
#: Arrays that only some fits of one estimator have (LIBSVM's problems: their table's).
_OWN_OPTIONAL_ARRAYS = {p.estimator: p.optional_arrays for p in PROBLEMS.values()}
#: (a distributed fit's model is SVC's)
_OWN_OPTIONAL_ARRAYS["DaskDualSVC"] = PROBLEMS["c_svc"].optional_arrays
#: The estimators of SVC's one-vs-one layout.
_ONE_VS_ONE = (*(p.estimator for p in PROBLEMS.values() if p.classifier), "DaskDualSVC")
_KERNEL_ARRAYS = _COMMON_ARRAYS | {"support_", "dual_coef_", "support_vectors_", "n_support_"}
#: The models of one problem and no classes (regression, one-class).
_SINGLE = tuple(p.estimator for p in PROBLEMS.values() if not p.classifier)
_REGRESSORS = tuple(p.estimator for p in PROBLEMS.values() if not p.classifier and p.supervised)
_LINEAR_SCALARS = {"n_features_in_": Integral, "lam_": Real, "n_iter_": Integral,
                   "t_": Integral}
_KERNEL_SCALARS = {"n_features_in_": Integral, "gamma_": Real, "n_kernel_evals_": Integral,
                   "n_iter_": Integral}
#: (arrays, scalar attributes with their types) of each estimator's model: LIBSVM's
#: problems' from their table; a distributed fit's as the in-memory fit's; Nystroem's map
#: (landmarks, K_mm^{-1/2}) and a linear model on it.
_SCHEMA = {
    "PegasosClassifier": (_COMMON_ARRAYS | {"coef_"}, _LINEAR_SCALARS),
    "DaskPegasosClassifier": (_COMMON_ARRAYS | {"coef_"}, _LINEAR_SCALARS),
    "KernelPegasosClassifier": (_KERNEL_ARRAYS, {**_KERNEL_SCALARS, "lam_": Real}),
    "SBPClassifier": (_KERNEL_ARRAYS | {"margin_", "nu_"}, _KERNEL_SCALARS),
    "KernelPerceptron": (_KERNEL_ARRAYS, _KERNEL_SCALARS),
    **{p.estimator: (p.arrays, p.scalars) for p in PROBLEMS.values()},
    "DaskDualSVC": (PROBLEMS["c_svc"].arrays, PROBLEMS["c_svc"].scalars),
    "NystroemPegasosClassifier": (_COMMON_ARRAYS | {"coef_", "components_", "normalization_"},
                                  {**_LINEAR_SCALARS, "gamma_": Real}),
}
_OWN_OPTIONAL_ARRAYS["NystroemPegasosClassifier"] = {"component_indices_"}


class _Refuse:
    """Raises ModelFileError("PATH: ...")."""

    def __init__(self, path):
        self.path = path

    def __call__(self, what):
        if what.startswith(("is ", "has ")):
            raise ModelFileError(f"{self.path} {what}")
        raise ModelFileError(f"{self.path} is not a valid model file: {what}")

    def check(self, ok, what):
        if not ok:
            self(what)


def _read_meta(raw, refuse):
    refuse.check(raw.dtype.kind == "U" and raw.ndim == 0, "the header is not a JSON text")
    try:
        meta = json.loads(str(raw))
    except (ValueError, TypeError, RecursionError) as exc:
        refuse(f"the header is not valid JSON ({quote(exc)})")
    refuse.check(isinstance(meta, dict), "the header is not a JSON object")
    if meta.get("format") != FORMAT:
        refuse(f"is not a pegasos model file (format {quote(meta.get('format'))})")
    version = meta.get("version")
    if type(version) is not int or version not in READABLE_VERSIONS:  # not True, not 1.0
        refuse(
            f"has model format version {quote(version)}; this pegasos reads versions "
            f"{', '.join(map(str, READABLE_VERSIONS))} (save the model again with the pegasos "
            "release that wrote it, or retrain)"
        )
    estimator = meta.get("estimator")
    refuse.check(isinstance(estimator, str) and estimator in _SCHEMA,
                 f"unknown estimator {quote(estimator)}")
    for key in ("params", "attributes"):
        refuse.check(isinstance(meta.get(key), dict), f"header field {key!r} is not an object")
    refuse.check(isinstance(meta.get("pegasos_version", ""), str),
                 f"header field 'pegasos_version' is {quote(meta.get('pegasos_version'))}; "
                 "a version string is expected")
    dropped = meta.get("dropped_params", [])
    refuse.check(isinstance(dropped, list)
                 and all(isinstance(k, str) and k in meta["params"] for k in dropped),
                 f"header field 'dropped_params' is {quote(dropped)}; a list of the names of "
                 "parameters that could not be written is expected")
    return meta


def _expected_members(meta, refuse):
    """{member: (dtype, shape)} from a version-2 header (None for version 1)."""
    if meta["version"] == 1:
        return None
    table = meta.get("arrays")
    refuse.check(isinstance(table, dict), "header field 'arrays' is not an object")
    out = {}
    for name, spec in table.items():
        ok = (
            isinstance(spec, dict)
            and isinstance(spec.get("dtype"), str)
            and isinstance(spec.get("shape"), list)
            and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                    for v in spec["shape"])
        )
        refuse.check(ok, f"header entry for array {quote(name)} is malformed")
        try:
            dtype = np.dtype(spec["dtype"])
        except Exception:  # whatever NumPy's parse of a dtype string raises
            refuse(f"header gives array {quote(name)} an unknown dtype {quote(spec['dtype'])}")
        refuse.check(dtype.kind in "biufU", f"array {quote(name)} has dtype {dtype}, which a model "
                                            "file never holds")
        out[name] = (dtype, tuple(spec["shape"]))
    return out


def _check_listed(members, expected, refuse):
    """Members are exactly the header's arrays (each one's size is checked as it is read)."""
    stored = set(members) - {META}
    missing, extra = sorted(set(expected) - stored), sorted(stored - set(expected))
    refuse.check(not missing, f"array {quote(missing[0]) if missing else ''} listed in the "
                              "header is missing")
    refuse.check(not extra, f"member {quote(extra[0]) if extra else ''} is not listed in the "
                            "header")


#: Float arrays kept in their stored precision (float32 or float64): the support
#: vectors of a float32 fit are float32, as the rows it was fitted on.
_OWN_PRECISION = ("support_vectors_", "support_vectors___csr_data", "components_")


def _load_arrays(zf, members, expected, refuse):
    """Every member's array, read through :func:`~pegasos._npz.read_array`.

    Floats become float64 (the support vectors stay float32 when so stored),
    whatever width or byte order the file gives: prediction runs compiled
    code typed for exactly these.
    """
    arrays = {}
    for name, info in members.items():
        if name == META:
            continue
        arr = read_array(zf, name, info, expected, refuse)
        if arr.dtype.kind == "f":
            keep = name in _OWN_PRECISION and arr.dtype == np.float32
            arr = arr.astype(np.float32 if keep else np.float64, copy=False)
        arrays[name] = arr
    return arrays


def _assemble_sparse(arrays, refuse):
    """NAME__csr_* members into one CSR matrix, its structure checked first."""
    for key in [k for k in arrays if k.endswith("__csr_data")]:
        name = key[: -len("__csr_data")]
        parts = {}
        for part in _CSR_PARTS:
            member = f"{name}__csr_{part}"
            refuse.check(member in arrays, f"sparse array {quote(name)} has no {quote(member)}")
            parts[part] = arrays.pop(member)
        shape = parts["shape"]
        refuse.check(shape.shape == (2,) and shape.dtype.kind in "iu" and np.all(shape >= 0),
                     f"sparse array {quote(name)} has a malformed shape {quote(shape.tolist())}")
        try:  # SciPy checks the lengths, the full check the indices and offsets
            matrix = sp.csr_matrix((parts["data"], parts["indices"], parts["indptr"]),
                                   shape=(int(shape[0]), int(shape[1])))
            check_sparse_structure(matrix)
        except ValueError as exc:
            refuse(f"sparse array {quote(name)}: {exc}")
        arrays[name] = matrix
    leftover = sorted(k for k in arrays if "__csr_" in k)
    refuse.check(not leftover, f"member {quote(leftover[0] if leftover else '')} has no "
                               "matching __csr_data")


#: Fitted scalars that only some fits have (a distributed fit's rounds and partitions).
_OPTIONAL_SCALARS = {"DaskPegasosClassifier": {"n_rounds_": Integral, "n_partitions_": Integral},
                     **{name: {"n_rows_read_": Integral} for name in (  # a stream fit's
                         "PegasosClassifier", "NystroemPegasosClassifier",
                         "KernelPegasosClassifier", "KernelPerceptron")},  # (with a budget)
                     "DaskDualSVC": {**PROBLEMS["c_svc"].optional_scalars,
                                     "n_partitions_": Integral},
                     **{p.estimator: p.optional_scalars for p in PROBLEMS.values()}}


def _check_scalars(name, attributes, refuse):
    _, scalars = _SCHEMA[name]
    optional = _OPTIONAL_SCALARS.get(name, {})
    for key, value in attributes.items():
        kind = scalars.get(key, optional.get(key))
        refuse.check(kind is not None, f"unexpected fitted attribute {quote(key)} for {name}")
        ok = _is_int(value, 0, _MAX_COUNT) if kind is Integral else _is_float(value)
        refuse.check(ok, f"attribute {quote(key)} is {quote(value)}; "
                         f"{'a finite number' if kind is Real else 'an integer in [0, 2**62)'} "
                         "is expected")
    missing = sorted(set(scalars) - set(attributes))
    refuse.check(not missing, f"fitted attribute {missing[0] if missing else ''!r} is missing")
    refuse.check(attributes["n_features_in_"] >= 1, "n_features_in_ must be at least 1")
    if "lam_" in attributes:
        refuse.check(attributes["lam_"] > 0, "attribute 'lam_' must be > 0")
    if "gamma_" in attributes:  # (0 as SVC and svm-train -g 0 take it)
        refuse.check(attributes["gamma_"] >= 0, "attribute 'gamma_' must be >= 0")
    if "lam_" in attributes:  # the steps 1/(lam t): lam and its reciprocal finite
        refuse.check(math.isfinite(1.0 / attributes["lam_"]),
                     f"attribute 'lam_' is {quote(attributes['lam_'])}, whose reciprocal "
                     "overflows float64")


def _check_arrays(name, arrays, attributes, estimator, refuse):
    """Shapes agree with each other and with the estimator (its kernel; a kernel map's
    ``n_components`` and ``landmarks``, a budget's size); values are finite."""
    kernel, budget = getattr(estimator, "kernel", None), getattr(estimator, "budget", None)
    allowed, _ = _SCHEMA[name]
    present = set(arrays)
    missing = sorted(allowed - present)
    extra = sorted(present - allowed - _OPTIONAL_ARRAYS - _OWN_OPTIONAL_ARRAYS.get(name, set()))
    refuse.check(not missing, f"array {missing[0] if missing else ''!r} is missing")
    refuse.check(not extra, f"unexpected array {extra[0] if extra else ''!r} for {name}")
    d = attributes["n_features_in_"]
    classes = arrays.get("classes_", np.array([-1, 1]))  # (one problem: regression, one class)
    refuse.check(classes.ndim == 1 and classes.shape[0] >= 2,
                 f"classes_ must list at least two classes; got shape {list(classes.shape)}")
    refuse.check(np.all(classes[1:] > classes[:-1]), "classes_ must be sorted and distinct")
    refuse.check(classes.dtype.kind != "f" or bool(np.all(np.isfinite(classes))),
                 "classes_ holds NaN or infinite labels")
    n_problems = 1 if classes.shape[0] == 2 else classes.shape[0]
    # DualSVC's one-vs-one layout (SVC's): k - 1 rows of dual_coef_, one model per pair
    k = classes.shape[0]
    coef = arrays.get("dual_coef_")
    one_vs_one = (name in _ONE_VS_ONE and k > 2 and getattr(coef, "ndim", 0) == 2
                  and coef.shape[0] == k - 1)
    n_models = k * (k - 1) // 2 if one_vs_one else n_problems

    def shaped(key, shape, kinds="f"):
        arr = arrays[key]
        kind = {"f": "floating-point", "iu": "integer", "U": "text"}[kinds]
        refuse.check(arr.dtype.kind in kinds and arr.shape == shape,
                     f"{key} must be {kind} of shape {list(shape)} for {classes.shape[0]} "
                     f"classes and {d} features; got {arr.dtype}{list(arr.shape)}")
        if arr.dtype.kind == "f":  # (a sparse matrix's stored values: DualSVC's dual_coef_)
            values = arr.data if sp.issparse(arr) else arr
            refuse.check(bool(np.all(np.isfinite(values))), f"{key} holds NaN or infinite values")
        return arr

    shaped("intercept_", (n_models,))
    if name in _SINGLE:  # a regression's probability model: probA_ alone, its Laplace scale
        refuse.check("probB_" not in arrays, f"unexpected array 'probB_' for {name}")
        refuse.check("probA_" not in arrays or name in _REGRESSORS,
                     f"unexpected array 'probA_' for {name}")
        if "probA_" in arrays:
            refuse.check(bool(np.all(shaped("probA_", (1,)) >= 0)),
                         "probA_ (the residuals' Laplace scale) must be >= 0")
    refuse.check(name in _SINGLE or ("probA_" in arrays) == ("probB_" in arrays),
                 "probA_ and probB_ go together")
    pairs = "pairwise_coupling_" in attributes
    refuse.check(not pairs or (attributes["pairwise_coupling_"] == 1 and one_vs_one
                               and "probA_" in arrays),
                 "pairwise_coupling_ must be 1, and only in a one-vs-one model with probA_")
    if "probA_" in arrays and name not in _SINGLE:  # one per pair with LIBSVM's coupling
        shaped("probA_", (n_models if pairs else n_problems,))
        shaped("probB_", (n_models if pairs else n_problems,))
    if name in _ONE_VS_ONE:  # its iterations: one per problem (a total in older files)
        refuse.check(("n_iter_" in arrays) != ("n_iter_" in attributes),
                     "fitted attribute 'n_iter_' is missing" if "n_iter_" not in attributes
                     else "n_iter_ is both an array and a header attribute")
        counts = arrays.get("n_iter_")
        refuse.check(counts is None or (counts.shape == (n_models,) and counts.dtype.kind in "iu"
                                        and bool(np.all(counts >= 0))),
                     f"n_iter_ must count the iterations of each of the {n_models} problems "
                     "(non-negative integers); got "
                     f"{getattr(counts, 'dtype', '')}{list(getattr(counts, 'shape', ()))}")
    if "feature_names_in_" in arrays:
        shaped("feature_names_in_", (d,), kinds="U")
    if name in _LINEAR:
        shaped("coef_", (n_problems, d))
        return
    if "components_" in arrays:  # a kernel map's landmarks, K_mm^{-1/2}, and linear model
        m = arrays["components_"].shape[0]
        refuse.check(m >= 1 and estimator.n_components == m,
                     f"parameter 'n_components' is {estimator.n_components} but the model "
                     f"holds {m} landmarks")
        rows = estimator.landmarks == "uniform"  # (k-means centres are rows of no row)
        refuse.check(("component_indices_" in arrays) == rows,
                     f"landmarks={estimator.landmarks!r} but component_indices_ is "
                     f"{'missing' if rows else 'present'}")
        shaped("components_", (m, d))
        shaped("normalization_", (m, m))
        shaped("coef_", (n_problems, m))
        if "component_indices_" in arrays:
            refuse.check(bool(np.all(shaped("component_indices_", (m,), kinds="iu") >= 0)),
                         "component_indices_ holds negative indices")
        return
    n_sv = arrays["dual_coef_"].shape[-1] if arrays["dual_coef_"].ndim == 2 else -1
    shaped("dual_coef_", (k - 1 if one_vs_one else n_problems, n_sv))
    refuse.check(budget is None or n_sv <= budget,
                 f"the model holds {n_sv} support vectors, more than its budget={budget}")
    support = shaped("support_", (n_sv,), kinds="iu")
    # (a budgeted model's merged points are rows of no training row: -1)
    refuse.check(bool(np.all(support >= (0 if budget is None else -1))),
                 "support_ holds negative indices")
    if kernel == "precomputed":  # indices of the Gram matrix's columns
        refuse.check(bool(np.all(support < d)), f"support_ holds indices beyond the {d} "
                                                "training samples")
    counts = shaped("n_support_", arrays["n_support_"].shape, kinds="iu")
    if name in _SINGLE:
        refuse.check(counts.shape == (1,) and int(counts[0]) == n_sv,
                     f"n_support_ must be [{n_sv}], the number of support vectors; got "
                     f"{counts.tolist()[:10]}")
    if "offset_" in arrays:
        refuse.check(bool(np.allclose(shaped("offset_", (1,)), -arrays["intercept_"],
                                      rtol=0, atol=0)),
                     "offset_ must be minus intercept_")
    if "class_weight_" in arrays:
        shaped("class_weight_", (k,))
    if "tie_order_" in arrays:  # a permutation of the classes
        order = arrays["tie_order_"]
        refuse.check(order.dtype.kind in "iu" and order.shape == (k,)
                     and np.array_equal(np.sort(order), np.arange(k)),
                     f"tie_order_ must be a permutation of the {k} classes' indices")
    if one_vs_one:  # prediction reads the support vectors grouped by class
        refuse.check(counts.shape == (k,) and bool(np.all(counts >= 0))
                     and int(counts.sum()) == n_sv,
                     f"n_support_ must count the {n_sv} support vectors of each of the {k} "
                     f"classes; got {counts.tolist()[:10]}")
    if "margin_" in arrays:
        shaped("margin_", (n_problems,))
    for key in ("nu_", "violation_", "relative_gap_", "C_"):
        if key in arrays:
            shaped(key, (n_models,))
    sv = arrays["support_vectors_"]
    expected = (0, 0) if kernel == "precomputed" else (n_sv, d)
    refuse.check(sv.shape == expected,
                 f"support_vectors_ must have shape {list(expected)} for {n_sv} support vectors "
                 f"and {d} features; got {list(sv.shape)}")
    values = sv.data if sp.issparse(sv) else sv
    refuse.check(values.dtype.kind == "f" and bool(np.all(np.isfinite(values))),
                 "support_vectors_ must hold finite floating-point values")


def load_model_with_header(path):
    """:func:`load_model`, and the file's JSON header: ``(estimator, header)``.

    The header holds the format, version, estimator name, parameters, fitted
    scalars, the table of arrays, the fit plan and, when the fit computed one,
    its last certificate.  Everything is checked, and refused with the same
    errors, as by :func:`load_model`.

    Parameters
    ----------
    path : str or path-like
        The model file.

    Returns
    -------
    estimator
        The fitted estimator.
    header : dict
        The file's JSON header, as read (and checked).

    See Also
    --------
    load_model : The estimator alone.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn.datasets import load_iris
    >>> from pegasos import PegasosClassifier, save_model
    >>> from pegasos.model_io import load_model_with_header
    >>> X, y = load_iris(return_X_y=True)
    >>> path = os.path.join(tempfile.mkdtemp(), "iris.model")
    >>> save_model(PegasosClassifier(lam=0.01, random_state=0).fit(X, y), path)
    >>> model, header = load_model_with_header(path)
    >>> header["estimator"], header["version"], header["plan"]["lam"]
    ('PegasosClassifier', 3, 0.01)
    """
    path = os.fspath(path)
    refuse = _Refuse(path)
    special = special_file(path)
    refuse.check(special is None, f"is {special}, not a regular file; a model file is a file")
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        head = f.read(4)
        if head[:1] in _PICKLE_MAGIC:
            refuse(
                "is a pickle; pegasos model files are never unpickled (unpickling can run "
                "arbitrary code). Save models with pegasos.save_model."
            )
        refuse.check(head == _ZIP_MAGIC,
                     "is not a pegasos model file (it is not an npz archive)")
        directory_bounds(f, size, refuse)
        try:
            with zipfile.ZipFile(f) as zf:
                members = read_members(zf, size, refuse)
                meta = _read_meta(read_array(zf, META, members[META], None, refuse), refuse)
                expected = _expected_members(meta, refuse)
                if expected is not None:
                    _check_listed(members, expected, refuse)
                arrays = _load_arrays(zf, members, expected, refuse)
        except ModelFileError:
            raise
        except (zipfile.BadZipFile, EOFError, OSError, ValueError, KeyError, RuntimeError,
                NotImplementedError, struct.error) as exc:
            refuse(f"is truncated or corrupt ({quote(exc)})")
    name = meta["estimator"]
    _assemble_sparse(arrays, refuse)
    _check_scalars(name, meta["attributes"], refuse)
    estimator = _checked_estimator(name, meta["params"], refuse)
    extras = {key: arrays.pop(key) for key in list(arrays)
              if key.startswith(("state__", "history__"))}
    _check_arrays(name, arrays, meta["attributes"], estimator, refuse)
    for key, value in meta["attributes"].items():
        setattr(estimator, key, value)
    for key, value in arrays.items():
        setattr(estimator, key, value)
    _restore_fit(estimator, meta, extras, refuse)
    return estimator, meta


def _checked_estimator(name, params, refuse):
    """An unfitted ``name`` with the header's parameters, each checked by type and range as
    ``fit`` checks it (the estimator's ``_parameter_constraints``, then the relations
    between parameters and the class weights' values)."""
    params = {key: _from_json_param(key, value, refuse) for key, value in params.items()}
    try:
        estimator = _estimators()[name](**params)
    except TypeError as exc:  # a parameter the estimator does not have
        refuse(f"the header's parameters are not those of {name} ({quote(exc, 200)})")
    try:
        check_params(estimator)
    except ValueError as exc:  # InvalidParameterError is a ValueError
        refuse(f"the header's parameters are not valid for {name} ({quote(exc, 300)})")
    return estimator


def _restore_fit(estimator, meta, extras, refuse):
    """The solver state, history, plan and certificate of a linear model, checked.

    A file of version 1 or 2 (or a model imported from LIBLINEAR) has no state:
    it is rebuilt from ``coef_`` and ``intercept_`` at step ``t_ + 1``, so
    ``partial_fit`` and ``warm_start`` continue the step counter;
    :meth:`duality_gap` then starts its dual vector
    from the margin violators.
    """
    from .objective import DualityGap  # (Numba's import cost, for a linear model only)

    plan = meta.get("plan")
    estimator.plan_ = None if plan is None else FitPlan(**_checked_plan(plan, refuse))
    n_problems = estimator.intercept_.shape[0]
    certificate = _checked_certificate(meta.get("certificate", None), n_problems, refuse)
    if meta["estimator"] not in _LINEAR:
        refuse.check(not extras, f"unexpected array {quote(sorted(extras)[0] if extras else '')} "
                                 f"for {meta['estimator']}")
        refuse.check(certificate is None, f"header field 'certificate' is not kept for "
                                          f"{meta['estimator']}")
        return
    from ._solvers.linear import PegasosState  # (Numba's import cost: a linear model's only)

    n_problems, d = estimator.coef_.shape
    fields = {f: extras.pop(f"state__{f}", None) for f in _state_fields()}
    if all(v is None for v in fields.values()):  # version 1-2, or imported from LIBLINEAR
        state = PegasosState.from_model(estimator.coef_, estimator.intercept_,
                                        estimator._intercept_layout(), estimator.t_ + 1)
    else:
        missing = [f for f, v in fields.items() if v is None]
        refuse.check(not missing, f"array 'state__{missing[0] if missing else ''}' is missing")
        for f, v in fields.items():
            refuse.check(v.dtype.kind in "iuf", f"array 'state__{f}' must hold numbers")
        state = PegasosState(**{f: np.array(v, dtype=np.int64 if f == "t" else np.float64)
                                for f, v in fields.items()})
    try:
        state.check(n_problems, d)
    except ValueError as exc:
        refuse(str(exc))
    estimator.state_ = state
    estimator.objective_history_ = _history(extras, n_problems, refuse)
    refuse.check(not extras, f"unexpected array {quote(sorted(extras)[0] if extras else '')}")
    estimator.duality_gap_ = None if certificate is None else [
        DualityGap(g["primal"], g["dual"]) for g in certificate]


def _is_int(value, low, high):
    return type(value) is int and low <= value < high


def _is_float(value, low=-math.inf):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and (
        math.isfinite(value) and value >= low)


def _checked_plan(plan, refuse):
    """The header's fit plan as :class:`~pegasos._base.FitPlan`'s fields, every type checked."""

    fields = [f.name for f in dataclasses.fields(FitPlan)]
    ok = isinstance(plan, dict) and sorted(plan) == sorted(fields)
    if ok:
        seeds = plan["seeds"]
        ok = (_is_float(plan["lam"]) and plan["lam"] > 0
              and _is_int(plan["n_iter"], 1, _MAX_COUNT + 1)
              and _is_int(plan["batch_size"], 1, _MAX_COUNT + 1)
              and (plan["n_average"] is None or _is_int(plan["n_average"], 0, _MAX_COUNT + 1))
              and _is_float(plan["radius2"], 0.0)
              and isinstance(seeds, list) and len(seeds) >= 1
              and all(_is_int(s, 0, 2**32) for s in seeds))
    refuse.check(ok, f"header field 'plan' is malformed (a fit plan has {', '.join(fields)}: "
                     "finite numbers and counts)")
    return {**plan, "lam": float(plan["lam"]), "radius2": float(plan["radius2"]),
            "seeds": tuple(plan["seeds"])}


def _checked_certificate(certificate, n_problems, refuse):
    """The header's certificate: one {primal, dual, relative_gap} of finite numbers per problem."""
    if certificate is None:
        return None
    keys = ["dual", "primal", "relative_gap"]
    ok = (isinstance(certificate, list) and len(certificate) == n_problems
          and all(isinstance(g, dict) and sorted(g) == keys
                  and all(_is_float(g[k]) for k in keys) for g in certificate))
    refuse.check(ok, f"header field 'certificate' is malformed (one {{primal, dual, "
                     f"relative_gap}} of finite numbers for each of the {n_problems} problems)")
    return [{k: float(g[k]) for k in keys} for g in certificate]


def _history(extras, n_problems, refuse):
    """``objective_history_`` from the history__* arrays (empty histories when absent)."""
    from .linear import HISTORY_KEYS  # (Numba's import cost: a linear model's only)

    counts = extras.pop("history__counts", None)
    columns = {key: extras.pop(f"history__{key}", None) for key in HISTORY_KEYS}
    if counts is None:
        refuse.check(all(c is None for c in columns.values()), "array 'history__counts' is missing")
        return [{key: np.zeros(0) for key in HISTORY_KEYS} for _ in range(n_problems)]
    refuse.check(counts.shape == (n_problems,) and counts.dtype.kind in "iu"
                 and bool(np.all(counts >= 0)), "history__counts must count each problem's checks")
    total = int(counts.sum())
    for key, col in columns.items():
        refuse.check(col is not None and col.shape == (total,) and col.dtype.kind in "iuf"
                     and bool(np.all(np.isfinite(col))),
                     f"history__{key} must hold {total} finite numbers")
    cuts = np.cumsum(counts)[:-1]
    split = {key: np.split(col, cuts) for key, col in columns.items()}
    return [{key: split[key][c] for key in HISTORY_KEYS} for c in range(n_problems)]


def load_model(path):
    """Read a model written by :func:`save_model` and return the fitted estimator.

    The file is checked before use (see the module docstring): nothing is
    unpickled, nothing is inflated beyond what the header declares, and the
    arrays must fit the estimator and each other.

    Parameters
    ----------
    path : str or path-like
        The model file.

    Returns
    -------
    estimator
        The fitted estimator, of the class that was saved.

    Raises
    ------
    ModelFileError
        If the file is not a pegasos model (a pickle, another format),
        truncated or corrupt, written in a format version this release does
        not read, or inconsistent in any way; the message names the problem.
    OSError
        If the file cannot be opened (missing, a folder, not readable).

    See Also
    --------
    save_model : Write a fitted estimator.
    load_model_with_header : The same, with the file's JSON header.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn.datasets import load_breast_cancer
    >>> from pegasos import KernelPegasosClassifier, load_model, save_model
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = X / X.max(axis=0)
    >>> clf = KernelPegasosClassifier(n_epochs=1, random_state=0).fit(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "bc.model")
    >>> save_model(clf, path)
    >>> bool((load_model(path).decision_function(X) == clf.decision_function(X)).all())
    True
    """
    return load_model_with_header(path)[0]
