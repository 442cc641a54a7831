"""scikit-learn's estimator checks on every public estimator."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from pegasos import (
    DualNuSVC,
    DualNuSVR,
    DualOneClassSVM,
    DualSVC,
    DualSVR,
    KernelPegasosClassifier,
    KernelPerceptron,
    PegasosClassifier,
    SBPClassifier,
)
from pegasos.dask_backend import DaskPegasosClassifier
from pegasos.dask_svc import DaskDualSVC

_STOCHASTIC_WEIGHTS = (
    "a stochastic solver: weight 2 scales an example's step, duplicating it changes "
    "how often it is drawn; the two give the same objective, not the same iterates"
)

_TOLERANCE_WEIGHTS = (
    "an exact solver stopped at tol=1e-3 (SVC's default): weight 2 and a duplicated row have "
    "the same optimum, reached along different SMO paths, so the decision values agree to "
    "about tol (4e-3 measured), not to the check's 1e-7 (tests/test_svc.py compares "
    "converged fits instead)"
)

_EXTREME_CLASS_WEIGHTS = (
    "the check sets n_iter=100, which here means 100 Pegasos iterations (2 epochs of "
    "its 50 samples), with class weights 1000 and 1e-4 at lam=1e-4: the weights "
    "multiply the sub-gradient bound G by 1000, and Pegasos' error G^2/(lam T) needs "
    "about 1e6 iterations to reach 94% class-0 predictions (measured; LIBLINEAR "
    "solves it exactly, SGDClassifier gets max_iter=1000 epochs)"
)

_PARTIAL_FIT_NEEDS_LAM = (
    "the check calls partial_fit with the default parameters; the default regularisation "
    "is C = 1, i.e. lam = 1/(C n), and partial_fit, which sees a stream of batches with no "
    "fixed n, needs lam and says so (tests/test_linear.py runs these checks' partial_fit "
    "contracts with lam set)"
)
_PEGASOS_PARTIAL_FIT = {
    "check_n_features_in_after_fitting": _PARTIAL_FIT_NEEDS_LAM,
    "check_estimators_partial_fit_n_features": _PARTIAL_FIT_NEEDS_LAM,
}

_LIBSVM_ZERO_WEIGHTS = (
    "as LIBSVM's (scikit-learn lists the same check as failing for SVR, NuSVR, NuSVC and "
    "OneClassSVM): a weight is a bound of the dual variables (C w_i), and the nu problems' "
    "start and constraint (nu sum w) and the solution at tol=1e-3 differ between weight 2 "
    "and a duplicated row by about tol, not the check's 1e-7"
)

# Checks expected to fail, each with its reason.
EXPECTED_FAILED = {
    "DualNuSVC": {
        "check_class_weight_classifiers": (
            "class_weight has no effect on nu-SVC, as in LIBSVM (nu-SVC has no C to weight) "
            "and scikit-learn's NuSVC, for which scikit-learn lists this check as failing"),
        "check_sample_weight_equivalence_on_dense_data": _LIBSVM_ZERO_WEIGHTS,
        "check_sample_weight_equivalence_on_sparse_data": _LIBSVM_ZERO_WEIGHTS,
    },
    "DualSVR": {
        "check_sample_weight_equivalence_on_dense_data": _TOLERANCE_WEIGHTS,
        "check_sample_weight_equivalence_on_sparse_data": _TOLERANCE_WEIGHTS,
    },
    "DualNuSVR": {
        "check_sample_weight_equivalence_on_dense_data": _LIBSVM_ZERO_WEIGHTS,
        "check_sample_weight_equivalence_on_sparse_data": _LIBSVM_ZERO_WEIGHTS,
    },
    "DualOneClassSVM": {
        "check_sample_weight_equivalence_on_dense_data": _LIBSVM_ZERO_WEIGHTS,
        "check_sample_weight_equivalence_on_sparse_data": _LIBSVM_ZERO_WEIGHTS,
    },
    "DaskPegasosClassifier": {
        **_PEGASOS_PARTIAL_FIT,
        "check_class_weight_classifiers": _EXTREME_CLASS_WEIGHTS,
        "check_sample_weight_equivalence_on_dense_data": _STOCHASTIC_WEIGHTS,
        "check_sample_weight_equivalence_on_sparse_data": _STOCHASTIC_WEIGHTS,
    },
    "KernelPegasosClassifier": {
        "check_sample_weight_equivalence_on_dense_data": _STOCHASTIC_WEIGHTS,
        "check_sample_weight_equivalence_on_sparse_data": _STOCHASTIC_WEIGHTS,
    },
    "KernelPerceptron": {
        "check_sample_weight_equivalence_on_dense_data": _STOCHASTIC_WEIGHTS,
        "check_sample_weight_equivalence_on_sparse_data": _STOCHASTIC_WEIGHTS,
    },
    "SBPClassifier": {
        "check_sample_weight_equivalence_on_dense_data": _STOCHASTIC_WEIGHTS,
        "check_sample_weight_equivalence_on_sparse_data": _STOCHASTIC_WEIGHTS,
    },
    "DualSVC": {
        "check_sample_weight_equivalence_on_dense_data": _TOLERANCE_WEIGHTS,
        "check_sample_weight_equivalence_on_sparse_data": _TOLERANCE_WEIGHTS,
    },
    "DaskDualSVC": {  # (in-memory input: DualSVC's fit)
        "check_sample_weight_equivalence_on_dense_data": _TOLERANCE_WEIGHTS,
        "check_sample_weight_equivalence_on_sparse_data": _TOLERANCE_WEIGHTS,
    },
    "PegasosClassifier": {
        **_PEGASOS_PARTIAL_FIT,
        "check_class_weight_classifiers": _EXTREME_CLASS_WEIGHTS,
        "check_sample_weight_equivalence_on_dense_data": _STOCHASTIC_WEIGHTS,
        "check_sample_weight_equivalence_on_sparse_data": _STOCHASTIC_WEIGHTS,
    },
}


def _expected_failed(estimator):
    return EXPECTED_FAILED.get(type(estimator).__name__, {})


@parametrize_with_checks(
    [
        PegasosClassifier(random_state=0),
        KernelPegasosClassifier(random_state=0),
        SBPClassifier(random_state=0),
        KernelPerceptron(random_state=0),
        # with a budget below the checks' rows: the budgeted solver, and partial_fit
        KernelPegasosClassifier(lam=0.01, budget=12, random_state=0),
        KernelPerceptron(budget=12, random_state=0),
        DaskPegasosClassifier(random_state=0),
        DualSVC(),
        DaskDualSVC(),
        DualNuSVC(),
        DualSVR(),
        DualNuSVR(),
        DualOneClassSVM(),
    ],
    expected_failed_checks=_expected_failed,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
