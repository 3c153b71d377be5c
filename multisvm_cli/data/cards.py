"""Dataset cards: one small YAML file per dataset in the top-level ``datasets/`` folder.

A card declares the dataset (classes, features, parts and their sizes, the paper's scaling, the
continuous columns, optionally its features' names: ``feature_names``, which a header of a file
its models predict must give) and one or more *sources*: distributions of the same data (e.g. USPS as ESL
text or as HDF5), each with its files (name, SHA-256, URL), the parser options, and how each part
is cut from the files. Every source of a card must give the same arrays.
"""

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from ..base.errors import one_line
from ..base.yaml_loader import read_yaml
from . import formats, locations
from .errors import DatasetError
from .text.options import check_archive_source

SPLITS = ("fixed", "none")
KINDS = ("numeric", "text")
HEX = frozenset("0123456789abcdef")
SCALINGS = ("none", "minmax", "standard", "standard-continuous", "maxabs")
MAX_CARD_BYTES = 1 << 20        # a card is a page of YAML (read through the bounded loader)


@dataclass(frozen=True)
class FileSpec:
    """One raw file of a source.

    ``sha256`` holds the accepted digests; empty means the canonical digest cannot be known
    here, so the file is checked by its ``structure`` (rows, columns) and labels instead.
    ``size`` holds the accepted sizes in bytes (one per accepted variant; empty: unknown): a
    download stops at the first byte past the largest and a file of another size is refused.
    ``download`` says whether ``url`` is a direct download (False: a page needing a login, or
    a file to unpack by hand). ``package`` names an installed package that ships the file.
    ``tree_sha256`` holds the accepted tree digests of an archive (``format: archive``; see
    :mod:`.archives`), checked instead of the archive's own bytes. ``gunzip``: ``url`` serves
    the file gzip-compressed, and the decompressed bytes are checked (size, SHA-256);
    ``uncompress``: the same for a file served Unix-compressed (``.Z``, :mod:`.unix_compress`).
    ``max_size``: a download of a file whose exact size is unknown stops past it (bytes).
    """

    name: str
    sha256: tuple
    size: tuple
    url: str | None
    download: bool
    structure: tuple | None
    package: str | None
    tree_sha256: tuple = ()
    gunzip: bool = False
    max_size: int | None = None
    uncompress: bool = False

    @property
    def packing(self):
        """The suffix of the compressed form ``url`` serves (``.gz``, ``.Z``), or None."""
        return ".gz" if self.gunzip else ".Z" if self.uncompress else None

    @property
    def digests(self):
        """The accepted digests: SHA-256 of the bytes, else the archive's tree digests."""
        return self.sha256 or self.tree_sha256


@dataclass(frozen=True)
class Source:
    """One distribution of a dataset: its files, parser options and part definitions.

    ``parts`` maps a part name to its cut: ``files`` (default: all files, concatenated),
    ``rows: [start, stop]`` (0-based, half-open), ``where: {column, equals}``, ``group`` (HDF5).
    """

    id: str
    format: str
    options: dict
    files: tuple
    parts: dict
    fetcher: str | None
    fingerprint: str

    def file(self, name):
        return next(spec for spec in self.files if spec.name == name)

    def files_for(self, part):
        """The FileSpecs the part is read from, in order."""
        names = self.parts[part].get("files") or [spec.name for spec in self.files]
        return [self.file(name) for name in names]

    def provides(self, parts):
        return all(part in self.parts for part in parts)


