"""Hsu & Lin's (2002) tables, drawn from a run's per-scheme results (results.json "results").

Hsu, C.-W. and Lin, C.-J., "A comparison of methods for multiclass support vector machines",
IEEE Transactions on Neural Networks 13(2), 2002, section IV:

- **Table II** (:func:`accuracy_rows`): one row per dataset, one column per method; each cell
  the rate (accuracy, %) and the chosen (C, gamma) of K(x, x') = exp(-gamma |x - x'|^2),
  written as powers of 2 as they write them, e.g. ``(2^12, 2^-4)``. The rate is theirs: for a
  dataset run with ``estimate: cv-best`` (their small sets) the best k-fold cross-validation
  rate over the grid, chosen and reported on the same folds; otherwise the accuracy on the test
  part of the point chosen on the validation split and retrained (their large sets, with a
  given test set);
- **Table III** (:func:`cost_rows`): per dataset and method, the training time (CPU seconds
  of the fit at the chosen point: Table 1's ``cpu_time``), the testing time (wall seconds to
  predict the test part, ``evaluation_time``) and the number of support vectors
  (``n_support_vectors``: the model's unique support vectors, each counted once however many
  binary machines share it).

A config asks for them with ``layout: hsu-lin`` (:data:`LAYOUTS`); the run keeps the layout in
results.json, so ``multisvm report`` redraws them. Table II's last column is the paper's
range on that set (:mod:`.paper_range`: the worst and best of their five methods as Rifkin &
Klautau quote them, JMLR 5, 2004, Table 3); a rate of ours outside it is marked ``[below]`` or
``[above]`` and listed after the tables with the reason written for it (:func:`outside_lines`).
Table III has no paper column: the source quotes no times or support vectors.
"""

from __future__ import annotations

import html
import math
import textwrap

from tabulate import tabulate

from ..estimators.registry import shared_group
from ..base.numeric import is_number
from . import paper_range
from .record import label

TABLE_1 = "table-1"
HSU_LIN = "hsu-lin"
LAYOUTS = (TABLE_1, HSU_LIN)  # the config key ``layout``: Table 1 alone, or with Hsu & Lin's
COSTS = (("cpu_time", "training time (s)"), ("evaluation_time", "testing time (s)"),
         ("n_support_vectors", "#SVs"))
TITLE_II = "Hsu & Lin (2002) Table II: rate (%) and the chosen (C, gamma)"
TITLE_III = "Hsu & Lin (2002) Table III: training time, testing time and #SVs"
OUTSIDE_TITLE = "Table II: rates outside the paper range, and why"
NOTE = (
    "Table II: rate = 100 - error %; 'k-fold CV' rows: the best k-fold cross-validation rate "
    "over the grid (cv-best: the point is chosen and reported on the same folds, optimistic by "
    "construction), as Hsu & Lin report their small sets; 'test set' rows: the accuracy on the "
    "given test part of the point chosen on the validation split and retrained on the whole "
    "training part, as they report their large sets ('nested k-fold': pooled over the outer "
    "folds, each choosing its own point; the cell shows the most frequent one). (C, gamma): "
    "gamma of exp(-gamma |x - x'|^2), powers of 2 written 2^k. The best rate of each dataset "
    "is in bold (table.md and report.html). paper range: the worst and best rate of Hsu & "
    f"Lin's five methods on that set, as {paper_range.citation()} quotes their Table II; a "
    "rate outside it is marked [below] or [above] and listed after the tables with why.\n"
    "Table III: training time = CPU seconds of the final fit at the chosen point; testing time "
    "= wall seconds to predict the test part; #SVs = the model's unique support vectors (each "
    "counted once however many binary SVMs share it). k-fold rows: the mean fit and #SVs over "
    "the folds, the testing time summed over them (every point predicted once). "
    f"{' and '.join(map(label, shared_group()))} share one fit (its time and #SVs) where they "
    "chose the same point. A dataset run with both estimates shows its cv-best rate in "
    "Table II and its nested final fits in Table III.")


def wants_tables(document) -> bool:
    """Whether a results.json document asks for these tables (``layout: hsu-lin``)."""
    return isinstance(document, dict) and document.get("layout") == HSU_LIN


def schemes_of(results) -> list:
    """The methods (the tables' columns), in the order the results first name them."""
    return list(dict.fromkeys(r["scheme"] for r in results))


def datasets_of(results) -> list:
    """The datasets (the tables' rows), in the order the results first name them."""
    return list(dict.fromkeys(r["dataset"] for r in results))


def accuracy_rows(results) -> list[dict]:
    """Table II: per dataset {dataset, protocol, cells: {scheme: cell}}; a cell is
    {accuracy, C, gamma, kernel} (:func:`rate_cell`), None where the scheme has no result."""
    by_key = {(r["dataset"], r["scheme"]): r for r in results}
    rows = []
    for dataset in datasets_of(results):
        first = next(r for r in results if r["dataset"] == dataset)
        rows.append({"dataset": dataset, "protocol": protocol(first),
                     "cells": {s: rate_cell(by_key[(dataset, s)]) if (dataset, s) in by_key
                               else None for s in schemes_of(results)}})
    return rows


