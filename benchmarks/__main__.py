"""Regenerate every benchmark result: ``python -m benchmarks [--quick]``.

Runs, in this order, each in this one process:

=================  =======================================================  ===========================
part               what                                                     writes (results/)
=================  =======================================================  ===========================
linear             seed 001's table: time to a test error / suboptimality   linear.{json,md}
minibatch          seed 004's figures: k in {1, 10, 100, 1000} at fixed kT  minibatch.{json,md,png}
scaling            seed 000's claim: time to a fixed error as n grows       scaling.{json,md,png}
kernel             seed 002's figure: test error against kernel evals       kernel.{json,md,png}
kernel_engine      kernel evaluations per second, blocks against columns    kernel_engine.{json,md}
kernel_multiclass  Fashion-MNIST, 10 classes: SVC, ours, Nystroem           kernel_multiclass.{json,md}
kernel_exact       DualSVC against SVC, scikit-learn-intelex, SVC on subsets  kernel_exact.{json,md}
dualsvc_profile    where DualSVC's time goes, beside scikit-learn-intelex    dualsvc_profile.{json,md}
libsvm_problems    DualSVR, DualNuSVR, one-class, nu-SVC against LIBSVM    libsvm_problems.{json,md}
sbp_cache          the SBP's draws replayed through LRU column caches       sbp_cache.{json,md}
dask_scaling       distributed Pegasos on a LocalCluster                    dask.{json,md}
input_checks       the sparse structure check against the fit and predict   input_checks.{json,md}
startup            the command line's start-up time                         startup.{json,md}
calibration        probability=True against calibrated LIBLINEAR and SVC    calibration.{json,md}
certificate        the default end-of-fit certificate: its cost, its gap    certificate.{json,md}
compile            each estimator's first fit with an empty Numba cache     compile.{json,md}
stream             generated files of 0.3 and 3 GB: Pegasos from a stream   stream.{json,md}
dask_stream        generated shards read by Dask workers, against memory    dask_stream.{json,md}
=================  =======================================================  ===========================

and ``run.json``: how long each part took (``python -m benchmarks.runner``, not
one of the parts since it runs them all, times a whole ``--quick`` run part by
part beside each part's last full run: ``runner.{json,md}``).  Data come from ``../shared/data``
and Fashion-MNIST (``apt-get install dataset-fashion-mnist``; without it those
rows are skipped).  The peers: ``pip install ".[bench]"`` (Vowpal Wabbit,
Dask).  ``--quick`` shrinks every part (smaller grids, subsamples, one repeat)
and writes to ``benchmarks/results-quick/`` unless ``--out-dir`` says
otherwise, so that it never overwrites the full results.
"""

import argparse
import importlib
import sys
import time
from pathlib import Path

from .common import HERE, SHARED_DATA, environment, record_seconds

PARTS = ["linear", "minibatch", "scaling", "kernel", "kernel_engine", "kernel_multiclass",
         "kernel_exact", "dualsvc_profile", "libsvm_problems", "sbp_cache", "dask_scaling",
         "dask_kernel",
         "input_checks", "startup", "calibration", "certificate", "compile", "stream", "dask_stream"]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="a short run (minutes), written to benchmarks/results-quick/")
    parser.add_argument("--only", nargs="+", choices=PARTS, default=PARTS, metavar="PART",
                        help=f"run only these parts ({', '.join(PARTS)})")
    parser.add_argument("--repeats", type=int, default=None,
                        help="fits per timing (median, min, max); default 3, or 1 with --quick")
    parser.add_argument("--data-dir", type=Path, default=SHARED_DATA)
    parser.add_argument("--out-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    repeats = args.repeats or (1 if args.quick else 3)
    out_dir = args.out_dir or HERE / ("results-quick" if args.quick else "results")
    common = ["--data-dir", str(args.data_dir), "--out-dir", str(out_dir),
              "--repeats", str(repeats)] + (["--quick"] if args.quick else [])
    seconds = {}
    start = time.perf_counter()
    for part in args.only:
        print(f"== {part}", file=sys.stderr, flush=True)
        tic = time.perf_counter()
        try:
            module = importlib.import_module(f"benchmarks.{part}")
            status = module.main(common)
        except ModuleNotFoundError as exc:  # a peer not installed: say so, go on
            print(f"skipping {part}: {exc} (pip install '.[bench]')", file=sys.stderr)
            continue
        seconds[part] = time.perf_counter() - tic
        print(f"== {part}: {seconds[part]:.0f} s", file=sys.stderr, flush=True)
        if status:
            return status
    # A run of some parts updates their entries and keeps the others'.
    this_run = {"parts": args.only, "seconds": time.perf_counter() - start}
    record_seconds(out_dir, seconds, environment=environment(repeats=repeats, quick=args.quick),
                   this_run=this_run)
    print(f"this run: {this_run['seconds']:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
