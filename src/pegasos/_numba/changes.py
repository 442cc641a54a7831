"""A step's changes to the kernel solvers' coefficients, merged by example.

Kernel Pegasos, the Perceptron and the SBP change, in one step, the
coefficients of a few examples in every one-vs-rest problem at once; an
example that changes in several problems (or is drawn twice) costs one kernel
column.  :class:`Changes` collects them: ``members[:count]`` are the distinct
examples changed so far, ``coef_w[m, c]`` the change of member m's
coefficient for problem c (in units of w), and ``slot`` (n,) maps an example
to its member position (-1 outside; :func:`clear` resets it after the step).
"""

from typing import NamedTuple

import numpy as np

from ._jit import njit


class Changes(NamedTuple):
    """One step's changes, merged by example (see the module docstring)."""

    slot: np.ndarray
    members: np.ndarray
    coef_w: np.ndarray


def new_changes(n, capacity, n_problems):
    """Empty :class:`Changes` for n examples, at most ``capacity`` members per step
    (allocated by the Python layer and handed to the solvers: compiled, it cost their first
    fit 0.3 s of compiling ``np.full`` and ``np.empty``)."""
    return Changes(np.full(n, -1, np.int64), np.empty(capacity, np.int64),
                   np.empty((capacity, n_problems)))


@njit(inline="always")
def merge(changes, i, c, value, count):
    """Add ``value`` to example i's change for problem c; returns the new member count."""
    slot = changes.slot
    if slot[i] < 0:
        slot[i] = count
        changes.members[count] = i
        changes.coef_w[count, :] = 0.0
        count += 1
    changes.coef_w[slot[i], c] += value
    return count


@njit(inline="always")
def clear(changes, count):
    """Forget the step's members in ``slot`` (their rows of ``coef_w`` are rewritten on reuse)."""
    for m in range(count):
        changes.slot[changes.members[m]] = -1
