"""A researcher's csv file (see :mod:`.formats.csv` for the rules): features and a label
column, an optional header, every value checked; read by :func:`.delimited.read`."""

from . import delimited
from .errors import DatasetError
from .bounds import first_too_large, largest_value
from ..base.suggest import did_you_mean

# Header names that say "this column is the label", compared in lower case: `multisvm compare`
# takes such a column without --label (and says so), and refuses a header with none of them.
LABEL_NAMES = ("label", "labels", "class", "classes", "target", "y", "species", "category",
               "outcome", "diagnosis")

def read_csv(path, label=None, header=None):
    """(X float64, y, first data line) of a csv file (see the module docstring)."""
    return read_csv_named(path, label, header)[:3]


def read_csv_named(path, label=None, header=None):
    """(X float64, y, first data line, the feature columns' header names or None) of a csv
    file (see the module docstring), read by :func:`.delimited.read` (a card's text files
    follow the same rules). pandas' numbers are used as they are when every feature is a
    finite number in bounds; otherwise the cells are read as text and checked one by one, to
    name the first bad one."""
    import numpy as np

    head, header, lines = _opened(path, header)
    names, first_line, width = (head[0] if header else None), lines[0], len(head[0])
    data_lines = _After(lines, 1) if header else lines
    try:
        if width < 2:
            raise DatasetError(f"{path}:{data_lines[0]}: one column only; need features and a "
                               "label")
        column = label_column(path, names, width, label, first_line)
    except DatasetError:
        delimited.read(path, text=True)  # a ragged row further down is reported first
        raise
    features = [j for j in range(width) if j != column]
    feature_names = None if names is None else [names[j] for j in features]
    quick = _from_numbers(path, header, features, column, data_lines)
    if quick is not None:
        return (*quick, data_lines[0], feature_names)
    cells = delimited.read(path, text=True).to_numpy(dtype=str)[1 if header else 0:]
    X = checked_numbers(path, cells, data_lines, features, names)
    y = csv_labels(path, np.asarray(cells[:, column].tolist(), dtype=str), data_lines)
    return X, y, data_lines[0], feature_names


class Kept:
    """The line numbers of the rows ``rows`` (indices into a file's data rows)."""

    def __init__(self, lines, rows):
        self.lines, self.rows = lines, rows

    def __getitem__(self, row):
        return self.lines[int(self.rows[row])]


def csv_table(path, header=None):
    """(cells as text, their line numbers, the header's names or None, the first line) of a
    csv file read by :func:`.delimited.read` (every row as wide as the first, at least one data
    row); ``header`` None: told from the first two rows (see the module docstring)."""
    head, header, lines = _opened(path, header)
    cells = delimited.read(path, text=True).to_numpy(dtype=str)[1 if header else 0:]
    return cells, _After(lines, 1) if header else lines, head[0] if header else None, lines[0]


def csv_head(path):
    """(the header row's names, or None when the first row is data (told as :func:`read_csv`
    tells it), the number of columns) of a csv file; DatasetError for an empty file or a header
    with no data."""
    head, header, _ = _opened(path, None)
    return head[0] if header else None, len(head[0])


def label_like(names) -> list:
    """The names among a header's ``names`` that are one of :data:`LABEL_NAMES` (any case,
    surrounding spaces ignored), in the header's order."""
    return [name for name in names if name.strip().lower() in LABEL_NAMES]


def _opened(path, header):
    """(the first two rows, whether the first is a header, the rows' line numbers) of a csv
    file: ``header`` None is told from the first two rows (see the module docstring).
    DatasetError for an empty file, or a header row with no data row under it."""
    head = delimited.first_rows(path, 2)
    if not head:
        raise DatasetError(f"{path}: empty file (no rows)")
    header = _looks_like_header(head) if header is None else header
    lines = delimited.Lines(path)
    if header and len(head) < 2:
        raise _header_only(path, lines[0])
    if header:
        _check_distinct_names(path, lines[0], head[0])
    return head, header, lines


def _check_distinct_names(path, line, names):
    """DatasetError when the header gives two columns one name (a label or feature column
    named twice could not be told apart)."""
    first = {}
    for j, name in enumerate(names):
        if name in first:
            raise DatasetError(f"{path}:{line}: columns {first[name]} and {j} are both named "
                               f"{name!r}; each column of the header needs its own name")
        first[name] = j


