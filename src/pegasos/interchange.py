"""Linear models to and from LIBLINEAR's text model format.

LIBLINEAR (``train``/``save_model``) writes::

    solver_type L2R_L1LOSS_SVC_DUAL
    nr_class 2
    label 1 -1
    nr_feature 123
    bias 1
    w
    0.25
    ...

then one line per feature (and one more for the bias feature when ``bias``
is positive), each with one weight per class -- a single column for two
classes, the decision value being positive for the *first* label.  LIBLINEAR's
``predict`` takes the sign (two classes) or the largest decision value.

:func:`to_liblinear` writes a :class:`~pegasos.PegasosClassifier` in that
format (solver type ``L2R_L1LOSS_SVC_DUAL``: the same hinge-loss SVM), so
LIBLINEAR's own ``predict`` gives the same labels; :func:`from_liblinear`
reads any LIBLINEAR classifier's file back as a ``PegasosClassifier``.
"""

import math
import os

import numpy as np

from ._files import quote, special_file, write_atomic

__all__ = ["from_liblinear", "to_liblinear"]

#: LIBLINEAR's classifiers (its regression and one-class solvers are refused).
CLASSIFIER_SOLVERS = {
    "L2R_LR", "L2R_L2LOSS_SVC_DUAL", "L2R_L2LOSS_SVC", "L2R_L1LOSS_SVC_DUAL", "MCSVM_CS",
    "L1R_L2LOSS_SVC", "L1R_LR", "L2R_LR_DUAL",
}


def _layout(clf):
    """(bias value written, weight of the bias feature per problem) of a fitted model."""
    if not clf.fit_intercept:
        return -1.0, None
    if clf.intercept_mode == "augment":
        scale = float(clf.intercept_scaling)
    else:  # a free intercept predicts the same through a constant feature of value 1
        scale = 1.0
    return scale, np.asarray(clf.intercept_, dtype=np.float64) / scale


def to_liblinear(clf, path):
    """Write a fitted linear :class:`~pegasos.PegasosClassifier` as a LIBLINEAR model file.

    LIBLINEAR's labels are integers, so the classes must be whole numbers.
    Written atomically.

    Parameters
    ----------
    clf : PegasosClassifier
        A fitted linear model.
    path : str or path-like
        The file to write.

    See Also
    --------
    from_liblinear : Read such a file back.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from pegasos import PegasosClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = PegasosClassifier(random_state=0).fit(StandardScaler().fit_transform(X), y)
    >>> path = os.path.join(tempfile.mkdtemp(), "bc.liblinear")
    >>> to_liblinear(clf, path)
    >>> open(path).read().splitlines()[:5]
    ['solver_type L2R_L1LOSS_SVC_DUAL', 'nr_class 2', 'label 1 0', 'nr_feature 30', 'bias 1']
    """
    from sklearn.utils.validation import check_is_fitted

    from .linear import PegasosClassifier

    if not isinstance(clf, PegasosClassifier):
        raise ValueError(f"only linear models can be written for LIBLINEAR; got a {type(clf).__name__}")
    check_is_fitted(clf)
    classes = np.asarray(clf.classes_)
    if classes.dtype.kind not in "iuf" or not np.all(np.mod(classes, 1) == 0):
        raise ValueError(f"LIBLINEAR's labels are integers; this model's classes are {classes.tolist()}")
    labels = [int(c) for c in classes]
    coef = np.asarray(clf.coef_, dtype=np.float64)
    bias, bias_w = _layout(clf)
    if len(labels) == 2:
        labels = labels[::-1]  # LIBLINEAR's one column is positive for its first label
        columns = coef.reshape(1, -1)
    else:
        columns = coef
    rows = columns.T  # (n_features, n_columns)
    if bias_w is not None:
        rows = np.vstack([rows, bias_w.reshape(1, -1)])
    lines = [
        "solver_type L2R_L1LOSS_SVC_DUAL",
        f"nr_class {len(labels)}",
        "label " + " ".join(str(label) for label in labels),
        f"nr_feature {coef.shape[1]}",
        f"bias {bias:.17g}",
        "w",
    ]
    lines += [" ".join(f"{v:.17g}" for v in row) + " " for row in rows]
    text = "\n".join(lines) + "\n"
    write_atomic(path, lambda f: f.write(text), mode="w")


class LiblinearFormatError(ValueError):
    """A file that is not a LIBLINEAR classifier model."""


def _header(lines, path):
    fields = {}
    for number, line in enumerate(lines, start=1):
        key, _, value = line.strip().partition(" ")
        if key == "w":
            return fields, number
        if key not in ("solver_type", "nr_class", "label", "nr_feature", "bias", "rho"):
            raise LiblinearFormatError(f"{path}, line {number}: unknown header field "
                                       f"{quote(key)}")
        fields[key] = value.strip()
    raise LiblinearFormatError(f"{path}: no 'w' line: not a LIBLINEAR model file")