def rate_cell(result) -> dict:
    """One Table II cell: the rate (accuracy %, 100 - error %; None without finite counts) and
    the point it was measured at: the cv-best one when the result carries it (``cv_best``),
    else the result's own."""
    source = result["cv_best"] if isinstance(result.get("cv_best"), dict) else result
    params = next((p for p in (source.get("params"), result.get("params"))
                   if isinstance(p, dict)), {})
    errors, n_test = source.get("n_errors"), source.get("n_test")
    accuracy = (100.0 - 100.0 * errors / n_test
                if is_number(errors) and is_number(n_test) and n_test > 0 else None)
    return {"accuracy": accuracy, "C": _number(params.get("C")), "gamma": gamma_of(params),
            "kernel": params.get("kernel")}


def gamma_of(params) -> float | None:
    """The gaussian kernel's gamma of a point's params (``gamma``, or 1 / (2 sigma^2) when it
    was given as sigma); None for another kernel."""
    if params.get("kernel") != "gaussian":
        return None
    if is_number(params.get("gamma")):
        return float(params["gamma"])
    sigma = params.get("sigma")
    return 1.0 / (2.0 * sigma ** 2) if is_number(sigma) and sigma > 0 else None


def protocol(result) -> str:
    """How a dataset's rate was measured: ``k-fold CV`` (cv-best), ``test set`` (one split,
    nested), ``nested k-fold`` or ``N draws`` (a draws split: mean over its random draws)."""
    if result.get("draws"):
        return f"{result['draws']} draws"
    splits = result.get("splits") if isinstance(result.get("splits"), list) else []
    folds = len({s.get("fold", 0) for s in splits if isinstance(s, dict)})
    if result.get("cv_best") is not None or result.get("estimate") == "cv-best":
        return f"{folds}-fold CV" if folds > 1 else "CV"
    return f"nested {folds}-fold" if folds > 1 else "test set"


def cost_rows(results) -> list[dict]:
    """Table III: per dataset {dataset, cells: {scheme: {cpu_time, evaluation_time,
    n_support_vectors}}} (each a number or None), None where the scheme has no result."""
    by_key = {(r["dataset"], r["scheme"]): r for r in results}
    return [{"dataset": dataset,
             "cells": {s: ({key: _number(by_key[(dataset, s)].get(key)) for key, _ in COSTS}
                           if (dataset, s) in by_key else None) for s in schemes_of(results)}}
            for dataset in datasets_of(results)]


def power_of_two(value) -> str:
    """``2^k`` when ``value`` is 2 to an integer power k, else the number (``%g``); "" for
    None."""
    if not is_number(value):
        return ""
    if value > 0:
        exponent = math.log2(value)
        if abs(exponent - round(exponent)) < 1e-9:
            return f"2^{round(exponent)}"
    return f"{value:g}"


def point_text(cell) -> str:
    """A cell's chosen point as Hsu & Lin write it, ``(2^12, 2^-4)`` = (C, gamma); another
    kernel by its name; "" for a point without C (naive Bayes)."""
    if cell["C"] is None:
        return ""
    if cell["gamma"] is not None:
        return f"({power_of_two(cell['C'])}, {power_of_two(cell['gamma'])})"
    return f"({power_of_two(cell['C'])}, {cell['kernel']})"


def rate_text(cell) -> str:
    """A Table II cell as text: ``97.33 (2^12, 2^-4)``; "" without a rate."""
    if cell is None or cell["accuracy"] is None:
        return ""
    return f"{cell['accuracy']:.2f} {point_text(cell)}".rstrip()


def cost_text(key, value) -> str:
    """A Table III number as text: seconds to 2 decimals (3 below 1 s), #SVs whole (one
    decimal for a mean over folds); "" for None."""
    if value is None:
        return ""
    if key == "n_support_vectors":
        return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"
    return f"{value:.2f}" if value >= 1 else f"{value:.3f}"


def best_schemes(row) -> set:
    """The schemes of a Table II row with its highest rate (ties all)."""
    rates = {s: c["accuracy"] for s, c in row["cells"].items()
             if c is not None and c["accuracy"] is not None}
    top = max(rates.values(), default=None)
    return {s for s, rate in rates.items() if rate == top}


def table_ii(results, mark=None) -> tuple[list, list]:
    """Table II as (header, rows of texts); ``mark(text)`` marks each dataset's best rate; a
    rate outside the paper's range gets `` [below]`` or `` [above]``; the last column is that
    range when the paper quotes any of the datasets (:mod:`.paper_range`)."""
    schemes = schemes_of(results)
    rows = accuracy_rows(results)
    ranged = any(paper_range.paper_range(row["dataset"]) for row in rows)
    body = []
    for row in rows:
        best = best_schemes(row)
        cells = [_marked(row, s, mark if s in best else None) for s in schemes]
        body.append([row["dataset"], row["protocol"], *cells]
                    + ([paper_range.range_text(row["dataset"])] if ranged else []))
    return ["dataset", "rate", *map(label, schemes)] + (["paper range"] if ranged else []), body


