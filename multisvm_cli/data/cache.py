"""Parsed cache: one ``.npz`` per (dataset, source, part), keyed by the raw files' SHA-256.

File: ``<data_home>/<dataset>/parsed/<source>-<part>-<key>.npz`` holding ``X`` (float64),
``y`` (int64 or a unicode array: never pickled objects) and the provenance arrays ``files``,
``sha256`` and ``origins``. ``key`` hashes the format version, the source's card entry and the
raw files' SHA-256, so a changed raw file or card gives a new key (the old file is unused).
Files are written to a temporary name and renamed; reading uses ``allow_pickle=False``.
"""

import hashlib
import json
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

FORMAT_VERSION = 1


def key(source, part, file_digests):
    """16 hex digits identifying the parsed part of ``source`` read from files whose SHA-256
    are ``file_digests`` (a list, one entry per file: a digest or a tuple of accepted ones)."""
    text = json.dumps([FORMAT_VERSION, source.fingerprint, part, file_digests])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def part_path(home, dataset, source_id, part, part_key):
    return Path(home) / dataset / "parsed" / f"{source_id}-{part}-{part_key}.npz"


def read_part(path):
    """(X, y, provenance dict) from a parsed-cache file, or None if it is absent or unreadable."""
    try:
        with np.load(path, allow_pickle=False) as stored:
            provenance = {name: stored[name].tolist() for name in ("files", "sha256", "origins")}
            return stored["X"], stored["y"], provenance
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return None


def write_part(path, X, y, files, digests, origins):
    """Write one parsed part atomically (temporary file in the same folder, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as sink:
            np.savez(sink, X=X, y=y, files=np.asarray(files, dtype=str),
                     sha256=np.asarray(digests, dtype=str), origins=np.asarray(origins, dtype=str))
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
