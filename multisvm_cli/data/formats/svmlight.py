"""``format: svmlight``: LIBSVM / SVMlight text, one point a line (``label index:value ...``,
indices from 1, or from 0 with ``zero_based: true``), read as float64 CSR with the card's
``n_features`` columns (:func:`..parsers.read_svmlight`). A part stacks its files, then keeps
the cut's ``rows: [start, stop)``."""

import numpy as np

from .. import parsers
from ..errors import DatasetError


def read_part(part):
    """(CSR X, y) of an svmlight part; each file is parsed once per source (``part.memo``)."""
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
