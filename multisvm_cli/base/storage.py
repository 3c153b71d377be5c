"""Files on disk: atomic writes, run folders and the resume cache of grid points.

Every file is written to a temporary name in its folder and renamed with ``os.replace``, so a
reader never sees half a file. Files and folders get the permissions the user's umask gives
(``tempfile`` alone would make them 0600 / 0700).

Run folders (``new_run_dir``) are ``<root>/<config-name>/<timestamp>/``, never overwritten; the
resume cache (:class:`PointCache`) is one small JSON file per finished grid point under
``<root>/<config-name>/cache/``.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from datetime import datetime
from pathlib import Path

from .errors import one_line
from .readers import read_json

MAX_ENTRY_BYTES = 1 << 20      # a cache entry is a few hundred bytes of JSON


def current_umask() -> int:
    """The process's umask (read without changing it for good)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def file_mode() -> int:
    """Permissions of a new regular file under the user's umask (0o666 & ~umask)."""
    return 0o666 & ~current_umask()


def folder_mode() -> int:
    """Permissions of a new folder under the user's umask (0o777 & ~umask)."""
    return 0o777 & ~current_umask()


def atomic_write(path, data, sync=True) -> Path:
    """Write ``data`` (str: UTF-8 text, bytes: as is) to ``path`` through a temporary file in
    the same folder and ``os.replace``; the file gets the umask's permissions.  ``sync``:
    flush it to disk (fsync) before the rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data.encode("utf-8") if isinstance(data, str) else data)
            stream.flush()
            if sync:
                os.fsync(stream.fileno())
        os.chmod(tmp, file_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def to_json(obj, **kwargs) -> str:
    """``obj`` as JSON text; numpy arrays and scalars, and paths, are converted."""
    return json.dumps(obj, default=_jsonable, **kwargs)


def write_json(path, obj) -> Path:
    """Atomically write ``obj`` as indented JSON."""
    return atomic_write(path, to_json(obj, indent=2) + "\n")


def _jsonable(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def new_run_dir(root, config_name: str, now=None) -> Path:
    """Create ``root/<config_name>/<timestamp>/``; a suffix keeps an existing folder intact."""
    base = Path(root) / config_name
    base.mkdir(parents=True, exist_ok=True)
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    for attempt in range(1, 1000):
        folder = base / (stamp if attempt == 1 else f"{stamp}-{attempt}")
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            continue
    raise FileExistsError(f"cannot create a new run folder under {base}")


class PointCache:
    """The resume cache: one JSON file per finished grid point under ``folder``.

    The key of a point is a dict (software versions, dataset checksums, split, fold, scaling,
    validation, kernel, C, scheme, scheme options, seed); its file name is the SHA-256 of its
    canonical JSON, and the file holds the key next to the result, so a hash collision or a
    stale file is detected. Entries are read with the one bounded strict reader
    (:func:`readers.read_json`, at most :data:`MAX_ENTRY_BYTES`): a file that is not one (a link
    to /dev/zero, NaN, duplicate keys, deep nesting) is a miss. ``check(result, *expected)``
    (optional) validates a stored result before use, ``expected`` being what :meth:`get` was
    told the result must match (e.g. the plan's number of validation points): a result it
    refuses (ValueError) counts as a miss and is recomputed. With ``force=True`` every lookup
    misses (the points are redone and overwritten).
    """

    def __init__(self, folder, force=False, check=None):
        self.folder = Path(folder)
        self.force = force
        self.check = check
        self.warned = False

    @staticmethod
    def digest(key: dict) -> str:
        """The SHA-256 of the key's canonical JSON."""
        return hashlib.sha256(to_json(key, sort_keys=True).encode()).hexdigest()

    def path(self, key: dict) -> Path:
        return self.folder / f"{self.digest(key)}.json"

    def get(self, key: dict, *expected):
        """The cached result of ``key``, or None: also for a file that is unreadable (read
        bounded: :data:`MAX_ENTRY_BYTES`), holds another key, or that ``check(result,
        *expected)`` refuses (``expected``: what the plan knows, e.g. the validation size).
        The first refused entry of a run is named in one warning."""
        if self.force:
            return None
        path = self.path(key)
        if not path.exists() and not path.is_symlink():
            return None
        try:
            stored = read_json(path, MAX_ENTRY_BYTES, ValueError, "resume-cache entry")
            if not isinstance(stored, dict) or stored.get("key") != json.loads(to_json(key)):
                raise ValueError(f"{path}: holds another grid point's key")
            result = stored.get("result")
            if self.check is not None:
                self.check(result, *expected)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            self._warn_once(path, exc)
            return None
        return result

    def _warn_once(self, path, exc):
        if not self.warned:
            self.warned = True
            reason = one_line(exc)
            if not reason.startswith(str(path)):
                reason = f"{path}: {reason}"
            warnings.warn(f"resume-cache entry refused, recomputed ({reason}); any other "
                          f"refused entry is recomputed too", UserWarning, stacklevel=3)

    def put(self, key: dict, result: dict) -> None:
        """Store a finished point at once (atomically), so a killed run keeps it.

        Not fsynced: an entry a crash leaves torn reads as a miss (:meth:`get`) and is redone,
        and the fsync cost 3.5 ms a point in the grid's one consuming thread (108,000 points for
        ramanan-rbf's six small sets)."""
        atomic_write(self.path(key), to_json({"key": key, "result": result}, indent=2) + "\n",
                     sync=False)
