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


def test_a_bad_range_is_refused(gen, monkeypatch, tmp_path):
    from pegasos import _memory

    for start, stop, error, match in (
            (10, 5, ValueError, r"0 <= start <= stop <= 4611686018427387904; got 10, 5"),
            (-1, 5, ValueError, r"start must be an integer in \[0, 4611686018427387904\]"),
            (2**63, 2**63 + 1, ValueError, "start must be an integer in"),
            (1.5, 3, TypeError, "start must be an integer; got float 1.5"),
            (True, 3, TypeError, "start must be an integer; got bool"),
            (0, None, TypeError, "stop must be an integer; got NoneType")):
        with pytest.raises(error, match=match):
            gen.rows(start, stop)
    assert gen.rows(np.int64(5), np.int64(5))[0].shape == (0, 784)
    monkeypatch.setattr(_memory, "available_memory", lambda: 100 << 20)
    with pytest.raises(ValueError, match=r"rows 0 \.\.\. 999999999 \(1000000000 rows of 784 "
                                         r"pixels; make fewer at a time.* need .* GiB, more "
                                         r"than the 100 MiB"):
        gen.rows(0, 10**9)
    for kwargs, match in (({"n_rows": -5}, r"n_rows must be an integer in \[0, "),
                          ({"n_rows": 10, "block_rows": 0}, r"block_rows must be an integer in "
                                                            r"\[1, "),
                          ({"n_rows": 10, "start": -3}, r"start must be an integer in \[0, "),
                          ({"n_rows": 10**9, "block_rows": 10**9}, "a block of 1000000000 rows")):
        with pytest.raises(ValueError, match=match):
            gen.blocks(**kwargs)  # (at once, not at the first block)
    for kwargs, match in (({"n_fields": 0}, r"n_fields must be an integer in \[1, "),
                          ({"sigma": -1.0}, "sigma must be a finite number >= 0"),
                          ({"amplitude": float("nan")}, "amplitude must be a finite number"),
                          ({"seed": -1}, r"seed must be an integer in \[0, ")):
        with pytest.raises(ValueError, match=match):
            infimnist.Infimnist(**kwargs)
    for rows, match in (("-5", r"--rows must be in \[1, "), ("0", r"--rows must be in \[1, ")):
        with pytest.raises(SystemExit):
            infimnist.main(["--rows", rows, "--out", str(tmp_path)])
    with pytest.raises(SystemExit):
        infimnist.main(["--rows", "10", "--out", str(tmp_path), "--data-dir",
                        str(tmp_path / "none")])
    assert infimnist.main(["--rows", "70", "--out", str(tmp_path)]) == 0
    X = np.load(tmp_path / "infimnist-70.X.npy")
    np.testing.assert_array_equal(X, gen.rows(0, 70)[0])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["infimnist-70.X.npy",
                                                          "infimnist-70.y.npy"]


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
