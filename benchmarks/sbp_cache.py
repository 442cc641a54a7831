"""Would a kernel column cache pay for the SBP?  Its draws, replayed through LRU caches.

The SBP pays one kernel column (every training row against the drawn
example) per distinct example drawn in an iteration, and it draws only from
the examples at or below its water level, so the same examples come back
again and again -- the case for a column cache, as LIBSVM keeps one
(``SVC(cache_size=200)``, in MB).  This part measures how much of the SBP's
work such a cache would save, before anyone builds one.

``SBPClassifier()``'s default fit (nu estimated from C = 1 by one pass of
kernel Pegasos, then one pass of the SBP in iterations of 16 draws) runs here
one iteration at a time through the same compiled step; before each step the
iteration's draws are found again from the responses (the water level, the
examples at or below it in index order, the uniforms), the replayed draws are
checked against the examples the step gave a coefficient, and every column
the step computed is looked up in least-recently-used caches of 200 MB
(SVC's default) to 4 GB of float64 columns.  Reported per data set: the
columns of the pass, the distinct examples drawn, the size of the set drawn
from, and each cache's hit rate (the share of the pass's columns it would
have served instead of computing).  Data sets, gamma and C as in
``benchmarks.kernel``.

Usage::

    python -m benchmarks.sbp_cache [--quick] [--datasets ijcnn1 adult fashion]

Writes ``benchmarks/results/sbp_cache.{json,md}``.
"""

import collections
import math
import sys
import time

import numpy as np

from .common import environment_markdown, run_part
from .kernel import DATASETS, data

CACHE_MB = [200, 500, 1000, 2000, 4000]
BATCH = 16  # SBPClassifier's default batch size


def replay(X, y, gamma, seed=0):
    """One default-budget SBP pass, iteration by iteration, with its draws replayed."""
    from pegasos import SBPClassifier
    from pegasos._numba import sbp as _sbp
    from pegasos._numba.changes import new_changes
    from pegasos._numba.water_filling import water_level_select
    from pegasos._solvers.engine import block_columns, engine_for, points
    from pegasos._solvers.kernel_pegasos import nu_from_one_pass
    from pegasos._solvers.sbp import new_scratch

    est = SBPClassifier(gamma=gamma, random_state=seed)
    X, y = est._validate_xy(X, y, reset=True)
    rows, sqnorm, diag, _ = est._setup(X, y)  # the engine's SBP: no kernel matrix
    Y = np.ascontiguousarray(np.column_stack(est._binary_targets(y)))
    n = Y.shape[0]
    sw = np.ones(n)
    nu, _ = nu_from_one_pass(est.C, rows, sqnorm, diag, Y, est._kargs, seed, sw)
    budget = float(nu[0] * n)
    state = _sbp.SBPState(*(np.zeros((n, 1)) for _ in range(4)),
                          scal=np.zeros((_sbp.SBP_SCALARS, 1)))
    splan = _sbp.SBPPlan(radius=math.sqrt(float(diag.max())), draws=_sbp.UNBIASED, avg_start=1,
                         max_cols=block_columns(rows.n_features), engine=engine_for(n))
    data_ = _sbp.SBPData(points(rows, sqnorm), Y, np.array([budget]), sw)
    rng = np.random.default_rng(seed)
    scratch = new_scratch(n, BATCH)
    changes = new_changes(n, BATCH, 1)
    work = np.empty(3 * n)
    sizes = {mb: min(n, max(1, int(mb * 2**20 // (8 * n)))) for mb in CACHE_MB}  # columns
    caches = {mb: collections.OrderedDict() for mb in CACHE_MB}
    hits = dict.fromkeys(CACHE_MB, 0)
    columns, drawn, n_cands, t = 0, set(), [], 1
    tic = time.perf_counter()
    for _ in range(math.ceil(n / BATCH)):
        draws = rng.random((1, 1, BATCH))
        margins = Y[:, 0] * state.r[:, 0]
        work[:n] = margins
        level = water_level_select(work[:n], budget, sw, work[n:2 * n], work[2 * n:])
        cands = np.flatnonzero(margins <= level)
        n_cands.append(len(cands))
        picks = cands[np.minimum((draws[0, 0] * len(cands)).astype(np.int64), len(cands) - 1)]
        for i in np.unique(picks).tolist():
            columns += 1
            drawn.add(i)
            for mb, cache in caches.items():
                if i in cache:
                    hits[mb] += 1
                    cache.move_to_end(i)
                else:
                    cache[i] = None
                    if len(cache) > sizes[mb]:
                        cache.popitem(last=False)
        t, _ = _sbp.sbp_blocks(data_, est._kargs, splan, state, draws, t, scratch, changes)
    replayed = set(np.flatnonzero(state.a[:, 0]).tolist())
    if replayed != drawn:
        raise RuntimeError(f"replayed draws differ from the solver's: {len(drawn ^ replayed)}")
    return {
        "n_train": n, "nu": float(nu[0]), "iterations": t - 1, "columns": columns,
        "distinct_drawn": len(drawn), "draw_set_median": float(np.median(n_cands[1:])),
        "draw_set_max_after_first": int(max(n_cands[1:])),
        "seconds_replay": time.perf_counter() - tic,
        "caches": [{"mb": mb, "columns_held": sizes[mb], "hit_rate": hits[mb] / columns}
                   for mb in CACHE_MB],
    }


def bench(name, data_dir, quick, repeats):
    X, y, _, _, gamma = data(name, data_dir, quick)
    record = {"dataset": name, "gamma": gamma, "C": 1.0, "batch_size": BATCH,
              **replay(X, y, gamma)}
    print(f"{name}: {record}", file=sys.stderr, flush=True)
    return record


def markdown(result):
    lines = [
        "# Would a column cache pay for the SBP?",
        "",
        "Generated by `python -m benchmarks.sbp_cache` (part of `python -m benchmarks`). "
        "`SBPClassifier()`'s default fit (nu from C = 1, one pass in iterations of 16 draws) "
        "replayed iteration by iteration; every kernel column it computed looked up in "
        "least-recently-used caches of float64 columns. 'draw set': the examples at or below "
        "the water level, which an iteration draws from (median over the pass after its "
        "first iteration). 'hit rate': the share of the pass's columns the cache would have "
        "served.",
        "",
        "| data | n | columns | distinct drawn | draw set (median) | "
        + " | ".join(f"{mb} MB" for mb in CACHE_MB) + " |",
        "|---|---|---|---|---|" + "---|" * len(CACHE_MB),
    ]
    for ds in result["datasets"]:
        cells = [f"{100 * c['hit_rate']:.0f}% ({c['columns_held']} cols)" for c in ds["caches"]]
        lines.append(
            f"| {ds['dataset']} | {ds['n_train']} | {ds['columns']} | {ds['distinct_drawn']} | "
            f"{ds['draw_set_median']:.0f} | " + " | ".join(cells) + " |"
        )
    lines += ["", *environment_markdown(result["environment"])]
    return "\n".join(lines) + "\n"


def main(argv=None):
    return run_part(argv, doc=__doc__, stem="sbp_cache", datasets=DATASETS, bench=bench,
                    markdown=markdown, quick_help="5,000 training rows per data set")


if __name__ == "__main__":
    sys.exit(main())
