"""Linear machines in primal form: one weight vector and one bias per machine, one product.

For the linear kernel, f_m(x) = sum_s coef[s, m] (x_s . x) + b_m = w_m . x + b_m with
w_m = sum_s coef[s, m] x_s, so :class:`PrimalMachines` keeps W = coef^T SV (n_machines x
n_features) and computes every decision as ``X @ W.T + b``: one matrix product per bounded
chunk of test points, sparse or dense.  libsvm's linear machines are built from their support
vectors (kept, as the saved form and for the support-vector count); liblinear's are weights
from the start (liblinear has no support-vector form).

Table-1 figures for these machines: a "kernel evaluation" is a dot product with one weight
vector, so a point costs as many as the machines it evaluates (1-v-r: k; Max Wins: k(k-1)/2;
DAG: k-1; UDT, GraphSVM and Hier: the mean over the test points of the machines on their
evaluation path); the size is the non-zero weights plus one bias a machine.
"""

import numpy as np
import scipy.sparse as sp

from .kernels import rows_per_chunk
from ._machines import (BLOCK_MB, Machines, concatenate_rows, row_slices, rows_arrays,
                        run_in_threads, sparse_rows)

# Weights of a sparse input stay CSR when at most this share of them is non-zero (pairwise
# machines on text); denser ones are an array, whose product with a CSR X is cheaper.
SPARSE_WEIGHTS_DENSITY = 0.25


def as_weights(weights, sparse_input):
    """``weights`` (n_machines, n_features) as a CSR matrix when the training input was sparse
    and W is sparse enough (see SPARSE_WEIGHTS_DENSITY), else a C-contiguous float64 array."""
    size = max(1, weights.shape[0] * weights.shape[1])
    nonzeros = weights.nnz if sp.issparse(weights) else np.count_nonzero(weights)
    if sparse_input and nonzeros <= SPARSE_WEIGHTS_DENSITY * size:
        weights = sp.csr_matrix(weights, dtype=np.float64)
        weights.sort_indices()
        return weights
    dense = weights.toarray() if sp.issparse(weights) else weights
    return np.ascontiguousarray(dense, dtype=np.float64)


