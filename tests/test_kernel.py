"""The kernel engine and the kernel solvers: references, properties, real data."""

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics.pairwise import pairwise_kernels

from pegasos import (
    DualSVC,
    KernelPegasosClassifier,
    KernelPerceptron,
    PegasosClassifier,
    SBPClassifier,
    nu_for,
)
from pegasos._numba import blocks, sbp
from pegasos._numba import kernel_pegasos as kp
from pegasos._numba import kernels as kern
from pegasos._numba import water_filling as wf
from pegasos._numba.changes import new_changes
from pegasos._numba.linear import row_sqnorms
from pegasos._rows import as_rows
from pegasos._solvers import engine, gram
from pegasos._solvers import kernel_pegasos as kp_solver
from pegasos._solvers.kernel_pegasos import chunk_steps
from pegasos._solvers.sbp import new_scratch, water_levels_biased

from . import naive
from .conftest import ENGINE_VARIANT_SLOW, make_binary

KERNEL_CASES = [
    ("linear", {}),
    ("rbf", {"gamma": 0.3}),
    ("poly", {"gamma": 0.5, "coef0": 1.0, "degree": 3}),
    ("sigmoid", {"gamma": 0.1, "coef0": 0.5}),
]


def _args(name, kw, bias2=0.0):
    return kern.Kernel(kern.__dict__[name.upper()], kw.get("gamma", 1.0), kw.get("coef0", 0.0),
                       kw.get("degree", 3), bias2)


@pytest.mark.parametrize("name, kw", KERNEL_CASES, ids=[c[0] for c in KERNEL_CASES])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
def test_kernel_column_and_blocks_match_pairwise_kernels(name, kw, sparse, dtype, monkeypatch):
    X, _ = make_binary(n=300, d=7, density=0.5, seed=30)
    Z, _ = make_binary(n=90, d=7, density=0.5, seed=31)
    X, Z = X.astype(dtype), Z.astype(dtype)
    # the exact kernel of the values given; float32 rows are multiplied in
    # float32 (measured: within 5e-7 relative on these rows, dense or CSR)
    tol = {"rtol": 1e-12, "atol": 1e-12} if dtype == np.float64 else {"rtol": 2e-6, "atol": 1e-6}
    ref = pairwise_kernels(X.astype(np.float64), metric=name, **kw)
    rows = as_rows(sp.csr_matrix(X) if sparse else X, dtype)
    sq = row_sqnorms(rows.kernel, rows.n_rows)
    points = kern.Points(rows.kernel, 7, sq)
    out = np.empty(300)
    for i in (0, 17, 299) if dtype == np.float64 else ():  # the one-column path: float64
        kern.kernel_column(points, i, _args(name, kw), out)
        np.testing.assert_allclose(out, ref[:, i], rtol=1e-12, atol=1e-12)
    # blocks of 1, 3 and 300 columns: tiles of 8192, 8192 and 218 rows
    for idx in ([5], [0, 299, 5], np.arange(300)[::-1]):
        idx = np.array(idx, dtype=np.int64)  # contiguous, as the solvers' (a view compiles anew)
        block = engine.kernel_block(points, idx, _args(name, kw), engine=blocks.THREADS)
        assert block.dtype == dtype  # DualSVC's kernel columns, in the rows' dtype
        np.testing.assert_allclose(block, ref[:, idx], **tol)
        # the serial twin (what 300 rows take by default): the same values bit for bit
        np.testing.assert_array_equal(engine.kernel_block(points, idx, _args(name, kw)), block)
        np.testing.assert_allclose(
            blocks.pair_block(points, idx[:2], idx, _args(name, kw)),
            ref[np.ix_(idx[:2], idx)], **tol,
        )
        delta = np.random.default_rng(1).standard_normal((len(idx), 2))
        g, g_serial = np.ones((300, 2)), np.ones((300, 2))
        with engine.one_blas_thread():
            own = engine.add_block(blocks.THREADS, points, idx, _args(name, kw, bias2=0.5),
                                    delta, g)
            # the serial engine: the same values bit for bit (300 rows: 1 or 2 tiles)
            own_serial = engine.add_block(blocks.SERIAL, points, idx,
                                           _args(name, kw, bias2=0.5), delta, g_serial)
        expected = 1.0 + (ref[:, idx] + 0.5) @ delta
        np.testing.assert_allclose(g, expected, rtol=tol["rtol"], atol=tol["atol"] * len(idx))
        np.testing.assert_allclose(own, ref[np.ix_(idx, idx)] + 0.5, **tol)
        np.testing.assert_array_equal(g_serial, g)
        np.testing.assert_array_equal(own_serial, own)
    coef = np.random.default_rng(0).standard_normal((2, 300))
    z_rows = as_rows(sp.csr_matrix(Z) if sparse else Z, dtype)
    expected = pairwise_kernels(Z.astype(np.float64), X.astype(np.float64), metric=name,
                                **kw) @ coef.T
    # by the engine (blocks of support vectors: the unblocked sum), then by NumPy (a
    # prediction of at most gram.PREDICT_ENTRIES kernel values, blocks of test rows)
    for per, entries, block in [(1, 0, 1), (7, 0, 1), (1000, 0, 1),
                                (1000, gram.PREDICT_ENTRIES, 1), (1000, gram.PREDICT_ENTRIES,
                                                                  gram.BLOCK_ENTRIES)]:
        monkeypatch.setattr(engine, "PREDICT_COLUMNS", per)
        monkeypatch.setattr(gram, "PREDICT_ENTRIES", entries)
        monkeypatch.setattr(gram, "BLOCK_ENTRIES", block)  # 1: a block per test row
        scores = engine.decision_values(z_rows, rows, coef, _args(name, kw))
        np.testing.assert_allclose(scores, expected, rtol=1e-10 if dtype == np.float64 else
                                   2e-6, atol=1e-10 if dtype == np.float64 else 1e-4)
    # a small training set's kernel matrix (_solvers.gram): by NumPy, CSR rows densified
    # or (DENSE_ENTRIES 0) multiplied as sparse matrices
    for dense_entries in (gram.DENSE_ENTRIES, 0):
        monkeypatch.setattr(gram, "DENSE_ENTRIES", dense_entries)
        own_sq, matrix = gram.training_matrix(rows, _args(name, kw))
        np.testing.assert_allclose(own_sq, sq, **tol)
        np.testing.assert_allclose(matrix, ref, **tol)
        np.testing.assert_allclose(matrix, matrix.T, rtol=0, atol=1e-15)  # mirrored


@ENGINE_VARIANT_SLOW
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_float32_input_is_fitted_and_predicted_in_float32(sparse, solver_path):
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X = X / 16
    X32 = X.astype(np.float32)
    if sparse:
        X, X32 = sp.csr_matrix(X), sp.csr_matrix(X32)
    for make in (lambda: KernelPegasosClassifier(C=10, n_epochs=1, random_state=0),
                 lambda: SBPClassifier(0.05, random_state=0),
                 lambda: KernelPerceptron(random_state=0)):
        m64, m32 = make().fit(X[:1000], y[:1000]), make().fit(X32[:1000], y[:1000])
        assert m64.support_vectors_.dtype == np.float64
        assert m32.support_vectors_.dtype == np.float32
        s64, s32 = m64.decision_function(X[1000:]), m32.decision_function(X[1000:])
        assert s32.dtype == np.float64 and s64.dtype == np.float64
        # float64 input to a float32 model is converted to float32: same scores
        np.testing.assert_array_equal(s32, m32.decision_function(X32[1000:]))
        assert abs(m32.score(X[1000:], y[1000:]) - m64.score(X[1000:], y[1000:])) <= 0.01


