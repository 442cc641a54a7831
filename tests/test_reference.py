"""The compiled solver against the pure-NumPy reference, with a fixed sample order."""

import numpy as np
import pytest
import scipy.sparse as sp

from pegasos import PegasosClassifier

from .conftest import make_binary
from .naive import pegasos as naive_pegasos

LAM = 0.05


def _fit_cyclic(X, y, T, k, **params):
    clf = PegasosClassifier(lam=LAM, n_iter=T, batch_size=k, sampling="cyclic", **params)
    return clf.fit(X, y)


def _cyclic_order(n, T, k):
    return np.arange(T * k) % n


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("projection", [True, False])
@pytest.mark.parametrize("k", [1, 7])
@pytest.mark.parametrize(
    "intercept",
    [
        dict(fit_intercept=False),
        dict(fit_intercept=True, intercept_mode="augment", intercept_scaling=2.5),
        dict(fit_intercept=True, intercept_mode="unregularized"),
    ],
    ids=["none", "augment", "unregularized"],
)
@pytest.mark.parametrize("average", [False, True, 0.3], ids=["last", "full", "suffix"])
def test_matches_reference(sparse, projection, k, intercept, average):
    X, y = make_binary(n=40, d=6, density=0.5 if sparse else 1.0, seed=3)
    T = 300
    clf = _fit_cyclic(
        sp.csr_matrix(X) if sparse else X, y, T, k, projection=projection, average=average, **intercept
    )
    mode = intercept["intercept_mode"] if intercept["fit_intercept"] else None
    avg_from = None
    if average is True:
        avg_from = 1
    elif average:
        avg_from = T - int(np.ceil(average * T)) + 1
    w, b = naive_pegasos(
        X,
        y,
        LAM,
        _cyclic_order(len(y), T, k),
        k,
        projection=projection,
        bias_mode=mode,
        bias_feature=intercept.get("intercept_scaling", 1.0),
        avg_from=avg_from,
    )
    scale = max(np.abs(w).max(), abs(b), 1.0)
    np.testing.assert_allclose(clf.coef_[0], w, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(clf.intercept_[0], b, rtol=0, atol=1e-12 * scale)
    assert clf.t_ == T and clf.n_iter_ == T


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("k", [1, 3])
def test_matches_reference_on_a_run_shorter_than_an_epoch(sparse, k):
    """Fewer draws than rows: the row norms (for ||w||^2 and the projection) are
    computed only for the rows drawn; the projection changes this run."""
    X, y = make_binary(n=400, d=6, density=0.5 if sparse else 1.0, seed=4)
    X = X * 5.0
    T = 50  # T * k < n
    clf = _fit_cyclic(sp.csr_matrix(X) if sparse else X, y, T, k, average=False,
                      fit_intercept=True, intercept_scaling=2.0)
    w, b = naive_pegasos(X, y, LAM, _cyclic_order(len(y), T, k), k, bias_mode="augment",
                         bias_feature=2.0)
    scale = max(np.abs(w).max(), abs(b), 1.0)
    np.testing.assert_allclose(clf.coef_[0], w, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(clf.intercept_[0], b, rtol=0, atol=1e-12 * scale)
    # the projection (which uses those norms) changed this run
    w_free, _ = naive_pegasos(X, y, LAM, _cyclic_order(len(y), T, k), k, projection=False,
                              bias_mode="augment", bias_feature=2.0)
    assert np.abs(w_free - w).max() > 1e-3 * scale


def test_matches_reference_with_weights_and_renormalisation():
    """Loss weights, and a tiny lam that drives the scale below its renormalisation bound."""
    X, y = make_binary(n=30, d=4, seed=5)
    X = X * 30.0
    sw = np.random.default_rng(0).uniform(0.0, 3.0, len(y))
    lam, T = 1e-3, 2000
    clf = PegasosClassifier(
        lam=lam, n_iter=T, sampling="cyclic", average=True, fit_intercept=False
    ).fit(X, y, sample_weight=sw)
    w, _ = naive_pegasos(X, y, lam, _cyclic_order(len(y), T, 1), 1, sw=sw, avg_from=1)
    np.testing.assert_allclose(clf.coef_[0], w, rtol=0, atol=1e-12 * np.abs(w).max())


def test_each_sampling_mode_visits_as_documented():
    from pegasos._sampling import IndexStream

    rng = np.random.default_rng(0)
    cyc = IndexStream("cyclic", 5, rng)
    assert cyc.take(7).tolist() == [0, 1, 2, 3, 4, 0, 1]
    assert cyc.take(4).tolist() == [2, 3, 4, 0]
    perm = IndexStream("permutation", 5, rng)
    first = perm.take(10)
    assert sorted(first[:5]) == list(range(5)) and sorted(first[5:]) == list(range(5))
    uni = IndexStream("uniform", 5, rng).take(10_000)
    assert uni.min() == 0 and uni.max() == 4
    assert np.all(np.abs(np.bincount(uni) / 10_000 - 0.2) < 0.03)
