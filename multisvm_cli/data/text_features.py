"""Text features: documents -> CSR matrices, the vectorizer fitted on the training documents only.

:class:`TextFeatures` holds the settings (a config's ``features:``): ``vectorizer`` ``tfidf``
(scikit-learn's ``TfidfVectorizer``), ``counts`` or ``binary`` (``CountVectorizer``, with
``binary=True`` for ``binary``), ``lowercase``, ``stop_words`` (``english`` or ``none``),
``min_df``, ``max_df``, ``max_features``, ``sublinear_tf`` (tfidf only), ``norm`` (``l2`` or
``none``; counts are normalised after counting) and ``ngram_range``.

:func:`fit_transform_parts` fits on the training documents and transforms every other part
with that vocabulary, so a word seen only in held-out documents is never a feature. With a
``cache_dir`` the result is kept as ``<key>.npz`` (the CSR arrays, no pickle) and ``<key>.json``
(the settings, the data digest and the arrays' SHA-256), keyed by the settings and the
documents' digest (:func:`documents_digest`); a cached entry is used only when its record
matches and its arrays hash to the recorded SHA-256, else it is rebuilt.
"""

import hashlib
import io
import json
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..hashing import sha256_hex
from ..numbers import is_count, is_number
from ..readers import read_json
from ..storage import atomic_write
from .errors import DatasetError

VECTORIZERS = ("tfidf", "counts", "binary")
FORMAT_VERSION = 1
RECORD_BYTES = 1 << 20


class Unusable(Exception):
    """A cache entry that cannot be read back (it is rebuilt)."""


@dataclass(frozen=True)
class TextFeatures:
    """Settings of the text features (see the module docstring)."""

    vectorizer: str = "tfidf"
    lowercase: bool = True
    stop_words: str = "none"
    min_df: int | float = 1
    max_df: int | float = 1.0
    max_features: int | None = None
    sublinear_tf: bool = False
    norm: str = "l2"
    ngram_range: tuple = (1, 1)

    @classmethod
    def from_mapping(cls, raw):
        """Settings from a config's ``features:`` mapping; DatasetError for an unknown key."""
        if not isinstance(raw, dict):
            raise DatasetError(f"features: expected a mapping, got {type(raw).__name__}")
        known = set(cls.__dataclass_fields__)
        unknown = sorted(str(key) for key in raw if key not in known)
        if unknown:
            raise DatasetError(f"features: unknown setting(s) {', '.join(unknown)}; known: "
                               f"{', '.join(sorted(known))}")
        return cls(**raw)

    def __post_init__(self):
        if isinstance(self.ngram_range, (list, tuple)):
            object.__setattr__(self, "ngram_range", tuple(self.ngram_range))
        problem = _problem(self)
        if problem:
            raise DatasetError(f"features: {problem}")


@dataclass(frozen=True)
class Features:
    """The parts' CSR matrices (training first), the vocabulary size and the mean number of
    non-zeros per training document."""

    matrices: tuple
    vocabulary_size: int
    mean_nonzeros: float


def _problem(settings):
    """What is wrong with ``settings``, or None."""
    ngrams = settings.ngram_range
    low, high = ngrams if isinstance(ngrams, tuple) and len(ngrams) == 2 else (None, None)
    checks = [
        (settings.vectorizer in VECTORIZERS,
         f"vectorizer must be one of {', '.join(VECTORIZERS)}"),
        (settings.stop_words in ("english", "none"), "stop_words must be english or none"),
        (settings.norm in ("l2", "none"), "norm must be l2 or none"),
        (isinstance(settings.lowercase, bool) and isinstance(settings.sublinear_tf, bool),
         "lowercase and sublinear_tf must be true or false"),
        (not settings.sublinear_tf or settings.vectorizer == "tfidf",
         "sublinear_tf is for the tfidf vectorizer"),
        (_frequency(settings.min_df) and _frequency(settings.max_df),
         "min_df and max_df must be a count >= 1 or a fraction in (0, 1]"),
        (settings.max_features is None or is_count(settings.max_features)
         and settings.max_features >= 1, "max_features must be a count >= 1"),
        (is_count(low) and is_count(high) and 1 <= low <= high,
         "ngram_range must be [low, high] with 1 <= low <= high"),
    ]
    return next((message for ok, message in checks if not ok), None)


def _frequency(value):
    if is_count(value):
        return value >= 1
    return is_number(value) and isinstance(value, float) and 0 < value <= 1


def vectorizer(settings):
    """The unfitted scikit-learn vectorizer of ``settings``."""
    from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

    common = dict(lowercase=settings.lowercase, min_df=settings.min_df, max_df=settings.max_df,
                  max_features=settings.max_features, ngram_range=settings.ngram_range,
                  stop_words=None if settings.stop_words == "none" else settings.stop_words,
                  dtype=np.float64)
    if settings.vectorizer == "tfidf":
        return TfidfVectorizer(sublinear_tf=settings.sublinear_tf,
                               norm=None if settings.norm == "none" else settings.norm, **common)
    return CountVectorizer(binary=settings.vectorizer == "binary", **common)


