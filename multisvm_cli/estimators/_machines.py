"""Binary soft-margin SVMs (libsvm's SMO through ``sklearn.svm.SVC``) and their shared SV pool.

Training: every binary problem is a list of training rows plus a mask of which rows are
positive.  Problems that share their rows (one-vs-rest) share one Gram matrix, computed with
BLAS (``Kernel.gram``) when it fits the memory budget and handed to
``SVC(kernel="precomputed")``; a problem of its own (a pair of classes) lets ``SVC`` compute the
same kernel (``Kernel.svc_params``) on demand with its kernel cache, which measured 2-4x
cheaper than a per-pair Gram matrix on USPS and Letter, as SMO visits few columns.  Independent problems run through
``joblib.Parallel(prefer="threads")``: libsvm releases the GIL, and a surrounding
``joblib.parallel_config(backend=...)`` still decides where tasks run.

Prediction: :class:`Machines` keeps each unique support vector once (a training row used by
several machines is stored once) and the dual coefficients as a sparse (n_pool, n_machines)
matrix, so all machines are evaluated with one kernel block per chunk of test points and one
matrix product.  Chunks are at most BLOCK_MB and run in ``n_jobs`` threads, each with one BLAS
thread (:func:`run_in_threads`).

Sparse input: a CSR training X goes to libsvm as it is (SVC takes CSR), and the pool of support
vectors stays CSR; kernel blocks are then sparse products (``kernels.product``), so a sparse X
is never densified, only the bounded blocks are dense.
"""

import os
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from sklearn import config_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from ..kernels import (Kernel, as_float_rows, gaussian_exp, gram_fits, product, rows_per_chunk,
                       single_threaded_blas, squared_norms)
from ..parallel import resolve_n_jobs

try:  # the libsvm entry point SVC.fit calls (see libsvm_fit)
    from sklearn.svm._libsvm import fit as _LIBSVM_FIT
    from sklearn.svm._libsvm import set_verbosity_wrap as _LIBSVM_QUIET
except ImportError:  # pragma: no cover
    _LIBSVM_FIT = None

# Kernel blocks of at most this size: the allocator then reuses their memory from chunk to chunk
# instead of mapping fresh pages (measured on Covertype: system time 4.7 s -> 0.02 s a 100k
# points), and the product stays efficient.  ``memory_mb`` only ever lowers it.
BLOCK_MB = 16
MIN_THREAD_ROWS = 256  # fewer test points than this are not worth a thread of their own

@dataclass(frozen=True)
class TrainSettings:
    """What every binary problem of one fit shares; ``gram``, when given, is K(X, X) over all
    training rows, from which every problem reads its kernel values; ``reuse``, when given, is
    a :class:`.reuse.ReuseScope` whose machines stand in for training (see :func:`fit_binary`)."""

    kernel: Kernel
    C: float
    tol: float
    cache_size: float
    memory_mb: float
    n_jobs: object = None
    gram: np.ndarray | None = field(default=None, compare=False, repr=False)
    reuse: object = field(default=None, compare=False, repr=False)


@dataclass
class BinaryFit:
    """One trained binary SVM: f(x) = sum_s dual_coef[s] k(X[support[s]], x) + intercept,
    f > 0 meaning the positive class.  ``support`` holds training-row indices; ``pid`` and
    ``cpu_seconds`` say which process trained it and its CPU time there; ``n_iter`` is libsvm's
    SMO iteration count for it (``SVC.n_iter_``); ``reused``: taken from a reuse store, not
    trained (no SMO iterations, no CPU time)."""

    support: np.ndarray
    dual_coef: np.ndarray
    intercept: float
    pid: int
    cpu_seconds: float
    n_iter: int
    reused: bool = False

    def as_reused(self):
        """This machine as a reused one: the same SVM, at no cost, in this process."""
        return replace(self, pid=os.getpid(), cpu_seconds=0.0, n_iter=0, reused=True)


