"""LIBSVM files a block at a time, and their binary cache: against scikit-learn's loader,
every compression, odd block sizes, errors with the line; the cache refused by name when
truncated, foreign, of another version or stale; the same model from a cache."""

import bz2
import gzip
import io
import json
import lzma
import os
import re
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from pegasos import PegasosClassifier, load_svmlight
from pegasos.cli import main
from pegasos.datasets import DataFormatError
from pegasos.stream import (
    CacheError,
    SVMLightStream,
    convert,
    is_cache,
    load_cache,
    read_blocks,
)

from .conftest import SHARED_DATA

ROOT = Path(__file__).resolve().parents[1]

TEXT = (b"# a comment line\n"
        b"+1 qid:3 1:0.5 3:2.25 # trailing comment\n"
        b"\n"
        b"-1 2:1e-3 7:-4\n"
        b"2 1:1 2:2 3:3 4:4 5:5 6:6 7:7 8:8 9:9 10:10 11:11 12:12\n"
        b"-1 4:0.125")  # no line end at the end

OPENERS = {"": open, ".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}


def _stacked(blocks):
    """The blocks as one matrix (widths grown to the widest) and the labels."""
    blocks = list(blocks)
    width = max(X.shape[1] for X, _ in blocks)
    X = sp.vstack([sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], width))
                   for X, _ in blocks]).tocsr()
    return X, np.concatenate([y for _, y in blocks])


def _same(A, B):
    assert A.shape == B.shape
    assert (sp.csr_matrix(A) != sp.csr_matrix(B)).nnz == 0


@pytest.mark.parametrize("suffix", sorted(OPENERS))
@pytest.mark.parametrize("block_bytes", [1, 7, 40, 1 << 20])
def test_blocks_equal_scikit_learns_loader(tmp_path, suffix, block_bytes):
    path = tmp_path / f"d.svm{suffix}"
    with OPENERS[suffix](path, "wb") as f:
        f.write(TEXT)
    X, y = _stacked(read_blocks(str(path), block_bytes=block_bytes))
    import io

    want_X, want_y = load_svmlight_file(io.BytesIO(TEXT))
    _same(X, want_X)
    np.testing.assert_array_equal(y, want_y)


def test_zero_based_and_glob_of_shards(tmp_path):
    (tmp_path / "part-0.svm").write_bytes(b"1 0:1 2:3\n")
    (tmp_path / "part-1.svm").write_bytes(b"-1 1:2\n1 3:1\n")
    X, y = _stacked(read_blocks(str(tmp_path / "part-*.svm"), zero_based=True))
    np.testing.assert_array_equal(X.toarray(), [[1, 0, 3, 0], [0, 2, 0, 0], [0, 0, 0, 1]])
    np.testing.assert_array_equal(y, [1, -1, 1])
    with pytest.raises(DataFormatError, match=r"no file matches this pattern"):
        list(read_blocks(str(tmp_path / "none-*.svm")))


@pytest.mark.parametrize("name", ["a9a.xz", "a9a.t.xz", "ijcnn1.trn.bz2", "reuters.trn.bz2",
                                  "covtype_binary_scale_subset20k.xz", "adult.trn.bz2",
                                  "breast-cancer_scale.xz"])
def test_real_sets_read_by_blocks_equal_scikit_learns_loader(name):
    from .conftest import load_shared

    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"{path} not found")
    whole_X, whole_y = load_shared(name)  # scikit-learn's loader on the whole file ("auto")
    zero = name.startswith("adult")  # the shared data's README: Adult is zero-based
    for X, y in (_stacked(read_blocks(str(path), block_bytes=1 << 18, zero_based=zero)),
                 load_svmlight(path, zero_based=zero)):
        _same(X, whole_X)
        np.testing.assert_array_equal(y, whole_y)
        assert np.array_equal(X.data.view(np.int64), sp.csr_matrix(whole_X).data.view(np.int64))


@pytest.mark.parametrize("block_bytes", [5, 64, 1 << 20])
def test_a_malformed_line_in_a_later_block_is_named_as_the_loader_names_it(tmp_path,
                                                                            block_bytes):
    lines = [f"{1 if i % 2 else -1} 1:{i} 2:0.5" for i in range(30)]
    lines[23] = "1 3:0.5 2:1"  # indices must increase
    path = tmp_path / "bad.svm"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataFormatError) as whole:
        load_svmlight(path)
    with pytest.raises(DataFormatError) as blocks:
        list(read_blocks(str(path), block_bytes=block_bytes))
    assert str(blocks.value) == str(whole.value)
    assert str(blocks.value).endswith("line 24: feature indices must increase along a line; 2 "
                                      "follows 3")


# --- the cache -----------------------------------------------------------------------


@pytest.fixture
def text_file(tmp_path):
    path = tmp_path / "d.svm"
    path.write_bytes(TEXT)
    return path


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cache_round_trip(text_file, tmp_path, dtype):
    cache = tmp_path / "d.cache"
    header = convert(str(text_file), str(cache), dtype=dtype, block_bytes=11)
    assert is_cache(cache) and not is_cache(text_file)
    X, y = load_cache(cache)
    want_X, want_y = load_svmlight(text_file)
    _same(X, want_X.astype(dtype))
    np.testing.assert_array_equal(y, want_y)
    assert X.dtype == dtype and X.indices.dtype == np.int32 and not X.data.flags.writeable
    assert header["n_rows"] == 4 and header["nnz"] == want_X.nnz
    wide, _ = load_cache(cache, n_features=20)
    assert wide.shape == (4, 20)
    with pytest.raises(ValueError, match=r"has 12 features, more than the 5 asked for"):
        load_cache(cache, n_features=5)


def test_a_width_beyond_int32_stores_int64_indices(tmp_path):
    path = tmp_path / "wide.svm"
    path.write_text("1 0:1 2147483647:2\n-1 5:1\n")
    convert(str(path), str(tmp_path / "w.cache"), zero_based=True)
    X, _ = load_cache(tmp_path / "w.cache")
    assert X.shape == (2, 2**31) and X.indices.dtype == np.int64 == X.indptr.dtype
    assert X[0, 2**31 - 1] == 2.0


def _header_of(data):
    start = len(b"PEGASOS-CACHE\n") + 8
    length = int.from_bytes(data[start - 8:start], "little")
    return json.loads(data[start:start + length]), start, length


def _header_edit(cache, edit, stamp=True):
    """Edit a cache's header in place (its length kept); ``stamp``: its checksum made anew,
    as a hostile writer would, so that the other checks are what refuse it."""
    data = bytearray(cache.read_bytes())
    header, start, length = _header_of(data)
    edit(header)
    if stamp and isinstance(header, dict):
        rest = {k: v for k, v in header.items() if k != "header_checksum"}
        header["header_checksum"] = f"{zlib.crc32(json.dumps(rest).encode()):08x}"
    text = json.dumps(header).encode()
    if len(text) > length:  # (the same header in JSON without spaces)
        text = json.dumps(header, separators=(",", ":")).encode()
    text = text.ljust(length)
    assert len(text) == length
    data[start:start + length] = text
    cache.write_bytes(bytes(data))


