"""The last hostile inputs, class by class: header fields of the wrong type, a member's
``.npy`` header that does not parse, fits whose arithmetic overflows, and allocations a
small input cannot justify. Each is a message, through the API and the command line."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from pegasos import (
    DualSVC,
    KernelPegasosClassifier,
    KernelPerceptron,
    PegasosClassifier,
    SBPClassifier,
    load_model,
    save_model,
)
from pegasos._memory import available_memory, check_memory, format_bytes
from pegasos.cli import main
from pegasos.model_io import ModelFileError

from .fuzz_inputs import _npy, _write
from .test_stream import restamp

ROOT = Path(__file__).resolve().parents[1]


def _data(n=40, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return X, np.where(X[:, 0] + 0.3 * rng.standard_normal(n) > 0, 1, -1)


def _estimators():
    return [PegasosClassifier(n_iter=30, random_state=0),
            KernelPegasosClassifier(n_iter=30, random_state=0),
            SBPClassifier(0.2, n_iter=20, random_state=0),
            KernelPerceptron(n_epochs=1, random_state=0),
            DualSVC()]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """Every estimator's model file: {name: (members without the header, header, X)}."""
    X, y = _data()
    out = {}
    for est in _estimators():
        path = tmp_path_factory.mktemp("m") / "m.model"
        save_model(est.fit(X, y), path)
        with np.load(path) as archive:
            members = {k: archive[k] for k in archive.files}
        out[type(est).__name__] = (members, json.loads(str(members.pop("__meta__"))), X)
    return out


def _write_model(path, members, meta):
    entries = [(k + ".npy", _npy(v)) for k, v in members.items()]
    _write(path, entries + [("__meta__.npy", _npy(np.asarray(json.dumps(meta))))])


# --- 1. a header field of the wrong type ---------------------------------------------

BAD_CLASS_WEIGHTS = [
    ({"__dict_items__": [[[1], 2.0]]}, r"header parameter 'class_weight' is .*a dict of them"),
    ({"__dict_items__": [1, 2]}, r"header parameter 'class_weight' is"),
    ({"__dict_items__": "ab"}, r"header parameter 'class_weight' is"),
    ({"__dict_items__": [[1, 2.0], [1, 3.0]]}, r"with each key once"),
    ({"1": 2.0}, r"header parameter 'class_weight' is \{'1': 2.0\}"),
    ([1, 2], r"header parameter 'class_weight' is \[1, 2\]"),
    ("heavy", r"'class_weight' parameter of \w+ must be"),
    (5, r"'class_weight' parameter of \w+ must be"),
    ({"__dict_items__": [[1, -1.0]]}, r"class_weight must map each label to a finite "
                                       r"non-negative number; got -1.0 for label 1"),
    ({"__dict_items__": [[1, "x"]]}, r"got 'x' for label 1"),
    ({"__dict_items__": [[1, True]]}, r"got True for label 1"),
]


@pytest.mark.parametrize("value, match", BAD_CLASS_WEIGHTS)
def test_a_malformed_class_weight_is_refused_by_name_for_every_estimator(saved, tmp_path,
                                                                           value, match):
    for name, (members, meta, _) in saved.items():
        meta = json.loads(json.dumps(meta))
        meta["params"]["class_weight"] = value
        _write_model(tmp_path / "bad.model", members, meta)
        with pytest.raises(ModelFileError, match=match):
            load_model(tmp_path / "bad.model")


@pytest.mark.parametrize("swap", [[1], {"a": [1]}, {"__dict_items__": [[None, [2]]]}, [[]]])
def test_every_header_parameter_of_another_type_is_refused_by_name(saved, tmp_path, swap):
    for name, (members, meta, _) in saved.items():
        for key in meta["params"]:
            edited = json.loads(json.dumps(meta))
            edited["params"][key] = swap
            _write_model(tmp_path / "bad.model", members, edited)
            with pytest.raises(ModelFileError, match=f"header parameter '{key}' is"):
                load_model(tmp_path / "bad.model")


def test_parameters_that_exclude_each_other_are_refused_on_loading(saved, tmp_path):
    members, meta, _ = saved["SBPClassifier"]
    meta = json.loads(json.dumps(meta))
    meta["params"].update(nu=0.2, C=1.0)
    _write_model(tmp_path / "bad.model", members, meta)
    with pytest.raises(ModelFileError, match=r"Give either nu or C, not both"):
        load_model(tmp_path / "bad.model")


