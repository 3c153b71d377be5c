"""The mechanics the all-together formulations share (their equations and facts are the modules
beside this folder: :mod:`..crammer_singer`, :mod:`..weston_watkins`, :mod:`..lee_lin_wahba`).

- :mod:`.solver`: the decomposition solver of C&S's and W&W's kernel duals (one example's row a
  step, a pair step, shrinking, warm starts along C), on the named state of :mod:`.state`, its
  compiled loops (:mod:`.loops`, :mod:`.steps`, :mod:`.trackers`) and the box as they read it
  (:mod:`.box`);
- :mod:`.newton`: the Newton step on the free variables (:mod:`.schur`, :mod:`.search`);
- :mod:`.kernel_rows`: the kernel rows, K(X, X) whole or an LRU cache (:mod:`.stored`);
- :mod:`.absolute`: LLW's solver in its multipliers alpha (:mod:`.absolute_loops`).

The linear kernel's primal solver of C&S and W&W is :mod:`..linear`.  Nothing here loads numba
at import: the compiled modules are imported when a solve starts.
"""