def test_precomputed_blocks_are_gram_columns():
    K = pairwise_kernels(make_binary(n=50, d=3, seed=40)[0], metric="rbf")
    idx = np.array([3, 49, 0], dtype=np.int64)
    args = kern.Kernel(kern.PRECOMPUTED, 1.0, 0.0, 3)
    points = kern.Points(as_rows(K).kernel, 50, np.zeros(50))  # read-only, as a fit's rows
    for engine_ in (blocks.SERIAL, blocks.THREADS):
        np.testing.assert_array_equal(engine.kernel_block(points, idx, args, engine=engine_),
                                      K[:, idx])
    np.testing.assert_array_equal(
        blocks.pair_block(points, idx[:2], idx, args), K[np.ix_(idx[:2], idx)]
    )




def test_one_table_names_every_kernel_everywhere():
    """The kernels' table is what the estimators, the command line's -t and LIBSVM's
    model files accept, and every formula above is tested (KERNEL_CASES) for each of its
    kernels but the given matrix."""
    from pegasos import DualSVC, interchange
    from pegasos._numba.codes import KERNEL_TABLE
    from pegasos.cli import options as cli_module
    from pegasos.kernel import KERNELS

    names = [k.name for k in KERNEL_TABLE]
    assert sorted(KERNELS) == sorted(names)
    assert sorted(name for name, _ in KERNEL_CASES) == sorted(set(names) - {"precomputed"})
    assert len({k.code for k in KERNEL_TABLE}) == len({k.libsvm for k in KERNEL_TABLE}) == 5
    for k in KERNEL_TABLE:
        assert cli_module.KERNEL_NAMES[str(k.libsvm)] == k.name
        assert interchange.KERNEL_TYPES[k.name] == k.libsvm_name
    with pytest.raises(ValueError, match="The 'kernel' parameter of DualSVC must be"):
        DualSVC(kernel="laplacian").fit(*make_binary(n=20, d=3, seed=1))


def test_a_code_no_formula_knows_gives_nan_not_another_kernel():
    """A kernel code missing from a formula's branches (a new kernel added to the table
    and not to a formula) makes NaN there, in every formula: never a fall-through to
    the sigmoid's value, as the last branch once was."""
    from pegasos._solvers import gram as gram_solver

    unknown = kern.Kernel(99, 0.5, 1.0, 3)
    assert np.isnan(kern.kernel_value(unknown, 0.3, 1.0, 1.0))
    X, _ = make_binary(n=30, d=4, seed=43)
    rows = as_rows(X)
    points = kern.Points(rows.kernel, 4, row_sqnorms(rows.kernel, rows.n_rows))
    block = engine.kernel_block(points, np.arange(5, dtype=np.int64), unknown)
    assert np.isnan(block).all()
    assert np.isnan(gram_solver._transform(X @ X.T, points.sqnorm, points.sqnorm, unknown)).all()


@pytest.mark.parametrize("layout", ["dense", "float32", "csr", "precomputed"])
def test_kernel_rows_land_in_their_slots_and_nowhere_else(layout):
    """The working-set solver's columns: column m of the block written to row slots[m] of
    the store (slots in any order, more columns than one copy takes at a time, a last
    tile shorter than the others), the other rows left as they were."""
    X, _ = make_binary(n=700, d=6, density=0.6, seed=41)
    args = kern.Kernel(kern.RBF, 0.3, 0.0, 3)
    ref = pairwise_kernels(X, metric="rbf", gamma=0.3)
    if layout == "precomputed":
        X, args = ref, kern.Kernel(kern.PRECOMPUTED, 1.0, 0.0, 3)
    dtype = np.float32 if layout == "float32" else np.float64
    rows = as_rows(sp.csr_matrix(X) if layout == "csr" else X.astype(dtype), dtype)
    sq = np.zeros(700) if layout == "precomputed" else row_sqnorms(rows.kernel, rows.n_rows)
    points = kern.Points(rows.kernel, X.shape[1], sq)
    rng = np.random.default_rng(42)
    idx = rng.choice(700, 3 * blocks.WRITE_COLUMNS + 7, replace=False).astype(np.int64)
    assert blocks.tile_rows(idx.size) < 700  # two tiles, the second shorter
    slots = rng.permutation(120)[: idx.size].astype(np.int64)
    tol = {"rtol": 2e-6, "atol": 1e-6} if layout == "float32" else {"rtol": 1e-7, "atol": 1e-7}
    # the float64 columns rounded: the rbf's float32 exponential within 6e-8 of them
    rounded = engine.kernel_block(points, idx, args, dtype=np.float64).T.astype(np.float32)
    for engine_ in (blocks.SERIAL, blocks.THREADS):
        out = np.full((120, 700), -1.0, np.float32)
        blocks.fill_rows(engine_, points, idx, args, out, slots)
        np.testing.assert_allclose(out[slots], ref[idx], **tol)  # float32 columns
        np.testing.assert_allclose(out[slots], rounded, rtol=0, atol=6e-8)
        untouched = np.setdiff1d(np.arange(120), slots)
        assert np.all(out[untouched] == -1.0)


@settings(max_examples=60, deadline=None)
@given(x=st.lists(st.floats(-800.0, 0.0) | st.sampled_from([0.0, -1e-300, -708.0, -707.9]),
                  min_size=1, max_size=50))
def test_vectorised_exponential_matches_numpy(x):
    x = np.asarray(x, dtype=float)
    got = x.copy()
    blocks.exp_in_place(got, np.empty(len(x), np.int64))
    expected = np.exp(x)
    normal = x >= blocks.EXP_FLOOR
    np.testing.assert_allclose(got[normal], expected[normal], rtol=3e-16, atol=0)
    assert np.all(got[~normal] <= 4e-308) and np.all(got >= 0)


@settings(max_examples=60, deadline=None)
@given(x=st.lists(st.floats(-100.0, 0.0, width=32)
                  | st.sampled_from([0.0, -1e-30, -86.99, -87.0, -87.01, -1e4]),
                  min_size=1, max_size=70))
def test_float32_exponential_is_within_an_ulp_and_a_quarter(x):
    """The kept columns' exponential (float32): measured at most 1.26 units in the last
    place of exp's float32 value on 3 million arguments in [-87, 0]; exp(0) = 1 exactly
    (the kernel's diagonal); below the floor exp(-87), never negative."""
    x = np.asarray(x, dtype=np.float32)
    got = np.empty_like(x)
    blocks.exp32_into(x, got, np.empty(len(x), np.int32))
    assert got.dtype == np.float32
    expected = np.exp(x.astype(np.float64))
    normal = x >= blocks.EXP_FLOOR_32
    ulp = np.spacing(expected[normal].astype(np.float32)).astype(np.float64)
    assert np.all(np.abs(got[normal] - expected[normal]) <= 1.3 * ulp)
    assert np.all(got[x == 0] == 1.0)
    floor = np.float32(np.exp(np.float64(blocks.EXP_FLOOR_32)))
    np.testing.assert_allclose(got[~normal], floor, rtol=1e-6)


