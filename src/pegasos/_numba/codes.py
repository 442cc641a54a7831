"""The kernels' table: :data:`KERNEL_TABLE`, each kernel's name, the code the compiled
formulas branch on, its LIBSVM number and name, the parameters its formula reads.

The estimators' validation (``pegasos.kernel.KERNELS``), the command line's ``-t``,
LIBSVM's model files (``pegasos.interchange``) and the compiled kernels
(:mod:`.kernels`, :mod:`.blocks`) all read it.  Plain Python, no Numba: the command
line reads it at start-up.  (It lives in this package so that a change to a code
changes the compiled code's cache key, ``_jit.cache_key``.)
"""

from typing import NamedTuple

LINEAR = 0
RBF = 1
POLY = 2
SIGMOID = 3
PRECOMPUTED = 4


class KernelType(NamedTuple):
    """One kernel of :data:`KERNEL_TABLE`."""

    name: str  # scikit-learn's (``SVC(kernel=...)``)
    code: int  # what the compiled formulas branch on
    libsvm: int  # LIBSVM's ``-t`` number
    libsvm_name: str  # LIBSVM's ``kernel_type`` in its model files
    #: the parameters its formula reads (LIBSVM writes these, and requires them, in a model)
    parameters: tuple


#: Every kernel, once: K(x, z) = <x, z>; (gamma <x, z> + coef0)^degree;
#: exp(-gamma ||x - z||^2); tanh(gamma <x, z> + coef0); the given matrix.
KERNEL_TABLE = (
    KernelType("linear", LINEAR, 0, "linear", ()),
    KernelType("poly", POLY, 1, "polynomial", ("degree", "gamma", "coef0")),
    KernelType("rbf", RBF, 2, "rbf", ("gamma",)),
    KernelType("sigmoid", SIGMOID, 3, "sigmoid", ("gamma", "coef0")),
    KernelType("precomputed", PRECOMPUTED, 4, "precomputed", ()),
)

#: :data:`KERNEL_TABLE` by name.
KERNEL_TYPES = {k.name: k for k in KERNEL_TABLE}
