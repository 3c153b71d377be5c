"""Crammer & Singer's all-together multiclass SVM (Crammer & Singer 2001; Hsu & Lin 2002, II.D)."""

from .joint.machine import JointSVM


class CrammerSingerSVC(JointSVM):
    """Crammer & Singer's multiclass SVM, kernelized, trained by our own dual solver.

    Primal (Hsu & Lin 2002, section II.D, eq. (16); Crammer & Singer 2001, eq. (9)), for l
    examples (x_i, y_i) and k classes:

        min_{w, xi}  1/2 sum_m ||w_m||^2 + C sum_i xi_i
        s.t.         w_{y_i}' phi(x_i) - w_m' phi(x_i) >= e_i^m - xi_i,   i = 1..l, m = 1..k,

    with e_i^m = 1 - delta(y_i, m) (the m = y_i constraint is xi_i >= 0): one slack per example,
    the largest margin violation over the wrong classes.  No bias: as Crammer & Singer and Hsu
    & Lin write it, the scores are f_m(x) = w_m' phi(x) (with the linear kernel this is
    ``LinearSVC(multi_class='crammer_singer', fit_intercept=False)``'s problem).

    Dual (Hsu & Lin eq. (17), with beta_i^m = C delta(y_i, m) - (Lagrange multiplier)):

        min_beta  1/2 sum_m sum_{i,j} K(x_i, x_j) beta_i^m beta_j^m + sum_{i,m} e_i^m beta_i^m
        s.t.      sum_m beta_i^m = 0,   beta_i^m <= C delta(y_i, m),   i = 1..l, m = 1..k,

    and w_m = sum_i beta_i^m phi(x_i), so f_m(x) = sum_i beta_i^m K(x_i, x).

    Solver (:mod:`.joint.solver`): decomposition, each step the example of largest KKT
    violation, its k-variable sub-problem solved exactly by Crammer & Singer's fixed-point
    algorithm (2001, section 6; :func:`.joint.steps.solve_cs`), then a pair step with a second
    example (:mod:`.joint.loops`); every 100 steps a Newton step on the free variables, from its
    KKT system (:mod:`.joint.newton`); stops when every violation is <= ``tol``.

    Parameters: :class:`._base.MulticlassSVM`'s (``solver`` must stay 'libsvm').  Figures and
    prediction: see :mod:`.joint.machine` (``n_parameters_`` counts no bias).
    """

    _formulation = "cs"
    _bias = False
