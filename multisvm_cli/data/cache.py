"""Parsed cache: one entry per (dataset, source, part), keyed by the raw files' SHA-256.

An entry is two files in ``<data_home>/<dataset>/parsed/``:

- ``<source>-<part>-<key>.npz``: the arrays ``X`` (float64) and ``y`` (int64 or a unicode
  array: never pickled objects); a sparse part (svmlight sources) stores its CSR matrix as the
  arrays ``X_data``, ``X_indices``, ``X_indptr`` and ``X_shape`` instead of ``X``; a text part
  (an object array of str documents) stores them as ``X_utf8`` (uint8, the UTF-8 bytes of all
  documents) and ``X_ends`` (int64, where each document's bytes end); a dense part whose
  values are all whole numbers (Covertype) stores its columns in the narrowest exact integer
  dtypes: ``X_columns_<dtype>`` (e.g. ``uint8``, ``int16``), each with the column numbers
  ``X_where_<dtype>``, and is read back as float64;
- ``<source>-<part>-<key>.json``: its record, written when the part was parsed from raw files
  that had just passed their checks: the dataset, source, part and key, each raw file's name,
  SHA-256 and origin, and ``arrays_sha256`` (see ``arrays_sha256``) with the shapes and dtypes.

``key`` hashes the format version, the source's card entry, the raw files' SHA-256 and the
package's code digest, so a changed raw file, card or parser gives a new key (the old entry is
unused). Reading an entry recomputes
the arrays' SHA-256 and compares it with the record (``read_part``); the caller checks the record
and the arrays against the card and discards a mismatching entry (``discard``). Files are written
to a temporary name and renamed; reading uses ``allow_pickle=False``.
"""

import hashlib
import io
import json
import os
import zipfile
from pathlib import Path

from ..base.code_digest import code_digest
from ..base.hashing import sha256_hex
from ..base.lazy import issparse
from ..base.readers import read_json, regular_file
from ..base.storage import atomic_write

FORMAT_VERSION = 2
CSR_KEYS = ("X_data", "X_indices", "X_indptr", "X_shape")
TEXT_KEYS = ("X_utf8", "X_ends")
RECORD_BYTES = 1 << 20
NARROW_DTYPES = ("uint8", "int8", "uint16", "int16", "uint32", "int32")  # numpy dtype names


class Mismatch(Exception):
    """A parsed-cache entry that is not what was written; the message says what is wrong."""


def key(source, part, file_digests):
    """16 hex digits identifying the parsed part of ``source`` read from files whose SHA-256
    are ``file_digests`` (a list, one entry per file: a digest or a tuple of accepted ones),
    by this code (:func:`..code_digest.code_digest`: an edited parser parses afresh)."""
    text = json.dumps([FORMAT_VERSION, source.fingerprint, part, file_digests, code_digest()])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def part_path(home, dataset, source_id, part, part_key):
    """The ``.npz`` of an entry; its record is ``record_path(part_path(...))``."""
    return Path(home) / dataset / "parsed" / f"{source_id}-{part}-{part_key}.npz"


def record_path(path):
    return Path(path).with_suffix(".json")


def arrays_sha256(X, y):
    """Hex SHA-256 of the parsed arrays: a JSON header ``[[X shape, X dtype], [y shape,
    y dtype]]`` (dtype as ``numpy.dtype.str``, e.g. ``<f8``), then X's bytes and y's bytes in C
    order. One pass over the data, no copy for C-contiguous arrays.

    A CSR ``X`` is hashed as its arrays: the header is ``[["csr", shape, data dtype, indices
    dtype, indptr dtype], [y shape, y dtype]]``, then the bytes of data, indices, indptr and y.

    A text ``X`` (object array of str) is hashed as ``[["text", n], [y shape, y dtype]]``, then
    the ``X_utf8`` and ``X_ends`` arrays it is stored as, and y.
    """
    if X.dtype == object:
        utf8, ends = _text_arrays(X)
        header = json.dumps([["text", len(X)], [list(y.shape), y.dtype.str]])
        arrays = (utf8, ends, y)
    elif issparse(X):
        header = json.dumps([["csr", list(X.shape), X.data.dtype.str, X.indices.dtype.str,
                              X.indptr.dtype.str], [list(y.shape), y.dtype.str]])
        arrays = (X.data, X.indices, X.indptr, y)
    else:
        header = json.dumps([[list(X.shape), X.dtype.str], [list(y.shape), y.dtype.str]])
        arrays = (X, y)
    return sha256_hex(header, *arrays)


def _text_arrays(X):
    """(UTF-8 bytes of all documents as uint8, int64 end offset of each document)."""
    import numpy as np

    encoded = [text.encode("utf-8") for text in X]
    ends = np.cumsum([len(b) for b in encoded], dtype=np.int64)
    return np.frombuffer(b"".join(encoded), dtype=np.uint8), ends


def _documents(utf8, ends):
    import numpy as np

    data = utf8.tobytes()
    starts = np.concatenate([[0], ends[:-1]]).tolist()
    array = np.empty(len(ends), dtype=object)
    array[:] = [data[a:b].decode("utf-8") for a, b in zip(starts, ends.tolist())]
    return array


