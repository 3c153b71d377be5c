"""Text features: documents -> CSR matrices, the vectorizer fitted on the training documents only.

:class:`TextFeatures` holds the settings (a config's ``features:``): ``vectorizer`` ``tfidf``
(scikit-learn's ``TfidfVectorizer``), ``counts`` or ``binary`` (``CountVectorizer``, with
``binary=True`` for ``binary``), ``lowercase``, ``stop_words`` (``english`` or ``none``),
``min_df``, ``max_df``, ``max_features``, ``sublinear_tf`` (tfidf only), ``norm`` (``l2`` or
``none``; counts are normalised after counting) and ``ngram_range``.

:func:`fit_transform_parts` fits on the training documents and transforms every other part
with that vocabulary, so a word seen only in held-out documents is never a feature. With a
``cache_dir`` the result is kept as a checked entry of :mod:`.text_cache` (keyed by the
settings, the documents' digest :func:`documents_digest` and the software; used only after
its rows, its checksum and a fresh sample of its rows recomputed from the documents agree,
else rebuilt with a warning naming the file).
"""

import hashlib
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ...base.errors import one_line
from ...base.numeric import is_count, is_number
from ..errors import DatasetError
from .cache import Features, entry_path, read_entry, write_entry

VECTORIZERS = ("tfidf", "counts", "binary")
MAX_NGRAM = 5  # the longest word n-gram (ngram_range's upper bound)


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
        (is_count(low) and is_count(high) and 1 <= low <= high <= MAX_NGRAM,
         f"ngram_range must be [low, high] with 1 <= low <= high <= {MAX_NGRAM} (longer word "
         "n-grams multiply the vocabulary and are almost never seen twice)"),
        (not _same_kind(settings.min_df, settings.max_df) or settings.min_df <= settings.max_df,
         f"min_df ({settings.min_df}) is above max_df ({settings.max_df}): no term can be kept"),
    ]
    return next((message for ok, message in checks if not ok), None)


def _same_kind(a, b):
    """Whether the document frequencies ``a`` and ``b`` are both counts or both fractions
    (then comparable without the number of documents)."""
    return (_frequency(a) and _frequency(b)) and is_count(a) == is_count(b)


def doc_counts(settings, n_documents):
    """(min, max) document counts ``settings`` keep a term between, on ``n_documents``
    training documents, as scikit-learn computes them (a fraction times the count)."""
    def count(value):
        return value if is_count(value) else value * n_documents
    return count(settings.min_df), count(settings.max_df)


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
    (:mod:`.text_cache`) keyed by ``settings``, ``data_digest`` (default:
    :func:`documents_digest` of all parts) and the software. DatasetError when the training
    documents give an empty vocabulary."""
    parts = (train_docs, *other_docs)
    if cache_dir is not None:
        data_digest = data_digest or documents_digest(*parts)
        path = entry_path(cache_dir, settings, data_digest)
        cached = read_entry(path, settings, data_digest, parts, transform_with)
        if cached is not None:
            return cached
    features = _compute(settings, train_docs, other_docs)
    if cache_dir is not None:
        write_entry(path, settings, data_digest, parts, features)
    return features


def _compute(settings, train_docs, other_docs):
    """The :class:`Features` of the parts, with the vocabulary fitted on ``train_docs``."""
    fitted = vectorizer(settings)
    try:
        matrices = [fitted.fit_transform(list(train_docs))]
    except ValueError as exc:  # empty vocabulary, min_df above max_df, ...
        raise DatasetError(f"features: {one_line(exc)}") from None
    matrices += [fitted.transform(list(docs)) for docs in other_docs]
    matrices = tuple(_csr(_normalized(settings, X)) for X in matrices)
    train, vocabulary = matrices[0], fitted.vocabulary_
    idf = getattr(fitted, "idf_", None)
    return Features(matrices, len(vocabulary),
                    float(train.nnz / train.shape[0]) if train.shape[0] else 0.0,
                    tuple(sorted(vocabulary, key=vocabulary.get)),
                    None if idf is None else np.asarray(idf, dtype=np.float64))


def _normalized(settings, X):
    """Counts are l2-normalised after counting (tf-idf normalises itself)."""
    from sklearn.preprocessing import normalize

    if settings.vectorizer != "tfidf" and settings.norm == "l2":
        return normalize(X, norm="l2")
    return X


def transform_with(settings, terms, idf, documents):
    """The feature rows of ``documents`` under the fitted vocabulary ``terms`` (in column
    order) and, for tf-idf, its ``idf`` weights: what the vectorizer fitted to them gives
    (the text-features cache recomputes sampled rows with this)."""
    from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer

    counting = CountVectorizer(
        lowercase=settings.lowercase, ngram_range=settings.ngram_range, dtype=np.float64,
        stop_words=None if settings.stop_words == "none" else settings.stop_words,
        binary=settings.vectorizer == "binary",
        vocabulary={term: j for j, term in enumerate(terms)})
    X = counting.transform(list(documents))
    if settings.vectorizer == "tfidf":
        weighting = TfidfTransformer(norm=None if settings.norm == "none" else settings.norm,
                                     sublinear_tf=settings.sublinear_tf)
        weighting.idf_ = np.asarray(idf, dtype=np.float64)
        X = weighting.transform(X)
    return _csr(_normalized(settings, X))


def _csr(X):
    X = sp.csr_matrix(X, dtype=np.float64)
    X.sort_indices()
    return X
