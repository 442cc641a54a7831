"""Linear Pegasos' state: :class:`PegasosState` (all a fit continues from), the
intercept's :class:`Layout`, one binary :class:`Problem`, the rows' :class:`SquaredNorms`,
a problem's :func:`certificate`, :func:`random_init`, and :func:`set_fitted`, the one
place a fitted linear model's attributes and state are built (fit, load, LIBLINEAR
import, Dask)."""

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..._base import MAX_COUNT
from ..._numba import linear as _k
from ..._numba.linear import LinearState
from ...objective import gap_from_rows


class Layout(NamedTuple):
    """Where the intercept lives: an augmented constant feature, or a free ``b``.

    Parameters
    ----------
    bias_feature : float
        The value of the constant feature appended to every row (0: none).
    unregularized : bool
        A free intercept outside the norm.

    See Also
    --------
    PegasosState : The state the layout reads.

    Examples
    --------
    >>> from pegasos.linear import Layout
    >>> Layout(1.0, False).bias_feature
    1.0
    """

    bias_feature: float
    unregularized: bool


class Problem(NamedTuple):
    """One binary problem's data, in the compiled code's layout."""

    rows: object
    target: np.ndarray
    weights: np.ndarray
    lam: float
    layout: Layout
    sqnorms: "SquaredNorms"


