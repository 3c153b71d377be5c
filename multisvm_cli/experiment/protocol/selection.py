"""Selecting a scheme's grid point: nested (per fold), cv-best (pooled folds), and the tie rule."""

from __future__ import annotations


def select(rows, plan, scheme, fold_index, estimate="nested"):
    """The grid row with the lowest validation error on one fold, with ``ties``: how many grid
    points share that error.  Ties go to the simpler model (``GridPoint.simplicity``: smaller
    C, then the simpler kernel, then the wider Gaussian), whatever the grid's order (a
    refinement's points, :mod:`.refine`, after the grid's)."""
    mine = [r for r in rows if r["scheme"] == scheme and r["fold"] == fold_index
            and r.get("estimate", "nested") == estimate]
    return _simplest_best(mine, plan)

def select_cv_best(rows, plan, scheme):
    """The ``cv-best`` choice: the grid point with the lowest k-fold cross-validation error on
    the outer folds (errors pooled over the folds' test parts), as a row whose
    ``validation_error`` is that pooled error, with ``ties`` as in :func:`select`."""
    pooled = {}
    for row in rows:
        if row["scheme"] == scheme and row.get("estimate") == "cv-best":
            entry = pooled.setdefault(row["point"], {"point": row["point"], "n_errors": 0,
                                                     "n_validation": 0, "smo_iterations": 0})
            entry["n_errors"] += row["n_errors"]
            entry["n_validation"] += row["n_validation"]
            entry["smo_iterations"] += row.get("smo_iterations") or 0
    chosen = _simplest_best(list(pooled.values()), plan)
    chosen["validation_error"] = chosen["n_errors"] / chosen["n_validation"]
    return chosen

def _simplest_best(rows, plan):
    """The row of lowest error (n_errors / n_validation), the simplest point on ties; a copy
    with ``ties`` = the number of rows at that error."""
    order = {point: i for i, point in enumerate(plan.grid)}

    def error(row):
        return row["n_errors"] / row["n_validation"]

    best = min(rows, key=lambda r: (error(r), r["point"].simplicity(),
                                    order.get(r["point"], len(order))))  # refined: after
    return {**best, "ties": sum(error(r) == error(best) for r in rows)}

def _of_estimate(rows, estimate):
    """The grid rows scored for ``estimate`` (rows without one are the nested estimate's)."""
    return [r for r in rows if r.get("estimate", "nested") == estimate]
