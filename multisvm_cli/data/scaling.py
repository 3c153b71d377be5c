"""Feature scaling, fitted on the training part only and applied unchanged to the other parts.

Methods (statistics are always those of the data given to ``fit``, i.e. the training part):
- ``none``: x' = x.
- ``minmax``: x'_j = 2 (x_j - min_j) / (max_j - min_j) - 1, so the training part spans exactly
  [-1, 1] per column (as LIBSVM's svm-scale); other parts may leave [-1, 1]. A constant column
  (max_j = min_j = v) becomes x'_j = x_j - v: 0 on the training part, never NaN or inf.
- ``standard``: x'_j = (x_j - mean_j) / std_j with the population standard deviation
  (ddof 0); a constant column (std_j = 0) uses std_j = 1, giving 0 on the training part. A
  column of tiny scale whose variance underflows to 0 (x 1e-200) is not constant, and one of
  huge values whose sum of squares overflows (x 1e153) is scaled, with no numpy warning: their
  statistics are computed on x_j / max|x_j| and multiplied back (:func:`_extremes_rescued`).
- ``standard-continuous``: ``standard`` on the card's continuous columns only; the binary
  1-of-n columns are left as they are (Covertype in Platt et al. 1999).
- ``maxabs``: x'_j = x_j / max_i |x_ij|, so the training part lies in [-1, 1] per column and
  every zero stays zero (scikit-learn's MaxAbsScaler, but a column of max |x| below 2.2e-15
  is scaled too): the scaling for sparse data. An all-zero column uses max = 1.
- ``paper``: the card's ``paper_scaling`` (docs: the dataset cards page).

Sparse input (scipy CSR) is scaled without densifying: ``none`` copies it and ``maxabs``
divides its stored values. The centering methods (minmax, standard, standard-continuous) would
turn every zero into a non-zero, so they refuse sparse input (:func:`check_sparse`) with a
one-line ValueError naming ``maxabs``.

A fitted scaler is fully described by ``get_state()`` (plain arrays, no pickle), and
``Scaler.from_state(method, state)`` rebuilds it.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.preprocessing import MinMaxScaler, StandardScaler
from sklearn.utils.validation import check_is_fitted

METHODS = ("none", "minmax", "standard", "standard-continuous", "maxabs", "paper")
STATE_KEYS = ("method", "columns", "offset", "scale")
CENTERING = ("minmax", "standard", "standard-continuous")  # they fill in a sparse matrix's zeros


def resolve(method, card):
    """The method ``method`` stands for on ``card``'s dataset (``paper`` -> its paper scaling)."""
    return card.paper_scaling if method == "paper" else method


def check_sparse(method, dataset="the data"):
    """ValueError (one line, naming the alternatives) when ``method`` (resolved) would center
    sparse data: it would store every zero of the matrix."""
    if method in CENTERING:
        raise ValueError(f"{dataset} is sparse: {method} scaling would center it and store "
                         f"every zero; use scaling: maxabs (x / max|x| per column, keeps zeros) "
                         f"or none")


def make_scaler(method, card):
    """An unfitted Scaler for ``method`` (one of METHODS) and the dataset's ``card``."""
    if method not in METHODS:
        raise ValueError(f"unknown scaling {method!r}; choose one of {', '.join(METHODS)}")
    resolved = resolve(method, card)
    if resolved == "none":
        columns = ()
    elif resolved == "standard-continuous":
        columns = tuple(card.continuous_columns)
    else:
        columns = tuple(range(card.n_features))
    return Scaler(method=resolved, columns=columns)


