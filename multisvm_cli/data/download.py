"""Downloads: stream to a temporary file beside the target, verify, then rename.

Nothing half-written is ever left under the target name: the bytes go to
``<folder>/.<name>.part-XXXX``, are checked (SHA-256, or the caller's structure check), and only
then ``os.replace``-d onto ``<folder>/<name>``; on any failure the temporary file is removed.
Covertype's ``covtype.data.gz`` is fetched by scikit-learn's own fetcher, which does the same and
checks the SHA-256 that ``fetch_covtype`` uses.
"""

import os
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from tqdm import tqdm

from .errors import DatasetError
from .verify import sha256_file

CHUNK_BYTES = 1 << 16
TIMEOUT_S = 60


def download(url, target, sha256s=(), check=None, progress=True, timeout=TIMEOUT_S):
    """Download ``url`` to ``target`` (a Path) and return the file's SHA-256.

    ``sha256s``: accepted digests (empty: unknown). ``check(temp_path)`` may raise DatasetError
    to refuse the file (structure check). Raises DatasetError, leaving nothing behind, when the
    transfer fails or is cut short, or the file is refused.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(prefix=f".{target.name}.part-", dir=target.parent)
    temp_path = Path(temp_name)
    try:
        with os.fdopen(handle, "wb") as sink:
            _stream(url, sink, target.name, progress, timeout)
        seen = sha256_file(temp_path)
        if sha256s and seen not in sha256s:
            raise DatasetError(f"{target.name} downloaded from {url} has sha256 {seen}, "
                               f"expected {sha256s[0]}: refused, not cached")
        if check is not None:
            check(temp_path)
        os.replace(temp_path, target)
        return seen
    except BaseException:
        temp_path.unlink(missing_ok=True)
        raise


def _stream(url, sink, label, progress, timeout):
    """Copy the HTTP body into ``sink``; a transfer shorter than Content-Length fails."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            total = int(response.headers.get("Content-Length") or 0) or None
            show = progress and sys.stderr.isatty()
            with tqdm(total=total, unit="B", unit_scale=True, desc=label, disable=not show) as bar:
                received = 0
                for chunk in iter(lambda: response.read(CHUNK_BYTES), b""):
                    sink.write(chunk)
                    received += len(chunk)
                    bar.update(len(chunk))
            if total is not None and received != total:
                raise DatasetError(f"download of {url} stopped after {received} of {total} bytes")
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


def fetch_covtype_archive(folder):
    """Fetch ``covtype.data.gz`` into ``folder`` with scikit-learn's fetcher (the file and
    SHA-256 ``sklearn.datasets.fetch_covtype`` uses; temporary file, verified, then renamed).
    Returns the path."""
    from sklearn.datasets._base import _fetch_remote
    from sklearn.datasets._covtype import ARCHIVE

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        return Path(_fetch_remote(ARCHIVE, dirname=folder, n_retries=0, delay=1.0))
    except Exception as exc:
        message = " ".join(str(getattr(exc, "reason", None) or exc).split())
        raise DatasetError(f"cannot download {ARCHIVE.url}: {message}") from None
