"""``format: csv``, a researcher's own file (``.csv``): comma-separated, one point a row.

``label`` names the label column (needs a header) or gives its 0-based index (negative counts
from the end; default: the last column). A header row is used when ``header: true``, or,
without ``header``, when the first row has a non-number where the second row has a number
and no number where it has one (a first row of numbers and one word is data, and its word
refused). Features must be finite numbers (``6_7`` is not one); labels are whole numbers or
names. Read by
:mod:`..csv_file` through :mod:`..delimited`, by the rules a card's text file follows
(UTF-8 with or without a byte-order mark, gzip or not, RFC 4180 quotes, blank rows skipped).
A file's dense size is stated before it is read and refused above ``memory_mb``.

A file to predict (:func:`..points.csv_points`) has the model's feature columns, and may have
its label column too (read as the points' labels).
"""

import csv

from ...base.numeric import is_int
from ..bounds import check_dense_size, csv_shape
from ..csv_file import check_label_spellings
from ..points import csv_points
from . import Option, flag, sniff_lines

EXTENSIONS = (".csv",)
OPTIONS = {"label": Option(-1, "a column name or a 0-based index",
                          lambda value: isinstance(value, str) or is_int(value),
                          "csv: the label column, by name or 0-based index.", "the last column"),
           "header": flag(None, "csv: whether the first row names the columns (true/false).",
                          "detected")}
ORDER = 1


def sniff(first_bytes) -> bool:
    """Whether a file's first lines are comma-separated rows of one width, two cells or more
    (features and a label)."""
    lines = sniff_lines(first_bytes)
    widths = {len(row) for row in csv.reader(lines or ())}
    return len(widths) == 1 and widths.pop() >= 2


def read_local(spec, files):
    """{part: (X, y, first data line, the header's feature names or None, its
    :class:`..encoding.Encoding` or None)}, every file's dense size checked before any is
    read, the columns read under the spec's column options (:mod:`..columns`, a test file's
    as its training file's: :func:`..table_parts.read_parts`); a test file's numeric labels
    spelled as the training file's (:func:`..csv_file.check_label_spellings`)."""
    from ..table_parts import read_parts  # and its columns' modules, when a table is read

    for path in files.values():
        check_dense_size(path, csv_shape(path), spec.memory_mb)
    named = read_parts(files, spec.columns, spec.option("label"), spec.option("header"))
    if "test" in named and all(named[p][1].dtype.kind == "i" for p in ("train", "test")):
        check_label_spellings(files["test"], files["train"], spec.option("label"),
                              spec.option("header"))
    return named


def read_points(path, columns, memory_mb):
    """(X, y or None) of a csv file to predict (:func:`..points.csv_points`)."""
    check_dense_size(path, csv_shape(path), memory_mb)
    return csv_points(path, columns)
