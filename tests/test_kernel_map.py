"""NystroemPegasosClassifier: Nystroem's map on the blocked engine, fed to linear Pegasos."""

import os
import re

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits
from sklearn.kernel_approximation import Nystroem
from sklearn.utils.estimator_checks import parametrize_with_checks

from pegasos import BlockStream, NystroemPegasosClassifier
from pegasos.stream import SVMLightStream, convert

from .naive import nystroem_map, pegasos


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[:600] / 16.0, y[:600]


KERNELS = [("rbf", {"gamma": 0.05}), ("poly", {"gamma": 0.1, "degree": 2, "coef0": 1.0}),
           ("linear", {}), ("sigmoid", {"gamma": 0.01, "coef0": 0.5})]


@pytest.mark.parametrize("kernel, params", KERNELS)
@pytest.mark.parametrize("sparse", [False, True])
def test_the_map_is_scikit_learns_nystroem_on_the_same_landmarks(digits, kernel, params, sparse):
    X, y = digits
    Xin = sp.csr_matrix(X) if sparse else X
    clf = NystroemPegasosClassifier(n_components=40, kernel=kernel, lam=1e-3, n_iter=10,
                                    block_rows=128, random_state=3, **params).fit(Xin, y)
    ref = Nystroem(kernel=kernel, n_components=40, random_state=3, **params).fit(X)
    np.testing.assert_array_equal(clf.component_indices_, ref.component_indices_)
    np.testing.assert_allclose(clf.components_, ref.components_, rtol=0, atol=0)
    np.testing.assert_allclose(clf.transform(Xin), ref.transform(X), rtol=0, atol=1e-6)
    np.testing.assert_allclose(clf.transform(Xin), nystroem_map(X, clf.components_, kernel,
                                                                **params), rtol=0, atol=1e-6)


def test_kmeans_landmarks_and_float32_rows(digits):
    X, y = digits
    clf = NystroemPegasosClassifier(n_components=30, landmarks="kmeans", gamma=0.02, lam=1e-3,
                                    random_state=0).fit(X, y)
    assert not hasattr(clf, "component_indices_")
    assert not any(np.all(clf.components_[i] == X, axis=1).any() for i in range(30))
    np.testing.assert_allclose(clf.transform(X), nystroem_map(X, clf.components_, "rbf",
                                                              gamma=0.02), atol=1e-6)
    X32 = X.astype(np.float32)
    clf32 = NystroemPegasosClassifier(n_components=30, gamma=0.02, lam=1e-3,
                                      random_state=0).fit(X32, y)
    F = clf32.transform(X32)
    assert F.dtype == np.float32 and clf32.components_.dtype == np.float32
    np.testing.assert_allclose(F, nystroem_map(X32, clf32.components_, "rbf", gamma=0.02),
                               atol=1e-4)


def test_every_class_shares_the_map_and_the_model_predicts(digits):
    X, y = digits
    clf = NystroemPegasosClassifier(n_components=100, gamma=0.02, lam=1e-4, n_iter=20_000,
                                    random_state=0).fit(X, y)
    assert clf.components_.shape == (100, 64) and clf.coef_.shape == (10, 100)
    assert clf.score(X, y) > 0.95
    scores = clf.transform(X) @ clf.coef_.T + clf.intercept_
    np.testing.assert_allclose(clf.decision_function(X), scores, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[np.argmax(scores, axis=1)])


def test_threads_for_the_classes_give_the_same_model(digits):
    X, y = digits
    params = dict(n_components=60, gamma=0.02, lam=1e-4, n_iter=5_000, random_state=0)
    one = NystroemPegasosClassifier(**params).fit(X, y)
    two = NystroemPegasosClassifier(n_jobs=2, **params).fit(X, y)
    np.testing.assert_array_equal(one.coef_, two.coef_)
    np.testing.assert_array_equal(one.intercept_, two.intercept_)