@pytest.mark.parametrize("k", [2, 5, 16])
@pytest.mark.parametrize("projection", [True, False])
def test_minibatch_kernel_pegasos_matches_the_reference(k, projection, solver_path):
    X, y = make_binary(n=40, d=4, seed=41)
    sw = np.random.default_rng(3).uniform(0.5, 2.0, 40)
    lam, T = 0.05, 60
    clf = KernelPegasosClassifier(
        lam=lam, gamma=0.5, n_iter=T, batch_size=k, sampling="cyclic", projection=projection,
        average=0.5, fit_intercept=True, intercept_scaling=0.7,
    ).fit(X, y, sample_weight=sw)
    beta = naive.kernel_pegasos(
        pairwise_kernels(X, metric="rbf", gamma=0.5), y, lam, np.arange(T * k) % 40, k=k,
        projection=projection, avg_from=T - 30 + 1, bias2=0.49, sw=sw,
    )
    got = np.zeros(40)
    got[clf.support_] = clf.dual_coef_[0]
    np.testing.assert_allclose(got, beta, rtol=0, atol=1e-10 * np.abs(beta).max())


def test_a_draw_made_twice_in_a_batch_counts_twice(solver_path, monkeypatch):
    """Uniform draws (with replacement) repeat an example within a batch: each draw is a
    step, as the reference's np.add.at takes it (the engine merges them by example, the
    kernel matrix's solver adds each draw's column)."""
    import pegasos._kernel_base

    taken = []

    class Recorded(pegasos._kernel_base.IndexStream):
        def take(self, count):
            taken.append(super().take(count))
            return taken[-1]

    monkeypatch.setattr(pegasos._kernel_base, "IndexStream", Recorded)
    X, y = make_binary(n=30, d=4, seed=44)
    k, T = 8, 40
    clf = KernelPegasosClassifier(lam=0.05, gamma=0.5, n_iter=T, batch_size=k, average=False,
                                  fit_intercept=False, random_state=3).fit(X, y)
    order = np.concatenate(taken)
    batches = order.reshape(T, k)
    assert any(len(np.unique(b)) < k for b in batches)  # the case under test
    beta = naive.kernel_pegasos(pairwise_kernels(X, metric="rbf", gamma=0.5), y, 0.05, order,
                                k=k)
    got = np.zeros(30)
    got[clf.support_] = clf.dual_coef_[0]
    np.testing.assert_allclose(got, beta, rtol=0, atol=1e-10 * np.abs(beta).max())


@pytest.mark.parametrize("k", [1, 5, 16])
@pytest.mark.parametrize("average", [True, False], ids=["averaged", "last"])
def test_kernel_perceptron_matches_the_reference(k, average, solver_path):
    """Mini-batches judged with w_t, a step per violating draw, loss weights, the intercept
    feature and the average of every iterate, across chunks (T k > 256 draws)."""
    X, y = make_binary(n=40, d=4, seed=43)
    sw = np.random.default_rng(5).uniform(0.5, 2.0, 40)
    T = 600 // k
    clf = KernelPerceptron(
        gamma=0.5, n_iter=T, batch_size=k, sampling="cyclic", average=average,
        fit_intercept=True, intercept_scaling=0.7,
    ).fit(X, y, sample_weight=sw)
    beta = naive.kernel_perceptron(
        pairwise_kernels(X, metric="rbf", gamma=0.5), y, np.arange(T * k) % 40, k=k,
        average=average, bias2=0.49, sw=sw,
    )
    got = np.zeros(40)
    got[clf.support_] = clf.dual_coef_[0]
    assert np.abs(beta).max() > 0 and T * k > kp.CHUNK_DRAWS
    np.testing.assert_allclose(got, beta, rtol=0, atol=1e-10 * np.abs(beta).max())
    assert clf.intercept_[0] == pytest.approx(0.49 * beta.sum(), abs=1e-10 * np.abs(beta).sum())


