"""A run folder's figures and report.html, made from the files the run saved, never from memory.

``reproduce`` calls :func:`write_figures` once its grid.csv and results.json are written and
``report_html.write_report`` once its run.json is final; ``multisvm report RUN_DIR`` calls
:func:`rebuild_report` to make both again (after a restyle, or when they were deleted) without
re-running anything. Both read the same files, so
both give the same figures. A folder that lacks one of the files, or holds one that is not what
a run writes, is refused with one line (:class:`~multisvm_cli.errors.MultisvmError`).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from ..errors import MultisvmError

NEEDED = ("results.json", "grid.csv")
RESULT_KEYS = ("dataset", "scheme", "params")
TABLE_KEYS = ("dataset", "scheme")
# the report rows' numbers the figures and report.html read: each a finite number or empty
TABLE_NUMBERS = ("C", "error_pct", "error_sd", "kernel_evaluations", "cpu_time",
                 "smo_iterations", "size_k", "selection_time", "evaluation_time", "mcnemar_p")


def rebuild_report(folder) -> list[Path]:
    """Redraw ``folder/figures/`` and rewrite ``folder/report.html`` from the run's saved
    files; returns the paths written (the figures, then report.html)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise MultisvmError(f"no run folder at {folder}; give a folder that `multisvm "
                            "reproduce-table` wrote (results/<config>/<timestamp>)")
    from ..report_html import write_report

    return write_figures(folder) + [write_report(folder)]


def write_figures(folder: Path) -> list[Path]:
    """Every figure of the run (``report_figures.draw_all``) into ``folder/figures/``; figures
    of an earlier drawing that this one did not make again are removed."""
    from ..report_figures import draw_all

    saved = read_run(folder)
    paths = draw_all(folder, saved["grid"], saved["chosen"], saved["table"], saved["ranking"],
                     saved["dag_orders"])
    for stale in set((folder / "figures").glob("*.png")) - set(paths):
        stale.unlink()
    return paths


def read_run(folder: Path) -> dict:
    """What the figures are drawn from: grid.csv as a DataFrame, the chosen point of each
    dataset x scheme, the report rows, the ranking and the DAG order studies."""
    missing = [name for name in NEEDED if not (folder / name).is_file()]
    if missing:
        raise MultisvmError(f"{folder} lacks {', '.join(missing)}: it is not a finished run "
                            "folder; give one that `multisvm reproduce-table` wrote to the end")
    results = _results(folder / "results.json")
    return {"grid": _grid(folder / "grid.csv"),
            "chosen": {(r["dataset"], r["scheme"]): r["params"] for r in results["results"]},
            "table": results["table"], "ranking": results.get("ranking"),
            "dag_orders": {dataset: {"errors_pct": study["errors_pct"],
                                     "kernel_evaluations": study["kernel_evaluations"],
                                     "selected_error": study["selected_error"]}
                           for dataset, study in (results.get("dag_orders") or {}).items()}}


def _results(path: Path) -> dict:
    def bad(what):
        return MultisvmError(f"{path} is malformed ({what}); it was not written by a finished "
                             "run: rerun the config")

    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise bad(f"not JSON: {' '.join(str(exc).split())}") from None
    if not isinstance(results, dict):
        raise bad("not a JSON object")
    for key, needs in (("results", RESULT_KEYS), ("table", TABLE_KEYS)):
        rows = results.get(key)
        if not isinstance(rows, list) or not rows or not all(
                isinstance(r, dict) and all(k in r for k in needs) for r in rows):
            raise bad(f"{key!r} must be a list of rows with {', '.join(needs)}")
    if not all(isinstance(r["params"], dict) for r in results["results"]):
        raise bad("a result's params is not a mapping")
    for row in results["table"]:
        wrong = [key for key in TABLE_NUMBERS if row.get(key) is not None
                 and not _finite_number(row[key])]
        if wrong:
            raise bad(f"the {row['dataset']} {row['scheme']} row's {', '.join(wrong)} is not a "
                      "finite number")
    if results.get("ranking") is not None and not _ranking_ok(results["ranking"]):
        raise bad("'ranking' is not a ranking of the schemes")
    studies = results.get("dag_orders") or {}
    if not isinstance(studies, dict) or not all(
            isinstance(s, dict) and isinstance(s.get("errors_pct"), list) and s["errors_pct"]
            and isinstance(s.get("kernel_evaluations"), list)
            and all(map(_finite_number, s["errors_pct"] + s["kernel_evaluations"]))
            and _finite_number(s.get("selected_error")) for s in studies.values()):
        raise bad("'dag_orders' must map each dataset to its errors_pct, kernel_evaluations "
                  "and selected_error")
    return results


def _finite_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _ranking_ok(ranking) -> bool:
    return (isinstance(ranking, dict) and isinstance(ranking.get("schemes"), list)
            and isinstance(ranking.get("average_ranks"), dict)
            and set(ranking["schemes"]) == set(ranking["average_ranks"])
            and isinstance(ranking.get("friedman"), dict)
            and isinstance(ranking.get("different_pairs"), list))


def _grid(path: Path):
    import pandas as pd

    from ..report_figures import GRID_NEEDS

    try:
        grid = pd.read_csv(path)
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise MultisvmError(f"{path} is not a CSV file ({' '.join(str(exc).split())}); rerun "
                            "the config") from None
    missing = [column for column in GRID_NEEDS if column not in grid]
    if missing:
        raise MultisvmError(f"{path} lacks the column(s) {', '.join(missing)}; it was not "
                            "written by a run: rerun the config")
    if not pd.api.types.is_numeric_dtype(grid["validation_error"]) or not \
            pd.api.types.is_numeric_dtype(grid["C"]):
        raise MultisvmError(f"{path}: validation_error and C must be numbers; rerun the config")
    return grid
