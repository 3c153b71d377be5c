"""The results pages of Allwein et al. (2000) and Rifkin & Klautau (2004), and Wu, Lin & Weng's
(2004) runs kept in ``wu-lin-weng-2004-runs.yaml``: our runs beside the papers' numbers, every paper number read from its data file (typed once, with its table and
page), never typed on the page.

Two steps:

- ``python scripts/paper_pages.py --collect STUDY RUN_FOLDER...`` reads finished run folders
  (results.json, sweep.csv, predictions.csv, run.json) and writes what the page shows of them
  to ``docs/results/data/<STUDY>-runs.yaml``: each run's config, date, commit, machine and wall
  time, each cell's test error and chosen (C, gamma), and for Rifkin & Klautau every scheme
  against one-vs-all by :func:`multisvm_cli.report.bootstrap.compare_predictions`;
- ``python scripts/paper_pages.py --add STUDY RUN_FOLDER...`` does the same into the data file
  that is there: a run added replaces the runs and cells already held of its datasets (a
  later, fuller run of one set, say), the others stay (:func:`add`);
- ``python scripts/paper_pages.py`` rewrites the generated blocks of the pages
  (``<!-- paper: NAME -->`` ... ``<!-- /paper -->``, NAME a key of :func:`blocks`) from the data
  files: the runs, the paper's tables beside ours, the paper's sets not run ("What this page
  does not cover", from the paper file's optional ``sets``) and the results index's table
  (``docs/results/data/index.yaml``, its study rows' dates and commits from the runs files);
  ``--check`` only compares and exits 1 when a page is not current.

A runs file is ``{runs: [...], cells: {config: {dataset: ...}}}``; a run or a cell may carry
fields beyond those written here, which the pages ignore, and a dataset of cells that the paper's
table has no row for is left off the table (the "does not cover" block counts it as run).

STUDY: ``allwein-2000`` or ``rifkin-klautau-2004``.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

DATA = REPO / "docs" / "results" / "data"
STUDIES = ("allwein-2000", "rifkin-klautau-2004")
PAGES = {"allwein-2000": REPO / "docs" / "results" / "allwein.md",
         "rifkin-klautau-2004": REPO / "docs" / "results" / "rifkin-klautau.md",
         "wu-lin-weng-2004": REPO / "docs" / "results" / "wu-lin-weng.md",
         "index": REPO / "docs" / "results" / "index.md"}
INDEX = DATA / "index.yaml"
IN_MIRROR = ("a verified copy is now in the mirror (`../shared/datasets`, its SOURCES.md); its "
             "run is pending")
NOT_IN_MIRROR = "not in the mirror: no verified copy of the data here, so not run"
PAPER_POINT = REPO / "configs" / "rifkin-klautau-2004-paper-point.yaml"
# Rifkin & Klautau's runs: a config whose name holds "paper-point" (rifkin-klautau-2004-paper-point,
# rk-2004-paper-point-yeast) ran at their chosen points, every other config tuned
AT_PAPER_POINT = "paper-point"
CODE_NAMES = {"ovr": "one-vs-all", "exhaustive": "complete", "ovo": "all-pairs",
              "dense": "dense", "sparse": "sparse"}
METHODS = ("OVA", "AVA", "DEN", "SPA", "COM")
ECOC_METHOD = {"ovr": "OVA", "ovo": "AVA", "dense": "DEN", "sparse": "SPA", "exhaustive": "COM"}
BLOCK = re.compile(r"(<!-- paper: (?P<name>[\w-]+) -->\n).*?(<!-- /paper -->)", re.S)


def read_yaml(path):
    return yaml.safe_load(Path(path).read_text(encoding="utf-8"))


# --- collecting a run ----------------------------------------------------------------------

def run_facts(folder) -> dict:
    """A run folder's config, datasets, date, commit, machine and wall time (run.json), and the
    training CPU seconds of its selection fits (grid.csv) and final fits (results.json)."""
    folder = Path(folder)
    run = json.loads((folder / "run.json").read_text())
    cpu = run.get("cpu") or {}
    with open(folder / "grid.csv", newline="") as f:
        selection = sum(float(row["fit_cpu"] or 0) for row in csv.DictReader(f))
    results = json.loads((folder / "results.json").read_text())["results"]
    final = sum(float(r.get("cpu_time") or 0) for r in results)
    return {"config": Path(run["config"]).stem,
            "datasets": (run.get("datasets") or {}).get("selected"),
            "date": run["started"][:10], "commit": run["git_commit"][:7],
            "dirty": bool(run.get("git_dirty")),
            "machine": f"{cpu.get('model', '?')}, {cpu.get('logical_cores', '?')} cores",
            "wall_seconds": round(float(run["wall_seconds"]), 1),
            "training_cpu_seconds": round(selection + final, 1)}


def swept(dataset_name) -> tuple[str, str | None]:
    """(base dataset, swept value) of a derived dataset name (``glass ecoc.code=dense``)."""
    base, _, rest = dataset_name.partition(" ")
    return base, (rest.partition("=")[2] or None)


def chosen(result) -> dict:
    """The chosen C and gamma: one point, or over folds the mean C and the mean log2 gamma."""
    points = result.get("selected") or [result.get("params") or {}]
    cs = [p["C"] for p in points if "C" in p]
    gammas = [p["gamma"] for p in points if p.get("gamma")]
    out = {}
    if cs:
        out["C"] = round(sum(cs) / len(cs), 3)
    if gammas:
        out["log2_gamma"] = round(sum(math.log2(g) for g in gammas) / len(gammas), 2)
    return out


def allwein_cells(folder) -> dict:
    """{dataset: {decoding: {code: error %}}} from a run's sweep.csv."""
    cells = {}
    with open(Path(folder) / "sweep.csv", newline="") as f:
        for row in csv.DictReader(f):
            code, decoding = row["value"].strip("[]").split(", ")
            cells.setdefault(row["dataset"], {}).setdefault(decoding, {})[code] = \
                round(float(row["error_pct"]), 2)
    return cells


