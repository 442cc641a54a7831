"""pegasos: support vector machines trained by stochastic primal solvers."""

from importlib.metadata import PackageNotFoundError, version

from .linear import PegasosClassifier
from .objective import DualityGap, duality_gap

try:
    __version__ = version("pegasos")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+unknown"

__all__ = ["DualityGap", "PegasosClassifier", "duality_gap", "__version__"]
