"""Models to and from LIBLINEAR's and LIBSVM's text model formats.

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

LIBSVM (``svm-train``/``svm_save_model``) writes a header (``svm_type``,
``kernel_type`` and the kernel's parameters, ``nr_class``, ``total_sv``, one
``rho`` per pair of classes, then for classifiers ``label``, ``probA``/``probB``
and ``nr_sv``), a line ``SV``, and one line per support vector: its
coefficients (one per other class), then its ``index:value`` pairs.
:func:`to_libsvm` writes the working-set estimators' models so, and
:func:`from_libsvm` reads all five kinds of LIBSVM model back.
"""

import itertools
import math
import os

import numpy as np
import scipy.sparse as sp

from ._files import quote, special_file, write_atomic
from ._numba.codes import KERNEL_TABLE
from ._solvers.problems import PROBLEMS, estimator_class, problem_of

__all__ = ["from_liblinear", "from_libsvm", "to_liblinear", "to_libsvm"]

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
    # (scikit-learn's and Numba's import cost: the CLI's export refuses a bad path first)
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


def _key_value(line):
    """A header line's first word and the rest: any whitespace parts them, as the C
    readers' ``fscanf("%s")`` (a tab, several spaces)."""
    key, value = (line.split(None, 1) + ["", ""])[:2]
    return key, value


def _header(lines, path):
    fields = {}
    for number, line in enumerate(lines, start=1):
        key, value = _key_value(line)
        if not key:  # a blank line: LIBLINEAR's reader reads words (fscanf), not lines
            continue
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
    # (scikit-learn's and Numba's import cost: the CLI's import refuses a bad path first)
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


# --- LIBSVM ----------------------------------------------------------------------

#: Our estimators and LIBSVM's svm_type names.
SVM_TYPES = {p.estimator: p.svm_type for p in PROBLEMS.values()}


#: Our kernel names and LIBSVM's kernel_type names.
KERNEL_TYPES = {k.name: k.libsvm_name for k in KERNEL_TABLE}
#: The parameters each kernel's formula reads (written to a model, required in one).
_PARAMETERS = {k.name: k.parameters for k in KERNEL_TABLE}
_CLASSIFIERS = tuple(p.svm_type for p in PROBLEMS.values() if p.classifier)


class LibsvmFormatError(ValueError):
    """A file that is not a LIBSVM model, or one this library cannot hold."""


def _integer_labels(classes, what):
    classes = np.asarray(classes)
    if classes.dtype.kind not in "iuf" or not np.all(np.mod(classes, 1) == 0):
        raise ValueError(f"{what}'s labels are integers; this model's classes are "
                         f"{classes.tolist()[:10]}")
    return [int(c) for c in classes]


def _libsvm_layout(est):
    """(labels, nr_sv, sv order, coefficient rows (n_rows, n_SV), rho, probB signs) of a fitted
    model in LIBSVM's layout: the classes in the model's tie order (``tie_order_``, else
    sorted; two classes: the second first, as ours decide for it), support vectors grouped
    by label, the pair (i, j) positive for label i -- LIBSVM's decision is positive for the
    first label of its pair -- its coefficients of class i's vectors in row j - 1 and of class
    j's in row i."""

    coef = np.asarray(est.dual_coef_.toarray() if sp.issparse(est.dual_coef_)
                      else est.dual_coef_, dtype=np.float64)
    n_sv = coef.shape[1]
    rho = -np.asarray(est.intercept_, dtype=np.float64)
    if not problem_of(est).classifier:
        return None, None, np.arange(n_sv), coef, rho, None
    labels = _integer_labels(est.classes_, "LIBSVM")
    k = len(labels)
    if k > 2 and not est._one_vs_one:
        raise ValueError("a one-vs-rest model (multi_class='ovr') has no LIBSVM form: "
                         "LIBSVM's multi-class models are one-vs-one (the default)")
    if k == 2:  # one problem, positive for classes_[1]: as the pair (1, 0)
        order = np.array([1, 0])
        ours, intercept = -coef, -np.asarray(est.intercept_, dtype=np.float64)
        sv_class = np.where(coef[0] > 0, 1, 0)
    else:
        order = np.asarray(getattr(est, "tie_order_", np.arange(k)))
        ours, intercept = est._pair_coef(), np.asarray(est.intercept_, dtype=np.float64)
        sv_class = np.repeat(np.arange(k), est.n_support_)
    combos = list(itertools.combinations(range(k), 2))
    position = np.empty(k, np.int64)
    position[order] = np.arange(k)
    sv_order = np.argsort(position[sv_class], kind="stable")
    starts = np.concatenate([[0], np.cumsum(np.bincount(position[sv_class], minlength=k))])
    rows, rho, signs = np.zeros((k - 1, n_sv)), np.zeros(len(combos)), np.zeros(len(combos))
    for p, (i, j) in enumerate(combos):  # LIBSVM's pair of labels i and j
        a, b = order[i], order[j]
        sign = 1.0 if a < b else -1.0  # ours positive for the smaller class index
        pair = sign * ours[combos.index((min(a, b), max(a, b)))][sv_order]
        rows[j - 1, starts[i]:starts[i + 1]] = pair[starts[i]:starts[i + 1]]
        rows[i, starts[j]:starts[j + 1]] = pair[starts[j]:starts[j + 1]]
        rho[p] = -sign * intercept[combos.index((min(a, b), max(a, b)))]
        signs[p] = sign
    nr_sv = (starts[1:] - starts[:-1]).tolist()
    return [labels[c] for c in order], nr_sv, sv_order, rows, rho, signs


