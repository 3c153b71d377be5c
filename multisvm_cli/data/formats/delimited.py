"""``format: delimited``: delimited text files read by pandas (:func:`..parsers.read_table`).

Options: ``sep`` ("," or "whitespace"), ``header``, ``n_columns`` (read only the first n fields
of each line), ``label_column`` and ``feature_columns: [start, stop)`` (0-based positions),
``label_type``, ``label_offset``, ``values`` (:data:`..parsers.VALUE_TRANSFORMS`), and for
nominal columns and missing cells ``missing``, ``fill`` and ``one_hot`` (:mod:`..nominal`). A gzip file
is detected by its magic bytes. A part concatenates its files, then keeps the cut's
``where: {column, equals}`` rows and ``rows: [start, stop)``. A file with a card
``structure: {rows, columns}`` is refused when its table has another shape.
"""

from .. import parsers
from ..errors import DatasetError
from ..verify import check_structure


def read_part(part):
    """(X float64, y) of a text part; each file is parsed once per source (``part.memo``)."""
    for spec, path in zip(part.specs, part.paths):
        if spec.name not in part.memo:
            part.memo[spec.name] = parsers.read_table(path, part.options, part.dataset)
            check_structure(spec, part.memo[spec.name], part.dataset)
    X, labels = parsers.cut_text_part([part.memo[s.name] for s in part.specs], part.cut,
                                      part.options, part.dataset)
    return parsers.finish(X, labels, part.options, part.dataset)


def check_file(card, source, spec, path):
    """A downloaded file whose SHA-256 the card cannot know: its rows and columns (the card's
    ``structure``) and labels (all of them the card's classes), or DatasetError."""
    table = parsers.read_table(path, source.options, card.name)
    check_structure(spec, table, card.name)
    labels = parsers.convert_labels(table[int(source.options["label_column"])].to_numpy(),
                                    source.options, card.name)
    unknown = set(labels.tolist()) - set(card.classes)
    if unknown:
        raise DatasetError(f"{card.name}: {spec.name} has labels not in the card: "
                           f"{sorted(map(str, unknown))[:5]}; refused")