@pytest.mark.parametrize("field, value", [("pegasos_version", [1]), ("dropped_params", "x"),
                                          ("dropped_params", ["not_a_parameter"]),
                                          ("dropped_params", [[1]])])
def test_the_other_header_fields_are_typed(saved, tmp_path, field, value):
    members, meta, _ = saved["PegasosClassifier"]
    meta = json.loads(json.dumps(meta))
    meta[field] = value
    _write_model(tmp_path / "bad.model", members, meta)
    with pytest.raises(ModelFileError, match=f"header field '{field}' is"):
        load_model(tmp_path / "bad.model")


def test_the_cli_refuses_a_malformed_class_weight_in_one_line(saved, tmp_path, capsys):
    members, meta, X = saved["KernelPegasosClassifier"]
    meta = json.loads(json.dumps(meta))
    meta["params"]["class_weight"] = {"__dict_items__": [[[1], 2.0]]}
    _write_model(tmp_path / "bad.model", members, meta)
    data = tmp_path / "x.svm"
    data.write_text("1 1:0.5 2:1\n-1 3:1\n")
    for argv in (["predict", str(data), str(tmp_path / "bad.model"), str(tmp_path / "out")],
                 ["info", str(tmp_path / "bad.model")]):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "header parameter 'class_weight' is" in err, err


# --- 2. a member's .npy header that does not parse ---------------------------------


def test_an_unclosed_bracket_in_a_npy_header_is_a_model_file_error(saved, tmp_path):
    members, meta, X = saved["KernelPegasosClassifier"]
    entries = [(k + ".npy", _npy(v)) for k, v in members.items()]
    entries.append(("__meta__.npy", _npy(np.asarray(json.dumps(meta)))))
    for i, (name, data) in enumerate(entries):
        flipped = bytearray(data)
        flipped[flipped.index(b")", flipped.index(b"'shape': ("))] ^= 0x08  # ')' is now '!'
        _write(tmp_path / "flipped.model", entries[:i] + [(name, bytes(flipped))] + entries[i + 1:])
        with pytest.raises(ModelFileError, match=f"array '{name[:-4]}' has a malformed .npy "
                                                 r"header \(TokenError: .*EOF in multi-line"):
            load_model(tmp_path / "flipped.model")


# --- 3. fits whose arithmetic overflows: refused, never a model with NaN or inf ---------


def test_a_budget_nu_that_overflows_is_refused(tmp_path, capsys):
    X, y = _data()
    with pytest.raises(ValueError, match=r"nu=1e\+308 is too large for these weights"):
        SBPClassifier(1e308, n_iter=20).fit(X, y)
    with pytest.raises(ValueError, match=r"nu=1.58\de\+153 is too large for these weights"):
        SBPClassifier(C=1e-308, n_iter=20).fit(X, y, sample_weight=np.full(len(y), 1e300))
    data = tmp_path / "x.svm"
    data.write_text("".join(f"{int(c)} 1:{a:.3f} 2:{b:.3f}\n" for (a, b, *_), c in zip(X, y)))
    model = tmp_path / "m.model"
    assert main(["train", "-q", "-s", "sbp", "-n", "1e308", str(data), str(model)]) == 1
    assert "nu=1e+308 is too large" in capsys.readouterr().err
    assert not model.exists()


def test_weights_whose_sum_overflows_are_refused():
    X, y = _data()
    for est in _estimators():
        with pytest.raises(ValueError, match=r"sum to more than float64 holds"):
            est.fit(X, y, sample_weight=np.full(len(y), 1e307))


@pytest.mark.parametrize("scaling", [1e308, 5e-324])
def test_an_intercept_scaling_whose_square_or_reciprocal_overflows_is_refused(scaling):
    X, y = _data()
    for est in (PegasosClassifier(n_iter=5), KernelPegasosClassifier(n_iter=5)):
        with pytest.raises(ValueError, match=r"'intercept_scaling' parameter .* range "
                                             r"\[1e-150, 1e\+150\]"):
            est.set_params(fit_intercept=True, intercept_scaling=scaling).fit(X, y)


