"""BlockStream: fit from any iterable of (X, y) blocks, a memory map, uint8 pixels."""

import numpy as np
import pytest
import scipy.sparse as sp

from pegasos import BlockStream, PegasosClassifier


def _pixels(n=600, d=6, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 256, size=(n, d), dtype=np.uint8)
    y = np.where(X.astype(float) @ rng.normal(size=d) + 40 * rng.normal(size=n) > 0, 1, -1)
    return X, y


@pytest.mark.parametrize("k, buffer_rows", [(1, 100), (4, 64)])
@pytest.mark.parametrize("sparse", [False, True])
def test_a_block_stream_fit_equals_the_reference_shuffle_buffer(k, buffer_rows, sparse):
    from pegasos.stream import STREAM_ROUND

    from .naive import pegasos, shuffle_buffer_draws

    X8, y = _pixels()
    T, lam = 700, 0.02
    blocks = [(sp.csr_matrix(X8[lo:lo + 70]) if sparse else X8[lo:lo + 70], y[lo:lo + 70])
              for lo in range(0, 600, 70)]
    clf = PegasosClassifier(lam=lam, n_iter=T, batch_size=k, random_state=0)
    clf.fit(BlockStream(blocks, scale=1 / 255, buffer_rows=buffer_rows))
    drawn = shuffle_buffer_draws(list(range(len(y))), buffer_rows, k, T, clf.plan_.seeds[0],
                                 STREAM_ROUND)
    X = X8 * (1 / 255)
    w, b = pegasos(X[drawn], y[drawn].astype(float), lam, np.arange(len(drawn)), k,
                   bias_mode="augment", avg_from=clf.plan_.avg_start(1))
    np.testing.assert_allclose(clf.coef_[0], w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(clf.intercept_[0], b, rtol=1e-12, atol=1e-12)


def test_a_memory_map_and_a_generator_give_the_in_memory_model_when_the_buffer_holds_them(
        tmp_path):
    X8, y = _pixels()
    np.save(tmp_path / "X.npy", X8)
    mapped = np.load(tmp_path / "X.npy", mmap_mode="r")
    whole = PegasosClassifier(lam=0.01, random_state=4).fit(X8 * (1 / 255), y)  # as scaled
    for stream in (BlockStream.from_arrays(mapped, y, block_rows=128, scale=1 / 255),
                   BlockStream(lambda: ((X8[i:i + 50], y[i:i + 50]) for i in range(0, 600, 50)),
                               scale=1 / 255)):
        streamed = PegasosClassifier(lam=0.01, random_state=4).fit(stream)
        np.testing.assert_array_equal(streamed.coef_, whole.coef_)
        np.testing.assert_array_equal(streamed.intercept_, whole.intercept_)
        assert streamed.n_rows_read_ == 600
    assert not mapped.flags.writeable  # read, never written


def test_many_passes_a_one_shot_generator_and_a_holdout():
    X8, y = _pixels(n=2000)
    calls = []

    def blocks():
        calls.append(1)
        for lo in range(0, 2000, 300):
            yield X8[lo:lo + 300], y[lo:lo + 300]

    clf = PegasosClassifier(lam=0.01, n_iter=3000, batch_size=4, random_state=0).fit(
        BlockStream(blocks, scale=1 / 255, buffer_rows=256, holdout=300))
    assert len(calls) >= 2 and clf.n_rows_read_ > 2000  # a second pass read the rows again
    assert clf.holdout_errors_.shape[1] == 2 and clf.holdout_errors_[-1, 1] < 0.3
    once = PegasosClassifier(lam=0.01, n_iter=3000, batch_size=4, random_state=0).fit(
        BlockStream(blocks(), scale=1 / 255, buffer_rows=256))  # one pass, then the buffer
    assert once.n_rows_read_ == 2000 and once.score(X8 / 255, y) > 0.7
    held = (X8[:300], y[:300])
    given = PegasosClassifier(lam=0.01, n_iter=3000, batch_size=4, random_state=0).fit(
        BlockStream(blocks, scale=1 / 255, buffer_rows=256, holdout=held))
    assert given.holdout_errors_.shape[1] == 2


def test_a_later_block_with_a_new_label_or_a_wider_row_is_named():
    X8, y = _pixels()
    y3 = y.copy()
    y3[500] = 7
    with pytest.raises(ValueError, match=r"the label 7, which is not among its classes"):
        PegasosClassifier(lam=0.01, n_iter=2000, random_state=0).fit(
            BlockStream.from_arrays(X8, y3, block_rows=100, buffer_rows=100))
    wide = [(X8[:100], y[:100]), (np.hstack([X8[100:200], X8[100:200, :1]]), y[100:200])]
    with pytest.raises(ValueError, match=r"block 2 of the block stream is 7 features wide, "
                                         r"the stream's rows 6"):
        PegasosClassifier(lam=0.01, n_iter=2000, random_state=0).fit(
            BlockStream(wide, buffer_rows=50))
    narrow = [(X8[:100], y[:100]), (X8[100:200, :5], y[100:200])]
    with pytest.raises(ValueError, match=r"block 2 of pixels is 5 features wide.*dense blocks"):
        PegasosClassifier(lam=0.01, n_iter=2000, random_state=0).fit(
            BlockStream(narrow, buffer_rows=50, name="pixels"))
    csr = [(sp.csr_matrix(X8[:100]), y[:100]), (sp.csr_matrix(X8[100:200, :5]), y[100:200])]
    PegasosClassifier(lam=0.01, n_iter=200, random_state=0).fit(BlockStream(csr, buffer_rows=50))
    with pytest.raises(ValueError, match=r"block 2 .* has 100 rows but labels of shape \[99\]"):
        PegasosClassifier(lam=0.01, n_iter=2000, random_state=0).fit(
            BlockStream([(X8[:100], y[:100]), (X8[100:200], y[100:199])], buffer_rows=50))
    bad = X8[:100].astype(float)
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="block 1 of the block stream holds NaN"):
        PegasosClassifier(lam=0.01, n_iter=20, random_state=0).fit(BlockStream([(bad, y[:100])]))


