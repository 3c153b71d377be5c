"""Hsu & Lin's published range beside every Table II of the results pages (docs/results/hsu-lin.md
and docs/results/how-reached.md, where the earlier runs' tables went).

    python scripts/paper_range.py            # rewrite the page in place
    python scripts/paper_range.py --check    # exit 1 if a page is not current

A run's table.md already carries the "paper range" column (multisvm_cli/report/hsu_lin.py); the
page also holds Tables II pasted from runs made before it. For each markdown Table II on the page
(a table whose header starts ``dataset | rate``) this script (re)computes, from the rates shown
and the one file that types the paper's numbers (multisvm_cli/report/hsu_lin_paper.yaml):

- the last column, the paper's range on that set;
- each rate's ``[below]`` / ``[above]`` mark. A shown rate is rounded to 0.01, so it is marked
  only when every rate it rounds from is outside;
- the list after the table of each marked cell with the reason written for it in the file, for
  the config named (in backquotes) by the nearest heading above the table.
"""

import argparse
import re
import sys
from pathlib import Path

from tabulate import tabulate

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from multisvm_cli.estimators.registry import SCHEME_NAMES, label  # noqa: E402
from multisvm_cli.report import paper_range  # noqa: E402
from multisvm_cli.report.hsu_lin import OUTSIDE_TITLE, outside_line  # noqa: E402

PAGES = (REPO / "docs" / "results" / "hsu-lin.md", REPO / "docs" / "results" / "how-reached.md")
TABLE_II = re.compile(r"^\|\s*dataset\s*\|\s*rate\s*\|")
CONFIG = re.compile(r"^#+ .*`(hsu-lin-2002[\w-]*)`")
MARK = re.compile(r" \[(below|above)\]")
SHOWN = 0.005  # a rate shown to 2 decimals
COLUMN = "paper range"
LIST_HEADING = f"**{OUTSIDE_TITLE}**"
SCHEMES = {label(name): name for name in SCHEME_NAMES}


def rewrite(text) -> str:
    """The page with every Table II's range column, marks and outside list recomputed."""
    lines, out, config, i = text.split("\n"), [], None, 0
    while i < len(lines):
        found = CONFIG.match(lines[i])
        config = found.group(1) if found else config
        if not TABLE_II.match(lines[i]):
            out.append(lines[i])
            i += 1
            continue
        end = next(j for j in range(i, len(lines) + 1)
                   if j == len(lines) or not lines[j].startswith("|"))
        table, outside = table_ii(lines[i:end], config)
        out += table + (["", LIST_HEADING, ""] + [f"- {line}" for line in outside]
                        if outside else [])
        i = _past_old_list(lines, end)
    return "\n".join(out)


def table_ii(lines, config) -> tuple[list, list]:
    """A markdown Table II's lines, redrawn, and its outside lines."""
    header, *rows = [_cells(line) for line in lines[:1] + lines[2:]]
    if header[-1] == COLUMN:
        header, rows = header[:-1], [row[:-1] for row in rows]
    body, outside = [], []
    for dataset, protocol, *cells in rows:
        marked = []
        for method, cell in zip(header[2:], cells):
            cell = MARK.sub("", cell)
            rate = float(cell.strip("*").split()[0]) if cell else None
            where = paper_range.side(dataset, rate, SHOWN)
            if where:
                cell = _mark(cell, where)
                outside.append(outside_line(dataset, SCHEMES[method], rate, where, config))
            marked.append(cell)
        body.append([dataset, protocol, *marked, paper_range.range_text(dataset)])
    table = tabulate(body, headers=header + [COLUMN], tablefmt="github", disable_numparse=True)
    return table.split("\n"), outside


def _mark(cell, where) -> str:
    bold = cell.endswith("**")
    return (cell[:-2] if bold else cell) + f" [{where}]" + ("**" if bold else "")


def _cells(line) -> list:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _past_old_list(lines, end) -> int:
    """The index after an outside list already written below a table (``end``: the line after
    the table), or ``end`` when there is none."""
    if end + 1 >= len(lines) or lines[end + 1] != LIST_HEADING:
        return end
    i = end + 3
    while i < len(lines) and lines[i].startswith("- "):
        i += 1
    return i


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is not current")
    args = parser.parse_args()
    for page in PAGES:
        current, wanted = page.read_text(), rewrite(page.read_text())
        if args.check and current != wanted:
            sys.exit(f"{page} is not current: run {sys.argv[0]}")
        if not args.check:
            page.write_text(wanted)