@pytest.mark.parametrize("average", [False, 0.5], ids=["last", "averaged"])
def test_kernel_pegasos_rescaling_inside_a_chunk_matches_the_reference(average, solver_path):
    """Rows of norm ~1e3 under a linear kernel: projections bring the scale below
    MIN_SCALE again and again, so the coefficients, the responses and the chunk's pending
    changes are rescaled mid-chunk and across chunk boundaries (k = 4: 64 steps a chunk);
    averaged, each rescaling first folds the lazy average."""
    X, y = make_binary(n=30, d=3, seed=7)
    X = X * 1e3
    lam, k, T = 0.1, 4, 150
    clf = KernelPegasosClassifier(
        kernel="linear", lam=lam, n_iter=T, batch_size=k, sampling="cyclic", projection=True,
        average=average, fit_intercept=False,
    ).fit(X, y)
    beta = naive.kernel_pegasos(X @ X.T, y, lam, np.arange(T * k) % 30, k=k, projection=True,
                                avg_from=T // 2 + 1 if average else None)
    got = np.zeros(30)
    got[clf.support_] = clf.dual_coef_[0]
    assert chunk_steps(k, 10**6) < T and np.abs(beta).max() > 0
    np.testing.assert_allclose(got, beta, rtol=0, atol=1e-10 * np.abs(beta).max())


@pytest.mark.parametrize("make", [
    lambda: KernelPegasosClassifier(C=5.0, batch_size=8, n_epochs=3, sampling="permutation",
                                    random_state=4),
    lambda: KernelPerceptron(n_epochs=2, random_state=4),
], ids=["kernel-pegasos", "perceptron"])
def test_joint_one_vs_rest_equals_separate_binary_fits(make, solver_path):
    """One draw stream and one block per batch for every class: each class's model is the
    binary fit of that class against the rest on the same draws."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    joint = make().fit(X, y)
    assert joint.n_support_.sum() == len(joint.support_)
    assert np.array_equal(joint.n_support_, np.bincount(y[joint.support_], minlength=3))
    scores = joint.decision_function(X)
    for c in range(3):
        alone = make().fit(X, np.where(y == c, 1, 0))
        coef = np.zeros(len(y))
        coef[alone.support_] = alone.dual_coef_[0]
        mine = np.zeros(len(y))
        mine[joint.support_] = joint.dual_coef_[c]
        np.testing.assert_allclose(mine, coef, rtol=0, atol=1e-10 * np.abs(coef).max())
        np.testing.assert_allclose(scores[:, c], alone.decision_function(X), atol=1e-9)


@pytest.mark.parametrize("projection", [True, False])
@pytest.mark.parametrize("average", [False, 0.4], ids=["last", "suffix"])
@pytest.mark.parametrize("bias", [False, True])
def test_kernel_pegasos_matches_the_reference(projection, average, bias, solver_path):
    X, y = make_binary(n=35, d=4, seed=32)
    lam, T = 0.02, 400
    clf = KernelPegasosClassifier(
        lam=lam, gamma=0.5, n_iter=T, batch_size=1, sampling="cyclic", projection=projection,
        average=average, fit_intercept=bias, intercept_scaling=1.5,
    ).fit(X, y)
    avg_from = None if average is False else T - int(np.ceil(average * T)) + 1
    beta = naive.kernel_pegasos(
        pairwise_kernels(X, metric="rbf", gamma=0.5), y, lam, np.arange(T) % len(y),
        projection=projection, avg_from=avg_from, bias2=1.5**2 if bias else 0.0,
    )
    got = np.zeros(len(y))
    got[clf.support_] = clf.dual_coef_[0]
    np.testing.assert_allclose(got, beta, rtol=0, atol=1e-10 * np.abs(beta).max())
    expected_b = 1.5**2 * beta.sum() if bias else 0.0
    assert clf.intercept_[0] == pytest.approx(expected_b, abs=1e-10)


@ENGINE_VARIANT_SLOW
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_linear_kernel_pegasos_is_linear_pegasos(sparse, solver_path):
    X, y = make_binary(n=50, d=6, density=0.6, seed=33)
    Xs = sp.csr_matrix(X) if sparse else X
    params = dict(lam=0.03, n_iter=500, batch_size=4, sampling="cyclic", intercept_scaling=2.0)
    kp = KernelPegasosClassifier(kernel="linear", **params).fit(Xs, y)
    lp = PegasosClassifier(**params).fit(Xs, y)
    np.testing.assert_allclose(kp.dual_coef_[0] @ X[kp.support_], lp.coef_[0], atol=1e-12)
    np.testing.assert_allclose(kp.decision_function(Xs), lp.decision_function(Xs), atol=1e-11)


def test_precomputed_kernel_gives_the_same_model(solver_path):
    X, y = make_binary(n=40, d=5, seed=34)
    Z, _ = make_binary(n=10, d=5, seed=35)
    for est in (
        KernelPegasosClassifier(C=3.0, gamma=0.4, random_state=0),
        SBPClassifier(0.05, gamma=0.4, random_state=0),
        KernelPerceptron(gamma=0.4, random_state=0),
    ):
        a = est.fit(X, y)
        scores = a.decision_function(Z)
        b = est.set_params(kernel="precomputed").fit(pairwise_kernels(X, metric="rbf", gamma=0.4), y)
        np.testing.assert_allclose(
            b.decision_function(pairwise_kernels(Z, X, metric="rbf", gamma=0.4)), scores,
            rtol=1e-10, atol=1e-10,
        )


def _select(c, budget, s):
    return wf.water_level_select(c, budget, s, np.empty(len(c)), np.empty(len(c)))


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.integers(-5, 5) | st.floats(-1e3, 1e3), min_size=1, max_size=40),
    nu=st.sampled_from([0.0, 0.01, 0.3, 2.0]),
    weighted=st.booleans(),
)
def test_water_level_spends_exactly_the_budget(values, nu, weighted):
    c = np.asarray(values, dtype=float)
    s = np.ones(len(c))
    if weighted:  # weights in [0, 3], at least one positive
        s = np.random.default_rng(len(c)).integers(0, 4, len(c)).astype(float)
        s[np.argmax(c)] = 1.5
    budget = len(c) * nu
    level = _select(c, budget, s)
    spent = np.sum(s * np.maximum(0.0, level - c))
    assert spent == pytest.approx(budget, abs=1e-9 * max(1.0, np.abs(c).max()))
    if nu == 0.0:
        assert level == c[s > 0].min()
    assert level == pytest.approx(naive.water_level(c, budget, s),
                                  abs=1e-9 * max(1.0, np.abs(c).max()))


def test_water_level_of_equal_values_and_against_bisection():
    ones = np.ones(5)
    assert _select(np.full(5, 2.0), 5.0, ones) == pytest.approx(3.0)
    assert _select(np.full(5, 2.0), 0.0, ones) == 2.0
    c = np.random.default_rng(1).standard_normal(30)
    s = np.random.default_rng(2).random(30)
    for w in (np.ones(30), s):
        assert _select(c, 4.0, w) == pytest.approx(naive.water_level(c, 4.0, w), abs=1e-10)
    # a weight of 2 is two copies of the point
    doubled = np.repeat(c, np.where(np.arange(30) % 3 == 0, 2, 1))
    w = np.where(np.arange(30) % 3 == 0, 2.0, 1.0)
    assert _select(c, 4.0, w) == pytest.approx(_select(doubled, 4.0, np.ones(len(doubled))),
                                               abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(st.floats(-100, 100), min_size=2, max_size=30),
    signs=st.lists(st.booleans(), min_size=2, max_size=30),
    nu=st.sampled_from([0.0, 0.05, 1.0]),
    weighted=st.booleans(),
)
def test_biased_water_levels_balance_the_classes(values, signs, nu, weighted):
    n = min(len(values), len(signs))
    r = np.asarray(values[:n])
    y = np.where(np.asarray(signs[:n]), 1.0, -1.0)
    if np.all(y > 0) or np.all(y < 0):
        y[0] = -y[0]
    s = np.ones(n)
    if weighted:  # weights in {0, 0.5, 1, 1.5}, each class with a positive one
        s = np.random.default_rng(n).integers(0, 4, n) / 2.0
        s[np.argmax(y)] = s[np.argmin(y)] = 1.0
    budget = n * nu
    pos, neg = y > 0, y < 0
    kappa, b, i, j, mu = water_levels_biased(r[pos], s[pos], -r[neg], s[neg], budget)
    slack = np.maximum(0.0, kappa - y * (r + b))
    tol = 1e-9 * max(1.0, np.abs(r).max())
    assert np.sum(s * slack) == pytest.approx(budget, abs=tol)
    # the i (j) lowest margins of each class are those at or below the level,
    # and both classes weigh mu in the minimax distribution
    below = slack > tol
    assert np.sum(pos & below) <= i and np.sum(neg & below) <= j
    assert 0 < mu <= min(s[pos].sum(), s[neg].sum()) + 1e-12
    if not weighted:
        assert i == j == mu
    # no other bias reaches a higher level with this budget: kappa is the
    # bisection's level of the margins y (r + b) at the best b (a grid search)
    for shift in np.linspace(-2, 2, 9):
        other = naive.water_level(y * (r + b + shift), budget, s)
        assert other <= kappa + 1e-6 * max(1.0, np.abs(r).max())


def _sbp_run(X, Y, nu, draws, biased=False, t=1, state=None, sw=None, on_gram=False):
    """SBP steps on the blocked engine (``sbp_blocks``), or with ``on_gram`` on the kernel
    matrix (``sbp_on_matrix``, the engine an ``OnMatrix``; it counts no evaluations: None)."""
    n, problems = Y.shape
    rows = as_rows(X)
    sq = row_sqnorms(rows.kernel, n)
    state = state or sbp.SBPState(*(np.zeros((n, problems)) for _ in range(4)),
                                  np.zeros((sbp.SBP_SCALARS, problems)))
    sw = np.ones(n) if sw is None else sw
    data = sbp.SBPData(kern.Points(rows.kernel, X.shape[1], sq), Y, np.full(problems, n * nu),
                       sw)
    args = kern.Kernel(kern.RBF, 0.7, 0.0, 3)
    plan = sbp.SBPPlan(1.0, sbp.BIASED if biased else sbp.UNBIASED, 1, 1000, blocks.SERIAL)
    changes = new_changes(n, draws.shape[2] * problems, problems)
    if on_gram:
        _, K = gram.training_matrix(rows, args)
        t, evals = sbp.sbp_on_matrix(data._replace(points=None), args,
                                     plan._replace(engine=blocks.OnMatrix(K)), state, draws, t,
                                     new_scratch(n, draws.shape[2]), changes)
        assert evals == 0
        return t, None, state
    t, evals = sbp.sbp_blocks(data, args, plan, state, draws, t, new_scratch(n, draws.shape[2]),
                              changes)
    return t, evals, state


ON_GRAM = pytest.mark.parametrize("on_gram", [False, True], ids=["engine", "kernel-matrix"])


@ON_GRAM
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("k", [1, 4])
def test_minibatch_sbp_steps_match_the_reference(k, weighted, on_gram):
    X, y = make_binary(n=30, d=4, seed=36)
    K = pairwise_kernels(X, metric="rbf", gamma=0.7)
    sw = np.random.default_rng(3).integers(0, 4, 30) / 2.0 if weighted else np.ones(30)
    draws = np.random.default_rng(2).random((8, 1, k))
    t, _, state = _sbp_run(X, y[:, None], 0.2, draws[:7], sw=sw, on_gram=on_gram)
    a, r = state[0][:, 0], state[1][:, 0]
    np.testing.assert_allclose(r, K @ a, atol=1e-12)  # responses kept exactly
    expected = naive.sbp_step(K, y, a, t, 1.0, 30 * 0.2, draws[7, 0], sw)
    _sbp_run(X, y[:, None], 0.2, draws[7:], t=t, state=state, sw=sw, on_gram=on_gram)
    np.testing.assert_allclose(state[0][:, 0], expected, rtol=0, atol=1e-10)
    assert state.scal[sbp.SBP_N_AVG, 0] == 8
    np.testing.assert_allclose(state[2][:, 0] / 8, state[0][:, 0], atol=1.0)  # sums, not junk


@ON_GRAM
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("k", [1, 4])
def test_minibatch_biased_sbp_steps_match_the_reference(k, weighted, on_gram):
    """The two-level step (fit_intercept=True) against a ternary search over the budget."""
    X, y = make_binary(n=30, d=4, seed=37)
    K = pairwise_kernels(X, metric="rbf", gamma=0.7)
    sw = np.random.default_rng(4).integers(1, 4, 30) / 2.0 if weighted else np.ones(30)
    draws = np.random.default_rng(5).random((8, 1, 2 * k))
    t, _, state = _sbp_run(X, y[:, None], 0.2, draws[:7], biased=True, sw=sw,
                           on_gram=on_gram)
    a = state.a[:, 0].copy()
    np.testing.assert_allclose(state.r[:, 0], K @ a, atol=1e-12)
    expected = naive.sbp_step_biased(K, y, a, t, 1.0, 30 * 0.2, draws[7, 0], sw)
    _sbp_run(X, y[:, None], 0.2, draws[7:], biased=True, t=t, state=state, sw=sw,
             on_gram=on_gram)
    np.testing.assert_allclose(state.a[:, 0], expected, rtol=0, atol=1e-10)


@ON_GRAM
@pytest.mark.parametrize("biased", [False, True])
def test_joint_sbp_equals_separate_problems_on_the_same_draws(biased, on_gram):
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    Y = np.column_stack([np.where(y == c, 1.0, -1.0) for c in range(3)])
    draws = np.random.default_rng(5).random((40, 3, 8 if biased else 4))
    _, _, joint = _sbp_run(X, Y, 0.05, draws, biased, on_gram=on_gram)
    for c in range(3):
        _, _, alone = _sbp_run(X, Y[:, [c]].copy(), 0.05, np.ascontiguousarray(draws[:, [c]]),
                               biased, on_gram=on_gram)
        for got, want in zip(joint[:4], alone[:4]):
            np.testing.assert_allclose(got[:, c], want[:, 0], rtol=0,
                                       atol=1e-10 * max(1.0, np.abs(want).max()))


@pytest.mark.parametrize("biased", [False, True])
def test_sbp_never_draws_an_example_of_weight_zero(biased, solver_path):
    X, y = make_binary(n=80, d=4, seed=7)
    sw = np.where(np.arange(80) % 4 == 0, 0.0, 1.0)
    model = SBPClassifier(0.2, gamma=0.5, n_iter=300, fit_intercept=biased, random_state=0)
    model.fit(X, y, sample_weight=sw)
    assert len(model.support_) > 10 and np.all(sw[model.support_] > 0)
    unweighted = SBPClassifier(0.2, gamma=0.5, n_iter=300, fit_intercept=biased,
                               random_state=0).fit(X, y)
    assert np.any(sw[unweighted.support_] == 0)  # the test can fail
    # unit weights are no weights, bit for bit
    ones = SBPClassifier(0.2, gamma=0.5, n_iter=300, fit_intercept=biased, random_state=0)
    ones.fit(X, y, sample_weight=np.ones(80))
    assert np.array_equal(ones.dual_coef_, unweighted.dual_coef_)


def test_sbp_class_weight_moves_the_boundary_to_the_light_class():
    from sklearn.datasets import make_classification

    X, y = make_classification(600, n_features=5, weights=[0.85], class_sep=0.6,
                               random_state=3)
    plain = SBPClassifier(0.3, n_epochs=2, random_state=0).fit(X, y)
    balanced = SBPClassifier(0.3, n_epochs=2, class_weight="balanced", random_state=0)
    balanced.fit(X, y)
    recall = [np.mean(m.predict(X[y == 1]) == 1) for m in (plain, balanced)]
    assert recall[1] > recall[0] + 0.1, recall


def test_nu_for_with_weights_is_nu_for_the_weighted_C():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    # weight 2 on every example is the SVM of 2 C, and kernel Pegasos takes the same steps
    doubled = nu_for(X, y, C=1.0, sample_weight=np.full(len(y), 2.0), n_epochs=2)
    np.testing.assert_allclose(doubled, nu_for(X, y, C=2.0, n_epochs=2), rtol=1e-10)
    # a class weight is a sample weight on the class's examples
    by_class = nu_for(X, y, C=1.0, class_weight={0: 3.0}, n_epochs=2)
    by_sample = nu_for(X, y, C=1.0, sample_weight=np.where(y == 0, 3.0, 1.0), n_epochs=2)
    np.testing.assert_allclose(by_class, by_sample, rtol=1e-12)
    model = SBPClassifier(C=1.0, n_iter=50, random_state=0)
    model.fit(X, y, sample_weight=np.full(len(y), 2.0))
    assert model.nu_.shape == (3,)


def test_biased_sbp_refuses_a_class_without_weight():
    X, y = make_binary(n=40, d=3, seed=2)
    with pytest.raises(ValueError, match=r"all samples with positive weights belong to the "
                                         r"same class"):
        SBPClassifier(0.1, fit_intercept=True).fit(X, y, sample_weight=(y > 0).astype(float))
    y3 = np.arange(len(y)) % 3  # the one-vs-rest problem of class 2 has no positive weight
    with pytest.raises(ValueError, match=r"needs both classes with a positive total weight"):
        SBPClassifier(0.1, fit_intercept=True).fit(X, y3, sample_weight=(y3 < 2).astype(float))


def test_kernel_defaults_are_within_a_point_of_svc_defaults():
    """A user of SVC's defaults (C = 1, gamma = "scale") gets SVC's accuracy within a
    point from every kernel estimator's default, on digits (pixels / 16) and on
    breast cancer (standardised).  (The Perceptron's one averaged pass was 8 points
    below SVC on digits; its default is 10 passes.)"""
    from sklearn.datasets import load_breast_cancer, load_digits
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    digits, cancer = load_digits(return_X_y=True), load_breast_cancer(return_X_y=True)
    for X, y in ((digits[0] / 16, digits[1]),
                 (StandardScaler().fit_transform(cancer[0]), cancer[1])):
        X, Xt, y, yt = train_test_split(X, y, test_size=0.4, random_state=0, stratify=y)
        svc = SVC().fit(X, y).score(Xt, yt)
        sbp = SBPClassifier(random_state=0).fit(X, y)
        assert sbp.nu_.shape == (len(np.unique(y)) if len(np.unique(y)) > 2 else 1,)
        for model in (KernelPegasosClassifier(random_state=0).fit(X, y), sbp,
                      KernelPerceptron(random_state=0).fit(X, y)):
            assert model.score(Xt, yt) >= svc - 0.01, (type(model).__name__, svc)


class _Drawn:
    """Draws given beforehand, taken in order (what an ``IndexStream`` gives a solver)."""

    def __init__(self, idx):
        self.idx, self.at = idx, 0

    def take(self, m):
        self.at += m
        return self.idx[self.at - m : self.at]


@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("scale", [1.0, 1e3], ids=["rbf", "linear-rescaled"])
def test_kernel_pegasos_on_the_kernel_matrix_is_the_reference_and_the_engine(k, scale):
    """Kernel Pegasos' one step on the kernel matrix (an ``OnMatrix``, as the SBP's
    estimate of nu from C runs it on a small set) from w = 0 without an average: the
    reference's last iterate, with draws repeated within a batch (uniform draws) and (rows
    of norm ~1e3 under a linear kernel) the scale rescaled below MIN_SCALE again and again;
    with loss weights too, the same step's on the engine's chunks."""
    X, y = make_binary(n=40, d=4, seed=45)
    rows = as_rows(X * scale)
    args = kern.Kernel(kern.RBF, 0.5, 0.0, 3) if scale == 1.0 else kern.Kernel(kern.LINEAR,
                                                                                 1.0, 0.0, 3)
    sq, diag = engine.norms_and_diagonal(rows, args)
    _, K = gram.training_matrix(rows, args)
    Y = np.column_stack([y, -y]).astype(float)
    lam, T = 0.05, 70
    idx = np.random.default_rng(6).integers(0, 40, T * k)
    assert any(len(np.unique(b)) < k for b in idx.reshape(T, k)) or k == 1
    plan = kp.ResponsePlan(k=k, lam=lam, radius2=1.0 / lam, mode=kp.PEGASOS, avg_start=10**9,
                           max_cols=64)
    for sw in (np.ones(40), np.random.default_rng(7).uniform(0.5, 2.0, 40)):
        data = kp.ResponseData(engine.points(rows, sq), diag, Y, sw)
        on_matrix, evals = kp_solver.run(rows, data, args, plan, T, _Drawn(idx), gram=K)
        assert evals == 0
        on_chunks, _ = kp_solver.run(rows, data, args, plan, T, _Drawn(idx))
        full = on_chunks.scal[kp.S] * on_chunks.g
        np.testing.assert_allclose(on_matrix.scal[kp.S] * on_matrix.g, full, rtol=0,
                                   atol=1e-12 * np.abs(full).max())
        np.testing.assert_allclose(on_matrix.scal[kp.W2], on_chunks.scal[kp.W2], rtol=1e-12)
    beta = naive.kernel_pegasos(K, y, lam, idx, k=k, projection=True)
    on_matrix, _ = kp_solver.run(rows, data._replace(sw=np.ones(40)), args, plan, T,
                                 _Drawn(idx), gram=K)
    np.testing.assert_allclose(on_matrix.scal[kp.S, 0] * on_matrix.g[:, 0], K @ beta, rtol=0,
                               atol=1e-9 * np.abs(K @ beta).max())
    assert on_matrix.scal[kp.W2, 0] == pytest.approx(beta @ K @ beta, rel=1e-9)


@pytest.mark.parametrize("on_gram", [True, False], ids=["kernel-matrix", "engine"])
def test_sbp_from_C_estimates_nu_per_problem(on_gram, monkeypatch):
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    if not on_gram:
        monkeypatch.setattr(gram, "GRAM_ROWS", 0)
    model = SBPClassifier(C=10.0, n_iter=100, random_state=0).fit(X, y)
    assert model.nu_.shape == (3,) and model.nu_[0] == 0.0 and np.all(model.nu_[1:] > 0)  # setosa: separable
    assert model.score(X, y) > 0.9
    again = SBPClassifier(nu=model.nu_, n_iter=100, random_state=0).fit(X, y)  # one per problem
    assert again.score(X, y) > 0.9
    if on_gram:  # the estimate of nu reads the kernel matrix the SBP reads: counted once
        assert again.n_kernel_evals_ == model.n_kernel_evals_ == len(y) ** 2
    else:  # the estimate's pass costs kernel evaluations of its own
        assert again.n_kernel_evals_ < model.n_kernel_evals_
    with pytest.raises(ValueError, match=r"Give either nu or C, not both"):
        SBPClassifier(nu=0.1, C=1.0).fit(X, y)
    with pytest.raises(ValueError, match=r"nu must be a finite float >= 0 or one per one-vs-rest "
                                         r"problem \(3 here\)"):
        SBPClassifier(nu=[0.1, 0.2]).fit(X, y)


@ENGINE_VARIANT_SLOW
@pytest.mark.parametrize(
    "make",
    [
        lambda: KernelPegasosClassifier(C=10.0, gamma=1.0, random_state=0),
        lambda: SBPClassifier(0.02, gamma=1.0, n_iter=1500, random_state=0),
        lambda: SBPClassifier(0.02, gamma=1.0, n_iter=1500, fit_intercept=True, random_state=0),
        lambda: KernelPerceptron(gamma=1.0, n_epochs=3, random_state=0),
    ],
    ids=["kernel-pegasos", "sbp", "sbp-biased", "perceptron"],
)
def test_estimators_on_moons_dense_and_sparse(make, solver_path):
    from sklearn.datasets import make_moons
    from sklearn.svm import SVC

    X, y = make_moons(300, noise=0.2, random_state=0)
    Xt, yt = make_moons(600, noise=0.2, random_state=1)
    svc = SVC(C=10.0, gamma=1.0).fit(X, y).score(Xt, yt)
    dense = make().fit(X, y)
    sparse = make().fit(sp.csr_matrix(X), y)
    assert dense.score(Xt, yt) >= svc - 0.06
    np.testing.assert_allclose(sparse.dual_coef_, dense.dual_coef_, rtol=1e-12, atol=1e-12)
    again = make().fit(X, y)
    assert np.array_equal(again.dual_coef_, dense.dual_coef_)  # same seed, same model
    # SVC-style attributes reproduce the decision function
    by_hand = (
        dense.dual_coef_ @ pairwise_kernels(dense.support_vectors_, Xt, metric="rbf", gamma=1.0)
        + dense.intercept_[:, None]
    )
    np.testing.assert_allclose(dense.decision_function(Xt), by_hand[0], rtol=1e-9, atol=1e-9)
    # every support vector's kernel column reached every training row at least once
    assert dense.n_kernel_evals_ >= len(y) * len(dense.support_) > 0


def test_multiclass_one_vs_rest():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    for est in (
        KernelPegasosClassifier(C=10.0, random_state=0),
        SBPClassifier(0.05, n_iter=600, random_state=0),
        KernelPerceptron(n_epochs=3, random_state=0),
    ):
        est.fit(X, y)
        assert est.dual_coef_.shape == (3, len(est.support_))
        assert est.decision_function(X).shape == (150, 3)
        assert est.score(X, y) > 0.9, type(est).__name__


def test_nu_for_matches_the_svm_margin():
    X, y = make_binary(n=80, d=3, seed=37)
    nu = nu_for(X, y, C=5.0, gamma=0.5)
    assert 0 < nu < 1
    model = SBPClassifier(nu, gamma=0.5, n_iter=3000, random_state=0).fit(X, y)
    ref = KernelPegasosClassifier(C=5.0, gamma=0.5, fit_intercept=False, n_epochs=5,
                                  random_state=0).fit(X, y)
    assert np.mean(model.predict(X) == ref.predict(X)) > 0.9


@pytest.mark.parametrize(
    "est, X_kind, match",
    [
        (SBPClassifier(nu=-1.0), "dense", r"'nu' parameter of SBPClassifier must be a float in the range \[0(\.0)?, inf\)"),
        (KernelPegasosClassifier(lam=1.0, C=1.0), "dense", r"Give either lam or C, not both"),
        (KernelPegasosClassifier(kernel="precomputed"), "rect", r"must be the square Gram matrix"),
        (KernelPegasosClassifier(kernel="cosine"), "dense", r"'kernel' parameter .* Got 'cosine'"),
        (KernelPerceptron(gamma=-1.0), "dense", r"'gamma' parameter"),
        (KernelPegasosClassifier(class_weight={-1.0: 0.0, 1.0: 0.0}), "dense",
         r"loss weights \(sample_weight times class_weight\) are all zero"),
    ],
)
def test_bad_parameters_and_inputs(est, X_kind, match):
    X, y = make_binary(n=20, d=3, seed=38)
    if X_kind == "rect":
        X = np.ones((20, 5))
    with pytest.raises(ValueError, match=match):
        est.fit(X, y)


def test_sbp_without_a_positive_margin_warns_and_keeps_its_predictions():
    from sklearn.exceptions import ConvergenceWarning

    X = np.array([[0.0], [0.0], [0.0], [0.0]])
    y = np.array([1, -1, 1, -1])
    with pytest.warns(ConvergenceWarning, match=r"no positive water-level margin .* increase n_iter or nu"):
        model = SBPClassifier(nu=0.0, kernel="linear", n_iter=20).fit(X, y)
    assert model.margin_[0] <= 0 and np.all(np.isfinite(model.dual_coef_))


@pytest.mark.slow
def test_ijcnn1_sample_within_a_point_of_svc():
    """The issue's acceptance test: a fixed 10,000-row sample, rbf gamma=1, C=10."""
    from sklearn.svm import SVC

    from .conftest import load_shared

    X, y = load_shared("ijcnn1.trn.bz2")
    Xt, yt = load_shared("ijcnn1.tst.bz2", n_features=X.shape[1])
    idx = np.random.default_rng(0).choice(X.shape[0], 10_000, replace=False)
    Xs, ys, Xt = X[idx].toarray(), y[idx], Xt.toarray()
    svc = SVC(C=10.0, gamma=1.0).fit(Xs, ys).score(Xt, yt)
    kp = KernelPegasosClassifier(C=10.0, gamma=1.0, random_state=0).fit(Xs, ys)
    assert kp.score(Xt, yt) >= svc - 0.01
    nu = nu_for(Xs, ys, C=10.0, gamma=1.0)
    sbp = SBPClassifier(nu, gamma=1.0, random_state=0).fit(Xs, ys)
    assert sbp.score(Xt, yt) >= svc - 0.01


