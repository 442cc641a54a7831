"""LIBSVM text parsed in compiled code: a block of whole lines into CSR arrays.

A number is read as a decimal significand of at most 18 digits (an int64) and a
power of ten, and converted as ``strtod`` would, correctly rounded:

- by Clinger's fast path when it can: a significand of at most 2**53 and a power
  of ten of at most 22 is an exact integer times (or over) an exact power of
  ten, one correctly rounded operation;
- else by the Eisel-Lemire algorithm (Lemire, "Number Parsing at a Gigabyte per
  Second", 2021, as Go's ``strconv`` writes it): the significand times a 128-bit
  truncation of the power of ten, which gives the correctly rounded double or
  says that it cannot tell (a product too close to a halfway point, a subnormal
  or infinite result); a significand cut at 18 digits is converted as the two
  significands around it, and kept only where both give the same double.

Any other number (one the algorithm cannot tell, ``inf``, ``nan``, a sign or
letter the parser does not read) is listed in ``Parsed.slow`` for Python's
``float``, which rounds correctly too: every value equals scikit-learn's
loader's.  A line the parser cannot read stops it with the line's byte offset;
:mod:`pegasos.stream` then names the line, or defers to scikit-learn's loader
where the line is valid after all.
"""

import math
from typing import NamedTuple

import numpy as np

from ._jit import njit

_POW10 = np.array([10.0**k for k in range(23)])
_EXACT = 2**53
_MAX_DIGITS = 18  # an int64 holds any 18-digit significand
_MIN_EXP10, _MAX_EXP10 = -348, 347


def _powers_of_ten():
    """(hi, lo) 64-bit halves of 10**e for e in [-348, 347], each scaled by a power of two
    into [2**127, 2**128) and truncated: the Eisel-Lemire table."""
    table = np.empty((_MAX_EXP10 - _MIN_EXP10 + 1, 2), np.uint64)
    for e in range(_MIN_EXP10, _MAX_EXP10 + 1):
        if e >= 0:
            v = 10**e
            v = v << (128 - v.bit_length()) if v.bit_length() <= 128 else \
                v >> (v.bit_length() - 128)
        else:
            d = 10**-e
            v = (1 << (128 + d.bit_length())) // d
            v >>= v.bit_length() - 128
        table[e - _MIN_EXP10] = (v >> 64, v & (2**64 - 1))
    return table


_POW10_128 = _powers_of_ten()
_U0, _U1, _U3 = np.uint64(0), np.uint64(1), np.uint64(3)
_U9, _U32, _U53, _U63 = np.uint64(9), np.uint64(32), np.uint64(53), np.uint64(63)
_LOW9, _LOW32 = np.uint64(0x1FF), np.uint64(0xFFFFFFFF)
_TOP = np.uint64(1 << 63)
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


@njit(inline="always")
def _mul64(a, b):
    """The 128-bit product of two uint64: (high, low) halves.  The low half is put
    together from the partial products (no product that wraps: NumPy warns of one in
    the Python body, which ``NUMBA_DISABLE_JIT=1`` runs)."""
    a0, a1, b0, b1 = a & _LOW32, a >> _U32, b & _LOW32, b >> _U32
    w0 = a0 * b0
    t = a1 * b0 + (w0 >> _U32)
    w1 = (t & _LOW32) + a0 * b1
    return a1 * b1 + (t >> _U32) + (w1 >> _U32), (w1 << _U32) | (w0 & _LOW32)