def restamp(cache, sizes=None):
    """Every section's checksum (over ``sizes[name]`` bytes, default what the header's
    counts give) and the header's made anew: a cache edited by hand, checksums and all."""
    header, _, _ = _header_of(cache.read_bytes())
    data = cache.read_bytes()
    index, values = np.dtype(header["index_dtype"]), np.dtype(header["value_dtype"])
    n, nnz = header["n_rows"], header["nnz"]
    sizes = sizes or {"y": 8 * n, "indptr": index.itemsize * (n + 1),
                      "indices": index.itemsize * nnz, "data": values.itemsize * nnz}
    sums = {name: f"{zlib.crc32(data[at:at + sizes[name]]):08x}"
            for name, at in header["offsets"].items()}
    _header_edit(cache, lambda h: h.update(checksums=sums))


def _edit_bytes(cache, section, skip, value, stamp=True):
    """``value``'s bytes written into ``section``, ``skip`` bytes in (checksums made anew
    when ``stamp``)."""
    data = bytearray(cache.read_bytes())
    at = _header_of(data)[0]["offsets"][section] + skip
    data[at:at + value.nbytes] = value.tobytes()
    cache.write_bytes(bytes(data))
    if stamp:
        restamp(cache)


def test_truncated_foreign_future_and_corrupt_caches_are_refused(text_file, tmp_path):
    cache = tmp_path / "d.cache"
    convert(str(text_file), str(cache))
    good = cache.read_bytes()
    cache.write_bytes(good[:-70])
    with pytest.raises(CacheError, match=r"d.cache: is truncated or corrupt: its header says"):
        load_cache(cache)
    cache.write_bytes(good[:30])
    with pytest.raises(CacheError, match=r"is truncated or corrupt"):
        load_cache(cache)
    cache.write_bytes(b"PK\x03\x04 not a cache")
    with pytest.raises(CacheError, match=r"is not a pegasos cache file"):
        load_cache(cache)
    layout = r"its header's section offsets and size .* are not those of"
    for edit, match in [(lambda h: h.update(version=3), r"has cache version 3; this pegasos "
                                                        r"reads version 2"),
                        (lambda h: h.update(format="x"), r"its header is of another format"),
                        (lambda h: h.update(nnz=-1), r"its header's 'nnz' is -1"),
                        (lambda h: h.update(nnz=99), layout),
                        (lambda h: h.update(value_dtype="|O"), r"dtypes '\|O'"),
                        (lambda h: h["offsets"].update(data="x"), layout),
                        (lambda h: h.update(n_features=1.5), r"'n_features' is 1.5"),
                        (lambda h: h.update(index_dtype="<i8"), r"index dtype <i8 for 17 values"),
                        (lambda h: h.update(extra=1), r"fields are not a cache's: \['extra'\]"),
                        (lambda h: h["checksums"].update(y="XYZ"), r"checksums are malformed")]:
        cache.write_bytes(good)
        _header_edit(cache, edit)
        with pytest.raises(CacheError, match=match):
            load_cache(cache)


def test_a_cache_of_version_1_says_to_convert_again(text_file, tmp_path):
    cache = tmp_path / "d.cache"
    convert(str(text_file), str(cache))
    _header_edit(cache, lambda h: h.update(version=1))
    with pytest.raises(CacheError, match=r"d.cache: has cache version 1; this pegasos reads "
                                         r"version 2 \(run pegasos convert again"):
        load_cache(cache)


@pytest.mark.parametrize("edit", [
    lambda h: h.update(n_rows=h["n_rows"] - 1),  # a row fewer: the sections do not move
    lambda h: h.update(value_dtype="<f4"),  # float64 values read as float32
    lambda h: h["offsets"].update(y=h["offsets"]["y"] + 8),
    lambda h: h["offsets"].update(data=h["offsets"]["data"] + 8),
    lambda h: h.update(n_features=h["n_features"] - 1),
])
def test_a_header_that_does_not_describe_its_sections_is_refused(text_file, tmp_path, edit):
    """The probe's silent-wrong caches (issue 62): each header field against the sections
    and the file's size, even with every checksum made anew to match."""
    cache = tmp_path / "d.cache"
    convert(str(text_file), str(cache))
    _header_edit(cache, edit)
    restamp(cache)
    with pytest.raises(CacheError, match=r"d.cache: is corrupt"):
        load_cache(cache)


