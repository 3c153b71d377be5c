"""A card's nominal columns and missing cells: the delimited source options that turn a table of
words and ``?`` into float64 features, the same for every part and fixed by the card.

Options (keys of a card source of ``format: delimited``; a column is its 0-based position in the
file, as ``label_column`` and ``feature_columns`` count):

- ``missing: TOKEN``: a cell that reads TOKEN (after stripping) is missing, e.g. ``"?"``;
- ``fill: {COLUMN: VALUE}``: the value a missing cell of COLUMN takes. The card states it (and
  says where it comes from, e.g. the training file's mode), so that every part, every fold and
  every later load read the same numbers. A missing cell of a column without one is refused;
- ``one_hot: {COLUMN: [VALUE, ...]}``: COLUMN becomes one 0/1 column per listed value, in that
  order, in its place among the features (a cell matches a value when their texts are equal: a
  YAML ``2`` matches the cell ``2``). A cell that is none of the values is refused.

A source with any of them is read as text (:func:`wanted`), every other feature cell parsed as
Python's ``float`` parses it; ``n_features`` of the card counts the expanded columns.
"""

from __future__ import annotations

from .errors import DatasetError

KEYS = ("missing", "fill", "one_hot")


def wanted(options) -> bool:
    """Whether the source's options declare nominal columns or missing cells."""
    return any(options.get(key) is not None for key in KEYS)


def encode(features, first_column, options, dataset):
    """float64 features of ``features`` (a DataFrame of str cells: the file's columns from
    ``first_column`` on) with the source's ``missing``, ``fill`` and ``one_hot`` applied (see the
    module docstring); DatasetError naming the column and a bad cell's row."""
    import numpy as np

    missing = options.get("missing")
    fill = _keyed(options.get("fill"), "fill", dataset)
    one_hot = _keyed(options.get("one_hot"), "one_hot", dataset)
    blocks = []
    for offset in range(features.shape[1]):
        column = first_column + offset
        cells = [str(cell).strip() for cell in features.iloc[:, offset]]
        if missing is not None:
            cells = _filled(cells, str(missing), fill.get(column), column, dataset)
        if column in one_hot:
            blocks.append(_indicators(cells, one_hot[column], column, dataset))
        else:
            blocks.append(_numbers(cells, column, dataset)[:, None])
    if not blocks:
        return np.empty((features.shape[0], 0))
    return np.ascontiguousarray(np.hstack(blocks), dtype=np.float64)


def _keyed(value, key, dataset) -> dict:
    """``{COLUMN: ...}`` with integer columns; DatasetError for another shape."""
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(c, int) and not isinstance(c, bool)
                                              for c in value):
        raise DatasetError(f"{dataset}: the card's {key} must map column numbers (0-based) to "
                           f"values, not {value!r}")
    return value


def _filled(cells, token, value, column, dataset) -> list:
    """``cells`` with each ``token`` replaced by ``value`` (as text); refused without one."""
    holes = [row for row, cell in enumerate(cells) if cell == token]
    if not holes:
        return cells
    if value is None:
        raise DatasetError(f"{dataset}: column {column} has a missing cell ({token!r}, data row "
                           f"{holes[0] + 1}) and the card gives no fill for it")
    text = str(value)
    return [text if cell == token else cell for cell in cells]


def _indicators(cells, values, column, dataset):
    """One 0/1 column per listed value; DatasetError for a cell that is none of them."""
    import numpy as np

    names = [str(value) for value in values]
    if not names or len(set(names)) != len(names):
        raise DatasetError(f"{dataset}: one_hot column {column} must list distinct values")
    index = {name: j for j, name in enumerate(names)}
    out = np.zeros((len(cells), len(names)))
    for row, cell in enumerate(cells):
        if cell not in index:
            raise DatasetError(f"{dataset}: column {column}, data row {row + 1}: {cell!r} is not "
                               f"one of the card's values {', '.join(names)}")
        out[row, index[cell]] = 1.0
    return out


def _numbers(cells, column, dataset):
    """The cells as floats; DatasetError naming the first that is not a number."""
    import numpy as np

    out = np.empty(len(cells))
    for row, cell in enumerate(cells):
        try:
            out[row] = float(cell)
        except ValueError:
            raise DatasetError(f"{dataset}: column {column}, data row {row + 1}: {cell!r} is not "
                               f"a number (a nominal column needs one_hot, a missing cell "
                               f"missing and fill)") from None
    return out
