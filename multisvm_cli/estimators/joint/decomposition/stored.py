"""Kernel values read in place from a stored Gram matrix (numba; imported only when a joint
machine trains, by :class:`.kernel_rows.KernelRows` where it holds K(X, X) whole).

- :func:`add_rows`: G[:, examples] += coef (K[support, examples] + shift), one support row
  at a time, each added into G's rows only for its non-zero coefficients (:func:`added_bytes`:
  what it holds meanwhile).  It serves the gradient's reconstruction after unshrinking and at
  a warm start (G = e + beta (K + shift) over the examples with a non-zero dual row), and G's
  update after a Newton step.  No block of
  kernel values is gathered or copied, and a Crammer & Singer row (k entries summing to 0, often
  only two or three of them non-zero) costs what its non-zero entries do.  On satimage (4,435
  rows, C&S at gamma 1, C 16) the one rebuild reads 1,398 support rows with 3,938 non-zero
  coefficients of 8,388 into 3,032 set-aside examples, where NumPy gathered that (1,398 x 3,032)
  block (34 MB) and copied it once more to add the shift.
- :func:`gather`: the block K[rows, columns] as a new array (a Newton step's Q block), where
  NumPy's ``gram[np.ix_(rows, columns)]`` took as long as computing the block from X (0.38
  against 0.49 ms for vowel's 237 x 237).
"""

import numpy as np
from numba import njit

from ...kernels import BYTES_PER_VALUE


@njit(cache=True, nogil=True)
def add_rows(G, coef, support, gram, examples, shift):
    """G[m, e] += sum_s coef[m, s] (gram[support[s], e] + shift), in place, for e in
    ``examples`` (distinct) and each s in turn, skipping the zero coefficients (they add
    nothing).  ``G`` is (k, l), ``coef`` (k, len(support)), ``gram`` (l, l).  When
    ``examples`` are all l columns, the pass runs over them in order (consecutive entries: it
    compiles to vector instructions); otherwise over :func:`added_bytes`' two temporaries:
    G's columns gathered once, and each support row's values at ``examples`` gathered once
    for all its classes, so every class's pass reads consecutive entries too (W&W rebuilding
    Letter's set-aside examples: 25 classes a row, each of which had gathered the row again
    through the list).  The numbers are the same either way, each entry's sum in the same
    order."""
    k, count = G.shape[0], len(examples)
    if count == G.shape[1]:
        for s in range(len(support)):
            row = gram[support[s]]
            for m in range(k):
                coefficient = coef[m, s]
                if coefficient != 0.0:
                    scores = G[m]
                    for e in range(count):
                        scores[e] += coefficient * (row[e] + shift)
        return
    part, values = np.empty((k, count)), np.empty(count)
    for m in range(k):
        for b in range(count):
            part[m, b] = G[m, examples[b]]
    for s in range(len(support)):
        row, gathered = gram[support[s]], False
        for m in range(k):
            coefficient = coef[m, s]
            if coefficient == 0.0:
                continue
            if not gathered:
                for b in range(count):
                    values[b] = row[examples[b]] + shift
                gathered = True
            scores = part[m]
            for b in range(count):
                scores[b] += coefficient * values[b]
    for m in range(k):
        for b in range(count):
            G[m, examples[b]] = part[m, b]


def added_bytes(n_classes, n_examples, n_columns):
    """Bytes :func:`add_rows` holds for ``n_examples`` of ``n_columns`` examples: none when
    they are all of them, else G's gathered columns and one row's values."""
    return 0 if n_examples == n_columns else (n_classes + 1) * n_examples * BYTES_PER_VALUE


@njit(cache=True, nogil=True)
def gather(gram, rows, columns):
    """gram[rows][:, columns], a new (len(rows), len(columns)) array."""
    block = np.empty((len(rows), len(columns)))
    for a in range(len(rows)):
        row = gram[rows[a]]
        for b in range(len(columns)):
            block[a, b] = row[columns[b]]
    return block
