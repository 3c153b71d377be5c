"""One self-contained HTML report of a run folder: table, ranking, figures, config, provenance.

``write_report(run_folder)`` reads only the files a run saved, through the checked reader of
:mod:`.run_folder` (table.csv, or results.json's "table"; results.json's "ranking"; config.yaml;
run.json) and figures/*.png, and writes
``run_folder/report.html``: PNG figures embedded as base64 ``data:`` URIs, inline CSS, no script
and no network reference, every piece of text escaped. The file is written to a temporary name
and renamed (``storage.atomic_write``), so a reader never sees half of it.
"""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path

from ..estimators.registry import ORDER_STUDY, REFERENCE, label
from ..numbers import is_number
from ..readers import read_bytes
from ..storage import atomic_write
from .hsu_lin import tables_html
from .paired import RESAMPLED
from .run_folder import read_config_text, read_meta, read_results, read_sweep, read_table
from .sweep import sweep_table
from .table import BOUNDED_NOTE, COLUMNS, PAPER_COLUMNS, dag_orders_text, display, footnote
from .verdict import PAIR_HEADER, across_datasets_text, ranking_with_verdict, verdict_rows

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_LIMIT = 64 << 20  # bytes of one figure
TITLES = dict(COLUMNS + PAPER_COLUMNS, error_sd="error SD %", n_support_vectors="SVs")
FIGURE_KINDS = [  # (file name prefix, section title, how to read the figure)
    ("cd-diagram", None,
     "Critical-difference diagram (Demsar 2006). Each scheme sits at its average rank over the "
     "datasets (1 = lowest test error, on the left). A thick bar joins schemes whose average "
     "ranks differ by no more than the critical difference (the CD bar above the axis): the "
     "data do not show them to differ. Schemes not joined by a bar differ significantly "
     "(Nemenyi test; Wilcoxon signed-rank test for two schemes)."),
    ("bayes-signed-rank", None,
     "Bayesian signed-rank test (Benavoli et al. 2017), one bar per pair of schemes, the "
     "better-ranked scheme first: the posterior probability that the first scheme's test error "
     "is lower by more than the ROPE (blue), that the two are within the ROPE of each other "
     "(grey), and that the second is better (orange). A probability beyond the dotted 0.95 line "
     "decides; otherwise the datasets do not."),
    ("tradeoff-", "Error against evaluation cost",
     "Test error (%) against kernel evaluations per test point (log scale), one marker per "
     "scheme: lower left is better (fewer errors for less work at test time). Error bars: "
     "+-1 standard deviation over folds x repeats; hollow markers: the paper's numbers; a "
     "dashed line: a scheme that evaluates no kernel."),
    ("dag-orders-", f"{label(ORDER_STUDY)} class orders",
     f"Left: histogram of {label(ORDER_STUDY)}'s test error over random orders of the classes in the "
     "DAG, the red line at the natural order's error. Right: kernel evaluations per test point "
     "of the same orders. A narrow histogram means the class order matters little."),
    ("grid-", "Model selection grids",
     "One figure per dataset and kernel type, one panel per scheme on a shared colour scale. "
     "Mean validation error (%) at each grid point, averaged over folds and repeats: rows are "
     "the kernel parameter (sigma, gamma or degree), columns the penalty C; greener is lower. "
     "The framed cell is the point selected most often (the note under each map says where it is not the lowest mean). A minimum on the edge of the grid "
     "suggests the grid should be wider."),
    ("sweep-", "Sweep",
     "Test error, final-fit training CPU seconds and the largest binary SVM's training memory "
     "against the swept value, one line per scheme: the mean over the repeats, the band from "
     "their minimum to their maximum; log axes where the values span more than 20x."),
]
CSS = """
body { font-family: sans-serif; margin: 2em auto; max-width: 1100px; padding: 0 1em; color: #222; }
div.scroll { overflow-x: auto; max-width: 100%; }
tr.best td { background: #e6f2e6; font-weight: bold; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th { background: #f0f0f0; } td.text { text-align: left; }
pre { background: #f7f7f7; padding: 0.8em; overflow-x: auto; white-space: pre-wrap; font-size: 0.85em; }
figure { margin: 1em 0; } img { max-width: 100%; border: 1px solid #eee; }
figcaption, p.note { font-size: 0.9em; color: #444; }
"""


def write_report(run_folder, meta=None) -> Path:
    """Write ``run_folder/report.html`` from the run's saved files (``meta``: run.json's
    content, when the run writes it after the page); returns its path."""
    folder = Path(run_folder)
    text = render_report(folder, meta)
    return atomic_write(folder / "report.html", text)


