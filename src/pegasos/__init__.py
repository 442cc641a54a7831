"""pegasos: support vector machines trained by stochastic primal solvers."""

from importlib.metadata import PackageNotFoundError, version

from .datasets import load_svmlight
from .kernel import KernelPegasosClassifier, KernelPerceptron, SBPClassifier, nu_for, nu_from_svm
from .linear import PegasosClassifier
from .model_io import load_model, save_model
from .objective import DualityGap, duality_gap

try:
    __version__ = version("pegasos")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+unknown"

__all__ = [
    "DualityGap",
    "KernelPegasosClassifier",
    "KernelPerceptron",
    "PegasosClassifier",
    "SBPClassifier",
    "__version__",
    "duality_gap",
    "load_model",
    "load_svmlight",
    "nu_for",
    "nu_from_svm",
    "save_model",
]
