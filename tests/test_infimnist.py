"""The MNIST8M-like generator of benchmarks/infimnist.py: rows by index."""

import numpy as np
import pytest

from benchmarks import infimnist
from benchmarks.common import SHARED_DATA

pytestmark = pytest.mark.skipif(
    not (SHARED_DATA / "mnist-train-images-idx3-ubyte.gz").exists(),
    reason="MNIST's IDX files are not in ../shared/data")


@pytest.fixture(scope="module")
def gen():
    return infimnist.Infimnist()


def test_the_first_rows_are_mnist_and_every_label_is_its_source_digits(gen):
    X, y = gen.rows(59_990, 60_000 + 10)
    np.testing.assert_array_equal(X[:10], gen.digits[59_990:])
    np.testing.assert_array_equal(y, gen.labels[np.r_[59_990:60_000, 0:10]])
    X, y = gen.rows(3 * 60_000 + 7, 3 * 60_000 + 9)
    np.testing.assert_array_equal(y, gen.labels[7:9])
    assert X.dtype == np.uint8 and X.shape == (2, 784)


def test_a_deformed_row_is_near_its_source_digit_and_not_equal_to_it(gen):
    X, _ = gen.rows(60_000, 60_000 + 300)
    assert not np.any(np.all(X == gen.digits[:300], axis=1))
    # with its shift undone, nearer its own digit than any other of the 300
    src = gen.digits[:300].reshape(-1, 28, 28).astype(float)
    moved = X.reshape(-1, 28, 28).astype(float)
    dist = np.full((300, 300), np.inf)
    for dr, dc in infimnist.SHIFTS:
        shifted = np.roll(src, (dr, dc), axis=(1, 2)).reshape(300, -1)
        d = ((moved.reshape(300, 1, -1) - shifted[None]) ** 2).sum(-1)
        dist = np.minimum(dist, d)
    assert np.mean(np.argmin(dist, axis=1) == np.arange(300)) > 0.95


def test_rows_are_determined_by_their_index_whatever_the_blocks(gen):
    whole, y_whole = gen.rows(1_000_000, 1_000_500)
    parts = [gen.rows(lo, min(1_000_500, lo + 77)) for lo in range(1_000_000, 1_000_500, 77)]
    np.testing.assert_array_equal(whole, np.concatenate([p[0] for p in parts]))
    np.testing.assert_array_equal(y_whole, np.concatenate([p[1] for p in parts]))
    again, _ = infimnist.Infimnist().rows(1_000_000, 1_000_500)  # a new generator, same seed
    np.testing.assert_array_equal(whole, again)
    other, _ = infimnist.Infimnist(seed=1).rows(1_000_000, 1_000_500)
    assert not np.array_equal(whole, other)
    blocks = list(gen.blocks(500, block_rows=200, start=1_000_000))
    assert [len(b[1]) for b in blocks] == [200, 200, 100]
    np.testing.assert_array_equal(whole, np.concatenate([b[0] for b in blocks]))


def test_a_bad_range_is_refused(gen):
    with pytest.raises(ValueError, match="0 <= start <= stop"):
        gen.rows(10, 5)


def test_kernel_scale_runs_each_model_on_generated_rows(gen):
    from benchmarks import kernel_scale

    X, y = gen.rows(0, 3)
    np.testing.assert_array_equal(kernel_scale.labels(y, "bin"),
                                  np.where(np.isin(y, kernel_scale.ROUND), 1, -1))
    run = dict(task="bin", rows=3000, components=100, gamma=0.02, lam=1e-4, n_iter=20_000,
               buffer_rows=1000, passes=1)
    Xt, yt = gen.digits[-1000:].astype(np.float32) / 255, kernel_scale.labels(
        gen.labels[-1000:], "bin")
    # (random features need more components than Nystroem's for the same error)
    for model, components in (("nystroem-pegasos", 100), ("sklearn-nystroem-sgd", 100),
                              ("rff-pegasos", 500)):
        clf, extra = kernel_scale.MODELS[model]({**run, "components": components}, gen)
        error = np.mean(clf.predict(Xt) != yt)
        assert error < 0.2 and extra["rows_read"] >= 1000, (model, error)


def test_kernel_scale_extrapolates_dualsvc_from_its_last_two_fits():
    from benchmarks import kernel_scale

    runs = [dict(model="dualsvc", task="bin", rows=n, seconds=s, test_error=0.01)
            for n, s in [(1000, 1.0), (2000, 3.0), (4000, 12.0)]]
    runs.append(dict(model="dualsvc", task="10", rows=8000, seconds=1.0, test_error=0.01))
    points, exponent = kernel_scale.curve(runs)
    assert [p[0] for p in points] == [1000, 2000, 4000]
    assert exponent == pytest.approx(2.0)  # the last two: 4x the time for 2x the rows
    lines = kernel_scale.curve_markdown(runs)
    assert "| 8,000 | 48 | | extrapolated |" in lines
    assert "| 4,000 | 12 | 1.00% | measured |" in lines
    assert kernel_scale.curve_markdown(runs[:1]) == []
