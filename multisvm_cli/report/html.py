"""One self-contained HTML report of a run folder: the answer first, then table, ranking, figures,
config and provenance.

``write_report(run_folder)`` reads only the files a run saved, through the checked reader of
:mod:`.run_folder` (table.csv, or results.json's "table"; results.json's "ranking" and
"versus_best"; config.yaml; run.json) and the figures the registry (:mod:`.figures.base`)
names, and writes ``run_folder/report.html``:

1. the answer (:mod:`.summary`): per dataset, the best scheme, its 95% interval, and the
   schemes not significantly different from it by a paired test against it;
2. the table: the terminal's default columns (``columns.narrow_titles``), the paper's columns
   beside ours, the rest behind a checkbox (CSS only); empty columns left out; a click on a
   heading sorts the rows (a few lines of inline script, the page's only one);
3. the ranking and each registered figure kind's files, under its title, with its caption.

PNG figures are embedded as base64 ``data:`` URIs, CSS inline, no network reference, every
piece of text escaped. The page can be sent to someone: the config and the provenance show no
absolute path and no host name (:mod:`.shared`; run.json keeps them). The file is written to a temporary name and renamed
(``storage.atomic_write``), so a reader never sees half of it.
"""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path

from ..base.errors import MultisvmError
from ..estimators.registry import REFERENCE
from ..base.readers import read_bytes
from ..base.storage import atomic_write
from ..base.yaml_loader import load
from .figures.base import registered
from .html_table import CSS, LINEAR_MARK, SORTER, table_html
from .intervals import error_interval, n_splits
from .hsu_lin import tables_html
from .paired import RESAMPLED
from .per_class import CONFUSION_LIMIT, per_class
from .record import ERROR_PCT, label
from .run_folder import (read_config_text, read_meta, read_predictions, read_results,
                         read_sweep, read_table)
from .shared import SHARED_NOTE, shareable_meta, shareable_text
from .summary import RANKED_BY, WORDS, answer, best_schemes, log_loss_text, tests_text
from .sweep import sweep_table
from .table import BOUNDED_NOTE, dag_orders_text, edge_note, footnote, prepared_notes
from .verdict import PAIR_HEADER, across_datasets_text, ranking_with_verdict, verdict_rows

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_LIMIT = 64 << 20  # bytes of one figure


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
    place = {d: i for i, d in enumerate(dict.fromkeys(r["dataset"] for r in rows))}
    rows = sorted(rows, key=lambda row: place[row["dataset"]])  # the paper's baselines too
    config_text = read_config_text(folder)
    name = results.get("config") or folder.parent.name
    parts = [f"<h1>multisvm report: {_esc(name)} ({_esc(folder.name)})</h1>",
             "<h2>Answer</h2>", answer_html(results, rows),
             "<h2>Results</h2>", table_html(header, rows, _parse, {
                 "mcnemar_p": f"p vs {label(results.get('compare_to') or REFERENCE)}"},
                 _linear(results)),
             f"<p class=\"note\">{_esc(_footnote(rows, results, config_text))}</p>"]
    meta = read_meta(folder) if meta is None else meta
    parts += [f"<p class=\"note\">{_esc(line)}</p>" for line in prepared_notes(meta)]
    parts += tables_html(results)  # Hsu & Lin's Tables II and III when the run asks for them
    parts += per_class_html(read_predictions(folder), rows)
    swept = read_sweep(folder)
    if swept is not None:
        parts += ["<h2>Sweep</h2>", sweep_table(swept.to_dict("records"), "html")]
    if results.get("dag_orders"):
        parts.append(f"<pre>{_esc(dag_orders_text(results['dag_orders']))}</pre>")
    kinds = registered()
    beside = figures_html(folder / "figures", [k for k in kinds if k.section == "ranking"])
    ranking = ranking_with_verdict(results)
    if ranking or beside:
        parts.append("<h2>Ranking of the schemes over datasets</h2>")
    if ranking:
        parts.append(f"<pre>{_esc(across_datasets_text(ranking))}</pre>")
    if ranking and ranking.get("verdict"):
        parts.append(plain_table(PAIR_HEADER, verdict_rows(ranking["verdict"])))
    parts += beside + figures_html(folder / "figures",
                                   [k for k in kinds if k.section != "ranking"])
    if config_text is not None:  # paths as :mod:`.shared` shows them
        parts += ["<h2>Config</h2>", f"<pre>{_esc(shareable_text(config_text, meta))}"
                  "</pre>"]
    if meta:
        parts += ["<h2>Provenance (run.json)</h2>", provenance_html(shareable_meta(meta)),
                  f"<p class=\"note\">{_esc(SHARED_NOTE)}</p>"]
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>multisvm report: {_esc(name)}</title>\n<style>{CSS}</style>\n</head>\n"
            "<body>\n" + "\n".join(parts) + f"\n<script>{SORTER}</script>\n</body>\n</html>\n")


