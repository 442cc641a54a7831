"""Training curves in the style of the Pegasos slides (seed 004): the objective
and the test error against iterations and against CPU time."""

import os

import numpy as np

from ._files import write_atomic

__all__ = ["plot_training"]


def plot_training(history, path, title="", average_start=None):
    """Draw the objective and the test error against iterations and time.

    Parameters
    ----------
    history : dict of arrays
        ``t`` (iterations), ``time`` (solver seconds), ``primal`` and ``dual``
        (the certified lower bound on the optimum), and optionally
        ``test_error``, all of one length -- as recorded by the ``pegasos
        train`` command (``objective_history_`` plus its test error).
    path : str
        The image file; its extension picks the format (``.png``, ``.svg``,
        ``.pdf``).  Written atomically.
    title : str
    average_start : int, default=None
        The iteration where a suffix average began (``average`` a float):
        marked on the iteration axes, since before it the model shown is the
        last iterate.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import NullFormatter

    t = np.asarray(history["t"], dtype=float)
    seconds = np.asarray(history["time"], dtype=float)
    primal = np.asarray(history["primal"], dtype=float)
    dual = np.asarray(history["dual"], dtype=float)
    test_error = history.get("test_error")
    rows = 2 if test_error is not None and len(test_error) else 1
    fig = Figure(figsize=(10, 3.6 * rows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, 2, squeeze=False)
    for col, (x, xlabel) in enumerate(((t, "iterations"), (seconds, "solver time (s)"))):
        ax = axes[0, col]
        ax.plot(x, primal, marker="o", markersize=3, label="objective P(w)")
        ax.plot(x, dual, marker="o", markersize=3, linestyle="--", label="certified lower bound D")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("objective")
        _style(ax, NullFormatter)
        if col == 0 and average_start is not None:
            ax.axvline(average_start, color="grey", linestyle=":", label="averaging starts")
        ax.legend(loc="best", fontsize="small")
        if rows == 2:
            ax = axes[1, col]
            ax.plot(x, 100 * np.asarray(test_error, dtype=float), marker="o", markersize=3,
                    color="C2")
            ax.set_xlabel(xlabel)
            ax.set_ylabel("test error (%)")
            _style(ax, NullFormatter)
            if col == 0 and average_start is not None:
                ax.axvline(average_start, color="grey", linestyle=":")
    if title:
        fig.suptitle(title)
    fmt = os.path.splitext(os.fspath(path))[1].lstrip(".").lower() or "png"
    write_atomic(path, lambda f: fig.savefig(f, format=fmt, dpi=110))


def _style(ax, null_formatter):
    ax.set_xscale("log")
    ax.xaxis.set_minor_formatter(null_formatter())  # minor labels overlap on short ranges
    ax.grid(True, which="both", alpha=0.3)