def _narrow_columns(X):
    """``{X_columns_<dtype>, X_where_<dtype>}`` of a dense X of whole numbers, each column in
    the narrowest exact integer dtype; None when X has other values or is not 2-d."""
    import numpy as np

    if X.ndim != 2 or X.size == 0 or not np.array_equal(X, np.round(X)) \
            or np.signbit(X[X == 0]).any():  # -0.0 would come back as 0.0
        return None
    low, high = X.min(axis=0), X.max(axis=0)
    groups = {}
    for j in range(X.shape[1]):
        dtype = next((d for d in NARROW_DTYPES
                      if np.iinfo(d).min <= low[j] and high[j] <= np.iinfo(d).max), None)
        if dtype is None:
            return None
        groups.setdefault(np.dtype(dtype).name, []).append(j)
    arrays = {"X_shape": np.asarray(X.shape, dtype=np.int64)}
    for name, columns in groups.items():
        arrays[f"X_columns_{name}"] = np.ascontiguousarray(X[:, columns], dtype=name)
        arrays[f"X_where_{name}"] = np.asarray(columns, dtype=np.int64)
    return arrays


def _widened(stored):
    """The float64 X of an entry stored by ``_narrow_columns``."""
    import numpy as np

    X = np.empty(tuple(int(n) for n in stored["X_shape"]), dtype=np.float64)
    for key in stored.files:
        if key.startswith("X_columns_"):
            X[:, stored[f"X_where_{key[len('X_columns_'):]}"]] = stored[key]
    return X


def _stored_X(stored):
    """X of an opened entry: the dense array, the documents, the widened narrow columns, or the
    CSR matrix rebuilt from its arrays."""
    files = set(stored.files)
    if set(TEXT_KEYS) <= files:
        return _documents(stored["X_utf8"], stored["X_ends"])
    if any(key.startswith("X_columns_") for key in files):
        return _widened(stored)
    if "X" in files or not set(CSR_KEYS) <= files:
        return stored["X"]
    import scipy.sparse as sp

    data, indices, indptr, shape = (stored[key] for key in CSR_KEYS)
    return sp.csr_matrix((data, indices, indptr), shape=tuple(int(n) for n in shape))


def _arrays_to_store(X, y):
    import numpy as np

    if X.dtype == object:
        return dict(zip(TEXT_KEYS, _text_arrays(X)), y=y)
    narrow = None if issparse(X) else _narrow_columns(X)
    if narrow is not None:
        return dict(narrow, y=y)
    if issparse(X):
        return {"X_data": X.data, "X_indices": X.indices, "X_indptr": X.indptr,
                "X_shape": np.asarray(X.shape, dtype=np.int64), "y": y}
    return {"X": X, "y": y}


def read_part(path):
    """``(X, y, record)`` of the entry at ``path`` (the ``.npz``); None when neither of its files
    exists. Raises Mismatch when the entry is there but unreadable, has no record, or its
    arrays' SHA-256 is not the one recorded when it was written."""
    import numpy as np

    path = Path(path)
    record_file = record_path(path)
    if not path.exists() and not record_file.exists():
        return None
    record = _read_record(record_file)
    if os.path.lexists(path):
        regular_file(path, Mismatch, "parsed-cache .npz")
    try:
        with np.load(path, allow_pickle=False) as stored:
            X, y = _stored_X(stored), stored["y"]
    except FileNotFoundError:
        raise Mismatch("the .npz is missing (only its record is there)") from None
    except (OSError, KeyError, ValueError, TypeError, EOFError, IndexError,
            UnicodeDecodeError, zipfile.BadZipFile) as exc:
        raise Mismatch(f"not a readable parsed-cache .npz ({_first_line(exc)})") from None
    seen = arrays_sha256(X, y)
    if seen != record.get("arrays_sha256"):
        recorded = str(record.get("arrays_sha256"))[:16]
        raise Mismatch(f"its arrays (X {X.shape} {X.dtype}, y {y.shape} {y.dtype}) have sha256 "
                       f"{seen[:16]}..., not the {recorded}... recorded when they were parsed "
                       "from the verified raw files")
    return X, y, record


def _read_record(record_file):
    if not record_file.exists():
        raise Mismatch(f"no record of its arrays' SHA-256 ({record_file.name} is missing)")
    record = read_json(record_file, RECORD_BYTES, error=Mismatch, what="parsed-cache record")
    if not isinstance(record, dict) or record.get("format") != FORMAT_VERSION:
        raise Mismatch(f"its record {record_file.name} is not of format {FORMAT_VERSION}")
    return record


def write_part(path, X, y, record):
    """Write one entry: the arrays, then their record (``record`` plus the format, the arrays'
    SHA-256, shapes and dtypes), each to a temporary file in the same folder, then renamed.
    OSError (read-only folder, full disk) goes to the caller, leaving no temporary file."""
    import numpy as np

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = dict(record, format=FORMAT_VERSION, arrays_sha256=arrays_sha256(X, y),
                  X={"shape": list(X.shape), "dtype": "documents" if X.dtype == object
                     else X.dtype.str,
                     **({"sparse": "csr", "nnz": int(X.nnz)} if issparse(X) else {})},
                  y={"shape": list(y.shape), "dtype": y.dtype.str})
    arrays = io.BytesIO()
    np.savez(arrays, **_arrays_to_store(X, y))
    atomic_write(path, arrays.getvalue())
    atomic_write(record_path(path), json.dumps(record, indent=1))


def discard(path):
    """Remove an entry's files (silently keeps them when the folder is read-only)."""
    for file in (Path(path), record_path(path)):
        try:
            file.unlink(missing_ok=True)
        except OSError:
            pass


def _first_line(exc):
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