def fit_binary(X, rows, positive, settings, gram=None):
    """Train the soft-margin SVM separating ``positive`` rows of ``X[rows]`` from the others.

    With ``gram`` = K(X[rows], X[rows]) (shared by several problems on the same rows), or taken
    from the fit's whole ``settings.gram``, libsvm reads kernel values from it; without, libsvm
    computes them itself, only for the columns SMO visits, through its kernel cache (for a single
    problem that beats computing a Gram matrix for it).  A CSR ``X`` goes to libsvm as it is.
    With ``settings.reuse``, a stored machine that solves this problem at C is returned instead.
    """
    if settings.reuse is not None:
        return settings.reuse.fit(rows, positive, settings,
                                  lambda: train_binary(X, rows, positive, settings, gram))
    return train_binary(X, rows, positive, settings, gram)


def train_binary(X, rows, positive, settings, gram=None):
    """:func:`fit_binary` without reuse: libsvm trains the machine."""
    started = time.process_time()
    if gram is None and settings.gram is not None:
        gram = rows_gram(settings.gram, rows)
    if gram is not None:
        fitted = libsvm_fit(gram, positive, settings, {"kernel": "precomputed"})
    else:
        fitted = libsvm_fit(X[rows], positive, settings, settings.kernel.svc_params())
    support, dual_coef, intercept, n_iter = fitted
    return BinaryFit(
        support=np.asarray(rows)[support],
        dual_coef=dual_coef,
        intercept=intercept,
        pid=os.getpid(),
        cpu_seconds=time.process_time() - started,
        n_iter=n_iter,
    )


def libsvm_fit(X, positive, settings, kernel_params):
    """libsvm's C-SVC on rows ``X`` (or a precomputed Gram matrix) with labels ``positive``:
    (support row indices, dual coefficients y_s alpha_s, intercept b, SMO iterations), with
    f(x) = sum_s dual_coef[s] k(x_s, x) + b > 0 meaning positive, exactly as
    ``SVC(**kernel_params, C=, tol=, cache_size=).fit(X, positive)`` gives them
    (``dual_coef_[0]``, ``intercept_[0]``, ``n_iter_[0]``).

    It calls the same libsvm entry point ``SVC.fit`` calls (``sklearn.svm._libsvm.fit``) with
    the arguments ``SVC.fit`` passes, without SVC's per-call parameter and array checks (done
    once per fit here: ``X`` is finite float64, C and the kernel are checked by the estimator).
    Those checks cost 0.6 ms a call, 4x libsvm's own time on a 100-row problem, and dominated
    the small datasets' grids (Max Wins on vowel: 3.1 s of 3.9 s).  If the private entry point
    is missing or changed, ``SVC`` itself is used.  tests/test_shared_gram.py checks both give
    the same machine.
    """
    labels = positive.astype(np.float64)  # SVC's encoding of the classes {False, True}: 0, 1
    if _LIBSVM_FIT is not None and not sp.issparse(X):  # sparse rows go through SVC's sparse path
        try:
            return _direct_libsvm(np.ascontiguousarray(X, dtype=np.float64), labels, settings,
                                  kernel_params)
        except TypeError:  # another scikit-learn's signature: go through SVC
            pass
    params = {"gamma": 1.0, **kernel_params} if kernel_params["kernel"] == "precomputed" \
        else kernel_params
    with config_context(assume_finite=True):  # checked by the estimator / where the Gram was made
        svc = SVC(C=settings.C, tol=settings.tol, cache_size=settings.cache_size,
                  **params).fit(X, positive.astype(np.int8))
    dual_coef = svc.dual_coef_.toarray() if sp.issparse(svc.dual_coef_) else svc.dual_coef_
    return (svc.support_, np.ravel(dual_coef[0]).copy(), float(svc.intercept_[0]),
            int(svc.n_iter_[0]))


