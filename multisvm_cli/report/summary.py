"""The answer a report leads with: per dataset, the best scheme and those not shown to differ.

For each dataset, the *best* scheme is the one of lowest test error (ties: the first in the
table's order); where the dataset's rows show balanced accuracy (:mod:`.balance`: its test
part is imbalanced, or the config asks), the one of highest balanced accuracy instead
(:func:`ranked_by`), and its line says so ("best by balanced accuracy"): on skewed classes the
error rate rewards predicting the large classes, which is what the balanced columns are shown
to expose.  The paired tests stay tests of right-or-wrong on each point (no paired test of
balanced accuracy is made here): the line gives the best's error % beside its balanced
accuracy. Every other scheme is tested against the best with the paired test the table
uses (:func:`.paired.paired_test`: McNemar's test on the same test points for a single repeat,
the corrected resampled t-test on the paired split errors for several), at ``alpha`` = 0.05.
The test needs each point's right-or-wrong, which results.json does not keep, so the run
computes it (:func:`versus_best`) and saves it as results.json's ``versus_best``. A run saved
before that carries only the tests against the config's ``compare_to`` scheme:
:func:`answer` uses those where ``compare_to`` is the best and says which schemes were not
tested against it.

When the run asked for class probabilities, the answer also names each dataset's lowest
log-loss (:func:`lowest_log_loss`): the scheme whose probabilities score best, which need not be
the scheme of lowest error.

"Not significantly different" is not "equivalent": with a few hundred test points a paired test
has little power, and the summary says so.

:func:`answer_record` is the same answer as data, for the machine-readable outputs (``compare
--format json``'s ``"answer"`` key, ``--format csv``'s answer.csv: :func:`answer_csv`).
"""

from __future__ import annotations

import csv
import io

from .balance import BALANCED_ACCURACY
from .columns import column
from .paired import paired_test
from .record import ERROR_PCT, label

ALPHA = 0.05
RANKED_BY = ERROR_PCT  # the measure the answer ranks the schemes by, lowest first
BALANCED_RANKING = BALANCED_ACCURACY  # ... where a dataset shows it, highest first
WORDS = {ERROR_PCT: "test error", BALANCED_ACCURACY: "balanced accuracy"}


def _value(row, key):
    """A row's number under ``key`` (a value or a table.csv string), or None when blank."""
    value = row.get(key)
    return None if value is None or value == "" else float(value)


def ranked_by(rows, dataset) -> str:
    """The key ``dataset``'s schemes are ranked by: :data:`BALANCED_RANKING` (highest first)
    when one of its rows shows balanced accuracy, else :data:`RANKED_BY` (lowest first)."""
    shown = any(r["dataset"] == dataset and _value(r, BALANCED_RANKING) is not None for r in rows)
    return BALANCED_RANKING if shown else RANKED_BY


def best_schemes(rows) -> dict:
    """{dataset: (best scheme, its value of the dataset's :func:`ranked_by` measure)} of
    report rows with our own error (ties: the first row)."""
    best = {}
    for row in rows:
        key = ranked_by(rows, row["dataset"])
        value = _value(row, key)
        if value is None or _value(row, ERROR_PCT) is None:
            continue
        sign = -1.0 if key == BALANCED_RANKING else 1.0
        if row["dataset"] not in best or sign * value < sign * best[row["dataset"]][1]:
            best[row["dataset"]] = (row["scheme"], value)
    return best


def versus_best(results, rows, alpha=ALPHA) -> dict:
    """{dataset: {best, alpha, tests: {scheme: {p_value, test}}}}: each scheme's paired test
    against its dataset's best (:func:`best_schemes` of the report ``rows``), from the
    protocol's ``results`` (which carry each test point's ``correct``); a scheme whose result
    has no per-point record (a cv-best estimate) is left out."""
    by_key = {(r["dataset"], r["scheme"]): r for r in results}
    found = {}
    for dataset, (best, _) in best_schemes(rows).items():
        base = by_key.get((dataset, best))
        tests = {}
        for (name, scheme), result in by_key.items():
            if name != dataset or scheme == best or base is None:
                continue
            if result.get("correct") is None or base.get("correct") is None:
                continue
            test = paired_test(result, base)
            tests[scheme] = {"p_value": float(test["p_value"]), "test": test["test"]}
        found[dataset] = {"best": best, "alpha": alpha, "tests": tests}
    return found