@pytest.mark.parametrize("est", [KernelPegasosClassifier(n_epochs=1, random_state=0),
                                 KernelPerceptron(random_state=0),
                                 SBPClassifier(n_iter=20, random_state=0)])
def test_cache_size_of_the_blocked_solvers_is_deprecated(est):
    X, y = make_binary(n=60, d=3, seed=42)
    plain = est.fit(X, y).dual_coef_
    with pytest.warns(FutureWarning, match=r"cache_size has no effect on .* removed in pegasos 0.3"):
        est.set_params(cache_size=10.0).fit(X, y)
    np.testing.assert_array_equal(est.dual_coef_, plain)


@pytest.mark.parametrize("make", [
    lambda cb: KernelPegasosClassifier(n_epochs=2, random_state=0, callback=cb),
    lambda cb: SBPClassifier(0.1, n_iter=100, random_state=0, callback=cb),
    lambda cb: SBPClassifier(0.1, n_iter=100, fit_intercept=True, random_state=0, callback=cb),
    lambda cb: KernelPerceptron(n_epochs=3, batch_size=4, random_state=0, callback=cb),
], ids=["kpeg", "sbp", "sbp-bias", "perceptron"])
def test_callback_reports_the_model_without_changing_the_fit(make):
    from .conftest import make_binary

    X, y = make_binary(n=80, d=4, seed=9)
    seen = []
    plain, traced = make(None).fit(X, y), make(seen.append).fit(X, y)
    np.testing.assert_array_equal(plain.dual_coef_, traced.dual_coef_)
    np.testing.assert_array_equal(plain.intercept_, traced.intercept_)
    assert 10 <= len(seen) <= 21
    evals = [info["kernel_evals"] for info in seen]
    assert evals == sorted(evals) and evals[-1] == plain.n_kernel_evals_
    last = seen[-1]
    np.testing.assert_allclose(last["coef"][plain.support_], plain.dual_coef_[0], rtol=1e-12)
    assert last["intercept"] == pytest.approx(plain.intercept_[0], rel=1e-12, abs=1e-15)


