"""A fitted text pipeline as a saved model keeps it: plain JSON and arrays, never a pickle.

A model trained on documents (``multisvm train`` on a text dataset) must featurize new
documents exactly as its training documents were. :class:`TextPipeline` holds all it needs:
the settings of :mod:`.text_features` (vectorizer, lowercase, stop words, n-grams, min_df,
max_df, max_features, sublinear_tf, norm), the vocabulary fitted on the training documents
(its terms in column order), for tf-idf its idf weights, and the text encoding documents are
read in. The scaling applied after the vectorizer (``none`` or ``maxabs``) is the model's
saved scaler, kept beside it as for any model.

:meth:`TextPipeline.record` gives them as a JSON record (``settings``, ``encoding``,
``vocabulary_size``) and arrays (the terms as UTF-8 bytes and end offsets, the idf);
:meth:`TextPipeline.from_record` reads them back, checked (a settings key or value the
features refuse, an unknown encoding, offsets that do not cut the bytes into that many
distinct non-empty terms, idf weights that are not that many finite numbers >= 1, as
scikit-learn's smoothed idf always is): each problem is one ValueError line.
:meth:`TextPipeline.transform` is :func:`.text_features.transform_with`, the function the
text-features cache checks its rows with: the vectorizer is rebuilt with ``vocabulary=`` the
saved terms (and the idf set), so a word the training documents lacked is no feature.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
import numpy as np

from ...base.errors import one_line
from ..cache import _documents, _text_arrays
from ..errors import DatasetError
from .features import TextFeatures, transform_with
from .folder import decode, document_members
from .options import _text_encoding

TERMS_UTF8, TERMS_ENDS, IDF = "text_terms_utf8", "text_terms_ends", "text_idf"
RECORD_KEYS = ("settings", "encoding", "vocabulary_size")
DEFAULT_ENCODING = "latin-1"


@dataclass(frozen=True)
class TextPipeline:
    """Text features fitted on a model's training documents (see the module docstring)."""

    settings: TextFeatures
    terms: tuple
    idf: np.ndarray | None
    encoding: str = DEFAULT_ENCODING

    @property
    def vocabulary_size(self) -> int:
        return len(self.terms)

    def record(self) -> tuple:
        """(JSON record, arrays) of the pipeline, as a saved model keeps them."""

        utf8, ends = _text_arrays(self.terms)
        arrays = {TERMS_UTF8: utf8, TERMS_ENDS: ends}
        if self.idf is not None:
            arrays[IDF] = np.asarray(self.idf, dtype=np.float64)
        settings = asdict(self.settings)
        settings["ngram_range"] = list(settings["ngram_range"])
        return ({"settings": settings, "encoding": self.encoding,
                 "vocabulary_size": self.vocabulary_size}, arrays)

    @classmethod
    def from_record(cls, record, arrays) -> TextPipeline:
        """The pipeline of a :meth:`record` and its arrays; ValueError (one line) naming what
        is wrong (see the module docstring)."""
        if not isinstance(record, dict) or set(record) != set(RECORD_KEYS):
            raise ValueError(f"text must hold exactly {', '.join(RECORD_KEYS)}")
        try:
            settings = TextFeatures.from_mapping(record["settings"])
        except (DatasetError, TypeError) as exc:
            raise ValueError(f"text.settings: {one_line(exc)}") from None
        encoding, size = record["encoding"], record["vocabulary_size"]
        if not isinstance(encoding, str) or not _text_encoding(encoding):
            raise ValueError(f"text.encoding {encoding!r} is not a text encoding")
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"text.vocabulary_size must be an integer >= 1, got {size!r}")
        terms = _terms(arrays, size)
        idf = _idf(arrays, size, settings.vectorizer == "tfidf")
        return cls(settings, terms, idf, encoding)

    def transform(self, documents):
        """The CSR feature rows of ``documents`` (str), as the training documents' were."""
        return transform_with(self.settings, self.terms, self.idf, documents)

    def read_folder(self, folder) -> tuple:
        """(names, documents, labels) of a folder to predict (:func:`.text_folder.
        document_members`): each document's path relative to ``folder``, its text decoded as
        the training documents were, and its class folder (labels None without them)."""
        members, labelled = document_members(folder)
        names = sorted(members)
        texts = decode(members, folder, self.encoding)
        labels = np.asarray([n.split("/", 1)[0] for n in names], dtype=str) if labelled \
            else None
        return names, texts, labels


def _terms(arrays, size) -> tuple:
    """The ``size`` terms cut from the UTF-8 bytes by their end offsets, distinct, non-empty."""
    utf8, ends = arrays.get(TERMS_UTF8), arrays.get(TERMS_ENDS)
    if not (isinstance(utf8, np.ndarray) and utf8.dtype == np.uint8 and utf8.ndim == 1
            and isinstance(ends, np.ndarray) and ends.dtype == np.int64 and ends.ndim == 1):
        raise ValueError(f"the vocabulary needs arrays {TERMS_UTF8} (uint8) and {TERMS_ENDS} "
                         "(int64), one-dimensional")
    if len(ends) != size:
        raise ValueError(f"the vocabulary holds {len(ends)} terms, text.vocabulary_size says "
                         f"{size}")
    if ends[0] <= 0 or np.any(np.diff(ends) <= 0) or ends[-1] != len(utf8):
        raise ValueError("the vocabulary's term offsets do not cut its bytes into non-empty "
                         "terms")
    try:
        terms = tuple(_documents(utf8, ends))
    except UnicodeDecodeError as exc:
        raise ValueError(f"the vocabulary holds a term that is not UTF-8 ({exc.reason})") \
            from None
    if len(set(terms)) != size:
        repeated = next(t for i, t in enumerate(terms) if t in terms[:i])
        raise ValueError(f"the vocabulary repeats the term {repeated[:40]!r}")
    return terms


def _idf(arrays, size, tfidf):
    """The idf weights (tf-idf: ``size`` finite numbers >= 1), else None (and none saved)."""
    idf = arrays.get(IDF)
    if not tfidf:
        if idf is not None:
            raise ValueError(f"{IDF} is saved, but the vectorizer is not tfidf")
        return None
    if not (isinstance(idf, np.ndarray) and idf.dtype == np.float64 and idf.shape == (size,)
            and np.isfinite(idf).all() and (idf >= 1).all()):
        raise ValueError(f"{IDF} must be {size} finite float64 weights >= 1 (one per term)")
    return idf


def dataset_encoding(dataset) -> str:
    """The text encoding ``dataset``'s documents were read in: a text folder's, else its card
    source's ``encoding`` (default Latin-1, as the text readers)."""
    if "encoding" in dataset.provenance:
        return str(dataset.provenance["encoding"])
    for source in getattr(dataset.card, "sources", ()):
        if source.id == dataset.source_id:
            return str(source.options.get("encoding", DEFAULT_ENCODING))
    return DEFAULT_ENCODING