def _from_numbers(path, header, features, column, lines):
    """(X, y) from pandas' parse, or None when a feature is not a number (as Python reads one),
    not finite or too large, or a label is missing or neither text nor a number: the
    cell-by-cell check then names the first bad cell. Columns pandas read as integers (also
    those it filled with NaN for a blank row) are parsed again as float64, so that ``-0`` keeps
    its sign as Python's ``float`` gives it."""
    import numpy as np

    try:
        table = delimited.read(path, header=header, texts=(column,))
        if not all(_kind(table[j]) in "iuf" for j in features):
            return None
        again = features if table.attrs.get("blank_rows") else \
            [j for j in features if _kind(table[j]) in "iu"]
        if again:
            table = delimited.read(path, header=header, floats=again, texts=(column,))
    except DatasetError:
        return None
    X = np.ascontiguousarray(table.iloc[:, features].to_numpy(dtype=np.float64))
    labels = table[column]
    if not np.isfinite(X).all() or first_too_large(X) is not None or labels.isna().any():
        return None
    return X, csv_labels(path, labels.to_numpy(dtype=object), lines)  # read as str: texts


def _kind(column):
    """The numpy kind of a pandas column's dtype ("O" for pandas' own dtypes)."""
    return getattr(column.dtype, "kind", "O")


class _After:
    """The line numbers of rows ``skip``, ``skip + 1``, ... of a :class:`.delimited.Lines`."""

    def __init__(self, lines, skip):
        self.lines, self.skip = lines, skip

    def __getitem__(self, row):
        return self.lines[row + self.skip]


def is_number(text):
    """Whether a cell is a number: what Python's ``float`` reads, less its digit-group
    underscores (``6_7`` is no number, not 67)."""
    if "_" in text:
        return False
    try:
        float(text)
    except ValueError:
        return False
    return True


def _looks_like_header(rows):
    """A header: the first row has a non-number above a number of the second row, and no
    number above a number (``5.1,abc,1.4`` above numbers is a data row whose ``abc`` is then
    refused, not a header); a file of one row is a header when none of its cells is a number."""
    if len(rows) < 2:
        return not any(is_number(cell) for cell in rows[0])
    above = [(is_number(a), is_number(b)) for a, b in zip(rows[0], rows[1])]
    return (False, True) in above and (True, True) not in above


def _header_only(path, line):
    return DatasetError(f"{path}:{line}: a header row and no data rows; add the data rows "
                        f"below it")


def label_column(path, names, width, label, line):
    """The 0-based position of the label column ``label`` (a header name, an index, negative
    from the end, or None: the last) of a file of ``width`` columns; DatasetError when there is
    no such column (a misspelt name gets the closest header name as a did-you-mean)."""
    if label is None:
        return width - 1
    if isinstance(label, str):
        if names is None:
            raise DatasetError(f"{path}:{line}: label column {label!r} is named but the file "
                               f"has no header row; give its index or set header: true")
        if label not in names:
            raise DatasetError(f"{path}:{line}: no label column {label!r}; the columns are "
                               f"{', '.join(names)}{did_you_mean(label, names)}")
        return names.index(label)
    if not -width <= label < width:
        raise DatasetError(f"{path}:{line}: no label column {label}; the file has {width} "
                           f"columns (0..{width - 1}, or -1 for the last)")
    return label % width


def checked_numbers(path, table, lines, columns, names):
    """The feature columns as float64; DatasetError at the first non-number, NaN or inf."""
    import numpy as np

    block = table[:, columns]
    try:  # numpy reads "6_7" as 67, as Python's float does: the cell check refuses it
        X = None if np.char.count(block, "_").any() else block.astype(np.float64)
    except ValueError:
        X = None
    if X is None:
        for i, row in enumerate(block):
            for j, cell in enumerate(row):
                if not is_number(cell):
                    raise DatasetError(f"{path}:{lines[i]}: {_column_name(columns[j], names)}: "
                                       f"{str(cell)!r} is not a number")
    bad = np.argwhere(~np.isfinite(X))
    if bad.size:
        i, j = bad[0]
        raise DatasetError(f"{path}:{lines[i]}: {_column_name(columns[j], names)}: "
                           f"{str(block[i, j])!r} is NaN or inf; fill in or drop missing values")
    if (found := first_too_large(X)) is not None:
        i, j = found
        raise DatasetError(f"{path}:{lines[i]}: {_column_name(columns[j], names)}: "
                           f"{str(block[i, j])!r} {TOO_LARGE.format(largest_value(X.shape[1]))}")
    return np.ascontiguousarray(X)


