"""A user's file of points to predict (``multisvm predict``): its feature columns, read by its
format's module (a local format of the registry :mod:`.formats`: its ``read_points``) and
checked against the columns a model was trained on (:class:`Columns`). Labels in the file are
not needed; where present (a csv file's label column, an svmlight line's label, an npz file's
``y``) they are read too, so that the predictions can be scored against them.

The format is ``fmt``, else told from the extension or the content
(:func:`.formats.infer_format`; else refused, naming :data:`FORMAT_OPTION`); each
format's module docstring says what a file of it holds (a csv file: :func:`csv_points`). A
folder of documents is predicted only by a model trained on documents, which keeps its fitted
text pipeline (:mod:`.text.pipeline`; read there, not here), so it is refused here: these are
the points of a model of feature vectors.

Each file's values are checked as local data's are (finite numbers, none too large for a kernel),
and a dense file's size is stated before it is read and refused above ``memory_mb``.
Every problem is one :class:`DatasetError` line naming the file (and the line where there is one).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import delimited, formats
from .errors import DatasetError
from .bounds import MEMORY_MB
from .csv_file import check_names, checked_numbers, csv_labels, csv_table, label_column

FORMAT_OPTION = "--input-format"  # how predict and evaluate --dataset are given a file's format


@dataclass(frozen=True)
class Columns:
    """The feature columns a model takes: how many, their names (None: not known), the label
    column of the csv it was trained on (a name or an index; None: the last), whether its
    svmlight file was zero-based, whether that label column was named by the user
    (``multisvm predict --label``: then a csv file without it is refused), and for a model
    trained on a csv table that needed encoding, its saved
    :class:`.fitted_columns.FittedColumns` (``table``: then ``n_features`` and ``names`` are
    the table's columns, before encoding, and the file must be csv: :mod:`.table_points`)."""

    n_features: int
    names: tuple | None = None
    label: str | int | None = None
    zero_based: bool = False
    label_given: bool = False
    table: object = None


def read_points(path, columns: Columns, fmt=None, memory_mb=MEMORY_MB):
    """(X, y) of the file ``path``: its points as a float64 matrix of ``columns.n_features``
    columns (dense, or scipy CSR for a sparse format: svmlight), in the file's order, and their
    labels (int64 or str; None when the file holds none; see the module docstring);
    DatasetError (one line) for a missing, unreadable or malformed file, a folder, or columns
    that are not the model's."""
    path = Path(path)
    if path.is_dir():
        raise DatasetError(f"{path} is a folder: a folder of documents is predicted only by a "
                           f"model trained on documents, and this one takes "
                           f"{columns.n_features} numeric features; give a "
                           f"{_either(formats.local_names())} file of them")
    if not path.is_file():
        raise DatasetError(f"{path}: file not found")
    fmt = formats.given_or_told(path, fmt, FORMAT_OPTION)
    if columns.table is not None and fmt != "csv":
        raise DatasetError(f"{path}: a {fmt} file, but the model was trained on a csv table "
                           f"whose columns it encodes ({', '.join(columns.names[:5])}"
                           f"{', ...' if columns.n_features > 5 else ''}); give a csv file of "
                           "them")
    return formats.module(fmt).read_points(path, columns, memory_mb)


def _either(items):
    """``a, b or c``."""
    return " or ".join([", ".join(items[:-1]), items[-1]] if len(items) > 1 else items)


def csv_points(path, columns):
    """(X, y) of a csv file to predict: a file of ``n_features`` columns is all features (y
    None; refused when ``columns.label_given``); one of ``n_features + 1`` columns also holds a
    label column (y): ``columns.label`` (a name or index: the model's training csv's, or the
    user's), else the last. A header row
    is told as for local data (a non-number above a number, and no number above one); the
    field count is checked on the first row before any value is parsed. When the file has a
    header, its feature columns' names must be the model's (``Columns.names``: a local
    training csv's header names, else its card's ``feature_names``, else ``x0``, ``x1``, ...),
    in its order. A model trained on a csv table that needed encoding reads the file by
    :func:`.table_points.table_points` instead."""
    import numpy as np

    if columns.table is not None:
        from .table_points import table_points

        return table_points(path, columns)
    n = columns.n_features
    _check_width(path, n)  # on the first row, before any value is parsed
    rows, lines, names, first_line = csv_table(path)
    width, y = len(rows[0]), None
    if width == n and columns.label_given:
        raise DatasetError(f"{path}:{first_line}: no label column {columns.label!r}: the file "
                           f"has only the model's {n} feature columns; drop --label")
    label = -1 if columns.label is None else columns.label
    if isinstance(label, str) and names is None and width > n:  # predict's words, not a config's
        raise DatasetError(f"{path}:{first_line}: label column {label!r} is named but the file "
                           f"has no header row; give its index with --label (0..{width - 1}), "
                           "or add the header row")
    dropped = label_column(path, names, width, label, first_line) if width > n else None
    features = [j for j in range(width) if j != dropped]
    if names is not None and columns.names is not None:
        check_names(path, first_line, [names[j] for j in features], columns.names)
    table = np.array(rows, dtype=str)
    if dropped is not None:
        y = csv_labels(path, table[:, dropped], lines)
    return checked_numbers(path, table, lines, features, names), y


def _check_width(path, n):
    """DatasetError unless the csv file's first row has ``n`` or ``n + 1`` fields (every row
    must have as many): read alone, so that a row of 200,000 fields is refused at once."""
    head = delimited.first_rows(path, 1)
    width = len(head[0]) if head else n  # an empty file: refused by the reader
    if width not in (n, n + 1):
        raise DatasetError(f"{path}:{delimited.Lines(path)[0]}: {width} columns, but the model "
                           f"takes {n} features; give its {n} feature columns (or {n + 1} with "
                           f"the label column)")

