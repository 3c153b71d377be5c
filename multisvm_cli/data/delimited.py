"""Delimited text (CSV, whitespace-separated columns): the one reader of a dataset card's
``format: delimited`` files (:mod:`.formats.delimited`, through :func:`.parsers.read_table`)
and of a user's csv files (:mod:`.csv_file`).

pandas' C parser reads the file, and both callers accept the same files:

- UTF-8 text, with or without a byte-order mark, gzip-compressed or not (told by its magic
  bytes, :func:`compression`);
- fields separated by ``,`` (quoted as RFC 4180: a field in double quotes may hold the
  separator, a line break or a doubled quote), or with ``sep="whitespace"`` by runs of spaces
  and tabs;
- a row whose fields are all empty (an empty line, ``,,``, spaces) is skipped;
- every other row has as many fields as the first (with ``n_columns``: at least that many, and
  the fields past it are ignored).

Anything else is one :class:`DatasetError` line ``FILE:LINE: what is wrong`` (``FILE: ...``
when no line can be named). pandas does not say at which row it stopped, so the file is scanned
line by line (:func:`records`) only to point at a bad row: when pandas refuses the file, when the
table has a hole (a missing field: perhaps a short row), and when a caller asks a row's line
(:class:`Lines`, which scans no further than that row).
"""

from __future__ import annotations

import csv
import gzip
import io
import warnings

from .errors import DatasetError

WHITESPACE = "whitespace"
GZIP_MAGIC = b"\x1f\x8b"


def read(path, sep=",", header=False, n_columns=None, text=False, floats=(), texts=()):
    """The table of ``path`` as a pandas DataFrame with columns 0..k-1 (see the module
    docstring); ``header``: the first row names the columns and is dropped. ``text``: every
    cell a str with its surrounding whitespace stripped, else pandas' inferred dtypes (numbers
    as int64 / float64, parsed exactly as Python's ``float`` parses them; an empty or ``NA``
    field as NaN). ``floats``: columns (0-based) read as float64, a field that is not a number
    refused; ``texts``: columns read as str (as written; an empty or ``NA`` field as NaN).
    ``table.attrs["blank_rows"]``: how many blank rows pandas parsed and this dropped.
    DatasetError for a file that breaks the module's rules."""
    table = _parse(path, sep, header, n_columns, text, (floats, texts))
    holes = table.eq("") if text else table.isna()
    if holes.to_numpy().any():  # a short row (pandas fills it), a blank row or an empty field
        _raise_first_bad_row(path, table.shape[1], {"sep": sep, "n_columns": n_columns})
        cells = table if text else _parse(path, sep, header, n_columns, True, ((), ()))
        blank = cells.eq("").all(axis=1).to_numpy()
        if blank.any():
            table = table[~blank].reset_index(drop=True)
            table.attrs["blank_rows"] = int(blank.sum())
    return table


def _parse(path, sep, header, n_columns, text, dtypes):
    """pandas' parse of the file (text: str cells, stripped; ``dtypes``: the columns read as
    float64, and those read as str, where not ``text``); DatasetError naming the first
    bad row (or what pandas says) when it fails. A file pandas refuses only for a blank row with
    more separators than the first row (``,,,``) is parsed again without its blank rows."""
    import numpy as np
    import pandas as pd

    kwargs = {"sep": r"\s+" if sep == WHITESPACE else sep, "header": 0 if header else None,
              "skip_blank_lines": True, "index_col": False}
    if n_columns:
        kwargs.update(names=list(range(n_columns)), usecols=list(range(n_columns)))
    if text:
        kwargs.update(dtype=str, keep_default_na=False, na_filter=False)
    elif any(dtypes):
        kwargs.update(dtype={**{j: np.float64 for j in dtypes[0]}, **{j: str for j in dtypes[1]}})
    try:
        with warnings.catch_warnings():  # a row longer than the header: refused, not cut
            warnings.simplefilter("error", pd.errors.ParserWarning)
            try:
                table = pd.read_csv(path, compression=compression(path), **kwargs)
            except pd.errors.ParserError:
                _raise_first_bad_row(path, None, {"sep": sep, "n_columns": n_columns})
                table = pd.read_csv(_without_blank_rows(path, sep), **kwargs)
    except (ValueError, OSError, EOFError, UnicodeDecodeError, pd.errors.ParserError,
            pd.errors.ParserWarning) as exc:
        _raise_first_bad_row(path, None, {"sep": sep, "n_columns": n_columns})
        raise DatasetError(f"{path}: cannot parse ({_first_line(exc)})") from None
    table.columns = range(table.shape[1])
    return table.apply(lambda column: column.str.strip()) if text else table


