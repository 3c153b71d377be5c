"""The saved-model format: file names, versions, limits, errors, and the arrays a model must hold.

A saved model is a folder of ``model.json`` (:data:`REQUIRED_KEYS`), ``model.npz`` (one
uncompressed ``.npy`` member per array) and ``manifest.json`` (SHA-256 digests); see
:mod:`multisvm_cli.persist`.  :func:`expected_arrays` says which arrays, of which shapes and
dtypes, a model of each scheme must hold.
"""

import math
import re

import numpy as np

from ..errors import MultisvmError
from ..estimators import SCHEMES

FORMAT_VERSION = 2
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
SCHEME_FITTED_KEYS = {"hier": ("n_level1_machines",)}
MAX_JSON_BYTES = 16 << 20
MAX_MANIFEST_BYTES = 1 << 20
ARRAY_KINDS = "biufU"  # bool, integers, floats, unicode: never objects, bytes or records
FLOAT, INT = np.dtype(np.float64), np.dtype(np.int64)
NB_ARRAYS = {"gaussian": ("theta", "var", "class_prior", "class_count", "classes"),
             "multinomial": ("feature_log_prob", "class_log_prior", "class_count", "feature_count",
                             "classes")}
NB_MATRICES = ("theta", "var", "feature_log_prob", "feature_count")  # (n_rows, n_features)
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


def one_line(exc):
    """An exception's message on one line (its type's name when it has none)."""
    return " ".join(str(exc).split()) or type(exc).__name__


def expected_arrays(scheme, params, specs, n_features):
    """name -> (dtype, shape) every model array (not ``extra.*``) of a ``scheme`` model must have.

    ``dtype`` is an exact ``np.dtype``, or a string of allowed dtype kinds (classes: numbers or text;
    feature names: text).  Shapes follow from n_features (d), the number of classes N (the
    ``classes`` array), the support-vector pool P (``svm_vectors``' rows), the machine count M
    (``svm_intercept``) and the dual coefficients nnz (``svm_coef_data``) (liblinear's models:
    the weights ``svm_weights`` (M, d) instead of vectors and coefficients), with M within the
    scheme's bound (N for 1-v-r, N(N-1)/2 pairwise, N-1 UDT, at most N^2 GraphSVM, 2N Hier) and
    nnz <= P M; ValueError naming the first array that cannot fit.
    """
    def declared(name):
        if name not in specs:
            raise ValueError(f"a {scheme} model needs the array {name!r}")
        return specs[name]["shape"]

    def length(name, low, high):
        shape = declared(name)
        if len(shape) != 1 or not low <= shape[0] <= high:
            raise ValueError(f"array {name!r} must be 1-d with {low}..{high} entries, got shape {shape}")
        return shape[0]

    model_names = {name for name in specs if not name.startswith(EXTRA_PREFIX)}
    n_classes = length("classes", 2, math.inf)
    expected = {"classes": (ARRAY_KINDS, (n_classes,))}
    if "feature_names" in model_names:
        expected["feature_names"] = ("U", (n_features,))
    if scheme != "nb" and params.get("solver") == "liblinear":
        expected.update(_expected_weights(specs, length, SCHEMES[scheme]._machine_bounds(n_classes),
                                          n_features))
    elif scheme != "nb":
        n_pool, vectors = _expected_vectors(specs, declared, length, n_features)
        n_machines = length("svm_intercept", *SCHEMES[scheme]._machine_bounds(n_classes))
        nnz = length("svm_coef_data", 0, n_pool * n_machines)
        expected.update(vectors)
        expected.update({"svm_coef_data": (FLOAT, (nnz,)),
                         "svm_coef_indices": (INT, (nnz,)), "svm_coef_indptr": (INT, (n_machines + 1,)),
                         "svm_intercept": (FLOAT, (n_machines,)), "svm_groups": (INT, (n_pool,))})
    if scheme == "udt":
        expected["level_order"] = (INT, (n_classes,))
    if scheme in ("graph", "hier"):
        expected["confusion"] = (FLOAT, (n_classes, n_classes))
        expected["machine_ptr"] = (INT, (length("machine_ptr", 2, n_classes + 1),))
    if scheme == "graph":
        expected["group_ptr"] = (INT, (n_classes + 1,))
        expected["group_classes"] = (INT, (length("group_classes", n_classes, n_classes ** 2),))
    if scheme == "hier":
        expected["clusters"] = (INT, (n_classes,))
    if scheme in ("nb", "graph") or (scheme == "hier" and params["level1"] == "nb"):
        n_rows = n_classes if scheme != "hier" else length("nb_classes", 2, n_classes)
        for name in NB_ARRAYS[params["nb"]]:
            shape = (n_rows, n_features) if name in NB_MATRICES else (n_rows,)
            expected["nb_" + name] = (FLOAT if name != "classes" else INT, shape)
    if model_names != set(expected):
        missing, extra = sorted(set(expected) - model_names), sorted(model_names - set(expected))
        raise ValueError(f"a {scheme} model has other arrays (missing {missing}, unexpected {extra})")
    return expected


def _expected_weights(specs, length, bounds, n_features):
    """name -> (dtype, shape) of liblinear's machines: ``svm_weights`` (M, d) when dense, or its
    CSR arrays ``svm_weights_data``/``_indices`` (nnz <= M d), ``_indptr`` (M + 1) and ``_shape``
    (2); and ``svm_intercept`` (M), M within the scheme's ``bounds``."""
    n_machines = length("svm_intercept", *bounds)
    expected = {"svm_intercept": (FLOAT, (n_machines,))}
    if "svm_weights" in specs or "svm_weights_shape" not in specs:
        expected["svm_weights"] = (FLOAT, (n_machines, n_features))
        return expected
    length("svm_weights_indptr", n_machines + 1, n_machines + 1)
    nnz = length("svm_weights_data", 0, n_machines * n_features)
    return {**expected, "svm_weights_data": (FLOAT, (nnz,)), "svm_weights_indices": (INT, (nnz,)),
            "svm_weights_indptr": (INT, (n_machines + 1,)), "svm_weights_shape": (INT, (2,))}


def _expected_vectors(specs, declared, length, n_features):
    """(pool size P, name -> (dtype, shape)) of the support-vector pool: ``svm_vectors`` (P, d)
    when dense, or, when the model was trained on sparse input, its CSR arrays
    ``svm_vectors_data``/``_indices`` (nnz <= P d values), ``_indptr`` (P + 1) and ``_shape`` (2)."""
    if "svm_vectors" in specs or "svm_vectors_shape" not in specs:
        shape = declared("svm_vectors")
        if len(shape) != 2:
            raise ValueError(f"array 'svm_vectors' must be 2-d, got shape {shape}")
        return shape[0], {"svm_vectors": (FLOAT, (shape[0], n_features))}
    n_pool = length("svm_vectors_indptr", 1, math.inf) - 1
    nnz = length("svm_vectors_data", 0, n_pool * n_features)
    return n_pool, {"svm_vectors_data": (FLOAT, (nnz,)), "svm_vectors_indices": (INT, (nnz,)),
                    "svm_vectors_indptr": (INT, (n_pool + 1,)), "svm_vectors_shape": (INT, (2,))}
