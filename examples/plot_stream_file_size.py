"""
The stream's time against the file's size
=========================================

``PegasosClassifier`` fits an ``SVMLightStream`` of LIBSVM files without loading them: it
fills a shuffle buffer, draws its mini-batches from it and replaces what it drew by the next
rows of the files. A fit of T iterations of k examples reads about the buffer plus T k rows,
so its time does not grow with the file. Here files of growing size, written from one
generated model, are trained on with the same budget. The files are parsed a block at a
time (16 MB by default; 1 MB here, since the files are small), so the time is flat once a
file is larger than the rows the fit reads.
"""

import os
import shutil
import tempfile
import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import dump_svmlight_file

from pegasos import PegasosClassifier
from pegasos.stream import SVMLightStream

rng = np.random.default_rng(0)
d = 20
w = rng.normal(size=d)
folder = tempfile.mkdtemp()
sizes, seconds, read = [], [], []
warm = os.path.join(folder, "warm.svm")  # load (or compile) the parser and the solver first
dump_svmlight_file(rng.normal(size=(100, d)), np.arange(100) % 2, warm, zero_based=False)
PegasosClassifier(lam=1e-2, n_iter=10).fit(SVMLightStream(warm))
for n in (20_000, 60_000, 200_000):
    X = rng.normal(size=(n, d)) / np.sqrt(d)
    y = np.where(X @ w > 0, 1, -1)
    path = os.path.join(folder, f"train-{n}.svm")
    dump_svmlight_file(X, y, path, zero_based=False)
    clf = PegasosClassifier(lam=1e-4, n_iter=1_000, batch_size=8, random_state=0)
    tic = time.perf_counter()
    clf.fit(SVMLightStream(path, buffer_rows=4_096, block_bytes=1 << 20))
    seconds.append(time.perf_counter() - tic)
    sizes.append(os.path.getsize(path) / 1e6)
    read.append(clf.n_rows_read_)
    os.remove(path)

fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(sizes, seconds, "o-")
for s, t, r in zip(sizes, seconds, read):
    ax.annotate(f"{r:,} rows read", (s, t), textcoords="offset points", xytext=(5, 5))
ax.set_xscale("log")
ax.set_xlabel("file size (MB)")
ax.set_ylabel("fit time (s)")
ax.set_ylim(0, 2 * max(seconds))
ax.set_title("The same budget on files of growing size")
fig.tight_layout()
print([f"{s:.1f} MB: {t:.2f} s" for s, t in zip(sizes, seconds)])
shutil.rmtree(folder)
