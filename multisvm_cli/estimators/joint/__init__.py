"""The all-together machines, by method: one module per formulation, with its paper's equations
(primal and dual) and its facts (box, the dual's constant, K's shift), read by name from
:mod:`.formulations`:

- :mod:`.crammer_singer`: Crammer & Singer (2001; Hsu & Lin 2002, II.D), scheme ``cs``;
- :mod:`.weston_watkins`: Weston & Watkins (1999; Hsu & Lin 2002, II.C), scheme ``ww``;
- :mod:`.lee_lin_wahba`: Lee, Lin & Wahba (2004; Doğan et al. 2016, 2.4), scheme ``llw``;
- :mod:`.linear`: the linear machines of C&S and W&W, solved in the primal weights
  (Keerthi et al. 2008's sequential dual method, liblinear's);

:mod:`.machine`, the estimators' shared base (the k score functions, their pool and figures);
and :mod:`.decomposition`, the mechanics they share: the decomposition solver and its compiled
loops, the Newton step, the kernel rows, and LLW's solver in alpha.
"""
