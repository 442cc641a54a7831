"""The one place where JIT options and Numba's on-disk cache are set.

Three defects of Numba's cache (0.60-0.68) crash valid runs (the first two
crashed this library's; the third is reported upstream), and each is closed
here at its root:

1. **A cache entry compiled from other sources.**  Numba keys a function's
   cache index by the modification time and size of *its own* source file.
   A cached function links in the machine code of every function it calls, so
   when a callee's module changes (``rows.py``, ``kernels.py``) the caller's
   entry still holds the old callee; a changed signature then segfaults.  We
   therefore keep this package's entries in a folder of their own whose name
   is a hash of **every** source file of this package together with the
   versions of Python, Numba, llvmlite and NumPy (:func:`cache_dir`): a change
   to any of them selects a new, empty folder, so no entry compiled from other
   sources is ever read.  Only this package's functions are redirected
   (``numba.config.CACHE_DIR`` is set while they are decorated, then
   restored); other libraries' caches are untouched.

2. **A parallel callee's thread pool never started.**  A ``parallel=True``
   function records in its cache entry that the thread pool must be launched
   before it runs (``reload_init``).  A function *calling* it inherits that
   record only if the callee was compiled in the same process: when the callee
   came from the cache, the record is lost (Numba's unserialised libraries
   carry no ``reload_init``; numba issues 8578 and 9938).  The caller's entry
   is then written without it, and the next process that loads the caller from
   the cache jumps into a thread pool that was never started: SIGSEGV (seen
   here: kernel Pegasos, then SBP, then SBP again, each in a fresh process).
   Importing this module starts the thread pool (``numba.get_num_threads()``,
   public API, ~40 ms once) before any compiled function can be loaded.

3. **Two processes compiling one function at once** (numba issue 10128, open):
   a parallel function's cache entry is two files, each written atomically but
   not together, so two processes compiling it into an empty cache at the same
   moment can leave one process's half beside the other's, and every later
   load segfaults.  Each compile therefore holds a lock file of its function in
   the cache folder (``fcntl.flock``, :func:`_locked`): a second process waits,
   then loads what the first wrote instead of compiling it again, so processes
   started together (``pytest -n auto``, a pool of workers) share one compile.

``tests/test_cache.py`` runs the sequences that crashed, each step in a fresh
process against one folder, cold and then warm, and two processes compiling
at once.
"""

import contextlib
import functools
import hashlib
import os
import shutil
import sys
import types
from pathlib import Path

import llvmlite
import numba
import numpy
from numba.core import sigutils
from numba.core.compiler_lock import global_compiler_lock

try:
    import fcntl
except ImportError:  # not POSIX: no lock (the race above stays Numba's)
    fcntl = None

_HERE = Path(__file__).resolve().parent
_PREFIX = "pegasos-"


def cache_key():
    """A hash of this package's sources and of the toolchain that compiles them."""
    h = hashlib.sha256()
    for path in sorted(_HERE.glob("*.py")):
        h.update(path.name.encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    for version in (sys.version, numba.__version__, llvmlite.__version__, numpy.__version__):
        h.update(version.encode())
        h.update(b"\0")
    return h.hexdigest()[:20]


def _writable(folder):
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK | os.X_OK)


def cache_dir():
    """Where this package's compiled functions are cached.

    ``$NUMBA_CACHE_DIR/pegasos-KEY`` when the user set ``NUMBA_CACHE_DIR``;
    otherwise ``__pycache__/pegasos-KEY`` beside this file when that folder is
    writable (older ``pegasos-*`` folders there are removed: they can never be
    read again), else ``$XDG_CACHE_HOME/pegasos/numba/pegasos-KEY``
    (``~/.cache`` by default).
    """
    name = _PREFIX + cache_key()
    user = os.environ.get("NUMBA_CACHE_DIR")
    if user:
        return Path(user) / name
    local = _HERE / "__pycache__"
    if _writable(local / name):
        for old in local.glob(_PREFIX + "*"):
            if old.name != name:
                shutil.rmtree(old, ignore_errors=True)
        return local / name
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "pegasos" / "numba" / name


CACHE_DIR = str(cache_dir())

# Fix 2 above: start the thread pool before any cached function is loaded.
numba.get_num_threads()


@contextlib.contextmanager
def _file_lock(path):
    """An exclusive ``flock`` on ``path`` (created), released at exit; none if the folder
    cannot be written (then Numba cannot cache there either)."""
    fd = None
    if fcntl is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            fd = None
    try:
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        if fd is not None:
            os.close(fd)  # releases the lock