@dataclass(frozen=True)
class Card:
    """A dataset's declaration (see the module docstring); ``parts`` maps part -> row count.

    ``folder`` is the dataset's subfolder in a mirror, in an HTTP mirror and in the data home
    (default: the name; ``covtype`` for covertype, as in ``../shared/datasets``). ``origin``
    says where the card comes from: ``registry`` (shipped), ``user`` (a ``--cards`` folder) or
    ``local`` (built from a local data file, :mod:`.local`). ``kind``: ``numeric`` (X is a
    float64 array or CSR matrix) or ``text`` (X is an object array of str documents,
    ``n_features`` 0; features come from :mod:`.text_features`)."""

    name: str
    title: str
    description: str
    n_classes: int
    n_features: int
    classes: tuple
    split: str
    parts: dict
    paper_scaling: str
    continuous_columns: tuple
    sources: tuple
    path: Path
    folder: str
    origin: str = "registry"
    kind: str = "numeric"
    feature_names: tuple | None = None

    @property
    def binary_columns(self):
        """Columns left as they are by ``standard-continuous`` (1-of-n codes)."""
        continuous = set(self.continuous_columns)
        return tuple(j for j in range(self.n_features) if j not in continuous)

    @property
    def files(self):
        """Every file any source can read, in card order."""
        return tuple(spec for source in self.sources for spec in source.files)

    @property
    def urls(self):
        return {spec.name: spec.url for spec in self.files if spec.url}

    @property
    def sha256s(self):
        return {spec.name: spec.sha256 for spec in self.files if spec.sha256}

    def source(self, source_id):
        for source in self.sources:
            if source.id == source_id:
                return source
        known = ", ".join(s.id for s in self.sources)
        raise DatasetError(f"{self.name}: unknown source {source_id!r} (known: {known})")


def card_paths():
    """Dataset name -> (card file, origin) for the registry's cards and, when a user cards
    folder is set (``--cards`` / ``MULTISVM_CARDS``), the user's. DatasetError for a user folder
    that is not a folder, or a user card with a registry card's name (it would replace it
    silently)."""
    paths = {path.stem: (path, "registry") for path in locations.cards_dir().glob("*.yaml")}
    user = locations.user_cards()
    if user is None:
        return paths
    if not user.is_dir():
        raise DatasetError(f"user cards folder {user} (--cards / MULTISVM_CARDS) is not a folder")
    for path in sorted(user.glob("*.yaml")):
        if path.stem in paths:
            raise DatasetError(f"user card {path} has the name of the registry dataset "
                               f"{path.stem!r}; a user card may not replace it: rename the file "
                               f"and its name:")
        paths[path.stem] = (path, "user")
    return paths


def names():
    """The dataset names (registry and user cards), sorted."""
    return sorted(card_paths())


def get_card(name):
    """The Card of dataset ``name``; DatasetError for an unknown name or a malformed card."""
    paths = card_paths()
    if not isinstance(name, str) or name not in paths:
        raise DatasetError(f"unknown dataset {name!r}; known datasets: {', '.join(sorted(paths))}")
    path, origin = paths[name]
    try:
        stamp = path.stat().st_mtime_ns
    except OSError as exc:
        raise DatasetError(f"cannot read dataset card {path}: {exc.strerror}") from None
    return _read_card(path, origin, stamp)


@functools.lru_cache(maxsize=None)
def _read_card(path, origin, stamp):
    """The card at ``path`` (cached per file version: ``stamp`` is its modification time)."""
    raw = read_yaml(path, MAX_CARD_BYTES, DatasetError, "dataset card")
    try:
        return _card(raw, path, origin)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        message = one_line(exc)
        raise DatasetError(f"malformed dataset card {path}: {message}") from None


def _card(raw, path, origin="registry"):
    card = Card(
        name=str(raw["name"]),
        title=str(raw["title"]),
        description=one_line(raw["description"]),
        n_classes=int(raw["n_classes"]),
        n_features=int(raw["n_features"]),
        classes=tuple(raw["classes"]),
        split=_one_of(raw["split"], SPLITS, "split"),
        parts={str(k): int(v) for k, v in raw["parts"].items()},
        paper_scaling=_one_of(raw["paper_scaling"], SCALINGS, "paper_scaling"),
        continuous_columns=_columns(raw["continuous_columns"], int(raw["n_features"])),
        sources=tuple(_source(s) for s in raw["sources"]),
        path=path,
        folder=plain_name(raw.get("folder", raw["name"]), "folder"),
        origin=origin,
        kind=_one_of(raw.get("kind", "numeric"), KINDS, "kind"),
        feature_names=_feature_names(raw.get("feature_names"), int(raw["n_features"])),
    )
    if card.name != path.stem or len(card.classes) != card.n_classes:
        raise ValueError("name must match the file name and classes must have n_classes entries")
    for source in card.sources:
        if not set(source.parts) <= set(card.parts):
            raise ValueError(f"source {source.id} defines parts the card does not declare")
    return card