def _direct_libsvm(X, labels, settings, kernel_params):
    """``sklearn.svm._libsvm.fit`` with SVC's defaults (C-SVC, shrinking, no probability, no
    iteration limit, unit class weights) and SVC's sign flip for two classes."""
    kernel = kernel_params["kernel"]
    _LIBSVM_QUIET(0)  # as SVC(verbose=False) sets it before every fit
    (support, _, _, dual_coef, intercept, _, _, status, n_iter) = _LIBSVM_FIT(
        X, labels, svm_type=0, sample_weight=np.empty(0), class_weight=np.ones(2),
        kernel=kernel, C=settings.C, nu=0.5, probability=0,
        degree=int(kernel_params.get("degree", 3)), shrinking=1, tol=settings.tol,
        cache_size=settings.cache_size, coef0=float(kernel_params.get("coef0", 0.0)),
        gamma=float(kernel_params.get("gamma", 1.0)), epsilon=0.1, max_iter=-1,
        random_seed=0)
    if status:
        warnings.warn(f"libsvm stopped with status {status}", ConvergenceWarning)
    dual_coef, intercept = -dual_coef[0], -float(intercept[0])
    if not (np.isfinite(dual_coef).all() and np.isfinite(intercept)):
        raise ValueError("The dual coefficients or intercepts are not finite. The input data "
                         "may contain large values and need to be preprocessed.")
    return support, dual_coef, intercept, int(np.ravel(n_iter)[0])


def run_in_threads(task, items, n_jobs):
    """``[task(item) for item in items]``, in ``n_jobs`` threads when more than one (a plain
    thread pool: these tasks are milliseconds long, too short for joblib's dispatch).

    Prediction work is split by rows: each thread runs BLAS on one thread (small products gain
    nothing from BLAS threads, which only wait on each other when the cores are busy), and numpy
    releases the GIL in the element-wise steps, so chunks really run side by side.
    """
    n_threads = thread_count(n_jobs)
    with single_threaded_blas():
        if n_threads == 1 or len(items) < 2:
            return [task(item) for item in items]
        with ThreadPoolExecutor(max_workers=min(n_threads, len(items))) as pool:
            return list(pool.map(task, items))


def thread_count(n_jobs):
    """Threads for ``n_jobs`` (see :func:`multisvm_cli.parallel.resolve_n_jobs`)."""
    return resolve_n_jobs(n_jobs)


def row_slices(n_rows, step):
    """Consecutive slices of at most ``step`` rows covering ``n_rows`` rows."""
    return [slice(start, min(start + step, n_rows)) for start in range(0, n_rows, step)]


def concatenate_rows(arrays, empty_shape):
    """The arrays stacked along rows, or an empty array of ``empty_shape`` if there are none."""
    return np.concatenate(arrays) if arrays else np.empty(empty_shape)


def run_parallel(tasks, n_jobs):
    """Run delayed tasks with joblib, threads preferred (libsvm and BLAS release the GIL);
    ``n_jobs`` through the one resolver (None: the surrounding ``parallel_config``'s)."""
    workers = None if n_jobs is None else thread_count(n_jobs)
    return Parallel(n_jobs=workers, prefer="threads")(tasks)


def foreign_cpu_seconds(fits):
    """CPU seconds of the fits that ran in other processes (process_time misses those)."""
    me = os.getpid()
    return sum(fit.cpu_seconds for fit in fits if fit.pid != me)


def smo_iterations(fits):
    """libsvm's SMO iterations summed over ``fits`` (0 for none)."""
    return sum(fit.n_iter for fit in fits)


def one_vs_rest_problems(y_index, rows, classes):
    """The (rows, positive mask) problems of one-vs-rest among ``classes`` on ``rows``.

    With two classes there is one problem, positive = ``classes[1]``; with more, one problem
    per class, positive = that class.
    """
    labels = y_index[rows]
    positives = classes[1:] if len(classes) == 2 else classes
    return [(rows, labels == c) for c in positives]


def rows_gram(gram, rows):
    """K(X[rows], X[rows]) from the whole K(X, X): the matrix itself when ``rows`` are all rows
    in order, else the gathered sub-matrix."""
    rows = np.asarray(rows)
    if len(rows) == len(gram) and np.array_equal(rows, np.arange(len(gram))):
        return gram
    return gram[np.ix_(rows, rows)]


