"""What computed a cached entry: a digest of this package's own source files.

The version string alone does not change when an editable install is edited, so every cache
(the resume cache, the parsed-data cache, the text-features cache) keys its entries by
:func:`code_digest` as well: after any edit to a ``.py`` file of ``multisvm_cli`` nothing
computed by the old code is reused, and reverting the edit does not bring back entries made
by the edited code (they carry the edited code's digest).

The digest is computed once per process (about 100 files, a few milliseconds) and kept.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]


def source_files(root=PACKAGE) -> list:
    """The package's ``.py`` files under ``root``, sorted by their path relative to it."""
    return sorted(root.rglob("*.py"), key=lambda path: path.relative_to(root).as_posix())


def digest_of(root) -> str:
    """24 hex digits of the SHA-256 of every ``.py`` file under ``root``: each file's relative
    path, its byte length and its bytes, in :func:`source_files` order (so a renamed, added
    or removed file changes it too)."""
    hashed = hashlib.sha256()
    for path in source_files(root):
        data = path.read_bytes()
        hashed.update(f"{path.relative_to(root).as_posix()}\0{len(data)}\0".encode())
        hashed.update(data)
    return hashed.hexdigest()[:24]


@lru_cache(maxsize=1)
def code_digest() -> str:
    """:func:`digest_of` this installed package, computed once per process."""
    return digest_of(PACKAGE)
