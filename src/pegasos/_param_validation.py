"""Parameter-constraint helpers (scikit-learn's ``_parameter_constraints`` style).

scikit-learn keeps ``Interval``/``StrOptions`` in a private module; they are
imported here, in one place, so a future move needs one edit.  The supported
scikit-learn range is pinned in ``pyproject.toml``.
"""

from sklearn.utils._param_validation import Interval, StrOptions

__all__ = ["Interval", "StrOptions"]
