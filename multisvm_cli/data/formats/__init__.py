"""Data formats: a format's name -> the module that reads it, for dataset cards and for a
researcher's own files alike.

:data:`FORMATS` maps each format name to its module. Every module of this package whose name
does not start with ``_`` is a format of that name (``formats/delimited.py`` is ``format:
delimited``), found by listing the package (:func:`listed`), so adding a format is one new file here; a
format defined elsewhere (a plug-in, a test) is added with :func:`register`. A format's module
is imported when a file of it is read or the formats are listed (:func:`names`,
:func:`local_names`); its heavy libraries (scipy, pandas) only when it reads.

A card's format (a card source's ``format``) defines ``read_part(part) -> (X, y)``: ``part``
is a :class:`Part` (the card, its source, the part's name and cut, its raw files' specs and
checked local paths, and a memo shared by the parts of one source); ``X`` is float64 (n,
n_features) or scipy CSR, or for a text card an object array of n str documents, and ``y`` the
n labels (int64 or str, as the card's ``classes``). The loader checks (X, y) against the card
afterwards (:func:`..verify.check_part`) and caches it; a reader raises
:class:`..errors.DatasetError` (one line naming the file) for a file it cannot read. Its module
docstring documents the card options it reads. It may also define ``check_file`` (see
:func:`file_check`).

A local format (a config's local dataset ``format:``) reads a researcher's own files or
folder. A format of files (``multisvm predict --format`` too) defines:

- ``EXTENSIONS``: the file extensions (lower case, the usual one first) that tell the format
  of a file given without ``format`` (:func:`infer_format`);
- ``sniff(first_bytes) -> bool`` (optional): whether a file's first bytes
  (:data:`SNIFF_BYTES`) look like this format, for a file whose extension is none of a
  format's (:func:`infer_format`; a text format reads them with :func:`sniff_lines`);
- ``read_local(spec, files) -> {part: (X, y, first line, names)}``: the points of a
  :class:`..local.files.LocalSpec`'s files (``files``: part -> path, each checked to exist and
  bounded in bytes): X float64 or scipy CSR, y int64 or str, the line of the first point (for
  messages) and the feature columns' names (None: not known);
- ``read_points(path, columns, memory_mb) -> (X, y or None)``: the points of a file to predict
  and their labels where the file holds them, as :func:`..points.read_points` describes.

A format of a folder (``text``: one subfolder per class) defines instead
``read_dataset(spec) -> Dataset``, the whole dataset (card, parts, checksums, provenance),
and ``KIND`` (the card kind it gives, ``text``); a config's path that is a folder is one.

Either may define ``OPTIONS``: its read options, ``{key: Option}``, declared there only: a
config's local dataset may give them (:func:`option_owners`, checked by ``Option.holds``),
the LocalSpec reads them (:meth:`..local.files.LocalSpec.option`), its provenance and a saved
model's entry record them (the ``default`` where not given). And ``SPARSE = True`` (it loads as
scipy CSR), ``ORDER`` (where it is listed among the local formats, in messages and
``--format``; default: after those that set it, by name) and ``NOT_IN_CARDS`` (the one line
that refuses a card naming it, :func:`card_format`). A card format may be a local format too
(``svmlight``).
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ...base.readers import not_regular
from ..errors import DatasetError

LAST = 1000  # the ORDER of a local format whose module sets none
SNIFF_BYTES = 65536  # how much of a file a format's ``sniff`` sees


def listed() -> dict:
    """Format name -> module name, for every module of this package's folder (``__path__``)
    whose name does not start with ``_``."""
    return {module.name: f"{__name__}.{module.name}" for module in pkgutil.iter_modules(__path__)
            if not module.name.startswith("_")}


FORMATS = listed()


@dataclass(frozen=True)
class Part:
    """One part to read: ``card`` and ``source`` (:mod:`..cards`), the part's ``name``, the
    ``specs`` (FileSpecs) of its raw files in order and their checked local ``paths``, and
    ``memo``: a dict shared by the parts of one source read together (a reader stores a parsed
    file there under its own key to parse it once; a verified archive's members are there under
    the archive's file name, :mod:`..archives`)."""

    card: object
    source: object
    name: str
    specs: tuple
    paths: tuple
    memo: dict

    @property
    def cut(self) -> dict:
        """How the part is cut from the files (the source's ``parts: {name: cut}``)."""
        return self.source.parts[self.name]

    @property
    def options(self) -> dict:
        """The source's parser options (its keys other than id, format, files, parts)."""
        return self.source.options

    @property
    def dataset(self) -> str:
        """The dataset's name, for error messages."""
        return self.card.name


@dataclass(frozen=True)
class Option:
    """A read option of a local format: ``default``, the value used and recorded when a config
    does not give it; ``expected``, what a value must be (for messages); ``holds(value)``,
    whether a given value is one; ``meaning`` and ``shown``: the config reference's description
    and default (None: ``default`` as written)."""

    default: object
    expected: str
    holds: Callable
    meaning: str = ""
    shown: str | None = None


def flag(default, meaning="", shown=None) -> Option:
    """A true-or-false read option."""
    return Option(default, "true or false", lambda value: isinstance(value, bool), meaning, shown)


def names() -> tuple:
    """The format names a card may use (those whose module defines ``read_part``), sorted."""
    return tuple(sorted(name for name in FORMATS if hasattr(module(name), "read_part")))


def local_names() -> tuple:
    """The format names a researcher's own file may have (those whose module defines
    ``read_local``), in the modules' ``ORDER``, then by name."""
    local = [name for name in FORMATS if hasattr(module(name), "read_local")]
    return tuple(sorted(local, key=lambda name: (getattr(module(name), "ORDER", LAST), name)))


def config_names() -> tuple:
    """The format names a config's local dataset may give: the local formats of files and
    those of a folder (whose module defines ``read_dataset``), in ``ORDER``, then by name."""
    local = [name for name in FORMATS if hasattr(module(name), "read_local")
             or hasattr(module(name), "read_dataset")]
    return tuple(sorted(local, key=lambda name: (getattr(module(name), "ORDER", LAST), name)))


def options(name: str) -> dict:
    """The read options of local format ``name``, ``{key: Option}`` (its module's ``OPTIONS``)."""
    return dict(getattr(module(name), "OPTIONS", {}))


def option_owners() -> dict:
    """Every local format's read option -> the formats that read it (a tuple), in
    :func:`config_names` order: the keys a config's local dataset may add."""
    owners = {}
    for name in config_names():
        for key in options(name):
            owners[key] = owners.get(key, ()) + (name,)
    return owners


def card_format(name) -> str:
    """``name`` when a card's source may use it (:func:`names`); else ValueError, one line: the
    module's ``NOT_IN_CARDS`` where it has one (``text``, a config's folder of documents, names
    the card format ``delimited``), else the card formats."""
    if name in names():
        return name
    message = getattr(module(name), "NOT_IN_CARDS", None) if name in FORMATS else None
    raise ValueError(message or f"format must be one of {', '.join(names())}, not {name!r}")


def infer_format(path) -> str | None:
    """The local format of the file ``path``, by the one rule every reader of a user's file
    shares (``predict``, ``evaluate --dataset``, ``compare``, a config's ``dataset:``): the
    format whose ``EXTENSIONS`` hold its extension (in any case); else, for an existing file
    whose extension says nothing (``dna.scale``, ``dna.scale.t``, ``.txt``, none), the one
    format whose ``sniff`` takes its first :data:`SNIFF_BYTES`; None when it cannot be told
    (no format's, or several formats', content)."""
    suffix = Path(path).suffix.lower()
    by_name = next((name for name in local_names() if suffix in module(name).EXTENSIONS), None)
    if by_name is not None or not Path(path).is_file():
        return by_name
    with open(path, "rb") as file:
        first = file.read(SNIFF_BYTES)
    sniffed = [name for name in local_names() if getattr(module(name), "sniff", None)
               and module(name).sniff(first)]
    return sniffed[0] if len(sniffed) == 1 else None


def given_or_told(path, fmt, option) -> str:
    """``fmt`` when given, else :func:`infer_format`'s format of ``path``; else DatasetError,
    one line naming ``option``, where the user gives the format (``--input-format`` on the
    command line, ``format:`` in a config). A path that exists but is neither a file nor a
    folder (a FIFO, a device) is refused as such, before any byte is read."""
    if Path(path).exists() and not (Path(path).is_file() or Path(path).is_dir()):
        raise DatasetError(not_regular(path, "data file"))
    fmt = fmt or infer_format(path)
    if fmt is None:
        *others, last = local_names()
        raise DatasetError(f"cannot tell the format of {Path(path).name} from its extension or "
                           f"its first lines; give {option} {', '.join(others)} or {last}")
    return fmt


def sniff_lines(first_bytes: bytes) -> list | None:
    """The non-blank lines (stripped) of a file's ``first_bytes`` as UTF-8 text (a byte-order
    mark dropped), without a last line the read may have cut; None when they are not text.
    For a format's ``sniff``."""
    try:
        text = first_bytes.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    if "\0" in text:
        return None
    lines = text.splitlines()
    if len(first_bytes) >= SNIFF_BYTES and len(lines) > 1:
        lines = lines[:-1]
    return [line.strip() for line in lines if line.strip()]


def register(name: str, module: str) -> None:
    """Add the format ``name``, read by the importable module ``module`` (its ``read_part``,
    ``read_local``); ValueError when ``name`` is taken by another module."""
    if FORMATS.get(name, module) != module:
        raise ValueError(f"data format {name!r} is already read by {FORMATS[name]}")
    FORMATS[name] = module


def module(name: str):
    """The module of format ``name`` (imported on first use); DatasetError for an unknown
    name."""
    if name not in FORMATS:
        raise DatasetError(f"unknown data format {name!r}; known: {', '.join(names())}")
    return importlib.import_module(FORMATS[name])


def reader(name: str):
    """The ``read_part`` function of card format ``name``."""
    return module(name).read_part


def file_check(name: str):
    """The ``check_file(card, source, spec, path)`` of format ``name``, or None when it has
    none: a format may define it to check a downloaded raw file whose SHA-256 the card cannot
    know (its structure and labels) before the file is kept; it raises DatasetError."""
    return getattr(module(name), "check_file", None)


def read_part(card, source, part, paths, memo) -> tuple:
    """(X, y) of ``part`` of ``card``'s ``source``, its raw files at ``paths`` (file name ->
    local path), by the source format's reader."""
    specs = tuple(source.files_for(part))
    request = Part(card, source, part, specs, tuple(Path(paths[s.name]) for s in specs), memo)
    return reader(source.format)(request)
