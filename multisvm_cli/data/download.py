"""Downloads: stream to a temporary file beside the target, verify, then rename.

Nothing half-written is ever left under the target name: the bytes go to
``<folder>/.<name>.part-<pid>-XXXX`` (``pid``: the writing process), are checked (size,
SHA-256, or the caller's structure check), and only then ``os.replace``-d onto
``<folder>/<name>``; on any failure, KeyboardInterrupt included, the temporary file is removed
and the exception goes on (KeyboardInterrupt untouched). A process killed outright (SIGKILL)
cannot clean up: the next download into the folder removes every ``.part-`` file whose writer
is gone (see ``remove_stale_parts``).

A file whose size the card records (``FileSpec.size``) is never written past that size: the
transfer stops at the first byte beyond the largest accepted size, and a body announced larger
(Content-Length) is refused before any byte is written.

Covertype's ``covtype.data.gz`` is fetched by scikit-learn's own fetcher, which does the same and
checks the SHA-256 that ``fetch_covtype`` uses.
"""

import os
import re
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil
from tqdm import tqdm

from .errors import DatasetError
from .verify import sha256_file

CHUNK_BYTES = 1 << 16
TIMEOUT_S = 60
PART_NAME = re.compile(r"^\..+\.part-(?:(\d+)-.*|(\d+)|(.*))$")
STALE_UNNAMED_S = 3600  # a .part- file without a writer's pid (older versions): stale after 1 h


class DataHomeError(DatasetError):
    """The data home cannot be written (read-only, no space): says which folder and what to do."""


def download(url, target, sha256s=(), check=None, progress=True, timeout=TIMEOUT_S, sizes=()):
    """Download ``url`` to ``target`` (a Path) and return the file's SHA-256.

    ``sha256s``: accepted digests (empty: unknown). ``sizes``: accepted sizes in bytes (empty:
    unknown); no more than ``max(sizes)`` bytes are ever written. ``check(temp_path)`` may
    raise DatasetError to refuse the file (structure check). Raises DatasetError, leaving
    nothing behind, when the transfer fails or is cut short, or the file is refused;
    DataHomeError when the folder cannot be written.
    """
    target = Path(target)
    temp_path = _temp_file(target)
    try:
        try:
            with open(temp_path, "wb") as sink:
                received = _stream(url, sink, target.name, progress, timeout, sizes)
        except OSError as exc:  # the last buffered write, on a full disk
            raise DataHomeError(not_writable(target.parent, exc)) from None
        seen = sha256_file(temp_path)
        if sha256s and seen not in sha256s:
            raise DatasetError(f"{target.name} downloaded from {url} has sha256 {seen}, "
                               f"expected {sha256s[0]}{_size_note(received, sizes)}: refused, "
                               "not cached")
        if sizes and received not in sizes:
            raise DatasetError(f"{target.name} downloaded from {url} is {received:,} bytes, "
                               f"expected {_sizes_text(sizes)}: refused, not cached")
        if check is not None:
            check(temp_path)
        os.replace(temp_path, target)
        return seen
    except BaseException:
        temp_path.unlink(missing_ok=True)
        raise


