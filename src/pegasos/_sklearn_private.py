"""The private scikit-learn names this library builds on, imported in one place.

``Interval``/``StrOptions``/``HasMethods`` (the ``_parameter_constraints`` machinery),
``_fit_context`` (validates parameters as the first step of ``fit``),
``LinearClassifierMixin`` (``decision_function``/``predict`` from ``coef_``
and ``intercept_``), ``_check_sample_weight`` and ``_sigmoid_calibration``
(Platt's sigmoid fit, for ``probability=True``) and ``_ovr_decision_function``
(SVC's one-vs-rest view of one-vs-one decisions) are not public API; keeping
them here means a move in scikit-learn needs one edit.  The supported
scikit-learn range is pinned in ``pyproject.toml``.
"""

from sklearn.base import _fit_context
from sklearn.calibration import _sigmoid_calibration
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.multiclass import _ovr_decision_function
from sklearn.utils.validation import _check_sample_weight

__all__ = ["HasMethods", "Interval", "LinearClassifierMixin", "StrOptions", "_check_sample_weight",
           "_fit_context", "_ovr_decision_function", "_sigmoid_calibration"]
