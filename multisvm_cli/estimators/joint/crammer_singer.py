"""Crammer & Singer's all-together formulation (Crammer & Singer 2001; Hsu & Lin 2002, II.D):
its equations, its dual's facts (:data:`FORMULATION`) and its box (:func:`lower`, :func:`upper`),
their one home.  The estimator is :class:`..cs.CrammerSingerSVC`.

Primal (Hsu & Lin 2002, section II.D, eq. (16); Crammer & Singer 2001, eq. (9)), for l examples
(x_i, y_i) and k classes:

    min_{w, xi}  1/2 sum_m ||w_m||^2 + C sum_i xi_i
    s.t.         w_{y_i}' phi(x_i) - w_m' phi(x_i) >= e_i^m - xi_i,   i = 1..l, m = 1..k,

with e_i^m = 1 - delta(y_i, m) (the m = y_i constraint is xi_i >= 0): one slack per example, the
largest margin violation over the wrong classes.  No bias: as Crammer & Singer and Hsu & Lin
write it, the scores are f_m(x) = w_m' phi(x) (with the linear kernel this is
``LinearSVC(multi_class='crammer_singer', fit_intercept=False)``'s problem).

Dual (Hsu & Lin eq. (17), with beta_i^m = C delta(y_i, m) - (Lagrange multiplier)):

    min_beta  1/2 sum_m sum_{i,j} K(x_i, x_j) beta_i^m beta_j^m + sum_{i,m} e_i^m beta_i^m
    s.t.      sum_m beta_i^m = 0,   beta_i^m <= C delta(y_i, m),   i = 1..l, m = 1..k,

and w_m = sum_i beta_i^m phi(x_i), so f_m(x) = sum_i beta_i^m K(x_i, x).

Its facts: the dual's constant e_i^m = 1 for m != y_i (``margin``), Q = K (``shift`` 0: no
bias); the box of beta_im: no lower bound, upper bound C at the example's own class, 0 at the
others.

Solvers: with a kernel, :mod:`.decomposition` (each step the example of largest KKT
violation, its k-variable sub-problem solved exactly by Crammer & Singer's fixed-point algorithm,
2001, section 6: :func:`.decomposition.steps.solve_cs`; then a pair step with a second example
that keeps every class's sum, :mod:`.decomposition.loops`; every 100 steps a Newton step on the
free variables, :mod:`.decomposition.newton`); with the linear kernel, in the primal weights,
:mod:`.linear` (liblinear's ``Solver_MCSVM_CS``).
"""

import numpy as np

from .decomposition.state import CS, Formulation

FORMULATION = Formulation(kind=CS, margin=1.0, shift=0.0)
INF = np.inf


def lower(mine, C):
    """L_im, the lower bound of beta_im (``mine``: m is the example's class): none."""
    return -INF


def upper(mine, C):
    """U_im, the upper bound of beta_im: C at the example's own class, 0 at a wrong one."""
    return C if mine else 0.0
