"""``pegasos export``, ``import`` and ``convert``: models to and from LIBLINEAR's and
LIBSVM's model files, and LIBSVM files into a cache that ``train`` and ``predict`` map
(``export`` and ``import``'s paths were checked before this module loaded)."""

import numpy as np

from .._solvers.problems import problem_of
from ..datasets import DataFormatError
from ..interchange import from_liblinear, from_libsvm, to_liblinear, to_libsvm
from ..stream import convert
from ._common import _check_paths, _Failure, _reason
from ._data import _load_model, _save


def _export(args, parser):
    est = _load_model(args.model)
    kind = args.format or ("libsvm" if problem_of(est) is not None else "liblinear")
    name = "LIBSVM" if kind == "libsvm" else "LIBLINEAR"
    try:
        (to_libsvm if kind == "libsvm" else to_liblinear)(est, args.output)
    except OSError as exc:
        raise _Failure(f"cannot write the {name} model {args.output}: {_reason(exc)}") from exc
    except ValueError as exc:
        raise _Failure(f"{args.model}: {exc}") from exc
    return 0


def _convert(args, parser):
    if len(args.paths) < 2:
        parser.error("give the data files, then the cache file")
    *sources, cache = args.paths
    if not 0 < args.block_mb <= 1 << 20:
        parser.error(f"--block-mb must be in (0, 1048576]; got {args.block_mb}")
    _check_paths([(cache, "cache")], [(p, "data file") for p in sources])
    try:
        header = convert(sources, cache, zero_based=args.zero_based,
                         dtype=np.float32 if args.float32 else np.float64,
                         block_bytes=max(1, int(args.block_mb * 2**20)))
    except DataFormatError as exc:
        raise _Failure(str(exc)) from exc
    except OSError as exc:
        raise _Failure(f"cannot convert to {cache}: {_reason(exc)}") from exc
    if not args.quiet:
        print(f"{cache}: {header['n_rows']} rows, {header['n_features']} features, "
              f"{header['nnz']} values ({header['file_size'] / 2**20:.1f} MB)")
    return 0


def _import(args, parser):
    libsvm = _first_word(args.model) == "svm_type"
    if libsvm and args.lam is not None:
        parser.error("-l is for LIBLINEAR's files: a LIBSVM model has no lambda")
    if args.lam is not None and not args.lam > 0:
        parser.error(f"-l must be > 0; got {args.lam}")
    try:
        est = (from_libsvm(args.model) if libsvm
               else from_liblinear(args.model, lam=1e-4 if args.lam is None else args.lam))
    except ValueError as exc:
        raise _Failure(str(exc)) from exc
    except OSError as exc:
        raise _Failure(f"cannot read {args.model}: {_reason(exc)}") from exc
    _save(est, args.output)
    return 0


def _first_word(path):
    """The first word of a text file (LIBSVM's models start with svm_type, LIBLINEAR's with
    solver_type), or "" when it cannot be read."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            words = f.read(4096).split(None, 1)  # (any whitespace before and after it,
            return words[0] if words else ""  # blank lines: svm-predict reads words)
    except OSError:
        return ""
