"""What a well-formed results.json holds: :func:`results_problem` names the first thing wrong
with a document (its results' and table rows' names and numbers, the ranking, the paired tests,
the reliability bins, the DAG order studies), for :func:`.run_folder.read_results`."""

from __future__ import annotations

from ..base.numeric import is_count, is_number
from . import columns, point_record
from .hsu_lin import LAYOUTS, TABLE_1
from .verdict import verdict_problem

RESULT_KEYS = ("dataset", "scheme", "params")
TABLE_KEYS = ("dataset", "scheme")


def results_problem(results) -> str | None:
    """What is wrong with a results.json document, or None."""
    if not isinstance(results, dict):
        return "not a JSON object"
    for key, needs in (("results", RESULT_KEYS), ("table", TABLE_KEYS)):
        rows = results.get(key)
        if not isinstance(rows, list) or not rows or not all(
                isinstance(r, dict) and all(k in r for k in needs) for r in rows):
            return f"{key!r} must be a list of rows with {', '.join(needs)}"
        if not all(isinstance(r["dataset"], str) and isinstance(r["scheme"], str)
                   for r in rows):
            return f"a {key!r} row's dataset or scheme is not a name"
    for row in results["results"]:
        params = row["params"]
        if not isinstance(params, dict) or not params or not is_number(params.get("C", 1.0)):
            return (f"the {row['dataset']} {row['scheme']} result's params is not a mapping "
                    "with a finite C")
        if "features" in row and not _features_ok(row["features"]):
            return (f"the {row['dataset']} {row['scheme']} result's features is not "
                    "{vocabulary_size: count, mean_nonzeros: number}")
        if "reliability" in row and not _reliability_ok(row["reliability"], row.get("n_test")):
            return (f"the {row['dataset']} {row['scheme']} result's reliability is not its "
                    "test points' bins {count, confidence, right} (counts adding up to n_test, "
                    "right <= count, 0 <= confidence <= count)")
    numbers = columns.numbers()  # the report rows' numbers: each a finite number or empty
    for row in results["table"]:
        wrong = [k for k in numbers if row.get(k) is not None and not is_number(row[k])]
        if wrong:
            return (f"the {row['dataset']} {row['scheme']} row's {', '.join(wrong)} is not a "
                    "finite number")
    for key in ("config", "compare_to"):
        if results.get(key) is not None and not isinstance(results[key], str):
            return f"{key!r} is not a name"
    if results.get("layout", TABLE_1) not in LAYOUTS:
        return f"'layout' is not one of {', '.join(LAYOUTS)}"
    if results.get("ranking") is not None and ranking_problem(results["ranking"]):
        return f"'ranking' is not a ranking of the schemes: {ranking_problem(results['ranking'])}"
    if not _versus_best_ok(results.get("versus_best") or {}):
        return ("'versus_best' must map each dataset to its best scheme, alpha and tests "
                "{scheme: {p_value, test}}")
    if point_record.KEY in results and not point_record.record_ok(results[point_record.KEY]):
        return (f"{point_record.KEY!r} must map each dataset to its classes, labels_sha256 "
                "and schemes_sha256")
    if not _studies_ok(results.get("dag_orders") or {}):
        return ("'dag_orders' must map each dataset to its errors_pct, kernel_evaluations and "
                "selected_error")
    return None


def ranking_problem(ranking) -> str | None:
    """What is wrong with a saved ranking (``ranking.rank_schemes``), or None."""
    if not isinstance(ranking, dict):
        return "not an object"
    schemes, ranks = ranking.get("schemes"), ranking.get("average_ranks")
    if not isinstance(schemes, list) or not all(isinstance(s, str) for s in schemes):
        return "schemes is not a list of names"
    if not isinstance(ranks, dict) or set(ranks) != set(schemes) or not all(
            map(is_number, ranks.values())):
        return "average_ranks is not a number per scheme"
    if not is_count(ranking.get("n_datasets"), 1) or not is_number(ranking.get("alpha")):
        return "n_datasets or alpha is not a number"
    if not _test_ok(ranking.get("friedman"), named=True):
        return "friedman is not a test with a statistic and a p_value"
    if ranking.get("iman_davenport") is not None and not _test_ok(ranking["iman_davenport"]):
        return "iman_davenport is not a statistic and a p_value"
    if ranking.get("critical_difference") is not None and not is_number(
            ranking["critical_difference"]):
        return "critical_difference is not a number"
    pairs = ranking.get("different_pairs")
    if not isinstance(pairs, list) or not all(
            isinstance(p, list) and len(p) == 2 and set(p) <= set(schemes) for p in pairs):
        return "different_pairs is not a list of pairs of its schemes"
    if ranking.get("verdict") is not None and verdict_problem(ranking["verdict"], schemes):
        return f"verdict: {verdict_problem(ranking['verdict'], schemes)}"
    return None


def _test_ok(test, named=False) -> bool:
    """A test's saved result: a finite p_value, a finite statistic (None: infinite), and its
    name when ``named``."""
    return (isinstance(test, dict) and is_number(test.get("p_value"))
            and (test.get("statistic") is None or is_number(test["statistic"]))
            and (not named or (isinstance(test.get("test"), str)
                               and is_number(test.get("statistic")))))


def _features_ok(features) -> bool:
    """A text dataset's ``features`` record: its vocabulary size and mean non-zeros."""
    return isinstance(features, dict) and set(features) == {"vocabulary_size", "mean_nonzeros"} \
        and is_count(features["vocabulary_size"]) and is_number(features["mean_nonzeros"]) \
        and features["mean_nonzeros"] >= 0


def _reliability_ok(bins, n_test) -> bool:
    """Whether ``bins`` are a reliability diagram's sums (``final.reliability_counts``, pooled):
    three equally long lists, whole counts adding up to ``n_test`` (when known), at most that
    many right, probabilities summing to between 0 and the bin's count."""
    keys = ("count", "confidence", "right")
    if not isinstance(bins, dict) or set(bins) != set(keys) or not all(
            isinstance(bins[k], list) and len(bins[k]) == len(bins["count"]) > 0 for k in keys):
        return False
    if not all(is_count(c) and is_count(r) and is_number(p) and r <= c and 0 <= p <= c + 1e-9
               for c, p, r in zip(bins["count"], bins["confidence"], bins["right"])):
        return False
    return n_test is None or sum(bins["count"]) == n_test


def _versus_best_ok(found) -> bool:
    """results.json's ``versus_best`` (``summary.versus_best``): names, and finite p-values."""
    return isinstance(found, dict) and all(
        isinstance(v, dict) and isinstance(v.get("best"), str) and is_number(v.get("alpha"))
        and isinstance(v.get("tests"), dict) and all(
            isinstance(t, dict) and is_number(t.get("p_value")) and isinstance(t.get("test"), str)
            for t in v["tests"].values()) for v in found.values())


def _studies_ok(studies) -> bool:
    return isinstance(studies, dict) and all(
        isinstance(s, dict) and isinstance(s.get("errors_pct"), list) and s["errors_pct"]
        and isinstance(s.get("kernel_evaluations"), list) and s["kernel_evaluations"]
        and all(map(is_number, s["errors_pct"] + s["kernel_evaluations"]))
        and is_number(s.get("selected_error")) for s in studies.values())