def test_nu_from_svm_takes_a_fitted_binary_svc_and_refuses_a_one_vs_one_one():
    """As the README and its docstring say: the nu matching a fitted SVM, here SVC's, equal to
    its average hinge loss over ||w|| computed by scikit-learn's own kernel."""
    from sklearn.datasets import load_breast_cancer, load_iris
    from sklearn.metrics.pairwise import rbf_kernel
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    from pegasos import nu_from_svm

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    svc = SVC(C=1.0).fit(X, y)
    targets = np.where(y == 1, 1.0, -1.0)
    hinge = np.mean(np.maximum(0.0, 1.0 - targets * svc.decision_function(X)))
    gamma = 1.0 / (X.shape[1] * X.var())  # gamma="scale"
    K = rbf_kernel(svc.support_vectors_, gamma=gamma)
    w2 = float((svc.dual_coef_ @ K @ svc.dual_coef_.T)[0, 0])
    assert nu_from_svm(svc, X, y) == pytest.approx(hinge / np.sqrt(w2), rel=1e-10)
    Xi, yi = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=r"one row of dual_coef_ per one-vs-rest problem \(3 "
                                         r"for 3 classes\); SVC's has 2"):
        nu_from_svm(SVC().fit(Xi, yi), Xi, yi)


def test_engine_only_holds_in_its_own_thread_only():
    import threading

    seen = {}
    inside, done = threading.Event(), threading.Event()

    def other():
        inside.wait()
        seen["other"] = gram.use_gram(60)
        done.set()

    thread = threading.Thread(target=other)
    thread.start()
    with gram.engine_only():
        seen["here"] = gram.use_gram(60)
        inside.set()
        done.wait()
    thread.join()
    assert seen == {"here": False, "other": True}


