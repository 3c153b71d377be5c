"""Bounded reading of every file multisvm reads back: bytes, UTF-8 text and strict JSON.

Each read stops at a byte limit (a symlink to ``/dev/zero`` or a 10 GB file is refused with
one line, never read whole), accepts regular files only (checked by :func:`regular_file`
before the file is opened, so a FIFO never blocks in ``open()``), and turns every failure into the
caller's one-line error type naming the file. The JSON reader is strict: no ``NaN`` or
``Infinity``, no duplicate keys, nesting at most :data:`MAX_DEPTH` levels. Model files
(persist), run folders (report.run_folder) and resume-cache entries (storage) all read through
:func:`read_json`; configs and dataset cards through :func:`read_text` and the bounded YAML
loader.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

from .errors import MultisvmError, one_line

MAX_DEPTH = 32


def _size_text(limit: int) -> str:
    if limit >= 1 << 20:
        return f"{limit / (1 << 20):g} MiB"
    return f"{limit / 1024:g} KiB" if limit >= 1024 else f"{limit} bytes"


def not_regular(path, what: str) -> str:
    """The one line for a path that exists but is not a regular file (a FIFO, folder, device)."""
    return f"{path}: not a regular file; a {what} must be one"


def regular_file(path, error=MultisvmError, what: str = "file") -> os.stat_result:
    """``os.stat`` of ``path`` once it is known to be a regular file (symlinks followed).

    The one check that comes before every open of a file multisvm reads from its own folders
    or is given (a FIFO would block ``open()`` for ever, a folder or a device is no file):
    ``error`` is raised with one line for a missing path ("no such"), one that exists but is
    not a regular file ("not a regular file"), a symlink loop or an unreadable path."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except (RuntimeError, OSError) as exc:
        if isinstance(exc, RuntimeError) or exc.errno == errno.ELOOP:
            raise error(f"{path}: a symlink loop; point it at a real {what}") from None
        raise error(f"{path}: unreadable {what} ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        raise error(not_regular(path, what))
    return info


def open_regular(path, error=MultisvmError, what: str = "file"):
    """``path`` open for binary reading, checked by :func:`regular_file` first; opened without
    blocking (a FIFO swapped in after the check cannot hang) and checked again once open."""
    regular_file(path, error, what)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except OSError as exc:
        raise error(f"{path}: unreadable {what} ({exc.strerror or exc})") from None
    stream = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        stream.close()
        raise error(not_regular(path, what))
    return stream


def read_bytes(path, limit: int, error=MultisvmError, what: str = "file") -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    ``error`` (a MultisvmError subclass, or any exception type taking one message) is raised
    with one line for a missing, unreadable, special or larger file (see :func:`regular_file`)."""
    path = Path(path)
    with open_regular(path, error, what) as stream:
        try:
            size = os.fstat(stream.fileno()).st_size
            raw = stream.read(min(size, limit) + 1)  # read(n) reserves n bytes first
        except OSError as exc:
            raise error(f"{path}: unreadable {what} ({exc.strerror or exc})") from None
    if len(raw) > limit:
        raise error(f"{path}: larger than {_size_text(limit)}; too large for a {what}")
    return raw


def read_text(path, limit: int, error=MultisvmError, what: str = "file") -> str:
    """:func:`read_bytes` decoded as UTF-8 (one line naming the byte offset when it is not)."""
    raw = read_bytes(path, limit, error, what)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _refuse_constant(name):
    raise ValueError(f"{name} is not a number JSON allows")


def _unique_keys(pairs):
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError(f"duplicate key {next(k for k in keys if keys.count(k) > 1)!r}")
    return dict(pairs)


def depth(value) -> int:
    """How deeply lists and objects nest in ``value`` (1 for a flat list or object, 0 for a
    scalar); stops counting past :data:`MAX_DEPTH`."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            if deepest > MAX_DEPTH:
                break
            stack.extend((v, level + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def parse_json(raw: bytes, where, error=MultisvmError, what: str = "JSON file"):
    """The strict parse of ``raw`` (see the module docstring); ``where`` names it in errors."""
    try:
        document = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant,
                              object_pairs_hook=_unique_keys)
    except RecursionError:
        raise error(f"{where}: not valid JSON (nested too deeply)") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise error(f"{where}: not valid JSON ({one_line(exc)})") from None
    if depth(document) > MAX_DEPTH:
        raise error(f"{where}: nested deeper than {MAX_DEPTH} levels; not a {what}")
    return document


def read_json(path, limit: int, error=MultisvmError, what: str = "JSON file"):
    """The strictly parsed JSON document in ``path`` (at most ``limit`` bytes)."""
    return parse_json(read_bytes(path, limit, error, what), path, error, what)


def read_json_with_bytes(path, limit: int, error=MultisvmError, what: str = "JSON file"):
    """(raw bytes, parsed document): for callers that also hash what they read."""
    raw = read_bytes(path, limit, error, what)
    return raw, parse_json(raw, path, error, what)
