"""
Files: a LIBSVM file, its binary cache, and model files
=======================================================

``pegasos.stream.convert`` parses LIBSVM files once, a block at a time, into a binary cache
that ``load_cache`` memory-maps; the rows are the text file's, bit for bit. Models save to
versioned, pickle-free files and export to LIBSVM's text format. The figure compares loading
the text file with loading its cache, and checks the models trained on each.
"""

import os
import shutil
import tempfile
import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import dump_svmlight_file, make_classification

import pegasos
from pegasos.interchange import to_liblinear
from pegasos.stream import convert

folder = tempfile.mkdtemp()
X, y = make_classification(n_samples=30_000, n_features=50, random_state=0)
text = os.path.join(folder, "train.svm")
dump_svmlight_file(X, y, text, zero_based=False)
cache = os.path.join(folder, "train.cache")
convert([text], cache)

pegasos.load_svmlight(text)
pegasos.load_cache(cache)  # compile (or load) the parser before timing
seconds = {}
for name, load in (("LIBSVM text", lambda: pegasos.load_svmlight(text)),
                   ("binary cache", lambda: pegasos.load_cache(cache))):
    tic = time.perf_counter()
    Xs, ys = load()
    seconds[name] = time.perf_counter() - tic
X_text, y_text = pegasos.load_svmlight(text)
X_cache, y_cache = pegasos.load_cache(cache)
assert (X_text != X_cache).nnz == 0 and np.array_equal(y_text, y_cache)

a = pegasos.PegasosClassifier(random_state=0).fit(X_text, y_text)
b = pegasos.PegasosClassifier(random_state=0).fit(X_cache, y_cache)
assert np.array_equal(a.coef_, b.coef_)  # the same model, bit for bit
pegasos.save_model(a, os.path.join(folder, "a.model"))
assert np.array_equal(pegasos.load_model(os.path.join(folder, "a.model")).coef_, a.coef_)
to_liblinear(a, os.path.join(folder, "a.liblinear"))  # for LIBLINEAR's predict

fig, ax = plt.subplots(figsize=(5, 3))
ax.barh(list(seconds), list(seconds.values()))
ax.set_xlabel("seconds to load 30,000 rows")
fig.tight_layout()
print({k: f"{v:.3f} s" for k, v in seconds.items()},
      f"text {os.path.getsize(text) / 1e6:.1f} MB, cache {os.path.getsize(cache) / 1e6:.1f} MB")
shutil.rmtree(folder)
