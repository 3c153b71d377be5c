"""The text-features cache: a vectorized split kept as a checked entry, only ever a speed-up.

An entry is ``<key>.npz`` (the parts' CSR arrays, the vocabulary's terms in column order as
UTF-8 bytes and end offsets, and for tf-idf the idf weights; no pickle) and ``<key>.json`` (its
record: the format, the settings, the documents' digest, the software that computed it, the
rows of each part, the mean non-zeros and the arrays' SHA-256). ``key`` hashes the settings,
the documents' digest (:func:`.text_features.documents_digest`: every document of every part
in order, so it is the digest of the split's rows too) and the software (scikit-learn's
version and the package's code digest, :func:`..code_digest.code_digest`).

An entry is used only after the checks that are cheap against its source (:func:`check`):

- its record is the one this key would write (format, settings, documents, software);
- its arrays hash to the recorded SHA-256 (a torn or edited file);
- each part has one row per document, and as many columns as the vocabulary has terms;
- :data:`SAMPLE_ROWS` rows of each part, drawn afresh on every read, are recomputed from
  their documents with the stored vocabulary (and idf) and equal the stored rows: an entry
  edited consistently, checksum and all, is caught on the rows it changed.

An entry failing any check is rebuilt, with one warning naming its file and what was wrong.
"""

from __future__ import annotations

import hashlib
import io
import json
import secrets
import warnings
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ...base.errors import one_line
from ...base.code_digest import code_digest
from ...base.readers import open_regular, read_json
from ...base.hashing import sha256_hex
from ...base.storage import atomic_write

FORMAT_VERSION = 2
RECORD_BYTES = 1 << 20
SAMPLE_ROWS = 16


@dataclass(frozen=True)
class Features:
    """The parts' CSR matrices (training first), the vocabulary size, the mean number of
    non-zeros per training document, and the fitted vocabulary: its ``terms`` in column order
    and, for tf-idf, its ``idf`` weights (None otherwise), which a saved model keeps
    (:mod:`.text_pipeline`)."""

    matrices: tuple
    vocabulary_size: int
    mean_nonzeros: float
    terms: tuple = ()
    idf: np.ndarray | None = None


class Unusable(Exception):
    """A cache entry that cannot be used; the message says why (it is rebuilt)."""


def software() -> dict:
    """What computed an entry: scikit-learn's version and this package's code digest."""
    import sklearn

    return {"scikit-learn": sklearn.__version__, "code": code_digest()}


def entry_path(cache_dir, settings, data_digest) -> Path:
    """The ``.npz`` of the entry of ``settings`` on documents digested as ``data_digest``."""
    text = json.dumps([FORMAT_VERSION, asdict(settings), data_digest, software()],
                      sort_keys=True)
    return Path(cache_dir) / f"{hashlib.sha256(text.encode()).hexdigest()[:24]}.npz"


def _expected(settings, data_digest, parts) -> dict:
    return {"format": FORMAT_VERSION, "settings": json.loads(json.dumps(asdict(settings))),
            "data": data_digest, "software": software(), "rows": [len(p) for p in parts]}


def arrays_sha256(arrays) -> str:
    """Hex SHA-256 of the named arrays (name, dtype, shape and bytes, by name), through the one
    array digest (:func:`..hashing.sha256_hex`)."""
    pieces = []
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        pieces += [json.dumps([name, array.dtype.str, list(array.shape)]), array]
    return sha256_hex(*pieces)


def _arrays(features, terms, idf):
    from ..cache import _text_arrays

    utf8, ends = _text_arrays(np.asarray(terms, dtype=object))
    arrays = {"vocabulary_size": np.asarray([features.vocabulary_size], dtype=np.int64),
              "terms_utf8": utf8, "terms_ends": ends}
    if idf is not None:
        arrays["idf"] = np.asarray(idf, dtype=np.float64)
    for i, X in enumerate(features.matrices):
        arrays.update({f"{i}_data": X.data, f"{i}_indices": X.indices, f"{i}_indptr": X.indptr,
                       f"{i}_shape": np.asarray(X.shape, dtype=np.int64)})
    return arrays


def write_entry(path, settings, data_digest, parts, features):
    """Write the entry of ``features`` (computed from ``parts``' documents, with their fitted
    vocabulary): arrays, then record, through temporary files; an unwritable folder leaves the
    features uncached."""
    arrays = _arrays(features, features.terms, features.idf)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    record = dict(_expected(settings, data_digest, parts), mean_nonzeros=features.mean_nonzeros,
                  arrays_sha256=arrays_sha256(arrays))
    try:
        atomic_write(path, buffer.getvalue())
        atomic_write(Path(path).with_suffix(".json"), json.dumps(record, indent=1))
    except OSError:
        pass


