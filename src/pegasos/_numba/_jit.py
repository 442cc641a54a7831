"""The one place where JIT options are set."""

import functools

import numba

#: Decorator for every kernel: cached on disk, releases the GIL (so one-vs-rest
#: problems can run in threads), and no fastmath: the kernels must see NaN/inf.
njit = functools.partial(numba.njit, cache=True, nogil=True)
