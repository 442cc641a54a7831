"""Compiled kernels.

Every Numba function of the library lives in this private package, one module
per compiled algorithm: :mod:`.linear` (linear Pegasos, its certificate's dual
pass), :mod:`.kernel_pegasos` (kernel Pegasos and the Perceptron, by chunks),
:mod:`.sbp` (the SBP), :mod:`.chunk` (where kernel Pegasos' step reads and
changes the responses: a chunk of the engine's rows, or a small training set's
kernel matrix, the engine :class:`.blocks.OnMatrix`), :mod:`.working_set` (the
dual solver's SMO on a block and its gradient update), :mod:`.water_filling`,
:mod:`.changes` (a step's changes merged by example), the blocked engine
:mod:`.blocks`, :mod:`.kernels` and :mod:`.rows`, and
the kernels' table their codes come from, :mod:`.codes` (plain Python).
The rules (see CONTRIBUTING.md):

* compiled functions take NumPy arrays, numbers and named tuples of them only
  (``NamedTuple`` classes defined beside the code that reads them: a plan,
  a state, the data) -- never an estimator, a string or a callback; options
  arrive as named integer constants; none takes more than 8 parameters or
  runs over 60 lines (``tests/test_layout.py``);
* every function is compiled through :data:`._jit.njit` (``cache=True``,
  ``nogil=True``); no ``fastmath`` flag that assumes finite values, so NaN
  and inf keep their IEEE meaning (the RBF's exponential allows ``contract``
  alone: fused multiply-adds);
* dtypes are fixed by the Python layer: float64 values (the kernel solvers
  also keep float32 rows as float32) and CSR indices as given (int32 or
  int64), so each function compiles once per row layout it meets;
* a solver's private helpers are ``@njit(inline="always")``: Numba compiles
  every function it calls separately and then optimises and generates machine
  code for each caller with all its callees linked in, so a chain of small
  helpers over the engine compiles the engine's code once per link.  Inlined
  at Numba's level, a helper is compiled as part of its one caller (kernel
  Pegasos' first fit, dense float64: 34 s -> 24 s cold, measured;
  docs/journal/compile_time.md).  The engine's entry points (:func:`.blocks.add_gathered`, its
  serial twin ``add_tiles``, ``block_rows`` and its twin ``block_rows_serial``,
  ``pair_block``), shared by every solver and by prediction, stay separate, and
  so does anything with its own ``fastmath`` flags (an inlined helper takes its
  caller's) or called inside a ``prange`` body.  Inlining has its own cost:
  Numba compiles an inlined helper's first passes again at every call site and
  copies its code, once more for each helper nested inside it, so the nesting
  is kept shallow (kernel Pegasos' step is the solver's loop body);
* for the same reason kernel Pegasos' solver stops at the end of each chunk and
  its caller brings the chunk's changes to every row through the engine: the
  solver links no parallel code, and the engine's is compiled once, shared
  with prediction; and the engine is chosen by type (``blocks.SERIAL``,
  ``blocks.THREADS``), so a small problem compiles no parallel region at all;
* no array is assigned to a slice or a row (``a[lo:hi] = b``, ``a[i] += b``,
  ``a[:, c] *= s``): a loop instead.  Numba's slice assignment links in the
  code that formats its shape-mismatch error (string joins, ``repr``) and
  compiles it again in every function that has one (a quarter of a second
  each: kernel Pegasos' first fit 18.5 s -> 11 s with the other changes of
  docs/journal/compile_time.md); a scalar assigned to a slice (``a[:] = 0.0``)
  has no such path;
* no integer constant passed to a compiled function that is not inlined,
  directly (``f(x, 0)``) or as a counter's first value (``count = 0``, then
  ``count = f(..., count)``): Numba types it ``Literal[int](0)`` and compiles
  the callee for the literal and again for ``int64``.  ``np.int64(0)`` is
  typed ``int64`` (``tests/test_cache.py`` checks every signature after cold
  fits).
"""