def rk_method(scheme, value) -> str:
    """Rifkin & Klautau's name of a result: a paper-point row ``own:RK DEN``, or ovr, maxwins
    and ecoc at the swept code."""
    if scheme.startswith("own:RK "):
        return scheme[len("own:RK "):]
    return {"ovr": "OVA", "maxwins": "AVA"}.get(scheme) or ECOC_METHOD[value]


def predictions(folder) -> dict:
    """{(dataset name, scheme): (true, predicted) in (repeat, fold, row) order} of
    predictions.csv: the same order for every scheme of a run, so that their predictions pair."""
    table = {}
    with open(Path(folder) / "predictions.csv", newline="") as f:
        for row in csv.DictReader(f):
            key = (row["dataset"], row["scheme"])
            table.setdefault(key, []).append((int(row["repeat"] or 0), int(row["fold"]),
                                              int(row["row"]), row["true"], row["predicted"]))
    return {key: ([r[3] for r in sorted(rows)], [r[4] for r in sorted(rows)])
            for key, rows in table.items()}


def rk_cells(folder) -> dict:
    """{dataset: {method: {error, C, log2_gamma, against OVA: comparison}}} of one run."""
    from multisvm_cli.report.bootstrap import compare_predictions

    results = json.loads((Path(folder) / "results.json").read_text())["results"]
    points = predictions(folder)
    found = {}
    for result in results:
        base, value = swept(result["dataset"])
        method = rk_method(result["scheme"], value)
        if method in found.get(base, {}):
            continue  # ovr and maxwins run beside every swept code: the first run's
        ova = next(r for r in results if r["dataset"] == result["dataset"]
                   and rk_method(r["scheme"], value) == "OVA")
        y, mine = points[(result["dataset"], result["scheme"])]
        _, theirs = points[(ova["dataset"], ova["scheme"])]
        row = compare_predictions(y, mine, theirs)
        # a paper-point row ran at its own C and gamma, not the config's placeholder grid's
        point = own_point(folder, method) if result["scheme"].startswith("own:") \
            else chosen(result)
        found.setdefault(base, {})[method] = {
            "error": round(row["error_a"], 2), **point,
            "vs_ova": {"ova": round(row["error_b"], 2), "diff": round(row["diff"], 2),
                       "agree": round(row["agree"], 3),
                       "bootstrap": [round(v, 4) for v in row["bootstrap"]],
                       "p_value": round(row["p_value"], 4)}}
    return found


