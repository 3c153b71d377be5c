"""A csv table's columns as they come: text columns, missing cells and columns to drop.

:class:`ColumnOptions` holds what the user says (``compare --drop/--categorical/--missing/
--unseen``, a config's ``features:`` of a csv dataset): the columns to ``drop`` (by header
name), the ``categorical`` columns (``auto``: each column whose cells are all text; or the
named ones), what to do with ``missing`` cells (``refuse``, ``drop`` their rows, ``impute``)
and with a test file's categories the training part never saw (``unseen``: ``refuse`` or
``zeros``, all-zero one-hot columns).

:func:`table_columns` applies it to a file's cells (read as text by :mod:`.csv_file`). A
missing cell is one of :data:`MISSING` (``NA``, empty, ``?``, ``nan`` and pandas' other NA
spellings). What is done once per file (dropping columns, dropping rows with missing cells,
deciding each column's kind) happens here; what is fitted (the one-hot categories, the
imputed values) is fitted on each training part inside the protocol (:mod:`.encoding`).

Refused, each in one :class:`DatasetError` line: a ``--drop`` or ``--categorical`` name that
is no column (with a did-you-mean); a column of numbers and words (a typo, named as a bad
number); a text column of many distinct values (a name, an id: :func:`_check_not_an_id`); a
missing cell under ``refuse`` (the line names the three options); under ``impute``, a column
missing in every row.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ..base.suggest import did_you_mean
from .csv_file import Kept, checked_numbers, is_number
from .errors import DatasetError

# pandas' default NA spellings (read_csv's na_values) and "?", UCI's
MISSING = frozenset({"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
                     "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a",
                     "nan", "null", "?"})
MISSING_CHOICES = ("refuse", "drop", "impute")
UNSEEN_CHOICES = ("refuse", "zeros")
AUTO = "auto"
ID_LIMIT = 10  # a text column of more distinct values than this and than half its rows: an id


@dataclass(frozen=True)
class ColumnOptions:
    """How a csv table's columns are read (see the module docstring)."""

    drop: tuple = ()
    categorical: object = AUTO  # "auto" or a tuple of column names
    missing: str = "refuse"
    unseen: str = "refuse"

    @classmethod
    def from_mapping(cls, value) -> "ColumnOptions":
        """The options of a ``features:`` mapping (drop, categorical, missing, unseen; a list
        may be written as one comma-separated text); DatasetError (one line) otherwise."""
        if not isinstance(value, dict):
            raise DatasetError(f"features: expected a mapping of {', '.join(FIELDS)}, got "
                               f"{value!r}")
        unknown = [key for key in value if key not in FIELDS]
        if unknown:
            raise DatasetError(f"features: unknown key {unknown[0]!r} for a csv table; keys: "
                               f"{', '.join(FIELDS)}{did_you_mean(unknown[0], FIELDS)}")
        drop = _names(value.get("drop", ()), "drop")
        categorical = value.get("categorical", AUTO)
        categorical = AUTO if categorical == AUTO else _names(categorical, "categorical")
        return cls(drop, categorical, _choice(value, "missing", MISSING_CHOICES),
                   _choice(value, "unseen", UNSEEN_CHOICES))

    def as_dict(self) -> dict:
        """The options as a config's ``features:`` writes them (lists as lists)."""
        written = asdict(self)
        written["drop"] = list(self.drop)
        if self.categorical != AUTO:
            written["categorical"] = list(self.categorical)
        return written

    @property
    def is_default(self) -> bool:
        return self == ColumnOptions()


FIELDS = ("drop", "categorical", "missing", "unseen")


def _names(value, key) -> tuple:
    """Column names: a list of texts, or one comma-separated text."""
    if isinstance(value, str):
        value = [name.strip() for name in value.split(",") if name.strip()]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v for v in value):
        raise DatasetError(f"features: {key}: expected column names (a list, or NAME,NAME,...), "
                           f"got {value!r}")
    return tuple(value)


def _choice(value, key, choices) -> str:
    chosen = value.get(key, choices[0])
    if chosen not in choices:
        raise DatasetError(f"features: {key}: expected one of {', '.join(choices)}, got "
                           f"{chosen!r}")
    return chosen


@dataclass(frozen=True)
class Table:
    """A file's features after :func:`table_columns`: ``X`` (float64 when no cell is text or
    missing, else an object array of floats, texts and NaN), the rows kept (indices into the
    file's data rows), the feature ``names`` kept, the ``categorical`` positions among them,
    and what was done (``dropped_columns``, ``dropped_rows``, ``missing``: columns with a
    missing cell)."""

    X: np.ndarray
    rows: np.ndarray
    names: tuple
    categorical: tuple
    dropped_columns: tuple
    dropped_rows: int
    missing: tuple


