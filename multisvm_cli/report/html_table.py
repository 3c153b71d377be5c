"""report.html's results table: the essential columns first, the rest behind a toggle, sortable.

- Essential: the terminal's default columns (those with a ``narrow`` heading in
  :data:`.columns.COLUMNS`, what ``multisvm reproduce-table`` prints without ``--wide``),
  each with the paper's column beside it where the config gives reference numbers
  (``paper_error_pct`` right of ``error_pct``, ...).
- The rest (``class="extra"``) is hidden until the "show all columns" checkbox is ticked: CSS
  only (``:checked ~``), no script.
- A column that is empty in every row is left out.
- A click on a heading sorts the rows by it (numbers as numbers, empty cells last), a second
  click reverses: :data:`SORTER`, a few lines of inline vanilla JavaScript, the page's only
  script, which loads nothing.

Each number is shown as table.md shows it (``columns.display``), its exact table.csv value in the
cell's ``title`` (shown on hover) and ``data-v`` (what the sort compares).
"""

from __future__ import annotations

import html

from ..base.numeric import is_number
from . import columns as declared
from .columns import display
from .record import ERROR_PCT

OLD_TITLES = {"n_support_vectors": "SVs"}  # a column of earlier runs' table.csv
CSS = """
body { font-family: sans-serif; margin: 2em auto; max-width: 1360px; padding: 0 1em; color: #222; }
div.scroll { overflow-x: auto; max-width: 100%; }
tr.best td { background: #e6f2e6; font-weight: bold; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th { background: #f0f0f0; } td.text, th.text { text-align: left; }
th.paper, td.paper { background: #f4f4fb; color: #335; }
table.sortable th { cursor: pointer; } table.sortable th:hover { background: #e0e0e0; }
#all-columns:not(:checked) ~ div.scroll .extra { display: none; }
table.answer td { vertical-align: top; }
pre { background: #f7f7f7; padding: 0.8em; overflow-x: auto; white-space: pre-wrap; font-size: 0.85em; }
figure { margin: 1em 0; } img { max-width: 100%; border: 1px solid #eee; }
figcaption, p.note { font-size: 0.9em; color: #444; }
"""
SORTER = """
function sortKey(cell) {
  var v = cell.hasAttribute("data-v") ? cell.getAttribute("data-v") : cell.textContent;
  var n = Number(v);
  return v === "" ? [2, 0] : (isNaN(n) ? [1, v.toLowerCase()] : [0, n]);
}
document.querySelectorAll("table.sortable th").forEach(function (th, column) {
  th.addEventListener("click", function () {
    var body = th.closest("table").tBodies[0], up = th.getAttribute("data-dir") !== "up";
    th.setAttribute("data-dir", up ? "up" : "down");
    Array.from(body.rows).sort(function (a, b) {
      var x = sortKey(a.cells[column]), y = sortKey(b.cells[column]);
      if (x[0] === 2 || y[0] === 2 || x[0] !== y[0]) { return x[0] - y[0]; }
      return (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0) * (up ? 1 : -1);
    }).forEach(function (row) { body.appendChild(row); });
  });
});
"""


def columns(header, rows) -> list[tuple[str, bool]]:
    """(key, essential) of the columns shown, in order: the header's columns that some row
    fills, each paper column right after ours (or where ours would be), the essential ones
    (those with a ``narrow`` heading, and their paper columns) marked."""
    paper = _paper()
    narrow = declared.narrow_titles()
    filled = [key for key in header if any(row.get(key) not in (None, "") for row in rows)]
    ours = [key for key in filled if key not in paper]
    for theirs in (key for key in filled if key in paper):
        mine = paper[theirs]
        ours.insert(ours.index(mine) + 1 if mine in ours else len(ours), theirs)
    return [(key, key in narrow or paper.get(key) in narrow) for key in ours]


def _paper() -> dict:
    """{paper column: ours} of the declared paper columns (shown when a row has the paper's)."""
    return {c.key: c.key.removeprefix("paper_") for c in declared.COLUMNS
            if c.key.startswith("paper_")}


def titles_of() -> dict:
    """{key: heading} of every declared column (and of earlier runs' columns)."""
    return {**OLD_TITLES, **{c.key: c.title for c in declared.COLUMNS}}


LINEAR_MARK = " \u2021"  # after a linear model's scheme, kernel evals and iterations
LINEAR_KEYS = ("scheme", "kernel_evaluations", "smo_iterations")


def table_html(header, rows, parse, titles=None, linear=()) -> str:
    """The table of ``rows`` (table.csv's strings) over ``header``'s keys; ``parse`` turns a
    cell's text into its value; ``titles``: headings instead of the declared ones; ``linear``:
    the (dataset, scheme) of linear models, whose scheme, kernel evals and iterations are
    marked :data:`LINEAR_MARK` (dot products with weight vectors, not kernel evaluations; a
    linear solver's iterations, not SMO's). Each dataset's lowest-error rows are marked
    ``best``."""
    shown = columns(header, rows)
    extra = sum(not essential for _, essential in shown)
    titles = {**titles_of(), **(titles or {})}
    words = {key for key, _ in shown if not any(is_number(parse(r.get(key) or "")) for r in rows)}
    head = "".join(f"<th{_cls(key, essential, key in words)}>{_esc(titles.get(key, key))}</th>"
                   for key, essential in shown)
    best = best_rows(rows, parse)
    body = []
    for index, row in enumerate(rows):
        cells = []
        for key, essential in shown:
            exact = row.get(key) or ""
            value = parse(exact)
            text = display(key, value)
            if key == ERROR_PCT and row.get("bounded") == "True":
                text += "*"  # a final fit stopped at max_iter (the footnote says so)
            if key in LINEAR_KEYS and text and (row.get("dataset"), row.get("scheme")) in linear:
                text += LINEAR_MARK  # the footnote says what a linear model's figures are
            title = f" title=\"{_esc(exact)}\"" if text != exact else ""
            sort = f" data-v=\"{_esc(exact)}\"" if is_number(value) else ""
            cells.append(f"<td{_cls(key, essential, not is_number(value))}{title}{sort}>"
                         f"{_esc(text)}</td>")
        mark = " class=\"best\"" if index in best else ""
        body.append(f"<tr{mark}>" + "".join(cells) + "</tr>")
    toggle = (f"<input type=\"checkbox\" id=\"all-columns\"><label for=\"all-columns\"> show "
              f"all {len(shown)} columns ({extra} more)</label>\n") if extra else ""
    return (f"<div class=\"results\">{toggle}<div class=\"scroll\"><table class=\"sortable\">\n"
            f"<thead><tr>{head}</tr></thead>\n<tbody>\n" + "\n".join(body)
            + "\n</tbody>\n</table></div></div>")


def best_rows(rows, parse) -> set:
    """The indices of each dataset's lowest test error rows (ours; ties all marked)."""
    errors = {}
    for index, row in enumerate(rows):
        error = parse(row.get(ERROR_PCT) or "")
        if is_number(error):
            errors.setdefault(row.get("dataset"), []).append((error, index))
    return {index for found in errors.values() for error, index in found
            if error == min(e for e, _ in found)}


def _cls(key, essential, text=False) -> str:
    names = [name for name, on in (("text", text), ("paper", key in _paper()),
                                   ("extra", not essential)) if on]
    return f" class=\"{' '.join(names)}\"" if names else ""


def _esc(text) -> str:
    return html.escape(str(text), quote=True)
