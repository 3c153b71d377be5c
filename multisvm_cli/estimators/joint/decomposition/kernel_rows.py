"""The all-together solver's kernel rows (:class:`KernelRows`): K(X, X) whole, or a cache of
its rows, and the kernel products read from them.

When K(X, X) fits in ``memory_mb`` MB (or the fit was given it), it is computed once
(``Kernel.gram``, into ordinary pages: :func:`plain_pages`) and every row is read from it: the
rule by which every scheme holds a training Gram matrix (``memory_mb``, "the largest training
Gram matrix to compute", :func:`..kernels.gram_fits`; one-vs-rest's libsvm machines read theirs
from it too).  Otherwise rows live in a cache of ``cache_size`` MB, the least recently read row
evicted first, as libsvm's.  (Until 2026-11-27 the Gram matrix was held only where it fitted
``cache_size``: Letter's 10,500-row validation fits, 882 MB, cached rows in 200 MB and took
1.24x to 1.30x the CPU along a C path; docs/results/speed.md.)  A step that needs a row the
cache lacks returns to Python, which computes it as a BLAS product (``Kernel.block``, sparse
or dense X).  (Computing the rows of the next most violating examples with it, 64 at a time,
was measured 5x slower on Letter's 15,000 rows: the working example moves around so much that
most of them were evicted unread.)  Blocks of kernel values (a Newton step's, :mod:`.newton`;
the gradient's reconstruction, :func:`.solver.reconstruct`) are read in place from K(X, X)
where it is stored (:mod:`.stored`), else computed in blocks of bounded size.
"""

import mmap

import numpy as np
import scipy.sparse as sp

from ...kernels import (BYTES_PER_VALUE, GRAM_TILE, OVERFLOW_MESSAGE, gram_fits, rows_per_chunk,
                       squared_norms)
from ....base.parallel import resolve_n_jobs
from ..._machines import row_slices

CARRIED, EMPTY = -1, -2  # read stamps of a row kept from the previous solve, of an empty slot
MIN_CACHE_ROWS = 2  # libsvm's cache keeps at least two columns, whatever cache_size says


def data_bytes(X):
    """Bytes of the training data as stored: a dense array's values, or a CSR matrix's values,
    column indices and row pointer."""
    if sp.issparse(X):
        return int(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes)
    return int(X.nbytes)


def plain_pages(n_rows, n_columns):
    """An (n_rows, n_columns) float64 array of zeros, mapped in the operating system's ordinary
    pages and, on Linux, faulted in at once (``MAP_POPULATE``).

    Why not ``np.empty``: NumPy asks Linux for transparent huge pages for any array of 4 MB or
    more, and on the shared virtual machine of docs/results/speed.md a huge page new to the
    process costs several ms of system time to fault in.  Satimage's 157 MB Gram matrix, page
    faults alone (system + user CPU, 2026-11-26): in huge pages 0.32, 0.12 and 0.015 s for
    three allocations in turn in a fresh process, 0.01 s once it reused the ones it freed; 0.08
    s in ordinary pages faulted one at a time; 0.05 s populated at once, every time.  Where
    Linux gives huge pages to every mapping (its ``always`` setting), this one gets them too."""
    values = n_rows * n_columns
    size = max(1, values * BYTES_PER_VALUE)
    if hasattr(mmap, "MAP_PRIVATE"):  # POSIX: private (a forked child copies on write)
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_POPULATE", 0)
        pages = mmap.mmap(-1, size, flags=flags)
    else:  # Windows: an anonymous map is private to the process
        pages = mmap.mmap(-1, size)
    return np.frombuffer(pages, np.float64, values).reshape(n_rows, n_columns)