def _locked(dispatcher):
    """``dispatcher`` whose compiles hold its lock file in :data:`CACHE_DIR` (defect 3).

    Numba's own ``compile`` first looks in the cache, so a process that waited
    loads the entry the other one saved.  The in-process compiler lock is
    taken first, as Numba's ``compile`` takes it, so threads and processes
    always lock in one order (the compiler, then callers before callees).
    With ``NUMBA_DISABLE_JIT=1`` Numba hands back the plain Python function,
    which never compiles: it is returned as it is.
    """
    if numba.config.DISABLE_JIT:
        return dispatcher
    compile_ = dispatcher.compile
    fn = dispatcher.py_func
    path = Path(CACHE_DIR) / f"{fn.__module__}.{fn.__qualname__}.lock"

    def compile(sig):
        args, _ = sigutils.normalize_signature(sig)
        existing = dispatcher.overloads.get(tuple(args))
        if existing is not None:  # compiled or loaded in this process already
            return existing.entry_point
        with global_compiler_lock, _file_lock(path):
            return compile_(sig)

    dispatcher.compile = compile
    return dispatcher


def _jit(fn=None, **options):
    if fn is None:
        return functools.partial(_jit, **options)
    saved = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = CACHE_DIR  # read once, when the dispatcher is made
    try:
        return _locked(numba.njit(cache=True, no_cfunc_wrapper=True, **options)(fn))
    finally:
        numba.config.CACHE_DIR = saved


#: Decorator for every kernel: cached on disk (in :data:`CACHE_DIR`), releases
#: the GIL (so one-vs-rest problems can run in threads), and no fastmath: the
#: kernels must see NaN/inf.  ``@njit`` or ``@njit(inline="always")``.  No C
#: callback wrapper (``no_cfunc_wrapper``): Numba otherwise generates and compiles
#: one for every function, for ``cfunc``-style calls from C that this package never
#: makes (about 1 s of kernel Pegasos' 11 s first fit, docs/journal/compile_time.md);
#: calls from Python and from other compiled functions are unchanged.
njit = functools.partial(_jit, nogil=True)

#: The same for kernels that split rows over threads with ``prange``; each
#: such kernel writes every output entry independently (no reductions across
#: threads), so results do not depend on the number of threads.
njit_parallel = functools.partial(_jit, nogil=True, parallel=True)


def recompiled(main, helpers, replace, name):
    """The compiled function ``main`` compiled again from its own source, under ``name``,
    with the global names in ``replace`` bound to other compiled functions: in ``main``
    and in its inlined ``helpers`` (``@njit(inline="always")`` functions it calls, which
    are compiled again alike).  One source, two compiled functions, as UMAP compiles one
    epoch serial and parallel: kernel Pegasos' and the SBP's steps on the engine's rows and
    on a small set's kernel matrix (:mod:`.chunk`, ``sbp.sbp_on_matrix``).

    The copies are Python functions over the same code object with other globals, so
    the replacements are globals to Numba and are inlined where the originals were.  A
    closure would do the same, but Numba's cache keys a closure by its pickled variables,
    and a compiled function pickles with a new id in every process: its entries were
    never read again.  ``name`` names the copy's cache entries, lock file and compile
    events.  With the JIT off the copies are plain functions too.  Each replaced name
    must be a global that ``main`` or a helper reads: one that none reads (renamed in the
    source, say) is a ``ValueError`` at import, not a copy that runs the original.
    """
    read = {n for fn in (main, *helpers) for n in _py(fn).__code__.co_names}
    unread = sorted(set(replace) - read)
    if unread:  # (a renamed operation would otherwise be left the original, silently)
        raise ValueError(f"recompiled {name}: {', '.join(unread)} not read by "
                         f"{_py(main).__name__} or its helpers")
    namespace = dict(_py(main).__globals__)
    namespace.update(replace)
    for helper in helpers:
        namespace[_py(helper).__name__] = njit(_copy(_py(helper), namespace,
                                                     _py(helper).__name__), inline="always")
    return njit(_copy(_py(main), namespace, name))


def _py(fn):
    """A compiled function's Python function (itself with the JIT off)."""
    return getattr(fn, "py_func", fn)


def _copy(fn, namespace, name):
    copy = types.FunctionType(fn.__code__, namespace, name, fn.__defaults__, fn.__closure__)
    copy.__qualname__, copy.__doc__, copy.__module__ = name, fn.__doc__, fn.__module__
    return copy