def test_a_stream_and_the_same_rows_in_memory_give_the_same_model(digits, tmp_path):
    X, y = digits
    params = dict(n_components=50, gamma=0.03, lam=1e-3, n_iter=3000, block_rows=200,
                  random_state=5)
    whole = NystroemPegasosClassifier(**params).fit(X, y)
    for stream in (BlockStream.from_arrays(X, y, block_rows=77),
                   BlockStream.from_arrays((X * 16).astype(np.uint8), y, block_rows=200,
                                           scale=1 / 16)):
        streamed = NystroemPegasosClassifier(**params).fit(stream)
        np.testing.assert_array_equal(streamed.components_, whole.components_)
        np.testing.assert_allclose(streamed.coef_, whole.coef_, rtol=1e-9,
                                   atol=1e-12)
        assert streamed.n_rows_read_ == 600
    same_blocks = NystroemPegasosClassifier(**params).fit(
        BlockStream.from_arrays(X, y, block_rows=200))
    np.testing.assert_array_equal(same_blocks.coef_, whole.coef_)
    # LIBSVM text and its cache file: the model of the rows they hold
    path = tmp_path / "d.svm"
    from sklearn.datasets import dump_svmlight_file

    dump_svmlight_file(X, y, str(path))
    Xs, ys = sp.csr_matrix(X), y.astype(float)
    in_memory = NystroemPegasosClassifier(**params).fit(Xs, ys)
    text = NystroemPegasosClassifier(**params).fit(SVMLightStream(str(path), n_features=64))
    convert(str(path), str(tmp_path / "d.cache"))
    cached = NystroemPegasosClassifier(**params).fit(SVMLightStream(str(tmp_path / "d.cache")))
    for got in (text, cached):
        np.testing.assert_allclose(got.coef_, in_memory.coef_, rtol=1e-9,
                                   atol=1e-12)


def test_a_stream_larger_than_its_buffer_trains_with_a_holdout(digits):
    X, y = load_digits(return_X_y=True)
    clf = NystroemPegasosClassifier(n_components=100, gamma=0.02, lam=1e-4, n_iter=8000,
                                    random_state=0)
    clf.fit(BlockStream.from_arrays(X.astype(np.uint8), y, block_rows=100, scale=1 / 16,
                                    dtype=np.float32, buffer_rows=400, holdout=200,
                                    n_iter_no_change=40))
    assert clf.components_.dtype == np.float32
    assert clf.holdout_errors_[-1, 1] < 0.15
    assert clf.score(X[200:] / 16, y[200:]) > 0.9


def test_bad_input_is_named(digits):
    X, y = digits
    with pytest.raises(ValueError, match=r"n_components=601 is more than the 600 training rows"):
        NystroemPegasosClassifier(n_components=601, lam=1e-3).fit(X, y)
    with pytest.raises(ValueError, match=r"n_components=300 is more than the 200 rows of the "
                                         r"block stream's first buffer"):
        NystroemPegasosClassifier(n_components=300, lam=1e-3, n_iter=10).fit(
            BlockStream.from_arrays(X, y, buffer_rows=200))
    for bad in (0, -3):
        with pytest.raises(ValueError, match=r"'n_components' parameter .* must be an int in "
                                             r"the range \[1, inf\)"):
            NystroemPegasosClassifier(n_components=bad).fit(X, y)
    with pytest.raises(ValueError, match=r"'landmarks' parameter"):
        NystroemPegasosClassifier(n_components=5, landmarks="random").fit(X, y)
    with pytest.raises(ValueError, match="A stream fit needs lam"):
        NystroemPegasosClassifier(n_components=5, C=1.0).fit(BlockStream.from_arrays(X, y))
    with pytest.raises(ValueError, match="A stream fit takes no y"):
        NystroemPegasosClassifier(n_components=5, lam=1.0).fit(BlockStream.from_arrays(X, y), y)
    y2 = y.copy()
    y2[550] = 11
    with pytest.raises(ValueError, match=r"the label 11, which is not among its classes"):
        NystroemPegasosClassifier(n_components=5, lam=1e-2, n_iter=5000).fit(
            BlockStream.from_arrays(X, y2, block_rows=50, buffer_rows=100))
    wide = [(sp.csr_matrix(X[:300]), y[:300]), (sp.csr_matrix(np.hstack([X[300:], X[300:]])),
                                                 y[300:])]
    with pytest.raises(ValueError, match=r"is 128 features wide, beyond .* give the stream "
                                         "n_features"):
        NystroemPegasosClassifier(n_components=5, lam=1e-2, n_iter=5000).fit(
            BlockStream(wide, buffer_rows=100))
    clf = NystroemPegasosClassifier(n_components=5, lam=1e-2).fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but NystroemPegasosClassifier is "
                                         "expecting 64"):
        clf.predict(X[:, :3])


