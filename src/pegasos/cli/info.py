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
        if getattr(est, "budget", None) is not None:
            summary["budget"] = {"budget": int(est.budget), "strategy": est.budget_strategy}
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
             if "support_vectors" in summary else "")
          + (f"; a budget of {summary['budget']['budget']} ({summary['budget']['strategy']})"
             if "budget" in summary else ""))
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
    """The regularisation a model was trained with, resolved: C and lambda (or nu), and how
    (each estimator's own description)."""
    return est._describe_regularisation()