def _without_blank_rows(path, sep):
    """The file's rows that are not blank, as text pandas reads with the same options."""
    text = io.StringIO()
    if sep == WHITESPACE:
        text.writelines(" ".join(fields) + "\n" for _, fields in records(path, sep))
    else:
        csv.writer(text, delimiter=sep, lineterminator="\n").writerows(
            fields for _, fields in records(path, sep))
    text.seek(0)
    return text


def first_rows(path, count, sep=","):
    """The first ``count`` rows that are not blank, each a list of stripped fields (the line
    scan: the rest of the file is not read)."""
    rows = []
    for _, fields in records(path, sep):
        rows.append([field.strip() for field in fields])
        if len(rows) == count:
            break
    return rows


def compression(path):
    """``"gzip"`` for a file that starts with gzip's magic bytes, else None (plain text)."""
    with open(path, "rb") as stream:
        return "gzip" if stream.read(2) == GZIP_MAGIC else None


def records(path, sep=",", n_columns=None):
    """(line number, fields) of each row that is not blank, in order: the line scan. A row's
    line is the line it ends on (a quoted field may span lines). DatasetError for text that is
    not UTF-8 or not csv (``FILE:LINE:``)."""
    try:
        opener = gzip.open if compression(path) == "gzip" else open
        with opener(path, "rt", encoding="utf-8-sig", newline="") as stream:
            if sep == WHITESPACE:
                for number, line in enumerate(stream, 1):
                    fields = line.split()
                    if fields:
                        yield number, fields[:n_columns] if n_columns else fields
                return
            reader = csv.reader(stream, delimiter=sep)
            try:
                for fields in reader:
                    if any(field.strip() for field in fields):
                        yield reader.line_num, fields[:n_columns] if n_columns else fields
            except csv.Error as exc:
                raise DatasetError(f"{path}:{reader.line_num}: not csv ({exc})") from None
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") \
            from None
    except (OSError, EOFError) as exc:
        raise DatasetError(f"{path}: cannot read ({_first_line(exc)})") from None


class Lines:
    """The line number of each row that is not blank (0-based: ``lines[0]`` is the first row's
    line), from the line scan, read no further than the highest row asked for."""

    def __init__(self, path, sep=",", n_columns=None):
        self._scan = records(path, sep, n_columns)
        self._seen = []

    def __getitem__(self, row: int) -> int:
        while len(self._seen) <= row:
            number, _ = next(self._scan)
            self._seen.append(number)
        return self._seen[row]


def _raise_first_bad_row(path, width, scan):
    """DatasetError at the first row without the expected fields (``width``, or the first
    row's), or for a file with no rows; returns when every row is well formed."""
    first = None
    for number, fields in records(path, **scan):
        if first is None:
            first = (number, width or len(fields))
        count, (first_line, expected) = len(fields), first
        if count < expected if scan["n_columns"] else count != expected:
            raise DatasetError(f"{path}:{number}: {count} fields, expected {expected} as on line "
                               f"{first_line}; every row needs the same columns")
    if first is None:
        raise DatasetError(f"{path}: empty file (no rows)")


def _first_line(exc):
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
