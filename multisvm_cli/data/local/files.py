"""A researcher's own data files, named in a config instead of a registry dataset.

A config's ``dataset`` item ``{name: mine, path: data/mine.csv, ...}`` becomes a
:class:`LocalSpec`; :func:`load_local` reads it into the same :class:`~.loader.Dataset` a registry
dataset gives (parts ``train`` / ``test`` with a ``test_path``, else ``all``), with a
:class:`~.cards.Card` built from the data (classes, features, part sizes; paper scaling
``none``) and its provenance: each file's SHA-256 and size (and a csv header's feature names,
``columns``, which a saved model keeps to check the files it predicts).

Formats (``format``, else from the extension, or ``text`` for a folder): the local formats of
the format registry (:func:`..formats.config_names`: ``csv``, ``svmlight``, ``npz``, ``text``,
one module each in ``data/formats/``, whose docstring gives its rules and whose ``OPTIONS``
declare its read options); each module of files reads them (its ``read_local``), and this
module checks what every format must hold; a folder's module reads the whole dataset (its
``read_dataset``: ``text``, one subfolder per class, one document per file, loads as a text
dataset of documents and labels).

Bounds (:mod:`..bounds`): a file's bytes are bounded before it is hashed or read; a dense
format states a file's dense size before reading it and refuses it above ``memory_mb``; an
svmlight file's feature count is bounded by what the data holds. No per-feature Python object
is built (the card's columns are a ``range``).

Every problem is one :class:`DatasetError` line naming the file and the line (``FILE:LINE:``;
``FILE: row N`` for npz): a ragged row, a value that is not a number, NaN or inf, a missing
label column, one class only, an svmlight line that does not parse, a repeated index, index 0
in a one-based file, a missing file, a test file whose feature count is not the training
file's. A test file (``test_path``) is a second file checked against the first by one rule
(:mod:`..held_out`): refused when it holds the training file's bytes, when both have a header
and its feature names are not the training file's in its order (as a file to predict against
a model's), or when it has a class the training file lacks.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import formats, held_out
from ..bounds import MEMORY_MB, check_file_size
from ..cards import Card
from ..columns import ColumnOptions
from ..csv_file import check_names, read_csv  # noqa: F401 (API: read_csv)
from ..delimited import Lines
from ..errors import DatasetError
from ..loader import Dataset
from ..verify import sha256_file

TEST_PATH = "test_path"  # the key of a local dataset's test file: configs, resolved configs, models


@dataclass(frozen=True)
class LocalSpec:
    """Where a local dataset's files are and how to read them (see the module docstring).

    ``path`` and ``test_path`` are absolute; ``options`` holds the read options the config
    gave, among those its format's module declares (its ``OPTIONS``: ``label`` and ``header``
    csv, ``zero_based`` svmlight); :meth:`option` gives one, else its default.
    """

    name: str
    path: Path
    format: str
    test_path: Path | None = None
    options: dict = field(default_factory=dict)
    memory_mb: int = MEMORY_MB
    # a csv table's column options (..columns.ColumnOptions: a config's features:); None: the
    # defaults
    columns: object = None

    @property
    def parts(self) -> tuple:
        """The parts it gives: its own train/test split with a test file, else ``all``."""
        return ("train", "test") if self.test_path else ("all",)

    @property
    def sparse(self) -> bool:
        """Whether it loads as a scipy CSR matrix (its format's ``SPARSE``)."""
        return getattr(formats.module(self.format), "SPARSE", False)

    def option(self, key):
        """The read option ``key`` of its format: as given, else the format's default."""
        given = self.options.get(key)
        return formats.options(self.format)[key].default if given is None else given

    def read_options(self) -> dict:
        """The read options of its format (the module's ``OPTIONS``), each as given, else the
        format's default: what its provenance records."""
        return {key: self.option(key) for key in formats.options(self.format)}

    def files(self) -> dict:
        """Part -> file path."""
        if self.test_path:
            return {"train": self.path, "test": self.test_path}
        return {"all": self.path}

    def entry(self) -> dict:
        """The keys of its config entry (paths absolute), as the resolved config writes them
        and :meth:`from_entry` reads them back (model metadata)."""
        entry = {"path": str(self.path)}
        if self.test_path:
            entry[TEST_PATH] = str(self.test_path)
        entry["format"] = self.format
        entry.update({key: value for key, value in self.read_options().items()
                      if value is not None})
        if self.memory_mb != MEMORY_MB:
            entry["memory_mb"] = self.memory_mb
        if self.columns is not None and not self.columns.is_default:
            entry["features"] = self.columns.as_dict()
        return entry

    @classmethod
    def from_entry(cls, name, entry):
        """The spec of a resolved config entry (or of ``entry()``)."""
        test_path = entry.get(TEST_PATH)
        return cls(name=name, path=Path(entry["path"]), format=entry["format"],
                   test_path=Path(test_path) if test_path else None,
                   options={key: entry[key] for key in formats.options(entry["format"])
                            if key in entry},
                   memory_mb=int(entry.get("memory_mb", MEMORY_MB)),
                   columns=ColumnOptions.from_mapping(entry["features"])
                   if "features" in entry and entry["format"] == "csv" else None)


def load_local(spec: LocalSpec, parts=None) -> Dataset:
    """The dataset of ``spec``: every part (``parts`` is accepted for symmetry with
    :func:`.loader.load`; all files are read, since an svmlight file's columns are the union of
    them all), its card and its provenance; a folder's format reads the whole dataset itself
    (its ``read_dataset``). Raises DatasetError (see the module docstring)."""
    reader = formats.module(spec.format)
    if hasattr(reader, "read_dataset"):
        return reader.read_dataset(spec)
    files = spec.files()
    for path in files.values():
        if not Path(path).is_file():
            raise DatasetError(f"{path}: local data file of {spec.name} not found")
        check_file_size(path, spec.memory_mb)
    provenance = {part: _file_record(path) for part, path in files.items()}
    if spec.test_path:  # a copy of the training file: refused before either is read
        held_out.check_not_training(files["test"], files["train"], (
            provenance["test"]["sha256"], provenance["train"]["sha256"]))
    first = "train" if spec.test_path else "all"
    named = reader.read_local(spec, files)
    arrays = {part: found[:3] for part, found in named.items()}
    names = named[first][3]  # the training file's header, if it has one
    encoding = named[first][4] if len(named[first]) > 4 else None  # a csv table's
    _check_classes(files[first], arrays[first])
    _check_same_columns(files, arrays)
    loaded = {part: (X, y) for part, (X, y, _) in arrays.items()}
    if spec.test_path:
        loaded["test"] = (loaded["test"][0], _test_labels(files, named))
    keys = _file_keys(files)
    return Dataset(
        name=spec.name, card=_card(spec, loaded), parts=loaded,
        checksums={keys[part]: provenance[part]["sha256"] for part in files},
        sources={keys[part]: f"local {files[part]}" for part in files}, source_id="local",
        provenance={"format": spec.format, **spec.read_options(),
                    **({"columns": names} if names else {}), **_prepared(spec, encoding),
                    "files": {keys[part]: {"part": part, **provenance[part]} for part in files}},
        encoding=encoding)


def _prepared(spec, encoding) -> dict:
    """What the provenance (run.json, the resume cache's key) records of a csv table's
    columns: its column options and the line saying what was done (nothing for a table that
    needed nothing: a numeric file's provenance is as it was)."""
    if encoding is None:
        return {}
    options = spec.columns if spec.columns is not None else ColumnOptions()
    return {"features": options.as_dict(), "prepared": encoding.note()}


def cache_identity(dataset) -> dict:
    """What identifies a local dataset's data in the resume cache: each file's SHA-256 and size
    and how it was read (not where it lies: a moved file keeps its cached points; nor its
    header's names, which the checksum covers)."""
    files = {key: {"sha256": f["sha256"], "size": f["size"], "part": f["part"]}
             for key, f in dataset.provenance["files"].items()}
    return {**{k: v for k, v in dataset.provenance.items() if k not in ("files", "columns")},
            "files": files}


def _file_record(path):
    path = Path(path)
    return {"path": str(path), "sha256": sha256_file(path), "size": os.path.getsize(path)}


def _file_keys(files):
    """Part -> the file's name as checksums name it (the full path when two names collide)."""
    names = [Path(path).name for path in files.values()]
    return {part: Path(path).name if names.count(Path(path).name) == 1 else str(path)
            for part, path in files.items()}


def _card(spec, parts) -> Card:
    classes = sorted(set().union(*(np.unique(y).tolist() for _, y in parts.values())),
                     key=lambda c: (str(type(c)), c))
    n_features = next(iter(parts.values()))[0].shape[1]
    where = ", ".join(str(p) for p in spec.files().values())
    return Card(name=spec.name, title=f"local {spec.format} data {where}",
                description=f"Local {spec.format} file(s) {where}.", n_classes=len(classes),
                n_features=n_features, classes=tuple(classes),
                split="fixed" if spec.test_path else "none",
                parts={part: len(y) for part, (_, y) in parts.items()}, paper_scaling="none",
                continuous_columns=range(n_features), sources=(), path=spec.path,
                folder=spec.name, origin="local")


def _check_classes(path, arrays):
    X, y, first_line = arrays
    classes = np.unique(y)
    if len(classes) < 2:
        shown = classes[0].item() if len(classes) else None
        raise DatasetError(f"{path}:{first_line}: the label column has one class ({shown!r}) in "
                           f"all {len(y)} rows; a classifier needs two or more")


def _test_labels(files, named):
    """The test file's labels, kept as the training file's are (:func:`..held_out.
    matched_labels`); DatasetError naming the test file when its header's feature names are
    not the training file's (both with a header: by the rule a file to predict follows,
    :func:`..csv_file.check_names`), or it has classes the training file lacks."""
    (_, y_train, _, train_names), (_, y_test, _, test_names) = (named["train"][:4],
                                                                 named["test"][:4])
    if train_names is not None and test_names is not None:
        check_names(files["test"], Lines(files["test"])[0], test_names, train_names,
                    "the training file's")
    return held_out.matched_labels(files["test"], files["train"], y_test, y_train)


def _check_same_columns(files, arrays):
    """DatasetError naming the test file when its feature count is not the training file's
    (checked at load, before any run folder is written)."""
    widths = {part: X.shape[1] for part, (X, _, _) in arrays.items()}
    if len(set(widths.values())) > 1:
        raise DatasetError(f"{files['test']}:{arrays['test'][2]}: {widths['test']} feature "
                           f"columns, but the training file {files['train']} has "
                           f"{widths['train']}; the test file needs the same columns")