def answer(saved: dict, rows) -> list[dict]:
    """Per dataset (in the table's order): {dataset, best, error_pct, ranked_by, score, alpha,
    tied: [scheme], same: [(scheme, p, test)], worse: [(scheme, p, test)], untested:
    [scheme]}: the best's error % and its value ``score`` of the ``ranked_by`` key
    (:func:`ranked_by`), the schemes with the best's very score, those not significantly
    different from the best, those
    significantly worse, and those without a test against the best; plus ``log_loss``:
    ([scheme], log-loss) of :func:`lowest_log_loss` when some scheme of the dataset has one. ``saved``: results.json
    (its ``versus_best``, else the rows' tests against ``compare_to``, valid only where that
    scheme is the best); ``rows``: the report rows (values or table.csv strings)."""
    versus = saved.get("versus_best") or {}
    summary = []
    for dataset, (best, score) in best_schemes(rows).items():
        key = ranked_by(rows, dataset)
        error = next(_value(r, ERROR_PCT) for r in rows
                     if r["dataset"] == dataset and r["scheme"] == best)
        tests = _tests(dataset, best, versus, saved.get("compare_to"), rows)
        alpha = (versus.get(dataset) or {}).get("alpha", ALPHA)
        others = [r["scheme"] for r in rows if r["dataset"] == dataset and r["scheme"] != best
                  and r.get(ERROR_PCT) not in (None, "")]
        same = [(s, *tests[s]) for s in others if s in tests and tests[s][0] >= alpha]
        worse = [(s, *tests[s]) for s in others if s in tests and tests[s][0] < alpha]
        tied = [r["scheme"] for r in rows if r["dataset"] == dataset and r["scheme"] != best
                and r.get(ERROR_PCT) not in (None, "") and _value(r, key) == score]
        summary.append({"dataset": dataset, "best": best, ERROR_PCT: error, "ranked_by": key,
                        "score": score, "alpha": alpha,
                        "tied": tied, "same": same, "worse": worse,
                        "untested": [s for s in others if s not in tests]})
        lowest = lowest_log_loss(rows, dataset)
        if lowest:
            summary[-1]["log_loss"] = lowest
    return summary


def lowest_log_loss(rows, dataset) -> tuple[list, float] | None:
    """([schemes], log-loss) of the lowest log-loss among ``dataset``'s report ``rows`` (values
    or table.csv strings), every scheme with that very value listed in table order (schemes
    that share their probabilities tie); None when no row of it has a log-loss."""
    scored = [(r["scheme"], float(r["log_loss"])) for r in rows
              if r["dataset"] == dataset and r.get("log_loss") not in (None, "")]
    if not scored:
        return None
    lowest = min(value for _, value in scored)
    return [scheme for scheme, value in scored if value == lowest], lowest


def log_loss_text(lowest) -> str:
    """The answer's words for :func:`lowest_log_loss`'s ``lowest``: "lowest log-loss: Max Wins
    = DAGSVM 0.1234"."""
    schemes, value = lowest
    return f"lowest log-loss: {' = '.join(map(label, schemes))} {value:.4f}"


def tests_text(tests) -> str:
    """Paired tests ``[(scheme, p, test)]`` as "Max Wins (0.5, mcnemar), NB (0.01, exact)", or
    "none"."""
    return ", ".join(f"{label(s)} ({p:.2g}, {test})" for s, p, test in tests) or "none"


def answer_text(saved: dict, rows) -> str:
    """:func:`answer` as plain lines, one per dataset: "iris: best Max Wins 4.00% (tied: ...);
    not significantly different at alpha = 0.05: ...; significantly worse: ..."."""
    return "\n".join(map(_line, answer(saved, rows)))


def _line(found) -> str:
    """One dataset's line of :func:`answer_text` (``found``: one item of :func:`answer`)."""
    best = f"{found['dataset']}: best {label(found['best'])} {found[ERROR_PCT]:.2f}%"
    if found["ranked_by"] != RANKED_BY:  # "best by balanced accuracy Max Wins 0.912 (error 3.10%)"
        best = (f"{found['dataset']}: best by {WORDS[found['ranked_by']]} {label(found['best'])} "
                f"{found['score']:.3f} (error {found[ERROR_PCT]:.2f}%)")
    if found["tied"]:
        best += f" (tied: {', '.join(map(label, found['tied']))})"
    if "log_loss" in found:
        best += f"; {log_loss_text(found['log_loss'])}"
    same = [test for test in found["same"] if test[0] not in found["tied"]]
    untested = (f"; not tested: {', '.join(map(label, found['untested']))}"
                if found["untested"] else "")
    return (f"{best}; not significantly different at alpha = {found['alpha']:g}: "
            f"{tests_text(same)}; significantly worse: {tests_text(found['worse'])}{untested}")


