"""pegasos: support vector machines trained by stochastic primal solvers.

The public names load on first use (PEP 562), so that ``import pegasos`` and
the command line's ``--help``, ``--version`` and usage errors do not wait for
NumPy, scikit-learn and Numba; ``from pegasos import PegasosClassifier`` works
as usual.
"""

import importlib
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("pegasos")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+unknown"

#: public name -> the module that defines it
_EXPORTS = {
    "BlockStream": ".block_stream",
    "DualSVC": ".svc",
    "DualSVR": ".svr",
    "DualNuSVC": ".svc",
    "DualNuSVR": ".svr",
    "DualOneClassSVM": ".one_class",
    "DualityGap": ".objective",
    "duality_gap": ".objective",
    "KernelPegasosClassifier": ".kernel_pegasos",
    "KernelPerceptron": ".perceptron",
    "SBPClassifier": ".sbp",
    "nu_for": ".sbp",
    "nu_from_svm": ".sbp",
    "NystroemPegasosClassifier": ".kernel_map",
    "PegasosClassifier": ".linear",
    "Report": "._solvers.report",
    "load_svmlight": ".datasets",
    "load_cache": ".stream",
    "read_blocks": ".stream",
    "load_model": ".model_io",
    "save_model": ".model_io",
}

__all__ = sorted([*_EXPORTS, "__version__"])


def __getattr__(name):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name], __name__), name)
        globals()[name] = value  # later look-ups skip this function
        return value
    raise AttributeError(f"module 'pegasos' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_EXPORTS])
