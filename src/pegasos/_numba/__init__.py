"""Compiled kernels.

Every Numba function of the library lives in this private package.  The rules
(see CONTRIBUTING in the README):

* kernels take NumPy arrays and numbers only -- never an estimator, a string
  or a callback; options arrive as the named integer constants below;
* every kernel is compiled through :data:`njit` (``cache=True``, ``nogil=True``
  and no ``fastmath``, so NaN and inf keep their IEEE meaning);
* dtypes are fixed by the Python layer: float64 values, and CSR indices as
  given (int32 or int64), so each kernel compiles at most twice.
"""
