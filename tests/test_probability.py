"""probability=True: Platt scaling by 5-fold cross-validation, as SVC does."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.metrics import log_loss
from sklearn.preprocessing import StandardScaler

from pegasos import (
    KernelPegasosClassifier,
    KernelPerceptron,
    PegasosClassifier,
    SBPClassifier,
    load_model,
    save_model,
)
from pegasos.cli import main

ESTIMATORS = [
    lambda: PegasosClassifier(probability=True, random_state=0),
    lambda: KernelPegasosClassifier(probability=True, n_epochs=2, random_state=0),
    lambda: SBPClassifier(0.1, probability=True, random_state=0),
    lambda: KernelPerceptron(probability=True, random_state=0),
]


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize("make", ESTIMATORS, ids=lambda m: type(m()).__name__)
def test_binary_probabilities_sum_to_one_and_follow_the_decision(cancer, make, tmp_path):
    X, y = cancer
    est = make().fit(X, y)
    p = est.predict_proba(X)
    assert p.shape == (len(y), 2)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)
    order = np.argsort(est.decision_function(X), kind="stable")
    assert np.all(np.diff(p[order, 1]) >= -1e-12)  # monotone in the decision value
    assert log_loss(y, p) < 0.2  # informative: the constant predictor's is 0.66
    np.testing.assert_allclose(est.predict_log_proba(X), np.log(p))
    save_model(est, tmp_path / "m.model")
    np.testing.assert_array_equal(load_model(tmp_path / "m.model").predict_proba(X), p)


def test_multiclass_probabilities_sum_to_one_in_class_order():
    X, y = load_iris(return_X_y=True)
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    est = PegasosClassifier(C=10, probability=True, random_state=0).fit(X, labels)
    p = est.predict_proba(X)
    assert p.shape == (150, 3) and est.probA_.shape == (3,)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)
    assert np.mean(est.classes_[np.argmax(p, axis=1)] == labels) > 0.8


def test_same_seed_same_probabilities_and_none_without_asking(cancer):
    X, y = cancer
    a = PegasosClassifier(probability=True, random_state=3).fit(X, y).predict_proba(X)
    b = PegasosClassifier(probability=True, random_state=3).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(a, b)
    plain = PegasosClassifier(random_state=3).fit(X, y)
    assert not hasattr(plain, "predict_proba") and not hasattr(plain, "probA_")


def test_probability_needs_fit_and_two_examples_per_class(cancer):
    X, y = cancer
    with pytest.raises(ValueError, match="probability=True needs fit"):
        PegasosClassifier(lam=1e-3, probability=True).partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="at least 2 examples of every class"):
        PegasosClassifier(probability=True).fit(X[:3], [0, 1, 1])


def test_cli_b_1_writes_libsvm_probability_output(tmp_path, capsys):
    X, y = load_iris(return_X_y=True)
    data = tmp_path / "iris.svm"
    data.write_text("".join(f"{label + 1} " + " ".join(f"{j + 1}:{v}" for j, v in enumerate(row))
                            + "\n" for row, label in zip(X, y)))
    model, plain, out = tmp_path / "p.model", tmp_path / "plain.model", tmp_path / "out.txt"
    assert main(["train", "-q", "-b", "1", "-c", "10", str(data), str(model)]) == 0
    assert main(["predict", "-b", "1", str(data), str(model), str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "labels 1 2 3"
    values = np.array([[float(v) for v in line.split()] for line in lines[1:]])
    np.testing.assert_allclose(values[:, 1:].sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(values[:, 0], 1 + np.argmax(values[:, 1:], axis=1))
    np.testing.assert_allclose(values[:, 1:], load_model(model).predict_proba(X), rtol=1e-12)
    assert main(["train", "-q", str(data), str(plain)]) == 0
    capsys.readouterr()
    assert main(["predict", "-b", "1", str(data), str(plain)]) == 1
    assert "has no probability estimates; train it with -b 1" in capsys.readouterr().err
