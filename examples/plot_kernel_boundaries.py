"""
Decision boundaries of the kernel solvers
=========================================

The three stochastic kernel solvers (kernel Pegasos, the Kernelized Stochastic Batch
Perceptron, the averaged kernel Perceptron) and ``DualSVC`` (SVC's exact model) on two
interleaved half moons, with the rbf kernel. The stochastic solvers stop after a few passes;
``DualSVC`` solves the dual to SVC's tolerance. Support vectors are circled.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_moons

from pegasos import DualSVC, KernelPegasosClassifier, KernelPerceptron, SBPClassifier

X, y = make_moons(n_samples=400, noise=0.2, random_state=0)
models = {
    "kernel Pegasos": KernelPegasosClassifier(C=10, gamma=2, random_state=0),
    "SBP": SBPClassifier(C=10, gamma=2, random_state=0),
    "kernel Perceptron": KernelPerceptron(gamma=2, random_state=0),
    "DualSVC": DualSVC(C=10, gamma=2),
}
xx, yy = np.meshgrid(np.linspace(-1.6, 2.6, 150), np.linspace(-1.2, 1.7, 120))
grid = np.c_[xx.ravel(), yy.ravel()]
fig, axes = plt.subplots(2, 2, figsize=(9, 7), sharex=True, sharey=True)
for ax, (name, clf) in zip(axes.ravel(), models.items()):
    clf.fit(X, y)
    z = clf.decision_function(grid).reshape(xx.shape)
    ax.contourf(xx, yy, z, levels=20, cmap="RdBu", alpha=0.6)
    ax.contour(xx, yy, z, levels=[0], colors="k")
    ax.scatter(X[:, 0], X[:, 1], c=y, cmap="RdBu", s=10, edgecolors="k", linewidths=0.3)
    sv = clf.support_vectors_
    ax.scatter(sv[:, 0], sv[:, 1], s=40, facecolors="none", edgecolors="k", linewidths=0.5)
    ax.set_title(f"{name}\n{len(sv)} support vectors, training accuracy {clf.score(X, y):.3f}")
fig.tight_layout()