def table_columns(path, cells, lines, names, features, options) -> Table:
    """The :class:`Table` of the feature columns ``features`` (positions in ``cells``, the
    file's data cells as stripped text; ``names``: the header's, or None; ``lines``: each
    row's line number) under ``options`` (see the module docstring for what is refused)."""
    kept = _kept(path, lines, names, features, options.drop)
    shown = [names[j] if names else f"column {j}" for j in kept]
    block = cells[:, kept]
    absent = np.isin(block, list(MISSING))
    text = _text_columns(path, lines, names, block, absent, kept, options.categorical)
    rows = np.arange(len(block))
    if absent.any():
        rows = _missing_rows(path, lines, shown, absent, options.missing)
        block, absent = block[rows], absent[rows]
    missing = tuple(shown[j] for j in np.flatnonzero(absent.any(axis=0)))
    check_numbers(path, Kept(lines, rows), cells[rows], absent, [kept[j] for j in text],
                   kept, names)
    X = table_values(block, absent, text)
    dropped = tuple(names[j] if names else f"column {j}" for j in features if j not in kept)
    return Table(X, rows, tuple(shown), tuple(text), dropped, len(cells) - len(rows), missing)


def _kept(path, lines, names, features, drop) -> list:
    """The feature positions left once ``drop``'s columns are dropped."""
    if drop and names is None:
        raise DatasetError(f"{path}:{lines[0]}: --drop names columns, but the file has no "
                           f"header row")
    for name in drop:
        if name not in names:
            raise DatasetError(f"{path}:{lines[0]}: --drop {name}: no such column; the columns "
                               f"are {', '.join(names)}{did_you_mean(name, names)}")
    return [j for j in features if names is None or names[j] not in drop]


def _text_columns(path, lines, names, block, absent, kept, categorical) -> list:
    """The positions (in ``block``) of the categorical columns: the named ones, or (``auto``)
    those whose present cells are all text; a column of numbers and text is refused at its
    first text cell, and an automatic one of many distinct values (:func:`_check_not_an_id`)."""
    named = categorical != AUTO
    if named:
        _check_named(path, lines, names, kept, categorical)
    found = []
    for j, column in enumerate(block.T):
        present = column[~absent[:, j]]
        if named:
            if names[kept[j]] in categorical:
                found.append(j)
            continue
        numbers = np.fromiter((is_number(c) for c in present), bool, len(present))
        if numbers.all():
            continue
        if numbers.any():
            row = np.flatnonzero(~absent[:, j])[np.flatnonzero(~numbers)[0]]
            raise DatasetError(f"{path}:{lines[row]}: {_column(kept[j], names)}: "
                               f"{str(column[row])!r} is not a number (a column of numbers; "
                               f"--categorical NAME,... reads it as categories)")
        _check_not_an_id(path, lines, _column(kept[j], names), present)
        found.append(j)
    return found


def _check_named(path, lines, names, kept, categorical):
    """DatasetError for a ``--categorical`` name that is no (kept) column."""
    if names is None:
        raise DatasetError(f"{path}:{lines[0]}: --categorical names columns, but the file has "
                           f"no header row")
    known = [names[j] for j in kept]
    for name in categorical:
        if name not in known:
            raise DatasetError(f"{path}:{lines[0]}: --categorical {name}: no such feature "
                               f"column; the columns are {', '.join(known)}"
                               f"{did_you_mean(name, known)}")


def _check_not_an_id(path, lines, column, present):
    """DatasetError for a text column of more than :data:`ID_LIMIT` distinct values and more
    than half its rows: a name or an id, which one-hot columns would only memorise."""
    distinct = len(set(present.tolist()))
    if distinct > ID_LIMIT and 2 * distinct > len(present):
        raise DatasetError(f"{path}:{lines[0]}: {column} has {distinct} distinct texts in "
                           f"{len(present)} rows (a name or an id?), too many for categories: "
                           f"--drop it (or --categorical it, to one-hot it anyway)")


def _missing_rows(path, lines, shown, absent, missing) -> np.ndarray:
    """The rows kept under ``missing`` (all of them to impute, those with no missing cell to
    drop); DatasetError under ``refuse``, and to impute a column missing in every row."""
    counts = absent.sum(axis=0)
    if missing == "refuse":
        row, j = np.argwhere(absent)[0]
        raise DatasetError(f"{path}:{lines[row]}: {shown[j]} is missing ({int(absent.any(1).sum())}"
                           f" rows have a missing cell); --missing drop (drop those rows), "
                           f"impute (median / most frequent) or refuse (the default)")
    if missing == "impute":
        empty = np.flatnonzero(counts == len(absent))
        if empty.size:
            raise DatasetError(f"{path}:{lines[0]}: {shown[empty[0]]} is missing in every row: "
                               f"nothing to impute it from; --drop it")
        return np.arange(len(absent))
    return np.flatnonzero(~absent.any(axis=1))


def check_numbers(path, lines, cells, absent, text, kept, names):
    """DatasetError at the first cell of a kept numeric column (not in ``text``) of the file's
    ``cells`` that is not a finite number in bounds (:func:`.csv_file.checked_numbers`;
    missing cells aside)."""
    filled = cells.copy()
    filled[:, kept] = np.where(absent, "0", cells[:, kept])
    checked_numbers(path, filled, lines, [j for j in kept if j not in text], names)


def table_values(block, absent, text):
    """float64 of a block with no text column and no missing cell; else an object array:
    numbers as floats, texts as they are, missing cells NaN."""
    if not text and not absent.any():
        return block.astype(np.float64)
    X = np.empty(block.shape, dtype=object)
    for j, column in enumerate(block.T):
        X[:, j] = column if j in text else np.where(absent[:, j], "nan", column).astype(float)
    X[absent] = np.nan
    return X


def _column(j, names):
    return f"column {j} ({names[j]!r})" if names else f"column {j}"