def to_libsvm(est, path):
    """Write a fitted working-set model as a LIBSVM model file (``svm-train``'s format).

    LIBSVM's ``svm-predict`` (and ``svm_load_model``) then predicts what the
    model predicts: :class:`~pegasos.DualSVC` (one-vs-one) and
    :class:`~pegasos.DualNuSVC` as ``c_svc`` and ``nu_svc`` (with their
    pairwise probabilities, when fitted with ``probability=True``),
    :class:`~pegasos.DualOneClassSVM`, :class:`~pegasos.DualSVR` and
    :class:`~pegasos.DualNuSVR` as ``one_class``, ``epsilon_svr`` and
    ``nu_svr`` (a regression's Laplace scale ``probA_`` as its ``probA``, when
    fitted with ``probability=True``).  Values are written with 17 significant
    digits (LIBSVM's own files round the support vectors to 8), so nothing is
    lost.  Written atomically.

    Parameters
    ----------
    est : DualSVC, DualNuSVC, DualOneClassSVM, DualSVR or DualNuSVR
        A fitted model (integer labels for the classifiers; not a callable
        kernel, nor a one-vs-rest model).
    path : str or path-like
        The file to write.

    See Also
    --------
    from_libsvm : Read such a file back (or one of ``svm-train``'s).

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn.datasets import load_iris
    >>> from pegasos import DualSVC
    >>> from pegasos.interchange import to_libsvm
    >>> X, y = load_iris(return_X_y=True)
    >>> path = os.path.join(tempfile.mkdtemp(), "iris.libsvm")
    >>> to_libsvm(DualSVC().fit(X, y), path)
    >>> open(path).read().splitlines()[:4]
    ['svm_type c_svc', 'kernel_type rbf', 'gamma 0.064167448636149746', 'nr_class 3']
    """
    from sklearn.utils.validation import check_is_fitted  # (its import cost, as above)

    problem = problem_of(est)
    if problem is None:
        raise ValueError(f"LIBSVM's models are those of {', '.join(SVM_TYPES)}; got a "
                         f"{type(est).__name__}")
    check_is_fitted(est)
    if callable(est.kernel):
        raise ValueError("a model of a callable kernel has no LIBSVM form")
    labels, nr_sv, order, coef, rho, signs = _libsvm_layout(est)
    lines = [f"svm_type {problem.svm_type}", f"kernel_type {KERNEL_TYPES[est.kernel]}"]
    reads = _PARAMETERS[est.kernel]
    if "degree" in reads:
        lines.append(f"degree {int(est.degree)}")
    if "gamma" in reads:
        lines.append(f"gamma {float(est.gamma_):.17g}")
    if "coef0" in reads:
        lines.append(f"coef0 {float(est.coef0):.17g}")
    lines += [f"nr_class {2 if labels is None else len(labels)}", f"total_sv {len(order)}",
              "rho " + " ".join(f"{v:.17g}" for v in rho)]
    probabilities = vars(est).get("probA_") is not None and getattr(est, "probability",
                                                                         False)
    if labels is not None:
        lines.append("label " + " ".join(str(label) for label in labels))
        if probabilities:
            probA, probB = _pair_sigmoids(est, signs)
            lines.append("probA " + " ".join(f"{v:.17g}" for v in probA))
            lines.append("probB " + " ".join(f"{v:.17g}" for v in probB))
        lines.append("nr_sv " + " ".join(str(c) for c in nr_sv))
    elif probabilities:
        lines.append(f"probA {float(est.probA_[0]):.17g}")  # (a regression's Laplace scale)
    lines.append("SV")
    if est.kernel == "precomputed":  # each support vector is its training row's number
        features = [f"0:{int(s) + 1} " for s in np.asarray(est.support_)[order]]
    else:
        rows = sp.csr_matrix(est.support_vectors_)[order]
        features = ["".join(f"{j + 1}:{float(v):.17g} " for j, v in
                            zip(rows.indices[rows.indptr[i]:rows.indptr[i + 1]],
                                rows.data[rows.indptr[i]:rows.indptr[i + 1]]))
                    for i in range(rows.shape[0])]
    lines += ["".join(f"{v:.17g} " for v in coef[:, i]) + features[i]
              for i in range(len(order))]
    text = "\n".join(lines) + "\n"
    write_atomic(path, lambda f: f.write(text), mode="w")


