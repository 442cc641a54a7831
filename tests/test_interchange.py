"""LIBLINEAR's model format: export, import, and LIBLINEAR itself reading our files."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris

from pegasos import PegasosClassifier, load_model
from pegasos.cli import main
from pegasos.interchange import LiblinearFormatError, from_liblinear, to_liblinear

from .conftest import make_binary

ll = pytest.importorskip("liblinear.liblinearutil")


def _ll_predict(model, X, y):
    labels, _, _ = ll.predict(np.asarray(y, dtype=float), sp.csr_matrix(X), model, "-q")
    return np.asarray(labels)


def _multiclass():
    X, y = load_iris(return_X_y=True)
    return X / 8.0, y + 1  # labels 1, 2, 3


@pytest.mark.parametrize("params", [
    {}, {"fit_intercept": False}, {"intercept_scaling": 2.5},
    {"intercept_mode": "unregularized"},
])
@pytest.mark.parametrize("multiclass", [False, True])
def test_liblinear_predicts_our_exported_models_labels(tmp_path, params, multiclass):
    X, y = _multiclass() if multiclass else make_binary(n=200, d=6, seed=3)
    clf = PegasosClassifier(lam=1e-3, random_state=0, **params).fit(X, y)
    path = tmp_path / "m.liblinear"
    to_liblinear(clf, path)
    theirs = ll.load_model(str(path))
    np.testing.assert_array_equal(_ll_predict(theirs, X, y), clf.predict(X))
    back = from_liblinear(path, lam=1e-3)
    np.testing.assert_array_equal(back.predict(X), clf.predict(X))
    np.testing.assert_allclose(back.decision_function(X), clf.decision_function(X), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("options", ["-s 3 -B 1", "-s 1 -B -1", "-s 0 -B 2", "-s 4 -B 1"])
@pytest.mark.parametrize("multiclass", [False, True])
def test_models_trained_by_liblinear_import_with_the_same_labels(tmp_path, options, multiclass):
    X, y = _multiclass() if multiclass else make_binary(n=200, d=6, seed=4)
    model = ll.train(np.asarray(y, dtype=float), sp.csr_matrix(X), options + " -q")
    path = tmp_path / "theirs.model"
    ll.save_model(str(path), model)
    ours = from_liblinear(path)
    labels, _, values = ll.predict(np.asarray(y, dtype=float), sp.csr_matrix(X), model, "-q")
    # the same labels wherever LIBLINEAR's best two classes are not tied to rounding: its
    # training draws from C's rand(), whose state earlier tests (scikit-learn's srand) leave
    # behind, and one such model had two classes' values equal to 1e-17 on one iris row
    values = np.asarray(values)
    top = np.sort(values, axis=1)
    clear = (top[:, -1] - top[:, -2] > 1e-9) if values.shape[1] > 1 else np.abs(top[:, 0]) > 1e-9
    assert clear.mean() > 0.9
    np.testing.assert_array_equal(ours.predict(X)[clear], np.asarray(labels)[clear])


def test_the_cli_exports_imports_and_describes(tmp_path, capsys):
    X, y = make_binary(n=80, d=4, seed=5)
    data = tmp_path / "d.svm"
    data.write_text("".join(f"{int(label)} " + " ".join(f"{j + 1}:{v:.17g}" for j, v in enumerate(row))
                            + "\n" for row, label in zip(X, y)))
    model, exported, imported = tmp_path / "m.model", tmp_path / "m.ll", tmp_path / "back.model"
    assert main(["train", "-q", str(data), str(model)]) == 0
    assert main(["export", "--format", "liblinear", str(model), str(exported)]) == 0
    assert main(["import", "-l", "0.01", str(exported), str(imported)]) == 0
    back = load_model(imported)
    np.testing.assert_array_equal(back.predict(X), load_model(model).predict(X))
    assert back.lam_ == 0.01
    capsys.readouterr()
    assert main(["info", str(model)]) == 0
    out = capsys.readouterr().out
    assert "PegasosClassifier, model format version 3" in out and "classes -1, 1; 4 features" in out


def test_bad_liblinear_files_and_models_are_messages(tmp_path, capsys):
    bad = tmp_path / "bad.model"
    bad.write_text("solver_type L2R_L2LOSS_SVR\nnr_class 2\nlabel 1 -1\nnr_feature 1\nbias -1\nw\n1\n")
    with pytest.raises(LiblinearFormatError, match="solver_type 'L2R_L2LOSS_SVR' is not a LIBLINEAR classifier"):
        from_liblinear(bad)
    bad.write_text("solver_type L2R_L1LOSS_SVC_DUAL\nnr_class 2\nlabel 1 -1\nnr_feature 3\nbias 1\nw\n1\n2\n")
    with pytest.raises(LiblinearFormatError, match="2 weight lines; nr_feature 3 and bias 1 need 4"):
        from_liblinear(bad)
    assert main(["import", str(bad), str(tmp_path / "x.model")]) == 1
    assert "need 4" in capsys.readouterr().err
    clf = PegasosClassifier(n_iter=10).fit(np.eye(3), ["a", "b", "a"])
    with pytest.raises(ValueError, match="LIBLINEAR's labels are integers"):
        to_liblinear(clf, tmp_path / "s.ll")


def test_an_imported_model_has_a_certificate_and_continues(tmp_path):
    """from_liblinear keeps lambda for duality_gap, as its docstring says: the certificate of
    the imported weights is the one of the same weights fitted here (its dual vector starts
    from the margin violators), and partial_fit continues from them."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    clf = PegasosClassifier(lam=0.01, random_state=0).fit(X, y)
    path = tmp_path / "bc.liblinear"
    to_liblinear(clf, path)
    back = from_liblinear(path, lam=0.01)
    (gap,) = back.duality_gap(X, y)
    (fitted,) = clf.duality_gap(X, y)
    assert gap.primal == pytest.approx(fitted.primal, rel=1e-12)
    assert 0 < gap.dual <= gap.primal
    back.partial_fit(X, y)
    assert back.t_ == len(y) and back.score(X, y) > 0.9
