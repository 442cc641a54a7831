"""DaskPegasosClassifier on LIBSVM shards that the workers read themselves."""

import numpy as np
import pytest

pytest.importorskip("distributed")
import dask.array as da  # noqa: E402
from sklearn.datasets import dump_svmlight_file  # noqa: E402

from pegasos import PegasosClassifier, load_svmlight  # noqa: E402
from pegasos.dask_backend import DaskPegasosClassifier  # noqa: E402
from pegasos.datasets import DataFormatError  # noqa: E402
from pegasos.stream import SVMLightStream  # noqa: E402

from .conftest import make_binary  # noqa: E402

SIZES = [70, 90, 60, 80]  # rows of the four shards
BUDGETS = {"average": dict(n_epochs=3), "minibatch": dict(n_iter=20, batch_size=20)}


def write_shards(folder, X, y, sizes=SIZES):
    """``folder/part-i.svm``, shard i the next ``sizes[i]`` rows; their glob pattern."""
    bounds = np.cumsum([0, *sizes])
    for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
        dump_svmlight_file(X[a:b], y[a:b], str(folder / f"part-{i}.svm"),
                           zero_based=False)
    return str(folder / "part-*.svm")


def as_read(pattern, n_features, sizes=SIZES):
    """The shards' rows as the workers read them (the text's values), as dask arrays
    chunked one shard a chunk."""
    parts = [load_svmlight(pattern.replace("*", str(i)), n_features=n_features)
             for i in range(len(sizes))]
    X = np.vstack([Xp.toarray() for Xp, _ in parts])
    y = np.concatenate([yp for _, yp in parts])
    return da.from_array(X, chunks=(tuple(sizes), n_features)), da.from_array(y, chunks=(tuple(sizes),))


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    X, y = make_binary(n=sum(SIZES), d=5, seed=45)
    pattern = write_shards(tmp_path_factory.mktemp("shards"), X, y)
    return pattern, X, y


@pytest.mark.parametrize("mode", ["average", "minibatch"])
def test_shards_give_the_model_of_a_dask_array_chunked_as_they_are(cluster, shards, mode):
    pattern, _, _ = shards
    params = dict(lam=0.01, mode=mode, random_state=0, scheduler=cluster.scheduler_address,
                  **BUDGETS[mode])
    from_shards = DaskPegasosClassifier(**params).fit(SVMLightStream(pattern, n_features=5))
    from_array = DaskPegasosClassifier(**params).fit(*as_read(pattern, 5))
    np.testing.assert_array_equal(from_shards.coef_, from_array.coef_)
    np.testing.assert_array_equal(from_shards.intercept_, from_array.intercept_)
    assert from_shards.n_rounds_ == from_array.n_rounds_ == (3 if mode == "average" else 20)
    assert from_shards.n_partitions_ == 4 and from_shards.n_rows_read_ == sum(SIZES)
    assert not hasattr(from_array, "n_rows_read_")
    X, y = load_svmlight(pattern.replace("*", "0"), n_features=5)
    assert from_shards.score(X, y) > 0.8


def test_multiclass_shards_of_different_widths(cluster, tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 4))
    y = np.argmax(X[:, :3], axis=1).astype(float)
    X[:SIZES[0], 3] = 0.0  # the first shard is 3 features wide: widened on its worker
    pattern = write_shards(tmp_path, X, y)
    stream = SVMLightStream(pattern)
    params = dict(lam=0.01, n_iter=10, batch_size=50, mode="minibatch", random_state=0,
                  scheduler=cluster.scheduler_address)
    est = DaskPegasosClassifier(**params).fit(stream)
    reference = DaskPegasosClassifier(**params).fit(*as_read(pattern, 4))
    assert est.classes_.tolist() == [0.0, 1.0, 2.0] and est.coef_.shape == (3, 4)
    assert est.n_features_in_ == 4
    np.testing.assert_array_equal(est.coef_, reference.coef_)
    assert est.score(X, y) > 0.8


def test_a_malformed_line_is_the_readers_error_naming_the_file_and_line(cluster, tmp_path):
    X, y = make_binary(n=300, d=5, seed=46)
    pattern = write_shards(tmp_path, X, y)
    bad = tmp_path / "part-2.svm"
    lines = bad.read_text().splitlines(keepends=True)
    lines[4] = "1 1:0.5 2:oops\n"
    bad.write_text("".join(lines))
    with pytest.raises(DataFormatError, match=r"part-2\.svm, line 5: ") as info:
        DaskPegasosClassifier(lam=0.01, n_epochs=1, scheduler=cluster.scheduler_address).fit(
            SVMLightStream(pattern))
    assert type(info.value) is DataFormatError and info.value.line == 5
    assert info.value.path == str(bad)


def test_a_shard_wider_than_n_features_is_refused(cluster, shards):
    pattern, _, _ = shards
    with pytest.raises(ValueError, match=r"part-0\.svm has rows 5 features wide, beyond the "
                                         r"stream's n_features=4; give n_features >= 5"):
        DaskPegasosClassifier(lam=0.01, n_epochs=1, scheduler=cluster.scheduler_address).fit(
            SVMLightStream(pattern, n_features=4))