def test_a_field_given_twice_is_refused(text_file, tmp_path):
    cache = tmp_path / "d.cache"
    convert(str(text_file), str(cache))
    data = bytearray(cache.read_bytes())
    header, start, length = _header_of(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    twice = text.replace(b'"n_rows":4', b'"n_rows":3,"n_rows":4')
    assert twice != text and len(twice) <= length
    data[start:start + length] = twice.ljust(length)
    cache.write_bytes(bytes(data))
    with pytest.raises(CacheError, match=r"the field 'n_rows' is given twice"):
        load_cache(cache)


@pytest.mark.parametrize("section, skip", [("y", 0), ("y", 17), ("indptr", 4), ("indices", 0),
                                           ("data", 9)])
def test_one_flipped_bit_in_any_section_is_refused_by_its_checksum(text_file, tmp_path,
                                                                   section, skip):
    cache = tmp_path / "d.cache"
    convert(str(text_file), str(cache))
    good = cache.read_bytes()
    data = bytearray(good)
    at = _header_of(data)[0]["offsets"][section] + skip
    data[at] ^= 0x08
    cache.write_bytes(bytes(data))
    with pytest.raises(CacheError, match=rf"d.cache: is corrupt: its {section} section does "
                                         r"not match its checksum .*run pegasos convert again"):
        load_cache(cache)
    # the header's own checksum: a field changed without it
    cache.write_bytes(good)
    _header_edit(cache, lambda h: h.update(zero_based=not h["zero_based"]), stamp=False)
    with pytest.raises(CacheError, match=r"its header does not match its checksum"):
        load_cache(cache)


def test_the_indptrs_end_must_be_the_header_nnz(text_file, tmp_path):
    cache = tmp_path / "d.cache"
    convert(str(text_file), str(cache))
    header = _header_of(cache.read_bytes())[0]
    _edit_bytes(cache, "indptr", 4 * header["n_rows"], np.int32(header["nnz"] - 1))
    with pytest.raises(CacheError, match=r"its rows end at value 16, its header counts 17"):
        load_cache(cache)


@pytest.mark.parametrize("section, skip, match", [
    ("data", 8, r"d.cache: row 1: the value nan of feature 3 is not finite"),
    ("y", 8, r"d.cache: row 2: the label inf is not finite")])
def test_a_non_finite_number_in_a_cache_gets_a_texts_short_message(text_file, tmp_path,
                                                                   section, skip, match):
    """Every path that reads a cache (load_cache, predict, train, train --stream) refuses
    it as the text file's line would be: one short message."""
    cache = tmp_path / "d.cache"
    convert(str(text_file), str(cache))
    _edit_bytes(cache, section, skip, np.float64("nan" if section == "data" else "inf"))
    with pytest.raises(CacheError, match=match):
        load_cache(cache)
    model = tmp_path / "m.model"
    for argv in (["train", "-q", "-l", "0.1", "--iter", "20", str(cache), str(model)],
                 ["train", "-q", "--stream", "-l", "0.1", "--iter", "20", str(cache),
                  str(model)]):
        result = subprocess.run([sys.executable, "-m", "pegasos", *argv], capture_output=True,
                                text=True, cwd=tmp_path)
        assert result.returncode == 1 and not model.exists(), result.stderr
        assert re.fullmatch(r"pegasos: error: .*d.cache: " + match.split("d.cache: ")[1]
                            + r" \(the cache is corrupt; run pegasos convert again\)\n",
                            result.stderr), result.stderr


def test_load_cache_checks_n_features_itself(text_file, tmp_path):
    cache = tmp_path / "d.cache"
    convert(str(text_file), str(cache))
    with pytest.raises(TypeError, match=r"n_features must be an integer \(or None\); got 5.5"):
        load_cache(cache, n_features=5.5)
    with pytest.raises(ValueError, match=r"n_features must be in \[1, 2147483648\]; got 0"):
        load_cache(cache, n_features=0)
    assert load_cache(cache, n_features=np.int64(20))[0].shape == (4, 20)


def test_a_cache_older_than_its_source_is_refused(text_file, tmp_path):
    cache = tmp_path / "d.cache"
    convert(str(text_file), str(cache))
    text_file.write_bytes(TEXT + b"\n1 1:1\n")
    with pytest.raises(CacheError, match=r"is stale: its source '.*d.svm' changed after it was "
                                         r"made \(run pegasos convert again\)"):
        load_cache(cache)
    text_file.unlink()  # moved away: the cache holds the data on its own
    assert load_cache(cache)[0].shape[0] == 4


def test_convert_never_writes_over_an_input_and_leaves_nothing_when_it_fails(text_file,
                                                                              tmp_path):
    with pytest.raises(ValueError, match=r"the cache .*d.svm is the input .*d.svm"):
        convert(str(text_file), str(text_file))
    assert text_file.read_bytes() == TEXT
    bad = tmp_path / "bad.svm"
    bad.write_bytes(TEXT + b"\n1 x:1\n")
    with pytest.raises(DataFormatError, match=r"bad.svm, line 7: the feature index 'x'"):
        convert(str(bad), str(tmp_path / "bad.cache"), block_bytes=16)
    assert sorted(os.listdir(tmp_path)) == ["bad.svm", "d.svm"]


def test_a_cache_gives_the_in_memory_model_bit_for_bit():
    path = SHARED_DATA / "a9a.xz"
    if not path.exists():
        pytest.skip(f"{path} not found")
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        cache = os.path.join(folder, "a9a.cache")
        convert(str(path), cache, block_bytes=1 << 20)
        X, y = load_cache(cache)
        whole_X, whole_y = load_svmlight(path)
        mapped = PegasosClassifier(random_state=0).fit(X, y)
        loaded = PegasosClassifier(random_state=0).fit(whole_X, whole_y)
        np.testing.assert_array_equal(mapped.coef_, loaded.coef_)
        np.testing.assert_array_equal(mapped.intercept_, loaded.intercept_)


def test_the_command_line_converts_and_trains_and_predicts_from_a_cache(text_file, tmp_path,
                                                                       capsys):
    cache, model = tmp_path / "d.cache", tmp_path / "d.model"
    assert main(["convert", str(text_file), str(cache)]) == 0
    assert "4 rows, 12 features, 17 values" in capsys.readouterr().out
    assert main(["train", "-q", "--seed", "0", str(cache), str(model)]) == 0
    assert main(["predict", str(cache), str(model), str(tmp_path / "a.pred")]) == 0
    assert main(["predict", str(text_file), str(model), str(tmp_path / "b.pred")]) == 0
    out = capsys.readouterr().out
    assert out.count("Accuracy = ") == 2
    assert (tmp_path / "a.pred").read_text() == (tmp_path / "b.pred").read_text()
    assert main(["convert", str(cache), str(cache)]) == 1
    assert "writing the cache would destroy it" in capsys.readouterr().err
    text_file.write_bytes(TEXT + b"\n")
    assert main(["train", "-q", str(cache), str(model)]) == 1
    assert "is stale" in capsys.readouterr().err
    convert(str(text_file), str(cache))
    with pytest.raises(SystemExit):
        main(["train", "--stream", "-l", "0.1", "--cache", str(tmp_path / "c"), str(cache),
              str(model)])
    assert "is a cache already: give no cache" in capsys.readouterr().err


_UNDER_A_LIMIT = textwrap.dedent("""
    import resource, sys
    from pegasos.stream import convert, read_blocks

    limit = int(sys.argv[3])
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
    rows = sum(X.shape[0] for X, _ in read_blocks(sys.argv[1], block_bytes=1 << 22))
    header = convert(sys.argv[1], sys.argv[2], block_bytes=1 << 22)
    print(rows, header["n_rows"])
""")


@pytest.mark.slow
def test_reading_and_converting_a_file_larger_than_the_address_space_limit(tmp_path):
    rng = np.random.default_rng(0)
    lines = "".join(f"{1 if rng.random() < 0.5 else -1} " + " ".join(
        f"{j}:{rng.random():.6f}" for j in sorted(rng.choice(2000, 40, replace=False) + 1))
        + "\n" for _ in range(2000)).encode()
    path = tmp_path / "big.svm"
    with open(path, "wb") as f:
        for _ in range(len(lines) and (1200 << 20) // len(lines) + 1):
            f.write(lines)
    size = path.stat().st_size
    probe = subprocess.run([sys.executable, "-c", "import pegasos.stream, sklearn.datasets; "
                            "print(open('/proc/self/status').read().split('VmSize:')[1].split()[0])"],
                           capture_output=True, text=True, check=True, cwd=ROOT)
    limit = int(probe.stdout) * 1024 + (400 << 20)  # what the imports take, plus 400 MiB
    assert limit < size
    done = subprocess.run([sys.executable, "-c", _UNDER_A_LIMIT, str(path),
                           str(tmp_path / "big.cache"), str(limit)],
                          capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = size // len(lines) * 2000
    assert done.stdout.split() == [str(rows), str(rows)]


# --- fit(stream): a shuffle buffer ----------------------------------------------------


def _stream_file(tmp_path, n=600, d=5, seed=3):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 4)
    X[rng.random((n, d)) < 0.3] = 0.0
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1, -1)
    path = tmp_path / "s.svm"
    path.write_text("".join(f"{label} " + " ".join(f"{j + 1}:{v:g}" for j, v in enumerate(row)
                                                     if v != 0) + "\n"
                            for row, label in zip(X, y)))
    return path, X, y


@pytest.mark.parametrize("k, buffer_rows", [(1, 100), (4, 64), (3, 599)])
def test_stream_fit_equals_the_reference_shuffle_buffer(tmp_path, k, buffer_rows):
    from pegasos.stream import STREAM_ROUND, SVMLightStream

    from .naive import pegasos, shuffle_buffer_draws

    path, X, y = _stream_file(tmp_path)
    T, lam = 700, 0.02
    clf = PegasosClassifier(lam=lam, n_iter=T, batch_size=k, random_state=0)
    clf.fit(SVMLightStream(str(path), buffer_rows=buffer_rows, block_bytes=500))
    drawn = shuffle_buffer_draws(list(range(len(y))), buffer_rows, k, T, clf.plan_.seeds[0],
                                 STREAM_ROUND)
    w, b = pegasos(X[drawn], y[drawn].astype(float), lam, np.arange(len(drawn)), k,
                   bias_mode="augment", avg_from=clf.plan_.avg_start(1))
    np.testing.assert_allclose(clf.coef_[0], w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(clf.intercept_[0], b, rtol=1e-12, atol=1e-12)
    assert clf.n_rows_read_ < 600 * (1 + T * k // 600 + 1)


@pytest.mark.parametrize("buffer_rows", [600, 601, 65536])  # 600 rows: exactly full too
def test_a_stream_that_fits_its_buffer_gives_the_in_memory_model_bit_for_bit(tmp_path,
                                                                            buffer_rows):
    from pegasos.stream import SVMLightStream

    path, _, _ = _stream_file(tmp_path)
    streamed = PegasosClassifier(lam=0.01, random_state=4).fit(
        SVMLightStream(str(path), buffer_rows=buffer_rows, block_bytes=700))
    X, y = load_svmlight(path)
    whole = PegasosClassifier(lam=0.01, random_state=4).fit(X, y)
    np.testing.assert_array_equal(streamed.coef_, whole.coef_)
    np.testing.assert_array_equal(streamed.intercept_, whole.intercept_)
    assert streamed.n_rows_read_ == 600


def test_a_stream_fit_reads_what_its_draws_need_not_the_whole_file(tmp_path):
    from pegasos.stream import SVMLightStream

    path, _, _ = _stream_file(tmp_path, n=20000)
    clf = PegasosClassifier(lam=1e-3, n_iter=500, random_state=0)
    clf.fit(SVMLightStream(str(path), buffer_rows=1000, block_bytes=4096))
    assert 1000 < clf.n_rows_read_ <= 1000 + 500 + 200  # the buffer, the draws, a block
    assert clf.score(*load_svmlight(path)) > 0.8


def test_stream_fits_refuse_what_they_cannot_do(tmp_path):
    from pegasos.stream import SVMLightStream

    path, _, _ = _stream_file(tmp_path)
    stream = SVMLightStream(str(path), buffer_rows=50)
    for est, match in [(PegasosClassifier(n_iter=5), r"takes no C .*give lam"),
                       (PegasosClassifier(lam=0.1, n_epochs=2), r"takes no n_epochs"),
                       (PegasosClassifier(lam=0.1, tol=1e-3), r"takes no tol")]:
        with pytest.raises(ValueError, match=match):
            est.fit(stream)
    with pytest.raises(ValueError, match=r"takes no y"):
        PegasosClassifier(lam=0.1).fit(stream, np.ones(3))
    with pytest.raises(ValueError, match=r"has the label 3, which is not among its classes "
                                         r"\[-1.0, 1.0\].*give classes"):
        with open(path, "a") as f:
            f.write("3 1:1\n" * 600)
        PegasosClassifier(lam=0.1, n_iter=2000).fit(stream)
    narrow = SVMLightStream(str(path), buffer_rows=50, n_features=3)
    with pytest.raises(ValueError, match=r"beyond the stream's n_features=3: give n_features "
                                         r">= 5"):
        PegasosClassifier(lam=0.1, n_iter=50).fit(narrow)


@pytest.mark.parametrize("name, value", [
    ("lam", None), ("n_epochs", 2.0), ("warm_start", True), ("tol", 1e-3),
    ("track_objective", True), ("probability", True), ("init", "random"),
    ("class_weight", "balanced"), ("sampling", "cyclic")])
def test_one_table_says_what_a_stream_fit_refuses(tmp_path, name, value):
    """Each row of the library's table (``_stream_params.STREAM_REFUSALS``) is what
    PegasosClassifier's stream fit refuses, named as the table names it; the command
    line's --stream checks (``cli.options.STREAM_NEEDS``) are rows of the same table."""
    from pegasos._stream_params import STREAM_REFUSALS, stream_refusals
    from pegasos.cli.options import STREAM_NEEDS
    from pegasos.stream import SVMLightStream

    assert set(STREAM_NEEDS) <= {row[0] for row in STREAM_REFUSALS}
    path, _, _ = _stream_file(tmp_path)
    est = PegasosClassifier(lam=0.1, n_iter=5).set_params(**{name: value})
    if name == "n_epochs":
        est.set_params(n_iter=None)
    refused = stream_refusals(est.get_params())
    assert list(refused) == [name]
    with pytest.raises(ValueError, match=re.escape(f"A stream fit takes no {refused[name]};")):
        est.fit(SVMLightStream(str(path), buffer_rows=50))


def test_the_command_line_trains_from_a_stream(tmp_path, capsys):
    path, X, y = _stream_file(tmp_path, n=3000)
    model = tmp_path / "s.model"
    assert main(["train", "--stream", "-l", "0.001", "--iter", "400", "--buffer-rows", "300",
                 "--json", str(path), str(model)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert 300 < summary["rows_read"] < 3000 and summary["iterations"] == 400
    from pegasos import load_model

    assert load_model(model).n_rows_read_ == summary["rows_read"]
    for argv, match in ((["--stream"], r"need -l LAMBDA"),
                        (["--stream", "-l", "0.1", "-s", "kernel-pegasos"], r"need -s pegasos"),
                        (["--buffer-rows", "0", "-l", "0.1"], r"need --stream"),
                        (["--stream", "--buffer-rows", "0", "-l", "0.1"], r"--buffer-rows must "
                                                                          r"be >= 1")):
        with pytest.raises(SystemExit) as exc:
            main(["train", *argv, str(path), str(model)])
        assert exc.value.code == 2
        assert re.search(match, capsys.readouterr().err)


@pytest.mark.parametrize("k, buffer_rows", [(1, 100), (4, 64), (2, 590)])
def test_a_stream_with_a_cache_draws_from_it_uniformly_after_the_first_pass(tmp_path, k,
                                                                            buffer_rows):
    from pegasos.stream import STREAM_ROUND, SVMLightStream

    from .naive import pegasos, shuffle_buffer_draws

    path, X, y = _stream_file(tmp_path)
    cache = tmp_path / "s.cache"
    T, lam = 1500, 0.02
    reports = []
    clf = PegasosClassifier(lam=lam, n_iter=T, batch_size=k, random_state=0,
                            callback=reports.append)
    clf.fit(SVMLightStream(str(path), buffer_rows=buffer_rows, block_bytes=500, cache=cache))
    assert reports[-1].bytes_read == path.stat().st_size
    drawn = shuffle_buffer_draws(list(range(len(y))), buffer_rows, k, T, clf.plan_.seeds[0],
                                 STREAM_ROUND, cache=True)
    w, b = pegasos(X[drawn], y[drawn].astype(float), lam, np.arange(len(drawn)), k,
                   bias_mode="augment", avg_from=clf.plan_.avg_start(1))
    np.testing.assert_allclose(clf.coef_[0], w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(clf.intercept_[0], b, rtol=1e-12, atol=1e-12)
    assert clf.n_rows_read_ == 600  # one pass, then the cache
    Xc, yc = load_cache(cache)
    _same(Xc, load_svmlight(path)[0])
    np.testing.assert_array_equal(yc, y)
    again = PegasosClassifier(lam=lam, n_iter=300, random_state=0).fit(
        SVMLightStream(str(path), buffer_rows=buffer_rows, cache=cache))
    assert again.n_rows_read_ == 0  # a fresh cache: no text parsed
    drawn = shuffle_buffer_draws(list(range(len(y))), buffer_rows, 1, 300,
                                 again.plan_.seeds[0], STREAM_ROUND, cached=True)
    w, b = pegasos(X[drawn], y[drawn].astype(float), lam, np.arange(len(drawn)), 1,
                   bias_mode="augment", avg_from=again.plan_.avg_start(1))
    np.testing.assert_allclose(again.coef_[0], w, rtol=1e-12, atol=1e-12)


def test_a_streams_cache_is_rewritten_when_stale_and_never_over_another_file(tmp_path):
    from pegasos.stream import SVMLightStream

    path, _, _ = _stream_file(tmp_path)
    cache = tmp_path / "s.cache"
    fit = PegasosClassifier(lam=0.01, n_iter=2000, random_state=0).fit
    fit(SVMLightStream(str(path), buffer_rows=100, cache=cache))
    with open(path, "a") as f:
        f.write("1 1:0.5\n")
    os.utime(path, ns=(os.stat(cache).st_mtime_ns + 10**9,) * 2)
    assert fit(SVMLightStream(str(path), buffer_rows=100, cache=cache)).n_rows_read_ == 601
    assert load_cache(cache)[0].shape[0] == 601
    (tmp_path / "o.svm").write_bytes(b"1 1:1\n-1 2:1\n")
    with pytest.raises(CacheError, match=r"is the cache of other files"):
        fit(SVMLightStream(str(tmp_path / "o.svm"), buffer_rows=10, cache=cache))
    text = tmp_path / "notes.txt"
    text.write_text("my notes")
    with pytest.raises(CacheError, match=r"not a pegasos cache file; a stream's cache is "
                                         r"never written over another file"):
        fit(SVMLightStream(str(path), buffer_rows=100, cache=text))
    assert text.read_text() == "my notes"
    with pytest.raises(ValueError, match=r"is the input .* never replaces its data"):
        SVMLightStream(str(path), cache=path)
    short = tmp_path / "short.cache"  # a fit that ends inside its first pass writes no cache
    fds = len(os.listdir("/proc/self/fd"))
    PegasosClassifier(lam=0.01, n_iter=10, random_state=0).fit(
        SVMLightStream(str(path), buffer_rows=100, cache=short))
    assert not short.exists()
    assert len(os.listdir("/proc/self/fd")) == fds  # its parts and the data file closed
    with pytest.raises(CacheError, match=r"was made with zero_based=False, this stream reads "
                                         r"its files with zero_based=True"):
        fit(SVMLightStream(str(path), buffer_rows=100, cache=cache, zero_based=True))
    empty = tmp_path / "empty.svm"
    empty.write_text("# no rows\n")
    with pytest.raises(ValueError, match=r"no data: the stream has no rows to train on"):
        fit(SVMLightStream(str(empty), cache=tmp_path / "e.cache"))
    assert not (tmp_path / "e.cache").exists()
    with pytest.raises(DataFormatError, match=r"typo\.svm: does not exist"):
        fit(SVMLightStream([str(path), str(tmp_path / "typo.svm")]))
    wide = tmp_path / "wide.svm"  # a wider row in the refill that completes the cache
    wide.write_text(path.read_text() + "1 50:1\n")
    with pytest.raises(ValueError, match=r"50 features wide, beyond the stream's n_features=5: "
                                         r"give n_features >= 50"):
        fit(SVMLightStream(str(wide), buffer_rows=100, block_bytes=500,
                           cache=tmp_path / "w.cache"))


def test_a_stream_of_a_cache_file_draws_from_it(tmp_path):
    from pegasos.stream import SVMLightStream

    path, X, y = _stream_file(tmp_path, n=3000)
    cache = tmp_path / "s.cache"
    convert(path, cache, dtype=np.float32)
    clf = PegasosClassifier(lam=1e-3, n_iter=3000, random_state=0).fit(
        SVMLightStream(str(cache), buffer_rows=500))
    assert clf.n_rows_read_ == 0 and clf.n_iter_ == 3000
    assert clf.score(*load_svmlight(path)) > 0.9


@pytest.mark.parametrize("cached", [False, True])
def test_held_out_rows_are_never_trained_on_and_stop_the_fit(tmp_path, cached):
    from pegasos.stream import STREAM_ROUND, SVMLightStream

    from .naive import pegasos, shuffle_buffer_draws

    path, X, y = _stream_file(tmp_path, n=600)
    source = path
    if cached:
        source = tmp_path / "s.cache"
        convert(path, source)
    h, T, lam, patience = 150, 20000, 1e-3, 3
    clf = PegasosClassifier(lam=lam, n_iter=T, random_state=0).fit(SVMLightStream(
        str(source), buffer_rows=100, holdout=h, n_iter_no_change=patience))
    errors = clf.holdout_errors_
    assert clf.n_iter_ < T and errors[-1, 0] == clf.n_iter_
    assert len(errors) - 1 - np.argmin(errors[:, 1]) == patience  # no new lowest in 3
    assert errors[-1, 1] == pytest.approx(1 - clf.score(X[:h], y[:h]))
    assert np.all(np.diff(errors[:, 0]) * 1 >= np.maximum(h, errors[1:, 0] / 10))
    # the draws: rows h.. only, the buffer's way, or uniformly from the cache's
    drawn = shuffle_buffer_draws(list(range(h, 600)), 100, 1, clf.n_iter_, clf.plan_.seeds[0],
                                 STREAM_ROUND, cached=cached)
    w, b = pegasos(X[drawn], y[drawn].astype(float), lam, np.arange(len(drawn)), 1,
                   bias_mode="augment", avg_from=clf.plan_.avg_start(1))
    np.testing.assert_allclose(clf.coef_[0], w, rtol=1e-12, atol=1e-12)
    test = tmp_path / "t.svm"
    test.write_text("".join(path.read_text().splitlines(keepends=True)[:h]))
    by_file = PegasosClassifier(lam=lam, n_iter=T, random_state=0).fit(SVMLightStream(
        str(source), buffer_rows=100, holdout=test, n_iter_no_change=patience))
    assert by_file.n_iter_ < T
    assert by_file.holdout_errors_[-1, 1] == pytest.approx(1 - by_file.score(X[:h], y[:h]))
    to_budget = PegasosClassifier(lam=lam, n_iter=700, random_state=0).fit(SVMLightStream(
        str(source), buffer_rows=100, holdout=test))  # measured at the end too
    assert to_budget.holdout_errors_[-1, 0] == 700
    assert to_budget.holdout_errors_[-1, 1] == pytest.approx(1 - to_budget.score(X[:h], y[:h]))
    for every in (600, 601):
        with pytest.raises(ValueError, match=rf"holdout={every} takes every row of the stream"):
            PegasosClassifier(lam=lam, random_state=0).fit(SVMLightStream(
                str(source), holdout=every, cache=None if cached else tmp_path / "c.cache"))
    narrow = tmp_path / "narrow.svm"  # held-out rows narrower than the stream's: widened
    narrow.write_text("1 1:1\n-1 2:1\n" + path.read_text())
    clf = PegasosClassifier(lam=lam, n_iter=500, random_state=0).fit(
        SVMLightStream(str(narrow), buffer_rows=100, block_bytes=300, holdout=2))
    assert clf.holdout_errors_.shape[1] == 2 and clf.coef_.shape == (1, 5)
    (tmp_path / "wide.svm").write_text("1 9:1\n")
    with pytest.raises(ValueError, match=r"a held-out row is 9 features wide, beyond the "
                                         r"stream's n_features=5"):
        PegasosClassifier(lam=lam, n_iter=500).fit(SVMLightStream(
            str(source), buffer_rows=100, holdout=tmp_path / "wide.svm"))


def test_a_stream_fit_reports_rows_bytes_and_held_out_error(tmp_path, capsys):
    from pegasos.stream import SVMLightStream

    path, _, _ = _stream_file(tmp_path, n=2000)
    reports = []
    clf = PegasosClassifier(lam=1e-3, n_iter=3000, random_state=0, callback=reports.append,
                            verbose=1)
    clf.fit(SVMLightStream(str(path), buffer_rows=200, holdout=100))
    assert [r.iterations for r in reports] == sorted(r.iterations for r in reports)
    assert reports[-1].iterations == clf.n_iter_ and reports[-1].iterations_total == 3000
    rows = [r.rows_read for r in reports]
    assert rows == sorted(rows) and 300 < rows[-1] <= 2000
    assert all(r.bytes_read > 0 for r in reports)
    assert any(r.holdout_error is not None for r in reports)
    out = capsys.readouterr().out
    assert re.search(r"\[pegasos\] stream: \d+ iterations, \d+ rows read \([\d.]+ MB/s\), "
                     r"held-out error 0\.\d{4}", out)


@pytest.mark.parametrize("what", ["append", "remove"])
def test_a_file_that_changes_or_vanishes_during_a_fit_stops_it(tmp_path, what):
    from pegasos.stream import SVMLightStream

    path, _, _ = _stream_file(tmp_path)

    def meddle(report):
        if what == "append":
            with open(path, "a") as f:
                f.write("1 1:1\n")
        elif path.exists():
            path.unlink()

    match = r"changed while the fit was reading it" if what == "append" else \
        r"vanished while the fit was reading it"
    with pytest.raises(DataFormatError, match=rf"{re.escape(str(path))}.*{match}"):
        PegasosClassifier(lam=0.01, n_iter=5000, random_state=0, callback=meddle).fit(
            SVMLightStream(str(path), buffer_rows=100, block_bytes=1000))


def test_the_command_line_streams_with_a_cache_and_a_holdout_and_keeps_no_model_on_error(
        tmp_path, capsys, monkeypatch):
    path, _, _ = _stream_file(tmp_path, n=1000)
    model, cache = tmp_path / "s.model", tmp_path / "s.cache"
    assert main(["train", "--stream", "-l", "0.001", "--iter", "20000", "--buffer-rows", "300",
                 "--cache", str(cache), "--holdout", "200", "--json", str(path),
                 str(model)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["iterations"] < 20000 and 0 <= summary["holdout_error"] < 0.2
    assert is_cache(cache) and summary["rows_read"] == 1000
    assert main(["train", "--stream", "-l", "0.001", "--iter", "500", "--json", str(cache),
                 str(model)]) == 0  # a stream of a cache
    assert json.loads(capsys.readouterr().out)["rows_read"] == 0
    assert main(["train", "--stream", "-l", "0.001", "--cache", str(tmp_path / "no" / "c"),
                 str(path), str(model)]) == 1
    assert re.search(r"cannot write the cache .*there is no folder", capsys.readouterr().err)
    model.unlink()

    import pegasos.cli.train_stream as cli

    class Meddling(cli.Progress):
        def __call__(self, report):
            path.unlink(missing_ok=True)
            super().__call__(report)

    monkeypatch.setattr(cli, "Progress", Meddling)
    assert main(["train", "--stream", "-l", "0.001", "--iter", "20000", "--buffer-rows", "300",
                 str(path), str(model)]) == 1
    assert re.search(r"vanished while the fit was reading it", capsys.readouterr().err)
    assert not model.exists()


# --- the compiled parser against scikit-learn's loader ---------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _spelled(value, style):
    return {"repr": repr(value), "g17": f"{value:.17g}", "e": f"{value:e}", "f3": f"{value:.3f}",
            "plus": f"+{value!r}" if repr(value)[0] != "-" else repr(value), "E": f"{value:E}",
            "lead": f"0{value:.5f}" if value >= 0 else f"{value:.5f}",
            "dot": f"{value:.0f}." if abs(value) < 1e6 else repr(value),
            "point": repr(value)[1:] if repr(value).startswith("0.") else repr(value),
            "digits": f"{value:.25f}" if abs(value) < 1e3 else repr(value)}[style]


numbers = st.one_of(st.floats(-1e6, 1e6, allow_nan=False), st.floats(allow_nan=False,
                                                                      allow_infinity=False),
                    st.integers(-10**20, 10**20).map(float), st.sampled_from([0.0, -0.0, 1e-320]))
styles = st.sampled_from(["repr", "g17", "e", "f3", "plus", "E", "lead", "dot", "point",
                          "digits"])
lines = st.builds(
    lambda label, feats, qid, comment, crlf: (
        f"{label}" + (" qid:7" if qid else "")
        + "".join(f" {i}:{v}" for i, v in feats) + (" # note 1:2" if comment else "")
        + ("\r" if crlf else "")),
    st.tuples(numbers, styles).map(lambda t: _spelled(*t)),
    st.lists(st.tuples(st.integers(1, 60), st.tuples(numbers, styles).map(
        lambda t: _spelled(*t))), max_size=8).map(
        lambda fs: sorted({i: v for i, v in fs}.items())),
    st.booleans(), st.booleans(), st.booleans())


@settings(max_examples=int(os.environ.get("PEGASOS_PARSER_EXAMPLES", "300")), deadline=None,
          derandomize=True, database=None)
@given(st.lists(lines, min_size=1, max_size=12))
def test_the_compiled_parser_reads_what_scikit_learns_loader_reads_bit_for_bit(rows):
    import io

    from pegasos.stream import _parse_compiled

    text = ("\n".join(rows) + "\n").encode()
    got = _parse_compiled(text, False)
    try:
        X, y = load_svmlight_file(io.BytesIO(text), zero_based=False)
    except (ValueError, OverflowError):
        assert got is None
        return
    if not (np.all(np.isfinite(X.data)) and np.all(np.isfinite(y))):
        assert got is None  # left to the loader's path, which names the line
        return
    assert got is not None
    gX, gy = got
    np.testing.assert_array_equal(gy.view(np.int64), y.view(np.int64))  # the bits, -0.0 too
    Xs = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], gX.shape[1]))
    np.testing.assert_array_equal(gX.indptr, Xs.indptr)
    np.testing.assert_array_equal(gX.indices, Xs.indices)
    np.testing.assert_array_equal(gX.data.view(np.int64), Xs.data.view(np.int64))


@pytest.mark.parametrize("text", [b"1 1:2 1:3\n", b"1 2:1 1:1\n", b"x 1:1\n", b"1 a:1\n",
                                  b"1 1:\n", b"1 :1\n", b"1 0:1\n", b"1 1:1e\n", b"1 1:--2\n",
                                  b"1 1:2:3\n", b"1 1:nan\n", b"1 1:inf\n", b"inf 1:1\n",
                                  b"1 +2:1\n", b"1 1:0x10\n", b"1 3000000000:1\n",
                                  b"1 1:2 qid:3 4:5\n", b"1 qid:1 qid:2 1:3\n",
                                  b"1 qid:1 1:3\n"])
def test_what_the_compiled_parser_cannot_read_goes_to_the_loader(tmp_path, text):
    import io

    from pegasos.stream import _parse_compiled

    try:
        want = load_svmlight_file(io.BytesIO(text), zero_based=False)
        ok = np.all(np.isfinite(want[0].data)) and want[0].shape[1] <= 2**31
    except (ValueError, OverflowError):
        ok = False
    got = _parse_compiled(text, False)
    if got is not None:  # then the loader reads it the same
        assert ok
        _same(got[0], sp.csr_matrix(want[0])[:, :got[0].shape[1]])
    path = tmp_path / "odd.svm"
    path.write_bytes(text)
    try:
        loaded = load_svmlight(path)
    except DataFormatError as exc:
        with pytest.raises(DataFormatError) as streamed:
            list(read_blocks(str(path)))
        assert str(streamed.value) == str(exc)
    else:
        _same(_stacked(read_blocks(str(path)))[0], loaded[0])


def test_a_data_format_error_pickles_as_it_was_built():
    import pickle

    exc = pickle.loads(pickle.dumps(DataFormatError("part-2.svm", 5, "feature index 0")))
    assert (type(exc), str(exc), exc.path, exc.line, exc.reason) == (
        DataFormatError, "part-2.svm, line 5: feature index 0", "part-2.svm", 5,
        "feature index 0")


def _hard_numbers(rng, n):
    """Decimals that miss Clinger's fast path: 16 to 25 significant digits, exponents
    to +-330, the halfway points between neighbouring doubles, subnormals, the largest."""
    out = []
    from decimal import Decimal

    for x in (rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n)).tolist():
        out += [repr(x), f"{x:.17g}", f"{x:.19e}", f"{x:.24e}", f"{x:.16g}"]
        half = (Decimal(x) + Decimal(float(np.nextafter(x, np.inf)))) / 2  # exactly halfway
        out += [f"{half:.40e}", f"{half:.18e}"]
    out += ["4.9e-324", "2.2250738585072011e-308", "2.2250738585072014e-308",
            "1.7976931348623157e308", "1.7976931348623159e308", "9007199254740993",
            "9007199254740992.5", "0.1000000000000000055511151231257827", "123456789012345678901",
            "1e-400", "-0.00000000000000000000000000000000000000001", "7.2057594037927933e16"]
    return out


def test_the_compiled_conversions_round_as_python_does():
    """Clinger's fast path, Eisel-Lemire (and its refusals, left to Python's float): every
    value bit for bit float(text)'s, on numbers chosen to be hard."""
    from pegasos.stream import _parse_compiled

    numbers = [v for v in _hard_numbers(np.random.default_rng(0), 4000)
               if np.isfinite(float(v))]  # (an infinite value sends the block to the loader)
    X, y = _parse_compiled("".join(f"{v} 1:{v}\n" for v in numbers).encode(), False)
    want = np.array([float(v) for v in numbers])
    np.testing.assert_array_equal(X.indptr, np.arange(len(numbers) + 1))
    np.testing.assert_array_equal(X.data.view(np.int64), want.view(np.int64))
    np.testing.assert_array_equal(y.view(np.int64), want.view(np.int64))


def test_seventeen_digit_numbers_are_converted_in_compiled_code():
    """scikit-learn's dump_svmlight_file writes 16-17 significant digits: Eisel-Lemire
    converts them without Python's float (before it, every one went to Python)."""
    from pegasos._numba.svmlight import Parsed, parse_block

    values = np.random.default_rng(1).standard_normal(5000) * 10.0 ** np.arange(-20, 30, 0.01)
    chunk = "".join(f"1 1:{v!r}\n" for v in values.tolist()).encode()
    lines, colons = chunk.count(b"\n") + 1, chunk.count(b":")
    out = Parsed(np.empty(lines), np.empty(lines + 1, np.int64), np.empty(colons, np.int64),
                 np.empty(colons), np.empty((colons + lines, 3), np.int64))
    rows, nnz, n_slow, bad = parse_block(np.frombuffer(chunk, np.uint8), np.int64(1), out)
    assert (rows, nnz, bad) == (5000, 5000, -1)
    assert n_slow < 250  # (5,000 before Eisel-Lemire)
    from decimal import Decimal

    for _, start, stop in out.slow[:n_slow].tolist():  # left to Python: only those whose
        text = chunk[start:stop].decode()  # 128-bit product is exact, which the algorithm
        assert Decimal(text) == Decimal(float(text))  # cannot tell from a halfway point
    slow = set(out.slow[:n_slow, 0].tolist())
    fast = [i for i in range(nnz) if i not in slow]
    np.testing.assert_array_equal(out.values[fast].view(np.int64), values[fast].view(np.int64))



def test_the_parsers_python_body_reads_the_numbers_the_compiled_one_reads():
    """What a run with NUMBA_DISABLE_JIT=1 executes: the Python bodies of the number and
    index readers.  A byte minus b'0' stayed uint8 under NumPy 2's promotion there, so
    significands and exponents past 255 wrapped (0.999 read as 0.231)."""
    from pegasos._numba import svmlight

    def python(f):  # (with the JIT off, the function itself)
        return getattr(f, "py_func", f)

    for text in (b"0.999", b"123456789012", b"7e300", b"-2.5E-300", b"3"):
        buf = np.frombuffer(text, np.uint8)
        assert python(svmlight._number)(buf, 0, len(text)) == (float(text), True)
        digits = text.lstrip(b"-").split(b"e")[0].split(b"E")[0]
        man = python(svmlight._significand)(np.frombuffer(digits, np.uint8), 0, len(digits))[0]
        assert man == int(digits.replace(b".", b""))
    assert python(svmlight._index)(np.frombuffer(b"123456", np.uint8), 0, 6) == 123456


# --- issue 62: the surfaces refuse hostile input -----------------------------------


@pytest.mark.parametrize("block_bytes", [8, 1 << 20])
def test_a_streams_width_is_its_first_buffers_whatever_the_block(tmp_path, block_bytes):
    """The rows after the first buffer wider than it are an error saying to give n_features,
    whether they are in the first block or a later one."""
    path = tmp_path / "w.svm"
    path.write_text("1 1:1 3:1\n-1 2:1\n1 1:1\n-1 3:1\n1 5:1\n-1 2:1\n" * 3)
    with pytest.raises(ValueError, match=r"w.svm: a row is 5 features wide, beyond the "
                                         r"stream's n_features=3: give n_features >= 5 "
                                         r"\(pegasos train: --n-features"):
        PegasosClassifier(lam=0.1, n_iter=50, random_state=0).fit(
            SVMLightStream(str(path), buffer_rows=4, block_bytes=block_bytes))
    clf = PegasosClassifier(lam=0.1, n_iter=50, random_state=0).fit(
        SVMLightStream(str(path), buffer_rows=4, block_bytes=block_bytes, n_features=5))
    assert clf.n_features_in_ == 5


@pytest.mark.parametrize("zero, width", [(False, 3), (True, 4)])
def test_zero_based_auto_detects_as_scikit_learns_loader(tmp_path, zero, width):
    path = tmp_path / "a.svm"
    rows = ["1 1:1 3:2", "-1 2:1", "1 3:1", "-1 1:1"]
    if zero:
        rows[1] = "-1 0:1 2:1"
    path.write_text("\n".join(rows * 4) + "\n")
    X, y = load_svmlight_file(str(path), zero_based="auto")
    assert X.shape[1] == width
    for block_bytes in (7, 1 << 20):
        got = _stacked(read_blocks(str(path), zero_based="auto", block_bytes=block_bytes))
        _same(got[0], X)
        clf = PegasosClassifier(lam=0.1, n_iter=20, random_state=0).fit(
            SVMLightStream(str(path), zero_based="auto", block_bytes=block_bytes))
        assert clf.n_features_in_ == width
    convert(str(path), str(tmp_path / "a.cache"), zero_based="auto")
    _same(load_cache(tmp_path / "a.cache")[0], X)


def test_zero_based_auto_names_a_later_index_0(tmp_path):
    path = tmp_path / "a.svm"
    path.write_text("1 1:1\n-1 2:1\n1 0:1\n")
    with pytest.raises(DataFormatError, match=r"a.svm, line 3: feature index 0 .* is below 1 "
                                              r".*zero_based='auto' read the stream as "
                                              r"one-based .*give zero_based=True"):
        list(read_blocks(str(path), zero_based="auto", block_bytes=6))
    with pytest.raises(ValueError, match=r"zero_based must be True, False or 'auto'; got 'x'"):
        SVMLightStream(str(path), zero_based="x")


class _Recorded:
    """A binary file whose read requests are recorded."""

    def __init__(self, data):
        self.f, self.asked = io.BytesIO(data), []

    def read(self, n=-1):
        self.asked.append(n)
        return self.f.read(n)


@pytest.mark.parametrize("block_bytes", [2**40, 2**62])
def test_reads_are_bounded_whatever_the_block_size(block_bytes):
    from pegasos.stream import _PIECE, _chunks

    data = b"1 1:1\n" * 3_000_000  # 18 MB
    f = _Recorded(data)
    assert b"".join(_chunks(f, block_bytes)) == data
    assert max(f.asked) <= _PIECE and len(f.asked) > 2


def test_convert_and_a_stream_take_an_enormous_block_size(text_file, tmp_path):
    convert(str(text_file), str(tmp_path / "d.cache"), block_bytes=2**40)
    assert load_cache(tmp_path / "d.cache")[0].shape[0] == 4
    blocks = list(read_blocks(str(text_file), block_bytes=2**62))
    assert sum(X.shape[0] for X, _ in blocks) == 4
    assert main(["convert", "-q", "--block-mb", "1048576", str(text_file),
                 str(tmp_path / "e.cache")]) == 0


def test_convert_float32_refuses_what_float32_cannot_hold_naming_the_line(tmp_path):
    path = tmp_path / "big.svm"
    path.write_text("1 1:1\n# a comment\n\n-1 2:1e30\n1 1:2 4:1e300\n-1 1:1\n")
    cache = tmp_path / "big.cache"
    with pytest.raises(DataFormatError, match=r"big.svm, line 5: the value 1e\+300 of feature "
                                              r"4 is beyond the range of float32 .*3.40282e\+38"
                                              r".*convert it as float64"):
        convert(str(path), str(cache), dtype=np.float32, block_bytes=8)
    assert not cache.exists()
    result = subprocess.run([sys.executable, "-W", "error", "-m", "pegasos", "convert",
                             "--float32", str(path), str(cache)], capture_output=True, text=True)
    assert result.returncode == 1 and not cache.exists()
    assert re.fullmatch(r"pegasos: error: .*big.svm, line 5: the value 1e\+300 of feature 4 is "
                        r"beyond .*\n", result.stderr), result.stderr
    convert(str(path), str(cache))  # float64 holds it
    assert load_cache(cache)[0].max() == 1e300


@pytest.mark.parametrize("what", ["missing", "folder"])
def test_convert_blames_the_input_at_fault(text_file, tmp_path, what):
    bad = tmp_path / "missing.svm"
    if what == "folder":
        bad.mkdir()
    for call in (lambda: convert([str(text_file), str(bad)], str(tmp_path / "c.cache")),
                 lambda: list(read_blocks(str(bad)))):
        with pytest.raises(DataFormatError, match=r"missing.svm: " + (
                r"does not exist" if what == "missing" else r"is a folder, not a data file")):
            call()
    result = subprocess.run([sys.executable, "-m", "pegasos", "convert", str(text_file),
                             str(bad), str(tmp_path / "c.cache")], capture_output=True, text=True)
    assert result.returncode == 1 and "c.cache" not in result.stderr
    assert re.fullmatch(r"pegasos: error: .*missing.svm: (does not exist|is a folder, not a "
                        r"data file)\n", result.stderr), result.stderr


def test_a_streams_own_cache_of_version_1_is_written_again(tmp_path):
    path, _, _ = _stream_file(tmp_path)
    cache = tmp_path / "s.cache"
    fit = PegasosClassifier(lam=0.01, n_iter=2000, random_state=0).fit
    fit(SVMLightStream(str(path), buffer_rows=100, cache=cache))
    _header_edit(cache, lambda h: h.update(version=1))
    with pytest.raises(CacheError, match=r"has cache version 1"):
        load_cache(cache)
    fit(SVMLightStream(str(path), buffer_rows=100, cache=cache))
    assert load_cache(cache)[0].shape[0] == 600


def test_a_streams_fresh_cache_has_its_header_read_once(text_file, tmp_path, monkeypatch):
    """Issue 60: a stream's cache that holds its files is opened with its header read and
    parsed once (the check that it is of these files runs on the header load_cache
    reads), and so is a stream of a cache file."""
    from pegasos import _cache

    cache = tmp_path / "d.cache"
    convert(str(text_file), str(cache))
    calls = []
    read = _cache._read_header
    monkeypatch.setattr(_cache, "_read_header", lambda *a: calls.append(a[0]) or read(*a))
    for stream in (SVMLightStream(text_file, cache=cache), SVMLightStream(cache)):
        calls.clear()
        source = stream.rows()
        assert source.cached is not None and calls == [str(cache)]
        source.close()


def test_a_round_is_drawn_alike_from_files_and_from_blocks(tmp_path):
    """Issue 60: RowSource hands the driver a round of rows whatever holds them: the rows
    of a file and the same rows as blocks give the same rounds, the buffer's refills and
    the passes' ends included."""
    from sklearn.datasets import dump_svmlight_file

    from pegasos import BlockStream

    rng = np.random.default_rng(0)
    X = rng.integers(-3, 4, size=(300, 4)).astype(np.float64)
    X[:, 3] = 1.0  # (every row as wide as the file)
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    path = tmp_path / "d.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    sources = [SVMLightStream(path, buffer_rows=64, block_bytes=500).rows(),
               BlockStream.from_arrays(sp.csr_matrix(X), y, block_rows=37,
                                       buffer_rows=64).rows()]
    for source in sources:
        assert source.fill()[0] == 4
        source.set_width(4)
    rngs = [np.random.default_rng(1), np.random.default_rng(1)]
    for _ in range(60):  # 60 rounds of 8 draws, some repeated: more than a pass refilled
        (A, a, i), (B, b, j) = (s.draw_round(r, 2, 10**6) for s, r in zip(sources, rngs))
        assert A.shape == B.shape == (64, 4) and (A != B).nnz == 0
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(i, j)
        assert i.shape == (8,)
    assert sources[0].passes == sources[1].passes >= 1
    assert sources[0].rows_read == sources[1].rows_read > 300