def documents_digest(*parts):
    """Hex SHA-256 of the documents of every part, in order (part boundaries included)."""
    digest = hashlib.sha256()
    for documents in parts:
        digest.update(f"part {len(documents)}\n".encode())
        for text in documents:
            encoded = str(text).encode("utf-8", "surrogatepass")
            digest.update(f"{len(encoded)}:".encode())
            digest.update(encoded)
    return digest.hexdigest()


def fit_transform_parts(settings, train_docs, *other_docs, cache_dir=None, data_digest=None):
    """:class:`Features` of the training documents and each of ``other_docs``: the vectorizer
    is fitted on ``train_docs`` only. With ``cache_dir``, reuse or write a checked cache entry
    keyed by ``settings`` and ``data_digest`` (default: :func:`documents_digest` of all parts).
    DatasetError when the training documents give an empty vocabulary."""
    if cache_dir is not None:
        data_digest = data_digest or documents_digest(train_docs, *other_docs)
        path = Path(cache_dir) / f"{_key(settings, data_digest)}.npz"
        cached = _read_entry(path, settings, data_digest, 1 + len(other_docs))
        if cached is not None:
            return cached
    features = _compute(settings, train_docs, other_docs)
    if cache_dir is not None:
        _write_entry(path, settings, data_digest, features)
    return features


def _compute(settings, train_docs, other_docs):
    from sklearn.preprocessing import normalize

    fitted = vectorizer(settings)
    try:
        matrices = [fitted.fit_transform(list(train_docs))]
    except ValueError as exc:  # empty vocabulary, min_df above max_df, ...
        raise DatasetError(f"features: {' '.join(str(exc).split())}") from None
    matrices += [fitted.transform(list(docs)) for docs in other_docs]
    if settings.vectorizer != "tfidf" and settings.norm == "l2":
        matrices = [normalize(X, norm="l2") for X in matrices]
    matrices = tuple(_csr(X) for X in matrices)
    train = matrices[0]
    return Features(matrices, len(fitted.vocabulary_),
                    float(train.nnz / train.shape[0]) if train.shape[0] else 0.0)


def _csr(X):
    X = sp.csr_matrix(X, dtype=np.float64)
    X.sort_indices()
    return X


def _key(settings, data_digest):
    text = json.dumps([FORMAT_VERSION, asdict(settings), data_digest], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _arrays(features):
    arrays = {"vocabulary_size": np.asarray([features.vocabulary_size], dtype=np.int64)}
    for i, X in enumerate(features.matrices):
        arrays.update({f"{i}_data": X.data, f"{i}_indices": X.indices, f"{i}_indptr": X.indptr,
                       f"{i}_shape": np.asarray(X.shape, dtype=np.int64)})
    return arrays


def _arrays_sha256(arrays):
    pieces = []
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        pieces += [json.dumps([name, array.dtype.str, list(array.shape)]), array]
    return sha256_hex(*pieces)


def _write_entry(path, settings, data_digest, features):
    """Write the entry (arrays, then record) through temporary files; an unwritable folder
    leaves the features uncached."""
    arrays = _arrays(features)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    record = {"format": FORMAT_VERSION, "settings": asdict(settings), "data": data_digest,
              "parts": len(features.matrices), "mean_nonzeros": features.mean_nonzeros,
              "arrays_sha256": _arrays_sha256(arrays)}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, buffer.getvalue())
        atomic_write(path.with_suffix(".json"), json.dumps(record, indent=1))
    except OSError:
        pass


def _read_entry(path, settings, data_digest, n_parts):
    """The cached Features, or None when absent or not exactly what was written."""
    try:
        record = read_json(path.with_suffix(".json"), RECORD_BYTES, error=Unusable)
        with np.load(path, allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in stored.files}
    except (Unusable, OSError, ValueError, EOFError, zipfile.BadZipFile):
        return None
    expected = {"format": FORMAT_VERSION, "settings": json.loads(json.dumps(asdict(settings))),
                "data": data_digest, "parts": n_parts}
    if not isinstance(record, dict) or any(record.get(k) != v for k, v in expected.items()) \
            or record.get("arrays_sha256") != _arrays_sha256(arrays):
        return None
    try:
        matrices = tuple(sp.csr_matrix((arrays[f"{i}_data"], arrays[f"{i}_indices"],
                                        arrays[f"{i}_indptr"]),
                                       shape=tuple(int(n) for n in arrays[f"{i}_shape"]))
                         for i in range(n_parts))
    except (KeyError, ValueError, TypeError):
        return None
    return Features(matrices, int(arrays["vocabulary_size"][0]),
                    float(record.get("mean_nonzeros", 0.0)))
