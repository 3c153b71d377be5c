"""Data formats: a dataset card source's ``format`` -> the reader of its parts.

:data:`FORMATS` maps each format name to the module that reads it. Every module of this package
whose name does not start with ``_`` is a format of that name (``formats/text.py`` is
``format: text``), found by listing the package, so adding a format is one new file here; a
format defined elsewhere (a plug-in, a test) is added with :func:`register`. Nothing is imported
until a card of the format is read: listing the formats (a card's check, ``multisvm datasets
list``) loads no parser.

A format module defines ``read_part(part) -> (X, y)``: ``part`` is a :class:`Part` (the card,
its source, the part's name and cut, its raw files' specs and checked local paths, and a memo
shared by the parts of one source); ``X`` is float64 (n, n_features) or scipy CSR, or for a text
card an object array of n str documents, and ``y`` the n labels (int64 or str, as the card's
``classes``). The loader checks (X, y) against the card afterwards (:func:`..verify.check_part`)
and caches it; a reader raises :class:`..errors.DatasetError` (one line naming the file) for a
file it cannot read. Its module docstring documents the card options it reads. It may also
define ``check_file`` (see :func:`file_check`).
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from pathlib import Path

from ..errors import DatasetError

FORMATS = {module.name: f"{__name__}.{module.name}" for module in pkgutil.iter_modules(__path__)
           if not module.name.startswith("_")}


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


def names() -> tuple:
    """The format names a card may use, sorted."""
    return tuple(sorted(FORMATS))


def register(name: str, module: str) -> None:
    """Add the format ``name``, read by the importable module ``module`` (its ``read_part``);
    ValueError when ``name`` is taken by another module."""
    if FORMATS.get(name, module) != module:
        raise ValueError(f"data format {name!r} is already read by {FORMATS[name]}")
    FORMATS[name] = module


def reader(name: str):
    """The ``read_part`` function of format ``name`` (its module imported on first use)."""
    if name not in FORMATS:
        raise DatasetError(f"unknown data format {name!r}; known: {', '.join(names())}")
    return importlib.import_module(FORMATS[name]).read_part


def file_check(name: str):
    """The ``check_file(card, source, spec, path)`` of format ``name``, or None when it has
    none: a format may define it to check a downloaded raw file whose SHA-256 the card cannot
    know (its structure and labels) before the file is kept; it raises DatasetError."""
    return getattr(importlib.import_module(FORMATS[name]), "check_file", None)


def read_part(card, source, part, paths, memo) -> tuple:
    """(X, y) of ``part`` of ``card``'s ``source``, its raw files at ``paths`` (file name ->
    local path), by the source format's reader."""
    specs = tuple(source.files_for(part))
    request = Part(card, source, part, specs, tuple(Path(paths[s.name]) for s in specs), memo)
    return reader(source.format)(request)
