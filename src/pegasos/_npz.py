"""The container of a model file, read without trusting it: a NumPy ``.npz`` archive (a zip
of ``.npy`` members) whose end records, directory, members and ``.npy`` headers are checked
against the file's size before anything is read or allocated.  What the arrays mean is
:mod:`pegasos.model_io`'s to check.

Each function takes ``refuse``: a callable that raises the caller's error with a message,
whose ``check(ok, message)`` raises it unless ``ok``.
"""

import math
import re
import struct
import zipfile

import numpy as np

from ._files import quote

#: The member that holds the model file's JSON header.
META = "__meta__"
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
META_CAP = 1 << 20  # bytes: a header is a few kB
NPY_HEADER_CAP = 1 << 16  # bytes of .npy header before the data (format 1.0: < 64 kB)
#: More members than any model has (a linear model with its state and history: 20).
MAX_MEMBERS = 64
MAX_DIRECTORY = 1 << 20  # bytes of zip directory: 64 members take a few kB
_EOCD = struct.Struct("<4s4H2LH")  # end of central directory record
_EOCD64_LOCATOR = struct.Struct("<4sLQL")
_EOCD64 = struct.Struct("<4sQ2H2L4Q")


def directory_bounds(f, size, refuse):
    """Refuse, from the archive's end records and before zipfile reads them, a directory
    that lists too many members or lies outside the file.

    ``zipfile`` reads the whole central directory when it opens an archive,
    however many members it lists; the end record says how many there are, so
    an archive listing thousands is refused here, in constant time.
    """
    tail = min(size, _EOCD.size + 0xFFFF)
    f.seek(size - tail)
    data = f.read(tail)
    at = data.rfind(b"PK\x05\x06")
    refuse.check(at >= 0 and at + _EOCD.size <= len(data),
                 "is truncated or corrupt (no zip end-of-directory record)")
    _, _, _, _, count, dir_size, dir_offset, _ = _EOCD.unpack_from(data, at)
    end_at = size - tail + at
    if end_at >= _EOCD64_LOCATOR.size:  # a zip64 archive (numpy.savez writes zip64 members)
        f.seek(end_at - _EOCD64_LOCATOR.size)
        sig, _, offset64, _ = _EOCD64_LOCATOR.unpack(f.read(_EOCD64_LOCATOR.size))
        if sig == b"PK\x06\x07":
            refuse.check(offset64 + _EOCD64.size <= size,
                         "is truncated or corrupt (zip64 end record outside the file)")
            f.seek(offset64)
            record = f.read(_EOCD64.size)
            refuse.check(record[:4] == b"PK\x06\x06",
                         "is truncated or corrupt (no zip64 end-of-directory record)")
            fields = _EOCD64.unpack(record)
            count, dir_size, dir_offset = fields[6], fields[7], fields[8]
    refuse.check(count <= MAX_MEMBERS,
                 f"the archive lists {count} members; a model file has at most {MAX_MEMBERS}")
    refuse.check(dir_size <= MAX_DIRECTORY,
                 f"the archive's directory takes {dir_size} bytes; a model file's takes a "
                 f"few kB (at most {MAX_DIRECTORY})")
    refuse.check(dir_offset + dir_size <= size,
                 "is truncated or corrupt (the zip directory lies beyond the end of the file)")


def read_members(zf, size, refuse):
    """{member name without .npy: ZipInfo}, after the archive-level checks.

    Every member must be a plain ``NAME.npy``, listed once, stored
    unencrypted and uncompressed (as ``numpy.savez`` writes it), and lie
    within the file: its stored size cannot exceed what is on disk.
    """
    infos = zf.infolist()
    seen, members = set(), {}
    for info in infos:
        name = info.filename
        refuse.check(name not in seen, f"member {quote(name)} appears more than once")
        seen.add(name)
        stem = name[:-4] if name.endswith(".npy") else None
        refuse.check(
            stem is not None and (stem == META or NAME.match(stem)),
            f"unexpected member {quote(name)} (members are NAME.npy arrays)",
        )
        refuse.check(not info.flag_bits & 0x1,
                     f"member {quote(name)} is encrypted; model files are never encrypted")
        refuse.check(
            info.compress_type == zipfile.ZIP_STORED and info.compress_size == info.file_size,
            f"member {quote(name)} is compressed (method {info.compress_type}); model files "
            "store arrays uncompressed (as numpy.savez writes them)",
        )
        refuse.check(info.header_offset + info.compress_size <= size,
                     f"member {quote(name)} claims {info.file_size} bytes, more than the "
                     f"{size}-byte file holds")
        members[stem] = info
    refuse.check(META in members, "is an npz archive but not a pegasos model file (no header)")
    refuse.check(members[META].file_size <= META_CAP, "the header is implausibly large")
    return members


def npy_header(f, name, info, refuse):
    """(dtype, shape, fortran_order) of a member's ``.npy`` header, checked against its size.

    The data that follows the header must be exactly what its shape and dtype
    say, so that nothing is allocated beyond what the file holds.
    """
    try:
        version = np.lib.format.read_magic(f)
        if version in ((1, 0), (2, 0)):
            read = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                    else np.lib.format.read_array_header_2_0)
            shape, fortran_order, dtype = read(f, max_header_size=NPY_HEADER_CAP)
    except zipfile.BadZipFile:  # a CRC that does not match
        raise
    except Exception as exc:  # whatever NumPy's parse of the header's dict literal raises
        refuse(f"array {quote(name)} has a malformed .npy header ({type(exc).__name__}: "
               f"{quote(exc)})")
    refuse.check(version in ((1, 0), (2, 0)),
                 f"array {quote(name)} has .npy format version {version}")
    refuse.check(all(v >= 0 for v in shape), f"array {quote(name)} has a negative dimension")
    refuse.check(not dtype.hasobject and dtype.kind in "biufU" and dtype.itemsize > 0,
                 f"array {quote(name)} has dtype {quote(dtype)}, which a model file never holds")
    data_bytes = dtype.itemsize * math.prod(shape)
    refuse.check(f.tell() + data_bytes == info.file_size,
                 f"array {quote(name)} is declared as {dtype}{list(shape)} "
                 f"({data_bytes} bytes) but its member stores "
                 f"{info.file_size - f.tell()} bytes of data")
    return dtype, tuple(shape), fortran_order


def read_array(zf, name, info, expected, refuse):
    """One member's array, its size checked before its data is read; native byte order."""
    with zf.open(info) as f:
        dtype, shape, fortran_order = npy_header(f, name, info, refuse)
        if expected is not None and name in expected:
            want_dtype, want_shape = expected[name]
            refuse.check(dtype == want_dtype and shape == want_shape,
                         f"array {quote(name)} is {dtype}{list(shape)} but the header "
                         f"says {want_dtype}{list(want_shape)}")
        data = f.read(dtype.itemsize * math.prod(shape))
        f.read(1)  # to the end of the member: zipfile checks its CRC there
    arr = np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran_order else "C")
    # a writable, C-ordered copy in native byte order: what the compiled code is given
    return np.array(arr, dtype=dtype.newbyteorder("="), order="C")
