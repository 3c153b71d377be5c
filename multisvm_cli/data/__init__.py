"""The data layer: dataset cards, parsers, parsed cache, mirror, download and verification.

Public API (see docs/architecture.md, "Data contract"): ``names()``, ``get_card(name)``,
``load(name, parts=None, mirror=None, data_home=None, progress=True)`` -> ``Dataset``,
``DatasetError``; ``load_local(LocalSpec)`` -> ``Dataset`` for a local data file; for the
``datasets`` commands: ``fetch``, ``cached_parts``,
``available_parts``, ``file_status``.
"""

from .cards import Card, FileSpec, Source, get_card, names
from .errors import DatasetError
from .inventory import available_parts, cached_parts, file_status
from .loader import Dataset, fetch, load
from .local import LocalSpec, load_local

__all__ = ["Card", "Dataset", "DatasetError", "FileSpec", "LocalSpec", "Source",
           "available_parts", "cached_parts", "fetch", "file_status", "get_card", "load",
           "load_local", "names"]