def test_labels_beyond_the_given_classes_are_refused(cluster, shards):
    pattern, _, _ = shards
    with pytest.raises(ValueError, match=r"part-0\.svm has the label 1\.0, which is not among "
                                         r"the stream's classes \[-1, 2\]"):
        DaskPegasosClassifier(lam=0.01, n_epochs=1, scheduler=cluster.scheduler_address).fit(
            SVMLightStream(pattern, classes=[-1, 2]))


@pytest.mark.parametrize("params, fit_kwargs, message", [
    (dict(class_weight={1.0: 2.0}), {}, r"class_weight is not supported with an SVMLightStream"),
    (dict(tol=1e-3), {}, r"tol is not supported with an SVMLightStream on Dask \(use in-memory"),
    (dict(warm_start=True), {}, r"warm_start is not supported with an SVMLightStream"),
    (dict(probability=True), {}, r"probability=True is not supported with an SVMLightStream"),
    (dict(init="random"), {}, r"init='random' is not supported with an SVMLightStream"),
    (dict(intercept_mode="unregularized"), {},
     r"intercept_mode='unregularized' is not supported with an SVMLightStream"),
    ({}, dict(sample_weight=np.ones(300)), r"sample_weight is not supported with an SVMLightStream"),
    ({}, dict(y=np.ones(300)), r"y must be None with an SVMLightStream: its labels are in its files"),
], ids=["class_weight", "tol", "warm_start", "probability", "init", "intercept_mode",
        "sample_weight", "y"])
def test_unsupported_options_are_refused(shards, params, fit_kwargs, message):
    pattern, _, _ = shards
    with pytest.raises(ValueError, match=message):
        DaskPegasosClassifier(lam=0.01, scheduler="tcp://127.0.0.1:9", **params).fit(
            SVMLightStream(pattern), **fit_kwargs)


@pytest.mark.parametrize("option", ["cache", "holdout"])
def test_the_single_machine_stream_options_are_refused(shards, option):
    pattern, _, _ = shards
    stream = SVMLightStream(pattern)
    setattr(stream, option, 100 if option == "holdout" else "shards.cache")
    with pytest.raises(ValueError, match=rf"SVMLightStream's {option} is an option of the "
                                         rf"single-machine stream fit .*leave {option}=None"):
        DaskPegasosClassifier(lam=0.01, scheduler="tcp://127.0.0.1:9").fit(stream)


def test_the_driver_never_reads_the_shards(cluster, shards, monkeypatch):
    """Every reader of LIBSVM text in this process fails: the in-memory stream fit then
    fails, and the distributed one, whose worker processes read, does not."""
    import sklearn.datasets

    from pegasos import _svmlight, stream

    pattern, X, y = shards

    def read_here(*args, **kwargs):
        raise AssertionError("a shard was read in the driver")

    for module, name in ((stream, "_open_binary"), (stream, "load_cache"),
                         (_svmlight, "_open_text"), (sklearn.datasets, "load_svmlight_file")):
        monkeypatch.setattr(module, name, read_here)
    with pytest.raises(AssertionError, match="read in the driver"):
        PegasosClassifier(lam=0.01, n_iter=100).fit(SVMLightStream(pattern))
    est = DaskPegasosClassifier(lam=0.01, n_epochs=2, random_state=0,
                                scheduler=cluster.scheduler_address).fit(SVMLightStream(pattern))
    assert est.n_rows_read_ == 300 and est.score(X, y) > 0.8


def test_a_cache_file_is_a_shard(cluster, shards, tmp_path):
    from pegasos.stream import convert

    pattern, _, _ = shards
    paths = SVMLightStream(pattern).paths
    convert(paths[0], tmp_path / "part-0.cache")
    params = dict(lam=0.01, n_epochs=2, random_state=0, scheduler=cluster.scheduler_address)
    text = DaskPegasosClassifier(**params).fit(SVMLightStream(paths))
    mixed = DaskPegasosClassifier(**params).fit(
        SVMLightStream([str(tmp_path / "part-0.cache"), *paths[1:]]))
    np.testing.assert_array_equal(mixed.coef_, text.coef_)


@pytest.mark.parametrize("mode", ["average", "minibatch"])
def test_an_empty_shard_is_an_empty_partition(cluster, shards, tmp_path, mode):
    pattern, X, y = shards
    (tmp_path / "empty.svm").write_text("")
    stream = SVMLightStream([*SVMLightStream(pattern).paths, str(tmp_path / "empty.svm")])
    est = DaskPegasosClassifier(lam=0.01, mode=mode, random_state=0,
                                scheduler=cluster.scheduler_address, **BUDGETS[mode]).fit(stream)
    assert est.n_partitions_ == 5 and est.n_rows_read_ == 300 and est.score(X, y) > 0.8
    with pytest.raises(DataFormatError, match=r"empty\.svm: no data: the shards have no examples"):
        DaskPegasosClassifier(lam=0.01, scheduler=cluster.scheduler_address).fit(
            SVMLightStream(str(tmp_path / "empty.svm")))