def _pair_sigmoids(est, signs):
    """(probA, probB) of LIBSVM's pairs: the sigmoid of a pair's decision for its first label
    (ours: for the pair's first class, or classes_[1] of two; a pair whose decision is
    negated keeps A and negates B)."""

    k = len(est.classes_)
    if k == 2:
        return np.asarray(est.probA_), np.asarray(est.probB_)  # (for classes_[1], LIBSVM's first)
    if not getattr(est, "pairwise_coupling_", 0):
        raise ValueError("this model's probabilities are one-vs-rest sigmoids, which LIBSVM's "
                         "format cannot hold (its are pairwise)")
    order = np.asarray(getattr(est, "tie_order_", np.arange(k)))
    combos = list(itertools.combinations(range(k), 2))
    probA, probB = np.zeros(len(combos)), np.zeros(len(combos))
    for p, (i, j) in enumerate(combos):
        a, b = order[i], order[j]
        q = combos.index((min(a, b), max(a, b)))
        probA[p], probB[p] = est.probA_[q], signs[p] * est.probB_[q]
    return probA, probB


_LIBSVM_FIELDS = ("svm_type", "kernel_type", "degree", "gamma", "coef0", "nr_class",
                  "total_sv", "rho", "label", "probA", "probB", "nr_sv",
                  "prob_density_marks")  # (one-class -b 1 of LIBSVM 3.3x: not used here)


def _libsvm_header(lines, path):
    """The header's fields (each once) and the number of the line after ``SV``."""
    fields = {}
    for number, line in enumerate(lines, start=1):
        key, value = _key_value(line)
        if not key:  # a blank line: svm-predict reads words (fscanf), not lines
            continue
        if key == "SV":
            return fields, number
        if key not in _LIBSVM_FIELDS:
            raise LibsvmFormatError(f"{path}, line {number}: unknown header field "
                                    f"{quote(key)} (LIBSVM's are {', '.join(_LIBSVM_FIELDS)})")
        if key in fields:
            raise LibsvmFormatError(f"{path}, line {number}: {key} is given twice")
        fields[key] = (value.strip(), number)
    raise LibsvmFormatError(f"{path}: no 'SV' line: not a LIBSVM model file")


def _numbers(fields, key, count, path, kind=float, required=True):
    """A header field's ``count`` numbers (finite), or None when absent and not required."""
    if key not in fields:
        if required:
            raise LibsvmFormatError(f"{path}: the header has no {key}")
        return None
    text, number = fields[key]
    try:
        values = [kind(v) for v in text.split()]
    except ValueError:
        raise LibsvmFormatError(f"{path}, line {number}: {key} {quote(text)} is not "
                                f"{count} {'integers' if kind is int else 'numbers'}") from None
    if len(values) != count or not all(
            -2**31 <= v < 2**31 if kind is int else math.isfinite(v) for v in values):
        raise LibsvmFormatError(f"{path}, line {number}: {key} needs {count} "
                                f"{'integers of LIBSVM (32 bits)' if kind is int else 'finite numbers'}"
                                f"; got {quote(text, 80)}")
    return values