@pytest.mark.parametrize("solver", ["map", "landmark"])
def test_held_out_rows_the_map_cannot_measure_are_refused(digits, solver):
    X, y = digits
    params = dict(n_components=20, lam=1e-2, n_iter=500, solver=solver, random_state=0)
    for held, match in (((X[:50, :40], y[:50]), r"the held-out rows are 40 features wide, "
                                                r"the stream's 64: give held-out rows as wide"),
                        ((np.hstack([X[:50], X[:50]]), y[:50]), "are 128 features wide"),
                        ((X[:50], y[:50] + 20), r"the held-out rows have the label 2\d, which "
                                                r"is not among the stream's classes")):
        with pytest.raises(ValueError, match=match):
            NystroemPegasosClassifier(**params).fit(
                BlockStream.from_arrays(X, y, buffer_rows=300, holdout=held))
    clf = NystroemPegasosClassifier(**params).fit(X, y)
    with pytest.raises(ValueError, match="rows 40 features wide cannot be mapped on landmarks "
                                         "64 features wide"):
        clf._map(np.ascontiguousarray(X[:5, :40]), np.float64)  # (never to the engine)


def test_the_maps_memory_is_checked_before_it_is_made(monkeypatch):
    from pegasos import _memory

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(3000, 3)), np.arange(3000) % 2
    monkeypatch.setattr(_memory, "available_memory", lambda: 20 << 20)
    for landmarks in ("uniform", "kmeans"):
        with pytest.raises(ValueError, match=r"the map of 3000 landmarks \(3000 x 3000 float64 "
                                             r"matrices.*give a smaller n_components\) need "
                                             r".* MiB, more than the 20 MiB"):
            NystroemPegasosClassifier(n_components=3000, landmarks=landmarks,
                                      lam=1e-2).fit(X, y)
    with pytest.raises(ValueError, match=r"the shuffle buffer of 100000 mapped rows .* need"):
        NystroemPegasosClassifier(n_components=100, lam=1e-2, n_iter=10).fit(
            BlockStream.from_arrays(X, y, buffer_rows=100_000))
    clf = NystroemPegasosClassifier(n_components=100, lam=1e-2).fit(X[:300], y[:300])
    with pytest.raises(ValueError, match=r"the 100000 mapped rows \(100 float64 values each; "
                                         r"transform fewer rows at a time\) need"):
        clf.transform(np.zeros((100_000, 3)))
    assert clf.predict(np.zeros((100_000, 3))).shape == (100_000,)  # (a block at a time)


def test_magnitudes_that_overflow_the_kernel_are_refused(digits):
    X, y = digits
    with pytest.raises(ValueError, match=r"The landmarks' kernel values overflow float64 "
                                         r"\(linear kernel, .*\): scale the input"):
        NystroemPegasosClassifier(n_components=20, kernel="linear", lam=1e-2).fit(X * 1e160, y)
    with pytest.raises(ValueError, match=r"overflow float64 \(poly kernel.* or give a smaller "
                                         r"gamma"):
        NystroemPegasosClassifier(n_components=20, kernel="poly", gamma=1.0,
                                  lam=1e-2).fit(X * 1e110, y)
    clf = NystroemPegasosClassifier(n_components=20, kernel="linear", lam=1e-2).fit(X, y)
    with pytest.raises(ValueError, match="Non-finite decision values"):
        clf.predict(X * 1e308)
    with pytest.raises(ValueError, match="Non-finite mapped values"):
        clf.transform(X * 1e308)
    with pytest.raises(ValueError, match=r"the rows of the block stream's first buffer "
                                         r"\(buffer_rows=65536\) have no features"):
        NystroemPegasosClassifier(n_components=5, gamma="auto", lam=1e-2, n_iter=10).fit(
            BlockStream([(sp.csr_matrix((100, 0)), y[:100])]))


def test_a_failed_refit_leaves_no_half_model(digits):
    from sklearn.exceptions import NotFittedError

    X, y = digits

    def stop(report):
        raise KeyboardInterrupt

    for solver in ("map", "landmark"):
        clf = NystroemPegasosClassifier(n_components=20, lam=1e-2, solver=solver,
                                        random_state=0).fit(X, y)
        with pytest.raises(KeyboardInterrupt):
            clf.set_params(callback=stop, random_state=1).fit(X * 3, y)
        with pytest.raises(NotFittedError):  # not the new landmarks with the old weights
            clf.predict(X)