def read_entry(path, settings, data_digest, parts, transform):
    """The cached Features of ``parts`` (the documents of each part, training first), or None
    when there is no entry, or when it fails a check (:func:`check`): then one warning names
    the file and what was wrong, and the caller rebuilds it."""
    path = Path(path)
    if not path.exists() and not path.with_suffix(".json").exists():
        return None
    try:
        return check(path, settings, data_digest, parts, transform)
    except Unusable as exc:
        warnings.warn(f"text-features cache entry {path} {exc}; rebuilt from the documents "
                      f"(nothing to do; delete {path.parent} to drop every entry)",
                      UserWarning, stacklevel=3)
        return None


def check(path, settings, data_digest, parts, transform):
    """The Features of the entry at ``path`` after every check of the module's docstring;
    Unusable says which failed. ``transform(settings, terms, idf, documents)`` gives the
    feature rows of documents under the stored vocabulary (``text_features.transform_with``)."""
    record, arrays = _load(path)
    expected = _expected(settings, data_digest, parts)
    wrong = [k for k, v in expected.items() if not isinstance(record, dict) or record.get(k) != v]
    if wrong:
        raise Unusable(f"was computed for a different {', '.join(wrong)}")
    if record.get("arrays_sha256") != arrays_sha256(arrays):
        raise Unusable("does not hash to the SHA-256 its record holds (torn or edited)")
    try:
        matrices = tuple(sp.csr_matrix((arrays[f"{i}_data"], arrays[f"{i}_indices"],
                                        arrays[f"{i}_indptr"]),
                                       shape=tuple(int(n) for n in arrays[f"{i}_shape"]))
                         for i in range(len(parts)))
        terms = _terms(arrays)
        size = int(arrays["vocabulary_size"][0])
    except (KeyError, ValueError, TypeError, IndexError, UnicodeDecodeError) as exc:
        raise Unusable(f"has unreadable arrays ({one_line(exc)[:120]})") from None
    for i, (X, docs) in enumerate(zip(matrices, parts)):
        if X.shape != (len(docs), size) or len(terms) != size:
            raise Unusable(f"part {i} is {X.shape[0]} x {X.shape[1]}, not {len(docs)} "
                           f"documents x {size} terms")
    idf = arrays.get("idf")
    _check_sample(settings, terms, idf, matrices, parts, transform)
    return Features(matrices, size, float(record.get("mean_nonzeros", 0.0)), tuple(terms), idf)


def _load(path):
    try:
        record = read_json(path.with_suffix(".json"), RECORD_BYTES, error=Unusable,
                           what="text-features cache record")
    except Unusable as exc:
        raise Unusable(f"has an unreadable record ({one_line(exc)[:160]})") \
            from None
    try:
        with open_regular(path, Unusable, "text-features cache file") as stream, \
                np.load(stream, allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in stored.files}
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile) as exc:
        raise Unusable(f"is unreadable, likely truncated ({type(exc).__name__}: "
                       f"{one_line(exc)[:120]})") from None
    return record, arrays


def _terms(arrays):
    from ..cache import _documents

    return list(_documents(arrays["terms_utf8"], arrays["terms_ends"]))


def _check_sample(settings, terms, idf, matrices, parts, transform):
    """Unusable unless :data:`SAMPLE_ROWS` rows of each part, drawn at random, recompute from
    their documents (``transform`` with ``terms`` and ``idf``) to the stored rows."""
    rng = np.random.default_rng(secrets.randbits(64))
    for i, (X, docs) in enumerate(zip(matrices, parts)):
        rows = np.sort(rng.choice(len(docs), size=min(SAMPLE_ROWS, len(docs)), replace=False))
        again = transform(settings, terms, idf, [docs[r] for r in rows])
        stored = X[rows]
        if again.shape != stored.shape or not _same(again, stored):
            raise Unusable(f"does not match its documents (part {i}: a row recomputed from its "
                           f"document differs from the stored one)")


def _same(a, b):
    a, b = sp.csr_matrix(a), sp.csr_matrix(b)
    a.sort_indices()
    b.sort_indices()
    return (np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
            and np.allclose(a.data, b.data, rtol=1e-12, atol=1e-15))
