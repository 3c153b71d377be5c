"""``format: sklearn``: data shipped inside scikit-learn, read by the ``sklearn.datasets``
function named by the option ``loader`` (``load_iris``, ...). The source's file (a ``package:``
file of ``sklearn.datasets.data``) is checked and recorded, not parsed."""

from .. import parsers


def read_part(part):
    """(X float64, y) from ``sklearn.datasets.<loader>(return_X_y=True)``."""
    X, labels = parsers.read_sklearn(part.options)
    return parsers.finish(X, labels, part.options, part.dataset)
