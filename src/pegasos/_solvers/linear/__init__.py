"""Linear Pegasos' solver layer, a module per concern.

The estimator (:class:`pegasos.PegasosClassifier`) validates, plans and keeps
the fitted attributes; these modules run the plan:

* :mod:`.state`: :class:`PegasosState` (all a fit continues from), the
  intercept's :class:`Layout`, the rows' :class:`SquaredNorms`, the
  :func:`certificate`, and :func:`set_fitted`, the one place a fitted linear
  model's attributes and state are built (fit, load, LIBLINEAR import, Dask);
* :mod:`.fit`: the in-memory driver, :func:`fit_binary`, and its
  :class:`Monitor`;
* :mod:`.stream`: the stream driver, :func:`fit_stream` (a round at a time from
  a :class:`~pegasos.stream.RowSource`), and its :class:`StreamMonitor`;
* :mod:`.distributed`: the Dask backend's worker and driver steps
  (:func:`partition_sum`, :func:`local_epoch`, :func:`step_from_sum`), which
  call the same compiled step by its named settings.
"""

from .distributed import local_epoch, partition_sum, step_from_sum
from .fit import (
    HISTORY_KEYS,
    Monitor,
    check_first_step,
    fit_binary,
    new_history,
    warn_unconverged,
)
from .state import (
    Layout,
    PegasosState,
    Problem,
    SquaredNorms,
    certificate,
    random_init,
    set_fitted,
)
from .stream import StreamMonitor, fit_stream

__all__ = ["HISTORY_KEYS", "Layout", "Monitor", "PegasosState", "Problem", "SquaredNorms",
           "StreamMonitor", "certificate", "check_first_step", "fit_binary", "fit_stream",
           "local_epoch", "new_history", "partition_sum", "random_init", "set_fitted",
           "step_from_sum", "warn_unconverged"]
