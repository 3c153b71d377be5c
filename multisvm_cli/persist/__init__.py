"""Save and load fitted models as JSON + ``.npz`` arrays: versioned, sealed, checked, never pickled.

A saved model is a folder holding ``model.json`` (format, version, scheme, parameters, fitted
scalars, array specs, the caller's metadata), ``model.npz`` (the arrays, one uncompressed
``.npy`` member each) and ``manifest.json``, written last: the SHA-256 of model.json's bytes and
of every array's ``.npy`` member.  The modules, one idea each:

- :mod:`.format`: file names, versions, limits, the errors, :func:`expected_arrays`;
- :mod:`.npy`: model.npz's members written and read with their checks and hashes;
- :mod:`.folder`: the staging folder swapped in under a ``flock``, following the umask;
- :mod:`.save`: :func:`save_model`;
- :mod:`.load`: :func:`load_model` and the order of its checks.

What ``multisvm train`` puts in the metadata is written and checked by
:mod:`multisvm_cli.experiment.models.metadata`.
"""

from .format import (ARRAYS_NAME, EXTRA_PREFIX, FORMAT_VERSION, HEX64, JSON_NAME, MANIFEST_NAME,
                     ModelFormatError, ModelPathError, expected_arrays, short)
from .load import LoadedModel, load_model
from .save import save_model, scheme_of

__all__ = ["ARRAYS_NAME", "EXTRA_PREFIX", "FORMAT_VERSION", "HEX64", "JSON_NAME", "MANIFEST_NAME",
           "LoadedModel", "ModelFormatError", "ModelPathError", "expected_arrays", "load_model",
           "save_model", "scheme_of", "short"]
