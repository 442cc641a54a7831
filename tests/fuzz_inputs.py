"""Fuzzers run by ``tests/test_hostile.py``, each in a subprocess of its own so
that a crash (SIGSEGV, SIGABRT, an allocation that kills the process) fails
that test instead of ending the test run.

    python -m tests.fuzz_inputs csr|model|zip|sequences

Each draws ``$PEGASOS_FUZZ_EXAMPLES`` cases with hypothesis (derandomized:
the same cases every run) and checks that the outcome is a ``ValueError``
(``ModelFileError`` for model files) or a result equal to that of valid input.
``model`` edits arrays, members and header fields (bit flips inside the ``.npy``
headers with their CRC made to match, every header parameter swapped for another
JSON type among them); ``zip`` mutates the zip structure of model files (member count, flags,
compression method, declared and stored sizes, offsets, byte order and
width of the arrays); ``sequences`` is no fuzzer but every continued fit
(warm start, ``partial_fit``, a loaded or altered state, refits) on data of
another width, class set or dtype, run under glibc's heap checks by the test.
"""

import io
import json
import os
import struct
import sys
import time
import warnings
import zipfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pegasos import (
    KernelPegasosClassifier,
    KernelPerceptron,
    PegasosClassifier,
    SBPClassifier,
    duality_gap,
    load_model,
    save_model,
)
from pegasos.model_io import ModelFileError

EXAMPLES = int(os.environ.get("PEGASOS_FUZZ_EXAMPLES", "50"))
WORK = Path(os.environ.get("PEGASOS_FUZZ_DIR", "."))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))

N, D = 24, 5


def _base(seed):
    rng = np.random.default_rng(seed)
    X = sp.random(N, D, density=0.5, format="csr", random_state=seed, dtype=np.float64)
    y = np.where(rng.random(N) > 0.5, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    return X, y


def _estimators():
    return [
        PegasosClassifier(n_iter=40, random_state=0),
        KernelPegasosClassifier(n_iter=30, gamma=0.5, random_state=0),
        SBPClassifier(0.2, n_iter=20, gamma=0.5, random_state=0),
        KernelPerceptron(n_epochs=1, gamma=0.5, random_state=0),
    ]


def _outcomes(Z, y, fitted):
    """What each API call gives on Z: a result, or the ValueError's class."""
    out = []
    for est in _estimators():
        try:
            out.append(("fit", est.fit(Z, y).decision_function(Z)))
        except ValueError:
            out.append(("fit", ValueError))
    for est in fitted:
        try:
            out.append(("predict", est.decision_function(Z)))
        except ValueError:
            out.append(("predict", ValueError))
    try:
        out.append(("gap", duality_gap(Z, y, np.ones(D), 0.0, lam=0.1).primal))
    except ValueError:
        out.append(("gap", ValueError))
    return out


values = st.one_of(
    st.sampled_from([-(2**40), -(2**31), -1, 0, 1, D - 1, D, N, N + 1, 2**31 - 1, 2**40]),
    st.integers(-(2**62), 2**62),
)


@st.composite
def csr_cases(draw):
    dtype = draw(st.sampled_from([np.int32, np.int64]))
    X, y = _base(draw(st.integers(0, 3)))
    Z = X.copy()
    Z.indices = Z.indices.astype(dtype)  # set after copy(): SciPy may pick int32 again
    Z.indptr = Z.indptr.astype(dtype)
    what = draw(st.sampled_from(["indices", "indptr", "truncate", "swap"]))
    info = np.iinfo(dtype)
    if what in ("indices", "indptr"):
        arr = getattr(Z, what)
        pos = draw(st.integers(0, arr.shape[0] - 1))
        arr[pos] = max(min(draw(values), int(info.max)), int(info.min))
    elif what == "truncate":
        k = draw(st.integers(0, Z.nnz))
        Z.indices = Z.indices[:k]
        Z.data = Z.data[:k]
    else:  # two rows' offsets exchanged
        i, j = draw(st.integers(0, N)), draw(st.integers(0, N))
        Z.indptr[[i, j]] = Z.indptr[[j, i]]
    return X, Z, y


@SETTINGS
@given(csr_cases())
def fuzz_csr(case):
    X, Z, y = case
    fitted = [est.fit(X, y) for est in _estimators()]
    got = _outcomes(Z, y, fitted)
    refused = [v is ValueError for _, v in got]
    assert all(refused) or not any(refused), got  # the structure is valid or it is not
    TALLY["refused" if all(refused) else "accepted"] += 1
    if not any(refused):
        # accepted: it is a valid matrix, and every result is that of its dense copy
        dense = _outcomes(Z.toarray(), y, fitted)
        for (name, a), (_, b) in zip(got, dense):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, err_msg=name)


