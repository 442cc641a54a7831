"""One working-set problem with its rows split between holders (_solvers.across), in this
process: the iterates, and the solution, are the in-memory solver's bit for bit."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits

from pegasos import DualSVC
from pegasos._dual import working_set_plan
from pegasos._numba.linear import row_sqnorms
from pegasos._rows import as_rows
from pegasos._solvers import working_set as _ws
from pegasos._solvers.across import Partition, plan_rows, run_across
from pegasos._solvers.engine import points


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X / 16, y


def _solve_both(X, Y, bounds, cuts, **params):
    """(the in-memory solver's result, the holders') on X split at ``cuts``, with the
    bounds ``bounds`` (``params``: DualSVC's, for the plan)."""
    est = DualSVC(**params)
    est.gamma_ = params["gamma"]
    n = X.shape[0]
    plan = working_set_plan(est, n, plan_rows(n), n)
    rows = as_rows(X, X.dtype)
    memory = _ws.run(points(rows, row_sqnorms(rows.kernel, n)), est._kargs, Y, bounds, plan)
    edges = [0, *cuts, n]
    owned = [np.arange(lo, hi) for lo, hi in zip(edges[:-1], edges[1:])]
    slots = min(n, plan.q + min(plan.new, plan.q) + plan.cache_rows)
    parts = [Partition(X[r], r, Y[r], bounds[r], est._kargs, slots) for r in owned]
    return memory, run_across(parts, owned, Y, bounds, plan, list)


def _assert_same(memory, across):
    np.testing.assert_array_equal(memory.state.a, across.state.a)
    np.testing.assert_array_equal(memory.state.F, across.state.F)
    np.testing.assert_array_equal(memory.intercept, across.intercept)
    np.testing.assert_array_equal(memory.violation, across.violation)
    assert (memory.n_iter, memory.columns, memory.inner_steps, memory.converged) == (
        across.n_iter, across.columns, across.inner_steps, across.converged)
    np.testing.assert_array_equal(memory.problem_steps, across.problem_steps)
    assert memory.out_of_steps == across.out_of_steps


@pytest.mark.parametrize("kind", ["dense", "csr", "float32"])
@pytest.mark.parametrize("cuts", [[900], [5, 1200], [300, 301, 1500]],
                         ids=["2 holders", "3 uneven", "one of 1 row"])
def test_holders_iterate_as_the_in_memory_solver(digits, kind, cuts):
    X, y = digits
    X = {"dense": X, "csr": sp.csr_matrix(X), "float32": X.astype(np.float32)}[kind]
    Y = np.where(y > 4, 1.0, -1.0)[:, None]
    C = np.random.default_rng(0).uniform(0.5, 3.0, len(y))  # (sample weights)
    C[7] = 0.0
    memory, across = _solve_both(X, Y, C, cuts, C=2.0, gamma=0.03, working_set_size=64,
                                 cache_size=0.2)
    assert memory.n_iter > 10
    _assert_same(memory, across)


def test_one_vs_rest_problems_and_a_holder_without_a_class(digits):
    X, y = digits
    order = np.argsort(y, kind="stable")  # the first holder: classes 0-1 only
    X, y = X[order], y[order]
    Y = np.where(y[:, None] == np.arange(10), 1.0, -1.0)
    memory, across = _solve_both(X, Y, np.full(len(y), 5.0), [360, 1000], C=5.0, gamma=0.02)
    _assert_same(memory, across)


def test_max_iter_stops_both_alike(digits):
    X, y = digits
    Y = np.where(y % 2 == 0, 1.0, -1.0)[:, None]
    memory, across = _solve_both(X, Y, np.full(len(y), 10.0), [800], C=10.0, gamma=0.05,
                                 working_set_size=32, max_iter=50)
    # max_iter: pair steps (SVC's), across the working sets
    assert not memory.converged and memory.out_of_steps and memory.problem_steps[0] == 50
    assert memory.n_iter > 1
    _assert_same(memory, across)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_a_holder_refuses_rows_on_which_the_kernel_overflows(digits):
    X, y = digits
    est = DualSVC(gamma=0.03)
    est.gamma_ = 0.03
    with pytest.raises(ValueError, match="The kernel overflows on this data"):
        Partition(X[:50] * 1e300, np.arange(50), np.ones((50, 1)), np.ones(50), est._kargs, 4)
