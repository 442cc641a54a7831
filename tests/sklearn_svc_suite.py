"""scikit-learn's own tests of LIBSVM's estimators run against ours: ``SVC``, ``NuSVC``,
``SVR``, ``NuSVR`` and ``OneClassSVM`` replaced by :class:`pegasos.DualSVC`,
:class:`~pegasos.DualNuSVC`, :class:`~pegasos.DualSVR`, :class:`~pegasos.DualNuSVR` and
:class:`~pegasos.DualOneClassSVM`.

The outcomes are keyed ``module::test[parameters]``.

``python -m tests.sklearn_svc_suite OUT.json`` runs scikit-learn's
``sklearn/svm/tests/test_svm.py``, ``test_sparse.py`` and ``test_bounds.py`` (of the installed
version, unchanged, where it installed them) with a pytest plugin that replaces
those five classes with ours before they are imported, and writes each test's outcome
and whether it applies to them:

- a test parametrized by estimator classes or instances applies when one of them is
  ours (a replaced class);
- any other test applies when its source (decorators included) names one of the five
  (not ``LinearSVC`` nor ``LinearSVR``).

``tests/test_sklearn_svc.py`` compares the outcomes with the list of expected
failures and their reasons.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

MODULES = ("test_svm", "test_sparse", "test_bounds")

PLUGIN = '''
import inspect
import json
import os
import re

import sklearn.svm
from sklearn.base import BaseEstimator

from pegasos import DualNuSVC, DualNuSVR, DualOneClassSVM, DualSVC, DualSVR

REPLACED = {"SVC": DualSVC, "NuSVC": DualNuSVC, "SVR": DualSVR, "NuSVR": DualNuSVR,
            "OneClassSVM": DualOneClassSVM}
for _name, _ours in REPLACED.items():  # before the test modules import them
    setattr(sklearn.svm, _name, _ours)
OURS = tuple(REPLACED.values())
NAMES_SVC = re.compile(r"(?<![A-Za-z_])(SVC|NuSVC|SVR|NuSVR|OneClassSVM)\\b")
OUTCOMES = {}


def _name(item):
    return f"{item.module.__name__.rsplit('.', 1)[-1]}::{item.name}"


def _applies(item):
    params = getattr(getattr(item, "callspec", None), "params", {})
    estimators = [v if isinstance(v, type) else type(v) for v in params.values()
                  if isinstance(v, BaseEstimator)
                  or (isinstance(v, type) and issubclass(v, BaseEstimator))]
    if estimators:
        return any(c in OURS for c in estimators)
    try:
        return bool(NAMES_SVC.search(inspect.getsource(item.function)))
    except (OSError, TypeError):
        return False


NAMES = {}


def pytest_collection_modifyitems(items):
    for item in items:
        NAMES[item.nodeid] = _name(item)
        OUTCOMES[_name(item)] = {"applies": _applies(item), "outcome": "not run"}


def pytest_runtest_logreport(report):
    entry = OUTCOMES[NAMES[report.nodeid]]
    if report.when == "call" or report.outcome != "passed":
        entry["outcome"] = report.outcome
        if report.outcome == "failed":
            lines = report.longreprtext.strip().splitlines()
            said = [line[1:].strip() for line in lines if line.startswith("E ")]
            entry["error"] = (said[0] if said else lines[-1])[:300]


def pytest_sessionfinish(session):
    with open(os.environ["SVC_SUITE_OUT"], "w") as f:
        json.dump(OUTCOMES, f, indent=1, sort_keys=True)
'''


def run(out, extra_args=()):
    """Run the suite; returns pytest's exit code and its output's tail, with the outcomes in
    ``out``.  The tests run where scikit-learn installed them (its own conftest gives their
    fixtures), with the plugin above loaded first."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "svc_suite_plugin.py").write_text(PLUGIN)
        (Path(tmp) / "pytest.ini").write_text("[pytest]\n")  # not this project's settings
        env = {**os.environ, "SVC_SUITE_OUT": str(Path(out).resolve()),
               "PYTHONPATH": os.pathsep.join([tmp, os.environ.get("PYTHONPATH", "")])}
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
             "svc_suite_plugin", "-W", "ignore", "--rootdir", tmp, "-c", str(Path(tmp) / "pytest.ini"),
             *extra_args, "--pyargs", *(f"sklearn.svm.tests.{name}" for name in MODULES)],
            cwd=tmp, env=env, capture_output=True, text=True, check=False)
    return done.returncode, done.stdout[-3000:] + done.stderr[-3000:]


if __name__ == "__main__":
    code, tail = run(sys.argv[1], sys.argv[2:])
    print(tail)
    results = json.loads(Path(sys.argv[1]).read_text())
    applicable = {k: v for k, v in results.items() if v["applies"]}
    passed = sum(v["outcome"] == "passed" for v in applicable.values())
    print(f"{passed} of {len(applicable)} applicable tests pass")
