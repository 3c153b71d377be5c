"""Pooling a scheme's per-split tests (outer folds x repeats) into one Table-1 result."""

from __future__ import annotations

from collections import Counter
from statistics import stdev

import numpy as np

from ...estimators.registry import kernel_free, label
from ...report import balance
from ...report.columns import error_pct
from ...report.record import ERROR_PCT, LABEL


def _pool(dataset, scheme, tests, rows, drawn=False, balanced="auto"):
    """One Table-1 row for a scheme from its per-split tests (outer folds x repeats, or the
    random draws of a ``drawn`` split, which its kernel cell's "(n/N draws)" counts); with
    balanced accuracy and macro F1 over the pooled test points where ``balanced`` (the config's
    ``balanced_metrics``) shows them (:func:`...report.balance.shown`)."""
    counts = Counter(t["point"] for t in tests)
    point, n_folds = counts.most_common(1)[0]
    kernel = point.kernel_label() if not kernel_free(scheme) else "-"
    repeats = len({t.get("repeat", 0) for t in tests})
    if len(tests) > 1 and n_folds < len(tests):
        unit = "draws" if drawn else "splits" if repeats > 1 else "folds"
        kernel += f" ({n_folds}/{len(tests)} {unit})"
    correct = np.concatenate([t["correct"] for t in tests])
    n_test = np.array([len(t["correct"]) for t in tests], dtype=float)
    mine = [r for r in rows if r["scheme"] == scheme]
    splits = [_split_record(t) for t in tests]
    pooled = {
        "dataset": dataset, "scheme": scheme, LABEL: label(scheme), "kernel": kernel,
        "C": point.C if not kernel_free(scheme) else None,
        "params": point.params(), "selected": [t["point"].params() for t in tests],
        "selections": [{"fold": i, "params": t["point"].params(),
                        "validation_error": t["validation_error"], "ties": t["ties"]}
                       for i, t in enumerate(tests)],
        "ties": float(np.mean([t["ties"] for t in tests])),
        "smo_iterations": _mean([t["smo_iterations"] for t in tests]),
        "validation_error": float(np.mean([t["validation_error"] for t in tests])),
        "n_errors": int(np.sum(~correct)), "n_test": int(len(correct)), "correct": correct,
        "error_sd": stdev(s[ERROR_PCT] for s in splits) if len(splits) > 1 else None,
        "repeats": repeats, "splits": splits,
        "kernel_evaluations": _mean([t["kernel_evaluations"] for t in tests], n_test),
        "cpu_time": float(np.mean([t["cpu_time"] for t in tests])),
        "size": _mean([t["size"] for t in tests]),
        "n_support_vectors": _mean([t["n_support_vectors"] for t in tests]),
        "selection_time": float(sum(r["fit_wall"] + r["predict_wall"] for r in mine)),
        "evaluation_time": float(sum(t["evaluation_time"] for t in tests)),
        "notes": sorted({n for t in tests for n in t["notes"]}),
    }
    pooled.update(_memory_and_levels(tests))
    truth = np.concatenate([np.asarray(t["truth"]) for t in tests])
    if balance.shown(balanced, truth):
        pooled.update(balance.measures(truth, np.concatenate([np.asarray(t["predicted"])
                                                              for t in tests])))
    if tests and all("reliability" in t for t in tests):  # the splits' bin sums, added up
        pooled["reliability"] = {key: np.sum([t["reliability"][key] for t in tests],
                                             axis=0).tolist()
                                 for key in ("count", "confidence", "right")}
    if any("orders" in t for t in tests):
        pooled["dag_orders"] = _pool_orders(tests, correct)
    pooled["points"] = [_split_points(t) for t in tests]
    return pooled


def _split_points(test) -> dict:
    """One split's test points as predictions.csv keeps them: its repeat and fold, each
    point's row id (``splits.test_row_ids``; None: its index in the split), true and
    predicted label, and the class probabilities (None when the scheme gives none) with
    their ``classes`` (the columns' order)."""
    truth = np.asarray(test["truth"])
    rows = test.get("rows")
    return {"repeat": test.get("repeat", 0), "fold": test.get("fold", 0),
            "row": np.arange(len(truth)) if rows is None else np.asarray(rows),
            "true": truth, "predicted": np.asarray(test["predicted"]),
            "proba": test.get("proba"), "classes": np.asarray(test["classes"])}

