"""The data layer: dataset cards, parsers, parsed cache, mirror, download and verification.

Public API (see docs/architecture.md, "Data contract"): ``names()``, ``get_card(name)``,
``load(name, parts=None, mirror=None, data_home=None, progress=True)`` -> ``Dataset``,
``DatasetError``.
"""

from .cards import Card, FileSpec, Source, get_card, names
from .errors import DatasetError
from .loader import Dataset, load

__all__ = ["Card", "Dataset", "DatasetError", "FileSpec", "Source", "get_card", "load", "names"]