@njit
def _eisel_lemire(man, exp10):
    """(value, ok): ``man * 10**exp10`` (man a uint64 > 0) correctly rounded when ok;
    not ok where 128 bits cannot tell, or the result is subnormal or infinite."""
    if exp10 < _MIN_EXP10 or exp10 > _MAX_EXP10:
        return 0.0, False
    clz = 0
    while man < _TOP:
        man, clz = man << _U1, clz + 1
    exp2 = ((217706 * exp10) >> 16) + 64 + 1023 - clz
    x_hi, x_lo = _mul64(man, _POW10_128[exp10 - _MIN_EXP10, 0])
    if x_hi & _LOW9 == _LOW9 and x_lo + man < man:  # near a halfway point: the low half
        y_hi, y_lo = _mul64(man, _POW10_128[exp10 - _MIN_EXP10, 1])
        merged_hi, merged_lo = x_hi, x_lo + y_hi
        if merged_lo < x_lo:
            merged_hi += _U1
        if merged_hi & _LOW9 == _LOW9 and merged_lo + _U1 == _U0 and y_lo + man < man:
            return 0.0, False
        x_hi, x_lo = merged_hi, merged_lo
    msb = x_hi >> _U63
    mant = x_hi >> (msb + _U9)
    exp2 -= 1 - int(msb)
    if x_lo == _U0 and x_hi & _LOW9 == _U0 and mant & _U3 == _U1:  # halfway: ambiguous
        return 0.0, False
    mant = (mant + (mant & _U1)) >> _U1
    if mant >> _U53 > _U0:
        mant, exp2 = mant >> _U1, exp2 + 1
    if exp2 < 1 or exp2 >= 0x7FF:
        return 0.0, False
    return math.ldexp(float(mant), exp2 - 1075), True


@njit
def _significand(buf, pos, stop):
    """The digits from pos: (significand, its power of ten, whether nonzero digits were
    cut after the 18th, whether any digit was seen, pos after them)."""
    man, digits, scale, cut, seen, point = 0, 0, 0, False, False, False
    while pos < stop:
        c = buf[pos]
        if _ZERO <= c <= _NINE:
            seen = True
            if digits < _MAX_DIGITS:
                man = man * 10 + (int(c) - _ZERO)  # (int: a uint8 byte stays uint8 in Python)
                digits += man != 0  # (leading zeros are not digits)
                scale -= point
            else:
                cut = cut or c != _ZERO
                scale += 0 if point else 1
        elif c == _DOT and not point:
            point = True
        else:
            break
        pos += 1
    return man, scale, cut, seen, pos


@njit
def _number(buf, pos, stop):
    """(value, exact) of the decimal in buf[pos:stop]: exact is False where the compiled
    conversions do not hold (the caller leaves the token to Python)."""
    neg = pos < stop and buf[pos] == _MINUS
    if pos < stop and (buf[pos] == _MINUS or buf[pos] == _PLUS):
        pos += 1
    man, scale, cut, seen, pos = _significand(buf, pos, stop)
    if pos < stop and (buf[pos] == 101 or buf[pos] == 69) and seen:  # e, E
        pos += 1
        sign = -1 if pos < stop and buf[pos] == _MINUS else 1
        pos += 1 if pos < stop and (buf[pos] == _MINUS or buf[pos] == _PLUS) else 0
        power = 0
        start = pos
        while pos < stop and _ZERO <= buf[pos] <= _NINE and power < 100000:
            power = power * 10 + (int(buf[pos]) - _ZERO)
            pos += 1
        seen = seen and pos > start
        scale += sign * power
    if not seen or pos != stop:
        return 0.0, False
    if man == 0:
        value, exact = 0.0, True
    elif not cut and man <= _EXACT and abs(scale) <= 22:  # Clinger's fast path
        value = man * _POW10[scale] if scale >= 0 else man / _POW10[-scale]
        exact = True
    else:
        value, exact = _eisel_lemire(np.uint64(man), scale)
        if exact and cut:  # the significand is a truncation: the next one must agree
            above, exact = _eisel_lemire(np.uint64(man + 1), scale)
            exact = exact and above == value
    return -value if neg else value, exact


@njit
def _index(buf, pos, stop):
    """The feature index in buf[pos:stop] (digits only, at most 18), or -1."""
    if pos == stop or stop - pos > 18:
        return -1
    value = 0
    for at in range(pos, stop):
        if not _ZERO <= buf[at] <= _NINE:
            return -1
        value = value * 10 + (int(buf[at]) - _ZERO)
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
