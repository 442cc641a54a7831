"""What the benchmark scripts share: data, environment, output."""

import gzip
import os
import platform
import sys
from pathlib import Path

import numpy as np

from pegasos import load_svmlight
from pegasos._files import write_atomic

HERE = Path(__file__).resolve().parent
SHARED_DATA = HERE.parent.parent / "shared" / "data"
FASHION_MNIST = Path("/usr/share/datasets/fashion-mnist")  # Debian's dataset-fashion-mnist


def load(path, n_features=None, zero_based=False):
    """A LIBSVM file of the shared data (plain, .gz, .bz2 or .xz)."""
    return load_svmlight(path, n_features=n_features, zero_based=zero_based)


def as_int32(X):
    """LIBLINEAR's, LIBSVM's and SGD's wrappers refuse int64 CSR indices; ours take them."""
    X = X.copy()
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    return X


def _idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * k : 8 + 4 * k], "big") for k in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def fashion_mnist_binary(positive=0, negative=6):
    """Fashion-MNIST, two classes (default T-shirt/top vs shirt), pixels scaled to [0, 1].

    Returns (X_train, y_train, X_test, y_test), dense float64, labels +1/-1;
    raises FileNotFoundError when Debian's ``dataset-fashion-mnist`` is not installed.
    """
    parts = []
    for prefix in ("train", "t10k"):
        X = _idx(FASHION_MNIST / f"{prefix}-images-idx3-ubyte.gz").reshape(-1, 784)
        y = _idx(FASHION_MNIST / f"{prefix}-labels-idx1-ubyte.gz")
        keep = (y == positive) | (y == negative)
        parts += [X[keep].astype(np.float64) / 255.0, np.where(y[keep] == positive, 1.0, -1.0)]
    return tuple(parts)


def environment(**extra):
    import numba
    import scipy
    import sklearn

    import pegasos

    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "numba": numba.__version__,
        "pegasos": pegasos.__version__,
        **extra,
    }


def write_results(out_dir, stem, result, markdown):
    """Write ``stem.json`` and ``stem.md`` (from ``markdown(result)``) atomically; print the latter."""
    import json

    out_dir.mkdir(parents=True, exist_ok=True)
    text = json.dumps(result, indent=2)
    write_atomic(out_dir / f"{stem}.json", lambda f: f.write(text), mode="w")
    md = markdown(result)
    write_atomic(out_dir / f"{stem}.md", lambda f: f.write(md), mode="w")
    print(md)
