"""Imports on first use: the command line's quick commands (``multisvm --help``, ``configs``,
``datasets list``) import none of numpy, scikit-learn, scipy, pandas or matplotlib.

So a package's ``__init__`` names its public API without importing it (:func:`module_getattr`),
and the modules those commands load import the heavy libraries inside the functions that use
them, asking :func:`issparse` whether a value is scipy's.
"""

import importlib
import sys


def issparse(X) -> bool:
    """Whether ``X`` is a scipy sparse matrix or array (scipy's ``issparse``), without
    importing scipy: when ``scipy.sparse`` was never imported, nothing can be one."""
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(X)


def module_getattr(package: str, homes: dict):
    """A module ``__getattr__`` (PEP 562) for ``package``: each name of ``homes`` (relative
    module name -> the public names it defines) is imported from its module on first use and
    kept in the package; any other name is the package's submodule of that name (as an eager
    import would have bound it), else AttributeError."""
    home = {name: module for module, names in homes.items() for name in names}

    def __getattr__(name):
        if name in home:
            value = getattr(importlib.import_module(home[name], package), name)
            setattr(sys.modules[package], name, value)
            return value
        try:
            return importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{package}.{name}":
                raise
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
