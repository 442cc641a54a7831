"""
Test error against time: Pegasos, LIBLINEAR and SGD
===================================================

Linear SVMs on a generated problem of 100,000 sparse rows. Each solver is fitted with
growing budgets (Pegasos: iterations; LIBLINEAR, scikit-learn's ``LinearSVC``: its
iteration limit; ``SGDClassifier``: epochs), and the test error is drawn against the fit's
time. Pegasos reaches the exact SVM's test error once it has seen a few times ``1/lambda``
examples, however many rows there are.
"""

import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier
from sklearn.svm import LinearSVC

from pegasos import PegasosClassifier

rng = np.random.default_rng(0)
n, d = 120_000, 2_000
nnz = 20  # stored values per row, each row of unit norm
indices = np.sort(rng.choice(d, size=(n, nnz)), axis=1)
values = rng.random((n, nnz))
values /= np.linalg.norm(values, axis=1, keepdims=True)
X = sp.csr_matrix((values.ravel(), indices.ravel(), np.arange(0, n * nnz + 1, nnz)), shape=(n, d))
X.sum_duplicates()
w = rng.normal(size=d)
y = np.where(X @ w + 0.3 * rng.normal(size=n) > 0, 1, -1)
X_train, X_test, y_train, y_test = X[:100_000], X[100_000:], y[:100_000], y[100_000:]
lam = 1e-5
C = 1 / (lam * X_train.shape[0])


def timed(est):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        tic = time.perf_counter()
        est.fit(X_train, y_train)
        seconds = time.perf_counter() - tic
    return seconds, 1 - est.score(X_test, y_test)


PegasosClassifier(lam=lam, n_iter=10).fit(X_train[:100], y_train[:100])  # load the compiled code
curves = {
    "Pegasos": [timed(PegasosClassifier(lam=lam, n_iter=t, random_state=0))
                for t in (30_000, 100_000, 300_000, 1_000_000)],
    "LIBLINEAR (LinearSVC)": [timed(LinearSVC(C=C, loss="hinge", max_iter=m, tol=1e-6))
                              for m in (1, 2, 5, 10, 30)],
    "SGDClassifier": [timed(SGDClassifier(alpha=lam, max_iter=e, tol=None, random_state=0))
                      for e in (1, 2, 5, 10)],
}
fig, ax = plt.subplots(figsize=(7, 4))
for name, points in curves.items():
    seconds, errors = zip(*points)
    ax.plot(seconds, errors, "o-", label=name)
ax.set_xscale("log")
ax.set_xlabel("fit time (s)")
ax.set_ylabel("test error")
ax.legend()
ax.set_title("100,000 sparse rows, lambda = 1e-5")
fig.tight_layout()
for name, points in curves.items():
    print(name, ", ".join(f"{s:.2f} s: {e:.4f}" for s, e in points))