def _support_vectors(body, first, n_coef, precomputed, path):
    """(coefficients (n_coef, n_SV), the rows as CSR, or the serial numbers if precomputed)."""
    coef, data, indices, indptr, serial = [], [], [], [0], []
    for offset, line in enumerate(body):
        number, parts = first + offset, line.split()
        try:
            coef.append([float(v) for v in parts[:n_coef]])
            pairs = [p.split(":") for p in parts[n_coef:]]
            cols = [int(i) for i, _ in pairs]
            vals = [float(v) for _, v in pairs]
        except ValueError:
            raise LibsvmFormatError(f"{path}, line {number}: a support vector line is "
                                    f"{n_coef} coefficient(s), then index:value pairs; got "
                                    f"{quote(line, 80)}") from None
        if len(coef[-1]) != n_coef or not all(math.isfinite(v) for v in coef[-1] + vals):
            raise LibsvmFormatError(f"{path}, line {number}: {n_coef} finite coefficient(s) "
                                    "and finite values are needed")
        if precomputed:
            if cols[:1] != [0] or vals[0] < 1 or vals[0] != int(vals[0]) or vals[0] > 2**31:
                raise LibsvmFormatError(f"{path}, line {number}: a precomputed kernel's "
                                        "support vector is its training row's number, 0:N "
                                        "with N >= 1")
            serial.append(int(vals[0]) - 1)
            continue
        if any(c < 1 for c in cols) or any(b <= a for a, b in zip(cols, cols[1:])):
            raise LibsvmFormatError(f"{path}, line {number}: feature indices must be >= 1 "
                                    "and increasing")
        if cols and cols[-1] > 2**31 - 1:
            raise LibsvmFormatError(f"{path}, line {number}: feature index {cols[-1]} is "
                                    "beyond LIBSVM's int")
        indices += [c - 1 for c in cols]
        data += vals
        indptr.append(len(indices))
    coef = np.array(coef, dtype=np.float64).reshape(len(body), n_coef).T
    if precomputed:
        return coef, np.array(serial, dtype=np.int64)
    width = max(indices, default=0) + 1
    rows = sp.csr_matrix((np.array(data, dtype=np.float64), np.array(indices, dtype=np.int64),
                          np.array(indptr, dtype=np.int64)), shape=(len(body), width))
    return coef, rows


