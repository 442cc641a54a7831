"""LIBSVM's five problems as one table (``_solvers/problems.py``): every estimator, the model
files, the LIBSVM interchange and ``pegasos info`` read the same entry."""

import pathlib
import re

import numpy as np
import pytest

from pegasos import DualNuSVC, DualNuSVR, DualOneClassSVM, DualSVC, DualSVR
from pegasos._solvers.problems import (
    PROBLEMS,
    estimator_class,
    hard_margin,
    problem_of,
    scaled_bounds,
)
from pegasos.dask_svc import DaskDualSVC

SRC = pathlib.Path(__file__).resolve().parents[1] / "src" / "pegasos"


def test_each_public_estimator_names_its_problem_and_the_table_names_it_back():
    classes = {DualSVC: "c_svc", DualNuSVC: "nu_svc", DualOneClassSVM: "one_class",
               DualSVR: "epsilon_svr", DualNuSVR: "nu_svr"}
    assert list(PROBLEMS) == list(classes.values())  # LIBSVM's order: -s 0 to 4
    for cls, svm_type in classes.items():
        assert problem_of(cls()).svm_type == svm_type
        assert estimator_class(PROBLEMS[svm_type]) is cls
    assert problem_of(DaskDualSVC()) is PROBLEMS["c_svc"]  # (SVC's model, on Dask)


def test_model_files_and_libsvm_files_read_the_table():
    from pegasos import interchange, model_io

    assert interchange.SVM_TYPES == {p.estimator: p.svm_type for p in PROBLEMS.values()}
    for p in PROBLEMS.values():
        assert model_io._SCHEMA[p.estimator] == (p.arrays, p.scalars)
        assert model_io._estimators()[p.estimator] is estimator_class(p)


def test_the_five_names_are_registered_in_the_table_only():
    """Outside the table, no module tells the LIBSVM estimators apart by their names (the
    package's exports and the modules' ``__all__`` aside), nor any model by a class name."""
    names = "|".join(p.estimator for p in PROBLEMS.values())
    quoted = re.compile(rf'"({names})"')
    for path in SRC.rglob("*.py"):
        text = path.read_text()
        assert not re.search(r"__name__ ==|__name__\.startswith|startswith\(\"Dual\"\)",
                             text.replace('if __name__ == "__main__"', "")), path
        if path.name in ("problems.py", "__init__.py", "demo.py"):
            continue
        for line in text.splitlines():
            if quoted.search(line) and not line.startswith("__all__") and ">>>" not in line:
                pytest.fail(f"{path.name}: {line.strip()}")


def test_c_inf_bounds_the_weighted_rows_and_keeps_the_others_out():
    w = np.array([0.0, 1.0, 2.0])
    with np.errstate(invalid="raise"):  # (no inf * 0)
        assert scaled_bounds(np.inf, w).tolist() == [0.0, np.inf, np.inf]
    assert scaled_bounds(2.0, w).tolist() == [0.0, 2.0, 4.0]
    assert hard_margin(np.inf) and not hard_margin(1e300)


@pytest.mark.parametrize("est, shown", [
    (DualSVC(C=4), r"C = 4 \(SVC's C, the weight of the hinge loss; a free intercept\)"),
    (DualNuSVC(nu=0.3), r"nu = 0.3 \(each pair's C = 1/r: [\d.e+-]+\)"),
    (DualSVR(C=2, epsilon=0.2), r"C = 2 \(the weight of the epsilon-insensitive loss\), "
                                r"epsilon = 0.2"),
    (DualNuSVR(C=2, nu=0.4), r"C = 2 .*, nu = 0.4 \(epsilon = [\d.e+-]+ found\)"),
    (DualOneClassSVM(nu=0.2), r"nu = 0.2$"),
    (DaskDualSVC(C=3), r"C = 3 \(SVC's C"),
])
def test_each_dual_estimator_describes_its_regularisation(est, shown):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    est.fit(X, (X[:, 0] > 0).astype(int) if problem_of(est).classifier else X[:, 0])
    assert re.search(shown, est._describe_regularisation()["text"])


_FIVE = [(DualSVC(), "y2"), (DualNuSVC(nu=0.3), "y2"), (DualSVR(), "z"),
         (DualNuSVR(nu=0.3), "z"), (DualOneClassSVM(nu=0.3), None)]


@pytest.mark.parametrize("est, target", _FIVE, ids=lambda v: type(v).__name__)
def test_one_driver_solves_each_problem_and_says_one_line_of_one_format(est, target, capsys,
                                                                       monkeypatch):
    """The pairs and the one problem go through the same driver (``_dual.solve_all``),
    which prints LIBSVM's line per problem in one format (the one problem's with its obj)."""
    from pegasos import _dual

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    data = {"y2": (X[:, 0] > 0).astype(int), "z": X[:, 0] + 0.1 * rng.normal(size=60)}
    calls = []
    solve_all = _dual.solve_all
    for module in ("pegasos._dual", "pegasos.svc"):
        monkeypatch.setattr(f"{module}.solve_all",
                            lambda *a: calls.append(a) or solve_all(*a))
    est.set_params(verbose=True).fit(X, None if target is None else data[target])
    assert len(calls) == 1
    line = capsys.readouterr().out
    obj = "" if est._problem.endswith("svc") else r"obj = \S+, "
    assert re.fullmatch(rf"{type(est).__name__}: problem 1 of 1: \d+ working sets, \d+ pair "
                        rf"steps, {obj}nSV = \d+, rho = \S+, violation = \S+\n", line), line


@pytest.mark.parametrize("cls", [type(est) for est, _ in _FIVE])
def test_each_estimator_shows_the_shared_entries_in_full(cls):
    """The working-set parameters are written once (``_dual._PARTS``) and shown in full in
    each of the five (no 'As DualSVC's' for them), as numpydoc and help() read them."""
    doc = cls.__doc__
    for entry in ("tol : float > 0, default=1e-3\n        Stop when every problem's",
                  "working_set_size : int >= 4, default=1024\n        Variables per working",
                  "cache_size : float >= 0, default=200.0\n        Memory in MB",
                  "shrinking : bool, default=True"):
        assert doc.count(entry) == 1, (cls.__name__, entry)
    assert "__" not in doc.replace("__init__", "")
