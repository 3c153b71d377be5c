"""Weston & Watkins' all-together formulation (Weston & Watkins 1999, Vapnik 1998; Hsu & Lin
2002, II.C): its equations, its dual's facts (:data:`FORMULATION`) and its box (:func:`lower`,
:func:`upper`), their one home.  The estimator is :class:`..ww.WestonWatkinsSVC`.

Primal (Hsu & Lin 2002, section II.C, eq. (12)), for l examples (x_i, y_i) and k classes:

    min_{w, b, xi}  1/2 sum_m (||w_m||^2 + b_m^2) + C sum_i sum_{m != y_i} xi_i^m
    s.t.  w_{y_i}' phi(x_i) + b_{y_i} >= w_m' phi(x_i) + b_m + 2 - xi_i^m,
          xi_i^m >= 0,   i = 1..l, m != y_i:

one slack per example and wrong class.  The bias: Hsu & Lin's decomposition implementation
(section III, as in their BSVM) adds 1/2 sum_m b_m^2 to the objective, which removes the dual's
k equality constraints sum_i beta_i^m = 0; the bias is then regularized like w, i.e. the kernel
becomes K + 1.  We do the same: f_m(x) = w_m' phi(x) + b_m.

Dual, with beta_i^m = -alpha_i^m for m != y_i and beta_i^{y_i} = sum_{m != y_i} alpha_i^m
(alpha_i^m the constraints' Lagrange multipliers):

    min_beta  1/2 sum_m sum_{i,j} (K(x_i, x_j) + 1) beta_i^m beta_j^m + sum_{i,m} e_i^m beta_i^m
    s.t.      sum_m beta_i^m = 0,   -C <= beta_i^m <= 0 for m != y_i,   i = 1..l,

with e_i^m = 2 (1 - delta(y_i, m)); w_m = sum_i beta_i^m phi(x_i), b_m = sum_i beta_i^m, so
f_m(x) = sum_i beta_i^m (K(x_i, x) + 1).

Its facts: the dual's constant e_i^m = 2 for m != y_i (``margin``), Q = K + 1 (``shift`` 1: the
regularized bias); the box of beta_im: [-C, 0] at a wrong class, the example's own free.

Solvers: with a kernel, :mod:`.decomposition` (each step the example of largest KKT violation;
its sub-problem, min 1/2 A ||nu||^2 + c' nu over sum nu = 0 and the box, has the solution
nu_m = clip(theta - c_m / A, ...) for one scalar theta, the root of an increasing piecewise-linear
function, found exactly by sorting its 2(k - 1) breakpoints, :func:`.decomposition.steps.solve_ww`;
the move thinned to the classes it moves most, then a pair step with a second example,
:mod:`.decomposition.loops`; every 100 steps a Newton step on the free variables,
:mod:`.decomposition.newton`); with the linear kernel, in the primal weights, :mod:`.linear`.
"""

import numpy as np

from .decomposition.state import WW, Formulation

FORMULATION = Formulation(kind=WW, margin=2.0, shift=1.0)
INF = np.inf


def lower(mine, C):
    """L_im, the lower bound of beta_im (``mine``: m is the example's class): -C at a wrong
    class, none at the example's own."""
    return -INF if mine else -C


def upper(mine, C):
    """U_im, the upper bound of beta_im: 0 at a wrong class, none at the example's own."""
    return INF if mine else 0.0
