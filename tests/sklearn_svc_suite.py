"""scikit-learn's own SVC tests run against :class:`pegasos.DualSVC`.

``python -m tests.sklearn_svc_suite OUT.json`` copies scikit-learn's
``sklearn/svm/tests/test_svm.py`` and ``test_sparse.py`` (of the installed
version, unchanged) into a temporary folder beside a ``conftest.py`` that
replaces ``sklearn.svm.SVC`` with ``DualSVC`` before they are imported, runs
them with pytest, and writes each test's outcome and whether it applies to SVC:

- a test parametrized by estimator classes applies when one of its parameters is
  ``DualSVC`` (the replaced ``svm.SVC``);
- any other test applies when its source (decorators included) names ``SVC``
  (not ``LinearSVC`` nor ``NuSVC``).

``tests/test_sklearn_svc.py`` compares the outcomes with the list of expected
failures and their reasons.
"""

import json
import shutil
import subprocess
import sys
import tempfile
from importlib.util import find_spec
from pathlib import Path

FILES = ("test_svm.py", "test_sparse.py")

CONFTEST = '''
import inspect
import json
import os
import re

import sklearn.svm

from pegasos import DualSVC

sklearn.svm.SVC = DualSVC  # before the test modules import it
NAMES_SVC = re.compile(r"(?<![A-Za-z_])SVC\\b")
OUTCOMES = {}


def _applies(item):
    params = getattr(getattr(item, "callspec", None), "params", {})
    classes = [v for v in params.values() if isinstance(v, type)]
    if classes:
        return any(c is DualSVC for c in classes)
    try:
        return bool(NAMES_SVC.search(inspect.getsource(item.function)))
    except (OSError, TypeError):
        return False


def pytest_collection_modifyitems(items):
    for item in items:
        OUTCOMES[item.nodeid] = {"applies": _applies(item), "outcome": "not run"}


def pytest_runtest_logreport(report):
    entry = OUTCOMES.setdefault(report.nodeid, {"applies": False, "outcome": "not run"})
    if report.when == "call" or report.outcome != "passed":
        entry["outcome"] = report.outcome
        if report.outcome == "failed":
            entry["error"] = report.longreprtext.strip().splitlines()[-1][:300]


def pytest_sessionfinish(session):
    with open(os.environ["SVC_SUITE_OUT"], "w") as f:
        json.dump(OUTCOMES, f, indent=1, sort_keys=True)
'''


def run(out, extra_args=()):
    """Run the suite; returns pytest's exit code, with the outcomes in ``out``."""
    source = Path(find_spec("sklearn.svm.tests").origin).parent
    with tempfile.TemporaryDirectory() as tmp:
        for name in FILES:
            shutil.copy(source / name, Path(tmp) / name)
        (Path(tmp) / "conftest.py").write_text(CONFTEST)
        env = {**__import__("os").environ, "SVC_SUITE_OUT": str(Path(out).resolve())}
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
             "-W", "ignore", "--rootdir", tmp, *extra_args, *FILES],
            cwd=tmp, env=env, capture_output=True, text=True, check=False)
    return done.returncode, done.stdout[-3000:] + done.stderr[-3000:]


if __name__ == "__main__":
    code, tail = run(sys.argv[1], sys.argv[2:])
    print(tail)
    results = json.loads(Path(sys.argv[1]).read_text())
    applicable = {k: v for k, v in results.items() if v["applies"]}
    passed = sum(v["outcome"] == "passed" for v in applicable.values())
    print(f"{passed} of {len(applicable)} applicable tests pass")
