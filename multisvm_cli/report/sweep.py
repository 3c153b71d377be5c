"""The sweep table: each swept value x scheme, its figures' means (and SDs) over the repeats.

Made from sweep.csv's rows (``run_folder.read_sweep``, or the run's rows), printed by
``multisvm reproduce-table`` for a swept config and shown in report.html.
"""

from __future__ import annotations

import html
import textwrap

import pandas as pd
from tabulate import tabulate

from .columns import column
from .record import ERROR_PCT, label

SWEEP_TABLE = (  # sweep.csv's columns the table shows, means over the repeats (titled as in
    # the report table, columns.COLUMNS; size, in parameters, is not one of its columns)
    ERROR_PCT, "cpu_time", "evaluation_time", "max_train_memory_mb", "kernel_evaluations",
    "size", "level1_accuracy", "level2_accuracy")
DIGITS = {ERROR_PCT: 2, "cpu_time": 3, "evaluation_time": 3, "max_train_memory_mb": 3,
          "kernel_evaluations": 1, "size": 0, "level1_accuracy": 3, "level2_accuracy": 3}


def sweep_summary(rows) -> pd.DataFrame:
    """One row per dataset x value x scheme (in the sweep's order): the repeats' count, the mean
    of every :data:`SWEEP_TABLE` figure and the error's SD over the repeats (NaN for one)."""
    frame = pd.DataFrame(rows)
    keys = ["dataset", "value", "scheme"]
    columns = [c for c in SWEEP_TABLE if c in frame and frame[c].notna().any()]
    grouped = frame.groupby(keys, sort=False)
    summary = grouped[columns].mean()
    summary["error_sd"] = grouped[ERROR_PCT].std(ddof=1)
    summary["repeats"] = grouped.size()
    return summary.reset_index()


def sweep_table(rows, fmt="table") -> str:
    """The sweep table as text (``table``: the terminal's, ``markdown``) or an HTML table
    (``html``), with a footnote line."""
    summary = sweep_summary(rows)
    name = pd.DataFrame(rows)["sweep"].iloc[0]
    columns = [c for c in SWEEP_TABLE if c in summary]
    header = ["dataset", name, "scheme", "repeats", *map(_title, (ERROR_PCT, "error_sd")),
              *[_title(c) for c in columns if c != ERROR_PCT]]
    body = [[r["dataset"], r["value"], label(r["scheme"]), int(r["repeats"]),
             _cell(r[ERROR_PCT], 2), _cell(r["error_sd"], 2),
             *[_cell(r[c], DIGITS[c]) for c in columns if c != ERROR_PCT]]
            for _, r in summary.iterrows()]
    note = sweep_footnote(name)
    if fmt == "html":
        head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
        lines = "".join("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row)
                        + "</tr>" for row in body)
        return (f"<div class=\"scroll\"><table><tr>{head}</tr>{lines}</table></div>"
                f"<p class=\"note\">{html.escape(note)}</p>")
    table = tabulate(body, header, tablefmt="github" if fmt == "markdown" else "simple",
                     disable_numparse=True)
    return f"{table}\n{textwrap.fill(note, 120)}\n"


def sweep_footnote(name) -> str:
    """What the sweep table's columns mean."""
    return (f"Swept: {name}. Each row: means over the repeats (each repeat its own split and, "
            "for classes, its own draw of classes) of the test error %, the final fit's train "
            "CPU s, eval s (wall seconds to predict the test part), max SVM MB (the largest "
            "binary SVM's training data in its solver, Godbole et al.'s maximum memory to "
            "train any SVM), kernel evals per test point and size (parameters); error SD %: "
            "over the repeats; L1/L2 acc: Hier's level-1 accuracy and level-2 accuracy on the "
            "points level 1 routed right.")


def _title(key) -> str:
    """A column's title in the report table (the key itself when it is not one of them)."""
    declared = column(key)
    return declared.title if declared else key


def _cell(value, digits) -> str:
    return "" if pd.isna(value) else f"{value:.{digits}f}"