class PrimalMachines:
    """Linear binary SVMs f_m(x) = weights[m] . x + intercept[m] (the same interface as
    :class:`._machines.Machines`).  ``pool`` is the libsvm support-vector form they came from,
    or None (liblinear)."""

    def __init__(self, kernel, weights, intercept, pool=None, sparse_input=False):
        self.kernel = kernel
        self.weights = as_weights(weights, sparse_input)
        self.intercept = np.asarray(intercept, dtype=np.float64)
        self.pool = pool
        self._rows = {}  # machine -> its dense weight vector, built on first use

    @classmethod
    def from_pool(cls, pool):
        """The primal form of linear ``Machines``: W = coef^T SV."""
        return cls(pool.kernel, pool.coef.T.tocsr() @ pool.vectors, pool.intercept, pool,
                   pool.is_sparse)

    @classmethod
    def from_weights(cls, kernel, fits, n_features, sparse_input):
        """Machines of liblinear ``fits`` (each with ``weights`` and ``intercept``)."""
        weights = np.array([fit.weights for fit in fits]).reshape(len(fits), n_features)
        return cls(kernel, weights, [fit.intercept for fit in fits], None, sparse_input)

    @property
    def n_machines(self):
        return self.weights.shape[0]

    @property
    def n_pool(self):
        """Unique support vectors of libsvm's machines (liblinear's have none: 0)."""
        return 0 if self.pool is None else self.pool.n_pool

    @property
    def is_sparse(self):
        """Whether the weights are a sparse (CSR) matrix."""
        return sp.issparse(self.weights)

    @property
    def full_evaluations(self):
        """Dot products per test point when every machine is evaluated."""
        return self.n_machines

    def n_parameters(self):
        """Non-zero weights + one bias a machine."""
        nonzeros = self.weights.count_nonzero() if self.is_sparse else np.count_nonzero(self.weights)
        return int(nonzeros + self.n_machines)

    def mean_evaluations(self, used):
        """Mean over the rows of the boolean (n, n_machines) ``used`` of the machines marked:
        the dot products a point costs (0.0 for no rows)."""
        used = np.asarray(used, dtype=bool)
        return float(used.sum(axis=1).mean()) if len(used) else 0.0

    def map_decisions(self, X, reduce, memory_mb, n_jobs=None):
        """``reduce(X[chunk] @ W.T + b)`` over row chunks of ``X``, concatenated."""
        return self._chunked(X, self.weights, self.intercept, reduce, memory_mb, n_jobs)

    def decision(self, X, memory_mb, n_jobs=None):
        """f_m(x) for every point and machine: an (n, n_machines) array."""
        return self.map_decisions(X, lambda values: values, memory_mb, n_jobs)

    def decision_some(self, X, machines, memory_mb):
        """f_m(x) for the listed machines only: (n, len(machines))."""
        machines = np.asarray(machines, dtype=np.intp)
        return self._chunked(X, self.weights[machines], self.intercept[machines],
                             lambda values: values, memory_mb, None)

    def _chunked(self, X, weights, intercept, reduce, memory_mb, n_jobs):
        def task(part):
            values = X[part] @ weights.T
            values = values.toarray() if sp.issparse(values) else np.asarray(values)
            return reduce(values + intercept)

        step = rows_per_chunk(weights.shape[0], min(memory_mb, BLOCK_MB))
        parts = run_in_threads(task, row_slices(X.shape[0], step), n_jobs)
        return concatenate_rows(parts, (0, weights.shape[0]))

    def decision_groups(self, points, groups, memory_mb, n_jobs=None):
        """``[f_m(points[rows]) for (m, rows) in groups]``: each machine on its own rows, taken
        in chunks whose gathered copy stays within BLOCK_MB."""
        step = rows_per_chunk(points.shape[1], min(memory_mb, BLOCK_MB))
        tasks = [(g, part) for g, (_, rows) in enumerate(groups) for part in row_slices(len(rows), step)]

        def task(item):
            machine, rows = groups[item[0]]
            values = points[rows[item[1]]] @ self._row(machine)
            return np.asarray(values).ravel() + self.intercept[machine]

        parts = [[] for _ in groups]
        for (g, _), values in zip(tasks, run_in_threads(task, tasks, n_jobs)):
            parts[g].append(values)
        return [concatenate_rows(p, (0,)) for p in parts]

    def _row(self, machine):
        row = self._rows.get(machine)
        if row is None:
            row = self.weights[machine]
            row = row.toarray().ravel() if sp.issparse(row) else row
            self._rows[machine] = row
        return row

    def node_points(self, X):
        """Test points as node blocks take them: X itself."""
        return X

    def to_arrays(self, prefix):
        """libsvm's: the support-vector form (:meth:`Machines.to_arrays`); liblinear's:
        ``weights`` (dense) or ``weights_data``, ``_indices``, ``_indptr``, ``_shape`` (CSR,
        int64 indices), and ``intercept``."""
        if self.pool is not None:
            return self.pool.to_arrays(prefix)
        return {**rows_arrays(self.weights, prefix + "weights"), prefix + "intercept": self.intercept}

    @classmethod
    def from_arrays(cls, kernel, arrays, prefix, n_features, n_machines):
        """Rebuild liblinear's machines from :meth:`to_arrays`; ValueError unless they are
        ``n_machines`` finite weight vectors of ``n_features`` and as many finite biases."""
        sparse = prefix + "weights" not in arrays
        weights = sparse_rows(arrays, prefix, "weights") if sparse else arrays[prefix + "weights"]
        intercept = arrays[prefix + "intercept"]
        if weights.ndim != 2 or (not sparse and weights.dtype.kind not in "iuf"):
            raise ValueError(f"{prefix}weights must be a 2-d array of numbers")
        if weights.shape != (n_machines, n_features):
            raise ValueError(f"{prefix}weights must be ({n_machines}, {n_features})")
        if intercept.shape != (n_machines,) or intercept.dtype.kind not in "iuf":
            raise ValueError(f"{prefix}intercept must be {n_machines} numbers")
        values = weights.data if sparse else weights
        if not (np.all(np.isfinite(values)) and np.all(np.isfinite(intercept))):
            raise ValueError(f"{prefix}: non-finite values in the model")
        return cls(kernel, weights, intercept, None, sparse)


def build_machines(settings, X, fits, row_groups):
    """The prediction form of ``fits`` trained on ``X`` (``row_groups``: the class of each
    training row, which orders a support-vector pool): liblinear's weights, libsvm's linear
    machines through their primal weights, any other kernel's as a support-vector pool."""
    if not settings.libsvm:
        return PrimalMachines.from_weights(settings.kernel, fits, X.shape[1], sp.issparse(X))
    pool = Machines.from_fits(settings.kernel, X, fits, row_groups)
    return PrimalMachines.from_pool(pool) if settings.kernel.name == "linear" else pool


def load_machines(kernel, solver, arrays, prefix, n_features, n_machines):
    """The machines :func:`build_machines` built, from their saved arrays (see ``to_arrays``)."""
    if solver == "liblinear":
        return PrimalMachines.from_arrays(kernel, arrays, prefix, n_features, n_machines)
    pool = Machines.from_arrays(kernel, arrays, prefix, n_features, n_machines)
    return PrimalMachines.from_pool(pool) if kernel.name == "linear" else pool
