"""
DualSVC against SVC as the rows grow
====================================

``DualSVC`` solves SVC's problem (LIBSVM's C-SVC dual) to SVC's tolerance by working
sets on a blocked kernel engine. Here both fit the same rbf problem on growing numbers of
rows of a generated set; the models agree, and ``DualSVC``'s time grows more slowly.
(Sets of at most 2,048 rows train on their kernel matrix; ``BENCHMARKS.md`` has the
measurements on 50,000-row sets.)
"""

import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.svm import SVC

from pegasos import DualSVC

X, y = make_classification(n_samples=2_000, n_features=20, n_informative=10, flip_y=0.1,
                           random_state=0)
DualSVC(C=10).fit(X[:50], y[:50])  # load (or compile) the solver once
sizes = [250, 500, 1_000, 2_000]
times = {"DualSVC": [], "SVC": []}
agree = []
for n in sizes:
    for name, est in (("DualSVC", DualSVC(C=10)), ("SVC", SVC(C=10))):
        tic = time.perf_counter()
        est.fit(X[:n], y[:n])
        times[name].append(time.perf_counter() - tic)
        if name == "DualSVC":
            ours = est
    agree.append(np.mean(ours.predict(X) == est.predict(X)))

fig, ax = plt.subplots(figsize=(6, 4))
for name, seconds in times.items():
    ax.plot(sizes, seconds, "o-", label=name)
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("training rows")
ax.set_ylabel("fit time (s)")
ax.legend()
ax.set_title("rbf kernel, C = 10")
fig.tight_layout()
print("predictions that agree with SVC's:", [f"{a:.4f}" for a in agree])