def render_report(folder: Path, meta=None) -> str:
    """The report's HTML text (``meta``: instead of the folder's run.json)."""
    results = read_results(folder)
    header, rows = read_table(folder, results)
    name = results.get("config") or folder.parent.name
    parts = [f"<h1>multisvm report: {_esc(name)} ({_esc(folder.name)})</h1>",
             "<h2>Results</h2>", table_html(header, rows),
             f"<p class=\"note\">{_esc(_footnote(rows, results))}</p>"]
    parts += tables_html(results)  # Hsu & Lin's Tables II and III when the run asks for them
    swept = read_sweep(folder)
    if swept is not None:
        parts += ["<h2>Sweep</h2>", sweep_table(swept.to_dict("records"), "html")]
    if results.get("dag_orders"):
        parts.append(f"<pre>{_esc(dag_orders_text(results['dag_orders']))}</pre>")
    cd_diagram = figures_html(folder / "figures", FIGURE_KINDS[:2])
    ranking = ranking_with_verdict(results)
    if ranking or cd_diagram:
        parts.append("<h2>Ranking of the schemes over datasets</h2>")
    if ranking:
        parts.append(f"<pre>{_esc(across_datasets_text(ranking))}</pre>")
    if ranking and ranking.get("verdict"):
        parts.append(plain_table(PAIR_HEADER, verdict_rows(ranking["verdict"])))
    parts += cd_diagram + figures_html(folder / "figures", FIGURE_KINDS[2:])
    config_text = read_config_text(folder)
    if config_text is not None:
        parts += ["<h2>Config</h2>", f"<pre>{_esc(config_text)}</pre>"]
    meta = read_meta(folder) if meta is None else meta
    if meta:
        parts += ["<h2>Provenance (run.json)</h2>", provenance_html(meta)]
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>multisvm report: {_esc(name)}</title>\n<style>{CSS}</style>\n</head>\n"
            "<body>\n" + "\n".join(parts) + "\n</body>\n</html>\n")


def plain_table(header, rows) -> str:
    """A table of texts (``header``: column names; ``rows``: tuples of cells), escaped."""
    head = "".join(f"<th>{_esc(name)}</th>" for name in header)
    body = "".join("<tr>" + "".join(f"<td>{_esc(cell)}</td>" for cell in row) + "</tr>\n"
                   for row in rows)
    return f"<table>\n<tr>{head}</tr>\n{body}</table>"


def table_html(header, rows) -> str:
    """The table, each number shown as table.md shows it, its exact table.csv value in the
    cell's title (shown on hover)."""
    head = "".join(f"<th>{_esc(TITLES.get(key, key))}</th>" for key in header)
    best = _best_rows(rows)
    body = []
    for index, row in enumerate(rows):
        cells = []
        for key in header:
            exact = row.get(key) or ""
            shown = display(key, _parse(exact))
            if key == "error_pct" and row.get("bounded") == "True":
                shown += "*"  # a final fit stopped at max_iter (the footnote says so)
            kind = "" if is_number(_parse(exact)) else " class=\"text\""
            title = f" title=\"{_esc(exact)}\"" if shown != exact else ""
            cells.append(f"<td{kind}{title}>{_esc(shown)}</td>")
        mark = " class=\"best\"" if index in best else ""
        body.append(f"<tr{mark}>" + "".join(cells) + "</tr>")
    return (f"<div class=\"scroll\"><table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n"
            + "\n".join(body) + "\n</tbody>\n</table></div>")


def _best_rows(rows) -> set:
    """The indices of each dataset's lowest test error rows (ours; ties all marked)."""
    errors = {}
    for index, row in enumerate(rows):
        error = _parse(row.get("error_pct") or "")
        if is_number(error):
            errors.setdefault(row.get("dataset"), []).append((error, index))
    return {index for found in errors.values() for error, index in found
            if error == min(e for e, _ in found)}


def figures_html(figures: Path, kinds=FIGURE_KINDS) -> list[str]:
    """One section per kind of figure (``kinds``: prefix, title or None, caption), each PNG
    embedded with its caption."""
    pngs = (sorted([*figures.glob("*.png"), *figures.glob("*.svg")]) if figures.is_dir()
            else [])
    parts = []
    for prefix, title, caption in kinds:
        mine = [p for p in pngs if p.name.startswith(prefix)]
        if not mine:
            continue
        figures_of_kind = "\n".join(_figure(p, caption) for p in mine)
        if title:
            parts.append(f"<h2>{_esc(title)}</h2>")
        if prefix == "grid-":  # many small maps: folded, opened by a click
            figures_of_kind = (f"<details><summary>{len(mine)} grid maps</summary>\n"
                               f"{figures_of_kind}\n</details>")
        parts.append(figures_of_kind)
    return parts


def _figure(path: Path, caption: str) -> str:
    data = read_bytes(path, PNG_LIMIT, what="figure")
    kind = "svg+xml" if path.suffix == ".svg" else "png"
    if not data.startswith(b"<?xml" if kind == "svg+xml" else PNG_SIGNATURE):
        return (f"<p class=\"note\">{_esc(path.name)} is not a {path.suffix[1:].upper()} file; "
                "left out.</p>")
    uri = f"data:image/{kind};base64," + base64.b64encode(data).decode("ascii")
    return (f"<figure><img src=\"{uri}\" alt=\"{_esc(path.stem)}\">"
            f"<figcaption><b>{_esc(path.name)}</b>: {_esc(caption)}</figcaption></figure>")


def provenance_html(meta: dict) -> str:
    """run.json as a two-column table; nested values as compact JSON."""
    rows = "\n".join(
        f"<tr><th>{_esc(key)}</th><td class=\"text\">"
        f"{_esc(value if isinstance(value, str) else json.dumps(value))}</td></tr>"
        for key, value in meta.items())
    return f"<table>\n{rows}\n</table>"


def _footnote(rows, results) -> str:
    compared = any(row.get("mcnemar_p") for row in rows)
    resampled = any(row.get("mcnemar_test") == RESAMPLED for row in rows)
    note = footnote(results.get("compare_to") or REFERENCE, None, compared, resampled)
    return note + ("\n" + BOUNDED_NOTE if any(row.get("bounded") == "True" for row in rows)
                   else "")


def _parse(text: str):
    """A table.csv cell as a value: None, bool, int, float or the text itself."""
    if text == "":
        return None
    if text in ("True", "False"):
        return text == "True"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


def _esc(text) -> str:
    return html.escape(str(text), quote=True)
