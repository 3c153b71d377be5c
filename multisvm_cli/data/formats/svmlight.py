"""``format: svmlight``: LIBSVM / SVMlight text, one point a line (``label index:value ...``,
indices from 1, or from 0 with ``zero_based: true``), read as float64 CSR
(:func:`..parsers.read_svmlight`).

A card's part has the card's ``n_features`` columns: it stacks its files, then keeps the cut's
``rows: [start, stop)``. A researcher's own file (``.svm``, ``.svmlight``, ``.libsvm``) has as
many features as the highest index in any of a dataset's files, bounded by what the data holds
(:func:`..bounds.check_feature_count`); its labels are whole numbers. A file to predict has
at most the model's feature columns (an index past them is refused), one-based unless the
model's training file was zero-based; each line's label is read (a whole number), to score
the predictions against.
"""

import re

from .. import parsers
from ..errors import DatasetError
from ..bounds import check_feature_count
from ..csv_file import whole_labels
from . import flag, sniff_lines

EXTENSIONS = (".svm", ".svmlight", ".libsvm")
OPTIONS = {"zero_based": flag(False, "svmlight: feature indices start at 0.")}
SPARSE = True
ORDER = 2
NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
LINE = re.compile(rf"{NUMBER}(?:\s+qid:\S+)?(?P<features>(?:\s+\d+:{NUMBER})*)\s*(?:#.*)?")


def sniff(first_bytes) -> bool:
    """Whether a file's first lines are svmlight lines (``label index:value ...``, an optional
    ``qid:``, a ``#`` comment), one with a feature at least: LIBSVM's ``dna.scale``."""
    lines = sniff_lines(first_bytes)
    matches = [LINE.fullmatch(line) for line in lines or ()]
    return bool(matches) and all(matches) and any(m.group("features") for m in matches)


def read_part(part):
    """(CSR X, y) of an svmlight part; each file is parsed once per source (``part.memo``)."""
    import numpy as np
    import scipy.sparse as sp

    for path in part.paths:
        if path not in part.memo:
            try:
                part.memo[path] = parsers.read_svmlight(
                    [path], part.card.n_features, bool(part.options.get("zero_based", False)))[0]
            except DatasetError as exc:
                raise DatasetError(f"{part.dataset}: {exc}") from None
    X = sp.vstack([part.memo[p][0] for p in part.paths], format="csr")
    labels = np.concatenate([part.memo[p][1] for p in part.paths])
    if "rows" in part.cut:
        start, stop = (int(n) for n in part.cut["rows"])
        X, labels = X[start:stop], labels[start:stop]
    return parsers.finish(X, labels, part.options, part.dataset)


def read_local(spec, files):
    """{part: (CSR X, y, first point's line, None)}: the files are read together, so that
    their columns are the union of theirs; DatasetError ``FILE:LINE:`` for a label that is not
    a whole number or an index that makes more features than the data holds."""
    parts = list(files)
    loaded = parsers.read_svmlight([files[p] for p in parts], None, spec.option("zero_based"))
    arrays = {}
    for part, (X, labels) in zip(parts, loaded):
        y = whole_labels(labels, lambda row, path=files[part]: f"{path}:{_data_line(path, row)}")
        arrays[part] = (X, y, _data_line(files[part], 0))
    check_feature_count(files, arrays, spec.option("zero_based"), _data_line)
    return {part: (*found, None) for part, found in arrays.items()}


def read_points(path, columns, memory_mb):
    """(CSR X, y) of a file to predict, of the model's ``columns.n_features`` columns
    (``memory_mb`` is for dense files: a sparse one is not made dense); DatasetError
    ``FILE:LINE:`` for a label that is not a whole number."""
    X, labels = parsers.read_svmlight([path], columns.n_features, columns.zero_based)[0]
    return X, whole_labels(labels, lambda row: f"{path}:{_data_line(path, row)}")


def _data_line(path, row):
    """The line number of the ``row``-th point (0-based) of an svmlight file."""
    seen = -1
    with open(path, "rb") as stream:
        for number, raw in enumerate(stream, 1):
            if raw.split(b"#", 1)[0].strip():
                seen += 1
                if seen == row:
                    return number
    return number if seen >= 0 else 1
