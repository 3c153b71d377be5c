"""Fits a run must warn about: stopped at their solver's iteration bound (libsvm's, or for C&S
and W&W our all-together solver's: :func:`bound_owner`), an all-together solve that stalled
above tol, or predicting one class.

The protocol keeps each fit's warnings as ``notes`` (per grid point in grid.csv, per scheme
for the final fits in results.json); :func:`fit_warnings` turns the kinds that make a number
doubtful into one-line warnings naming the dataset, scheme, kernel and C (one line for the
run's grid points predicting one class, folded over schemes), and :func:`bounded`
says which results the table marks.
"""

from __future__ import annotations

from ..protocol.fitting import ONE_CLASS_NOTE

BOUND_NOTE = "Solver terminated early"  # scikit-learn's ConvergenceWarning (see _solvers)
STALL_NOTE = "Solver stalled"  # the all-together solver's ConvergenceWarning (estimators.joint.decomposition.solver)
STALLED = "stalled above tol (its steps no longer moved the dual variables)"
SHOWN = 3  # grid points named per warning


def bounded(result) -> bool:
    """Whether a result's final fit stopped at the iteration bound on some fold."""
    return any(BOUND_NOTE in note for note in result.get("notes", ()))


def bound_owner(scheme) -> str:
    """Whose iteration bound a fit of ``scheme`` stops at: the all-together solver's for a
    scheme trained by it (C&S, W&W), else libsvm's."""
    from ...estimators.joint.machine import JointSVM
    from ...estimators.registry import estimator

    try:
        joint = issubclass(estimator(scheme), JointSVM)
    except KeyError:  # not a scheme of ours
        joint = False
    return "the all-together solver's" if joint else "libsvm's"


def stalled(result) -> bool:
    """Whether a result's final fit stalled above tol on some fold (an all-together solver)."""
    return any(STALL_NOTE in note for note in result.get("notes", ()))


def fit_warnings(results, grid_rows) -> list:
    """The run's warnings about fits: each final fit stopped at the bound or stalled, and per
    dataset x scheme the grid points stopped at the bound or stalled (a few named), and one
    line for those predicting one class (:func:`one_class_warning`)."""
    finals = ((bounded, "stopped at {} iteration bound (max_iter); its error is marked * in the "
                        "table"), (stalled, STALLED))
    found = [f"{r['dataset']} {r['scheme']}: the final fit ({r['kernel']}, C={r['C']:g}) "
             f"{what.format(bound_owner(r['scheme']))}"
             for flagged, what in finals for r in results if flagged(r) and r.get("C") is not None]
    for needle, what in ((BOUND_NOTE, "stopped at {} iteration bound (max_iter)"),
                         (STALL_NOTE, STALLED)):
        points = {}
        for row in grid_rows:
            if needle in (row.get("notes") or ""):
                points.setdefault((row["dataset"], row["scheme"]), []).append(
                    f"{row['kernel']} C={row['C']:g}")
        for (dataset, scheme), named in sorted(points.items()):  # whatever order points ended in
            named = sorted(set(named))
            more = f" and {len(named) - SHOWN} more" if len(named) > SHOWN else ""
            found.append(f"{dataset} {scheme}: {len(named)} grid point(s) "
                         f"{what.format(bound_owner(scheme))}: "
                         f"{', '.join(named[:SHOWN])}{more}")
    return found + one_class_warning(grid_rows)


def one_class_warning(grid_rows) -> list:
    """The run's one line on grid points that predicted one class for every validation point,
    folded over schemes (each scheme at a too narrow or too wide kernel meets it alike): per
    dataset and kernel, how many schemes and which C; [] when none did."""
    kernels, points = {}, 0
    for row in grid_rows:
        if ONE_CLASS_NOTE in (row.get("notes") or ""):
            schemes, Cs = kernels.setdefault((row["dataset"], row["kernel"]), (set(), set()))
            schemes.add(row["scheme"])
            Cs.add(row["C"])
            points += 1
    if not kernels:
        return []
    named = [f"{dataset} {kernel} in {len(schemes)} scheme(s) ({', '.join(sorted(schemes))}; "
             f"C {min(Cs):g}..{max(Cs):g})"
             for (dataset, kernel), (schemes, Cs) in sorted(
                 kernels.items(), key=lambda item: (-len(item[1][0]), item[0]))]
    more = f" and {len(named) - SHOWN} more kernel(s)" if len(named) > SHOWN else ""
    return [f"{points} grid point(s) predicted one class for every validation point: "
            f"{'; '.join(named[:SHOWN])}{more}"]