@pytest.mark.parametrize("kwargs, match", [
    ({"buffer_rows": 0}, "buffer_rows must be a positive integer"),
    ({"scale": -1.0}, "scale must be a finite number > 0"),
    ({"dtype": np.int32}, "dtype must be float64 or float32"),
    ({"holdout": 0}, "holdout must be a positive number of rows"),
    ({"n_features": 0}, "n_features must be a positive integer"),
])
def test_bad_parameters_are_refused(kwargs, match):
    X8, y = _pixels()
    with pytest.raises(ValueError, match=match):
        BlockStream([(X8, y)], **kwargs)


def test_a_stream_fit_refuses_what_it_cannot_do():
    X8, y = _pixels()
    with pytest.raises(ValueError, match="A stream fit takes no y"):
        PegasosClassifier(lam=0.01).fit(BlockStream([(X8, y)]), y)
    with pytest.raises(ValueError, match=r"holdout=600 takes every row"):
        PegasosClassifier(lam=0.01).fit(BlockStream([(X8, y)], holdout=600))
    with pytest.raises(ValueError, match="the block stream: no data"):
        PegasosClassifier(lam=0.01).fit(BlockStream([]))
    with pytest.raises(TypeError, match="blocks must be a function"):
        BlockStream(3)


def test_labels_of_mixed_or_other_types_are_refused():
    X8, y = _pixels()
    mixed = np.array(["a", None] * 300, dtype=object)
    with pytest.raises(ValueError, match=r"block 1 of the block stream has labels of object "
                                         r"mixing numbers, strings or other objects"):
        PegasosClassifier(lam=0.01, n_iter=20).fit(BlockStream([(X8, mixed)]))
    with pytest.raises(ValueError, match=r"block 1 of the block stream has labels that are "
                                         r"numbers, the stream's classes \['-1', '1'\] are not"):
        PegasosClassifier(lam=0.01, n_iter=20).fit(BlockStream([(X8, y)], classes=["-1", "1"]))
    later = [(X8[:300], y[:300]), (X8[300:], y[300:].astype(str))]
    with pytest.raises(ValueError, match=r"block 2 of the block stream has labels that are "
                                         r"strings, the first block's are not"):
        PegasosClassifier(lam=0.01, n_iter=2000).fit(BlockStream(later, buffer_rows=100))
    for classes, match in (([1], r"classes must list at least two labels; got \[1\]"),
                           ([], r"classes must list at least two labels; got \[\]"),
                           ([np.nan, 1.0], "classes holds NaN"),
                           ([[0, 1]], r"classes must be a list of labels; got an array of "
                                      r"shape \[1, 2\]")):
        with pytest.raises(ValueError, match=match):
            BlockStream([(X8, y)], classes=classes)
    # strings are labels as numbers are; a first buffer of one of them is named
    words = np.where(y > 0, "cat", "dog")
    clf = PegasosClassifier(lam=0.01, n_iter=200).fit(BlockStream([(X8, words)]))
    assert clf.classes_.tolist() == ["cat", "dog"]
    with pytest.raises(ValueError, match=r"all have the label 'dog', and a stream takes"):
        PegasosClassifier(lam=0.01, n_iter=200).fit(
            BlockStream([(X8[y < 0], words[y < 0]), (X8, words)], buffer_rows=50))


