"""Kernel values read in place from a stored Gram matrix (numba; imported only when a joint
machine trains, by :class:`.kernel_rows.KernelRows` where it holds K(X, X) whole).

- :func:`add_rows`: G[:, examples] += coef (K[support, examples] + shift), one support row
  at a time, each added into G's rows only for its non-zero coefficients.  It serves the
  gradient's reconstruction after unshrinking and at a warm start (G = e + beta (K + shift)
  over the examples with a non-zero dual row), and G's update after a Newton step.  No block of
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


@njit(cache=True, nogil=True)
def add_rows(G, coef, support, gram, examples, shift):
    """G[m, e] += sum_s coef[m, s] (gram[support[s], e] + shift), in place, for e in
    ``examples`` (distinct) and each s in turn, skipping the zero coefficients (they add
    nothing).  ``G`` is (k, l), ``coef`` (k, len(support)), ``gram`` (l, l).  When
    ``examples`` are all l columns, the pass runs over them in order (consecutive entries: it
    compiles to vector instructions); the numbers are the same."""
    everyone = len(examples) == G.shape[1]
    for s in range(len(support)):
        row = gram[support[s]]
        for m in range(coef.shape[0]):
            coefficient = coef[m, s]
            if coefficient == 0.0:
                continue
            scores = G[m]
            if everyone:
                for e in range(len(row)):
                    scores[e] += coefficient * (row[e] + shift)
            else:
                for e in examples:
                    scores[e] += coefficient * (row[e] + shift)


@njit(cache=True, nogil=True)
def gather(gram, rows, columns):
    """gram[rows][:, columns], a new (len(rows), len(columns)) array."""
    block = np.empty((len(rows), len(columns)))
    for a in range(len(rows)):
        row = gram[rows[a]]
        for b in range(len(columns)):
            block[a, b] = row[columns[b]]
    return block