def collect(study, folders) -> dict:
    """The data file of ``study``'s runs (see the module docstring)."""
    cells_of = allwein_cells if study == "allwein-2000" else rk_cells
    runs, cells = [], {}
    for folder in folders:
        facts = run_facts(folder)
        runs.append(facts)
        for dataset, values in cells_of(folder).items():
            cells.setdefault(facts["config"], {})[dataset] = values
    return {"runs": runs, "cells": cells}


def add(measured, added) -> dict:
    """``measured`` (a data file's content) with the runs and cells of ``added`` (:func:`collect`
    of new runs) in place of those it held of the same datasets, under any config."""
    datasets = {d for run in added["runs"] for d in run["datasets"] or ()}
    runs = [run for run in measured["runs"] if not datasets & set(run["datasets"] or ())]
    cells = {config: {d: v for d, v in by_dataset.items() if d not in datasets}
             for config, by_dataset in measured["cells"].items()}
    for config, by_dataset in added["cells"].items():
        cells.setdefault(config, {}).update(by_dataset)
    return {"runs": runs + added["runs"],
            "cells": {config: held for config, held in cells.items() if held}}


# --- the pages' blocks ---------------------------------------------------------------------

def _number(value, digits=2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _interval(pair) -> str:
    return "-" if pair is None else f"[{pair[0]:.4g}, {pair[1]:.4g}]"


def _table(header, rows) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(map(str, row)) + " |" for row in rows]


def _duration(seconds) -> str:
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def runs_block(measured) -> list[str]:
    """One line per run: config, datasets, date, commit, machine, wall time."""
    lines = []
    for run in measured["runs"]:
        datasets = f" ({', '.join(run['datasets'])})" if run.get("datasets") else ""
        dirty = " plus uncommitted changes" if run["dirty"] else ""
        lines.append(f"- `{run['config']}`{datasets}: run on {run['date']} at commit "
                     f"{run['commit']}{dirty}, {run['machine']}, wall time "
                     f"{_duration(run['wall_seconds'])}, training CPU "
                     f"{_duration(run['training_cpu_seconds'])} (selection and final fits).")
    return lines


def allwein_block(paper, measured) -> list[str]:
    """Table 3 beside ours: one table per decoding, each code's ours and the paper's (a paper
    row's set is ours under its ``sets`` entry's ``card`` name; a null of theirs is their "-")."""
    ours, sets = {}, paper.get("sets") or {}
    for by_dataset in measured["cells"].values():  # every config's runs: each set whole
        ours.update(by_dataset)
    where = f"Table {paper['table']}, p. {paper['page']}"
    header = ["dataset"] + [f"{CODE_NAMES[c]} {who}" for c in paper["codes"]
                            for who in ("ours", "paper")]
    lines = []
    for decoding, rows in paper["errors"].items():
        body = []
        for dataset, theirs in rows.items():
            card = (sets.get(dataset) or {}).get("card", dataset)
            mine = ours.get(card, {}).get(decoding, {})
            body.append([dataset] + [cell for code, value in zip(paper["codes"], theirs)
                                     for cell in (_number(mine.get(code)), _number(value, 1))])
        lines += [f"{decoding.capitalize()} decoding, test error (%); paper: {paper['paper']}, "
                  f"{where}:", ""]
        lines += _table(header, body) + [""]
    return lines[:-1]


