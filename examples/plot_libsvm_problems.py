"""
LIBSVM's regression and one-class problems
==========================================

``DualSVR`` and ``DualNuSVR`` are ``SVR``'s and ``NuSVR``'s models, ``DualOneClassSVM``
is ``OneClassSVM``'s, by the same working-set solver as ``DualSVC``. Left: epsilon-SVR's
tube around a noisy sine (the support vectors are the rows on or outside it). Right: the
one-class SVM's frontier around a blob with outliers.
"""

import matplotlib.pyplot as plt
import numpy as np

from pegasos import DualNuSVR, DualOneClassSVM, DualSVR

rng = np.random.default_rng(0)
x = np.sort(rng.uniform(0, 6, 200))[:, None]
z = np.sin(x[:, 0]) + 0.15 * rng.normal(size=200)
svr = DualSVR(C=10, epsilon=0.2, gamma=1).fit(x, z)
nu_svr = DualNuSVR(nu=0.3, C=10, gamma=1).fit(x, z)

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
grid = np.linspace(0, 6, 300)[:, None]
f = svr.predict(grid)
left.scatter(x[:, 0], z, s=8, c="0.5")
left.plot(grid[:, 0], f, "C0", label="DualSVR (epsilon = 0.2)")
left.fill_between(grid[:, 0], f - 0.2, f + 0.2, color="C0", alpha=0.2)
left.plot(grid[:, 0], nu_svr.predict(grid), "C1--",
          label=f"DualNuSVR (nu = 0.3: epsilon = {nu_svr.epsilon_:.3f})")
left.scatter(x[svr.support_, 0], z[svr.support_], s=30, facecolors="none", edgecolors="C0")
left.legend()
left.set_title(f"epsilon-SVR: {len(svr.support_)} support vectors")

X = np.r_[rng.normal(size=(300, 2)), rng.uniform(-5, 5, size=(20, 2))]
oc = DualOneClassSVM(nu=0.05, gamma=0.3).fit(X)
xx, yy = np.meshgrid(np.linspace(-5.5, 5.5, 120), np.linspace(-5.5, 5.5, 120))
s = oc.decision_function(np.c_[xx.ravel(), yy.ravel()]).reshape(xx.shape)
right.contourf(xx, yy, s, levels=20, cmap="Blues_r", alpha=0.6)
right.contour(xx, yy, s, levels=[0], colors="k")
outlier = oc.predict(X) == -1
right.scatter(X[~outlier, 0], X[~outlier, 1], s=8, c="k")
right.scatter(X[outlier, 0], X[outlier, 1], s=15, c="r", label="predicted outliers")
right.legend()
right.set_title("one-class SVM, nu = 0.05")
fig.tight_layout()