def test_no_fit_returns_a_model_with_non_finite_fitted_values(monkeypatch):
    from pegasos import _probability

    X, y = _data()
    real = _probability.check_finite_fit

    def spoil(est):  # what an overflow that no earlier check caught would leave
        if hasattr(est, "intercept_"):
            est.intercept_ = est.intercept_ * np.inf
        real(est)

    monkeypatch.setattr(_probability, "check_finite_fit", spoil)
    for est in _estimators():
        with pytest.raises(ValueError, match=r"the fitted intercept_ holds NaN or infinite"):
            est.fit(X, y)


def test_duality_gap_refuses_labels_the_model_never_saw():
    from pegasos.dask_backend import DaskPegasosClassifier

    X, y = _data()
    for est in (PegasosClassifier(n_iter=30), DaskPegasosClassifier(n_iter=30),
                KernelPegasosClassifier(n_iter=30)):
        est.fit(X, y)
        with pytest.raises(ValueError, match=r"y holds labels the model was not fitted on: "
                                             r"\[5, 7\]; its classes are \[-1, 1\]"):
            est.duality_gap(X, np.where(y > 0, 5, 7))


# --- 4. allocations a small input cannot justify ------------------------------------


def test_weights_wider_than_memory_are_refused_before_allocating():
    rng = np.random.default_rng(0)
    width = 3 * 10**9
    X = sp.csr_matrix((np.ones(40), rng.integers(0, width, 40), np.arange(41)),
                      shape=(40, width))
    y = np.arange(40) % 2
    with pytest.raises(ValueError, match=r"PegasosClassifier's 1 binary problem on 40 rows and "
                                         r"3000000000 features .* need 67.1 GiB, more than the "
                                         r".* of memory available to this process"):
        PegasosClassifier(n_iter=5).fit(X, y)


def test_a_label_per_row_is_refused_before_allocating(tmp_path, capsys):
    n = 70_000  # 70,000 classes: every one-vs-rest array holds n x n values (36 GiB and more)
    X = np.arange(n, dtype=np.float64)[:, None] / n
    y = np.arange(n)
    cases = [(PegasosClassifier(n_iter=5), r"PegasosClassifier's 70000 binary problems"),
             (KernelPegasosClassifier(n_iter=5), r"70000 one-vs-rest problems on 70000 rows"),
             (SBPClassifier(0.1, n_iter=5), r"SBPClassifier's 70000 one-vs-rest problems"),
             (DualSVC(multi_class="ovr"), r"DualSVC's 70000 one-vs-rest problems"),
             (DualSVC(), r"DualSVC's 2449965000 one-vs-one problems of 70000 classes")]
    for est, match in cases:
        with pytest.raises(ValueError, match=match + r".* need [\d.]+ [GT]iB, more than"):
            est.fit(X, y)
    data = tmp_path / "labels.svm"
    data.write_text("".join(f"{i} 1:1\n" for i in range(n)))
    assert data.stat().st_size < 2**20
    for solver in ("pegasos", "kernel-pegasos"):
        assert main(["train", "-q", "-s", solver, str(data), str(tmp_path / "m.model")]) == 1
        err = capsys.readouterr().err  # the error, after scikit-learn's warning of many classes
        last = err.strip().splitlines()[-1]
        assert last.startswith("pegasos: error: ") and "more than the" in last, err
        assert "Traceback" not in err


def test_a_precomputed_model_claiming_a_huge_width_predicts_without_allocating_it(tmp_path):
    X, y = _data()
    K = X @ X.T
    for est in (KernelPegasosClassifier(kernel="precomputed", n_iter=30, random_state=0),
                DualSVC(kernel="precomputed")):
        est.fit(K, y)
        path = tmp_path / "p.model"
        save_model(est, path)
        with np.load(path) as archive:
            members = {k: archive[k] for k in archive.files}
        meta = json.loads(str(members.pop("__meta__")))
        meta["attributes"]["n_features_in_"] = 10**18
        _write_model(path, members, meta)
        wide = load_model(path)
        Z = sp.csr_matrix(K)
        Z = sp.csr_matrix((Z.data, Z.indices, Z.indptr), shape=(K.shape[0], 10**18))
        np.testing.assert_allclose(wide.decision_function(Z), est.decision_function(K),
                                   rtol=1e-12, atol=1e-12)


