"""The Newton step's KKT system reduced to its rows' multipliers, class by class: the gathers
and sums around LAPACK's inverses (numba; imported only when a joint machine trains).
:mod:`.newton` states the system and inverts each class's block; here are the compiled parts:

- :func:`gather`: for each class m, M_m = Q_{F_m F_m} + ridge I;
- :func:`assemble`: from the M_m^-1, S = sum_m P_m M_m^-1 P_m' and rhs = -sum_m P_m M_m^-1 g_m;
- :func:`directions`: given S lambda = rhs solved, D_m = -M_m^-1 (g_m + P_m' lambda).

The variables come grouped by class (``starts``), each class's block in one flat array (M_m,
then in place its inverse, row-major at ``offsets``).

Why compiled: on vowel's warm C path at gamma 2^-4 a Newton step has about 500 free variables
over 11 classes (45 a class), and the NumPy loop these replace spent about 75 us a class, more
in gathering M_m and scattering M_m^-1 into S (``np.ix_``) than in LAPACK: 0.84 ms a system on
states captured from that path (one-off script, 2026-11-27; docs/results/speed.md has the
whole step's times).
"""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def gather(Q, positions, starts, ridge):
    """(blocks, offsets): each class's M_m = Q_{F_m F_m} + ``ridge`` I, flat, row-major at
    offsets[c] (the variables starts[c] to starts[c + 1] are class c's, in the rows
    ``positions`` of ``Q``)."""
    n_groups = len(starts) - 1
    offsets = np.zeros(n_groups + 1, np.int64)
    for c in range(n_groups):
        size = starts[c + 1] - starts[c]
        offsets[c + 1] = offsets[c] + size * size
    blocks = np.empty(offsets[-1])
    for c in range(n_groups):
        first, size = starts[c], starts[c + 1] - starts[c]
        M = blocks[offsets[c]:offsets[c + 1]].reshape(size, size)
        for a in range(size):
            for b in range(size):
                M[a, b] = Q[positions[first + a], positions[first + b]]
            M[a, a] += ridge
    return blocks, offsets


@njit(cache=True, nogil=True)
def assemble(inverses, offsets, g, positions, starts, n_rows):
    """(S, rhs) from each class's M_m^-1 (at :func:`gather`'s offsets; its lower triangle
    given, which is mirrored onto the upper in place)."""
    S, rhs = np.zeros((n_rows, n_rows)), np.zeros(n_rows)
    for c in range(len(starts) - 1):
        first, size = starts[c], starts[c + 1] - starts[c]
        at = positions[first:first + size]
        inverse = inverses[offsets[c]:offsets[c + 1]].reshape(size, size)
        for a in range(size):
            for b in range(a):
                inverse[b, a] = inverse[a, b]
        for a in range(size):
            total = 0.0
            for b in range(size):
                S[at[a], at[b]] += inverse[a, b]
                total += inverse[a, b] * g[first + b]
            rhs[at[a]] -= total
    return S, rhs


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