OLD_FOLDER_NOTE = ("This run folder has no predictions.csv (a run from before the file was "
                   "written): rerun the config for the confusion matrix and per-class recall.")


def per_class_html(predictions, rows) -> list[str]:
    """The per-class section (:mod:`.per_class`, from predictions.csv: ``predictions``, None
    for an old run folder, which gets a note instead): per dataset, the best scheme's
    (:func:`.summary.best_schemes` of the table ``rows``) confusion matrix and every scheme's
    recall per class (%)."""
    parts = ["<h2>Per-class results</h2>"]
    if predictions is None:
        return parts + [f"<p class=\"note\">{_esc(OLD_FOLDER_NOTE)}</p>"]
    best = {dataset: scheme for dataset, (scheme, _) in best_schemes(rows).items()}
    for found in per_class(predictions, best):
        classes = found["classes"]
        parts.append(f"<h3>{_esc(found['dataset'])}</h3>")
        if found["confusion"] is not None:
            parts.append(f"<p>Confusion matrix of the best scheme, {_esc(label(found['best']))}"
                         " (rows: true class, columns: predicted class; test points of every"
                         " split)</p>")
            parts.append(plain_table(["true \\ predicted"] + classes,
                                     [(c, *counts) for c, counts in
                                      zip(classes, found["confusion"].tolist())]))
        elif len(classes) > CONFUSION_LIMIT:
            parts.append(f"<p class=\"note\">{len(classes)} classes: the confusion matrix is "
                         f"shown for at most {CONFUSION_LIMIT}</p>")
        parts.append("<p>Recall per class (% of the class's test points predicted right)</p>")
        parts.append(plain_table(["scheme"] + classes, [
            (label(scheme), *("" if r is None else f"{100 * r:.1f}" for r in recalls))
            for scheme, recalls in found["recall"].items()]))
    return parts


def plain_table(header, rows) -> str:
    """A table of texts (``header``: column names; ``rows``: tuples of cells), escaped."""
    head = "".join(f"<th>{_esc(name)}</th>" for name in header)
    body = "".join("<tr>" + "".join(f"<td>{_esc(cell)}</td>" for cell in row) + "</tr>\n"
                   for row in rows)
    return f"<table>\n<tr>{head}</tr>\n{body}</table>"