def test_the_memory_check_reads_an_address_space_limit():
    code = ("import resource; from pegasos._memory import available_memory; "
            "resource.setrlimit(resource.RLIMIT_AS, (6 * 2**30, resource.RLIM_INFINITY)); "
            "print(available_memory())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    assert 0 < int(done.stdout) < 6 * 2**30


def test_check_memory_names_both_sizes():
    assert available_memory() > 0
    with pytest.raises(ValueError, match=r"^the test's arrays need 1024 TiB, more than the "
                                         r"[\d.]+ [GMT]iB of memory available"):
        check_memory(2**50, "the test's arrays")
    check_memory(1, "one byte")
    assert format_bytes(2**40) == "1 TiB"


# --- what a hostile sweep found next ----------------------------------------------------


def test_a_corrupt_gzip_file_is_a_data_format_error(tmp_path, capsys):
    import gzip

    from pegasos import load_svmlight, read_blocks
    from pegasos.datasets import DataFormatError

    data = bytearray(gzip.compress(b"1 1:1\n-1 1:2\n" * 100))
    data[30] ^= 255  # inside the deflate stream: zlib.error, which is not an OSError
    path = tmp_path / "c.svm.gz"
    path.write_bytes(bytes(data))
    for call in (lambda: load_svmlight(path), lambda: list(read_blocks(str(path)))):
        with pytest.raises(DataFormatError, match=r"c.svm.gz: cannot be read: Error -3"):
            call()
    assert main(["train", "-q", str(path), str(tmp_path / "m.model")]) == 1
    assert capsys.readouterr().err.startswith("pegasos: error: ")


def test_the_command_line_refuses_many_one_vs_one_pairs_before_listing_them(tmp_path, capsys):
    path = tmp_path / "labels.svm"
    path.write_text("".join(f"{i} 1:{i % 7}\n" for i in range(20_000)))
    assert main(["train", "-q", "-s", "svc", str(path), str(tmp_path / "m.model")]) == 1
    assert "199990000 one-vs-one problems" in capsys.readouterr().err
    from pegasos.cli.train import _Pairs

    pairs = _Pairs(np.array([1, 2, 3, 4]))
    assert [pairs[p] for p in range(len(pairs))] == list(pairs) == [
        (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)]


def test_liblinear_files_that_overflow_or_have_many_classes(tmp_path):
    import time

    from pegasos.interchange import LiblinearFormatError, from_liblinear

    k = 20_000
    many = tmp_path / "many.txt"
    many.write_text(f"solver_type L2R_LR\nnr_class {k}\nlabel {' '.join(map(str, range(k)))}\n"
                    f"nr_feature 1\nbias -1\nw\n{' '.join(['0'] * k)}\n")
    tic = time.perf_counter()
    assert from_liblinear(many).classes_.shape == (k,)
    assert time.perf_counter() - tic < 10  # was quadratic: 8 s for these 20,000 classes
    for header, weights, match in [
            ("MCSVM_CS\nnr_class 2", "1e308 -1e308", r"the weights overflow float64"),
            ("L2R_LR\nnr_class 2", "1e308\n1e308", r"bias '1e200' is neither negative"),
            ("L2R_LR\nnr_class 2", "1e308", r"state_.scal holds NaN or infinite")]:
        bias = "1e200" if "'1e200'" in match else "-1"
        path = tmp_path / "bad.txt"
        path.write_text(f"solver_type {header}\nlabel 1 -1\nnr_feature 1\nbias {bias}\nw\n"
                        f"{weights}\n")
        with pytest.raises(LiblinearFormatError, match=match):
            from_liblinear(path)


@pytest.mark.parametrize("edit, match", [
    (lambda meta, m: m.update(classes_=np.array([-np.inf, np.inf])),
     r"classes_ holds NaN or infinite labels"),
    (lambda meta, m: meta["attributes"].update(lam_=5e-324),
     r"attribute 'lam_' is 5e-324, whose reciprocal overflows"),
    (lambda meta, m: meta["params"].update(intercept_scaling=5e-324),
     r"'intercept_scaling' parameter .* \[1e-150, 1e\+150\]"),
])
def test_model_headers_of_extreme_values_are_refused(saved, tmp_path, edit, match):
    members, meta, _ = saved["PegasosClassifier"]
    members, meta = dict(members), json.loads(json.dumps(meta))
    edit(meta, members)
    meta["arrays"] = {k: {"dtype": v.dtype.str, "shape": list(v.shape)} for k, v in members.items()}
    _write_model(tmp_path / "bad.model", members, meta)
    with pytest.raises(ModelFileError, match=match):
        load_model(tmp_path / "bad.model")


def test_info_describes_a_header_whose_c_and_lambda_give_no_finite_n(saved, tmp_path, capsys):
    members, meta, _ = saved["PegasosClassifier"]
    meta = json.loads(json.dumps(meta))
    meta["params"].update(C=5e-324, lam=None)
    meta["attributes"]["lam_"] = 1e-10
    _write_model(tmp_path / "c.model", members, meta)
    assert main(["info", str(tmp_path / "c.model")]) == 0
    assert "for n = inf training samples" in capsys.readouterr().out


def test_certificates_that_overflow_are_refused_not_returned():
    from pegasos import duality_gap

    X, y = _data()
    for call in (lambda: duality_gap(X, y, np.zeros(4), 0.0, lam=5e-324),
                 lambda: duality_gap(X * 1e300, y, np.ones(4), 0.0, lam=0.1),
                 lambda: duality_gap(X, y, np.full(4, 1e308), 0.0, lam=0.1)):
        with pytest.raises(ValueError, match=r"The certificate overflows float64"):
            call()
    clf = PegasosClassifier(n_iter=30, random_state=0).fit(X, y)
    clf.state_.v[:] = 1e308
    with pytest.raises(ValueError, match=r"The certificate overflows float64"):
        clf.duality_gap(X, y)


def test_dual_svc_stops_at_the_rounding_of_its_gradients_below_any_tol():
    X, y = _data()
    clf = DualSVC(tol=1e-300, max_iter=20_000).fit(sp.csr_matrix(X), y)  # (a hang, capped)
    assert clf.fit_status_ == 0 and clf.n_iter_.max() < 10_000
    np.testing.assert_array_equal(clf.predict(X), DualSVC(tol=1e-12).fit(X, y).predict(X))


def _edited_cache(tmp_path, text, section, skip, value):
    """A cache of ``text`` with ``value``'s bytes written into ``section``, ``skip`` bytes in."""
    from pegasos.stream import convert

    path, cache = tmp_path / "d.svm", tmp_path / "d.cache"
    path.write_text(text)
    convert(str(path), str(cache))
    data = bytearray(cache.read_bytes())
    start = len(b"PEGASOS-CACHE\n") + 8
    header = json.loads(data[start:start + int.from_bytes(data[start - 8:start], "little")])
    at = header["offsets"][section] + skip
    data[at:at + value.nbytes] = value.tobytes()
    cache.write_bytes(bytes(data))
    restamp(cache)  # (the checksums made anew: the checks behind them are what refuse it)
    return cache


def test_a_cache_with_a_nan_label_is_refused(tmp_path):
    from pegasos.stream import CacheError, load_cache

    cache = _edited_cache(tmp_path, "1 1:1\n-1 2:1\n", "y", 0, np.float64("nan"))
    with pytest.raises(CacheError, match=r"row 1: the label nan is not finite"):
        load_cache(cache)


@pytest.mark.parametrize("bias, rows, intercept", [("-2", "0.5", 0.0), ("0", "0.5\n7", 0.0),
                                                   ("2", "0.5\n3", 6.0)])
def test_liblinears_negative_and_zero_biases_read_as_liblinear_reads_them(tmp_path, bias, rows,
                                                                          intercept):
    from pegasos.interchange import from_liblinear

    path = tmp_path / "m.txt"
    path.write_text(f"solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 2\nlabel 1 -1\nnr_feature 1\n"
                    f"bias {bias}\nw\n{rows}\n")
    clf = from_liblinear(path)
    assert clf.coef_.tolist() == [[0.5]] and clf.intercept_.tolist() == [intercept]


def test_a_cache_of_decreasing_offsets_is_refused_before_anything_reads_it(tmp_path):
    from pegasos.stream import CacheError, load_cache

    # the second of the int32 offsets
    cache = _edited_cache(tmp_path, "1 1:1 2:1\n-1 2:1\n1 3:1\n", "indptr", 4,
                          np.int32(50_000_000))
    with pytest.raises(CacheError, match=r"is corrupt: X is a malformed sparse CSR matrix"):
        load_cache(cache)
    model = tmp_path / "m.model"
    save_model(PegasosClassifier(n_iter=5).fit(np.eye(2), [0, 1]), model)
    assert main(["predict", str(cache), str(model), str(tmp_path / "p")]) == 1
