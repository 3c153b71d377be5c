"""Lee, Lin & Wahba's all-together multiclass SVM (Lee, Lin & Wahba 2004; Doğan, Glasmachers &
Igel 2016, section 2.4, Table 1)."""

from .joint.machine import JointSVM


class LeeLinWahbaSVC(JointSVM):
    """Lee, Lin & Wahba's multiclass SVM (the "MSVM" of their JASA 2004 paper, section 2),
    kernelized, trained by our own dual solver: absolute margins under the sum-to-zero
    constraint, one hinge per example and wrong class, with Hsu & Lin's regularized bias.

    Its formulation (primal, dual in the hinges' multipliers alpha, box and the dual's
    constant, with the papers' equations) is :mod:`.joint.lee_lin_wahba`; its solver is
    :mod:`.joint.decomposition.absolute` (any kernel, the linear one included).

    Parameters: :class:`._base.MulticlassSVM`'s (``solver`` must stay 'libsvm').  Figures and
    prediction (the class of highest f_m, ties to the lowest index): see :mod:`.joint.machine`
    (``n_parameters_`` counts the k biases).
    """

    _formulation = "llw"
    _warm_starts = False  # its solver starts at alpha = 0 (no warm start along C yet)

    def _solve(self, X, y_index, n_classes, settings):
        """LLW's dual, solved in alpha by :func:`.joint.decomposition.absolute.solve_absolute`
        (any kernel)."""
        from .joint.decomposition.absolute import solve_absolute

        return solve_absolute(X, y_index, n_classes, self._formulation, settings)
