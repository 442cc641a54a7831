"""
Training curves with the certified bound
========================================

Pegasos' duality-gap certificate bounds how far a model's objective is from the optimum
without knowing the optimum: every check records the primal objective ``P(w)`` and a dual
value ``D(alpha) <= P*``. The gap between the two curves is an upper bound on the
suboptimality; LIBLINEAR's exact solution (``LinearSVC``, the same objective) lies between them.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.svm import LinearSVC

from pegasos import PegasosClassifier, duality_gap

X, y = make_classification(n_samples=20_000, n_features=50, n_informative=20, flip_y=0.05,
                           random_state=0)
X /= np.linalg.norm(X, axis=1).mean()  # rows of norm about 1, as Pegasos' step expects
lam = 1e-4
clf = PegasosClassifier(lam=lam, n_epochs=20, track_objective=True, check_every=0.5,
                        random_state=0).fit(X, y)
history = clf.objective_history_[0]

# The exact optimum of the same objective (intercept as a regularised feature, B = 1).
exact = LinearSVC(C=1 / (lam * len(y)), loss="hinge", tol=1e-8, max_iter=200_000,
                  intercept_scaling=1).fit(X, y)
p_star = duality_gap(X, y, exact.coef_.ravel(), exact.intercept_[0], lam=lam,
                     intercept_mode="augment").primal

fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(history["t"], history["primal"], label="primal P(w)")
ax.plot(history["t"], history["dual"], "--", label="certified lower bound D(alpha)")
ax.axhline(p_star, color="k", lw=0.8, label="P* (LIBLINEAR, tol 1e-8)")
ax.set_xscale("log")
ax.set_xlabel("iterations")
ax.set_ylabel("objective")
ax.set_ylim(0.9 * min(history["dual"][-1], p_star), 2 * p_star)
ax.legend()
ax.set_title("Pegasos: the objective and its certificate")
fig.tight_layout()

(gap,) = clf.duality_gap(X, y)
print(f"final relative gap {gap.relative_gap:.3g}; true relative suboptimality "
      f"{(gap.primal - p_star) / p_star:.3g}")
