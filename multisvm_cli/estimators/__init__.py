"""The multiclass SVM schemes as scikit-learn classifiers, and the naive Bayes baseline.

:data:`REGISTRY` (in :mod:`.registry`) declares every scheme.  The estimator classes, and
``SCHEMES`` (name -> class), are imported on first use, so importing the registry loads no
scikit-learn.
"""

from .registry import REGISTRY, SCHEME_NAMES, Scheme

SCHEME_CLASSES = tuple(scheme.class_name for scheme in REGISTRY.values())  # in registry order


def __getattr__(name):
    """``SCHEMES`` and the estimator classes by class name (``MaxWinsSVC``, ...), on first use."""
    if name == "SCHEMES":
        globals()[name] = {scheme.name: scheme.estimator for scheme in REGISTRY.values()}
        return globals()[name]
    for scheme in REGISTRY.values():
        if scheme.class_name == name:
            return scheme.estimator
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["REGISTRY", "SCHEME_NAMES", "SCHEMES", "SCHEME_CLASSES", "Scheme", *SCHEME_CLASSES]