def from_libsvm(path):
    """Read a LIBSVM model file (``svm-train``'s, or :func:`to_libsvm`'s) as a fitted model.

    ``c_svc``, ``nu_svc``, ``one_class``, ``epsilon_svr`` and ``nu_svr`` become
    :class:`~pegasos.DualSVC`, :class:`~pegasos.DualNuSVC`,
    :class:`~pegasos.DualOneClassSVM`, :class:`~pegasos.DualSVR` and
    :class:`~pegasos.DualNuSVR` that predict what ``svm-predict`` predicts
    (the classes sorted, as scikit-learn's; the pairs and their decision
    values oriented as SVC's).  The kernel and its parameters come from the
    file; what a LIBSVM file does not record -- C, nu, epsilon, the training
    rows' numbers of the support vectors (``support_`` numbers them in the
    file's order), the solver's iterations, a precomputed kernel's number of
    training rows (``n_features_in_`` is its last support vector's number) --
    keeps the estimator's default or is absent.  A classifier's pairwise
    probabilities (``probA``, ``probB``) are kept, and a regression's (``probA``,
    its Laplace scale) as ``probA_``.

    Parameters
    ----------
    path : str or path-like
        The model file.

    Returns
    -------
    estimator
        The fitted model.

    Raises
    ------
    LibsvmFormatError
        A malformed file, named with the line at fault.

    See Also
    --------
    to_libsvm : Write a model in LIBSVM's format.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from pegasos import DualSVC
    >>> from pegasos.interchange import from_libsvm, to_libsvm
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = DualSVC().fit(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "iris.libsvm")
    >>> to_libsvm(clf, path)
    >>> back = from_libsvm(path)
    >>> type(back).__name__, bool(np.array_equal(back.predict(X), clf.predict(X)))
    ('DualSVC', True)
    """
    path = os.fspath(path)
    special = special_file(path)
    if special is not None:
        raise LibsvmFormatError(f"{path} is {special}, not a regular file; a LIBSVM model is "
                                "a file")
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    fields, start = _libsvm_header(lines, path)
    svm_type = fields.get("svm_type", ("", 0))[0]
    if svm_type not in PROBLEMS:
        raise LibsvmFormatError(f"{path}: svm_type {quote(svm_type)} is not one of LIBSVM's "
                                f"({', '.join(PROBLEMS)})")
    kernel_type = fields.get("kernel_type", ("", 0))[0]
    kernels = {v: k for k, v in KERNEL_TYPES.items()}
    if kernel_type not in kernels:
        raise LibsvmFormatError(f"{path}: kernel_type {quote(kernel_type)} is not one of "
                                f"LIBSVM's ({', '.join(kernels)})")
    kernel = kernels[kernel_type]
    classifier = svm_type in _CLASSIFIERS
    k = _numbers(fields, "nr_class", 1, path, int)[0]
    if k < 2 or (not classifier and k != 2) or k > 2**16:
        raise LibsvmFormatError(f"{path}: nr_class {k} is not a number of classes LIBSVM "
                                f"writes for {svm_type}")
    n_sv = _numbers(fields, "total_sv", 1, path, int)[0]
    body = [line for line in lines[start:] if line.strip()]
    if n_sv != len(body) or n_sv < 0:
        raise LibsvmFormatError(f"{path}: total_sv {n_sv}, but {len(body)} support vector "
                                "lines follow 'SV'")
    n_pairs = k * (k - 1) // 2 if classifier else 1
    rho = np.array(_numbers(fields, "rho", n_pairs, path))
    params = {"kernel": kernel}
    reads = _PARAMETERS[kernel]
    gamma = _numbers(fields, "gamma", 1, path, required="gamma" in reads)
    if gamma is not None and not gamma[0] >= 0:  # (svm-train -g 0 writes gamma 0)
        raise LibsvmFormatError(f"{path}, line {fields['gamma'][1]}: gamma must be >= 0")
    if gamma is not None:
        params["gamma"] = gamma[0]
    coef0 = _numbers(fields, "coef0", 1, path, required="coef0" in reads)
    if coef0 is not None:
        params["coef0"] = coef0[0]
    degree = _numbers(fields, "degree", 1, path, int, required="degree" in reads)
    if degree is not None:
        if not 0 <= degree[0] < 2**31:
            raise LibsvmFormatError(f"{path}, line {fields['degree'][1]}: degree must be >= 0")
        params["degree"] = degree[0]
    coef, rows = _support_vectors(body, start + 1, k - 1 if classifier else 1,
                                  kernel == "precomputed", path)
    est = estimator_class(PROBLEMS[svm_type])(**params)
    if classifier:
        _set_classifier(est, fields, k, coef, rows, rho, path)
    else:
        _set_single(est, fields, coef, rows, rho, path)
    est.gamma_ = float(gamma[0]) if gamma is not None else 1.0
    est.n_features_in_ = (max(1, int(rows.max(initial=0)) + 1) if kernel == "precomputed"
                          else max(1, rows.shape[1]))
    if kernel != "precomputed":
        est.support_vectors_ = _widened(est.support_vectors_, est.n_features_in_)
    # no kernel evaluated and no iteration run here (LIBSVM's file does not record its own)
    est.n_kernel_columns_ = est.n_kernel_evals_ = est.fit_status_ = 0
    est.n_iter_ = np.zeros(n_pairs, dtype=np.int64) if classifier else 0
    return est


def _widened(rows, d):
    return sp.csr_matrix((rows.data, rows.indices, rows.indptr), shape=(rows.shape[0], d))


def _set_single(est, fields, coef, rows, rho, path):
    """A regression's or one-class model's attributes; a regression's ``probA`` (svm-train
    -b 1: the residuals' Laplace scale) as ``probA_``."""
    problem = problem_of(est)
    if problem.supervised:
        if "probB" in fields:
            raise LibsvmFormatError(f"{path}, line {fields['probB'][1]}: probB is a "
                                    "classifier's; a regression's probability model is probA")
        scale = _numbers(fields, "probA", 1, path, required=False)
        if scale is not None and not scale[0] >= 0:
            raise LibsvmFormatError(f"{path}, line {fields['probA'][1]}: probA (the Laplace "
                                    "scale of a regression's residuals) must be >= 0")
        if scale is not None:
            est.probA_ = np.array(scale, dtype=np.float64)
            est.set_params(probability=True)
    precomputed = est.kernel == "precomputed"
    n_sv = coef.shape[1]
    est.dual_coef_ = coef
    est.intercept_ = -rho
    est.support_ = (rows if precomputed else np.arange(n_sv)).astype(np.int32)
    est.support_vectors_ = np.empty((0, 0)) if precomputed else rows
    est.n_support_ = np.array([n_sv], dtype=np.int32)
    if "offset_" in problem.arrays:  # (the one-class SVM's rho)
        est.offset_ = rho.copy()