def own_point(folder, method) -> dict:
    """The C and gamma a paper-point row ``RK method`` ran at: its options in the run folder's
    config.yaml (the config that ran; the satimage paper-point config's without one)."""
    config = Path(folder) / "config.yaml"
    return paper_point(method, config if config.is_file() else PAPER_POINT)


def paper_point(method, config=PAPER_POINT) -> dict:
    """The C and gamma of ``method``'s row in a paper-point config (Tables 16-17)."""
    for row in read_yaml(config)["schemes"]:
        if row["label"] == f"RK {method}":
            return {"C": row["options"]["C"], "log2_gamma": math.log2(row["options"]["gamma"])}
    raise KeyError(method)


def _point(cell) -> str:
    if not cell or "C" not in cell:
        return "-"
    return f"{cell['C']:g}, 2^{cell['log2_gamma']:g}"


def rk_block(paper, measured, configs, with_paper_point=False) -> list[str]:
    """Tables 6-9 beside ours, one table per method against OVA: our runs of ``configs``; every
    paper row ("-" where none of ours), or ``with_paper_point`` only the rows of ours."""
    ours = {}
    for config in configs:
        ours.update(measured["cells"].get(config, {}))
    lines = []
    for method, table in paper["tables"].items():
        where = f"Table {table['table']}, p. {table['page']}"
        header = ["dataset", method, "OVA", "DIFF", "AGREE", "BOOTSTRAP", "McNemar p",
                  "C, gamma (ours)", f"{method} paper", "OVA paper", "DIFF paper",
                  "AGREE paper", "BOOTSTRAP paper"]
        if with_paper_point:
            header[7] = "C, gamma (Tables 16-17, p. 137)"
        body = []
        for dataset, theirs in table["rows"].items():
            cell = ours.get(dataset, {}).get(method)
            if with_paper_point and cell is None:
                continue
            versus = (cell or {}).get("vs_ova", {})
            point = _point(cell if cell and "C" in cell or not with_paper_point
                           else paper_point(method))
            body.append([dataset, _number((cell or {}).get("error")), _number(versus.get("ova")),
                         _number(versus.get("diff")), _number(versus.get("agree"), 3),
                         _interval(versus.get("bootstrap")), _number(versus.get("p_value"), 3),
                         point, f"{theirs[0]:.2f}", f"{theirs[1]:.2f}", f"{theirs[2]:.2f}",
                         f"{theirs[3]:.3f}", _interval(theirs[4])])
        lines += [f"{method} against OVA (paper: {paper['paper']}, {where}):", ""]
        lines += _table(header, body) + [""]
    return lines[:-1]


def uncovered_block(paper, measured) -> list[str]:
    """One line per set of the paper's ``sets`` (name: {mirror, optional note and card}) that
    has no cell in ``measured`` under any config, saying why it was not run."""
    ran = {dataset for by_dataset in measured["cells"].values() for dataset in by_dataset}
    lines = []
    for name, entry in (paper.get("sets") or {}).items():
        if entry.get("card", name) in ran:
            continue
        why = " ".join(str(entry.get("note") or "").split()) or (
            IN_MIRROR if entry.get("mirror") else NOT_IN_MIRROR)
        lines.append(f"- **{name}**: {why}.")
    return lines or ["- Every set of the paper's table ran here."]


WLW_RULES = {"maxwins": "Max Wins (their DV)", "coupling": "coupling (their δ2)"}


def wlw_block(measured) -> list[str]:
    """Wu, Lin & Weng's runs kept in a runs file (``cells: {config: {dataset: {rule: {error,
    sd}}}}``) beside the paper's mean DV error, read from the config's ``reference`` (typed
    there once, with its figure and page); δ2 has no paper number (bars only)."""
    rows = []
    for config, by_dataset in measured["cells"].items():
        reference = read_yaml(REPO / "configs" / f"{config}.yaml").get("reference") or {}
        for dataset, rules in by_dataset.items():
            for rule, cell in rules.items():
                theirs = ((reference.get(dataset) or {}).get(rule) or {}).get("error")
                rows.append([dataset, f"`{config}`", WLW_RULES.get(rule, rule),
                             _number(cell["error"]), _number(cell.get("sd")),
                             _number(theirs), reference.get("source", "-") if theirs else "-"])
    return _table(["dataset", "config", "rule", "error % (ours)", "SD over draws",
                   "error % (paper)", "paper source"], rows)


