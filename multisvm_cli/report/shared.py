"""What report.html shows of the machine it ran on: a page one can send to someone.

run.json keeps the provenance in full (absolute paths, the host name); the page shows it
without them. :func:`shareable_meta` leaves out run.json's :data:`HIDDEN_KEYS` and, with
:func:`shareable_text` (for config.yaml's text), writes every absolute path as its file's (or
folder's) name alone (``iris.csv``); the page's provenance gives a local data file's SHA-256
beside it (run.json's ``local_data``), and the config's (``config_sha256``).

The paths run.json names (its data files, its config, its command line's arguments) are
rewritten whole, spaces and all; any other absolute path in the text (POSIX ``/a/b``, Windows
``C:\\a\\b``) is found by :data:`ABSOLUTE`. The page depends on the run folder's files only,
not on where the folder lies, so ``multisvm report RUN_DIR`` redraws it the same way, also
after the folder is moved.
"""

from __future__ import annotations

import ntpath
import re
from pathlib import PurePosixPath

HIDDEN_KEYS = ("hostname",)  # run.json's keys the page leaves out
_NAME = r"[^\s/\"'`,;()\[\]{}<>|=]"  # a character of a path's part (of a file's name)
# an absolute path in free text: POSIX (not inside a word, a relative path or a URL) or Windows
ABSOLUTE = re.compile(rf"(?<![\w.~/:-])/{_NAME}+(?:/{_NAME}*)*"
                      rf"|(?<!\w)[A-Za-z]:\\(?:{_NAME}|\\)*")
SHARED_NOTE = ("This page shows no host name and no absolute path, so that it can be sent to "
               "someone: a file or folder is shown by its name (a local data file's SHA-256 "
               "beside it, under local_data); run.json keeps both in full.")


def shareable_meta(meta: dict) -> dict:
    """run.json's ``meta`` as the page shows it: without :data:`HIDDEN_KEYS`, each absolute path
    in its values (nested ones too) rewritten by :func:`shareable_text`."""
    known = known_paths(meta)
    return {key: _rewrite(value, known) for key, value in meta.items()
            if key not in HIDDEN_KEYS}


def shareable_text(text: str, meta=None) -> str:
    """``text`` with each absolute path shown by its name (:func:`shown_path`); ``meta``:
    run.json, whose :func:`known_paths` are rewritten whole first."""
    return _text(text, known_paths(meta or {}))


def known_paths(meta: dict) -> list[str]:
    """The absolute paths run.json names (its data files, its config, its command line's
    arguments), longest first (a path before any path it starts with)."""
    found = [meta.get("config"), *(meta.get("argv") or [])]
    for dataset in (meta.get("local_data") or {}).values():
        if isinstance(dataset, dict):
            found += [f.get("path") for f in (dataset.get("files") or {}).values()
                      if isinstance(f, dict)]
    return sorted({p for p in found if isinstance(p, str) and _absolute(p)}, key=len,
                  reverse=True)


def shown_path(path: str) -> str:
    """An absolute ``path`` as the page shows it: its file's (or folder's) name, ``/`` for the
    root."""
    name = (ntpath.basename(path.rstrip("\\/")) if not path.startswith("/")
            else PurePosixPath(path).name)
    return name or "/"


def _text(text: str, known) -> str:
    for path in known:  # whole first (a path with spaces in it), not inside a longer name
        text = re.sub(re.escape(path) + f"(?!{_NAME})",
                      lambda found: shown_path(found.group(0)), text)
    return ABSOLUTE.sub(lambda found: shown_path(found.group(0)), text)


def _rewrite(value, known):
    if isinstance(value, str):
        return _text(value, known)
    if isinstance(value, dict):
        return {key: _rewrite(item, known) for key, item in value.items()}
    if isinstance(value, list):
        return [_rewrite(item, known) for item in value]
    return value


def _absolute(path: str) -> bool:
    return path.startswith("/") or bool(re.match(r"[A-Za-z]:\\", path))
