"""The K = N(N-1)/2 pairwise (1-v-1) SVMs that Max Wins and the DAGSVM share.

Pairs are numbered as LIBSVM numbers them: (0,1), (0,2), ..., (0,N-1), (1,2), ...  Machine
(i, j), i < j, is trained only on the examples of classes i and j (class i's rows first, as
LIBSVM's sub-problem), with class j positive: f_ij(x) < 0 votes for class i, f_ij(x) >= 0 for
class j (LIBSVM's rule "decision value > 0 -> i" with its opposite sign convention).
"""

import numpy as np
from joblib import delayed

from ._binary import fit_binary, run_parallel
from ._primal import build_machines


def class_pairs(n_classes):
    """(K, 2) array of the pairs (i, j), i < j, in LIBSVM's order."""
    i, j = np.triu_indices(n_classes, k=1)
    return np.column_stack([i, j])


def pair_table(n_classes):
    """(N, N) table: entry [i, j] = [j, i] = the machine index of pair (i, j); -1 on the diagonal."""
    table = np.full((n_classes, n_classes), -1, dtype=np.intp)
    pairs = class_pairs(n_classes)
    table[pairs[:, 0], pairs[:, 1]] = np.arange(len(pairs))
    table[pairs[:, 1], pairs[:, 0]] = np.arange(len(pairs))
    return table


def pairwise_problems(y_index, n_classes):
    """The (rows, positive mask) problem of each pair (i, j) in :func:`class_pairs` order: the
    rows of class i, then those of class j, class j positive."""
    class_rows = [np.flatnonzero(y_index == c) for c in range(n_classes)]
    problems = []
    for i, j in class_pairs(n_classes):
        rows = np.concatenate([class_rows[i], class_rows[j]])
        problems.append((rows, np.arange(len(rows)) >= len(class_rows[i])))
    return problems


def fit_pairwise(X, y_index, n_classes, settings):
    """Train all pairwise SVMs (in parallel); return (Machines, their BinaryFits).

    libsvm computes each pair's kernel values on demand (see ``fit_binary``): no Gram matrix.
    """
    tasks = [delayed(fit_binary)(X, rows, positive, settings)
             for rows, positive in pairwise_problems(y_index, n_classes)]
    fits = run_parallel(tasks, settings.n_jobs)
    return build_machines(settings, X, fits, y_index), fits

