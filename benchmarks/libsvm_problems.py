"""LIBSVM's other problems: DualSVR, DualNuSVR, DualOneClassSVM and DualNuSVC against
scikit-learn's SVR, NuSVR, OneClassSVM and NuSVC (LIBSVM) and scikit-learn-intelex's.

    python -m benchmarks.libsvm_problems [--quick] [--repeats 1] [--datasets svr ...]

Data sets (each part one problem, at LIBSVM's defaults but where said):

- ``svr``: ijcnn1 (all 49,990 training rows, 22 features, dense) as regression of its
  labels (+1/-1), epsilon-SVR, C = 1, epsilon = 0.1, gamma = 1 (as :mod:`benchmarks.kernel`);
  test: ijcnn1's test rows (10,000), mean squared error and accuracy of the sign.
- ``nusvr``: the same rows, nu-SVR, nu = 0.2, C = 1.
- ``one-class``: Fashion-MNIST as novelty detection: the training rows of the five
  clothes classes (0-4: T-shirt, trouser, pullover, dress, coat; 30,000 rows, pixels /
  255) are the inliers, nu = 0.1, gamma = "scale"; test: all 10,000 test rows, the
  other five classes the novelties; the area under the ROC curve of the decision values.
- ``nusvc``: Fashion-MNIST T-shirt/shirt (12,000 rows, the binary set of
  :mod:`benchmarks.kernel`), nu-SVC, nu = 0.2; test accuracy.

Every solver runs in this process on the same float64 rows (ours also on float32,
its engine's own precision): fit and predict time, the test metric, support vectors,
and the agreement with LIBSVM's model (the largest difference of decision values on
the test rows, relative to their spread, and the dual objective's relative difference
where it is one number: SVR, nu-SVR, one-class).  ``scikit-learn-intelex`` is a peer
where it has the estimator (``pip install scikit-learn-intelex``; skipped with a note
otherwise).

Writes ``benchmarks/results/libsvm_problems.{json,md}``.
"""

import sys
import time
import warnings

import numpy as np

from .common import FASHION_MNIST, _idx, environment_markdown, load, run_part
from .kernel import data as binary_data

DATASETS = ["svr", "nusvr", "one-class", "nusvc"]
QUICK_ROWS = 3000


def data(name, data_dir, quick):
    """(X, target, X_test, test target, LIBSVM's class name, its parameters)."""
    rng = np.random.default_rng(0)
    if name in ("svr", "nusvr"):
        X, y = load(data_dir / "ijcnn1.trn.bz2")
        Xt, yt = load(data_dir / "ijcnn1.tst.bz2", n_features=X.shape[1])
        X, Xt = X.toarray(), Xt.toarray()
        rows = rng.permutation(Xt.shape[0])[:10_000]
        Xt, yt = Xt[rows], yt[rows]
        params = ({"C": 1.0, "epsilon": 0.1, "gamma": 1.0} if name == "svr"
                  else {"nu": 0.2, "C": 1.0, "gamma": 1.0})
        cls = "SVR" if name == "svr" else "NuSVR"
    elif name == "one-class":
        X = _idx(FASHION_MNIST / "train-images-idx3-ubyte.gz").reshape(-1, 784) / 255.0
        labels = _idx(FASHION_MNIST / "train-labels-idx1-ubyte.gz")
        Xt = _idx(FASHION_MNIST / "t10k-images-idx3-ubyte.gz").reshape(-1, 784) / 255.0
        yt = (_idx(FASHION_MNIST / "t10k-labels-idx1-ubyte.gz") < 5).astype(np.int64)
        X, y = X[labels < 5], np.ones(int(np.sum(labels < 5)))
        cls, params = "OneClassSVM", {"nu": 0.1, "gamma": "scale"}
    else:
        X, y, Xt, yt, gamma = binary_data("fashion", data_dir, False)
        cls, params = "NuSVC", {"nu": 0.2, "gamma": gamma}
    if quick:
        keep = rng.choice(X.shape[0], min(X.shape[0], QUICK_ROWS), replace=False)
        X, y = X[np.sort(keep)], y[np.sort(keep)]
    return X, y, Xt, yt, cls, params


def solvers(cls, params):
    """{label: (make, our dtype or float64)}."""
    import sklearn.svm

    from pegasos import DualNuSVC, DualNuSVR, DualOneClassSVM, DualSVR

    ours = {"SVR": DualSVR, "NuSVR": DualNuSVR, "OneClassSVM": DualOneClassSVM,
            "NuSVC": DualNuSVC}[cls]
    out = {f"{cls} (LIBSVM)": (lambda: getattr(sklearn.svm, cls)(**params), np.float64)}
    try:
        import sklearnex.svm

        if hasattr(sklearnex.svm, cls):
            out[f"scikit-learn-intelex {cls}"] = (
                lambda: getattr(sklearnex.svm, cls)(**params), np.float64)
        else:
            print(f"scikit-learn-intelex has no {cls}: skipped", file=sys.stderr)
    except ImportError:
        print("scikit-learn-intelex is not installed: skipped", file=sys.stderr)
    out[f"{ours.__name__}, float64"] = (lambda: ours(**params), np.float64)
    out[f"{ours.__name__}, float32"] = (lambda: ours(**params), np.float32)
    return out


def scores(cls, model, X):
    """Decision values (regression: the prediction) on X."""
    return model.predict(X) if cls in ("SVR", "NuSVR") else model.decision_function(X)


