"""The saved-model format: file names, versions, limits, errors, and the arrays a model must hold.

A saved model is a folder of ``model.json`` (:data:`REQUIRED_KEYS`), ``model.npz`` (one
uncompressed ``.npy`` member per array) and ``manifest.json`` (SHA-256 digests); see
:mod:`multisvm_cli.persist`. It is written as :data:`FORMAT_VERSION` and read in any of
:data:`READ_VERSIONS`.  :func:`expected_arrays` says which arrays, of which shapes and
dtypes, a model of each scheme must hold.
"""

import math
import re


from ..base.errors import MultisvmError
from ..estimators._schema import Shapes
from ..estimators.registry import REGISTRY

# Version 3 adds a model of documents: the fitted text pipeline that ``multisvm train`` saves
# beside it (metadata ``text``, arrays ``extra.text_*``: multisvm_cli.experiment.models.metadata),
# which a reader of version 2 would not apply. Version 2 folders (none holds one) load unchanged.
FORMAT_VERSION = 3
READ_VERSIONS = (2, 3)  # the versions load_model reads
FORMAT_NAME = "multisvm-model"
MANIFEST_FORMAT = "multisvm-manifest"
MANIFEST_VERSION = 1
JSON_NAME = "model.json"
ARRAYS_NAME = "model.npz"
MANIFEST_NAME = "manifest.json"
EXTRA_PREFIX = "extra."
REQUIRED_KEYS = ("format", "format_version", "scheme", "params", "fitted", "arrays", "metadata")
MANIFEST_KEYS = ("format", "format_version", "files", "arrays")
FITTED_KEYS = ("n_features_in", "fit_cpu_time", "fit_wall_time", "smo_iterations")
OPTIONAL_FITTED_KEYS = ("max_train_memory",)  # absent from models saved before it was recorded
MAX_JSON_BYTES = 16 << 20
MAX_MANIFEST_BYTES = 1 << 20
ARRAY_KINDS = "biufU"  # bool, integers, floats, unicode: never objects, bytes or records
HEX64 = re.compile(r"[0-9a-f]{64}")


class ModelFormatError(MultisvmError, ValueError):
    """A saved model that is missing, malformed, from an unknown format version, edited after
    saving, or whose arrays disagree with its JSON (one-line message)."""


class ModelPathError(MultisvmError, ValueError):
    """A folder :func:`save_model` may not write: an existing model without ``overwrite``, or
    something that is not a saved model (one-line message)."""


def short(value):
    """``repr(value)``, cut to 60 characters for a one-line message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def expected_arrays(scheme, params, specs, n_features):
    """name -> (dtype, shape) every model array (not ``extra.*``) of a ``scheme`` model must have.

    ``classes`` (numbers or text) and, when saved, ``feature_names`` (text), plus what the
    scheme's class declares (``_array_schema``, see :mod:`multisvm_cli.estimators._schema`);
    ValueError naming the first array that cannot fit, or when the model holds other arrays.
    """
    shapes = Shapes(scheme, specs)
    model_names = {name for name in specs if not name.startswith(EXTRA_PREFIX)}
    n_classes = shapes.length("classes", 2, math.inf)
    expected = {"classes": (ARRAY_KINDS, (n_classes,))}
    if "feature_names" in model_names:
        expected["feature_names"] = ("U", (n_features,))
    expected.update(REGISTRY[scheme].estimator._array_schema(params, n_classes, n_features, shapes))
    if model_names != set(expected):
        missing, extra = sorted(set(expected) - model_names), sorted(model_names - set(expected))
        raise ValueError(f"a {scheme} model has other arrays (missing {missing}, unexpected {extra})")
    return expected
