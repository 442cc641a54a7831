"""Behaviour of PegasosClassifier: inputs, reproducibility, options, continuation."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits

from pegasos import PegasosClassifier

from .conftest import make_binary


def _csr(X, index_dtype=np.int32):
    A = sp.csr_matrix(X)
    A.indices = A.indices.astype(index_dtype)
    A.indptr = A.indptr.astype(index_dtype)
    return A


@pytest.mark.parametrize("sampling", ["uniform", "permutation", "cyclic"])
def test_same_seed_same_model_bit_for_bit(binary, sampling):
    X, y = binary
    a = PegasosClassifier(lam=0.01, sampling=sampling, random_state=7).fit(X, y)
    b = PegasosClassifier(lam=0.01, sampling=sampling, random_state=7).fit(X, y)
    assert np.array_equal(a.coef_, b.coef_) and np.array_equal(a.intercept_, b.intercept_)
    if sampling != "cyclic":
        c = PegasosClassifier(lam=0.01, sampling=sampling, random_state=8).fit(X, y)
        assert not np.array_equal(a.coef_, c.coef_)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_dense_and_sparse_give_the_same_model(index_dtype):
    X, y = make_binary(n=70, d=9, density=0.4, seed=2)
    params = dict(lam=0.01, random_state=0, n_epochs=5, batch_size=3)
    dense = PegasosClassifier(**params).fit(X, y)
    sparse = PegasosClassifier(**params).fit(_csr(X, index_dtype), y)
    assert np.array_equal(dense.coef_, sparse.coef_)
    assert np.array_equal(dense.intercept_, sparse.intercept_)
    # prediction goes through BLAS for dense and scipy for sparse input: same
    # model, summed in another order
    np.testing.assert_allclose(
        dense.decision_function(X), sparse.decision_function(_csr(X)), rtol=1e-14, atol=1e-14
    )


def test_input_layouts_and_dtypes_give_the_same_model(binary):
    X, y = binary
    params = dict(lam=0.01, random_state=0)
    ref = PegasosClassifier(**params).fit(X, y).coef_
    for variant in (np.asfortranarray(X), X.tolist()):
        assert np.array_equal(PegasosClassifier(**params).fit(variant, y).coef_, ref)
    coo = sp.coo_matrix(X)
    assert np.array_equal(PegasosClassifier(**params).fit(coo, y).coef_, ref)
    # float32 input is converted once (its values are rounded, so compare loosely)
    f32 = PegasosClassifier(**params).fit(X.astype(np.float32), y).coef_
    np.testing.assert_allclose(f32, ref, rtol=1e-4, atol=1e-5)


def test_csr_with_duplicate_entries_is_summed():
    X, y = make_binary(n=30, d=4, seed=4)
    A = sp.csr_matrix(X)
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    # split every value into two halves stored as duplicate entries
    dup = sp.csr_matrix(
        (np.r_[A.data / 2, A.data / 2], (np.r_[rows, rows], np.r_[A.indices, A.indices])),
        shape=A.shape,
    )
    dup.has_canonical_format = False
    a = PegasosClassifier(lam=0.01, random_state=0).fit(A, y)
    b = PegasosClassifier(lam=0.01, random_state=0).fit(dup, y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12, atol=1e-12)


def test_string_labels_and_predict(binary):
    X, y = binary
    labels = np.where(y > 0, "spam", "ham")
    clf = PegasosClassifier(lam=0.01, random_state=0).fit(X, labels)
    assert list(clf.classes_) == ["ham", "spam"]
    pred = clf.predict(X)
    assert set(pred) <= {"ham", "spam"}
    assert clf.score(X, labels) > 0.85
    assert np.array_equal(pred == "spam", clf.decision_function(X) > 0)


def test_multiclass_one_vs_rest_and_n_jobs():
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    a = PegasosClassifier(lam=1e-3, random_state=0).fit(X, y)
    b = PegasosClassifier(lam=1e-3, random_state=0, n_jobs=2).fit(X, y)
    assert a.coef_.shape == (10, 64) and a.intercept_.shape == (10,)
    assert np.array_equal(a.coef_, b.coef_)
    assert a.score(X, y) > 0.93
    # each one-vs-rest problem gets its own seed
    assert not np.array_equal(a.coef_[0], a.coef_[1])


def test_class_weight_balanced_moves_the_boundary():
    X, y = make_binary(n=300, d=3, seed=6)
    keep = (y > 0) | (np.arange(len(y)) % 6 == 0)  # few negatives
    X, y = X[keep], y[keep]
    plain = PegasosClassifier(lam=0.01, random_state=0).fit(X, y)
    bal = PegasosClassifier(lam=0.01, random_state=0, class_weight="balanced").fit(X, y)
    neg = y < 0
    recall_plain = np.mean(plain.predict(X[neg]) < 0)
    recall_bal = np.mean(bal.predict(X[neg]) < 0)
    assert recall_bal >= recall_plain
    assert bal.intercept_[0] < plain.intercept_[0]


def test_class_weight_dict_equals_sample_weight(binary):
    X, y = binary
    a = PegasosClassifier(lam=0.01, random_state=0, class_weight={-1.0: 2.0, 1.0: 0.5}).fit(X, y)
    b = PegasosClassifier(lam=0.01, random_state=0).fit(X, y, sample_weight=np.where(y > 0, 0.5, 2.0))
    assert np.array_equal(a.coef_, b.coef_)


def test_zero_weight_samples_do_not_move_the_model(binary):
    X, y = binary
    sw = np.ones(len(y))
    flipped = y.copy()
    flipped[:10] *= -1
    sw[:10] = 0.0
    a = PegasosClassifier(lam=0.01, sampling="cyclic", random_state=0).fit(X, y, sample_weight=sw)
    b = PegasosClassifier(lam=0.01, sampling="cyclic", random_state=0).fit(X, flipped, sample_weight=sw)
    assert np.array_equal(a.coef_, b.coef_)


@pytest.mark.filterwarnings("ignore:Pegasos did not reach tol:sklearn.exceptions.ConvergenceWarning")  # tol=1e-9: a check every block
@pytest.mark.parametrize("average", [False, True])
def test_warm_start_continues_the_run(binary, average):
    X, y = binary
    params = dict(lam=0.01, sampling="cyclic", average=average, random_state=0)
    once = PegasosClassifier(n_iter=240, **params).fit(X, y)
    twice = PegasosClassifier(n_iter=120, warm_start=True, **params).fit(X, y)
    twice.fit(X, y)
    assert twice.t_ == 240 and twice.n_iter_ == 120
    np.testing.assert_allclose(twice.coef_, once.coef_, rtol=0, atol=1e-13)
    cold = PegasosClassifier(n_iter=120, **params).fit(X, y).fit(X, y)
    assert cold.t_ == 120
    # a warm continuation may switch the certificate on
    twice.set_params(tol=1e-9, check_every=1.0).fit(X, y)
    assert twice.t_ == 360 and twice.duality_gap_[0].primal > 0


def test_partial_fit_continues_t_and_equals_fit(binary):
    X, y = binary
    params = dict(lam=0.01, sampling="cyclic", average=True, random_state=0)
    full = PegasosClassifier(n_epochs=3, **params).fit(X, y)
    inc = PegasosClassifier(**params)
    for _ in range(3):
        inc.partial_fit(X, y, classes=np.array([-1.0, 1.0]))
    assert inc.t_ == full.t_ == 3 * len(y)
    np.testing.assert_allclose(inc.coef_, full.coef_, rtol=0, atol=1e-13)


def test_partial_fit_on_a_stream_of_batches():
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    clf = PegasosClassifier(lam=1e-3, random_state=0)
    for start in range(0, len(y), 300):
        clf.partial_fit(X[start : start + 300], y[start : start + 300], classes=np.arange(10))
    assert clf.score(X, y) > 0.85
    with pytest.raises(ValueError, match=r"not in classes"):
        clf.partial_fit(X[:5], np.full(5, 11))


def test_tol_stops_on_the_duality_gap(binary):
    X, y = binary
    clf = PegasosClassifier(lam=0.01, n_epochs=1000, tol=0.05, check_every=1, random_state=0)
    clf.fit(X, y)
    (gap,) = clf.duality_gap_
    assert gap.relative_gap <= 0.05
    assert clf.n_iter_ < 1000 * len(y)
    assert clf.n_iter_ % len(y) == 0  # stopped at a check, after whole epochs


def test_objective_history_is_recorded(binary):
    X, y = binary
    clf = PegasosClassifier(lam=0.01, n_epochs=20, track_objective=True, check_every=2, random_state=0)
    clf.fit(X, y)
    (hist,) = clf.objective_history_
    assert hist["t"].tolist() == [2 * len(y) * (i + 1) for i in range(10)]
    assert np.all(hist["dual"] <= hist["primal"])
    assert np.all(np.diff(hist["time"]) >= 0)
    assert hist["primal"][-1] < hist["primal"][0]
    # a warm continuation extends the history
    clf.set_params(warm_start=True).fit(X, y)
    (hist,) = clf.objective_history_
    assert len(hist["t"]) == 20 and hist["t"][-1] == 40 * len(y)


def test_random_init_starts_inside_the_ball(binary):
    from pegasos._numba import linear as _k
    from pegasos._solvers.linear import random_init as _random_init

    radius2 = 4.0
    norms = []
    for seed in range(50):
        v, scal = np.zeros(6), np.zeros(_k.N_SCALARS)
        _random_init(v, scal, radius2, 1.0, np.random.default_rng(seed))
        assert scal[_k.WNORM2] == pytest.approx(v @ v, rel=1e-12)
        norms.append(v @ v)
    assert 0 < min(norms) and max(norms) <= radius2 * (1 + 1e-12)
    assert max(norms) > radius2 / 2  # spread over the ball, not stuck near the centre
    # the start decides the first batch's violators, so it changes the first step
    X, y = binary
    first = {init: PegasosClassifier(lam=0.01, init=init, n_iter=1, batch_size=20, average=False,
                                     random_state=0).fit(X, y).coef_ for init in ("random", "zero")}
    assert not np.array_equal(first["random"], first["zero"])
    a = PegasosClassifier(lam=0.01, init="random", random_state=0).fit(X, y)
    assert a.score(X, y) > 0.85


def test_projection_keeps_the_norm_inside_the_ball(binary):
    X, y = binary
    X = X * 50
    lam = 0.01
    clf = PegasosClassifier(lam=lam, average=False, fit_intercept=False, n_iter=500, random_state=0)
    clf.fit(X, y)
    assert np.linalg.norm(clf.coef_) <= 1 / np.sqrt(lam) * (1 + 1e-12)
    free = PegasosClassifier(
        lam=lam, average=False, fit_intercept=False, projection=False, n_iter=2, random_state=0
    ).fit(X, y)
    assert np.linalg.norm(free.coef_) > 1 / np.sqrt(lam)


def test_tiny_lambda_long_run_stays_finite(binary):
    X, y = binary
    clf = PegasosClassifier(lam=1e-9, n_iter=10**7, random_state=0).fit(X, y)
    assert np.all(np.isfinite(clf.coef_)) and np.all(np.isfinite(clf.intercept_))
    assert clf.t_ == 10**7
    assert clf.score(X, y) > 0.8


def test_C_is_lambda_times_n(binary):
    X, y = binary
    a = PegasosClassifier(C=2.0, random_state=0).fit(X, y)
    b = PegasosClassifier(lam=1 / (2.0 * len(y)), random_state=0).fit(X, y)
    assert a.lam_ == b.lam_
    assert np.array_equal(a.coef_, b.coef_)


def test_callback_reports_every_block(binary):
    X, y = binary
    seen = []
    clf = PegasosClassifier(
        lam=0.01, n_epochs=6, track_objective=True, check_every=2, random_state=0,
        callback=seen.append,
    ).fit(X, y)
    assert [info["t"] for info in seen] == [120, 240, 360]
    assert seen[-1]["iterations"] == seen[-1]["iterations_total"] == 360
    assert seen[-1]["gap"].primal == clf.duality_gap_[0].primal
    np.testing.assert_array_equal(seen[-1]["coef"], clf.coef_[0])
    assert seen[-1]["intercept"] == clf.intercept_[0]


@pytest.mark.parametrize("check", ["check_n_features_in_after_fitting",
                                   "check_estimators_partial_fit_n_features"])
def test_partial_fit_contracts_hold_with_lam(check):
    # the default instance fails these checks by design (partial_fit needs lam; see
    # tests/test_common.py); with lam set they must pass
    from sklearn.utils import estimator_checks

    getattr(estimator_checks, check)("PegasosClassifier",
                                     PegasosClassifier(lam=1e-3, random_state=0))
