"""The arrays a saved model of a scheme holds: the shared pieces each class's ``_array_schema``
is built from.

A schema maps an array's name to ``(dtype, shape)``: ``dtype`` an exact ``np.dtype``; shapes
follow from n_features (d), the number of classes N, the support-vector pool P
(``svm_vectors``' rows), the machine count M (``svm_intercept``) and the dual coefficients' nnz
(``svm_coef_data``), read from the saved model's declared shapes through :class:`Shapes`,
which checks each against its bounds (a ValueError naming the first array that cannot fit).
"""

import math

import numpy as np

FLOAT, INT = np.dtype(np.float64), np.dtype(np.int64)
NB_ARRAYS = {"gaussian": ("theta", "var", "class_prior", "class_count", "classes"),
             "multinomial": ("feature_log_prob", "class_log_prior", "class_count", "feature_count",
                             "classes")}
NB_MATRICES = ("theta", "var", "feature_log_prob", "feature_count")  # (n_rows, n_features)


class Shapes:
    """The shapes a saved model declares for its arrays (``specs``: name -> {"shape": ...})."""

    def __init__(self, scheme, specs):
        self.scheme, self.specs = scheme, specs

    def declared(self, name):
        """The declared shape of array ``name``; ValueError when the model lacks it."""
        if name not in self.specs:
            raise ValueError(f"a {self.scheme} model needs the array {name!r}")
        return self.specs[name]["shape"]

    def length(self, name, low, high):
        """The length of 1-d array ``name``; ValueError unless it is in [low, high]."""
        shape = self.declared(name)
        if len(shape) != 1 or not low <= shape[0] <= high:
            raise ValueError(f"array {name!r} must be 1-d with {low}..{high} entries, got shape {shape}")
        return shape[0]

    def has(self, name):
        """Whether the model declares array ``name``."""
        return name in self.specs


def machine_arrays(params, shapes, bounds, n_features):
    """The binary machines' arrays, M within ``bounds``: liblinear's weights
    (:func:`weight_arrays`), or libsvm's support-vector pool (:func:`vector_arrays`), CSR dual
    coefficients (nnz <= P M) and intercepts."""
    if params.get("solver") == "liblinear":
        return weight_arrays(shapes, bounds, n_features)
    n_pool, vectors = vector_arrays(shapes, n_features)
    n_machines = shapes.length("svm_intercept", *bounds)
    nnz = shapes.length("svm_coef_data", 0, n_pool * n_machines)
    return {**vectors, "svm_coef_data": (FLOAT, (nnz,)), "svm_coef_indices": (INT, (nnz,)),
            "svm_coef_indptr": (INT, (n_machines + 1,)), "svm_intercept": (FLOAT, (n_machines,)),
            "svm_groups": (INT, (n_pool,))}


def weight_arrays(shapes, bounds, n_features):
    """liblinear's machines: ``svm_weights`` (M, d) when dense, or its CSR arrays
    ``svm_weights_data``/``_indices`` (nnz <= M d), ``_indptr`` (M + 1) and ``_shape`` (2); and
    ``svm_intercept`` (M), M within ``bounds``."""
    n_machines = shapes.length("svm_intercept", *bounds)
    expected = {"svm_intercept": (FLOAT, (n_machines,))}
    if shapes.has("svm_weights") or not shapes.has("svm_weights_shape"):
        expected["svm_weights"] = (FLOAT, (n_machines, n_features))
        return expected
    shapes.length("svm_weights_indptr", n_machines + 1, n_machines + 1)
    nnz = shapes.length("svm_weights_data", 0, n_machines * n_features)
    return {**expected, "svm_weights_data": (FLOAT, (nnz,)), "svm_weights_indices": (INT, (nnz,)),
            "svm_weights_indptr": (INT, (n_machines + 1,)), "svm_weights_shape": (INT, (2,))}


def vector_arrays(shapes, n_features):
    """(pool size P, its arrays): ``svm_vectors`` (P, d) when dense, or, when the model was
    trained on sparse input, its CSR arrays ``svm_vectors_data``/``_indices`` (nnz <= P d
    values), ``_indptr`` (P + 1) and ``_shape`` (2)."""
    if shapes.has("svm_vectors") or not shapes.has("svm_vectors_shape"):
        shape = shapes.declared("svm_vectors")
        if len(shape) != 2:
            raise ValueError(f"array 'svm_vectors' must be 2-d, got shape {shape}")
        return shape[0], {"svm_vectors": (FLOAT, (shape[0], n_features))}
    n_pool = shapes.length("svm_vectors_indptr", 1, math.inf) - 1
    nnz = shapes.length("svm_vectors_data", 0, n_pool * n_features)
    return n_pool, {"svm_vectors_data": (FLOAT, (nnz,)), "svm_vectors_indices": (INT, (nnz,)),
                    "svm_vectors_indptr": (INT, (n_pool + 1,)), "svm_vectors_shape": (INT, (2,))}


def nb_arrays(nb, n_rows, n_features):
    """A naive Bayes model's arrays (``nb_`` prefix) for ``n_rows`` classes or clusters."""
    return {"nb_" + name: (FLOAT if name != "classes" else INT,
                           (n_rows, n_features) if name in NB_MATRICES else (n_rows,))
            for name in NB_ARRAYS[nb]}
