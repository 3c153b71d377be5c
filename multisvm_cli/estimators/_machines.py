"""Trained binary SVMs for prediction: a shared pool of support vectors, or primal weights.

:class:`Machines` keeps each unique support vector once (a training row used by several
machines is stored once) and the dual coefficients as a sparse (n_pool, n_machines) matrix, so
all machines are evaluated with one kernel block per chunk of test points and one matrix
product.  Chunks are at most BLOCK_MB and run in ``n_jobs`` threads, each with one BLAS thread
(:func:`run_in_threads`).  Linear machines (either solver) predict through their primal weights
instead (:class:`._primal.PrimalMachines`); :func:`build_machines` and :func:`load_machines`
pick the form.

Sparse input: the pool of support vectors of a CSR training X stays CSR; kernel blocks are
then sparse products (``kernels.product``), so a sparse X is never densified, only the bounded
blocks are dense.  (Training: :mod:`._binary`.)
"""

import numpy as np
import scipy.sparse as sp

from .kernels import (as_float_rows, gaussian_exp, product, rows_per_chunk, squared_norms)
from ..base.parallel import map_threads, resolve_n_jobs, single_threaded_blas

# Kernel blocks of at most this size: the allocator then reuses their memory from chunk to chunk
# instead of mapping fresh pages (measured on Covertype: system time 4.7 s -> 0.02 s a 100k
# points), and the product stays efficient.  ``memory_mb`` only ever lowers it.
BLOCK_MB = 16
MIN_THREAD_ROWS = 256  # fewer test points than this are not worth a thread of their own

def run_in_threads(task, items, n_jobs):
    """``[task(item) for item in items]``, in ``n_jobs`` threads when more than one
    (:func:`multisvm_cli.base.parallel.map_threads`), with one BLAS thread even when run alone.

    Prediction work is split by rows: each thread runs BLAS on one thread (small products gain
    nothing from BLAS threads, which only wait on each other when the cores are busy), and numpy
    releases the GIL in the element-wise steps, so chunks really run side by side.
    """
    with single_threaded_blas():  # also when run here alone
        return map_threads(task, items, thread_count(n_jobs))


def thread_count(n_jobs):
    """Threads for ``n_jobs`` (see :func:`multisvm_cli.base.parallel.resolve_n_jobs`)."""
    return resolve_n_jobs(n_jobs)


def row_slices(n_rows, step):
    """Consecutive slices of at most ``step`` rows covering ``n_rows`` rows."""
    return [slice(start, min(start + step, n_rows)) for start in range(0, n_rows, step)]


def concatenate_rows(arrays, empty_shape):
    """The arrays stacked along rows, or an empty array of ``empty_shape`` if there are none."""
    return np.concatenate(arrays) if arrays else np.empty(empty_shape)


