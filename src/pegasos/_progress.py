"""Progress of a training run as the command line and the demo show it.

A tqdm bar over all iterations that records each one-vs-rest problem's
objective, certificate and test error at the checks of a traced run (the
estimators' ``callback``).  Only the standard library at import: the command
line imports this module before it knows which command runs.
"""

import sys

#: Objective evaluations over a traced run (``--test``, ``--plot``, the demo's curves).
CHECKS_FOR_PLOT = 20


def problem_error(scores, y_test, classes, c, n_problems, pairs=None):
    """Test error of binary problem c's decision values: the classification error for two
    classes; with ``pairs`` (one-vs-one: problem c is the pair of labels ``pairs[c]``,
    positive for the first), the error on the test rows of those two classes; else that
    of its one-vs-rest task (classes[c] against the rest)."""
    import numpy as np

    if n_problems == 1:
        return float(np.mean(np.where(scores > 0, classes[1], classes[0]) != y_test))
    if pairs is not None:
        first, second = pairs[c]
        mine = (y_test == first) | (y_test == second)
        if not mine.any():
            return float("nan")
        return float(np.mean((scores[mine] > 0) != (y_test[mine] == first)))
    return float(np.mean((scores > 0) != (y_test == classes[c])))


def linear_decision(X, report):
    """A linear model's decision values on X from a :class:`~pegasos.Report`."""
    return X @ report.coef + report.intercept


class Progress:
    """A training run as the command line and the demo show it: the estimators' ``callback``.

    A tqdm bar over all iterations (of every one-vs-rest problem) that, at
    the reports that measure something -- a certificate (``gap``) or the
    kernel evaluations of a kernel solver -- records problem c's time, its
    objective or kernel evaluations, and its test error in ``history[c]``
    (with several problems, the error of its binary task: class c against the
    rest).  ``decision(X_test, report)`` gives the report's model's decision
    values (by default a linear model's).  ``pairs``: the labels of each problem's
    two classes, for one-vs-one models.  ``total`` None: the first report's
    budget.  The bar stays on screen when the run ends (the summary lines
    follow it).
    """

    def __init__(self, total, quiet, X_test, y_test, classes, decision=linear_decision,
                 pairs=None):
        from tqdm import tqdm  # (a bar only where one is shown: fits and the CLI's train)

        self.bar = tqdm(total=total, unit="it", unit_scale=True, disable=quiet or None,
                        file=sys.stderr, leave=True)
        self.X_test, self.y_test, self.classes = X_test, y_test, classes
        self.decision = decision
        self.pairs = pairs
        self.done = {}
        self.history = {}
        self.holdout_error = None  # a stream fit's last measurement

    def __call__(self, report):
        if self.bar.total is None and report.iterations_total > 0:  # a budget the fit resolved
            self.bar.total = report.iterations_total * report.n_problems
        before = sum(self.done.values())
        c = report.problem
        self.done[c] = report.iterations
        self.bar.update(sum(self.done.values()) - before)
        if report.rows_read is not None:
            self._stream_postfix(report)
            return
        gap = report.gap
        if gap is None and report.kernel_evals is None:
            return
        hist = self.history.setdefault(c, {"t": [], "time": [], "test_error": []})
        hist["t"].append(report.t)
        hist["time"].append(report.seconds)
        postfix = {}
        if gap is not None:
            hist.setdefault("primal", []).append(gap.primal)
            hist.setdefault("dual", []).append(gap.dual)
            postfix["objective"] = f"{gap.primal:.5g}"
        if report.kernel_evals is not None:
            hist.setdefault("kernel_evals", []).append(report.kernel_evals)
        if self.X_test is not None:
            scores = self.decision(self.X_test, report)
            error = problem_error(scores, self.y_test, self.classes, c, report.n_problems,
                                  self.pairs)
            hist["test_error"].append(error)
            postfix["test error"] = f"{100 * error:.2f}%"
        if report.n_problems == 1 and postfix:
            self.bar.set_postfix(postfix, refresh=False)

    def _stream_postfix(self, report):
        """A stream fit's rows read, bytes per second and last held-out error."""
        if report.holdout_error is not None:
            self.holdout_error = report.holdout_error
        if report.problem != report.n_problems - 1:
            return
        postfix = {"rows read": f"{report.rows_read:,}",
                   "MB/s": f"{report.bytes_read / max(report.seconds, 1e-9) / 1e6:.0f}"}
        if self.holdout_error is not None:
            postfix["held-out error"] = f"{100 * self.holdout_error:.2f}%"
        self.bar.set_postfix(postfix, refresh=False)

    def close(self):
        self.bar.close()
