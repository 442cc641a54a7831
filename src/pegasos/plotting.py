"""Training curves in the style of the Pegasos papers' figures: the objective
and the test error against iterations and against CPU time."""

import os

import numpy as np

from ._files import write_atomic

__all__ = ["plot_kernel_training", "plot_training"]


def plot_training(history, path, title="", average_start=None):
    """Draw the objective and the test error against iterations and time.

    Parameters
    ----------
    history : dict of arrays, or dict of label -> dict of arrays
        One problem's record: ``t`` (iterations), ``time`` (solver seconds),
        ``primal`` and ``dual`` (the certified lower bound on the optimum),
        and optionally ``test_error``, all of one length -- as recorded by
        the ``pegasos train`` command (``objective_history_`` plus its test
        error).  Or several such records by label (the one-vs-rest problems
        of multi-class data): one curve each, the lower bound dashed in the
        same colour.
    path : str
        The image file; its extension picks the format (``.png``, ``.svg``,
        ``.pdf``).  Written atomically.
    title : str
        The figure's title.
    average_start : int, default=None
        The iteration where a suffix average began (``average`` a float):
        marked on the iteration axes, since before it the model shown is the
        last iterate.

    See Also
    --------
    plot_kernel_training : The kernel solvers' curves.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from pegasos import PegasosClassifier
    >>> from pegasos.plotting import plot_training
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = PegasosClassifier(track_objective=True, check_every=1, random_state=0).fit(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "curves.png")
    >>> plot_training(clf.objective_history_[0], path, title="breast cancer")
    >>> os.path.getsize(path) > 0
    True
    """
    curves = _curves(history, "t")
    with_error = all(len(h.get("test_error") or ()) for h in curves.values())
    rows = 2 if with_error else 1
    fig = _figure(3.6 * rows)
    axes = fig.subplots(rows, 2, squeeze=False)
    for col, (key, xlabel) in enumerate((("t", "iterations"), ("time", "solver time (s)"))):
        for i, (label, h) in enumerate(curves.items()):
            x = np.asarray(h[key], dtype=float)
            color = f"C{i % 10}"
            name = f"{label}: " if label else ""
            axes[0, col].plot(x, h["primal"], marker="o", markersize=3, color=color,
                              label=f"{name}objective P(w)")
            axes[0, col].plot(x, h["dual"], marker="o", markersize=2, linestyle="--",
                              color=color, alpha=0.7,
                              label="certified lower bound D" if not label else None)
            if rows == 2:
                axes[1, col].plot(x, 100 * np.asarray(h["test_error"], dtype=float), marker="o",
                                  markersize=3, color=color if label else "C2",
                                  label=label or None)
        axes[0, col].set_ylabel("objective (dashed: certified lower bound)" if len(curves) > 1
                                else "objective")
        if rows == 2:
            axes[1, col].set_ylabel("test error (%)" if len(curves) == 1
                                    else "test error of each one-vs-rest task (%)")
        for row in range(rows):
            ax = axes[row, col]
            ax.set_xlabel(xlabel)
            _log_x(ax)
            if col == 0 and average_start is not None:
                ax.axvline(average_start, color="grey", linestyle=":",
                           label="averaging starts" if row == 0 else None)
        axes[0, col].legend(loc="best", fontsize="x-small" if len(curves) > 3 else "small")
    _write(fig, path, title)


def plot_kernel_training(history, path, title=""):
    """Draw a kernel solver's test error against kernel evaluations and against time.

    Parameters
    ----------
    history : dict of arrays, or dict of label -> dict of arrays
        ``kernel_evals``, ``time`` (solver seconds) and ``test_error``
        arrays of one problem, or such records by label (one curve per
        one-vs-rest problem or pair of classes), as ``pegasos train -s
        KERNEL-SOLVER --plot`` records them through the estimator's
        ``callback``.
    path : str
        The image file; its extension picks the format.  Written atomically.
    title : str, default=""
        The figure's title.

    See Also
    --------
    plot_training : The linear solver's curves.

    Examples
    --------
    >>> import os, tempfile
    >>> from pegasos.plotting import plot_kernel_training
    >>> history = {"kernel_evals": [1e4, 2e4, 4e4], "time": [0.1, 0.2, 0.4],
    ...            "test_error": [0.2, 0.12, 0.1]}
    >>> path = os.path.join(tempfile.mkdtemp(), "kernel.svg")
    >>> plot_kernel_training(history, path, title="rbf")
    >>> os.path.getsize(path) > 0
    True
    """
    curves = _curves(history, "test_error")
    fig = _figure(3.8)
    axes = fig.subplots(1, 2)
    for ax, key, xlabel in ((axes[0], "kernel_evals", "kernel evaluations"),
                            (axes[1], "time", "solver time (s)")):
        for i, (label, h) in enumerate(curves.items()):
            ax.plot(np.asarray(h[key], dtype=float), 100 * np.asarray(h["test_error"], dtype=float),
                    marker="o", markersize=3, color=f"C{i % 10}", label=label or None)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("test error (%)" if len(curves) == 1
                      else "test error of each one-vs-rest task (%)")
        _log_x(ax)
        if len(curves) > 1:
            ax.legend(loc="best", fontsize="x-small" if len(curves) > 3 else "small")
    _write(fig, path, title)


def _curves(history, key):
    """{label: record} with recorded ``key`` values; one record is labelled ""."""
    curves = {"": history} if key in history else dict(history)
    curves = {label: h for label, h in curves.items() if len(h.get(key, ()))}
    if not curves:
        raise ValueError("no training history to plot: the run recorded no checks")
    return curves


def _figure(height):
    # (matplotlib's import cost, about 0.6 s: paid only when a figure is drawn)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _write(fig, path, title):
    """Title the figure and write it atomically, in the format of the path's extension."""
    if title:
        fig.suptitle(title)
    fmt = os.path.splitext(os.fspath(path))[1].lstrip(".").lower() or "png"
    write_atomic(path, lambda f: fig.savefig(f, format=fmt, dpi=110))


def _log_x(ax):
    """A log x axis that labels enough ticks to be read on short ranges too."""
    from matplotlib.ticker import LogFormatterSciNotation, LogLocator

    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(base=10))
    ax.xaxis.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0)))
    # 2 and 5 labelled where the axis spans at most about 1.5 decades (a single
    # labelled power of ten otherwise); none on longer axes, where they would overlap
    ax.xaxis.set_minor_formatter(LogFormatterSciNotation(labelOnlyBase=False,
                                                         minor_thresholds=(1.5, 0.6)))
    ax.grid(True, which="both", alpha=0.3)