class KernelRows:
    """Rows K(x_i, X) of the training rows: all of K(X, X) (``full``), or an LRU cache of
    ``capacity`` rows (``rows[slot]`` holds row ``owner[slot]``; ``slot_of[i]`` is row i's slot
    or -1; ``stamp[slot]``: the step it was last read at, -1 for an empty slot; see
    :meth:`carried_over` for a C path's next solve)."""

    def __init__(self, X, kernel, cache_mb, memory_mb, gram=None, n_jobs=None):
        n = X.shape[0]
        self.X, self.kernel = X, kernel
        self.norms = squared_norms(X) if kernel.name == "gaussian" else None
        self._columns = (n, X, self.norms)  # (active count, their rows, their norms)
        if gram is None and gram_fits(n, memory_mb):
            gram = kernel.gram(X, resolve_n_jobs(n_jobs), plain_pages(n, n))
        self.full = gram is not None
        self.diag = np.diagonal(gram).copy() if self.full else self._diagonal()
        if self.full:
            self.rows, self.slot_of = gram, np.arange(n, dtype=np.int64)
            self.owner, self.stamp = self.slot_of.copy(), np.zeros(n, np.int64)
            return
        capacity = max(MIN_CACHE_ROWS, min(n, int(cache_mb * 2**20 // (BYTES_PER_VALUE * n))))
        self.rows = np.zeros((capacity, n))  # finite: update() reads set-aside columns too
        self.slot_of = np.full(n, -1, np.int64)
        self.owner, self.stamp = np.full(capacity, -1, np.int64), np.full(capacity, -1, np.int64)

    @classmethod
    def of(cls, X, settings):
        """The rows of a fit's training ``X`` under its ``TrainSettings`` (kernel, cache_size,
        memory_mb, gram, n_jobs)."""
        return cls(X, settings.kernel, settings.cache_size, settings.memory_mb, settings.gram,
                   settings.n_jobs)

    def _diagonal(self):
        """K(x_j, x_j) of every training row, from square blocks of ``GRAM_TILE`` rows (the
        blocks on the Gram matrix's diagonal: with K(X, X) stored, its diagonal is read)."""
        n = self.X.shape[0]
        diag = np.empty(n)
        for start in range(0, n, GRAM_TILE):
            part = np.arange(start, min(n, start + GRAM_TILE))
            diag[part] = np.diagonal(self.block(part, part))
        return diag

    @property
    def nbytes(self):
        return int(self.rows.nbytes)

    def block(self, rows, columns):
        """K(X[rows], X[columns]), a new array: read from K(X, X) where it is stored
        (:func:`.stored.gather`), else computed (:meth:`_checked`)."""
        if self.full:
            from .stored import gather  # numba loads here, not at import

            return gather(self.rows, np.asarray(rows, np.int64), np.asarray(columns, np.int64))
        norms = self.norms
        return self._checked(rows, self.X[columns], None if norms is None else norms[columns])

    def block_bytes(self, n_rows, n_columns):
        """The most bytes :meth:`block` holds at once for an (n_rows, n_columns) block: read
        from K(X, X), the block alone; computed, the kernel's (``Kernel.block_bytes``), the
        block's finite mask (1 byte a value) and the rows of X it gathers (their share of
        :func:`data_bytes`)."""
        if self.full:
            return n_rows * n_columns * BYTES_PER_VALUE
        gathered = data_bytes(self.X) * (n_rows + n_columns) // self.X.shape[0]
        return self.kernel.block_bytes(n_rows, n_columns) + n_rows * n_columns + gathered

    def add_products(self, G, coef, support, examples, shift, memory_mb):
        """G[:, examples] += coef (K(X[support], X[examples]) + shift), in place; ``coef`` is
        (k, len(support)), ``examples`` distinct.  Read in place from K(X, X) where it is
        stored (:func:`.stored.add_rows`: no kernel value computed or copied), else computed
        in blocks of at most ``memory_mb`` (:meth:`block`).  Returns the most bytes its
        temporaries held at once: read in place, :func:`.stored.added_bytes`; computed, a block
        while built, then with it the product and G's columns (k values a column each)."""
        examples = np.asarray(examples, np.int64)
        if self.full:
            from .stored import add_rows, added_bytes  # numba loads here, not at import

            add_rows(G, coef, np.asarray(support, np.int64), self.rows, examples, float(shift))
            return added_bytes(G.shape[0], len(examples), G.shape[1])
        most = 0
        for part in row_slices(len(examples), rows_per_chunk(len(support), memory_mb)):
            block = self.block(support, examples[part])
            block += shift
            G[:, examples[part]] += coef @ block
            most = max(most, self.block_bytes(len(support), block.shape[1]),
                       block.nbytes + 2 * G.shape[0] * block.shape[1] * BYTES_PER_VALUE)
        return most

    def _checked(self, rows, columns, column_norms):
        """K(X[rows], ``columns``) given the columns' rows and norms; ValueError if a kernel
        value overflows."""
        row_norms = None if self.norms is None else self.norms[rows]
        block = self.kernel.block(self.X[rows], columns, row_norms, column_norms)
        if not np.isfinite(block).all():
            raise ValueError(OVERFLOW_MESSAGE)
        return block

    def fetch(self, wanted, step, active):
        """Compute row ``wanted`` (not cached) into the least recently read slot, over the
        ``active`` examples' columns only (the others are stale until :meth:`flush`)."""
        slot = int(np.argmin(self.stamp))
        if self.owner[slot] >= 0:
            self.slot_of[self.owner[slot]] = -1
        if self._columns[0] != len(active):  # shrinking changed the columns: gather them once
            self._columns = (len(active), self.X[active], None if self.norms is None else self.norms[active])
        block = self._checked([wanted], *self._columns[1:])
        if len(active) == self.X.shape[0]:
            self.rows[slot] = block[0]
        else:
            self.rows[slot, active] = block[0]
        self.owner[slot], self.slot_of[wanted], self.stamp[slot] = wanted, slot, step

    def refill(self, owners):
        """Compute again the rows a solve ended with (``owners``: its :attr:`owner` array, -1
        for an empty slot), each into its slot, with the read stamps that
        :meth:`carried_over` gives: a path read back from disk then reads the very rows,
        slots and stamps the uninterrupted path would.  Each row is computed over every column,
        one at a time, as :meth:`fetch` computed it unshrunk (a solve that ends unshrunk holds
        only such rows: unshrinking flushes the others).  ValueError unless ``owners`` fits
        this cache (its capacity; distinct rows of X)."""
        owners = np.asarray(owners)
        held = owners[owners >= 0]
        if self.full or owners.shape != self.owner.shape or owners.dtype != np.int64 or \
                np.any(owners < -1) or np.any(held >= self.X.shape[0]) or \
                len(np.unique(held)) != len(held):
            raise ValueError("the kept kernel rows of a C path's point do not fit this cache")
        for slot in np.flatnonzero(owners >= 0):
            self.rows[slot] = self._checked([owners[slot]], self.X, self.norms)[0]
            self.owner[slot], self.slot_of[owners[slot]] = owners[slot], slot
        return self.carried_over()

    def carried_over(self):
        """These rows, readied for the next solve of a C path (:class:`PathPoint`): the cached
        rows stay (a solve that ended shrunk flushed them), with read stamps older than any of
        the next solve's reads (its steps count from 0): -1, and -2 for an empty slot, so that
        empty slots fill first and every kept row goes before a row the solve has read.

        (Stamps of 0 once tied with the rows fetched at the next solve's step 0: with every
        slot full and neither the step's example nor its partner cached, fetching the partner
        evicted the example just fetched, and back, without end.)"""
        if not self.full:
            self.stamp[:] = np.where(self.owner >= 0, CARRIED, EMPTY)
        return self

    def flush(self):
        """Forget every cached row (after unshrinking: their inactive columns are stale)."""
        if not self.full:
            self.slot_of[:], self.owner[:], self.stamp[:] = -1, -1, -1
        self._columns = (self.X.shape[0], self.X, self.norms)