def recorded(measured) -> str:
    """The index's "runs recorded" cell of a study: each date with its runs' commits."""
    by_date = {}
    for run in measured["runs"]:
        commits = by_date.setdefault(run["date"], [])
        if run["commit"] not in commits:
            commits.append(run["commit"])
    return ", ".join(f"{date} ({', '.join(commits)})" for date, commits in sorted(by_date.items()))


def index_block(studies) -> list[str]:
    """The results index's table: each page's row of ``index.yaml``; a row naming a ``study``
    gets its "runs recorded" from that study's runs file."""
    rows = []
    for row in read_yaml(INDEX)["pages"]:
        runs = recorded(studies[row["study"]]) if row.get("study") else row["runs"]
        rows.append([f"[{row['title']}]({row['page']})", " ".join(row["what"].split()), runs])
    return _table(["page", "what", "runs recorded"], rows)


def measured_of(study) -> dict:
    """A study's runs file, or no runs when it has none yet."""
    runs = DATA / f"{study}-runs.yaml"
    return read_yaml(runs) if runs.is_file() else {"runs": [], "cells": {}}


def blocks() -> dict:
    """Each generated block's lines, by name."""
    out, studies = {}, {study: measured_of(study) for study in STUDIES}
    for study, measured in studies.items():
        paper = read_yaml(DATA / f"{study}.yaml")
        out[f"{study}-runs"] = runs_block(measured)
        out[f"{study}-not-covered"] = uncovered_block(paper, measured)
        if study == "allwein-2000":
            out["allwein-2000-table3"] = allwein_block(paper, measured)
        else:
            at_point = [c for c in measured["cells"] if AT_PAPER_POINT in c]
            tuned = [c for c in measured["cells"] if c not in at_point]
            out["rifkin-klautau-2004-tuned"] = rk_block(paper, measured, tuned)
            out["rifkin-klautau-2004-paper-point"] = rk_block(paper, measured, at_point,
                                                             with_paper_point=True)
    wlw = measured_of("wu-lin-weng-2004")
    out["wu-lin-weng-2004-runs"] = runs_block(wlw)
    out["wu-lin-weng-2004-table"] = wlw_block(wlw)
    out["results-index"] = index_block(studies)
    return out


def render(text, generated) -> str:
    """``text`` with every ``<!-- paper: NAME -->`` block's body replaced by ``generated``'s."""
    def body(match):
        lines = generated[match["name"]]
        return match.group(1) + "\n".join(lines) + ("\n" if lines else "") + match.group(3)
    return BLOCK.sub(body, text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collect", nargs="+", metavar=("STUDY", "RUN_FOLDER"))
    parser.add_argument("--add", nargs="+", metavar=("STUDY", "RUN_FOLDER"))
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 if stale")
    args = parser.parse_args(argv)
    for option, given in (("--collect", args.collect), ("--add", args.add)):
        if not given:
            continue
        study, *folders = given
        if study not in STUDIES or not folders:
            parser.error(f"{option} takes a study ({', '.join(STUDIES)}) and run folders")
        data, measured = DATA / f"{study}-runs.yaml", collect(study, folders)
        if option == "--add":
            measured = add(read_yaml(data), measured)
        data.write_text(yaml.safe_dump(measured, sort_keys=False, width=100))
    generated, stale = blocks(), []
    for page in PAGES.values():
        text = page.read_text(encoding="utf-8")
        new = render(text, generated)
        if new != text:
            stale.append(page.name)
            if not args.check:
                page.write_text(new, encoding="utf-8")
    if args.check and stale:
        print(f"not current: {', '.join(stale)}; run python scripts/paper_pages.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