def answer_record(saved: dict, rows) -> dict:
    """:func:`answer` as data: ``{ranked_by: {key, title, order}, datasets: [...], text}``;
    per dataset (table order) its ``best`` scheme (the winner), ``best_label``, ``error_pct``,
    ``alpha``, ``tied``, ``not_significantly_different`` and ``significantly_worse`` (each
    ``[{scheme, p_value, test}]``, the tied schemes among the former), ``untested``,
    ``lowest_log_loss`` (``{schemes, log_loss}``, in a run with probabilities) and ``text``, its
    line of :func:`answer_text`; ``text``: the whole of :func:`answer_text`.  A dataset ranked
    by balanced accuracy (:func:`ranked_by`) also has its ``ranked_by`` and the best's
    ``balanced_accuracy``; the top level's ``ranked_by`` is then the datasets' one measure, or
    ``{key: "per dataset", ...}`` when they differ."""
    datasets = []
    for found in answer(saved, rows):
        entry = {"dataset": found["dataset"], "best": found["best"],
                 "best_label": label(found["best"]), ERROR_PCT: found[ERROR_PCT],
                 "alpha": found["alpha"], "tied": found["tied"],
                 "not_significantly_different": _tests_record(found["same"]),
                 "significantly_worse": _tests_record(found["worse"]),
                 "untested": found["untested"]}
        if "log_loss" in found:
            entry["lowest_log_loss"] = {"schemes": found["log_loss"][0],
                                        "log_loss": found["log_loss"][1]}
        if found["ranked_by"] != RANKED_BY:
            entry.update(ranked_by=_ranking(found["ranked_by"]), **{found["ranked_by"]: found["score"]})
        datasets.append({**entry, "text": _line(found)})
    keys = {d.get("ranked_by", {}).get("key", RANKED_BY) for d in datasets}
    top = _ranking(keys.pop() if keys else RANKED_BY) if len(keys) <= 1 else {
        "key": "per dataset", "title": "each dataset's ranked_by", "order": "per dataset"}
    return {"ranked_by": top, "datasets": datasets,
            "text": "\n".join(d["text"] for d in datasets)}


def _ranking(key) -> dict:
    """{key, title, order} of the measure ``key`` the answer ranks by (:func:`ranked_by`)."""
    return {"key": key, "title": column(key).title,
            "order": "highest first" if key == BALANCED_RANKING else "lowest first"}


def _tests_record(tests) -> list[dict]:
    return [{"scheme": s, "p_value": p, "test": test} for s, p, test in tests]


ANSWER_CSV = ("dataset", "ranked_by", "best", ERROR_PCT, "alpha", "tied",
              "not_significantly_different", "significantly_worse", "untested", "answer")


def answer_csv(record: dict) -> str:
    """:func:`answer_record` as csv, one row per dataset (:data:`ANSWER_CSV`'s columns; a list
    of schemes joined by ``;``, the p-values in ``answer``, the dataset's line of the text)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(ANSWER_CSV)
    for entry in record["datasets"]:
        names = {key: ";".join(t["scheme"] if isinstance(t, dict) else t for t in entry[key])
                 for key in ("tied", "not_significantly_different", "significantly_worse",
                             "untested")}
        writer.writerow([entry["dataset"], entry.get("ranked_by", {"key": RANKED_BY})["key"],
                         entry["best"],
                         entry[ERROR_PCT], entry["alpha"], *names.values(), entry["text"]])
    return out.getvalue()


def _tests(dataset, best, versus, compare_to, rows) -> dict:
    """{scheme: (p, test)} against ``best``: the saved tests, else the rows' tests against
    ``compare_to`` when it is the best."""
    if dataset in versus and versus[dataset].get("best") == best:
        return {s: (t["p_value"], t["test"]) for s, t in versus[dataset]["tests"].items()}
    if compare_to != best:
        return {}
    return {r["scheme"]: (float(r["mcnemar_p"]), r.get("mcnemar_test") or "")
            for r in rows if r["dataset"] == dataset and r.get("mcnemar_p") not in (None, "")}