def test_engine_only_sends_a_small_fit_and_its_prediction_to_the_engine(monkeypatch):
    """Inside ``_solvers.gram.engine_only()`` (where ``pegasos compile`` fills the engine's
    paths on small inputs) no fit trains on the kernel matrix and no prediction is computed
    by NumPy: both take the blocked engine, however small."""
    def refuse(*args):
        raise AssertionError("the kernel-matrix path was taken")

    added = []

    def add(*args):
        added.append(type(args[0]))  # by type: the engines are empty tuples, all equal
        return engine_add(*args)

    engine_add, numpy_values = blocks.add, gram.decision_values
    monkeypatch.setattr(kp, "kernel_pegasos_on_matrix", refuse)
    monkeypatch.setattr(gram, "decision_values", refuse)
    monkeypatch.setattr(blocks, "add", add)
    monkeypatch.setattr(engine, "PARALLEL_ROWS", 0)  # the threads, which other tests compile
    X, y = make_binary(n=60, d=4, seed=52)
    with gram.engine_only():
        model = KernelPegasosClassifier(n_epochs=1, random_state=0).fit(X, y)
        assert added and set(added) == {blocks.Threads}  # the fit's flushes
        added.clear()
        scores = model.decision_function(X)
    assert added == [blocks.Threads]  # the prediction: one block of support vectors
    assert gram.use_gram(60) and gram.predicts_here(60 * 60)  # restored
    monkeypatch.setattr(gram, "decision_values", numpy_values)
    np.testing.assert_allclose(model.decision_function(X), scores, atol=1e-10)  # NumPy's


