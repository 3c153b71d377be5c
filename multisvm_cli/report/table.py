"""The Table-1 report (Platt, Cristianini, Shawe-Taylor 1999): its rows, text and footnote.

One row per dataset x scheme: kernel, C, error rate, kernel evaluations per test point, training
CPU time, libsvm's SMO iterations of the final fit (a training cost that no implementation
speed-up blurs), classifier size, then model-selection time, evaluation time and a paired test
of the scheme against the comparison scheme (the DAG scheme unless the config says otherwise).
Where a dataset asked for both estimates, ``error %`` is the nested one and ``cv-best err %`` the
optimistic one of Hsu & Lin (2002), with their difference (``optimism``). A config's
reference numbers (the paper's) are shown beside ours, in columns prefixed ``paper``.

The paired test (the "McNemar" columns) is :func:`.paired.paired_test`.
"""

from __future__ import annotations

import csv
import io
import json
import textwrap

import numpy as np
from tabulate import tabulate

from ..estimators.registry import ORDER_STUDY, REFERENCE
from .balance import BALANCED_ACCURACY
from .columns import (balanced_note, copied, display, error_pct, narrow_notes, narrow_titles,
                      notes, shown)
from .paired import EXACT_BELOW, RESAMPLED, paired_test
from .record import ERROR_PCT, LABEL, label, label_of

FORMATS = ("table", "markdown", "csv", "json")
MCNEMAR_KEYS = ("mcnemar_p", "mcnemar_test", "significant")
DEFAULT_WIDTH = 120  # footnotes wrap here when the output is not a terminal


def table_rows(results, reference=None, compare_to=REFERENCE) -> list[dict]:
    """The report's rows (machine-readable values) from the protocol's per-scheme results.

    ``results``: dicts with dataset, scheme, kernel, C, n_errors, n_test, kernel_evaluations,
    cpu_time, size, selection_time, evaluation_time and ``correct`` (bool per test point, in the
    same point order for every scheme of a dataset); optionally ``error_sd``, ``repeats`` and
    ``splits`` (per split: n_test, n_train, error_pct; see :func:`paired_test`). Reference rows
    of schemes we did not run (the paper's baselines) are appended with only the paper columns
    filled.
    """
    reference = reference or {}
    by_key = {(r["dataset"], r["scheme"]): r for r in results}
    rows = []
    for result in results:
        row = _our_numbers(result)
        base = by_key.get((result["dataset"], compare_to))
        if (base is not None and result["scheme"] != compare_to
                and result.get("correct") is not None and base.get("correct") is not None):
            test = paired_test(result, base)  # the nested estimate only (cv-best: none)
            row.update(mcnemar_p=test["p_value"], mcnemar_test=test["test"],
                       significant=test["p_value"] < 0.05)
        row.update(_paper_numbers(reference.get(result["dataset"], {}).get(result["scheme"])))
        rows.append(row)
    for dataset, schemes in reference.items():
        if dataset == "source":
            continue
        for scheme, numbers in schemes.items():
            if (dataset, scheme) not in by_key and any(r["dataset"] == dataset for r in results):
                rows.append({"dataset": dataset, "scheme": scheme, **_paper_numbers(numbers)})
    return rows


def _our_numbers(result) -> dict:
    return {
        "dataset": result["dataset"], "scheme": result["scheme"], LABEL: label_of(result),
        "kernel": result["kernel"],
        "C": result["C"], ERROR_PCT: error_pct(result["n_errors"], result["n_test"]),
        "error_sd": result.get("error_sd"), "n_test": result["n_test"],
        "kernel_evaluations": result["kernel_evaluations"], "cpu_time": result["cpu_time"],
        "smo_iterations": result.get("smo_iterations"),
        "size_k": None if result["size"] is None else result["size"] / 1000.0,
        "selection_time": result["selection_time"],
        "evaluation_time": result["evaluation_time"],
        "estimate": result.get("estimate", "nested"), "ties": result.get("ties"),
        **copied(result),  # max SVM MB, levels, log-loss, Brier: as pooled
        **_cv_best_numbers(result),
        **({"primal": True} if result.get("primal") else {}),  # linear machines' figures
        **({"bounded": True} if result.get("bounded") else {}),  # a fit stopped at max_iter
        **({"edge": result["edge"]} if result.get("edge") else {}),  # chosen on the grid's edge
        **({"draws": result["draws"]} if result.get("draws") else {}),  # a draws split's
    }


