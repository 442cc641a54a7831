"""The primal objective and the duality-gap certificate."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from pegasos import PegasosClassifier, duality_gap

from .conftest import make_binary
from .naive import dual_cd_pass as naive_dual_cd_pass
from .naive import svm_primal


def _exact(X, y, lam, fit_intercept, scaling=1.0, sw=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return LinearSVC(
            loss="hinge",
            C=1.0 / (lam * len(y)),
            fit_intercept=fit_intercept,
            intercept_scaling=scaling,
            tol=1e-10,
            max_iter=200_000,
        ).fit(X, y, sample_weight=sw)


@pytest.mark.parametrize("mode", [None, "augment", "unregularized"])
@pytest.mark.parametrize("sparse", [False, True])
def test_primal_matches_the_formula(mode, sparse):
    X, y = make_binary(n=50, d=6, density=0.5, seed=9)
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal(6), (0.0 if mode is None else 0.7)
    sw = rng.uniform(0.1, 2.0, len(y))
    got = duality_gap(
        sp.csr_matrix(X) if sparse else X, y, w, b, lam=0.3, sample_weight=sw,
        intercept_mode=mode, intercept_scaling=2.0,
    )
    want = svm_primal(X, y, w, b, 0.3, sw=sw, bias_mode=mode, bias_feature=2.0)
    assert got.primal == pytest.approx(want, rel=1e-13)


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_gap_bounds_the_true_suboptimality(fit_intercept, weighted):
    X, y = make_binary(n=200, d=8, seed=10)
    lam = 1e-3
    sw = np.random.default_rng(1).uniform(0.2, 3.0, len(y)) if weighted else None
    mode = "augment" if fit_intercept else None
    ref = _exact(X, y, lam, fit_intercept, sw=sw)
    p_star = duality_gap(
        X, y, ref.coef_[0], ref.intercept_[0] if fit_intercept else 0.0, lam=lam,
        sample_weight=sw, intercept_mode=mode,
    ).primal
    for T in (1, 10, 100, 1000, 20_000):
        clf = PegasosClassifier(lam=lam, n_iter=T, fit_intercept=fit_intercept, random_state=0)
        (gap,) = clf.fit(X, y, sample_weight=sw).duality_gap(X, y, sample_weight=sw)
        assert gap.dual <= p_star * (1 + 1e-9)
        assert gap.gap >= gap.primal - p_star - 1e-12
    # started from Pegasos' own dual vector, the certificate of a long run is
    # within a small factor of the true suboptimality (3-5x measured)
    clf = PegasosClassifier(lam=lam, n_iter=200_000, fit_intercept=fit_intercept, random_state=0)
    (gap,) = clf.fit(X, y, sample_weight=sw).duality_gap(X, y, sample_weight=sw)
    true = gap.primal - p_star
    assert 0 < true <= gap.gap <= 6 * true + 1e-9


def test_unregularized_certificate_is_a_lower_bound():
    X, y = make_binary(n=200, d=8, seed=11)
    X[:, 0] += 2.0  # an intercept matters
    lam = 1e-3
    good = PegasosClassifier(lam=lam, intercept_mode="unregularized", n_iter=100_000, random_state=0)
    (best,) = good.fit(X, y).duality_gap(X, y)
    for T in (1, 50, 500):
        clf = PegasosClassifier(lam=lam, intercept_mode="unregularized", n_iter=T, random_state=1)
        (gap,) = clf.fit(X, y).duality_gap(X, y)
        assert gap.dual <= best.primal and gap.dual <= gap.primal
    assert best.relative_gap < 0.5


def test_relative_gap_is_infinite_without_a_positive_dual():
    X, y = make_binary(n=20, d=3, seed=12)
    # a model far on the wrong side: the violators' direction then still
    # gives a positive dual, so build the degenerate case directly
    from pegasos.objective import DualityGap

    assert DualityGap(primal=1.0, dual=0.0).relative_gap == float("inf")
    assert DualityGap(primal=1.5, dual=1.0).relative_gap == pytest.approx(0.5)
    assert duality_gap(X, y, np.zeros(3), lam=1.0).dual > 0


@pytest.mark.parametrize("module", ["pegasos.objective", "pegasos.datasets", "pegasos.interchange",
                                    "pegasos.kernel_pegasos", "pegasos.perceptron", "pegasos.sbp",
                                    "pegasos.linear", "pegasos._base",
                                    "pegasos.model_io", "pegasos.plotting", "pegasos.cli.demo", "pegasos._stream_params",
                                    "pegasos.dask_backend", "pegasos._files", "pegasos._rows",
                                    "pegasos._memory", "pegasos.stream", "pegasos._cache", "pegasos.svc",
                                    "pegasos.svr", "pegasos.one_class",
                                    "pegasos._solvers.threads", "pegasos.dask_svc"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    if module in ("pegasos.dask_backend", "pegasos.dask_svc"):
        pytest.importorskip("distributed")

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("bias_feature", [0.0, 1.5])
def test_the_certificates_dual_coordinate_pass_matches_the_reference(sparse, bias_feature):
    """The compiled pass (``_numba.linear.dual_cd_pass``) from a start inside the box, with
    loss weights and a random order, equal to the reference that recomputes w each step."""
    from pegasos._numba.linear import LinearData, dual_cd_pass, row_sqnorms
    from pegasos._rows import as_rows

    X, y = make_binary(n=50, d=6, density=0.5 if sparse else 1.0, seed=12)
    rng = np.random.default_rng(2)
    sw = rng.uniform(0.2, 2.0, len(y))
    alpha0 = rng.uniform(0.0, 1.0, len(y)) * sw
    lam, m = 0.05, len(y)
    order = np.concatenate([rng.permutation(m), rng.permutation(m)])  # two passes
    rows = as_rows(sp.csr_matrix(X) if sparse else X)
    alpha = alpha0.copy()
    scale = 1.0 / (lam * m)
    Z = np.hstack([X, np.full((m, 1), bias_feature)])
    w = scale * Z.T @ (alpha * y)
    sqnorm = row_sqnorms(rows.kernel, m) + bias_feature**2
    dual_cd_pass(LinearData(rows.kernel, y, sw, sqnorm), bias_feature, order, alpha, w, scale)
    expected_alpha, expected_w = naive_dual_cd_pass(X, y, sw, lam, order, alpha0, bias_feature)
    assert np.abs(expected_alpha - alpha0).max() > 1e-3  # the pass moved
    np.testing.assert_allclose(alpha, expected_alpha, rtol=0, atol=1e-10 * sw.max())
    np.testing.assert_allclose(w, expected_w, rtol=0, atol=1e-10 * np.abs(expected_w).max())
