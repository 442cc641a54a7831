"""LIBSVM text parsed in compiled code: a block of whole lines into CSR arrays.

A number takes Clinger's fast path when it can: a decimal of at most 2**53 in
its significant digits and a power of ten of at most 22 is an exact integer
times (or over) an exact power of ten, one correctly rounded operation, the
value ``strtod`` gives.  Any other number (more digits, a larger exponent,
``inf``, ``nan``, a sign or letter the fast path does not read) is listed in
``Parsed.slow`` for Python's ``float``, which rounds correctly too: every value
equals scikit-learn's loader's.  A line the parser cannot read stops it with the
line's byte offset; :mod:`pegasos.stream` then names the line, or defers to
scikit-learn's loader where the line is valid after all.
"""

from typing import NamedTuple

import numpy as np

from ._jit import njit

_POW10 = np.array([10.0**k for k in range(23)])
_EXACT = 2**53
# bytes
_SPACE, _TAB, _CR, _LF, _HASH, _COLON = 32, 9, 13, 10, 35, 58
_DOT, _MINUS, _PLUS, _ZERO, _NINE = 46, 45, 43, 48, 57


class Parsed(NamedTuple):
    """The arrays a block is parsed into, sized from above by the caller: ``labels``
    (lines,), ``indptr`` (lines + 1,), ``indices`` and ``values`` (the block's colons,),
    and ``slow`` (colons + lines, 3): for each number left to Python, (the value's
    index, or -1 - row for a label; its first byte; the byte after it)."""

    labels: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    values: np.ndarray
    slow: np.ndarray


@njit(inline="always")
def _ends_token(c):
    return c == _SPACE or c == _TAB or c == _CR or c == _LF or c == _HASH


@njit
def _token_end(buf, pos, end):
    while pos < end and not _ends_token(buf[pos]):
        pos += 1
    return pos


@njit
def _number(buf, pos, stop):
    """(value, exact) of the decimal in buf[pos:stop]: exact is False where the fast path
    does not hold (the caller leaves the token to Python)."""
    neg = pos < stop and buf[pos] == _MINUS
    if pos < stop and (buf[pos] == _MINUS or buf[pos] == _PLUS):
        pos += 1
    mant, scale, seen, exact, point = 0, 0, False, True, False
    while pos < stop:
        c = buf[pos]
        if _ZERO <= c <= _NINE:
            seen = True
            if mant < _EXACT // 10:
                mant = mant * 10 + (c - _ZERO)
                scale -= 1 if point else 0
            elif c != _ZERO or point:
                exact = False  # a digit the mantissa cannot hold (a whole part's zero scales)
            else:
                scale += 1
        elif c == _DOT and not point:
            point = True
        else:
            break
        pos += 1
    if pos < stop and (buf[pos] == 101 or buf[pos] == 69) and seen:  # e, E
        pos += 1
        sign = -1 if pos < stop and buf[pos] == _MINUS else 1
        pos += 1 if pos < stop and (buf[pos] == _MINUS or buf[pos] == _PLUS) else 0
        power = 0
        start = pos
        while pos < stop and _ZERO <= buf[pos] <= _NINE and power < 100000:
            power = power * 10 + (buf[pos] - _ZERO)
            pos += 1
        exact = exact and pos > start
        scale += sign * power
    if not seen or pos != stop or not exact or mant > _EXACT or abs(scale) > 22:
        return 0.0, False
    value = mant * _POW10[scale] if scale >= 0 else mant / _POW10[-scale]
    return -value if neg else value, True


@njit
def _index(buf, pos, stop):
    """The feature index in buf[pos:stop] (digits only, at most 18), or -1."""
    if pos == stop or stop - pos > 18:
        return -1
    value = 0
    for at in range(pos, stop):
        if not _ZERO <= buf[at] <= _NINE:
            return -1
        value = value * 10 + (buf[at] - _ZERO)
    return value


@njit
def _skip_blank(buf, pos, end):
    while pos < end and (buf[pos] == _SPACE or buf[pos] == _TAB or buf[pos] == _CR):
        pos += 1
    return pos


@njit
def _features(buf, pos, end, lowest, out, nnz, n_slow):
    """One line's index:value tokens from pos: (pos at its end, nnz, n_slow, ok)."""
    previous, first = -1, nnz
    while True:
        pos = _skip_blank(buf, pos, end)
        if pos == end or buf[pos] == _LF or buf[pos] == _HASH:
            break
        stop = _token_end(buf, pos, end)
        colon = pos
        while colon < stop and buf[colon] != _COLON:
            colon += 1
        if previous == -1 and nnz == first and stop - pos > 3 and buf[pos] == 113 \
                and buf[pos + 1] == 105 and buf[pos + 2] == 100 and buf[pos + 3] == _COLON:
            first = -1  # qid:..., only as the line's first feature (scikit-learn's rule)
            pos = stop
            continue
        index = _index(buf, pos, colon) - lowest
        if colon == stop or index < 0 or index <= previous:
            return pos, nnz, n_slow, False
        value, exact = _number(buf, colon + 1, stop)
        if not exact:
            out.slow[n_slow, 0], out.slow[n_slow, 1], out.slow[n_slow, 2] = nnz, colon + 1, stop
            n_slow += 1
        out.indices[nnz], out.values[nnz] = index, value
        nnz, previous, pos = nnz + 1, index, stop
    return pos, nnz, n_slow, True


@njit
def parse_block(buf, lowest, out):
    """Parse buf (uint8, whole lines) into ``out`` (:class:`Parsed`), indices less
    ``lowest`` (1 for one-based files): (rows, nnz, numbers left to Python, the byte
    offset of the first line it cannot read or -1)."""
    end = buf.shape[0]
    pos, rows, nnz, n_slow = 0, 0, 0, 0
    out.indptr[0] = 0
    while pos < end:
        line = pos
        pos = _skip_blank(buf, pos, end)
        if pos < end and buf[pos] != _LF and buf[pos] != _HASH:
            stop = _token_end(buf, pos, end)
            label, exact = _number(buf, pos, stop)
            if not exact:
                out.slow[n_slow, 0], out.slow[n_slow, 1], out.slow[n_slow, 2] = -1 - rows, pos, stop
                n_slow += 1
            pos, nnz, n_slow, ok = _features(buf, stop, end, lowest, out, nnz, n_slow)
            if not ok:
                return rows, nnz, n_slow, line
            out.labels[rows] = label
            rows += 1
            out.indptr[rows] = nnz
        while pos < end and buf[pos] != _LF:  # a comment, to the line's end
            pos += 1
        pos += 1
    return rows, nnz, n_slow, -1