def fit_one_vs_rest(X, y_index, rows, classes, settings):
    """Train one-vs-rest SVMs among ``classes`` (class indices) on training ``rows``.

    All problems share the same rows, so their Gram matrix is computed once (when it fits the
    memory budget, and not when every machine is reused) and shared by every task without copies.
    """
    rows = np.asarray(rows)
    problems = one_vs_rest_problems(y_index, rows, classes)
    gram, all_reused = None, settings.reuse is not None and settings.reuse.covers_all(problems, settings)
    if settings.gram is not None and not all_reused:
        gram = rows_gram(settings.gram, rows)
    elif gram_fits(len(rows), settings.memory_mb) and not all_reused:
        gram = settings.kernel.gram(X[rows], thread_count(settings.n_jobs))
    tasks = [delayed(fit_binary)(X, r, pos, settings, gram) for r, pos in problems]
    return run_parallel(tasks, settings.n_jobs)


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
        self.membership = (self.coef.T != 0).tocsr().astype(np.int32)  # (n_machines, n_pool)
        self._blocks = self._group_blocks()
        self._node_cache = {}  # machine -> node-block operands, built on first use

    def _group_blocks(self):
        """[(first pool row, end pool row, machine columns, dense coefficients)] per group."""
        rows = self.coef.tocsr()
        bounds = np.flatnonzero(np.diff(self.groups)) + 1
        blocks = []
        for start, stop in zip(np.r_[0, bounds], np.r_[bounds, self.n_pool]):
            part = rows[start:stop]
            columns = np.unique(part.indices)
            if len(columns):
                blocks.append((start, stop, columns, part[:, columns].toarray()))
        return blocks

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
        if self.is_sparse:
            vectors = {prefix + "vectors_data": self.vectors.data,
                       prefix + "vectors_indices": self.vectors.indices.astype(np.int64),
                       prefix + "vectors_indptr": self.vectors.indptr.astype(np.int64),
                       prefix + "vectors_shape": np.asarray(self.vectors.shape, dtype=np.int64)}
        else:
            vectors = {prefix + "vectors": self.vectors}
        return {**vectors, prefix + "coef_data": self.coef.data,
                prefix + "coef_indices": self.coef.indices.astype(np.int64),
                prefix + "coef_indptr": self.coef.indptr.astype(np.int64),
                prefix + "intercept": self.intercept, prefix + "groups": self.groups}

    @classmethod
    def from_arrays(cls, kernel, arrays, prefix, n_features, n_machines):
        """Rebuild from :meth:`to_arrays`; ValueError if the arrays do not describe
        ``n_machines`` machines on ``n_features`` features: real-valued finite vectors (dense, or
        sparse as :func:`sparse_vectors` checks), coefficients and intercepts, integer indices, a
        valid column pointer, row indices in range and strictly increasing within each machine,
        and sorted groups >= 0."""
        dense = prefix + "vectors" in arrays
        vectors = arrays[prefix + "vectors"] if dense else sparse_vectors(arrays, prefix)
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


def sparse_vectors(arrays, prefix):
    """The CSR support-vector pool saved by :meth:`Machines.to_arrays`; ValueError unless its
    shape is two non-negative integers, its row pointer starts at 0, never decreases and ends
    at the number of values, and every column index is within the shape."""
    names = [prefix + "vectors_" + k for k in ("data", "indices", "indptr", "shape")]
    missing = [name for name in names if name not in arrays]
    if missing:
        raise ValueError(f"the support vectors are missing: no {prefix}vectors nor {', '.join(missing)}")
    data, indices, indptr, shape = (arrays[name] for name in names)
    if not all(a.ndim == 1 and a.dtype.kind in "iu" for a in (indices, indptr, shape)) or data.ndim != 1:
        raise ValueError(f"{prefix}vectors_data, _indices, _indptr and _shape must be 1-D (integer indices)")
    if len(shape) != 2 or shape.min() < 0:
        raise ValueError(f"{prefix}vectors_shape must be two non-negative sizes, got {shape.tolist()}")
    n_rows, n_columns = (int(v) for v in shape)
    if len(indptr) != n_rows + 1 or indptr[0] != 0 or indptr[-1] != len(data) or np.any(np.diff(indptr) < 0):
        raise ValueError(f"{prefix}vectors_indptr is not a valid row pointer for {n_rows} rows "
                         f"and {len(data)} values")
    if len(indices) != len(data):
        raise ValueError(f"{prefix}vectors_indices must have one column index per value ({len(data)})")
    if len(indices) and (indices.min() < 0 or indices.max() >= n_columns):
        raise ValueError(f"{prefix}vectors_indices out of range 0..{n_columns - 1}")
    return sp.csr_matrix((data.astype(np.float64), indices, indptr), shape=(n_rows, n_columns))

