"""Fuzzers run by ``tests/test_hostile.py``, each in a subprocess of its own so
that a crash (SIGSEGV, SIGABRT, an allocation that kills the process) fails
that test instead of ending the test run.

    python -m tests.fuzz_inputs csr|model

Each draws ``$PEGASOS_FUZZ_EXAMPLES`` cases with hypothesis (derandomized:
the same cases every run) and checks that the outcome is a ``ValueError``
(``ModelFileError`` for model files) or a result equal to that of valid input.
"""

import io
import json
import os
import sys
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
json_values = st.one_of(st.none(), st.booleans(), st.integers(-3, 10**12), st.floats(allow_nan=False),
                        st.text(max_size=5), st.lists(st.integers(0, 5), max_size=3),
                        st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


@st.composite
def model_cases(draw):
    index = draw(st.integers(0, 2))
    members, X, _ = BASE[index]
    members = dict(members)
    meta = json.loads(str(members.pop("__meta__")))
    names = sorted(members)
    entries_extra = []
    compress = False
    what = draw(st.sampled_from(["replace", "drop", "extra", "duplicate", "header", "flip",
                                 "truncate", "compress", "csr"]))
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


if __name__ == "__main__":
    WORK.mkdir(parents=True, exist_ok=True)
    name = sys.argv[1]
    if name == "model":
        BASE = _models()
    {"csr": fuzz_csr, "model": fuzz_model}[name]()
    print(f"ran {EXAMPLES} {name} cases: {TALLY}")