def _cv_best_numbers(result) -> dict:
    """The cv-best columns of a result that carries both estimates (nested in ``error_pct``)."""
    best = result.get("cv_best")
    if best is None or result.get("estimate") != "nested":
        return {}
    nested = error_pct(result["n_errors"], result["n_test"])
    return {"cv_best_kernel": best["kernel"], "cv_best_C": best["C"],
            "cv_best_error_pct": best[ERROR_PCT],
            "optimism": nested - best[ERROR_PCT], "cv_best_ties": best["ties"]}


def _paper_numbers(numbers) -> dict:
    if not numbers:
        return {}
    kernel = numbers.get("kernel")
    if kernel is None and "sigma" in numbers:
        kernel = f"gaussian sigma={numbers['sigma']:g}"
    if kernel is None and "degree" in numbers:
        kernel = f"polynomial d={numbers['degree']}"
    return {"paper_kernel": kernel, "paper_C": numbers.get("C"),
            "paper_error_pct": numbers.get("error"),
            "paper_kernel_evaluations": numbers.get("kernel_evaluations"),
            "paper_cpu_time": numbers.get("cpu_time"), "paper_size_k": numbers.get("size_k")}


def render(rows, fmt="table", reference_source=None, compare_to=REFERENCE, wide=True,
           width=None, answer=None) -> str:
    """The report as text: ``table`` (aligned), ``markdown``, ``csv`` or ``json``.

    The columns are :data:`.columns.COLUMNS` (:func:`.columns.shown`).
    ``wide=False`` (the terminal's default): ``table`` shows the columns with a ``narrow``
    heading only, under it, to fit 120 columns. ``width``: the footnote's lines wrap there (None: one
    line per paragraph).
    Rows with a ``config`` key (several configs in one document) get it as the first column;
    csv and json end rows that carry a ``run_folder`` with it.
    ``table`` and ``markdown`` leave out the McNemar columns when no row was compared (csv and
    json keep every column). ``answer`` (:func:`.summary.answer_record`, json only): the
    document is ``{"rows": [...], "answer": answer}`` instead of the list of rows.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; allowed: {', '.join(FORMATS)}")
    columns = [(c.key, c.title) for c in shown(rows, fmt)]
    if fmt == "json":
        listed = [{key: row.get(key) for key, _ in columns} for row in rows]
        return json.dumps(listed if answer is None else {"rows": listed, "answer": answer},
                          indent=2)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow([key for key, _ in columns])
        writer.writerows([[_csv_value(row.get(key)) for key, _ in columns] for row in rows])
        return out.getvalue()
    compared = any(row.get("mcnemar_p") is not None for row in rows)
    if not compared:  # no comparison scheme among the rows: no empty McNemar columns
        columns = [(key, title) for key, title in columns if key not in MCNEMAR_KEYS]
    if not any(row.get("error_sd") is not None for row in rows):  # single splits: no SD
        columns = [(key, title) for key, title in columns if key != "error_sd"]
    if not wide and fmt == "table":
        narrow = narrow_titles(rows)
        columns = [(key, narrow[key]) for key, _ in columns if key in narrow]
    body = [[display(key, row.get(key)) + ("*" if key == ERROR_PCT and row.get("bounded")
                                           else "") for key, _ in columns] for row in rows]
    table = tabulate(body, headers=[title for _, title in columns],
                     tablefmt="github" if fmt == "markdown" else "simple", disable_numparse=True)
    resampled = any(row.get("mcnemar_test") == RESAMPLED for row in rows)
    estimates = {row.get("estimate") for row in rows if row.get("estimate")}
    if any("cv_best_error_pct" in row for row in rows):
        estimates.add("both")
    note = footnote(compare_to, reference_source, compared, resampled, estimates,
                    any(row.get("primal") for row in rows))
    if not wide and fmt == "table":
        note = ("Columns: " + ", ".join(title for _, title in columns)
                + f" ({narrow_notes(label(compare_to))}); --wide shows every column.\n" + note)
    if any(row.get("bounded") for row in rows):
        note += "\n" + BOUNDED_NOTE
    if edge_note(rows):
        note += "\n" + edge_note(rows)
    if any(row.get(BALANCED_ACCURACY) not in (None, "") for row in rows):
        note += "\n" + balanced_note()
    if width:
        note = "\n".join(textwrap.fill(line, width) for line in note.split("\n"))
    return table + "\n\n" + note


def footnote(compare_to=REFERENCE, reference_source=None, compared=True, resampled=False,
             estimates=(), primal=False) -> str:
    """What the columns mean, printed under the table; the McNemar line only when some row was
    ``compared`` with the comparison scheme, and the corrected resampled t-test's line when
    some row was tested with it (``resampled``: several repeats); a line on the estimates when
    a row used cv-best (``estimates``: the rows' estimates, with ``both`` when a row carries
    both); a line on linear machines' figures when some row's are (``primal``: a result's
    ``primal`` key, the estimator's ``primal_``)."""
    lines = notes()
    if "both" in estimates:
        lines.append("error % is the nested estimate (point chosen on each training part, "
                     "tested once on its test fold); cv-best err % is Hsu & Lin's (2002): the "
                     "grid point of lowest k-fold cross-validation error, chosen and reported on "
                     "the same folds, optimistic by construction; optimism = error % - cv-best "
                     "err % (percentage points).")
    elif "cv-best" in estimates:
        lines.append("error % of cv-best rows is Hsu & Lin's (2002) estimate: the grid point of "
                     "lowest k-fold cross-validation error, chosen and reported on the same folds "
                     "(optimistic by construction; no paired test).")
    if primal:  # some row's machines are linear (an estimator's ``primal_``)
        lines.append("Linear SVMs predict through their weight vectors: their kernel evals are dot "
                     "products with weight vectors per test point, and their size is the non-zero "
                     "weights plus the biases; with solver liblinear, their SMO iters are "
                     "liblinear's iterations (it runs no SMO).")
    against = label(compare_to)
    if compared and resampled:
        lines.append(f"Test vs {against} over repeats or random draws: corrected-t = "
                     "corrected resampled t-test (Nadeau & Bengio 2003) on the paired test "
                     "errors of the J splits (folds x repeats, or draws), t = mean(d) / "
                     "sqrt((1/J + n_test/n_train) var(d)) with J - 1 df; McNemar's test would "
                     "be unsound here, as a point is tested once per repeat (or in several "
                     "draws) and those tests are not independent.")
    elif compared:
        lines.append(f"McNemar (Dietterich 1998) vs {against} on the test points (with k "
                     "folds, pooled over the folds: each point is tested once, by its fold's "
                     "model; nested estimate only): chi2 = continuity-corrected chi-square on "
                     "the discordant counts, exact = "
                     f"two-sided binomial test (used when fewer than {EXACT_BELOW} discordant "
                     "points).")
    if reference_source:
        lines.append(f"paper columns: {reference_source}.")
    return "\n".join(lines)


def prepared_notes(meta) -> list[str]:
    """What was done to each local csv table's columns (run.json's ``local_data``: its
    ``prepared`` line, :meth:`..data.encoding.Encoding.note`), one line per dataset, e.g.
    ``penguins: dropped 11 rows with missing cells; one-hot island (3), sex (2)``."""
    local = (meta or {}).get("local_data") or {}
    return [f"{name}: {found['prepared']}" for name, found in local.items()
            if isinstance(found, dict) and isinstance(found.get("prepared"), str)
            and found["prepared"]]


BOUNDED_NOTE = ("* a final fit stopped at libsvm's iteration bound (max_iter) on some fold: its "
                "error is doubtful (see run.json's warnings).")


def edge_note(rows) -> str | None:
    """The footnote's one line on the rows chosen on the grid's edge (a row's ``edge``:
    :func:`..experiment.protocol.edges.edge_text`'s words), or None when no row was."""
    edged = [f"{row['dataset']} {row.get(LABEL) or label(row['scheme'])} ({row['edge']})"
             for row in rows if row.get("edge")]
    if not edged:
        return None
    return ("On the grid's edge (the best point may lie beyond it: widen the grid in a "
            "config, or search with refine: true where the search was not refined): "
            + "; ".join(edged) + ".")


def _csv_value(value):
    if value is None:
        return ""
    return value


def evaluation_text(measured) -> str:
    """What ``multisvm evaluate`` prints: error, kernel evaluations, time, size (+ confusion).

    ``measured``: what ``experiment.evaluate`` measured (its ``Evaluation``): the model's
    ``metadata``, the ``dataset`` and ``part``, ``y_true`` and ``y_pred``, ``seconds``,
    ``kernel_evaluations`` (per test point), ``n_parameters``, the model's ``classes`` and
    the ``confusion`` matrix (None: not asked for)."""
    meta, seconds = measured.metadata, measured.seconds
    y_true, y_pred = np.asarray(measured.y_true), np.asarray(measured.y_pred)
    errors = int(np.sum(y_true.astype(str) != y_pred.astype(str)))  # a file's labels: by name
    scheme = label(meta.get("scheme"))
    kernel_evaluations, n_parameters = measured.kernel_evaluations, measured.n_parameters
    lines = [
        f"model: {scheme}, {meta.get('kernel')}, C={meta.get('params', {}).get('C', 0):g} "
        f"(trained on {meta.get('dataset')})",
        f"data: {measured.dataset} {measured.part}, {len(y_true)} points",
        f"error rate: {100.0 * errors / max(len(y_true), 1):.2f}% ({errors} errors)",
        f"kernel evaluations per test point: {kernel_evaluations:.1f}",
        f"evaluation time: {seconds:.3f} s ({1e6 * seconds / max(len(y_true), 1):.1f} us/point)",
        f"classifier size: {n_parameters / 1000:.1f}K parameters",
    ]
    if measured.confusion is not None:
        lines += ["", confusion_text(measured.classes, measured.confusion)]
    return "\n".join(lines)


def confusion_text(classes, confusion) -> str:
    """A confusion matrix as ``evaluate --confusion`` and ``predict --confusion`` print it: a
    title line, then one row per true class and one column per predicted class, named as the
    model knows its ``classes``."""
    names = [str(c) for c in classes]
    body = [[name, *row] for name, row in zip(names, np.asarray(confusion).tolist())]
    return "\n".join(["confusion matrix (rows: true class, columns: predicted class):",
                      tabulate(body, headers=["", *names], tablefmt="simple")])


def dag_orders_text(studies) -> str:
    """The DAG order study's lines printed below the table: per dataset, the test error and
    kernel evaluations per test point over the N random class orders (min / mean / max)."""
    lines = []
    for dataset, study in studies.items():
        errors, evaluations = study["errors_pct"], study["kernel_evaluations"]
        lines.append(
            f"{label(ORDER_STUDY)} class orders on {dataset} ({len(errors)} random orders, same "
            "machines): "
            f"test error % min {min(errors):.2f} / mean {sum(errors) / len(errors):.2f} / "
            f"max {max(errors):.2f} (the run's order: {study['selected_error']:.2f}); "
            f"kernel evals min {min(evaluations):.1f} / mean "
            f"{sum(evaluations) / len(evaluations):.1f} / max {max(evaluations):.1f}.")
    return "\n".join(lines)