class Machines:
    """Binary SVMs sharing one pool of unique support vectors.

    Machine m computes f_m(x) = sum_s coef[s, m] k(vectors[s], x) + intercept[m], where
    ``coef`` is a sparse (n_pool, n_machines) CSC matrix of dual coefficients y_s alpha_s.
    ``vectors`` is a C-contiguous float64 array, or a CSR matrix when training data was sparse.

    The pool is sorted by ``groups`` (the class of each support vector).  The coefficients are
    kept as one dense block per group, over the machines that group's vectors take part in: for
    pairwise machines a class's vectors feed only its N-1 pairs, so the product costs
    n_pool x (N-1) per test point instead of n_pool x K.
    """

    def __init__(self, kernel, vectors, coef, intercept, groups=None):
        self.kernel = kernel
        self.vectors = as_float_rows(vectors)
        self.coef = sp.csc_matrix(coef, dtype=np.float64)
        self.coef.sort_indices()
        self.intercept = np.asarray(intercept, dtype=np.float64)
        self.groups = np.zeros(self.n_pool, np.int64) if groups is None else np.asarray(groups, np.int64)
        self.sqnorms = squared_norms(self.vectors)
        self._membership = None  # (n_machines, n_pool) non-zero pattern, built on first use
        self._blocks = self._group_blocks()
        self._node_cache = {}  # machine -> node-block operands, built on first use

    def _group_blocks(self):
        """[(first pool row, end pool row, machine columns, dense coefficients)] per group.

        Built from the CSR arrays with a few numpy calls a group (scipy's slicing costs more
        than the small fits themselves when UDT builds a Machines per candidate node)."""
        rows = self.coef.tocsr()
        per_row = np.diff(rows.indptr)
        bounds = np.flatnonzero(np.diff(self.groups)) + 1
        blocks = []
        for start, stop in zip(np.r_[0, bounds], np.r_[bounds, self.n_pool]):
            first, end = rows.indptr[start], rows.indptr[stop]
            if first == end:
                continue
            columns, column_of = np.unique(rows.indices[first:end], return_inverse=True)
            dense = np.zeros((stop - start, len(columns)))
            np.add.at(dense, (np.repeat(np.arange(stop - start), per_row[start:stop]), column_of),
                      rows.data[first:end])
            blocks.append((start, stop, columns, dense))
        return blocks

    @property
    def membership(self):
        """Which pooled support vectors each machine uses: an int32 (n_machines, n_pool) CSR
        matrix of ones (explicit zero coefficients count as unused)."""
        if self._membership is None:
            self._membership = (self.coef.T != 0).tocsr().astype(np.int32)
        return self._membership

    @classmethod
    def from_fits(cls, kernel, X, fits, row_groups):
        """Pool the support vectors of ``fits`` (by training row) into one Machines; the pool is
        sorted by ``row_groups[row]`` (the class of each training row), then by row."""
        supports = [fit.support for fit in fits]
        pool_rows = np.unique(np.concatenate([np.empty(0, np.intp)] + supports))
        pool_rows = pool_rows[np.argsort(row_groups[pool_rows], kind="stable")]
        position = np.empty(X.shape[0], dtype=np.intp)
        position[pool_rows] = np.arange(len(pool_rows))
        indices = np.concatenate([np.empty(0, np.intp)] + [position[s] for s in supports])
        indptr = np.concatenate([[0], np.cumsum([len(s) for s in supports], dtype=np.intp)])
        data = np.concatenate([np.empty(0)] + [fit.dual_coef for fit in fits])
        coef = sp.csc_matrix((data, indices, indptr), shape=(len(pool_rows), len(fits)))
        return cls(kernel, X[pool_rows], coef, [fit.intercept for fit in fits], row_groups[pool_rows])

    @property
    def n_machines(self):
        return self.coef.shape[1]

    @property
    def n_pool(self):
        return self.coef.shape[0]

    @property
    def is_sparse(self):
        """Whether the support-vector pool is a sparse (CSR) matrix."""
        return sp.issparse(self.vectors)

    def n_parameters(self):
        """Non-zero entries of the pooled SVs + non-zero dual coefficients + one bias a machine
        (a sparse pool's explicitly stored zeros do not count)."""
        nonzeros = self.vectors.count_nonzero() if self.is_sparse else np.count_nonzero(self.vectors)
        return int(nonzeros + np.count_nonzero(self.coef.data) + self.n_machines)

    def map_decisions(self, X, reduce, memory_mb, n_jobs=None):
        """``reduce(f(X[chunk]))`` for all machines, over row chunks of ``X``, concatenated:
        one kernel block against the pool and one product per group of coefficients a chunk."""
        def task(part):
            block = self.kernel.block(X[part], self.vectors, B_sqnorms=self.sqnorms)
            values = np.zeros((len(block), self.n_machines))
            for first, end, columns, weights in self._blocks:
                values[:, columns] += block[:, first:end] @ weights
            return reduce(values + self.intercept)

        step = rows_per_chunk(self.n_pool, min(memory_mb, BLOCK_MB))
        parts = run_in_threads(task, row_slices(X.shape[0], step), n_jobs)
        return concatenate_rows(parts, (0, self.n_machines))

    def decision(self, X, memory_mb, n_jobs=None):
        """f_m(x) for every point and machine: an (n, n_machines) array."""
        return self.map_decisions(X, lambda values: values, memory_mb, n_jobs)

    def decision_some(self, X, machines, memory_mb):
        """f_m(x) for the listed machines only: (n, len(machines)).  Kernel values are computed
        once per test point and support vector of those machines."""
        weights = self.coef[:, machines]
        pool_index = np.unique(weights.indices)
        vectors, weights = self.vectors[pool_index], weights[pool_index].toarray()

        def task(part):
            block = self.kernel.block(X[part], vectors, B_sqnorms=self.sqnorms[pool_index])
            return block @ weights + self.intercept[machines]

        step = rows_per_chunk(len(pool_index), min(memory_mb, BLOCK_MB))
        parts = run_in_threads(task, row_slices(X.shape[0], step), None)
        return concatenate_rows(parts, (0, len(machines)))

    def decision_groups(self, points, groups, memory_mb, n_jobs=None):
        """``[f_m(X[rows]) for (m, rows) in groups]``: each machine on its own rows, touching only
        its support vectors.  ``points`` is ``node_points(X)``, built once by callers that
        evaluate the same X node after node.  The row chunks of all groups run together in
        ``n_jobs`` threads.

        Each node block is one matrix product and one element-wise step (see
        :meth:`_node_operands`): DAG and UDT evaluate many small blocks, where the number of
        numpy calls, which hold the GIL, is what limits the threads.
        """
        tasks, n_threads = [], thread_count(n_jobs)
        for g, (machine, rows) in enumerate(groups):
            width = self.coef.indptr[machine + 1] - self.coef.indptr[machine]
            step = rows_per_chunk(width, min(memory_mb, BLOCK_MB))
            if len(groups) < n_threads:  # a lone large group still keeps every thread busy
                step = min(step, max(MIN_THREAD_ROWS, -(-len(rows) // n_threads)))
            tasks += [(g, part) for part in row_slices(len(rows), step)]

        def task(item):
            machine, rows = groups[item[0]]
            vectors, weights = self._node_operands(machine)
            if self.kernel.name == "gaussian":
                block = gaussian_exp(product(points[rows[item[1]]], vectors))
            else:
                block = self.kernel.block(points[rows[item[1]]], vectors)
            return block @ weights + self.intercept[machine]

        parts = [[] for _ in groups]
        for (g, _), values in zip(tasks, run_in_threads(task, tasks, n_jobs)):
            parts[g].append(values)
        return [concatenate_rows(p, (0,)) for p in parts]

    def node_points(self, X):
        """Test points as the left factor of a node block: for the Gaussian, rows
        [x, ||x||^2, 1], so that one product with :meth:`_node_operands` gives
        -gamma ||x - s||^2; for the other kernels X itself.  A sparse X gives a CSR matrix."""
        if self.kernel.name != "gaussian":
            return X
        extra = np.column_stack([squared_norms(X), np.ones(X.shape[0])])
        if sp.issparse(X):  # CSR blocks stack without a COO copy of X
            return sp.hstack([sp.csr_matrix(X), sp.csr_matrix(extra)], format="csr")
        return np.hstack([X, extra])

    def _node_operands(self, machine):
        """(right factor, dual coefficients) of one machine's node blocks, built once.

        Gaussian: rows [2 gamma s, -gamma, -gamma ||s||^2] for its support vectors s, so that
        [x, ||x||^2, 1] . row = -gamma (||x||^2 - 2 x.s + ||s||^2); otherwise the vectors.
        """
        operands = self._node_cache.get(machine)
        if operands is None:
            begin, end = self.coef.indptr[machine], self.coef.indptr[machine + 1]
            svs = self.coef.indices[begin:end]
            vectors = self.vectors[svs]
            if self.kernel.name == "gaussian":
                gamma = self.kernel.gamma
                extra = np.column_stack([np.full(len(svs), -gamma), -gamma * self.sqnorms[svs]])
                stack = sp.hstack if self.is_sparse else np.hstack
                vectors = stack([2.0 * gamma * vectors, extra])
            # A sparse operand is kept CSC: its transpose in the product is then CSR as it is.
            vectors = as_float_rows(vectors).tocsc() if self.is_sparse else as_float_rows(vectors)
            operands = (vectors, self.coef.data[begin:end])
            self._node_cache[machine] = operands
        return operands

    @property
    def full_evaluations(self):
        """Kernel evaluations per test point when every machine is evaluated: the pool size."""
        return self.n_pool

    def mean_evaluations(self, used):
        """Kernel evaluations per point of machines marked in ``used`` (see
        :meth:`mean_unique_support_vectors`)."""
        return self.mean_unique_support_vectors(used)

    def unique_support_vectors(self, used):
        """For each row of the boolean (k, n_machines) matrix ``used``: how many distinct pooled
        support vectors the machines marked in that row have together."""
        used = sp.csr_matrix(np.asarray(used, dtype=np.int32))
        return (used @ self.membership).getnnz(axis=1)

    def mean_unique_support_vectors(self, used):
        """Mean over the rows of ``used`` of :meth:`unique_support_vectors` (computed once per
        distinct row, so it is cheap for many points sharing few paths)."""
        used = np.asarray(used, dtype=bool)
        if len(used) == 0:
            return 0.0
        distinct, inverse = np.unique(used, axis=0, return_inverse=True)
        counts = self.unique_support_vectors(distinct)
        return float(counts[np.ravel(inverse)].mean())

    def to_arrays(self, prefix):
        """The arrays that define these machines, named ``prefix + name``.  A dense pool is
        ``vectors``; a sparse one is ``vectors_data``, ``vectors_indices``, ``vectors_indptr``
        and ``vectors_shape`` (CSR, int64 indices) and is never densified."""
        return {**rows_arrays(self.vectors, prefix + "vectors"), prefix + "coef_data": self.coef.data,
                prefix + "coef_indices": self.coef.indices.astype(np.int64),
                prefix + "coef_indptr": self.coef.indptr.astype(np.int64),
                prefix + "intercept": self.intercept, prefix + "groups": self.groups}

    @classmethod
    def from_arrays(cls, kernel, arrays, prefix, n_features, n_machines):
        """Rebuild from :meth:`to_arrays`; ValueError if the arrays do not describe
        ``n_machines`` machines on ``n_features`` features: real-valued finite vectors (dense, or
        sparse as :func:`sparse_rows` checks), coefficients and intercepts, integer indices, a
        valid column pointer, row indices in range and strictly increasing within each machine,
        and sorted groups >= 0."""
        dense = prefix + "vectors" in arrays
        vectors = arrays[prefix + "vectors"] if dense else sparse_rows(arrays, prefix, "vectors")
        data, indices, indptr = (arrays[prefix + k] for k in ("coef_data", "coef_indices", "coef_indptr"))
        intercept, groups = arrays[prefix + "intercept"], arrays[prefix + "groups"]
        kinds = {"coef_data": (data, 1, "iuf"), "intercept": (intercept, 1, "iuf"),
                 "coef_indices": (indices, 1, "iu"), "coef_indptr": (indptr, 1, "iu"), "groups": (groups, 1, "iu")}
        if dense:
            kinds["vectors"] = (vectors, 2, "iuf")
        for name, (array, ndim, kind) in kinds.items():
            if np.ndim(array) != ndim or np.asarray(array).dtype.kind not in kind:
                raise ValueError(f"{prefix}{name} must be a {ndim}-d array of "
                                 f"{'integers' if kind == 'iu' else 'numbers'}")
        n_pool = vectors.shape[0]
        if vectors.shape[1] != n_features:
            raise ValueError(f"{prefix}vectors must have {n_features} columns")
        if groups.shape != (n_pool,) or np.any(np.diff(groups) < 0) or np.any(groups < 0):
            raise ValueError(f"{prefix}groups must be {n_pool} sorted group labels >= 0")
        if len(intercept) != n_machines or len(indptr) != n_machines + 1:
            raise ValueError(f"{prefix}: expected {n_machines} machines")
        if indptr[0] != 0 or indptr[-1] != len(data) or len(indices) != len(data) or np.any(np.diff(indptr) < 0):
            raise ValueError(f"{prefix}coef_indptr is not a valid column pointer")
        if len(indices) and (indices.min() < 0 or indices.max() >= n_pool):
            raise ValueError(f"{prefix}coef_indices out of range 0..{n_pool - 1}")
        values = vectors.data if sp.issparse(vectors) else vectors
        if not (np.all(np.isfinite(values)) and np.all(np.isfinite(data)) and np.all(np.isfinite(intercept))):
            raise ValueError(f"{prefix}: non-finite values in the model")
        coef = sp.csc_matrix((data, indices, indptr), shape=(n_pool, n_machines))
        if not coef.has_canonical_format:
            raise ValueError(f"{prefix}coef_indices must increase strictly within each machine")
        return cls(kernel, vectors, coef, intercept, groups)


def rows_arrays(matrix, stem):
    """A dense array as ``{stem: matrix}``; a CSR matrix as ``stem + "_data"``, ``_indices``,
    ``_indptr`` and ``_shape`` (int64 indices), never densified (read back by :func:`sparse_rows`)."""
    if not sp.issparse(matrix):
        return {stem: matrix}
    return {stem + "_data": matrix.data, stem + "_indices": matrix.indices.astype(np.int64),
            stem + "_indptr": matrix.indptr.astype(np.int64),
            stem + "_shape": np.asarray(matrix.shape, dtype=np.int64)}


def sparse_rows(arrays, prefix, name):
    """The CSR matrix saved as ``prefix + name + "_data"``, ``_indices``, ``_indptr`` and
    ``_shape`` (a sparse support-vector pool, or sparse weights); ValueError unless its shape is
    two non-negative integers, its row pointer starts at 0, never decreases and ends at the
    number of values, and every column index is within the shape."""
    stem = prefix + name
    names = [stem + "_" + k for k in ("data", "indices", "indptr", "shape")]
    missing = [key for key in names if key not in arrays]
    if missing:
        raise ValueError(f"the {'support vectors' if name == 'vectors' else name} are missing: no {stem} nor {', '.join(missing)}")
    data, indices, indptr, shape = (arrays[key] for key in names)
    if not all(a.ndim == 1 and a.dtype.kind in "iu" for a in (indices, indptr, shape)) or data.ndim != 1:
        raise ValueError(f"{stem}_data, _indices, _indptr and _shape must be 1-D (integer indices)")
    if len(shape) != 2 or shape.min() < 0:
        raise ValueError(f"{stem}_shape must be two non-negative sizes, got {shape.tolist()}")
    n_rows, n_columns = (int(v) for v in shape)
    if len(indptr) != n_rows + 1 or indptr[0] != 0 or indptr[-1] != len(data) or np.any(np.diff(indptr) < 0):
        raise ValueError(f"{stem}_indptr is not a valid row pointer for {n_rows} rows "
                         f"and {len(data)} values")
    if len(indices) != len(data):
        raise ValueError(f"{stem}_indices must have one column index per value ({len(data)})")
    if len(indices) and (indices.min() < 0 or indices.max() >= n_columns):
        raise ValueError(f"{stem}_indices out of range 0..{n_columns - 1}")
    return sp.csr_matrix((data.astype(np.float64), indices, indptr), shape=(n_rows, n_columns))
