"""Kernel classifiers: :class:`KernelPegasosClassifier`, :class:`SBPClassifier`
and :class:`KernelPerceptron`.

All three keep O(n) state per one-vs-rest problem -- coefficients and the
responses of every training point -- and never store a kernel matrix.  They
run on the blocked engine (:mod:`pegasos._numba.blocks`): each iteration
draws ``batch_size`` examples, and the kernel columns of every example that
changes any problem's model are computed together, one pass over the data by
tiles of rows (BLAS for dense rows), updating every problem's responses from
the same tiles.  Kernel Pegasos and the Perceptron, whose draws do not depend
on the model, make that pass once per chunk of about 256 draws, for all the
chunk's changed examples at once, and keep only the chunk's drawn rows
current in between (exactly: every margin is the iterate's own).  One draw
stream serves all the problems.  Prediction takes tiles of test rows against
all support vectors, every problem at once.  With
``kernel="precomputed"`` the n x n Gram matrix you pass is the only large
object (8 n^2 bytes: 20 GB for n = 50,000).

Fitted attributes follow :class:`sklearn.svm.SVC`: ``support_``,
``support_vectors_``, ``dual_coef_`` (n_problems, n_SV), ``intercept_`` and
``n_support_`` (support vectors per class); the decision function is
``dual_coef_ @ K(support_vectors_, X) + intercept_``.  Multi-class problems
are one-vs-rest (not SVC's one-vs-one): one row of ``dual_coef_`` per class
over the union of the support vectors.
"""

from ._kernel_base import KERNELS  # noqa: F401 (each kernel's code, by name: read by tests and tools)
from ._solvers.threads import one_blas_thread
from .kernel_pegasos import KernelPegasosClassifier
from .perceptron import KernelPerceptron
from .sbp import SBPClassifier, nu_for, nu_from_svm

__all__ = ["KernelPegasosClassifier", "KernelPerceptron", "SBPClassifier", "nu_for",
           "nu_from_svm", "one_blas_thread"]
