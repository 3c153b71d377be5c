"""The Newton step's KKT system reduced to its rows' multipliers, class by class (numba;
imported only when a joint machine trains).  :mod:`.newton` states the system; here are its two
compiled halves around the solve of S lambda = rhs:

- :func:`assemble`: for each class m, M_m = Q_{F_m F_m} + ridge I and its inverse, and their
  sums S = sum_m P_m M_m^-1 P_m' and rhs = -sum_m P_m M_m^-1 g_m;
- :func:`directions`: D_m = -M_m^-1 (g_m + P_m' lambda).

The variables come grouped by class (``starts``), each class's variables in one block of the
flat ``inverses`` (its M_m^-1, row-major, at ``offsets``).  M_m^-1 comes from Cholesky's factor
(M_m = U'U, solved against the identity: U'Y = I, U X = Y, as LAPACK's potrs does) or, where
rounding or a kernel that is not positive semi-definite makes M_m indefinite, from LU
(``np.linalg.inv``, which raises LinAlgError for a singular M_m: the step is then not taken).

Why compiled: on vowel's warm C path at gamma 2^-4 a Newton step has about 500 free variables
over 11 classes (45 a class), and the NumPy loop it replaces spent about 75 us a class
gathering M_m, inverting it by LAPACK and scattering M_m^-1 into S, mostly between the calls:
0.84 ms a system on states captured from that path, 0.63 ms compiled (one-off script,
2026-11-27; docs/results/speed.md has the whole step's times).
"""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def cholesky_inverse(M, out):
    """M^-1 of a symmetric M into ``out`` through M = U'U (U overwrites M's upper triangle);
    False, with ``out`` unspecified, when a pivot is not positive (M not positive definite).
    Every inner loop runs along a row (contiguous, vectorized): U by right-looking updates,
    then U'Y = I and U X = Y row by row."""
    n = M.shape[0]
    for j in range(n):
        if not M[j, j] > 0.0:
            return False
        M[j, j] = np.sqrt(M[j, j])
        for c in range(j + 1, n):
            M[j, c] /= M[j, j]
        for i in range(j + 1, n):
            factor = M[j, i]
            for c in range(i, n):
                M[i, c] -= factor * M[j, c]
    out[:, :] = 0.0
    for i in range(n):  # U'Y = I: row i of Y (lower triangular) from the rows above it
        out[i, i] = 1.0
        for p in range(i):
            factor = M[p, i]
            for c in range(p + 1):
                out[i, c] -= factor * out[p, c]
        for c in range(i + 1):
            out[i, c] /= M[i, i]
    for i in range(n - 1, -1, -1):  # U X = Y: row i of X from the rows below it
        for p in range(i + 1, n):
            factor = M[i, p]
            for c in range(n):
                out[i, c] -= factor * out[p, c]
        for c in range(n):
            out[i, c] /= M[i, i]
    return True


@njit(cache=True, nogil=True)
def assemble(Q, g, positions, starts, ridge, n_rows):
    """(S, rhs, inverses, offsets) of the variables grouped by class: variables starts[c] to
    starts[c + 1] are class c's (in the rows ``positions`` of ``Q``, gradient ``g``)."""
    n_groups = len(starts) - 1
    offsets = np.zeros(n_groups + 1, np.int64)
    for c in range(n_groups):
        size = starts[c + 1] - starts[c]
        offsets[c + 1] = offsets[c] + size * size
    S, rhs, inverses = np.zeros((n_rows, n_rows)), np.zeros(n_rows), np.empty(offsets[-1])
    for c in range(n_groups):
        first, size = starts[c], starts[c + 1] - starts[c]
        at = positions[first:first + size]
        M = np.empty((size, size))
        for a in range(size):
            for b in range(size):
                M[a, b] = Q[at[a], at[b]]
            M[a, a] += ridge
        inverse = inverses[offsets[c]:offsets[c + 1]].reshape(size, size)
        if not cholesky_inverse(M.copy(), inverse):
            inverse[:, :] = np.linalg.inv(M)
        for a in range(size):
            total = 0.0
            for b in range(size):
                S[at[a], at[b]] += inverse[a, b]
                total += inverse[a, b] * g[first + b]
            rhs[at[a]] -= total
    return S, rhs, inverses, offsets


@njit(cache=True, nogil=True)
def directions(inverses, offsets, g, positions, starts, multipliers):
    """D of the variables grouped by class (:func:`assemble`'s ``inverses`` and ``offsets``),
    given the rows' ``multipliers`` lambda: D_m = -M_m^-1 (g_m + P_m' lambda)."""
    direction = np.empty(len(g))
    for c in range(len(starts) - 1):
        first, size = starts[c], starts[c + 1] - starts[c]
        inverse = inverses[offsets[c]:offsets[c + 1]].reshape(size, size)
        for a in range(size):
            total = 0.0
            for b in range(size):
                total += inverse[a, b] * (g[first + b] + multipliers[positions[first + b]])
            direction[first + a] = -total
    return direction
