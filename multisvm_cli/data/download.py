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

A file served compressed (Covertype's ``covtype.data.gz``, gzip; Shuttle's ``shuttle.trn.Z``,
Unix compress, read by :mod:`.unix_compress`) is kept decompressed and checked by its
decompressed size and SHA-256 (:func:`download_unpacked`).
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

from ..base.storage import file_mode
from . import unix_compress
from .errors import DatasetError
from .verify import sha256_file

CHUNK_BYTES = 1 << 16
TIMEOUT_S = 60
PART_NAME = re.compile(r"^\..+\.part-(?:(\d+)-.*|(\d+)|(.*))$")
STALE_UNNAMED_S = 3600  # a .part- file without a writer's pid (older versions): stale after 1 h


class DataHomeError(DatasetError):
    """The data home cannot be written (read-only, no space): says which folder and what to do."""


def download(url, target, sha256s=(), check=None, progress=True, timeout=TIMEOUT_S, sizes=(),
             max_size=None):
    """Download ``url`` to ``target`` (a Path) and return the file's SHA-256.

    ``sha256s``: accepted digests (empty: unknown). ``sizes``: accepted sizes in bytes (empty:
    unknown); no more than ``max(sizes)`` (else ``max_size``, when given) bytes are ever
    written. ``check(temp_path)`` may
    raise DatasetError to refuse the file (structure check). Raises DatasetError, leaving
    nothing behind, when the transfer fails or is cut short, or the file is refused;
    DataHomeError when the folder cannot be written.
    """
    target = Path(target)
    temp_path = _temp_file(target)
    try:
        try:
            with open(temp_path, "wb") as sink:
                received = _stream(url, sink, target.name, progress, timeout,
                                   sizes or ((max_size,) if max_size else ()))
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
    """A new empty ``.<name>.part-<pid>-XXXX`` beside ``target``, after removing stale ones,
    with the umask's permissions (``mkstemp`` alone makes it 0600)."""
    folder = writable_folder(target.parent)
    remove_stale_parts(folder)
    try:
        handle, name = tempfile.mkstemp(prefix=f".{target.name}.part-{os.getpid()}-", dir=folder)
    except OSError as exc:
        raise DataHomeError(not_writable(folder, exc)) from None
    os.fchmod(handle, file_mode())
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


def download_gunzipped(url, target, sha256s=(), sizes=(), progress=True, timeout=TIMEOUT_S):
    """:func:`download_unpacked` of a gzip file (``.gz``)."""
    return download_unpacked(url, target, sha256s, sizes, progress, timeout, ".gz")


def download_unpacked(url, target, sha256s=(), sizes=(), progress=True, timeout=TIMEOUT_S,
                      packing=".gz"):
    """Download the compressed file at ``url`` (``packing``: ``.gz`` gzip or ``.Z`` Unix
    compress) and keep its decompressed content as ``target``, checked by the decompressed
    size and SHA-256 (a .gz's own bytes differ between copies: its header holds a time; a .Z's
    depend on the compress program). Both stages go through ``.part-<pid>-`` files, the
    decompression stops past ``max(sizes)`` bytes; returns the SHA-256."""
    target = Path(target)
    packed = _temp_file(target.with_name(f"{target.name}{packing}"))
    limit = max(sizes) if sizes else None
    try:
        try:
            with open(packed, "wb") as sink:
                _stream(url, sink, f"{target.name}{packing}", progress, timeout,
                        _packed_bound(sizes, packing))
        except OSError as exc:
            raise DataHomeError(not_writable(target.parent, exc)) from None
        temp_path = _temp_file(target)
        try:
            received = UNPACK[packing](packed, temp_path, limit, url)
            seen = sha256_file(temp_path)
            if (sizes and received not in sizes) or (sha256s and seen not in sha256s):
                raise DatasetError(f"{target.name} decompressed from {url} is {received:,} bytes "
                                   f"with sha256 {seen[:16]}..., expected "
                                   f"{_sizes_text(sizes) if sizes else 'any size'} and "
                                   f"{sha256s[0][:16] if sha256s else 'any'}...: refused, "
                                   "not cached")
            os.replace(temp_path, target)
            return seen
        except BaseException:
            temp_path.unlink(missing_ok=True)
            raise
    finally:
        packed.unlink(missing_ok=True)


def _packed_bound(sizes, packing):
    """The most bytes the compressed download may have: the content's size for gzip (never
    larger here), the LZW bound of :func:`.unix_compress.max_packed_bytes` for ``.Z``."""
    if not sizes or packing == ".gz":
        return sizes
    return (unix_compress.max_packed_bytes(max(sizes)),)


def _uncompress(packed, target, limit, url):
    """Decompress the ``.Z`` file ``packed`` into ``target``; stops past ``limit`` bytes."""
    try:
        return unix_compress.decompress_file(packed, target, limit, url)
    except OSError as exc:
        raise DataHomeError(not_writable(Path(target).parent, exc)) from None


def _gunzip(packed, target, limit, url):
    """Decompress ``packed`` into ``target``; stops past ``limit`` bytes. Returns the size."""
    import gzip
    import zlib

    written = 0
    try:
        with gzip.open(packed, "rb") as source, open(target, "wb") as sink:
            for chunk in iter(lambda: source.read(CHUNK_BYTES), b""):
                written += len(chunk)
                if limit is not None and written > limit:
                    raise DatasetError(f"{url} decompresses to more than {limit:,} bytes: "
                                       "refused, not cached")
                _write(sink, chunk)
    except (gzip.BadGzipFile, zlib.error, EOFError) as exc:
        raise DatasetError(f"{url} is not a complete gzip file ({exc}): refused") from None
    return written


UNPACK = {".gz": _gunzip, ".Z": _uncompress}