def _source(raw):
    files = tuple(_file(f) for f in raw["files"])
    parts = {str(k): dict(v or {}) for k, v in raw["parts"].items()}
    names = {f.name for f in files}
    for part, cut in parts.items():
        if not set(cut.get("files") or []) <= names:
            raise ValueError(f"source {raw['id']} part {part} names a file it does not list")
    structural = ("id", "format", "files", "parts", "fetcher")
    options = {k: v for k, v in raw.items() if k not in structural}
    if raw["format"] == "archive":
        check_archive_source(raw["id"], options, parts)
    return Source(
        id=str(raw["id"]),
        format=formats.card_format(raw["format"]),
        options=options,
        files=files,
        parts=parts,
        fetcher=raw.get("fetcher"),
        fingerprint=json.dumps(raw, sort_keys=True, default=str),
    )


def _file(raw):
    return FileSpec(
        name=plain_name(raw["name"], "file name"),
        sha256=_digests(raw, "sha256"),
        size=_sizes(raw.get("size"), raw["name"]),
        url=raw.get("url"),
        download=bool(raw.get("download", raw.get("url") is not None)),
        structure=_structure(raw.get("structure")),
        package=raw.get("package"),
        tree_sha256=_digests(raw, "tree_sha256"),
        gunzip=raw.get("gunzip", False) is True,
        max_size=(_sizes(raw.get("max_size"), raw["name"]) or (None,))[0],
        uncompress=_uncompress(raw),
    )


def _uncompress(raw):
    """``uncompress: true`` (the url serves a .Z); refused beside ``gunzip: true``."""
    if raw.get("uncompress", False) is True and raw.get("gunzip", False) is True:
        raise ValueError(f"file {raw['name']}: gunzip and uncompress exclude each other")
    return raw.get("uncompress", False) is True


def _digests(raw, field):
    """``field: HEX`` or ``[HEX, ...]`` -> a tuple of lower-case 64-digit hex strings; () when
    absent. Anything else (an unquoted 000...0 that YAML reads as the number 0, a short or
    non-hex string) is refused, never taken as "no digest"."""
    if field not in raw or raw[field] is None:
        return ()
    value = raw[field]
    digests = tuple(value) if isinstance(value, list) else (value,)
    if not digests or not all(isinstance(d, str) and len(d) == 64 and set(d.lower()) <= HEX
                              for d in digests):
        raise ValueError(f"file {raw['name']}: {field} must be a 64-digit hex string or a list "
                         f"of them (quote it), not {value!r}")
    return tuple(d.lower() for d in digests)


def _sizes(raw, name):
    """``size: N`` or ``size: [N, M]`` (bytes) -> a tuple of positive ints; () when absent."""
    sizes = () if raw is None else tuple(raw) if isinstance(raw, list) else (raw,)
    if any(isinstance(n, bool) or not isinstance(n, int) or n <= 0 for n in sizes):
        raise ValueError(f"file {name}: size must be a positive number of bytes or a list of them")
    return sizes


def _structure(raw):
    """``{rows, columns}`` -> (rows, columns), or None."""
    return (int(raw["rows"]), int(raw["columns"])) if raw else None


def plain_name(value, field):
    """``value`` when it is a plain relative name (one path component: not empty, not ``.`` or
    ``..``, no ``/``, ``\\`` or NUL), so that joined to the data home or a mirror it stays
    inside it; ValueError naming ``field`` otherwise."""
    name = str(value)
    if name in ("", ".", "..") or any(c in name for c in "/\\\0") or Path(name).is_absolute():
        raise ValueError(f"{field} {name!r} must be a plain name (no '/', '..' or absolute "
                         f"path): the dataset's files stay inside the data home")
    return name


def _one_of(value, allowed, field):
    if value not in allowed:
        raise ValueError(f"{field} must be one of {', '.join(allowed)}, not {value!r}")
    return value


def _feature_names(value, n_features):
    """A card's ``feature_names``: None, or ``n_features`` distinct non-empty strings."""
    if value is None:
        return None
    if not (isinstance(value, list) and len(value) == n_features and len(set(value)) == n_features
            and all(isinstance(name, str) and name.strip() for name in value)):
        raise ValueError(f"feature_names must list {n_features} distinct names, one a feature")
    return tuple(value)


def _columns(value, n_features):
    if value == "all":
        return range(n_features)       # no per-feature objects, however many features
    columns = tuple(int(j) for j in value)
    if any(not 0 <= j < n_features for j in columns):
        raise ValueError("continuous_columns out of range")
    return columns