def test_n_jobs_zero_is_refused_and_threads_are_at_most_the_problems(digits):
    import threading

    X, y = digits
    with pytest.raises(ValueError, match=r"'n_jobs' parameter of NystroemPegasosClassifier must "
                                         r"be an int in the range \(-inf, -1\], an int in the "
                                         r"range \[1, inf\) or None\. Got 0"):
        NystroemPegasosClassifier(n_components=10, n_jobs=0).fit(X, y)
    threads, before = [], threading.active_count()
    params = dict(n_components=10, lam=1e-2, n_iter=100, random_state=0)
    clf = NystroemPegasosClassifier(**params, n_jobs=1000,
                                    callback=lambda r: threads.append(threading.active_count()))
    ref = NystroemPegasosClassifier(**params).fit(X, y)
    np.testing.assert_array_equal(clf.fit(X, y).coef_, ref.coef_)
    assert max(threads) < before + 50  # (10 problems: about 10 threads, not 1,000)


@pytest.mark.parametrize("n_classes, average, dtype", [(2, 0.5, np.float64), (3, False, np.float64),
                                                       (3, True, np.float32)])
def test_the_landmark_solver_is_pegasos_on_the_mapped_rows(digits, n_classes, average, dtype):
    """solver="landmark" against the NumPy reference: mini-batch Pegasos (the intercept a
    regularised constant feature 1) on the mapped rows, drawn in the solver's order."""
    import math

    from pegasos._base import problem_seeds
    from pegasos._landmark import chunk_rows, order_chunks

    X, y = digits
    keep = y < n_classes
    X, y = X[keep].astype(dtype), y[keep]
    k, T, lam, block_rows = 4, 60, 1e-2, 50
    weights = {0: 1.0, 1: 2.0, 2: 0.5}
    clf = NystroemPegasosClassifier(n_components=30, gamma=0.05, lam=lam, n_iter=T,
                                    batch_size=k, average=average, class_weight=weights,
                                    solver="landmark", block_rows=block_rows,
                                    random_state=5).fit(X, y)
    P = 1 if n_classes == 2 else n_classes
    rng = np.random.default_rng(problem_seeds(5, P)[0])
    order = np.concatenate(list(order_chunks(len(y), T * k, chunk_rows(block_rows, k), rng)))
    Phi = nystroem_map(X, clf.components_, "rbf", gamma=0.05)
    sw = np.array([weights[v] for v in y])
    avg_from = (1 if average is True else None if average is False
                else T - math.ceil(average * T) + 1)
    positives = [1] if n_classes == 2 else range(n_classes)
    for c, positive in enumerate(positives):
        w, b = pegasos(Phi, np.where(y == positive, 1.0, -1.0), lam, order, k, sw=sw,
                       bias_mode="augment", avg_from=avg_from)
        tol = 1e-4 if dtype == np.float32 else 1e-9
        np.testing.assert_allclose(clf.coef_[c], w, rtol=0, atol=tol * np.abs(w).max())
        np.testing.assert_allclose(clf.intercept_[c], b, rtol=0, atol=tol * np.abs(w).max())
    assert clf.n_iter_ == T and clf.coef_.dtype == np.float64


def test_the_landmark_solver_learns_as_the_map_does_and_streams(digits):
    X, y = digits
    params = dict(n_components=100, gamma=0.05, lam=1e-4, random_state=0)
    mapped = NystroemPegasosClassifier(**params, n_iter=20_000).fit(X[:450], y[:450])
    landmark = NystroemPegasosClassifier(**params, n_iter=1_250, batch_size=16,
                                         solver="landmark").fit(X[:450], y[:450])
    assert landmark.score(X[450:], y[450:]) >= mapped.score(X[450:], y[450:]) - 0.03 > 0.85
    # from a stream of blocks, with held-out rows; labels beyond the first buffer's refused
    blocks = [(X[i:i + 64], y[i:i + 64]) for i in range(0, 450, 64)]
    streamed = NystroemPegasosClassifier(**params, n_iter=1_250, batch_size=16,
                                         solver="landmark", block_rows=64).fit(
        BlockStream(blocks, buffer_rows=200, holdout=50, n_iter_no_change=20))
    assert streamed.score(X[450:], y[450:]) > 0.85 and streamed.n_rows_read_ > 450
    assert streamed.holdout_errors_.shape[1] == 2 and len(streamed.holdout_errors_) >= 1
    late = [(X[:200][y[:200] != 9], y[:200][y[:200] != 9]), (X[200:450], y[200:450])]
    with pytest.raises(ValueError, match=r"the labels \[9\] are not among the stream's classes"):
        NystroemPegasosClassifier(**params, n_iter=1_000, batch_size=16, solver="landmark",
                                  block_rows=64).fit(BlockStream(late, buffer_rows=150))
    with pytest.raises(ValueError, match=r"'solver' parameter of NystroemPegasosClassifier must "
                                         r"be a str among \{.*'landmark'.*\}"):
        NystroemPegasosClassifier(solver="rows").fit(X, y)