# --- model files -----------------------------------------------------------------


def _models():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((30, D))
    y3 = rng.integers(0, 3, 30)
    y2 = np.where(X[:, 0] > 0, 1, -1)
    models = [
        (PegasosClassifier(n_iter=50, random_state=0).fit(X, y3), X),
        (KernelPegasosClassifier(n_iter=40, random_state=0).fit(sp.csr_matrix(X), y2), X),
        (SBPClassifier(0.2, n_iter=20, random_state=0).fit(X, y3), X),
    ]
    out = []
    for i, (est, Xp) in enumerate(models):
        path = WORK / f"base{i}.model"
        save_model(est, path)
        with np.load(path) as archive:
            members = {k: archive[k] for k in archive.files}
        out.append((members, Xp, est.predict(Xp)))
    return out


BASE = None
TALLY = {"refused": 0, "accepted": 0}


def _npy(arr):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.asarray(arr), allow_pickle=False)
    return buf.getvalue()


def _write(path, entries, compress=False):
    """entries: list of (member name, bytes): duplicates and odd names allowed."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED) as zf:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "Duplicate name": wanted here
            for name, data in entries:
                zf.writestr(name, data)


arrays = st.one_of(
    st.builds(lambda shape, v: np.full(shape, v),
              st.lists(st.integers(0, 4), max_size=3).map(tuple),
              st.sampled_from([0.0, 1.5, np.nan, np.inf, -1.0, 1e308])),
    st.builds(lambda shape, v: np.full(shape, v, dtype=np.int64),
              st.lists(st.integers(0, 4), max_size=2).map(tuple),
              st.sampled_from([-1, 0, 3, 10**9, 2**62])),
    st.builds(lambda n: np.array(["a", "b", "c"][:n]), st.integers(0, 3)),
    st.builds(lambda n: np.ones(n, dtype=np.float32), st.integers(0, 6)),
)
#: What a header parameter can be turned into: every JSON type, and the dict encoding broken.
param_swaps = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 2**70), st.floats(), st.text(max_size=4),
    st.lists(st.integers(0, 3), max_size=2), st.dictionaries(st.text(max_size=2), st.integers(),
                                                             max_size=2),
    st.builds(lambda items: {"__dict_items__": items},
              st.one_of(st.text(max_size=2), st.lists(st.one_of(
                  st.integers(), st.lists(st.one_of(st.integers(), st.floats(), st.text(max_size=2),
                                                    st.lists(st.integers(), max_size=1)),
                                          max_size=3)), max_size=3))),
)
json_values = st.one_of(st.none(), st.booleans(), st.integers(-3, 10**12), st.floats(allow_nan=False),
                        st.text(max_size=5), st.lists(st.integers(0, 5), max_size=3),
                        st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


def _draw_base(draw):
    """One of the saved models, drawn: (members without the header, header, names, X,
    its predictions)."""
    members, X, predicted = BASE[draw(st.integers(0, len(BASE) - 1))]
    members = dict(members)
    meta = json.loads(str(members.pop("__meta__")))
    return members, meta, sorted(members), X, predicted


@st.composite
def model_cases(draw):
    members, meta, names, X, _ = _draw_base(draw)
    entries_extra = []
    compress = False
    what = draw(st.sampled_from(["replace", "drop", "extra", "duplicate", "header", "flip",
                                 "truncate", "compress", "csr", "npy_header", "param_type"]))
    if what == "replace":
        members[draw(st.sampled_from(names))] = draw(arrays)
    elif what == "drop":
        del members[draw(st.sampled_from(names))]
    elif what == "extra":
        entries_extra.append((draw(st.sampled_from(["extra.npy", "../evil.npy", "a b.npy",
                                                    "coef_.txt", "dir/x.npy"])), _npy(draw(arrays))))
    elif what == "duplicate":
        name = draw(st.sampled_from(names))
        entries_extra.append((name + ".npy", _npy(draw(arrays))))
    elif what == "header":
        section = draw(st.sampled_from(["top", "params", "attributes", "arrays"]))
        target = meta if section == "top" else meta.setdefault(section, {})
        if not isinstance(target, dict):
            target = meta
        keys = sorted(target) + ["format", "version", "estimator", "new"]
        target[draw(st.sampled_from(keys))] = draw(json_values)
    elif what == "param_type" and meta.get("params"):
        meta["params"][draw(st.sampled_from(sorted(meta["params"])))] = draw(param_swaps)
    elif what == "compress":
        compress = True
    elif what == "csr" and any("__csr_" in n for n in names):
        part = draw(st.sampled_from([n for n in names if "__csr_" in n]))
        arr = members[part].copy()
        if arr.size:
            arr.flat[draw(st.integers(0, arr.size - 1))] = draw(st.sampled_from([-1, 10**9, 7]))
        members[part] = arr
    entries = [(k + ".npy", _npy(v)) for k, v in members.items()]
    entries.append(("__meta__.npy", _npy(np.asarray(json.dumps(meta)))))
    if what == "npy_header":  # flipped inside a member's .npy header, its CRC made to match
        at = draw(st.integers(0, len(entries) - 1))
        name, data = entries[at]
        data = bytearray(data)
        size = int.from_bytes(data[8:10], "little")  # format 1.0: the header's length
        for _ in range(draw(st.integers(1, 3))):
            data[10 + draw(st.integers(0, size - 1))] ^= 1 << draw(st.integers(0, 7))
        entries[at] = (name, bytes(data))
    entries += entries_extra
    path = WORK / "case.model"
    _write(path, entries, compress)
    data = bytearray(path.read_bytes())
    if what == "flip":
        for _ in range(draw(st.integers(1, 4))):
            pos = draw(st.integers(0, len(data) - 1))
            data[pos] ^= 1 << draw(st.integers(0, 7))
    elif what == "truncate":
        data = data[: draw(st.integers(0, len(data) - 1))]
    path.write_bytes(bytes(data))
    return path, X


@SETTINGS
@given(model_cases())
def fuzz_model(case):
    path, X = case
    try:
        model = load_model(path)
    except ModelFileError:
        TALLY["refused"] += 1
        return
    TALLY["accepted"] += 1
    predicted = model.predict(X)  # a model that loads must predict
    assert predicted.shape == (X.shape[0],)
    assert np.isin(predicted, model.classes_).all()


# --- the zip structure of model files -----------------------------------------------

_CD, _LOCAL, _END = b"PK\x01\x02", b"PK\x03\x04", b"PK\x05\x06"
#: (field, offset in the central directory entry, in the local header, struct format)
_FIELDS = {"flags": (8, 6, "<H"), "method": (10, 8, "<H"), "csize": (20, 18, "<L"),
           "usize": (24, 22, "<L"), "offset": (42, None, "<L")}
_END_FIELDS = {"count": (10, "<H"), "count_disk": (8, "<H"), "dir_size": (12, "<L"),
               "dir_offset": (16, "<L")}
u16 = st.one_of(st.sampled_from([0, 1, 8, 9, 12, 14, 93, 95, 98, 99, 0x41, 0x801, 0xFFFF]),
                st.integers(0, 0xFFFF))
u32 = st.one_of(st.sampled_from([0, 1, 7, 2**31 - 1, 2**31, 2**32 - 1]), st.integers(0, 2**32 - 1))


def _entries(members, meta):
    out = [(k + ".npy", _npy(v)) for k, v in members.items()]
    return out + [("__meta__.npy", _npy(np.asarray(json.dumps(meta))))]


def _patch(data, sig, index, offset, fmt, value):
    """Set a field of the index-th record with signature sig (cycling over them)."""
    starts = [i for i in range(len(data) - 3) if data[i:i + 4] == sig]
    if not starts or offset is None:
        return
    at = starts[index % len(starts)] + offset
    if at + struct.calcsize(fmt) <= len(data):
        struct.pack_into(fmt, data, at, value)


@st.composite
def zip_cases(draw):
    members, meta, names, X, predicted = _draw_base(draw)
    what = draw(st.sampled_from(["members", "field", "end", "byteorder", "width"]))
    path = WORK / "zip.model"
    same = False  # a rewrite that must load and predict exactly as the original
    if what in ("byteorder", "width"):
        name = draw(st.sampled_from([n for n in names if members[n].dtype.kind in "iuf"]))
        arr = members[name]
        if what == "byteorder":
            members[name] = arr.astype(arr.dtype.newbyteorder(">"))
            same = True
        else:
            kind = arr.dtype.kind
            wanted = draw(st.sampled_from(["f2", "f4", "f8", "f16", "i1", "i4", "u8"]))
            members[name] = arr.astype(wanted) if kind in "iu" or wanted[0] == "f" else arr
        meta["arrays"][name]["dtype"] = members[name].dtype.str
        _write(path, _entries(members, meta))
        return path, X, predicted if same else None
    entries = _entries(members, meta)
    if what == "members":
        extra = draw(st.sampled_from([1, 10, 44, 45, 60, 1000, 20000]))
        entries += [(f"x{i}.npy", b"") for i in range(extra)]
    _write(path, entries)
    data = bytearray(path.read_bytes())
    if what == "field":
        for _ in range(draw(st.integers(1, 3))):
            field = draw(st.sampled_from(sorted(_FIELDS)))
            cd, local, fmt = _FIELDS[field]
            value = draw(u16 if fmt == "<H" else u32)
            where = draw(st.sampled_from(["cd", "local", "both"]))
            record = draw(st.integers(0, 40))
            if where in ("cd", "both"):
                _patch(data, _CD, record, cd, fmt, value)
            if where in ("local", "both"):
                _patch(data, _LOCAL, record, local, fmt, value)
    elif what == "end":
        field = draw(st.sampled_from(sorted(_END_FIELDS)))
        offset, fmt = _END_FIELDS[field]
        _patch(data, _END, 0, offset, fmt, draw(u16 if fmt == "<H" else u32))
    path.write_bytes(bytes(data))
    return path, X, None


@SETTINGS
@given(zip_cases())
def fuzz_zip(case):
    path, X, predicted = case
    tic = time.perf_counter()
    try:
        model = load_model(path)
    except ModelFileError:
        TALLY["refused"] += 1
        assert time.perf_counter() - tic < 10.0, "a refusal took over 10 s"
        return
    TALLY["accepted"] += 1
    got = model.predict(X)
    assert np.isin(got, model.classes_).all()
    if predicted is not None:  # only the byte order changed: the same model
        np.testing.assert_array_equal(got, predicted)


# --- continued fits on other data, under glibc's heap checks ------------------------


def _data(n, d, n_classes, dtype, sparse, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)).astype(dtype)
    y = np.arange(n) % n_classes
    return (sp.csr_matrix(X) if sparse else X), y


VARIANTS = {
    "same": (5, 2, np.float64, False), "wider": (10, 2, np.float64, False),
    "narrower": (3, 2, np.float64, False), "three classes": (5, 3, np.float64, False),
    "float32": (5, 2, np.float32, False), "csr": (5, 2, np.float64, True),
    "csr wider": (9, 2, np.float64, True), "csr float32 three classes": (5, 3, np.float32, True),
}


def _attempt(log, label, call):
    """Run call(): a result or a ValueError/TypeError is fine; anything else fails."""
    try:
        call()
        log.append((label, "ok"))
    except (ValueError, TypeError) as exc:
        log.append((label, type(exc).__name__))


def _consistent(est):
    """A fitted model's arrays agree with n_features_in_ (no stale width left behind)."""
    d = est.n_features_in_
    if hasattr(est, "coef_"):
        assert est.coef_.shape[1] == d, (type(est).__name__, est.coef_.shape, d)
        assert est.state_.v.shape[1] == d + 1
    if hasattr(est, "support_vectors_") and est.kernel != "precomputed":
        assert est.support_vectors_.shape[1] == d


