"""The data layer: dataset cards, parsers, parsed cache, mirror, download and verification.

Public API (see docs/explanation/architecture.md, "Data contract"): ``names()``, ``get_card(name)``,
``load(name, parts=None, mirror=None, data_home=None, progress=True)`` -> ``Dataset``,
``DatasetError``; ``load_local(LocalSpec)`` -> ``Dataset`` for a local data file;
``read_points(path, Columns)`` -> the points of a user's file to predict; for the ``datasets``
commands: ``fetch``, ``cached_parts``, ``available_parts``, ``file_status``. Text datasets (``card.kind == "text"``) give documents:
``load_text_folder`` reads a user's folder of class subfolders; ``TextFeatures`` and
``fit_transform_parts`` (:mod:`.text_features`) turn documents into CSR features, fitted on the
training documents only; ``TextPipeline`` (:mod:`.text_pipeline`) is that fitted pipeline as
a saved model keeps it (JSON and arrays), and featurizes new documents the same way.

Each name is imported from its module on first use (``data.names()`` reads cards and imports no
parser, scipy or pandas: ``multisvm datasets list`` stays quick); the data formats a card may
name are in :mod:`.formats`.
"""

from ..base.lazy import module_getattr

_HOMES = {
    ".cards": ("Card", "FileSpec", "Source", "get_card", "names"),
    ".errors": ("DatasetError",),
    ".inventory": ("available_parts", "cached_parts", "file_status"),
    ".loader": ("Dataset", "fetch", "load"),
    ".formats.text": ("load_text_folder",),
    ".local.files": ("LocalSpec", "load_local"),
    ".points": ("Columns", "read_points"),
    ".text.features": ("Features", "TextFeatures", "documents_digest", "fit_transform_parts"),
    ".text.pipeline": ("TextPipeline", "dataset_encoding"),
}
__getattr__ = module_getattr(__name__, _HOMES)
__all__ = sorted(name for names in _HOMES.values() for name in names)
