"""scikit-learn's own tests of LIBSVM's estimators (``sklearn/svm/tests/test_svm.py``,
``test_sparse.py`` and ``test_bounds.py``, unchanged) with ``svm.SVC``, ``NuSVC``, ``SVR``,
``NuSVR`` and ``OneClassSVM`` replaced by ours (:mod:`tests.sklearn_svc_suite`): every applicable test
passes, or fails for a reason listed here."""

import json

import pytest

from .sklearn_svc_suite import run

_EARLY = ("max_iter is SVC's (SMO's pair steps, counted across working sets: DualSVC warns "
          "as SVC does when it reaches them), but our pair choice solves this 6-row problem "
          "in 1 step where LIBSVM's takes 3: max_iter=2 is not reached, so there is no early "
          "stop to warn of, and n_iter_ is 1, not 2 (max_iter=1 warns: test_timeout passes)")
_LIBSVM_INTERNAL = "reads or alters a private attribute of scikit-learn's libsvm wrapper ({})"
_DEPRECATION = ("scikit-learn 1.9 deprecates SVC's and NuSVC's probability=True (and probA_, "
                "probB_) in favour of CalibratedClassifierCV, with a FutureWarning that they "
                "will be removed in 1.11; DualSVC and DualNuSVC keep them as their own API "
                "(LIBSVM's pairwise probabilities, the command line's -b 1), so a warning of "
                "their removal would be false (probA_ and probB_ are empty arrays without "
                "probabilities, as SVC's)")

_SPARSE_AFTER_DENSE = (
    "expects SVC's refusal of sparse rows at predict after a dense fit: scikit-learn wraps "
    "libsvm's dense and sparse builds, each with its own model layout; ours reads dense and "
    "CSR rows alike and gives the same values (refusing them would leave a model fitted on "
    "dense rows unusable by `pegasos predict`, which reads LIBSVM files as CSR)")

#: Applicable tests that fail, and why.
EXPECTED_FAILURES = {
    "test_svm::test_libsvm_convergence_warnings[42]": _EARLY,
    "test_svm::test_bad_input[42-lil_array]": _SPARSE_AFTER_DENSE,
    "test_svm::test_bad_input[42-lil_matrix]": _SPARSE_AFTER_DENSE,
    "test_svm::test_custom_kernel_not_array_input[DualSVC]": (
        "the test's string kernel fills only the upper triangle and mirrors it, so it is right "
        "on square input only: SVC calls it on (X, the whole training set), DualSVC on "
        "(X, the support vectors), a rectangle (its fit, decision values and predictions on "
        "the training rows as kernel, as tested in tests/test_svc.py, are SVC's)"),
    "test_svm::test_gamma_scale": _LIBSVM_INTERNAL.format("_gamma; DualSVC's is gamma_"),
    "test_svm::test_svc_raises_error_internal_representation": _LIBSVM_INTERNAL.format(
        "_n_support"),
    "test_svm::test_tweak_params": _LIBSVM_INTERNAL.format("_dual_coef_"),
    "test_svm::test_probability_raises_futurewarning[False-DualSVC-SVC]": _DEPRECATION,
    "test_svm::test_probability_raises_futurewarning[True-DualSVC-SVC]": _DEPRECATION,
    "test_svm::test_svc_nusvc_probA_probB_deprecated[DualSVC]": _DEPRECATION,
    "test_svm::test_probability_raises_futurewarning[False-DualNuSVC-NuSVC]": _DEPRECATION,
    "test_svm::test_probability_raises_futurewarning[True-DualNuSVC-NuSVC]": _DEPRECATION,
    "test_svm::test_svc_nusvc_probA_probB_deprecated[DualNuSVC]": _DEPRECATION,
    "test_svm::test_unfitted": (
        "an error message's wording: the not-fitted error names DualSVC, which the test's "
        r"regex \bSVC\b does not match"),
    "test_svm::test_svc_nonfinite_params[42]": (
        "an error message's wording: DualSVC refuses the data before solving, at the kernel "
        "('The kernel overflows on this data: squared row norms or K(x, x) are not finite'), "
        "where SVC finds non-finite dual coefficients after"),
    "test_svm::test_svr_errors": (
        "the test's callable kernel returns a 1 x 1 matrix for 2 training rows: SVR fits on "
        "it (libsvm reads past its end) and refuses at predict, DualSVR refuses it at fit, "
        "naming the shape (a ValueError, one call earlier)"),
}


@pytest.mark.slow
def test_scikit_learns_libsvm_tests_pass_against_ours(tmp_path):
    out = tmp_path / "outcomes.json"
    run(out)
    outcomes = json.loads(out.read_text())
    applicable = {k: v for k, v in outcomes.items() if v["applies"]}
    assert len(applicable) > 200  # the suite ran (253 applicable tests in scikit-learn 1.9.1)
    failing = {k: v.get("error", v["outcome"]) for k, v in applicable.items()
               if v["outcome"] not in ("passed", "skipped")}
    unexpected = {k: v for k, v in failing.items() if k not in EXPECTED_FAILURES}
    assert not unexpected, json.dumps(unexpected, indent=1)
    # (an id of another scikit-learn version's suite is not an error; one that runs and no
    # longer fails is)
    fixed = sorted(k for k in EXPECTED_FAILURES
                   if outcomes.get(k, {}).get("outcome") not in (None, "failed"))
    assert not fixed, f"these pass now: remove them from EXPECTED_FAILURES: {fixed}"
