"""``pegasos info``: what a model file holds -- its estimator, parameters, classes,
features, support vectors, kernel map, regularisation and certificate."""

import numpy as np

from ._common import _label, _print_json
from ._data import _load_model, _map_summary


def run(args, parser):
    """``pegasos info``: what a model file holds (its path was checked before this
    module loaded)."""
    est, meta = _load_model(args.model, with_header=True)
    summary = {
        "model": args.model, "estimator": meta["estimator"], "format_version": meta["version"],
        "written_by": f"pegasos {meta.get('pegasos_version', '?')}",
        "classes": [_label(c) if np.asarray(est.classes_).dtype.kind in "iuf" else str(c)
                    for c in getattr(est, "classes_", [])],
        "n_features": int(est.n_features_in_),
        "parameters": est.get_params(),
        "fitted": meta["attributes"],
    }
    if isinstance(getattr(est, "n_iter_", None), np.ndarray):  # DualSVC's, one per problem
        summary["fitted"] = {**summary["fitted"], "n_iter_": est.n_iter_.tolist()}
    if hasattr(est, "support_"):
        summary["support_vectors"] = int(len(est.support_))
        summary["kernel"] = est.kernel
    if hasattr(est, "components_"):  # a kernel map's
        summary["map"] = _map_summary(est)
    summary["regularisation"] = _regularisation(est)
    if meta.get("certificate") is not None:  # checked by the loader
        summary["certificate"] = meta["certificate"]
    if args.json:
        _print_json(summary)
        return 0
    print(f"{args.model}: {summary['estimator']}, model format version "
          f"{summary['format_version']}, written by {summary['written_by']}")
    print((f"classes {', '.join(summary['classes'])}; " if summary["classes"] else
           "no classes (regression or one-class); ") + f"{summary['n_features']} features"
          + (f"; {summary['support_vectors']} support vectors ({summary['kernel']} kernel)"
             if "support_vectors" in summary else ""))
    if "map" in summary:
        print(f"kernel map: {summary['map']['text']}")
    print("regularisation: " + summary["regularisation"]["text"])
    print("fitted: " + ", ".join(f"{k} = {v:.6g}" if isinstance(v, float) else f"{k} = {v}"
                                 for k, v in summary["fitted"].items()))
    if "certificate" in summary:
        print("certificate at the end of training: " + "; ".join(
            f"primal {c['primal']:.6g}, dual {c['dual']:.6g}, relative gap <= "
            f"{c['relative_gap']:.3g}" for c in summary["certificate"]))
    else:
        print("certificate: none recorded (train with -e TOL, --test or --plot to record one)")
    print("parameters: " + ", ".join(f"{k}={v!r}" for k, v in summary["parameters"].items()))
    return 0


def _regularisation(est):
    """The regularisation a model was trained with, resolved: C and lambda (or nu), and how.

    The parameters keep what was asked (``C=None, lam=None`` for the default
    C = 1); the fitted ``lam_`` is lambda = 1 / (C n), from which n follows.
    """
    import numpy as np

    from .._base import DEFAULT_C

    params = est.get_params(deep=False)
    out = {}
    if "lam" in params and getattr(est, "lam_", None) is not None:  # Pegasos, linear or kernel
        out["lam"] = float(est.lam_)
        if params["lam"] is not None:
            out["text"] = f"lambda = {est.lam_:.6g} (given as lam)"
            return out
        C = DEFAULT_C if params["C"] is None else float(params["C"])
        with np.errstate(over="ignore", divide="ignore"):
            n = np.float64(1.0) / (np.float64(C) * est.lam_)
        n = round(float(n)) if np.isfinite(n) else float(n)  # a header's extremes: inf
        out.update(C=C, n_samples=n)
        out["text"] = (f"C = {C:.6g}{' (the default)' if params['C'] is None else ''}, so "
                       f"lambda = 1 / (C n) = {est.lam_:.6g} for n = {n} training samples")
        return out
    if hasattr(est, "nu_"):  # the SBP: a slack budget per problem
        out["nu"] = [float(v) for v in est.nu_]
        nu = ", ".join(f"{v:.6g}" for v in est.nu_)
        if params.get("nu") is not None:
            out["text"] = f"nu = {nu} (given)"
        else:
            C = DEFAULT_C if params.get("C") is None else float(params["C"])
            out["C"] = C
            out["text"] = (f"nu = {nu}, estimated for C = {C:.6g}"
                           f"{' (the default)' if params.get('C') is None else ''}")
        return out
    if type(est).__name__.startswith("Dual") and not hasattr(est, "violation_"):
        # (every fit records its violation_; a LIBSVM model file records no C, nu, epsilon)
        out["text"] = ("not recorded (read from a LIBSVM model file, which keeps no C, nu or "
                       "epsilon: the parameters below are the defaults)")
        return out
    if type(est).__name__ == "DualSVC":  # SVC's C, the loss weight of its problem
        out["C"] = float(params["C"])
        out["text"] = (f"C = {params['C']:.6g} (SVC's C, the weight of the hinge loss; "
                       "a free intercept)")
        return out
    if type(est).__name__ in ("DualSVR", "DualNuSVR"):
        out["C"] = float(params["C"])
        out["text"] = f"C = {params['C']:.6g} (the weight of the epsilon-insensitive loss)"
        if "nu" in params:
            out["nu"] = float(params["nu"])
            out["text"] += f", nu = {params['nu']:.6g} (epsilon = {est.epsilon_:.6g} found)"
        else:
            out["text"] += f", epsilon = {params['epsilon']:.6g}"
        return out
    if "nu" in params:  # nu-SVC, one-class: nu in place of C
        out["nu"] = float(params["nu"])
        out["text"] = f"nu = {params['nu']:.6g}" + (
            f" (each pair's C = 1/r: {', '.join(f'{c:.6g}' for c in est.C_)})"
            if hasattr(est, "C_") else "")
        return out
    out["text"] = "none (the kernel Perceptron is not regularised)"
    return out