@dataclass
class PegasosState:
    """Linear Pegasos' solver state: all a fit continues from, one row per binary problem.

    The weights are ``w = scal[A] * v`` (``v`` has one more entry than there are
    features, the augmented intercept feature's), the running average is
    ``u + scal[BETA] * v`` over ``scal[N_AVG]`` iterates, ``t`` is the next
    step of each problem, and ``gamma``/``ugamma`` are the expansion
    coefficients of ``v`` and of the average in the training rows (empty after
    :meth:`~PegasosClassifier.partial_fit`), from which the certificate's dual
    vector is read.  See :mod:`pegasos._numba.linear` for ``scal``'s layout.
    Saved and loaded by :func:`pegasos.save_model`/:func:`pegasos.load_model`.

    Parameters
    ----------
    v : ndarray of shape (n_problems, d + 1)
        The weights' direction; ``w = scal[A] * v``.
    u : ndarray of shape (n_problems, d + 1)
        The running average's accumulated part.
    scal : ndarray of shape (n_problems, N_SCALARS)
        Each problem's scalars: the scale, the average's weights, the free
        intercept, ``||w||^2``.
    t : ndarray of int64, shape (n_problems,)
        The next step of each problem.
    gamma : ndarray of shape (n_problems, n_rows)
        The expansion coefficients of ``v`` in the training rows (n_rows 0:
        none kept).
    ugamma : ndarray of shape (n_problems, n_rows)
        Those of the average.

    See Also
    --------
    fit_binary : Runs the iterations on it.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from pegasos import PegasosClassifier
    >>> clf = PegasosClassifier(lam=0.01, random_state=0).fit(*load_iris(return_X_y=True))
    >>> clf.state_.v.shape, clf.state_.t.tolist() == [clf.t_ + 1] * 3
    ((3, 5), True)
    """

    v: np.ndarray
    u: np.ndarray
    scal: np.ndarray
    t: np.ndarray
    gamma: np.ndarray
    ugamma: np.ndarray

    @classmethod
    def start(cls, n_problems, d):
        """The state of w = 0 for every problem, at step 1.

        Parameters
        ----------
        n_problems : int
            Binary problems.
        d : int
            Features.

        Returns
        -------
        PegasosState
            A new state.
        """
        scal = np.zeros((n_problems, _k.N_SCALARS))
        scal[:, _k.A] = 1.0
        return cls(v=np.zeros((n_problems, d + 1)), u=np.zeros((n_problems, d + 1)), scal=scal,
                   t=np.ones(n_problems, dtype=np.int64), gamma=np.zeros((n_problems, 0)),
                   ugamma=np.zeros((n_problems, 0)))

    @classmethod
    def from_model(cls, coef, intercept, layout, t):
        """The state of a model known only by ``coef_``/``intercept_``, at step t (no average).

        Parameters
        ----------
        coef : ndarray of shape (n_problems, d)
            The weights.
        intercept : ndarray of shape (n_problems,)
            The intercepts.
        layout : Layout
            Where the intercept lives.
        t : int
            The step to continue from.

        Returns
        -------
        PegasosState
            A state with no dual coefficients.
        """
        n_problems, d = coef.shape
        state = cls.start(n_problems, d)
        state.v[:, :d] = coef
        if layout.bias_feature:
            state.v[:, d] = np.asarray(intercept) / layout.bias_feature
        elif layout.unregularized:
            state.scal[:, _k.BIAS] = intercept
        state.scal[:, _k.WNORM2] = np.einsum("ij,ij->i", state.v, state.v)
        state.t[:] = t
        return state

    def solver_state(self, c):
        """Problem c's rows of the state, as the compiled steps take them.

        Parameters
        ----------
        c : int
            The problem.

        Returns
        -------
        LinearState
            Views of this state's rows
            (:func:`~pegasos._numba.linear.pegasos_steps` updates them in place).
        """
        return LinearState(self.v[c], self.u[c], self.gamma[c], self.ugamma[c], self.scal[c])

    def keep_alpha(self, n_rows):
        """Track dual coefficients for ``n_rows`` training rows; they refer to one set.

        Parameters
        ----------
        n_rows : int
            Training rows (0: none kept).
        """
        if self.gamma.shape[1] != n_rows:
            self.gamma = np.zeros((self.v.shape[0], n_rows))
            self.ugamma = np.zeros((self.v.shape[0], n_rows))

    def restart_average(self):
        """Forget the running average (a new fit's suffix average starts afresh)."""
        self.u[:] = 0.0
        self.ugamma[:] = 0.0
        self.scal[:, [_k.BETA, _k.N_AVG, _k.BIAS_SUM, _k.N_FOLD]] = 0.0

    def iterate(self, c):
        """The current iterate of binary problem c, not averaged.

        Parameters
        ----------
        c : int
            The problem.

        Returns
        -------
        ndarray of shape (d + 1,)
            The weights, the intercept feature's last.
        """
        return self.scal[c, _k.A] * self.v[c]

    def output(self, c):
        """The output model of binary problem c: averaged, or the last iterate.

        Parameters
        ----------
        c : int
            The problem.

        Returns
        -------
        w : ndarray of shape (d + 1,)
            The weights, the intercept feature's last.
        b : float
            The unregularised intercept (0 unless the layout has one).
        """
        v, u, s = self.v[c], self.u[c], self.scal[c]
        if s[_k.N_AVG] > 0:
            return (u + s[_k.BETA] * v) / s[_k.N_AVG], s[_k.BIAS_SUM] / s[_k.N_AVG]
        return s[_k.A] * v, s[_k.BIAS]

    def alpha(self, c, target, lam):
        """Pegasos' implicit dual vector for the output model of problem c.

        Parameters
        ----------
        c : int
            The problem.
        target : ndarray of shape (n_rows,)
            Its targets in {-1, +1}.
        lam : float
            The regularisation.

        Returns
        -------
        ndarray of shape (n_rows,) or None
            The dual vector, or None when no coefficients are kept for these rows.
        """
        gamma = self.gamma[c]
        if gamma.shape[0] != target.shape[0]:
            return None
        s = self.scal[c]
        if s[_k.N_AVG] > 0:
            coef = (self.ugamma[c] + s[_k.BETA] * gamma) / s[_k.N_AVG]
        else:
            coef = s[_k.A] * gamma
        return lam * len(target) * coef * target

    def model(self, c, layout):
        """Problem c's output model as a linear model's attributes.

        Parameters
        ----------
        c : int
            The problem.
        layout : Layout
            Where the intercept lives.

        Returns
        -------
        coef : ndarray of shape (d,)
            The weights.
        intercept : float
            The intercept.
        """
        w, b = self.output(c)
        return w[:-1], float(w[-1] * layout.bias_feature + b)

    def coef_intercept(self, layout):
        """The output models as ``coef_`` and ``intercept_``.

        Parameters
        ----------
        layout : Layout
            Where the intercept lives.

        Returns
        -------
        coef : ndarray of shape (n_problems, d)
            The weights.
        intercept : ndarray of shape (n_problems,)
            The intercepts.
        """
        models = [self.model(c, layout) for c in range(self.v.shape[0])]
        return np.array([coef for coef, _ in models]), np.array([b for _, b in models])

    def check(self, n_problems, d):
        """Refuse a state whose shapes or values cannot belong to this model (a loaded file).

        Parameters
        ----------
        n_problems : int
            The model's binary problems.
        d : int
            Its features.

        Raises
        ------
        ValueError
            Naming the field that does not fit.
        """
        shapes = {"v": (n_problems, d + 1), "u": (n_problems, d + 1),
                  "scal": (n_problems, _k.N_SCALARS), "t": (n_problems,)}
        for name in ("v", "u", "scal", "t", "gamma", "ugamma"):
            value, dtype = getattr(self, name), np.int64 if name == "t" else np.float64
            if not (isinstance(value, np.ndarray) and value.dtype == dtype):
                raise ValueError(f"state_.{name} must be a {np.dtype(dtype)} array; got "
                                 f"{getattr(value, 'dtype', type(value).__name__)}")
        for name, shape in shapes.items():
            if getattr(self, name).shape != shape:
                raise ValueError(f"state_.{name} must have shape {list(shape)} for "
                                 f"{n_problems} problems and {d} features; got "
                                 f"{list(getattr(self, name).shape)}")
        if (self.gamma.ndim != 2 or self.gamma.shape != self.ugamma.shape
                or self.gamma.shape[0] != n_problems):
            raise ValueError("state_.gamma and state_.ugamma must have one row per problem")
        if not np.all((self.t >= 1) & (self.t < MAX_COUNT)):
            raise ValueError("state_.t must be in [1, 2**62)")
        for name in ("v", "u", "scal", "gamma", "ugamma"):
            if not np.all(np.isfinite(getattr(self, name))):
                raise ValueError(f"state_.{name} holds NaN or infinite values")
        if not np.all(self.scal[:, _k.A] > 0):
            raise ValueError("state_.scal's scale (column A) must be > 0")


