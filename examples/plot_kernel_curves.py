"""
Kernel solvers: test error against kernel evaluations
=====================================================

Every estimator takes a ``callback`` that receives a :class:`pegasos.Report` about 20 times
per problem: here the test error of kernel Pegasos' and the Perceptron's current models is
drawn against the kernel evaluations spent, beside SVC's (``DualSVC``'s) test error, on
digits (10 classes, one-vs-rest on one shared block of kernel columns).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from pegasos import DualSVC, KernelPegasosClassifier, KernelPerceptron

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X / 16, y, random_state=0)
exact = DualSVC(C=10).fit(X_train, y_train)


def traced(cls, **params):
    points = []

    def callback(report):
        if report.problem == 0:
            points.append(report.kernel_evals)

    clf = cls(callback=callback, random_state=0, **params).fit(X_train, y_train)
    return clf, points


fig, ax = plt.subplots(figsize=(6, 4))
for name, cls, params in (("kernel Pegasos", KernelPegasosClassifier, {"C": 10}),
                          ("kernel Perceptron", KernelPerceptron, {})):
    errors, evals = [], []
    for epochs in (1, 2, 4, 8):
        clf, points = traced(cls, n_epochs=epochs, **params)
        errors.append(1 - clf.score(X_test, y_test))
        evals.append(points[-1])
    ax.plot(evals, errors, "o-", label=name)
ax.axhline(1 - exact.score(X_test, y_test), color="k", lw=0.8, label="DualSVC (SVC's model)")
ax.set_xscale("log")
ax.set_xlabel("kernel evaluations")
ax.set_ylabel("test error")
ax.legend()
ax.set_title("digits, rbf, 1 to 8 passes")
fig.tight_layout()
print("DualSVC test error:", np.round(1 - exact.score(X_test, y_test), 4))
