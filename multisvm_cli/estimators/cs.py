"""Crammer & Singer's all-together multiclass SVM (Crammer & Singer 2001; Hsu & Lin 2002, II.D)."""

from .joint.machine import JointSVM


class CrammerSingerSVC(JointSVM):
    """Crammer & Singer's multiclass SVM, kernelized, trained by our own dual solver: one slack
    per example, the largest margin violation over the wrong classes, no bias.

    Its formulation (primal, dual, box and the dual's constant, with the papers' equations) is
    :mod:`.joint.crammer_singer`; its solvers are :mod:`.joint.decomposition` (any kernel) and
    :mod:`.joint.linear` (the linear kernel, in the primal weights).

    Parameters: :class:`._base.MulticlassSVM`'s (``solver`` must stay 'libsvm').  Figures and
    prediction: see :mod:`.joint.machine` (``n_parameters_`` counts no bias).
    """

    _formulation = "cs"
