"""What a fit of :class:`~pegasos.PegasosClassifier` on a stream refuses of its
parameters: one table, which the estimator's stream fit and the command line's
``--stream`` checks both read.  Only the standard library: the command line reads it
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