def from_liblinear(path, *, lam=1e-4):
    """Read a LIBLINEAR classifier's model file as a fitted :class:`~pegasos.PegasosClassifier`.

    The weights give the same decisions as LIBLINEAR's ``predict``.  A model
    file records neither the C it was trained with nor the number of
    training samples, so ``lam`` (default 1e-4) becomes ``lam_``, used by
    ``duality_gap`` and by continued training; pass the lambda the model was
    trained for, ``1 / (C n)``.

    Parameters
    ----------
    path : str or path-like
        LIBLINEAR's model file (a classifier's, as its ``train`` writes it).
    lam : float > 0, default=1e-4
        The lambda the model was trained for, ``1 / (C n)``.

    Returns
    -------
    PegasosClassifier
        The fitted model, with LIBLINEAR's weights and intercepts.

    Raises
    ------
    LiblinearFormatError
        A malformed file, or a regression or one-class model.

    See Also
    --------
    to_liblinear : Write a model in LIBLINEAR's format.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from pegasos import PegasosClassifier
    >>> from pegasos.interchange import from_liblinear, to_liblinear
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, -1.0]])
    >>> y = np.array([1, -1, 1, -1])
    >>> clf = PegasosClassifier(lam=0.1, random_state=0).fit(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "model.liblinear")
    >>> to_liblinear(clf, path)
    >>> back = from_liblinear(path, lam=0.1)
    >>> bool(np.array_equal(back.predict(X), clf.predict(X)))
    True
    """
    from ._base import MAX_INTERCEPT_SCALING, MIN_INTERCEPT_SCALING, check_finite_fit
    from ._solvers.linear import set_fitted
    from .linear import PegasosClassifier

    path = os.fspath(path)
    special = special_file(path)
    if special is not None:
        raise LiblinearFormatError(f"{path} is {special}, not a regular file; a LIBLINEAR "
                                   "model is a file")
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    fields, start = _header(lines, path)
    solver = fields.get("solver_type")
    if solver not in CLASSIFIER_SOLVERS:
        raise LiblinearFormatError(
            f"{path}: solver_type {quote(solver)} is not a LIBLINEAR classifier "
            f"({', '.join(sorted(CLASSIFIER_SOLVERS))})"
        )
    try:
        n_class = int(fields["nr_class"])
        labels = [int(v) for v in fields["label"].split()]
        d = int(fields["nr_feature"])
        bias = float(fields["bias"])
    except (KeyError, ValueError) as exc:
        raise LiblinearFormatError(f"{path}: incomplete or malformed header "
                                   f"({quote(exc)})") from exc
    # LIBLINEAR: a negative bias is none; 0 or more is a feature of that value (0: one that
    # adds nothing, whose weight the file still holds)
    if not (bias <= 0 or MIN_INTERCEPT_SCALING <= bias <= MAX_INTERCEPT_SCALING):
        raise LiblinearFormatError(
            f"{path}: bias {quote(fields['bias'])} is neither negative (none), 0, nor an "
            f"intercept feature's value in [{MIN_INTERCEPT_SCALING:g}, "
            f"{MAX_INTERCEPT_SCALING:g}]")
    if n_class < 2 or len(labels) != n_class or len(set(labels)) != n_class or d < 1:
        raise LiblinearFormatError(f"{path}: inconsistent header: nr_class {n_class}, labels "
                                   f"{quote(labels)}, nr_feature {d}")
    # one column for two classes, but Crammer-Singer keeps one per class (argmax decides)
    n_columns = 1 if n_class == 2 and solver != "MCSVM_CS" else n_class
    n_rows = d + (1 if bias >= 0 else 0)
    body = [line for line in lines[start:] if line.strip()]
    if len(body) != n_rows:
        raise LiblinearFormatError(f"{path}: {len(body)} weight lines; nr_feature {d} and bias "
                                   f"{bias:g} need {n_rows}")
    try:
        w = np.array([[float(v) for v in line.split()] for line in body])
    except ValueError as exc:
        raise LiblinearFormatError(f"{path}: a weight is not a number ({quote(exc)})") from exc
    if w.shape != (n_rows, n_columns) or not np.all(np.isfinite(w)):
        raise LiblinearFormatError(f"{path}: weights must be {n_rows} lines of {n_columns} "
                                   "finite numbers")
    if not (isinstance(lam, (int, float)) and math.isfinite(lam) and lam > 0):
        raise ValueError(f"lam must be a positive number; got {lam!r}")
    classes = np.array(sorted(labels))
    column = {label: i for i, label in enumerate(labels)}  # (list.index is quadratic)
    with np.errstate(over="ignore", invalid="ignore"):
        if n_class == 2 and n_columns == 2:  # argmax of two columns: their difference's sign
            coef_cols = w[:, [column[classes[1]]]] - w[:, [column[classes[0]]]]
            n_columns = 1
        elif n_class == 2:
            sign = 1.0 if labels[0] == classes[1] else -1.0
            coef_cols = sign * w
        else:
            coef_cols = w[:, [column[c] for c in classes]]
        intercept = coef_cols[d] * bias if bias > 0 else np.zeros(n_columns)
    if not (np.all(np.isfinite(coef_cols)) and np.all(np.isfinite(intercept))):
        raise LiblinearFormatError(f"{path}: the weights overflow float64 in pegasos' model "
                                   "(their difference, or the bias weight times the bias)")
    clf = PegasosClassifier(lam=lam, fit_intercept=bias > 0,
                            intercept_scaling=bias if bias > 0 else 1.0)
    # with the solver state of these weights (no history, no certificate yet), as a loaded
    # model of format version 1 or 2 gets it: duality_gap and continued training use it
    try:
        with np.errstate(over="ignore", invalid="ignore"):  # ||w||^2 may overflow: refused
            set_fitted(clf, classes=classes, coef=coef_cols[:d].T, intercept=intercept,
                       lam=lam, t=0, n_iter=0)
        clf.state_.check(n_columns, d)
        check_finite_fit(clf)
    except (ValueError, FloatingPointError) as exc:
        raise LiblinearFormatError(f"{path}: {exc}") from exc
    clf.plan_ = None
    return clf
