"""The all-together solver's named state: what the compiled loops (:mod:`.loops`) are handed and
hand back, by name.  Plain Python and NumPy (no numba), so :mod:`.solver` can build it at import.

- :class:`Formulation`: a formulation's facts (kind, the dual's constant, K's shift);
- :class:`Problem`: the dual being solved and how closely (constant over a solve);
- :class:`Cache`: the kernel rows the loops read (:class:`.kernel_rows.KernelRows`'s arrays);
- :class:`Dual`: the variables, their gradient and the per-example trackers of the KKT violation;
- :data:`PROGRESS`: the record the loops update in place between calls (steps taken, the
  working example, how many examples are active, why they returned).

numba compiles a named tuple of arrays as a struct of array views and a record field as a load
at a fixed offset, so the names cost nothing in the loops.
"""

from collections import namedtuple

import numpy as np

CS, WW = 0, 1  # Problem.kind: Crammer & Singer's formulation, Weston & Watkins'
LLW = 2  # Lee, Lin & Wahba's (its own loops: .absolute_loops)

Formulation = namedtuple("Formulation", "kind margin shift")
Formulation.__doc__ = """A formulation's facts, declared once in its module (:mod:`..crammer_singer`,
:mod:`..weston_watkins`, :mod:`..lee_lin_wahba`; by name: :data:`..formulations.FORMULATIONS`):
``kind``, the loops' code of it (CS, WW or LLW); ``margin``, the dual's constant e_im of a
wrong class m != y_i (the gradient at 0; 0 at m = y_i); ``shift``, what is added to K (1 for
Hsu & Lin's regularized bias, whose scores carry b_m = sum_i beta_im; 0 without a bias)."""

# Why loops.run returned: a kernel row is missing (PROGRESS.need_row names it), every active
# example meets the KKT conditions within tol, the step bound was reached, or the working
# example's step changed nothing (its violation, above tol, is below what float64 can move)
NEED_ROW, CONVERGED, BOUND, STALLED = 0, 1, 2, 3

Problem = namedtuple("Problem", "kind C shift tol shrink_every y diag")
Problem.__doc__ = """The dual of formulation ``kind`` (CS, WW or LLW) at ``C``, Q = K + ``shift``;
the stopping tolerance ``tol``; a shrinking pass every ``shrink_every`` steps (0: never); the
examples' class indices ``y`` (l,) and K_jj ``diag`` (l,)."""

Cache = namedtuple("Cache", "rows slot_of stamp")
Cache.__doc__ = """Kernel rows: row i is ``rows[slot_of[i]]`` (``slot_of[i]`` = -1: not
cached); ``stamp[slot]``: the step a slot was last read at (for eviction)."""

# One variable layout?  The solutions are (l, k) everywhere (JointSolution.beta, the linear
# path's beta, LLW's alpha), but the kernel loops keep C&S's and W&W's beta and G (k, l): a step
# moves a few classes (two or three for C&S, about 10 of Letter's 26 for W&W after thinning) and
# updates each moved class's G over every active example, a pass over consecutive entries that
# compiles to vector instructions (trackers.update_class); LLW's step moves every class of its
# row (the centring couples them) and updates all k entries of each example, so (l, k) keeps that
# pass contiguous (absolute_loops.update).  Transposing either would make its hot pass strided,
# and a C path's saved point (PathPoint, chain states on disk) is (k, l): both stay as they are.
Dual = namedtuple("Dual", "beta G high low stale active")
Dual.__doc__ = """The variables ``beta`` and their gradient ``G`` = Q beta + e (both (k, l));
per example, ``high`` (the largest G over its classes that may decrease), ``low`` (the smallest
over those that may increase) and ``stale`` (they only bound its violation from above); the
examples in play first in ``active`` (their count is PROGRESS.n_active)."""

PROGRESS = np.dtype([
    ("steps", np.int64),     # steps taken, across calls
    ("working", np.int64),   # the working example (the one of largest violation)
    ("n_active", np.int64),  # how many of Dual.active take part (shrinking lowers it)
    ("resume", np.bool_),    # set on NEED_ROW: working and worst still hold, no scan next call
    ("need_row", np.int64),  # on NEED_ROW: the example whose kernel row is missing
    ("worst", np.float64),   # the working example's violation
], align=True)


def new_progress(n_active):
    """A PROGRESS record (a one-element array, which the loops update in place) at the start."""
    progress = np.zeros(1, PROGRESS)
    progress[0]["n_active"] = n_active
    return progress