def _mean(values, weights=None):
    """The (weighted) mean of the splits' figures; None when a split's is None (a figure the
    scheme does not define: shown blank, never 0)."""
    if any(value is None for value in values):
        return None
    return float(np.average(values, weights=weights))


def _split_record(test) -> dict:
    """What results.json keeps of one split (outer fold of one repeat): its choice, counts,
    test error (%) and figures."""
    n_test = int(len(test["correct"]))
    n_errors = int(np.sum(~test["correct"]))
    return {"repeat": test.get("repeat", 0), "fold": test.get("fold", 0),
            "params": test["point"].params(), "validation_error": test["validation_error"],
            "n_train": test.get("n_train"), "n_test": n_test, "n_errors": n_errors,
            ERROR_PCT: error_pct(n_errors, n_test),
            "kernel_evaluations": test["kernel_evaluations"], "size": test["size"],
            "n_support_vectors": test["n_support_vectors"], "cpu_time": test["cpu_time"],
            **_memory_and_levels([test])}

def _memory_and_levels(tests) -> dict:
    """The largest binary SVM's training memory (MB; the largest over the splits) and, for
    Hier, the level-1 and level-2 test accuracies (mean over the splits, NaN ones left out);
    ``primal`` when the machines are linear (their Table-1 figures are dot products); with
    class probabilities, the test log-loss and Brier score (means over every split's test
    points)."""
    found = {}
    if tests and all("log_loss" in t for t in tests):
        n_test = [len(t["correct"]) for t in tests]
        for key in ("log_loss", "brier"):
            found[key] = float(np.average([t[key] for t in tests], weights=n_test))
    memory = [t["max_train_memory"] for t in tests if t.get("max_train_memory") is not None]
    if memory:
        found["max_train_memory_mb"] = max(memory) / 1e6
    for key in ("level1_accuracy", "level2_accuracy"):
        values = [t[key] for t in tests if t.get(key) is not None and np.isfinite(t[key])]
        if values:
            found[key] = float(np.mean(values))
    if any(t.get("primal") for t in tests):
        found["primal"] = True
    return found

def _pool_orders(tests, correct) -> dict:
    """The DAG order study pooled over the splits: per order, test error (%) over every split's
    test points and kernel evaluations per test point (weighted by the splits' sizes)."""
    n_test = np.array([len(t["correct"]) for t in tests], dtype=float)
    wrong = np.sum([t["orders"]["n_wrong"] for t in tests], axis=0)
    evaluations = np.average([t["orders"]["kernel_evaluations"] for t in tests], axis=0,
                             weights=n_test)
    errors = 100.0 * wrong / n_test.sum()
    return {"n": int(len(errors)), "orders": tests[0]["orders"]["orders"],
            "errors_pct": errors.tolist(), "kernel_evaluations": evaluations.tolist(),
            "selected_error": 100.0 * float(np.mean(~correct)),
            "min": float(errors.min()), "mean": float(errors.mean()),
            "max": float(errors.max())}

def combine_estimates(per_estimate):
    """One result per scheme from {estimate: pooled results}: the nested result when there
    is one (McNemar reads its ``correct``), carrying the cv-best one's error, point and ties
    under ``cv_best``; the cv-best result alone otherwise (without ``correct``: McNemar applies
    to the nested estimate only).  Each result says its ``estimate``."""
    nested, cv_best = per_estimate.get("nested"), per_estimate.get("cv-best")
    if cv_best is None:
        return [{**r, "estimate": "nested"} for r in nested]
    summaries = [{"kernel": r["kernel"], "C": r["C"], "params": r["params"],
                  "n_errors": r["n_errors"], "n_test": r["n_test"],
                  ERROR_PCT: error_pct(r["n_errors"], r["n_test"]),
                  "ties": r["selections"][0]["ties"]} for r in cv_best]
    if nested is None:
        return [{**{k: v for k, v in r.items() if k != "correct"}, "estimate": "cv-best",
                 "cv_best": s} for r, s in zip(cv_best, summaries)]
    return [{**r, "estimate": "nested", "cv_best": s} for r, s in zip(nested, summaries)]