def writable_folder(folder):
    """Create ``folder`` if needed and prove it writable (a temporary file, removed at once);
    DataHomeError naming the folder otherwise."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise DataHomeError(not_writable(folder, exc)) from None
    return folder


def remove_stale_parts(folder):
    """Remove the ``.<name>.part-<pid>-*`` files of ``folder`` whose writer process is gone
    (left by a killed download or copy); a ``.part-`` file without a pid is removed once it is
    an hour old. Returns the removed paths."""
    removed = []
    for path in Path(folder).glob(".*.part-*"):
        match = PART_NAME.match(path.name)
        if match is None or not path.is_file():
            continue
        pid = match.group(1) or match.group(2)
        try:
            stale = (not psutil.pid_exists(int(pid))) if pid else \
                time.time() - path.stat().st_mtime > STALE_UNNAMED_S
            if stale:
                path.unlink()
                removed.append(path)
        except OSError:
            continue
    return removed


def _temp_file(target):
    """A new empty ``.<name>.part-<pid>-XXXX`` beside ``target``, after removing stale ones."""
    folder = writable_folder(target.parent)
    remove_stale_parts(folder)
    try:
        handle, name = tempfile.mkstemp(prefix=f".{target.name}.part-{os.getpid()}-", dir=folder)
    except OSError as exc:
        raise DataHomeError(not_writable(folder, exc)) from None
    os.close(handle)
    return Path(name)


def not_writable(folder, exc):
    """The one-line message for a data-home folder that cannot be written."""
    reason = exc.strerror or type(exc).__name__
    return (f"cannot write to {folder} ({reason}); set MULTISVM_DATA_HOME (or --data-home) to "
            "a writable folder with free space")


def _stream(url, sink, label, progress, timeout, sizes=()):
    """Copy the HTTP body into ``sink`` and return its length; a transfer shorter than its
    Content-Length fails, and so does one longer than ``max(sizes)`` (nothing past it is
    written)."""
    limit = max(sizes) if sizes else None
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            total = int(response.headers.get("Content-Length") or 0) or None
            if limit is not None and total is not None and total > limit:
                raise DatasetError(f"{label} at {url} is announced as {total:,} bytes, the card "
                                   f"records {_sizes_text(sizes)}: refused, not downloaded")
            show = progress and sys.stderr.isatty()
            with tqdm(total=total, unit="B", unit_scale=True, desc=label, disable=not show) as bar:
                received = 0
                for chunk in iter(lambda: response.read(CHUNK_BYTES), b""):
                    if limit is not None and received + len(chunk) > limit:
                        raise DatasetError(f"{label} from {url} is longer than the "
                                           f"{_sizes_text(sizes)} the card records: stopped "
                                           f"after {limit:,} bytes, refused, not cached")
                    _write(sink, chunk)
                    received += len(chunk)
                    bar.update(len(chunk))
            if total is not None and received != total:
                raise DatasetError(f"download of {url} stopped after {received} of {total} bytes")
            return received
    except DatasetError:
        raise
    except urllib.error.HTTPError as exc:
        raise DatasetError(f"cannot download {url}: HTTP error {exc.code} ({exc.reason})") \
            from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise DatasetError(f"cannot download {url}: {reason}") from None
    except Exception as exc:  # http.client.IncompleteRead and other protocol errors
        raise DatasetError(f"download of {url} failed: {type(exc).__name__}: {exc}") from None


def _write(sink, chunk):
    """``sink.write(chunk)``; a failing write (disk full, ...) is a DataHomeError."""
    try:
        sink.write(chunk)
    except OSError as exc:
        raise DataHomeError(not_writable(Path(sink.name).parent, exc)) from None


def _sizes_text(sizes):
    return " or ".join(f"{size:,} bytes" for size in sizes)


def _size_note(received, sizes):
    return f" ({received:,} bytes, expected {_sizes_text(sizes)})" \
        if sizes and received not in sizes else ""


def fetch_covtype_archive(folder):
    """Fetch ``covtype.data.gz`` into ``folder`` with scikit-learn's fetcher (the file and
    SHA-256 ``sklearn.datasets.fetch_covtype`` uses; temporary file, verified, then renamed).
    Returns the path."""
    from sklearn.datasets._base import _fetch_remote
    from sklearn.datasets._covtype import ARCHIVE

    folder = writable_folder(folder)
    try:
        return Path(_fetch_remote(ARCHIVE, dirname=folder, n_retries=0, delay=1.0))
    except Exception as exc:
        message = " ".join(str(getattr(exc, "reason", None) or exc).split())
        raise DatasetError(f"cannot download {ARCHIVE.url}: {message}") from None
