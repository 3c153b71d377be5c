"""Lee, Lin & Wahba's all-together formulation (Lee, Lin & Wahba 2004, section 2; Doğan,
Glasmachers & Igel 2016, section 2.4, Table 1): its equations, its dual's facts
(:data:`FORMULATION`), its box and the map between its variables alpha and the scores'
coefficients beta (:func:`centred`, :func:`alpha_of`), their one home.  The estimator is
:class:`..llw.LeeLinWahbaSVC`.

Absolute margins under the sum-to-zero constraint, one hinge per example and wrong class; its
loss is Fisher consistent (classification calibrated: Lee, Lin & Wahba 2004; Doğan et al. 2016,
section 3).

Primal, in Doğan, Glasmachers & Igel's template (JMLR 17(45), 2016: section 2.4 and Table 1,
"LLW": absolute margin mu_m = -f_m for m != y (Definition 2), sum-over-others aggregation
(Definition 4), target margin 1 (section 2.3), sum-to-zero constraint), for l examples
(x_i, y_i) and k classes, scores f_m(x) = w_m' phi(x) + b_m:

    min_{w, b}  1/2 sum_m (||w_m||^2 + b_m^2) + C sum_i sum_{m != y_i} [1 + f_m(x_i)]_+
    s.t.        sum_m w_m = 0,  sum_m b_m = 0.

Lee, Lin & Wahba write the hinge [f_m(x_i) + 1/(k - 1)]_+ with lambda/2 sum ||h_m||^2 and a 1/n
in front; f = (k - 1) f_theirs gives the form above at C = (k - 1) / (n lambda).  No class's own
score appears in the loss: the constraint sum_m f_m = 0 is what pushes f_{y_i} up when the
others go down.

The bias: Lee, Lin & Wahba leave b unregularized, Doğan et al. train without it (their footnote
7).  We keep it and regularize it as Hsu & Lin's decomposition code does for W&W
(:mod:`.weston_watkins`): 1/2 sum_m b_m^2 in the objective, i.e. the kernel K + 1, which keeps
the dual free of equality constraints.

Dual (Doğan et al. section 2.6, eqs. (5)-(8) with their sum-to-zero kernel modifier; derived
here directly): with multipliers alpha_im >= 0 of the hinges (alpha_{i y_i} = 0) and
abar_i = (1/k) sum_m alpha_im, stationarity and sum_m w_m = 0 give
w_m = -sum_i (alpha_im - abar_i) phi(x_i), b_m = -sum_i (alpha_im - abar_i), and

    min_alpha  1/2 sum_{i,j} (K(x_i, x_j) + 1) alpha_i' (I - 11'/k) alpha_j
               - sum_i sum_{m != y_i} alpha_im
    s.t.       0 <= alpha_im <= C  (m != y_i),   alpha_{i y_i} = 0:

a box QP, no equality constraint (the primal optimum is minus the dual's minimum).  With
beta_i = -(I - 11'/k) alpha_i (each row sums to 0, :func:`centred`),
f_m(x) = sum_i beta_im (K(x_i, x) + 1), the form the other all-together machines store; in beta
the box becomes 0 <= beta_{i y_i} - beta_im <= C with the linear term -k sum_i beta_{i y_i},
which couples each entry with the example's own, so the solver works in alpha
(:mod:`.decomposition.absolute` says why).

Its facts: the dual's constant -1 for each alpha_im, m != y_i (``margin``: the gradient at
alpha = 0), Q = K + 1 (``shift`` 1: the regularized bias); the box of alpha_im: [0, C] at a
wrong class, alpha_{i y_i} = 0 (the clip of
:func:`.decomposition.absolute_loops.solve_row`, the tests of its ``entry_violation``).

Solver (:mod:`.decomposition.absolute`): decomposition, each step the example of largest KKT
violation (its largest |projected gradient| in alpha), its sub-problem (min 1/2 A x'(I - 11'/k) x
+ h'x over the box, A = K_ii + 1) solved exactly: x_m = clip(theta - h_m / A, 0, C) with theta
the mean of x over all k entries, the root of an increasing piecewise-linear function found from
its sorted breakpoints (:func:`.decomposition.absolute_loops.solve_row`); shrinking and the
kernel cache as C&S and W&W; stops when every violation is <= ``tol``.  The same solver runs
with the linear kernel (no primal path yet).
"""

import numpy as np

from .decomposition.state import LLW, Formulation

FORMULATION = Formulation(kind=LLW, margin=-1.0, shift=1.0)


def centred(alpha):
    """beta = -alpha P = -(alpha_im - mean_m alpha_i.), (l, k): the scores' coefficients
    (f_m(x) = sum_i beta_im (K(x_i, x) + shift)); each row sums to 0."""
    return -(alpha - alpha.mean(axis=1, keepdims=True))


def alpha_of(beta, y_index):
    """The multipliers back from beta: alpha_im = beta_iy - beta_im (0 at m = y_i)."""
    return beta[np.arange(len(y_index)), y_index][:, None] - beta