@parametrize_with_checks([NystroemPegasosClassifier(n_components=5, random_state=0),
                          NystroemPegasosClassifier(n_components=5, solver="landmark",
                                                    batch_size=4, random_state=0)])
def test_scikit_learn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("landmarks, dtype", [("uniform", np.float64), ("kmeans", np.float32)])
def test_a_saved_model_loads_and_predicts_the_same(digits, tmp_path, landmarks, dtype):
    from pegasos import load_model, save_model

    X, y = digits
    clf = NystroemPegasosClassifier(n_components=40, landmarks=landmarks, lam=1e-3,
                                    random_state=0).fit(X.astype(dtype), y)
    save_model(clf, tmp_path / "m.model")
    back = load_model(tmp_path / "m.model")
    assert back.components_.dtype == dtype and back.get_params() == clf.get_params()
    np.testing.assert_array_equal(back.decision_function(X), clf.decision_function(X))
    np.testing.assert_array_equal(back.transform(X), clf.transform(X))


def test_a_model_file_whose_map_does_not_fit_is_refused(digits, tmp_path):
    import zipfile

    from pegasos import save_model
    from pegasos.model_io import ModelFileError, load_model

    X, y = digits
    clf = NystroemPegasosClassifier(n_components=20, lam=1e-3, random_state=0).fit(X, y)
    clf.normalization_ = clf.normalization_[:, :19]
    save_model(clf, tmp_path / "bad.model")
    with pytest.raises(ModelFileError, match=r"normalization_ must be floating-point of shape "
                                             r"\[20, 20\]"):
        load_model(tmp_path / "bad.model")
    clf.fit(X, y)
    clf.coef_ = clf.coef_[:, :5]
    save_model(clf, tmp_path / "bad2.model")
    with pytest.raises(ModelFileError, match=r"coef_ must be floating-point of shape \[10, 20\]"):
        load_model(tmp_path / "bad2.model")
    assert zipfile.is_zipfile(tmp_path / "bad2.model")  # (an npz, never a pickle)
    # the parameters that describe the map agree with it (a transform of 7 columns of 20)
    for edit, match in (({"n_components": 7}, r"parameter 'n_components' is 7 but the model "
                                              r"holds 20 landmarks"),
                        ({"landmarks": "kmeans"}, r"landmarks='kmeans' but component_indices_ "
                                                  r"is present")):
        clf.fit(X, y).set_params(**edit)
        save_model(clf, tmp_path / "bad3.model")
        with pytest.raises(ModelFileError, match=match):
            load_model(tmp_path / "bad3.model")


