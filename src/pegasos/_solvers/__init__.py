"""The solver layer: each algorithm's state, settings and Python driver.

Between the estimators (validation, the plan, fitted attributes) and the
compiled code of :mod:`pegasos._numba` (arrays, numbers and named tuples of
them): one module per algorithm family.

* :mod:`.linear`: linear Pegasos, a module per concern -- its state
  (:class:`~.linear.PegasosState`), the in-memory driver (:func:`~.linear.fit_binary`),
  the stream driver (:func:`~.linear.fit_stream`), the distributed fit's steps;
* :mod:`.kernel_pegasos`: kernel Pegasos and the kernel Perceptron;
* :mod:`.sbp`: the Stochastic Batch Perceptron;
* :mod:`.working_set`: the working-set iteration of LIBSVM's dual (DualSVC and
  LIBSVM's other problems): selection, the column store, the gradients;
* :mod:`.problems`: LIBSVM's five problems as one table (what each hands the
  working-set solver, its model file's fields, its name in LIBSVM's files and the
  CLI), read by the dual estimators, the model files, the interchange and the CLI;
* :mod:`.across`: the same iteration with a problem's rows split between holders
  (DaskDualSVC's workers);
* :mod:`.engine`: what the kernel solvers share -- compiled calls in
  blocks, the engine's memory budget, prediction;
* :mod:`.gram`: small sets' kernel matrix by NumPy, and small predictions;
* :mod:`.threads`: BLAS held at one thread while the engine runs its own;
* :mod:`.report`: :class:`~.report.Report`, the one progress record every
  solver gives its ``callback``.

A compiled module imported here under an alias takes an ``n`` (``_nkp``,
``_nsbp``, ``_nws``, ``_nchunk``), so that an alias names one module wherever it
appears: the estimators' ``_kp``, ``_sbp`` and ``_ws`` are this layer's modules.
The package itself imports nothing, so that the CLI's ``--help`` reads
:mod:`.problems` without NumPy.
"""
