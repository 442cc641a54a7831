"""Progress of a training run as the command line and the demo show it.

A tqdm bar over all iterations that records each one-vs-rest problem's
objective, certificate and test error at the checks of a traced run (the
estimators' ``callback``).  Only the standard library at import: the command
line imports this module before it knows which command runs.
"""

import sys

#: Objective evaluations over a traced run (``--test``, ``--plot``, the demo's curves).
CHECKS_FOR_PLOT = 20


def problem_error(scores, y_test, classes, c, n_problems):
    """Test error of binary problem c's decision values: the classification error for two
    classes, else that of its one-vs-rest task (classes[c] against the rest)."""
    import numpy as np

    if n_problems == 1:
        return float(np.mean(np.where(scores > 0, classes[1], classes[0]) != y_test))
    return float(np.mean((scores > 0) != (y_test == classes[c])))


class Progress:
    """tqdm bar over all iterations; records each problem's objective and test error at checks.

    The bar stays on screen when the run ends (the summary lines follow it).
    ``history[c]`` is problem c's record; with several one-vs-rest problems the
    test error recorded is that of problem c's binary task (class c against the rest).
    """

    def __init__(self, total, quiet, X_test, y_test, classes):
        from tqdm import tqdm

        self.bar = tqdm(total=total, unit="it", unit_scale=True, disable=quiet or None,
                        file=sys.stderr, leave=True)
        self.X_test, self.y_test, self.classes = X_test, y_test, classes
        self.done = {}
        self.history = {}

    def __call__(self, info):
        before = sum(self.done.values())
        c = info["problem"]
        self.done[c] = info["iterations"]
        self.bar.update(sum(self.done.values()) - before)
        gap = info["gap"]
        if gap is None:
            return
        hist = self.history.setdefault(
            c, {"t": [], "time": [], "primal": [], "dual": [], "test_error": []})
        hist["t"].append(info["t"])
        hist["time"].append(info["seconds"])
        hist["primal"].append(gap.primal)
        hist["dual"].append(gap.dual)
        postfix = {"objective": f"{gap.primal:.5g}"}
        if self.X_test is not None:
            scores = self.X_test @ info["coef"] + info["intercept"]
            error = problem_error(scores, self.y_test, self.classes, c, info["n_problems"])
            hist["test_error"].append(error)
            postfix["test error"] = f"{100 * error:.2f}%"
        if info["n_problems"] == 1:
            self.bar.set_postfix(postfix, refresh=False)

    def close(self):
        self.bar.close()
