"""The one place where JIT options are set."""

import functools

import numba

#: Decorator for every kernel: cached on disk, releases the GIL (so one-vs-rest
#: problems can run in threads), and no fastmath: the kernels must see NaN/inf.
njit = functools.partial(numba.njit, cache=True, nogil=True)

#: The same for kernels that split rows over threads with ``prange``; each
#: such kernel writes every output entry independently (no reductions across
#: threads), so results do not depend on the number of threads.
njit_parallel = functools.partial(numba.njit, cache=True, nogil=True, parallel=True)