@pytest.mark.parametrize("layout", ["dense", "float32", "csr"])
def test_a_small_fit_and_its_prediction_never_reach_the_blocked_engine(layout, monkeypatch):
    """Up to GRAM_ROWS training rows every kernel estimator trains on the kernel matrix
    (``_solvers.gram``) and predicts a small batch by NumPy: none of the engine's compiled
    functions is called, and the solvers' steps run on the matrix alone (an ``OnMatrix``),
    so a fresh install's first fit compiles them once, whatever the kind of rows.  DualSVC
    reads its working set's block from the matrix (``gather_set``, not the engine's
    ``kept_block``), and a C-SVC never calls LIBSVM's Solver_NU."""
    import pegasos._kernel_base
    import pegasos._solvers.working_set
    from pegasos import DualSVC
    from pegasos._numba import working_set as ws

    def refuse(*args):
        raise AssertionError("the blocked engine was called")

    kp_steps, sbp_steps = kp.kernel_pegasos_on_matrix, sbp.sbp_on_matrix
    for module, name in [(kp, "kernel_pegasos_blocks"), (sbp, "sbp_blocks"), (blocks, "add"),
                         (blocks, "fill_rows"), (kern, "kernel_diagonal"), (ws, "add_columns"),
                         (ws, "kept_block"),
                         (pegasos._solvers.working_set, "solve_block_by_sign")]:
        monkeypatch.setattr(module, name, refuse)
    monkeypatch.setattr(pegasos._kernel_base, "norms_and_diagonal", refuse)
    X, y = make_binary(n=120, d=5, density=0.7, seed=50)
    y3 = np.arange(120) % 3
    X = {"dense": X, "float32": X.astype(np.float32), "csr": sp.csr_matrix(X)}[layout]
    for est, labels in [(KernelPegasosClassifier(random_state=0), y),
                        (KernelPerceptron(random_state=0), y3),
                        (SBPClassifier(random_state=0), y3),  # nu from C: a Pegasos pass
                        (SBPClassifier(0.1, fit_intercept=False, random_state=0), y),
                        (DualSVC(), y3), (DualSVC(start_epochs=1), y)]:
        est.fit(X, labels).predict(X)
    # rows enough for the engine's threads: the same solvers, the same one compile
    big, labels = make_binary(n=engine.PARALLEL_ROWS + 10, d=5, seed=51)
    SBPClassifier(n_iter=5, random_state=0).fit(big, labels)
    KernelPegasosClassifier(n_iter=5, random_state=0).fit(big, labels)
    if numba.config.DISABLE_JIT:  # (plain functions: nothing compiled to count)
        return
    # one compile on the matrix whatever the rows were: the SBP's only other is the other
    # kind of draws (a plan type; a biased fit in another test of this process compiles it)
    assert len(kp_steps.signatures) == 1
    sigs = sbp_steps.signatures
    assert len(sigs) == len({sig[2] for sig in sigs}) <= 2


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("make", [
    lambda: KernelPegasosClassifier(kernel="rbf", gamma=0.3, n_iter=200, random_state=0),
    lambda: SBPClassifier(kernel="poly", gamma=0.5, coef0=1.0, degree=2, n_iter=200,
                          random_state=0),
    lambda: KernelPerceptron(kernel="sigmoid", gamma=0.1, coef0=0.5, random_state=0),
    lambda: DualSVC(kernel="rbf", gamma=0.3),
])
def test_a_reports_decision_values_are_the_kernel_expansion_of_its_coefficients(make, sparse):
    """``_report_scores`` (the command line's test error while a kernel fit runs: the
    estimator's kernel, not a second implementation) is ``K(X, X_train[support]) @ coef +
    intercept`` of each report, by scikit-learn's kernels."""
    X, y = make_binary(n=80, d=6, seed=3)
    X_test, _ = make_binary(n=30, d=6, seed=4)
    if sparse:
        X, X_test = sp.csr_matrix(X), sp.csr_matrix(X_test)
    reports = []
    est = make().set_params(callback=reports.append)
    est.fit(X, y)
    assert reports
    kernel = dict(metric=est.kernel, filter_params=True, gamma=est.gamma_, coef0=est.coef0,
                  degree=est.degree)
    for report in reports[-3:]:
        support = np.flatnonzero(report.coef)
        expected = np.full(X_test.shape[0], report.intercept)
        if support.size:
            expected += pairwise_kernels(X_test, X[support], **kernel) @ report.coef[support]
        np.testing.assert_allclose(est._report_scores(X_test, report, X_train=X), expected,
                                   rtol=1e-10, atol=1e-10)