TOO_LARGE = ("is too large: a kernel's sum of squares overflows above |x| = {:.3g}; rescale "
              "the data")


def _column_name(j, names):
    return f"column {j} ({names[j]!r})" if names else f"column {j}"


def csv_labels(path, labels, lines):
    """Whole-number labels as int64, else the names as a unicode array, of the label cells
    ``labels`` (str, their surrounding whitespace ignored); DatasetError for an empty label, a
    number that is not whole, and two spellings of one number (``1`` and ``1.0``, ``007`` and
    ``7``: one class as numbers, two as names), refused naming both. Each distinct spelling is
    checked once (pandas' ``factorize``, in order of first row)."""
    import numpy as np
    import pandas as pd

    codes, spellings = pd.factorize(np.asarray(labels, dtype=object))
    stripped = [spelling.strip() for spelling in spellings]
    if stripped != list(spellings):  # " 1" and "1" are one spelling
        again, spellings = pd.factorize(np.asarray(stripped, dtype=object))
        codes = again[codes]
    first_rows = np.empty(len(spellings), dtype=np.int64)
    first_rows[codes[::-1]] = np.arange(len(codes) - 1, -1, -1)  # each spelling's first row
    if "" in spellings:
        raise DatasetError(f"{path}:{lines[first_rows[list(spellings).index('')]]}: the label "
                           f"is empty")
    numeric = [is_number(v) for v in spellings]
    _check_spellings(path, lines, [(v, first_rows[k]) for k, v in enumerate(spellings)
                                   if numeric[k]])
    if not all(numeric):
        return np.asarray(spellings, dtype=str)[codes]
    values = whole_labels(np.asarray(spellings, dtype=np.float64),
                          lambda k: f"{path}:{lines[first_rows[k]]}")
    return values[codes]


def _check_spellings(path, lines, spellings):
    """DatasetError when two of the numeric label ``spellings`` ((spelling, first row) pairs,
    in order of first row) are one number."""
    seen = {}
    for spelling, row in spellings:
        number = float(spelling)
        if number in seen:
            earlier, first = seen[number]
            raise DatasetError(f"{path}:{lines[row]}: label {spelling!r} is the same number as "
                               f"label {earlier!r} (line {lines[first]}): two spellings of one "
                               f"class; write each class's label one way")
        seen[number] = (spelling, row)


def check_label_spellings(test, train, label=None, header=None) -> None:
    """DatasetError (one line naming both spellings and files) when a numeric label of the csv
    file ``test`` is written otherwise in ``train`` (``1.0`` and ``1``, ``7`` and ``007``): both
    read as one class, as two spellings within one file would (:func:`csv_labels`)."""
    first = _label_spellings(train, label, header)
    for number, spelling in _label_spellings(test, label, header).items():
        if number in first and first[number] != spelling:
            raise DatasetError(f"{test}: label {spelling!r} is the same number as label "
                               f"{first[number]!r} in {train}: two spellings of one class; "
                               f"write each class's label one way in both files")


def _label_spellings(path, label, header) -> dict:
    """{number: spelling} of the numeric labels of a csv file (stripped, each number once)."""
    head, header, lines = _opened(path, header)
    column = label_column(path, head[0] if header else None, len(head[0]), label, lines[0])
    cells = delimited.read(path, header=header, texts=(column,))[column].dropna()
    return {float(s): s for s in dict.fromkeys(str(c).strip() for c in cells) if is_number(s)}


def whole_labels(values, where):
    """Numeric labels as int64; DatasetError at the first that is not a whole number."""
    import numpy as np

    values = np.asarray(values, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(values) | (values != np.round(values)))
    if bad.size:
        raise DatasetError(f"{where(int(bad[0]))}: label {values[bad[0]]:g} is not a whole "
                           f"number; classes must be whole numbers or names")
    return values.astype(np.int64)


def check_names(path, line, found, expected, whose="the model's"):
    """DatasetError at the first feature column whose header name (``found``) is not the
    ``expected`` one (``whose``: a model's columns, or a test file's training file's): the one
    rule for a second file's header (:mod:`.points`, :mod:`.held_out`)."""
    for position, (got, wanted) in enumerate(zip(found, expected)):
        if got != wanted:
            raise DatasetError(f"{path}:{line}: feature column {position} is {got!r}, {whose} "
                               f"is {wanted!r}; the file needs {whose} columns "
                               f"({', '.join(expected[:5])}{', ...' if len(expected) > 5 else ''})"
                               f" in its order, or no header row")