class Scaler(TransformerMixin, BaseEstimator):
    """Per-column affine scaling of ``columns`` as defined in the module docstring.

    ``method`` is none | minmax | standard | standard-continuous (``standard`` on ``columns``)
    | maxabs; fitted attributes ``offset_`` and ``scale_`` give z = (x - offset_) / scale_ per
    scaled column, and ``minmax`` outputs 2 z - 1 (``maxabs`` has offset 0). Accepts scipy
    sparse input for none and maxabs (see the module docstring).
    """

    def __init__(self, method="none", columns=()):
        self.method = method
        self.columns = columns

    def fit(self, X, y=None):
        """Learn the statistics of the training part ``X``; returns self."""
        X = _as_matrix(X, self.method)
        self.n_features_in_ = X.shape[1]
        self.columns_ = np.asarray(self.columns, dtype=np.int64)
        if self.columns_.size and not (0 <= self.columns_.min() and
                                       self.columns_.max() < X.shape[1]):
            raise ValueError(f"scaled columns out of range for {X.shape[1]} features")
        self.offset_, self.scale_ = self._statistics(X[:, self.columns_])
        return self

    def _statistics(self, block):
        if self.method == "none" or block.shape[1] == 0:
            return np.zeros(block.shape[1]), np.ones(block.shape[1])
        if self.method == "maxabs":  # not MaxAbsScaler: it takes max |x| < 2.2e-15 as 0
            top = abs(block).max(axis=0)
            top = np.asarray(top.toarray() if sp.issparse(top) else top, dtype=np.float64).ravel()
            return np.zeros(block.shape[1]), np.where(top > 0, top, 1.0)
        if self.method == "minmax":
            fitted = MinMaxScaler().fit(block)
            low, width = fitted.data_min_, fitted.data_range_
            constant = width == 0
            return np.where(constant, low - 1.0, low), np.where(constant, 2.0, width)
        if self.method in ("standard", "standard-continuous"):
            with np.errstate(over="ignore", invalid="ignore"):  # rescued by _extremes_rescued
                fitted = StandardScaler().fit(block)
            return _extremes_rescued(block, fitted.mean_.copy(), fitted.scale_.copy(),
                                     fitted.var_)
        raise ValueError(f"unknown scaling {self.method!r}")

    def transform(self, X):
        """Scale ``X`` (any part) with the training statistics; returns a new float64 array."""
        check_is_fitted(self, "scale_")
        X = _as_matrix(X, self.method)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, the scaler was fitted on "
                             f"{self.n_features_in_}")
        if sp.issparse(X):
            return self._transform_sparse(X)
        out = X.copy()
        if self.columns_.size:
            scaled = (X[:, self.columns_] - self.offset_) / self.scale_
            out[:, self.columns_] = 2.0 * scaled - 1.0 if self.method == "minmax" else scaled
        return out

    def _transform_sparse(self, X):
        """CSR input: the stored values divided by their column's scale (offsets are 0 for the
        methods that accept sparse input); the structure is kept, nothing is densified."""
        divisor = np.ones(self.n_features_in_)
        divisor[self.columns_] = self.scale_
        out = X.copy()
        out.data /= divisor[out.indices]
        return out

    def get_state(self):
        """The fitted scaler as plain arrays: method, columns, offset, scale, n_features."""
        check_is_fitted(self, "scale_")
        return {"method": np.asarray(self.method), "columns": self.columns_.copy(),
                "offset": self.offset_.copy(), "scale": self.scale_.copy(),
                "n_features": np.asarray(self.n_features_in_)}

    @classmethod
    def from_state(cls, method, state):
        """Rebuild a fitted scaler from ``get_state()``; ``method`` must be the stored one
        (or ``paper``, which the state resolves).  ValueError (one line) unless the state is
        exactly: ``method`` a text scalar naming a resolved method (none | minmax | standard |
        standard-continuous | maxabs); ``n_features`` an integer scalar >= 1; ``columns`` distinct integer
        column indices in [0, n_features) (none for ``none``); ``offset`` and ``scale`` finite
        numbers, one per column, scale > 0.
        """
        if not isinstance(method, str) or method not in METHODS:
            raise ValueError(f"unknown scaling {method!r}; choose one of {', '.join(METHODS)}")
        keys = (*STATE_KEYS, "n_features")
        missing, extra = [k for k in keys if k not in state], sorted(set(state) - set(keys))
        if missing or extra:
            raise ValueError(f"scaler state lacks {', '.join(missing)}" if missing
                             else f"scaler state has unexpected entries {', '.join(extra)}")
        state = {key: np.asarray(value) for key, value in state.items()}
        stored, n_features = state["method"], state["n_features"]
        resolved = tuple(m for m in METHODS if m != "paper")
        if stored.shape != () or stored.dtype.kind != "U" or str(stored) not in resolved:
            raise ValueError(f"scaler method must be one of {', '.join(resolved)}, got {stored.tolist()!r}")
        stored = str(stored)
        if method not in (stored, "paper"):
            raise ValueError(f"scaler state is for {stored!r}, not {method!r}")
        if n_features.shape != () or n_features.dtype.kind not in "iu" or n_features < 1:
            raise ValueError(f"scaler n_features must be an integer >= 1, got {n_features.tolist()!r}")
        n_features = int(n_features)
        columns, offset, scale = state["columns"], state["offset"], state["scale"]
        if columns.ndim != 1 or (columns.size and columns.dtype.kind not in "iu"):
            raise ValueError("scaler columns must be a list of column indices")
        if columns.size and (columns.min() < 0 or columns.max() >= n_features
                             or len(np.unique(columns)) != len(columns)):
            raise ValueError(f"scaler columns must be distinct indices in 0..{n_features - 1}")
        if stored == "none" and columns.size:
            raise ValueError("scaling 'none' scales no columns")
        for name, values in (("offset", offset), ("scale", scale)):
            if values.shape != columns.shape or (values.size and values.dtype.kind not in "iuf") \
                    or not np.isfinite(values.astype(np.float64)).all():
                raise ValueError(f"scaler {name} must be {len(columns)} finite numbers, one per column")
        if np.any(scale <= 0):
            raise ValueError("scaler scale must be > 0")
        columns = columns.astype(np.int64)
        scaler = cls(method=stored, columns=tuple(columns.tolist()))
        scaler.columns_ = columns
        scaler.offset_, scaler.scale_ = offset.astype(np.float64), scale.astype(np.float64)
        scaler.n_features_in_ = n_features
        return scaler


def _extremes_rescued(block, mean, scale, variance):
    """``standard``'s (mean, scale) with the columns whose variance underflowed to 0 though
    they vary (x 1e-200: 1e-400 is 0 in float64), or overflowed (a sum of squares of values
    near 1e153: numpy's "overflow encountered" and a column left unscaled), computed on the
    column divided by its max |x| and multiplied back, so that they are scaled, never taken
    as constant; ValueError (one line, 1-based column) for one that varies by too little even
    then."""
    varying = block.max(axis=0) != block.min(axis=0) if block.shape[0] else np.zeros(0, bool)
    for j in np.flatnonzero(((variance == 0) & varying) | ~np.isfinite(variance)):
        top = np.abs(block[:, j]).max()
        unit = block[:, j] / top
        mean[j], scale[j] = top * unit.mean(), top * unit.std()
        if not (np.isfinite(scale[j]) and scale[j] > 0):
            raise ValueError(f"column {j + 1} varies by less than float64 can scale "
                             f"(max |x| {top:.3g}); multiply it by a power of ten")
    return mean, scale


def _as_matrix(X, method):
    """Dense float64 2-d array, or float64 CSR for sparse input (refused for centering)."""
    if sp.issparse(X):
        check_sparse(method)
        return X.tocsr().astype(np.float64, copy=False)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"expected a 2-d array of features, got shape {X.shape}")
    return X