def _set_classifier(est, fields, k, coef, rows, rho, path):
    """SVC's one-vs-one attributes from LIBSVM's layout (its labels in any order, sorted
    here; a pair whose classes swap has its decision, rho and sigmoid negated)."""

    labels = _numbers(fields, "label", k, path, int)
    if len(set(labels)) != k:
        raise LibsvmFormatError(f"{path}, line {fields['label'][1]}: the labels repeat")
    nr_sv = _numbers(fields, "nr_sv", k, path, int)
    if min(nr_sv) < 0 or sum(nr_sv) != coef.shape[1]:
        raise LibsvmFormatError(f"{path}, line {fields['nr_sv'][1]}: nr_sv must count the "
                                f"{coef.shape[1]} support vectors by class")
    prob = [_numbers(fields, key, k * (k - 1) // 2, path, required=False)
            for key in ("probA", "probB")]
    if (prob[0] is None) != (prob[1] is None):
        raise LibsvmFormatError(f"{path}: probA and probB go together")
    starts = np.concatenate([[0], np.cumsum(nr_sv)])
    pair_of = {pair: p for p, pair in enumerate(itertools.combinations(range(k), 2))}
    # every LIBSVM pair's coefficients over all support vectors, positive for its first label
    full = np.zeros((len(pair_of), coef.shape[1]))
    for (i, j), p in pair_of.items():
        full[p, starts[i]:starts[i + 1]] = coef[j - 1, starts[i]:starts[i + 1]]
        full[p, starts[j]:starts[j + 1]] = coef[i, starts[j]:starts[j + 1]]
    classes = np.array(sorted(labels))
    position = {label: i for i, label in enumerate(labels)}
    sv_class = np.repeat(np.searchsorted(classes, labels), nr_sv)
    order = np.argsort(sv_class, kind="stable")  # grouped by class, in sorted order
    if k == 2:  # one problem, positive for classes_[1]
        sign = 1.0 if labels[0] == classes[1] else -1.0
        est.dual_coef_ = sign * full[:, order]
        est.intercept_ = -sign * rho
        pairs_prob = [sign * np.asarray(prob[1])] if prob[1] is not None else None
        if pairs_prob is not None:
            est.probA_, est.probB_ = np.asarray(prob[0], dtype=np.float64), pairs_prob[0]
    else:
        ours = np.zeros((len(pair_of), coef.shape[1]))
        intercept = np.zeros(len(pair_of))
        pa, pb = np.zeros(len(pair_of)), np.zeros(len(pair_of))
        for q, (a, b) in enumerate(itertools.combinations(range(k), 2)):
            i, j = position[classes[a]], position[classes[b]]
            sign = 1.0 if i < j else -1.0
            p = pair_of[(min(i, j), max(i, j))]
            ours[q], intercept[q] = sign * full[p, order], -sign * rho[p]
            if prob[0] is not None:
                pa[q], pb[q] = prob[0][p], sign * prob[1][p]
        ends = np.concatenate([[0], np.cumsum(np.bincount(sv_class, minlength=k))])
        dual = np.zeros((k - 1, coef.shape[1]))
        for q, (a, b) in enumerate(itertools.combinations(range(k), 2)):
            dual[b - 1, ends[a]:ends[a + 1]] = ours[q, ends[a]:ends[a + 1]]
            dual[a, ends[b]:ends[b + 1]] = ours[q, ends[b]:ends[b + 1]]
        est.dual_coef_, est.intercept_ = dual, intercept
        if prob[0] is not None:
            est.probA_, est.probB_ = pa, pb
            est.pairwise_coupling_ = 1
        if labels != sorted(labels):  # LIBSVM gives a tie of votes to its first label
            est.tie_order_ = np.searchsorted(classes, labels).astype(np.int64)
    if prob[0] is not None:
        est.set_params(probability=True)
    est.classes_ = classes
    est.n_support_ = np.bincount(sv_class, minlength=k).astype(np.int32)
    precomputed = est.kernel == "precomputed"
    est.support_ = (rows[order] if precomputed else np.arange(coef.shape[1])).astype(np.int32)
    est.support_vectors_ = np.empty((0, 0)) if precomputed else rows[order]