def dual_objective(model, X, y, cls, gamma):
    """LIBSVM's dual objective of a fitted model from its coefficients: SVR's
    ``1/2 b'Kb + epsilon sum |b| - z'b``, nu-SVR's ``1/2 b'Kb - z'b``, the one-class
    SVM's ``1/2 a'Ka``; None for nu-SVC (its pairs are scaled by 1/r)."""
    from sklearn.metrics.pairwise import rbf_kernel

    if cls == "NuSVC":
        return None
    coef = np.asarray(model.dual_coef_.toarray() if hasattr(model.dual_coef_, "toarray")
                      else model.dual_coef_)[0]
    sv = X[model.support_]
    quad = 0.0
    for start in range(0, len(sv), 2000):
        quad += float(coef[start:start + 2000] @ (rbf_kernel(sv[start:start + 2000], sv,
                                                             gamma=gamma) @ coef))
    if cls == "OneClassSVM":
        return 0.5 * quad
    linear = -float(y[model.support_] @ coef)
    return 0.5 * quad + linear + (model.epsilon * float(np.abs(coef).sum()) if cls == "SVR"
                                  else 0.0)


def metric(cls, model, Xt, yt):
    """The test metric: {name: value}."""
    if cls in ("SVR", "NuSVR"):
        predicted = model.predict(Xt)
        return {"test_mse": float(np.mean((predicted - yt) ** 2)),
                "test_sign_accuracy": float(np.mean(np.sign(predicted) == yt))}
    if cls == "OneClassSVM":
        from sklearn.metrics import roc_auc_score

        return {"test_auc": float(roc_auc_score(yt, model.decision_function(Xt))),
                "test_inliers_predicted": float(np.mean(model.predict(Xt) == 1))}
    return {"test_accuracy": float(np.mean(model.predict(Xt) == yt))}


def bench(name, data_dir, quick, repeats):
    from pegasos import DualOneClassSVM

    X, y, Xt, yt, cls, params = data(name, data_dir, quick)
    DualOneClassSVM().fit(X[:200].astype(np.float32)).predict(X[:200].astype(np.float32))
    gamma = params["gamma"] if params["gamma"] != "scale" else 1.0 / (X.shape[1] * X.var())
    record = {"dataset": name, "estimator": cls, "n_train": len(y), "n_test": len(yt),
              "params": {k: v if isinstance(v, str) else float(v) for k, v in params.items()},
              "gamma": float(gamma), "runs": []}
    reference = None
    for label, (make, dtype) in solvers(cls, params).items():
        Xf, Xtf = X.astype(dtype), Xt.astype(dtype)
        fits = []
        for _ in range(repeats):
            model = make()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tic = time.perf_counter()
                model.fit(Xf, y) if cls != "OneClassSVM" else model.fit(Xf)
                fits.append(time.perf_counter() - tic)
        tic = time.perf_counter()
        values = np.asarray(scores(cls, model, Xtf), dtype=np.float64)
        predict = time.perf_counter() - tic
        run = {"solver": label, "dtype": np.dtype(dtype).name,
               "fit_seconds": float(np.median(fits)), "fit_seconds_all": fits,
               "predict_seconds": predict, **metric(cls, model, Xtf, yt),
               "support_vectors": int(len(model.support_)),
               "dual_objective": dual_objective(model, X, y, cls, gamma)}
        if reference is None:  # LIBSVM's, the first
            reference = (values, run["dual_objective"])
        spread = float(np.ptp(reference[0])) or 1.0
        run["decision_difference"] = float(np.max(np.abs(values - reference[0]))) / spread
        run["objective_difference"] = (
            (run["dual_objective"] - reference[1]) / abs(reference[1])
            if run["dual_objective"] is not None and reference[1] else None)
        record["runs"].append(run)
        print(f"{name} {label}: {run}", file=sys.stderr, flush=True)
    base = record["runs"][0]["fit_seconds"]
    for run in record["runs"]:
        run["fit_ratio"] = run["fit_seconds"] / base
    return record


def markdown(result):
    lines = ["# LIBSVM's other problems: the working-set solver against LIBSVM and intelex", ""]
    for record in result["datasets"]:
        metrics = [k for k in record["runs"][0] if k.startswith("test_")]
        lines += [f"## {record['dataset']}: {record['estimator']}, {record['n_train']} training "
                  f"rows, {record['n_test']} test rows, {record['params']}", "",
                  "| solver | dtype | fit s | x LIBSVM's | predict s | "
                  + " | ".join(m.replace("test_", "test ").replace("_", " ") for m in metrics)
                  + " | SVs | decision diff / spread | dual objective diff |",
                  "|---|---|---:|---:|---:|" + "---:|" * len(metrics) + "---:|---:|---:|"]
        for run in record["runs"]:
            cells = [run["solver"], run["dtype"], f"{run['fit_seconds']:.2f}",
                     f"{run['fit_ratio']:.2f}x", f"{run['predict_seconds']:.2f}"]
            cells += [f"{run[m]:.4f}" for m in metrics]
            cells += [str(run["support_vectors"]), f"{run['decision_difference']:.1e}",
                      "" if run["objective_difference"] is None
                      else f"{run['objective_difference']:+.1e}"]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines + environment_markdown(result["environment"])) + "\n"


def main(argv=None):
    return run_part(argv, doc=__doc__, stem="libsvm_problems", datasets=DATASETS, bench=bench,
                    markdown=markdown, quick_help=f"{QUICK_ROWS:,} training rows")


if __name__ == "__main__":
    sys.exit(main())
