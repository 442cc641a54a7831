"""
Probability calibration
=======================

``probability=True`` fits probability estimates as ``SVC(probability=True)`` does: Platt's
sigmoid on decision values from 5 cross-validation folds (``DualSVC``: LIBSVM's sigmoid per
pair of classes, the folds solved on the pair's kept kernel columns). The reliability
diagram compares the predicted probabilities with the observed frequencies on held-out rows.
"""

import matplotlib.pyplot as plt
from sklearn.calibration import calibration_curve
from sklearn.datasets import make_classification
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

from pegasos import DualSVC, PegasosClassifier

X, y = make_classification(n_samples=2_000, n_features=20, n_informative=5, flip_y=0.1,
                           random_state=0)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=0)
models = {
    "DualSVC": DualSVC(probability=True, random_state=0),
    "SVC": SVC(probability=True, random_state=0),
    "PegasosClassifier (linear)": PegasosClassifier(probability=True, random_state=0),
}
fig, ax = plt.subplots(figsize=(6, 5))
ax.plot([0, 1], [0, 1], "k:", label="perfectly calibrated")
for name, clf in models.items():
    p = clf.fit(X_train, y_train).predict_proba(X_test)[:, 1]
    observed, predicted = calibration_curve(y_test, p, n_bins=10)
    ax.plot(predicted, observed, "o-", label=name)
    print(f"{name}: log loss {log_loss(y_test, p):.4f}, Brier {brier_score_loss(y_test, p):.4f}")
ax.set_xlabel("predicted probability")
ax.set_ylabel("observed frequency")
ax.legend()
fig.tight_layout()
