"""
The mini-batch size at a fixed number of examples
=================================================

Pegasos' analysis says that what determines accuracy is mostly the number of examples
drawn, k T, not how they are split into mini-batches of k. Each curve fits the same
problem with one mini-batch size k and growing k T.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

from pegasos import PegasosClassifier

X, y = make_classification(n_samples=30_000, n_features=40, n_informative=15, flip_y=0.05,
                           random_state=1)
X /= 6  # rows of norm about 1
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
budgets = [1_000, 3_000, 10_000, 30_000, 100_000]
fig, ax = plt.subplots(figsize=(6, 4))
for k in (1, 10, 100, 1000):
    errors = [1 - PegasosClassifier(lam=1e-4, batch_size=k, n_iter=max(1, kt // k),
                                    random_state=0).fit(X_train, y_train).score(X_test, y_test)
              for kt in budgets]
    ax.plot(budgets, errors, "o-", label=f"k = {k}")
ax.set_xscale("log")
ax.set_xlabel("examples drawn, k T")
ax.set_ylabel("test error")
ax.legend()
ax.set_title("lambda = 1e-4")
fig.tight_layout()
