"""The all-together formulations by scheme name: the one table the solvers read them from.

Each formulation has one module, named for it, that holds its equations (primal and dual, with
the paper's section) and its facts, a :class:`.decomposition.state.Formulation` (the loops'
``kind``, the dual's constant ``margin``, the ``shift`` added to K) and its box:
:mod:`.crammer_singer`, :mod:`.weston_watkins`, :mod:`.lee_lin_wahba`.  The kernel solver
(:mod:`.decomposition`) and the linear one (:mod:`.linear`) read them here.  Plain Python (no
numba), so the estimators can read it at import.
"""

from . import crammer_singer, lee_lin_wahba, weston_watkins

FORMULATIONS = {"cs": crammer_singer.FORMULATION, "ww": weston_watkins.FORMULATION,
                "llw": lee_lin_wahba.FORMULATION}
