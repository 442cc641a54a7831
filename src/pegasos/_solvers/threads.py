"""BLAS's threads, held at one while this package runs its own (its own module: the
engine and the small-set solver both hold it, and neither imports the other for it)."""

__all__ = ["one_blas_thread"]


def one_blas_thread():
    """BLAS limited to one thread: the kernel engine runs its own threads over tiles.

    The loaded BLAS libraries are found once per process (SciPy's, which
    Numba's ``np.dot`` calls, loaded first), and each call only sets and
    restores their thread counts: finding them reads the process's memory
    map, 2.3 ms a time here, which was half of a small ``DualSVC`` fit
    (digits: one limit per pair of classes).

    Returns
    -------
    context manager
        The limiter of threadpoolctl: BLAS at one thread inside, as before after.

    See Also
    --------
    threadpoolctl.ThreadpoolController.limit : The limit itself.

    Examples
    --------
    >>> import numpy as np
    >>> from pegasos.kernel import one_blas_thread
    >>> with one_blas_thread():
    ...     product = np.ones((64, 64)) @ np.ones((64, 64))
    >>> float(product[0, 0])
    64.0
    """
    global _BLAS
    if _BLAS is None:
        import scipy.linalg.cython_blas  # noqa: F401 (the BLAS Numba calls, loaded before the scan)
        from threadpoolctl import ThreadpoolController

        _BLAS = ThreadpoolController()
    return _BLAS.limit(limits=1, user_api="blas")


_BLAS = None  # the ThreadpoolController of this process, made at the first limit