def _sequence_estimators():
    from pegasos.dask_backend import DaskPegasosClassifier

    return [
        PegasosClassifier(n_iter=30, warm_start=True, random_state=0),
        PegasosClassifier(n_iter=30, warm_start=True, n_jobs=2, random_state=0),
        DaskPegasosClassifier(n_iter=30, warm_start=True, random_state=0),
        KernelPegasosClassifier(n_iter=20, random_state=0),
        SBPClassifier(0.2, n_iter=10, random_state=0),
        KernelPerceptron(n_epochs=1, random_state=0),
    ]


def sequences():
    import copy

    log = []
    first = _data(24, 5, 2, np.float64, False, 0)
    for base in _sequence_estimators():
        for name, (d, k, dtype, sparse) in VARIANTS.items():
            X2, y2 = _data(24, d, k, dtype, sparse, 1)
            label = f"{type(base).__name__}, then {name}"
            est = copy.deepcopy(base).fit(*first)
            _attempt(log, label + ": fit", lambda: est.fit(X2, y2))
            _consistent(est)
            _attempt(log, label + ": predict", lambda: est.predict(X2))
            _attempt(log, label + ": predict the first", lambda: est.predict(first[0]))
            path = WORK / "sequence.model"
            save_model(copy.deepcopy(base).fit(*first), path)
            loaded = load_model(path)
            _attempt(log, label + ": loaded, predict", lambda: loaded.predict(X2))
            if hasattr(loaded, "partial_fit"):
                loaded.set_params(lam=0.1, C=None)
                _attempt(log, label + ": loaded, partial_fit",
                         lambda: loaded.partial_fit(X2, y2, classes=np.unique(y2)))
                _consistent(loaded)
                _attempt(log, label + ": loaded, warm fit", lambda: loaded.fit(X2, y2))
                _consistent(loaded)
                _attempt(log, label + ": loaded, duality_gap",
                         lambda: loaded.duality_gap(X2, y2))
        if hasattr(base, "partial_fit"):
            stream = copy.deepcopy(base).set_params(lam=0.1, warm_start=False)
            stream.partial_fit(*first, classes=[0, 1])
            for name, (d, k, dtype, sparse) in VARIANTS.items():
                X2, y2 = _data(24, d, k, dtype, sparse, 2)
                _attempt(log, f"partial_fit stream, then {name}",
                         lambda: stream.partial_fit(X2, y2))
                _consistent(stream)
        # a state or model altered by hand: refused at the boundary, never written past
        est = copy.deepcopy(base).fit(*first)
        if hasattr(est, "state_"):
            for field, shape in (("v", (1, 11)), ("u", (1, 3)), ("scal", (1, 2)),
                                 ("gamma", (1, 7)), ("t", (3,))):
                altered = copy.deepcopy(est)
                setattr(altered.state_, field, np.zeros(shape, getattr(est.state_, field).dtype))
                _attempt(log, f"state_.{field} altered: partial_fit",
                         lambda: altered.partial_fit(*first))
                _attempt(log, f"state_.{field} altered: duality_gap",
                         lambda: altered.duality_gap(*first))
        if hasattr(est, "dual_coef_"):
            for attr, value in (("dual_coef_", np.zeros((1, 3))),
                                ("dual_coef_", est.dual_coef_.astype(">f8")),
                                ("support_vectors_", np.zeros((len(est.support_), 9)))):
                altered = copy.deepcopy(est)
                setattr(altered, attr, value)
                _attempt(log, f"{attr} altered: predict", lambda: altered.predict(first[0]))
    refused = sum(1 for _, outcome in log if outcome != "ok")
    print(f"{len(log)} steps, {refused} refused")
    return log


if __name__ == "__main__":
    WORK.mkdir(parents=True, exist_ok=True)
    name = sys.argv[1]
    if name in ("model", "zip"):
        BASE = _models()
    if name == "sequences":
        sequences()
        print("ran the continued-fit sequences")
    else:
        {"csr": fuzz_csr, "model": fuzz_model, "zip": fuzz_zip}[name]()
        print(f"ran {EXAMPLES} {name} cases: {TALLY}")