def test_the_command_line_trains_predicts_and_describes_a_map(digits, tmp_path, capsys):
    import json

    from sklearn.datasets import dump_svmlight_file

    from pegasos import load_model
    from pegasos.cli import main

    X, y = digits
    train, test = str(tmp_path / "tr.svm"), str(tmp_path / "te.svm")
    dump_svmlight_file(X[:500], y[:500], train)
    dump_svmlight_file(X[500:], y[500:], test)
    model = str(tmp_path / "m.model")
    args = ["--map", "nystroem", "--components", "60", "-g", "0.03", "-l", "1e-3", "--iter",
            "4000", "-q"]
    assert main(["train", *args, train, model]) == 0
    est = load_model(model)
    ref = NystroemPegasosClassifier(n_components=60, gamma=0.03, lam=1e-3, n_iter=4000,
                                    random_state=0).fit(*_svmlight(train))
    np.testing.assert_array_equal(est.coef_, ref.coef_)
    capsys.readouterr()
    assert main(["predict", test, model, str(tmp_path / "out.txt")]) == 0
    accuracy = float(capsys.readouterr().out.split("= ")[1].split("%")[0])
    assert accuracy > 80.0
    assert main(["info", "--json", model]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["estimator"] == "NystroemPegasosClassifier"
    assert info["map"]["components"] == 60 and info["map"]["gamma"] == 0.03
    stream_model = str(tmp_path / "s.model")
    assert main(["train", *args, "--stream", "--buffer-rows", "200", "--holdout", "100",
                 "--cache", str(tmp_path / "tr.cache"), "--json", train, stream_model]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["holdout_error"] < 0.3 and os.path.exists(tmp_path / "tr.cache")
    assert load_model(stream_model).n_rows_read_ == summary["rows_read"]
    for bad, message in ((["--components", "5"], "--components, --landmarks and --map-solver are options "
                                                  "of --map"),
                         (["--map", "nystroem", "-s", "svc"], "--map needs -s pegasos"),
                         (["--map", "nystroem", "--components", "0"],
                          r"--components \(n_components\) must be an int in the range "
                          r"\[1, inf\)")):
        with pytest.raises(SystemExit):
            main(["train", *bad, train])
        assert re.search(message, capsys.readouterr().err)


def test_the_command_line_refuses_held_out_files_a_stream_fit_cannot_measure(digits, tmp_path,
                                                                            capsys):
    from sklearn.datasets import dump_svmlight_file

    from pegasos.cli import main

    X, y = digits
    train, wide, unseen = (str(tmp_path / name) for name in ("tr.svm", "w.svm", "u.svm"))
    dump_svmlight_file(X[:300], y[:300], train)
    dump_svmlight_file(np.hstack([X[:20], X[:20]]), y[:20], wide)
    dump_svmlight_file(X[:20], y[:20] + 20, unseen)
    for options in (["--map", "nystroem", "--components", "20"],
                    ["--map", "nystroem", "--components", "20", "--map-solver", "landmark"], []):
        for held, match in ((wide, r"the held-out rows are 1\d\d features wide, the stream's "
                                   r"\d\d"),
                            (unseen, r"the held-out rows have the label 2\d, which is not among "
                                     r"the stream's classes")):
            if not options and held == wide:
                match = r"a held-out row is 1\d\d features wide"  # (linear Pegasos' words)
            status = main(["train", *options, "-l", "1e-2", "--iter", "200", "--stream",
                           "--holdout", held, train, str(tmp_path / "m.model")])
            err = capsys.readouterr().err
            assert status == 1 and err.count("\n") == 1 and re.search(match, err), err


def _svmlight(path):
    from pegasos import load_svmlight

    X, y = load_svmlight(path)
    return X, np.unique(y, return_inverse=True)[1]


_UNDER_A_LIMIT = """
import resource, sys
import numpy as np
from pegasos import BlockStream, NystroemPegasosClassifier

def blocks(n_blocks):
    def one_pass():
        rng = np.random.default_rng(0)
        for _ in range(n_blocks):
            y = rng.integers(0, 2, 8192)
            X = rng.integers(0, 128, size=(8192, 784), dtype=np.uint8)
            X[:, :392] += (127 * y[:, None]).astype(np.uint8)  # class 1: bright left half
            yield X, 2 * y - 1
    return one_pass

def fit(n_blocks, n_iter):
    clf = NystroemPegasosClassifier(50, gamma=1e-3, lam=1e-4, n_iter=n_iter, random_state=0)
    return clf.fit(BlockStream(blocks(n_blocks), scale=1 / 255, buffer_rows=16384))

fit(2, 2000)  # (compiled, threads started: what the limit is measured over)
if sys.argv[1] == "probe":
    print(open("/proc/self/status").read().split("VmSize:")[1].split()[0])
    sys.exit()
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
n_blocks = int(sys.argv[2])
clf = fit(n_blocks, 2 * 8192 * n_blocks)  # every row read (float64: 6 kB a row)
X, y = next(blocks(1)())
print(clf.n_rows_read_, np.mean(clf.predict(X / 255.0) == y))
"""


@pytest.mark.slow
def test_a_stream_larger_than_the_address_space_limit_trains(tmp_path):
    """The rows as float64 (what the stream converts them to) are larger than the process's
    address space: a stream fit holds the buffer and a block, never the data."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    probe = subprocess.run([sys.executable, "-c", _UNDER_A_LIMIT, "probe"], capture_output=True,
                           text=True, check=True, cwd=root)
    limit = int(probe.stdout) * 1024 + (600 << 20)  # the process as it is, plus 600 MiB
    n_blocks = limit // (8192 * 784 * 8) + 2
    assert n_blocks * 8192 * 784 * 8 > limit
    done = subprocess.run([sys.executable, "-c", _UNDER_A_LIMIT, str(limit), str(n_blocks)],
                          capture_output=True, text=True, cwd=root, timeout=1800)
    assert done.returncode == 0, done.stderr[-2000:]
    rows_read, accuracy = done.stdout.split()
    assert int(rows_read) >= 8192 * n_blocks and float(accuracy) > 0.95