class SquaredNorms:
    """||x_i||^2 + bias_feature^2, computed for the rows drawn until an epoch's worth.

    A short run never touches most rows, so its cost does not grow with n; after
    an epoch's worth of draws the rest are filled at once.  Filled up front
    (``now``) when one-vs-rest problems share it across threads, and when a
    certificate, which needs every row, is due.
    """

    def __init__(self, rows, bias_feature, now):
        self.rows, self.bias_feature = rows, bias_feature
        self.values = np.full(rows.n_rows, -1.0)
        self.done, self.drawn = False, 0
        if now:
            self.fill()

    def fill(self):
        if not self.done:
            _k.fill_sqnorms_at(self.rows.kernel, self.values,
                               np.flatnonzero(self.values < 0.0), self.bias_feature)
            self.done = True

    def at(self, idx):
        if self.done:
            return
        self.drawn += idx.shape[0]
        if self.drawn >= self.rows.n_rows:
            self.fill()
        else:
            _k.fill_sqnorms_at(self.rows.kernel, self.values, idx, self.bias_feature)


def certificate(problem, state, c):
    """The :class:`~pegasos.objective.DualityGap` of problem c's output model."""
    w, b = state.output(c)
    alpha = state.alpha(c, problem.target, problem.lam)
    layout = problem.layout
    return gap_from_rows(problem.rows, problem.target, problem.weights, problem.lam, w,
                         layout.bias_feature, b, layout.unregularized, alpha,
                         problem.sqnorms.values)


def random_init(v, scal, radius2, bias_feature, rng):
    """A uniform random point of the ball of squared radius ``radius2``."""
    d = v.shape[0] - 1
    dims = d + (1 if bias_feature else 0)
    z = rng.standard_normal(dims)
    r = math.sqrt(radius2) * rng.random() ** (1.0 / dims)
    v[:dims] = z * (r / np.linalg.norm(z))
    scal[_k.A] = 1.0
    scal[_k.WNORM2] = float(v @ v)


def set_fitted(est, *, classes, coef, intercept, lam, t, n_iter, state=None, history=None,
               gaps=None):
    """Set a linear estimator's fitted attributes, and its solver state, in one place.

    ``state`` is the :class:`PegasosState` a fit ran (None: the state of a
    model known only by ``coef``/``intercept``, at step ``t + 1``, as a
    LIBLINEAR import or a distributed fit gives it).  ``t`` is the last step
    taken; ``history`` the ``objective_history_`` (empty by default) and
    ``gaps`` the ``duality_gap_`` (None: not computed).
    """
    est.classes_ = classes
    est.coef_ = np.ascontiguousarray(coef, dtype=np.float64)
    est.intercept_ = np.asarray(intercept, dtype=np.float64)
    est.n_features_in_ = est.coef_.shape[1]
    est.lam_ = float(lam)
    est.n_iter_ = int(n_iter)
    est.t_ = int(t)
    if state is None:
        state = PegasosState.from_model(est.coef_, est.intercept_, est._intercept_layout(),
                                        t + 1)
    est.state_ = state
    est.objective_history_ = [] if history is None else history
    est.duality_gap_ = gaps
    return est
