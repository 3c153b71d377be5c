"""Weston & Watkins' all-together multiclass SVM (Weston & Watkins 1999; Hsu & Lin 2002, II.C)."""

from .joint.machine import JointSVM


class WestonWatkinsSVC(JointSVM):
    """Weston & Watkins' (and Vapnik's 1998) multiclass SVM, kernelized, trained by our own
    dual solver: one slack per example and wrong class, with Hsu & Lin's regularized bias.

    Its formulation (primal, dual, box and the dual's constant, with the papers' equations) is
    :mod:`.joint.weston_watkins`; its solvers are :mod:`.joint.decomposition` (any kernel) and
    :mod:`.joint.linear` (the linear kernel, in the primal weights).

    Parameters: :class:`._base.MulticlassSVM`'s (``solver`` must stay 'libsvm').  Figures and
    prediction: see :mod:`.joint.machine` (``n_parameters_`` counts the k biases).
    """

    _formulation = "ww"