def _marked(row, scheme, mark) -> str:
    """A Table II cell's text with its side of the paper's range, through ``mark`` (given for
    the best rate)."""
    cell = row["cells"][scheme]
    text = rate_text(cell)
    where = paper_range.side(row["dataset"], cell and cell["accuracy"])
    text += f" [{where}]" if where else ""
    return mark(text) if mark and text else text


def outside_cells(results) -> list[tuple]:
    """Table II's cells outside the paper's range (:func:`.paper_range.side`), as (dataset,
    scheme, rate %) in table order."""
    return [(row["dataset"], scheme, cell["accuracy"]) for row in accuracy_rows(results)
            for scheme, cell in row["cells"].items()
            if paper_range.side(row["dataset"], cell and cell["accuracy"])]


def outside_lines(results, config) -> list[str]:
    """One line per cell outside the paper's range, with the reason written for it in the
    run's ``config`` (:func:`outside_line`)."""
    return [outside_line(dataset, scheme, rate, paper_range.side(dataset, rate), config)
            for dataset, scheme, rate in outside_cells(results)]


def outside_line(dataset, scheme, rate, where, config) -> str:
    """A rate ``where`` (below, above) the paper's range as one line, with the reason written
    for it in the paper file (or where to write one)."""
    why = paper_range.reason(config, dataset, scheme) or (
        f"No reason is written for it ({paper_range.PAPER_FILE.name}, config {config}).")
    return (f"{dataset}, {label(scheme)}: {rate:.2f} is {where} "
            f"{paper_range.range_text(dataset)}. {why}")


def table_iii(results) -> tuple[list, list]:
    """Table III as (header, rows of texts): one block of rows per quantity (training time,
    testing time, #SVs), one row per dataset, one column per method."""
    schemes = schemes_of(results)
    rows = cost_rows(results)
    body = []
    for key, title in COSTS:
        for index, row in enumerate(rows):
            body.append([title if index == 0 else "", row["dataset"],
                         *[cost_text(key, (row["cells"][s] or {}).get(key)) for s in schemes]])
    return ["", "dataset", *map(label, schemes)], body


def tables_text(results, fmt="table", width=None, config=None) -> str:
    """Both tables as text (``fmt``: ``table``, aligned, or ``markdown``), titled; after Table
    II its cells outside the paper's range and why (``config``: the run's config, whose reasons
    are read); last the note that says what each number is (``width``: its lines wrap there;
    None: one line per paragraph)."""
    markdown = fmt == "markdown"
    parts = []
    for title, (header, body) in ((TITLE_II, table_ii(results, _bold if markdown else None)),
                                  (TITLE_III, table_iii(results))):
        parts += [f"### {title}" if markdown else title,
                  tabulate(body, headers=header, tablefmt="github" if markdown else "simple",
                           disable_numparse=True)]
        outside = outside_lines(results, config) if title == TITLE_II else []
        if outside:
            parts += [f"### {OUTSIDE_TITLE}" if markdown else OUTSIDE_TITLE, "\n".join(
                ("- " if markdown else "") + (textwrap.fill(line, width) if width else line)
                for line in outside)]
    note = [textwrap.fill(line, width) if width else line for line in NOTE.split("\n")]
    return "\n\n".join(parts + ["\n\n".join(note) if markdown else "\n".join(note)])


def tables_html(document) -> list[str]:
    """report.html's section of both tables (every text escaped, each dataset's best rate in
    bold), Table II's cells outside the paper's range listed after it, when the results.json
    ``document`` asks for them (:func:`wants_tables`), else []."""
    if not wants_tables(document):
        return []
    results = document["results"]
    parts = ["<h2>Hsu &amp; Lin (2002) tables</h2>"]
    for title, (header, body) in ((TITLE_II, table_ii(results, _strong)),
                                  (TITLE_III, table_iii(results))):
        head = "".join(f"<th>{_esc(name)}</th>" for name in header)
        rows = "".join("<tr>" + "".join(f"<td class=\"text\">{_esc_cell(cell)}</td>"
                                        for cell in row) + "</tr>\n" for row in body)
        parts.append(f"<h3>{_esc(title)}</h3>\n<div class=\"scroll\"><table>\n<tr>{head}</tr>\n"
                     f"{rows}</table></div>")
        outside = outside_lines(results, document.get("config")) if title == TITLE_II else []
        if outside:
            parts.append(f"<h3>{_esc(OUTSIDE_TITLE)}</h3>\n<ul>"
                         + "".join(f"<li>{_esc(line)}</li>" for line in outside) + "</ul>")
    parts += [f"<p class=\"note\">{_esc(line)}</p>" for line in NOTE.split("\n")]
    return parts


def _bold(text) -> str:
    return f"**{text}**"


class _Strong(str):
    """A cell already rendered as HTML (a best rate in <b>)."""


def _strong(text) -> str:
    return _Strong(f"<b>{_esc(text)}</b>")


def _esc_cell(cell) -> str:
    return cell if isinstance(cell, _Strong) else _esc(cell)


def _esc(text) -> str:
    return html.escape(str(text), quote=True)


def _number(value):
    return float(value) if is_number(value) else None
