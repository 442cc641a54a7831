"""The one progress record of every solver: :class:`Report`."""

from dataclasses import dataclass, fields

import numpy as np


@dataclass(frozen=True)
class Report:
    """What a solver says between its compiled calls: the ``callback``'s argument.

    Every estimator's ``callback``, the command line's progress bar and test
    error curves, the plots and the Dask backend read this one record.  It
    also reads as the mapping of earlier versions: ``report["coef"]`` is
    ``report.coef``.

    Parameters
    ----------
    problem : int
        The binary problem (0 for two classes, else the class index of its
        one-vs-rest problem).
    n_problems : int
        How many binary problems the fit solves.
    t : int
        Iterations of this problem so far (across the calls of a continued
        or partial fit).
    iterations : int
        Iterations run in this fit so far (rounds of a distributed fit).
    iterations_total : int
        Iterations this fit will run at most.
    seconds : float or None
        Time in the solver so far (None on a Dask cluster).
    coef : ndarray
        The current output model: the weights (n_features,) of a linear
        model, one coefficient per training row for a kernel model (per point
        of the budget for a budgeted one).
    intercept : float
        The current output model's intercept.
    kernel_evals : int or None, default=None
        Kernel evaluations so far (kernel solvers).
    gap : DualityGap or None, default=None
        The certificate of the current model, when the fit computed one.
    client : distributed.Client or None, default=None
        The Dask client of a distributed fit.
    rows_read : int or None, default=None
        Rows a stream fit has read from its files so far.
    bytes_read : int or None, default=None
        Bytes (uncompressed) a stream fit has read so far.
    holdout_error : float or None, default=None
        The held-out error of a stream fit, when measured after this round.
    support_vectors : int or None, default=None
        The points in a budgeted kernel fit's budget (``budget=``); ``coef``
        then holds one coefficient per point.

    See Also
    --------
    pegasos.PegasosClassifier : Its ``callback`` receives these.
    pegasos.KernelPegasosClassifier : Likewise, with ``kernel_evals``.

    Examples
    --------
    >>> import numpy as np
    >>> from pegasos import Report
    >>> r = Report(problem=0, n_problems=1, t=10, iterations=10, iterations_total=100,
    ...            seconds=0.5, coef=np.zeros(3), intercept=0.0)
    >>> r.t, r["iterations_total"], r.gap is None
    (10, 100, True)
    """

    problem: int
    n_problems: int
    t: int
    iterations: int
    iterations_total: int
    seconds: float | None
    coef: np.ndarray
    intercept: float
    kernel_evals: int | None = None
    gap: object = None
    client: object = None
    rows_read: int | None = None
    bytes_read: int | None = None
    holdout_error: float | None = None
    support_vectors: int | None = None

    def __getitem__(self, key):
        """The field ``key``, as the dict of earlier versions gave it."""
        if key not in self.keys():
            raise KeyError(key)
        return getattr(self, key)

    def keys(self):
        """The field names, in order.

        Returns
        -------
        tuple of str
            The names of the record's fields, as a dict's keys.
        """
        return tuple(f.name for f in fields(self))
