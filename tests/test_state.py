"""The fit plan and the solver state: resolved once, kept by the model, saved with it."""

import json
import warnings
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp

from pegasos import (
    KernelPegasosClassifier,
    KernelPerceptron,
    PegasosClassifier,
    SBPClassifier,
    load_model,
    save_model,
)
from pegasos._base import DEFAULT_C, make_plan
from pegasos.model_io import ModelFileError

from .conftest import make_binary


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # short fits warn that they may be far from the SVM
        yield


def _multiclass(n=90, d=4, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, np.argmax(X[:, :3], axis=1)


def _write(path, arrays, meta):
    with open(path, "wb") as f:  # (given a name, np.savez would append ".npz")
        np.savez(f, **arrays, __meta__=np.asarray(json.dumps(meta)))


@pytest.mark.parametrize("est", [PegasosClassifier(), KernelPegasosClassifier(n_epochs=1)])
def test_one_default_regularisation_c_equals_1(binary, est):
    X, y = binary
    est.fit(X, y)
    assert est.lam_ == 1.0 / (DEFAULT_C * len(y)) == est.plan_.lam


def test_the_plan_resolves_every_number_once():
    plan = make_plan(lam=None, C=2.0, n=500, n_iter=None, n_epochs=3.0, batch_size=10,
                     average=0.25, radius2=None, random_state=0, n_problems=3,
                     weights=np.full(500, 2.0))
    assert plan.lam == 1.0 / 1000 and plan.n_iter == 150 and plan.batch_size == 10
    assert plan.n_average == 38 and plan.avg_start(1) == 1 + 150 - 38
    assert plan.radius2 == pytest.approx(2.0 / plan.lam) and len(plan.seeds) == 3
    # the defaults: 10/lam iterations (linear) or 10/lam examples drawn (kernel)
    base = dict(lam=0.01, C=None, n=100, n_iter=None, n_epochs=None, batch_size=4,
                average=False, radius2=0.0, random_state=0, n_problems=1)
    assert make_plan(**base).n_iter == 1000
    assert make_plan(**base, default="examples").n_iter == 250
    assert make_plan(**base).avg_start(1) == np.iinfo(np.int64).max


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("params", [
    dict(lam=1e-2, track_objective=True, check_every=0.5),
    dict(lam=1e-2, average=True, intercept_mode="unregularized", batch_size=3),
    dict(C=0.5, average=False, fit_intercept=False),
])
@pytest.mark.parametrize("multiclass", [False, True])
def test_a_loaded_model_continues_exactly_as_the_saved_one(tmp_path, sparse, params, multiclass):
    X, y = _multiclass() if multiclass else make_binary(n=80)
    if sparse:
        X = sp.csr_matrix(X)
    saved = PegasosClassifier(n_epochs=2, random_state=0, **params).fit(X, y)
    save_model(saved, tmp_path / "m.model")
    loaded = load_model(tmp_path / "m.model")
    assert loaded.plan_ == saved.plan_ and loaded.duality_gap_ == saved.duality_gap_
    assert loaded.duality_gap(X, y) == saved.duality_gap(X, y)
    for est in (saved, loaded):
        est.set_params(warm_start=True).fit(X, y)
    np.testing.assert_array_equal(loaded.coef_, saved.coef_)
    assert loaded.t_ == saved.t_ > saved.plan_.n_iter
    if "C" not in params:  # partial_fit needs lam
        for est in (saved, loaded):
            est.partial_fit(X, y)
        np.testing.assert_array_equal(loaded.coef_, saved.coef_)
        np.testing.assert_array_equal(loaded.intercept_, saved.intercept_)
    for a, b in zip(saved.objective_history_, loaded.objective_history_):
        for key in ("t", "primal", "dual"):  # and "time", which is measured
            np.testing.assert_array_equal(a[key], b[key])


def test_a_version_2_file_continues_from_its_weights(tmp_path):
    X, y = make_binary(n=80)
    model = PegasosClassifier(lam=0.05, n_iter=200, average=False, random_state=0).fit(X, y)
    path = tmp_path / "v2.model"
    save_model(model, path)
    with zipfile.ZipFile(path) as zf:
        members = {i.filename: zf.read(i) for i in zf.infolist()}
    arrays = dict(np.load(path, allow_pickle=False))
    meta = json.loads(str(arrays.pop("__meta__")))
    meta["version"] = 2
    for name in [k for k in arrays if k.startswith(("state__", "history__"))]:
        del arrays[name], meta["arrays"][name]
    del meta["plan"]
    _write(path, arrays, meta)
    assert len(members) > len(arrays) + 1
    old = load_model(path)
    assert old.state_.t[0] == model.t_ + 1 and old.plan_ is None
    np.testing.assert_array_equal(old.decision_function(X), model.decision_function(X))
    gap = old.duality_gap(X, y)[0]  # from the violators: a valid, looser bound
    assert gap.primal == pytest.approx(model.duality_gap(X, y)[0].primal, rel=1e-12)
    assert gap.dual <= gap.primal
    old.partial_fit(X, y)
    assert old.t_ == model.t_ + 200  # n_iter iterations per call


def test_without_its_solver_state_a_file_holds_the_model_alone(tmp_path):
    """save_model(solver_state=False), as pegasos train writes: no per-row arrays (a
    file of a few kB whatever the training size); it predicts as the saved model and
    continues from its weights at step t_ + 1, as a version-2 file."""
    X, y = make_binary(n=2000)
    model = PegasosClassifier(lam=0.05, n_iter=300, average=False, random_state=0).fit(X, y)
    save_model(model, tmp_path / "full.model")
    save_model(model, tmp_path / "alone.model", solver_state=False)
    with zipfile.ZipFile(tmp_path / "alone.model") as zf:
        assert not [n for n in zf.namelist() if n.startswith("state__")]
    full, alone = (tmp_path / "full.model").stat().st_size, (tmp_path / "alone.model").stat().st_size
    assert alone < 8_000 < 2 * 2000 * 8 < full  # two numbers per training row are gone
    back = load_model(tmp_path / "alone.model")
    np.testing.assert_array_equal(back.decision_function(X), model.decision_function(X))
    assert back.state_.t[0] == model.t_ + 1
    gap = back.duality_gap(X, y)[0]
    assert gap.primal == pytest.approx(model.duality_gap(X, y)[0].primal, rel=1e-12)
    assert gap.dual <= gap.primal
    back.partial_fit(X, y)
    assert back.t_ == model.t_ + 300


@pytest.mark.parametrize("edit, message", [
    (lambda a: a.update(state__v=a["state__v"][:, :-1]), r"state_.v must have shape"),
    (lambda a: a["state__scal"].__setitem__((0, 0), np.nan), r"state_.scal holds NaN"),
    (lambda a: a.update(state__t=np.zeros(1, dtype=np.int64)), r"state_.t must be in \[1, 2\*\*62\)"),
    (lambda a: a.pop("state__u"), r"array 'state__u' is missing"),
    (lambda a: a.update(state__u=np.array(["x"] * 6)), r"array 'state__u' must hold numbers"),
    (lambda a: a["state__scal"].__setitem__((0, 0), 0.0), r"scale \(column A\) must be > 0"),
    (lambda a: a.update(history__counts=np.array([7])), r"history__t must hold 7 finite"),
])
def test_a_tampered_state_is_refused(tmp_path, edit, message):
    X, y = make_binary(n=40)
    path = tmp_path / "m.model"
    save_model(PegasosClassifier(lam=0.1, n_iter=50, track_objective=True, check_every=0.5,
                                 random_state=0).fit(X, y), path)
    arrays = dict(np.load(path, allow_pickle=False))
    meta = json.loads(str(arrays.pop("__meta__")))
    edit(arrays)
    meta["arrays"] = {k: {"dtype": v.dtype.str, "shape": list(v.shape)} for k, v in arrays.items()}
    _write(path, arrays, meta)
    with pytest.raises(ModelFileError, match=message):
        load_model(path)


@pytest.mark.parametrize("est", [KernelPegasosClassifier(n_iter=20), KernelPerceptron(n_iter=5),
                                 SBPClassifier(n_epochs=0.5)])
def test_kernel_models_keep_their_plan(tmp_path, est):
    X, y = make_binary(n=50)
    est.set_params(random_state=0).fit(X, y)
    save_model(est, tmp_path / "k.model")
    assert load_model(tmp_path / "k.model").plan_ == est.plan_
    assert est.n_iter_ == est.plan_.n_iter


def test_n_iter_and_n_epochs_are_alternatives_everywhere(binary):
    X, y = binary
    for est in (PegasosClassifier, KernelPegasosClassifier, KernelPerceptron, SBPClassifier):
        with pytest.raises(ValueError, match=r"Give either n_iter \(iterations\) or n_epochs"):
            est(n_iter=3, n_epochs=1.0).fit(X, y)