def answer_html(results, rows) -> str:
    """The answer (:func:`.summary.answer`): per dataset, the best scheme with its error's 95%
    interval, the schemes not significantly different from it and those worse, each with the
    p-value of its paired test against the best, and the lowest log-loss in a run with
    probabilities; and what was tested how."""
    splits, found_all = n_splits(results), answer(results, rows)
    body = []
    for found in found_all:
        dataset, best = found["dataset"], found["best"]
        row = next(r for r in rows if r["dataset"] == dataset and r["scheme"] == best)
        interval = error_interval({ERROR_PCT: found[ERROR_PCT],
                                   "error_sd": _parse(row.get("error_sd") or ""),
                                   "n_test": _parse(row.get("n_test") or "")},
                                  splits.get((dataset, best), 1))
        where = (f" (95% {interval[2]} interval {interval[0]:.2f} to {interval[1]:.2f})"
                 if interval else "")
        tied = (f"; tied: {', '.join(map(label, found['tied']))}" if found["tied"] else "")
        if "log_loss" in found:  # a run with probabilities: its best probabilities too
            tied += "; " + log_loss_text(found["log_loss"])
        same = [test for test in found["same"] if test[0] not in found["tied"]]  # tied: above
        untested = (f"; not tested against {label(best)}: "
                    + ", ".join(map(label, found["untested"]))) if found["untested"] else ""
        score = (f"{WORDS[found['ranked_by']]} {found['score']:.3f}, error "
                 if found["ranked_by"] != RANKED_BY else "")
        body.append(f"<tr><td class=\"text\">{_esc(dataset)}</td><td class=\"text\"><b>"
                    f"{_esc(label(best))}</b> {score}{found[ERROR_PCT]:.2f}%"
                    f"{_esc(where + tied)}</td>"
                    f"<td class=\"text\">{_esc(tests_text(same) + untested)}</td>"
                    f"<td class=\"text\">{_esc(tests_text(found['worse']))}</td></tr>")
    alpha = next((f["alpha"] for f in found_all), 0.05)
    balanced = any(f["ranked_by"] != RANKED_BY for f in found_all)
    head = ("<tr><th class=\"text\">dataset</th><th class=\"text\">best: lowest test error"
            + (" (highest balanced accuracy where shown)" if balanced else "")
            + f"</th><th class=\"text\">not significantly different from the best at alpha = "
            f"{alpha:g} (p)</th><th class=\"text\">significantly worse than the best (p)</th>"
            "</tr>")
    note = ("Each scheme is tested against its dataset's best scheme on the same test points: "
            "McNemar's test (exact binomial below 25 discordant points) for a single repeat, "
            f"the corrected resampled t-test ({RESAMPLED}) over the folds x repeats otherwise. "
            "Each p-value is one test on its own, not corrected for the several comparisons "
            "per dataset. Tied: the best's very test error (listed once, beside the best). "
            "Not significantly different does not mean equivalent: with few test points these "
            "tests have little power. The 95% interval of the best's error is Wilson's for a "
            "single test split, the fold spread (error +- t SD / sqrt(J)) over J splits.")
    return (f"<table class=\"answer\">\n{head}\n" + "\n".join(body) + "\n</table>\n"
            f"<p class=\"note\">{_esc(note)}</p>")


def figures_html(figures: Path, kinds) -> list[str]:
    """One section per registered figure kind (``kinds``: :class:`.figures.base.FigureKind`)
    with files in ``figures``: its title, then each PNG or SVG embedded with its caption."""
    files = (sorted([*figures.glob("*.png"), *figures.glob("*.svg")]) if figures.is_dir()
             else [])
    parts = []
    for kind in kinds:
        mine = [p for p in files if kind.owns(p)]
        if not mine:
            continue
        shown = "\n".join(_figure(p, kind.caption) for p in mine)
        if kind.title:
            parts.append(f"<h2>{_esc(kind.title)}</h2>")
        if kind.folded:  # many small figures: folded, opened by a click
            shown = (f"<details><summary>{len(mine)} {_esc(kind.name)} figures</summary>\n"
                     f"{shown}\n</details>")
        parts.append(shown)
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


def _linear(results) -> set:
    """The (dataset, scheme) of results.json's rows whose machines are linear models."""
    return {(r["dataset"], r["scheme"]) for r in results["table"] if r.get("primal")}


def _reference_source(config_text) -> str | None:
    """The config's ``reference: {source: ...}`` (what the paper columns are), or None."""
    if not config_text:
        return None
    try:
        config = load(config_text, "config.yaml")
    except MultisvmError:
        return None
    reference = config.get("reference") if isinstance(config, dict) else None
    source = reference.get("source") if isinstance(reference, dict) else None
    return source if isinstance(source, str) else None


def _footnote(rows, results, config_text=None) -> str:
    compared = any(row.get("mcnemar_p") for row in rows)
    resampled = any(row.get("mcnemar_test") == RESAMPLED for row in rows)
    linear = bool(_linear(results))
    note = footnote(results.get("compare_to") or REFERENCE, _reference_source(config_text),
                    compared, resampled, primal=linear)
    if linear:
        note += f"\n{LINEAR_MARK.strip()} a linear model (see the line above)."
    note += "\n" + BOUNDED_NOTE if any(row.get("bounded") == "True" for row in rows) else ""
    return note + ("\n" + edge_note(rows) if edge_note(rows) else "")


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
