"""The data layer: dataset cards, parsers, parsed cache, mirror, download and verification.

Public API (see docs/explanation/architecture.md, "Data contract"): ``names()``, ``get_card(name)``,
``load(name, parts=None, mirror=None, data_home=None, progress=True)`` -> ``Dataset``,
``DatasetError``; ``load_local(LocalSpec)`` -> ``Dataset`` for a local data file;
``read_points(path, Columns)`` -> the points of a user's file to predict; for the ``datasets``
commands: ``fetch``, ``cached_parts``, ``available_parts``, ``file_status``. Text datasets (``card.kind == "text"``) give documents:
``load_text_folder`` reads a user's folder of class subfolders; ``TextFeatures`` and
``fit_transform_parts`` (:mod:`.text_features`) turn documents into CSR features, fitted on the
training documents only.
"""

from .cards import Card, FileSpec, Source, get_card, names
from .errors import DatasetError
from .inventory import available_parts, cached_parts, file_status
from .loader import Dataset, fetch, load
from .local import LocalSpec, load_local, load_text_folder
from .points import Columns, read_points
from .text_features import Features, TextFeatures, documents_digest, fit_transform_parts

__all__ = ["Card", "Columns", "Dataset", "DatasetError", "Features", "FileSpec", "LocalSpec", "Source",
           "TextFeatures", "available_parts", "cached_parts", "documents_digest", "fetch",
           "file_status", "fit_transform_parts", "get_card", "load", "load_local",
           "load_text_folder", "names", "read_points"]