def test_blocks_without_features_or_an_iterable_are_refused():
    X8, y = _pixels()
    with pytest.raises(ValueError, match=r"block 1 of the block stream has rows of no features "
                                         r"\(shape \[600, 0\]\)"):
        PegasosClassifier(lam=0.01, n_iter=20).fit(BlockStream([(X8[:, :0], y)]))
    for returned in (None, 5):
        with pytest.raises(TypeError, match=r"the block stream: blocks\(\) returned "
                                            rf"{type(returned).__name__}, not an iterable"):
            PegasosClassifier(lam=0.01, n_iter=20).fit(BlockStream(lambda: returned))


def test_held_out_rows_with_a_label_the_fit_has_no_problem_for_are_refused():
    X8, y = _pixels()
    with pytest.raises(ValueError, match=r"the held-out rows have the label 5, which is not "
                                         r"among the stream's classes \[-1, 1\]"):
        PegasosClassifier(lam=0.01, n_iter=200).fit(
            BlockStream([(X8, y)], buffer_rows=100, holdout=(X8[:50], np.full(50, 5))))


def test_from_arrays_takes_lists_and_refuses_labels_that_are_not_one_per_row():
    X8, y = _pixels()
    clf = PegasosClassifier(lam=0.01, n_iter=200, random_state=0).fit(
        BlockStream.from_arrays(X8.tolist(), y.tolist(), block_rows=100))
    ref = PegasosClassifier(lam=0.01, n_iter=200, random_state=0).fit(
        BlockStream.from_arrays(X8, y, block_rows=100))
    np.testing.assert_array_equal(clf.coef_, ref.coef_)
    for X, labels, match in ((X8, 3, r"X has 600 rows but y has labels of shape \[\]"),
                             (X8, y[:-1], r"X has 600 rows but y has labels of shape \[599\]"),
                             (X8[0], y[:1], r"X must be 2-D \(rows of features\); got shape "
                                            r"\[6\]")):
        with pytest.raises(ValueError, match=match):
            BlockStream.from_arrays(X, labels)


def test_an_endless_pass_of_empty_blocks_is_an_error_not_a_hang(monkeypatch):
    from pegasos import block_stream

    monkeypatch.setattr(block_stream, "EMPTY_BLOCKS", 1000)
    X8, y = _pixels()

    def blocks():
        yield X8[:10], y[:10]
        while True:
            yield X8[:0], y[:0]

    with pytest.raises(ValueError, match=r"the block stream: 1000 blocks in a row have no rows: "
                                         r"give blocks with rows, and a pass that ends"):
        PegasosClassifier(lam=0.01, n_iter=2000).fit(BlockStream(blocks, buffer_rows=50))
