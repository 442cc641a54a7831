"""``pegasos compile``: every solver compiled into Numba's on-disk cache ahead of use;
and the note the commands that compile print while Numba compiles."""

import contextlib
import sys
import time

import numba.core.event as event
import numpy as np
import scipy.sparse as sp

from .._numba._jit import CACHE_DIR
from .._solvers.engine import PARALLEL_ROWS
from .._solvers.gram import engine_only
from ..kernel import KernelPegasosClassifier, KernelPerceptron, SBPClassifier
from ..linear import PegasosClassifier
from ..stream import _parse_compiled
from ..svc import DualSVC
from ._common import _print_json


def run(args, parser):
    """``pegasos compile``: every solver compiled into Numba's cache, timed."""
    # small sets train and predict on their kernel matrix; larger ones on the blocked
    # engine, on threads from PARALLEL_ROWS rows, and a few rows predict in one thread
    inputs = _compile_inputs(40)
    larger = _compile_inputs(PARALLEL_ROWS)
    # a short linear run draws fewer rows than there are (their norms are computed as drawn),
    # a long or checked one computes every row's norm at once: two compiled paths
    estimators = [PegasosClassifier(n_iter=5, random_state=0),
                  PegasosClassifier(n_iter=50, track_objective=True, random_state=0),
                  KernelPegasosClassifier(n_iter=20, random_state=0),
                  SBPClassifier(n_iter=10, random_state=0),
                  SBPClassifier(n_iter=10, fit_intercept=True, random_state=0),
                  KernelPerceptron(n_iter=20, random_state=0),
                  DualSVC(working_set_size=8)]
    with _compile_events() as events:
        tic = time.perf_counter()
        for kind, data in inputs.items():
            for est in estimators:
                est.fit(data, np.arange(data.shape[0]) % 2).predict(data)
                if not isinstance(est, PegasosClassifier):
                    with engine_only():
                        est.fit(larger[kind], np.arange(PARALLEL_ROWS) % 2).predict(larger[kind])
                        est.predict(data)
        _parse_compiled(b"1 qid:1 1:0.5 2:1e400\n-1 3:1\n", False)  # the LIBSVM parser
        seconds = time.perf_counter() - tic
    summary = {"seconds": seconds, "compiled_functions": len(events), "cache": CACHE_DIR,
               "inputs": list(inputs), "estimators": sorted({type(e).__name__
                                                              for e in estimators})}
    if args.json:
        _print_json(summary)
    elif events:
        print(f"pegasos: compiled {len(events)} functions in {seconds:.1f} s into {CACHE_DIR}")
    else:
        print(f"pegasos: every solver was already compiled; loaded from {CACHE_DIR} in "
              f"{seconds:.1f} s")
    return 0


def _compile_inputs(n_rows):
    """``pegasos compile``'s data: n_rows x 5 random values in every input kind, by name."""
    X = np.random.default_rng(0).standard_normal((n_rows, 5))
    csr32 = sp.csr_matrix(X)
    csr32.indices, csr32.indptr = csr32.indices.astype(np.int32), csr32.indptr.astype(np.int32)
    csr64 = sp.csr_matrix(X)
    csr64.indices, csr64.indptr = csr64.indices.astype(np.int64), csr64.indptr.astype(np.int64)
    return {"dense float64": X, "dense float32": X.astype(np.float32),
            "csr float64, int32 indices": csr32, "csr float64, int64 indices": csr64,
            "csr float32": csr32.astype(np.float32)}


@contextlib.contextmanager
def _compile_events():
    """The names of the functions Numba compiles within the block (loads from the cache are
    not compiles)."""
    names = []

    class Listener(event.Listener):
        def on_start(self, ev):
            pass

        def on_end(self, ev):
            fn = ev.data["dispatcher"].py_func
            names.append(f"{fn.__module__}.{fn.__qualname__}")

    with event.install_listener("numba:compile", Listener()):
        yield names


@contextlib.contextmanager
def _compile_notice(quiet):
    """Say on stderr, once, that the solver is compiling (the first run after installing):
    a first kernel fit compiles for tens of seconds, which without a word looks like a hang."""
    if quiet:
        yield
        return
    started = []

    class Listener(event.Listener):
        def on_start(self, ev):
            if not started:
                started.append(time.perf_counter())
                print("pegasos: compiling the solver for this input, once per install "
                      "(`pegasos compile` does it ahead) ...", file=sys.stderr, flush=True)

        def on_end(self, ev):
            pass

    with event.install_listener("numba:compile", Listener()):
        yield
    if started:
        print(f"pegasos: compiled in {time.perf_counter() - started[0]:.1f} s",
              file=sys.stderr, flush=True)
