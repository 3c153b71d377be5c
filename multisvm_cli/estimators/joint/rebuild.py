"""The gradient's reconstruction read straight from a stored Gram matrix (numba; imported only
when a joint machine trains, by :func:`.solver.reconstruct`).

After unshrinking (and at a warm start), G = Q beta + e of some examples is rebuilt from
scratch: G_me = e_me + sum_j beta_mj (K_je + shift) over the examples j with a non-zero dual
row.  With K(X, X) stored whole, the K_je are read in place from row j of it, one support
vector at a time, and added into G's rows only for its non-zero coefficients: no block of
kernel values is gathered or copied, and a Crammer & Singer row (k entries summing to 0, often
only two or three of them non-zero) costs what its non-zero entries do.  On satimage (4,435
rows, C&S at gamma 1, C 16) the one rebuild reads 1,398 support rows with 3,938 non-zero
coefficients of 8,388 into 3,032 set-aside examples, where NumPy gathered that (1,398 x 3,032)
block (34 MB) and copied it once more to add the shift.
"""

from numba import njit


@njit(cache=True, nogil=True)
def add_support_rows(G, beta, support, gram, examples, shift):
    """G[m, e] += sum_j beta[m, j] (gram[j, e] + shift), in place, for e in ``examples`` and
    j in ``support`` (in that order, each j's entries added in turn), skipping the zero
    coefficients (they add nothing).  ``G`` and ``beta`` are (k, l), ``gram`` (l, l)."""
    for j in support:
        row = gram[j]
        for m in range(beta.shape[0]):
            coefficient = beta[m, j]
            if coefficient == 0.0:
                continue
            scores = G[m]
            for e in examples:
                scores[e] += coefficient * (row[e] + shift)
