"""What a fit of :class:`~pegasos.PegasosClassifier` on a stream refuses of its
parameters: one table, which the estimator's stream fit and the command line's
``--stream`` checks both read; and :class:`HeldOutRule`, when every stream fit measures
its held-out error and stops on it.  Only the standard library: the command line reads it
before anything heavy loads (a file too large to load is refused at once)."""

#: (parameter, refused when its value is, how the error names it: a format of the
#: parameters), in the order the error names them.
STREAM_REFUSALS = (
    ("lam", lambda lam: lam is None, "C (it sets lam = 1 / (C n), and a stream's n is not "
     "known before it is read): give lam"),
    ("n_epochs", lambda n_epochs: n_epochs is not None, "n_epochs (a stream's length is not "
     "known before it is read): give n_iter"),
    ("warm_start", bool, "warm_start"),
    ("tol", lambda tol: tol is not None, "tol"),
    ("track_objective", bool, "track_objective"),
    ("probability", bool, "probability=True"),
    ("init", lambda init: init != "zero", "init='random'"),
    ("class_weight", lambda weight: weight == "balanced", "class_weight='balanced'"),
    ("sampling", lambda sampling: sampling != "uniform", "sampling={sampling!r}"),
)


def stream_refusals(params):
    """Of ``params`` (an estimator's ``get_params()``, or some of them: those left out
    are not judged), those a fit on a stream refuses: ``{parameter: how the error names
    it}``, in :data:`STREAM_REFUSALS`' order.

    Examples
    --------
    >>> stream_refusals({"lam": None, "tol": 1e-3, "sampling": "cyclic"})
    {'lam': "C (it sets lam = 1 / (C n), and a stream's n is not known before it is read): give lam", 'tol': 'tol', 'sampling': "sampling='cyclic'"}
    """
    return {name: words.format(**params) for name, refused, words in STREAM_REFUSALS
            if name in params and refused(params[name])}


class HeldOutRule:
    """When a stream fit measures its held-out error, and when the errors stop it: once the
    rows drawn since the last measurement are at least the ``n_held`` held-out rows and a
    tenth of all drawn (and at the fit's end), stopping after ``patience`` measurements
    without a new lowest error (the first lowest counts).  Linear Pegasos', the budgeted
    kernel fits' and the landmark solver's stream fits all follow it."""

    def __init__(self, n_held, patience):
        self.n_held, self.patience = n_held, patience
        self.errors = []  # (iterations, held-out error) at each measurement
        self.drawn = 0  # rows drawn at the last measurement

    def due(self, drawn, last=False):
        """Whether to measure after ``drawn`` rows (``last``: the fit ends here)."""
        return drawn != self.drawn and (last or drawn - self.drawn >= max(self.n_held,
                                                                          drawn / 10))

    def record(self, iterations, drawn, error):
        """Keep a measurement; True to stop."""
        self.drawn = drawn
        self.errors.append((iterations, error))
        best = min(range(len(self.errors)), key=lambda i: self.errors[i][1])
        return len(self.errors) - 1 - best >= self.patience
