"""model.npz: arrays as uncompressed ``.npy`` zip members, written and read with their SHA-256.

Writing follows ``np.savez``'s layout (one stored member per array) and hashes each member as it
goes.  Reading checks every member from its ``.npy`` header alone before any data is read: the
member must be stored uncompressed, name itself in its local zip header, and hold exactly the
bytes its header declares, inside the file, with a dtype of numbers or text (never objects);
then :func:`read_data` reads each array straight into place and checks its SHA-256.
"""

import hashlib
import math
import os
import struct
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..base.hashing import sha256_hex
from ..base.errors import one_line
from ..base.readers import open_regular
from .format import ARRAY_KINDS, JSON_NAME, MANIFEST_NAME, ModelFormatError

LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # a zip member's local file header (APPNOTE 4.3.7)
LOCAL_SIGNATURE = b"PK\x03\x04"


class Hashing:
    """A file wrapper that hashes (SHA-256) and counts every byte written or read through it."""

    def __init__(self, stream):
        self.stream, self.hash, self.count = stream, hashlib.sha256(), 0

    def write(self, data):
        self.hash.update(data)
        self.count += len(data)
        return self.stream.write(data)

    def read(self, size=-1):
        data = self.stream.read(size)
        self.hash.update(data)
        self.count += len(data)
        return data


def write_arrays(npz_path, arrays):
    """Write ``arrays`` as np.savez does (one stored .npy member each); return name -> SHA-256."""
    digests = {}
    with zipfile.ZipFile(npz_path, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, array in arrays.items():
            with archive.open(name + ".npy", "w", force_zip64=True) as member:
                sink = Hashing(member)
                np.lib.format.write_array(sink, array, allow_pickle=False)
            digests[name] = sink.hash.hexdigest()
    return digests


@dataclass
class Archive:
    """model.npz open for reading: its zip directory and the file itself (members are read
    straight from the file, as they are stored uncompressed)."""

    path: Path
    zip: zipfile.ZipFile
    stream: object
    size: int


@contextmanager
def open_archive(npz_path):
    """model.npz as an open :class:`Archive`; ModelFormatError if it is not a zip archive, or if
    reading it fails."""
    if not os.path.lexists(npz_path):
        raise ModelFormatError(f"{npz_path}: missing; the model folder is incomplete")
    with open_regular(npz_path, ModelFormatError, "model arrays file") as stream:
        try:
            with zipfile.ZipFile(stream) as directory:
                yield Archive(npz_path, directory, stream, os.fstat(stream.fileno()).st_size)
        except ModelFormatError:
            raise
        except (OSError, zipfile.BadZipFile, EOFError, ValueError, struct.error) as exc:
            raise ModelFormatError(f"{npz_path}: unreadable model arrays ({one_line(exc)})") from None


@dataclass
class Header:
    """One array's member of model.npz, as its .npy header describes it."""

    name: str
    start: int  # file offset of the .npy member (its header, then its data)
    header_size: int
    shape: tuple
    dtype: np.dtype
    fortran: bool


def read_headers(archive, specs):
    """name -> Header for every array, checked against model.json's ``specs`` ({name: {shape,
    dtype}}) without reading data."""
    members = archive.zip.namelist()
    names = [m[:-len(".npy")] if m.endswith(".npy") else m for m in members]
    if (len(set(members)) != len(members) or set(names) != set(specs)
            or not all(m.endswith(".npy") for m in members)):
        missing, extra = sorted(set(specs) - set(names)), sorted(set(names) - set(specs))
        raise ModelFormatError(f"{archive.path}: arrays disagree with {JSON_NAME} "
                               f"(missing {missing}, unexpected {extra})")
    headers = {}
    for name in specs:
        header = _read_header(archive, archive.zip.getinfo(name + ".npy"), name)
        spec = specs[name]
        if list(header.shape) != spec["shape"] or header.dtype.str != spec["dtype"]:
            raise ModelFormatError(f"{archive.path}: array {name!r} is {header.dtype.str} {list(header.shape)}, "
                                   f"{JSON_NAME} says {spec['dtype']} {spec['shape']}")
        headers[name] = header
    return headers


def _member_start(archive, info):
    """File offset of a stored member's bytes, from its zip local header (which must name it)."""
    stream = archive.stream
    stream.seek(info.header_offset)
    fixed = stream.read(LOCAL_HEADER.size)
    if len(fixed) != LOCAL_HEADER.size or fixed[:4] != LOCAL_SIGNATURE:
        raise zipfile.BadZipFile(f"bad local header of {info.filename!r}")
    fields = LOCAL_HEADER.unpack(fixed)
    name_size, extra_size = fields[-2], fields[-1]
    if stream.read(name_size) != info.orig_filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437"):
        raise zipfile.BadZipFile(f"local and central names of {info.filename!r} differ")
    return info.header_offset + LOCAL_HEADER.size + name_size + extra_size


def _read_header(archive, info, name):
    """The .npy header of one member; the member must be stored uncompressed and hold exactly
    header + shape x itemsize bytes, inside the file, so reading it allocates no more than that."""
    if info.compress_type != zipfile.ZIP_STORED:
        raise ModelFormatError(f"{archive.path}: array {name!r} is compressed; model.npz members are stored "
                               f"uncompressed (a compressed member could expand without bound)")
    start = _member_start(archive, info)
    if info.file_size != info.compress_size or start + info.file_size > archive.size:
        raise ModelFormatError(f"{archive.path}: array {name!r} declares more bytes than the file holds")
    archive.stream.seek(start)
    member = Hashing(archive.stream)
    try:
        version = np.lib.format.read_magic(member)
        reader = {(1, 0): np.lib.format.read_array_header_1_0,
                  (2, 0): np.lib.format.read_array_header_2_0}.get(version)
        if reader is None:
            raise ValueError(f".npy version {version} is not one numpy's savez writes")
        shape, fortran, dtype = reader(member)
    except (ValueError, TypeError, SyntaxError, KeyError) as exc:
        raise ModelFormatError(f"{archive.path}: unreadable model arrays (array {name!r}: "
                               f"{one_line(exc)})") from None
    if dtype.hasobject or dtype.kind not in ARRAY_KINDS or dtype.itemsize == 0 or dtype.fields:
        raise ModelFormatError(f"{archive.path}: unreadable model arrays (array {name!r} has dtype "
                               f"{dtype.str}; object arrays are never unpickled and only numbers or "
                               f"text are stored)")
    nbytes = math.prod(shape) * dtype.itemsize
    if member.count + nbytes != info.file_size:
        raise ModelFormatError(f"{archive.path}: array {name!r} holds {info.file_size - member.count} "
                               f"bytes, its header declares {nbytes}")
    return Header(name, start, member.count, tuple(shape), dtype, bool(fortran))


def read_data(archive, header, digest):
    """One array, its data read straight into place and hashed with its header against the
    manifest's ``digest``."""
    stream = archive.stream
    stream.seek(header.start)
    header_bytes = stream.read(header.header_size)
    buffer = np.empty(math.prod(header.shape) * header.dtype.itemsize, dtype=np.uint8)
    if stream.readinto(buffer) != len(buffer):
        raise EOFError(f"array {header.name!r} ends early")
    if sha256_hex(header_bytes, buffer) != digest:
        raise ModelFormatError(f"{archive.path}: array {header.name!r} changed after saving (its "
                               f"SHA-256 is not the one in {MANIFEST_NAME}); save or train the model again")
    return buffer.view(header.dtype).reshape(header.shape, order="F" if header.fortran else "C")
