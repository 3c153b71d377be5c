"""A run's spread, repeats, ranking, figures, DAG order study and report.html, end to end:
a small config (2 datasets, 3-fold, 2 repeats, 5 DAG orders) through the CLI, every number
checked against one computed here from the run's own files."""

import base64
import csv
import json
import math
import shutil
import statistics

import numpy as np
import pandas as pd
import pytest
from matplotlib.image import imread
from scipy import stats

from multisvm_cli import data
from multisvm_cli.cli.main import main
from multisvm_cli.estimators import DAGSVC, MaxWinsSVC
from multisvm_cli.experiment.plans import repeat_plan
from multisvm_cli.experiment.protocol import random_orders
from multisvm_cli.experiment.splits import scaled_folds
from multisvm_cli.experiment import load_config
from helpers import real_run, run_cli

CONFIG = """\
name: spread
dataset: [iris, wine]
split: {method: kfold, k: 3, seed: 0}
validation: {method: holdout, train_fraction: 0.7, seed: 0}
kernels:
  - {type: gaussian, sigma: [1, 3]}
C: [1, 10]
schemes: [ovr, maxwins, dag]
repeats: 2
dag_orders: 5
"""
DATASETS, SCHEMES, SPLITS = ("iris", "wine"), ("ovr", "maxwins", "dag"), 3 * 2
PNG = b"\x89PNG\r\n\x1a\n"
# pixel sizes at 150 dpi: 3 heatmap panels of 2 sigma x 2 C with 1-character ticks are 2.2 x
# 1.3 in, laid out 0.515 + 3 x 2.2 + 2 x 0.315 + 1.0 in wide, 0.85 + 1.3 + 0.75 in high; the
# trade-off is 7.5 x 5 in, the DAG orders 10 x 4.2 in, the CD diagram of 3 schemes with one
# joined group 8 x (1.9 + 0.32 x 2 + 0.12) in
SIZES = {"grid-iris-gaussian.png": (435, 1311), "grid-wine-gaussian.png": (435, 1311),
         "tradeoff-iris.png": (750, 1125), "tradeoff-wine.png": (750, 1125),
         "dag-orders-iris.png": (630, 1500), "dag-orders-wine.png": (630, 1500)}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """(run folder, printed report, config path) of one real run of CONFIG."""
    folder, result, config = real_run(tmp_path_factory.mktemp("run"), "spread", CONFIG)
    return folder, result.out, config


def saved(folder):
    results = json.loads((folder / "results.json").read_text())
    with (folder / "table.csv").open(newline="") as stream:
        table = list(csv.DictReader(stream))
    return results, table


def test_error_sd_is_the_sd_of_the_split_errors(run):
    folder, printed, _ = run
    results, table = saved(folder)
    assert results["repeats"] == 2
    by_key = {(r["dataset"], r["scheme"]): r for r in results["results"]}
    for row in table:
        result = by_key[row["dataset"], row["scheme"]]
        splits = result["splits"]
        assert sorted((s["repeat"], s["fold"]) for s in splits) == [
            (r, f) for r in range(2) for f in range(3)]
        for split in splits:  # every fold's and repeat's error, choice and counts
            assert split["error_pct"] == pytest.approx(100 * split["n_errors"] / split["n_test"])
            assert split["params"]["kernel"] == "gaussian" and split["params"]["C"] in (1, 10)
        # each repeat's folds test every point once; two repeats test it twice
        n_points = {"iris": 150, "wine": 178}[row["dataset"]]
        assert sum(s["n_test"] for s in splits) == 2 * n_points == result["n_test"]
        errors = [s["error_pct"] for s in splits]
        assert float(row["error_sd"]) == pytest.approx(statistics.stdev(errors), rel=1e-12)
        assert float(row["error_pct"]) == pytest.approx(
            100 * sum(s["n_errors"] for s in splits) / (2 * n_points))
    assert "error SD %" in printed


def test_paired_test_is_the_corrected_resampled_t_test(run):
    folder, printed, _ = run
    results, table = saved(folder)
    by_key = {(r["dataset"], r["scheme"]): r for r in results["results"]}
    for row in table:
        if row["scheme"] == "dag":
            assert row["mcnemar_p"] == ""
            continue
        d = np.subtract([s["error_pct"] for s in by_key[row["dataset"], row["scheme"]]["splits"]],
                        [s["error_pct"] for s in by_key[row["dataset"], "dag"]["splits"]])
        # Nadeau & Bengio (2003): 3 folds, so n_test / n_train = 1/2 (up to stratification)
        splits = by_key[row["dataset"], "dag"]["splits"]
        ratio = np.mean([s["n_test"] / s["n_train"] for s in splits])
        assert ratio == pytest.approx(0.5, abs=0.01)
        if np.var(d) == 0:
            expected = 1.0 if np.all(d == 0) else 0.0
        else:
            t = d.mean() / math.sqrt((1 / 6 + ratio) * np.var(d, ddof=1))
            expected = 2 * stats.t.sf(abs(t), 5)
        assert row["mcnemar_test"] == "corrected-t"
        assert float(row["mcnemar_p"]) == pytest.approx(expected)
    assert "corrected resampled t-test (Nadeau & Bengio 2003)" in printed


def corrected_t(a, b, ratio, J=6):
    """Nadeau & Bengio's p-value of the paired split errors a, b (J splits)."""
    d = np.subtract(a, b)
    if np.var(d) == 0:
        return 1.0 if np.all(d == 0) else 0.0
    t = d.mean() / math.sqrt((1 / J + ratio) * np.var(d, ddof=1))
    return 2 * stats.t.sf(abs(t), J - 1)


def test_the_answer_tests_every_scheme_against_the_best(run):
    """results.json's versus_best: each scheme's corrected resampled t-test against its
    dataset's lowest-error scheme (not against compare_to), recomputed from the saved splits;
    report.html's answer lists them, and the best's 95% fold-spread interval."""
    folder, _, _ = run
    results, table = saved(folder)
    by_key = {(r["dataset"], r["scheme"]): r for r in results["results"]}
    html = (folder / "report.html").read_text()
    answer = html[html.index("<h2>Answer</h2>"):html.index("<h2>Results</h2>")]
    for dataset in DATASETS:
        rows = [r for r in table if r["dataset"] == dataset]
        best = min(rows, key=lambda r: float(r["error_pct"]))["scheme"]
        found = results["versus_best"][dataset]
        assert found["best"] == best and set(found["tests"]) == set(SCHEMES) - {best}
        base = by_key[dataset, best]["splits"]
        ratio = np.mean([s["n_test"] / s["n_train"] for s in base])
        for scheme, test in found["tests"].items():
            mine = [s["error_pct"] for s in by_key[dataset, scheme]["splits"]]
            expected = corrected_t(mine, [s["error_pct"] for s in base], ratio)
            assert test == {"p_value": pytest.approx(expected), "test": "corrected-t"}
        row = next(r for r in rows if r["scheme"] == best)
        error, sd = float(row["error_pct"]), float(row["error_sd"])
        half = stats.t.ppf(0.975, SPLITS - 1) * sd / math.sqrt(SPLITS)
        assert (f"{error:.2f}% (95% fold spread interval {max(0, error - half):.2f} to "
                f"{error + half:.2f})") in answer


def test_grid_csv_holds_every_point_of_every_repeat_with_its_figures(run):
    folder, _, _ = run
    grid = pd.read_csv(folder / "grid.csv")
    assert len(grid) == 2 * 2 * 3 * 4 * 3  # datasets x repeats x folds x points x schemes
    assert sorted(grid["repeat"].unique()) == [0, 1]
    assert (grid["n_support_vectors"] > 0).all() and (grid["size"] > 0).all()
    # Max Wins evaluates every pairwise machine: its kernel evaluations per point are its SVs
    maxwins = grid[grid.scheme == "maxwins"]
    assert (maxwins["kernel_evaluations"] == maxwins["n_support_vectors"]).all()
    dag = grid[grid.scheme == "dag"].reset_index(drop=True)
    assert (dag["kernel_evaluations"] <= maxwins.reset_index(drop=True)["kernel_evaluations"]).all()


def test_ranking_equals_one_computed_from_table_csv(run):
    folder, printed, _ = run
    results, table = saved(folder)
    errors = pd.DataFrame([{"dataset": r["dataset"], "scheme": r["scheme"],
                            "error": float(r["error_pct"])} for r in table]).pivot(
        index="dataset", columns="scheme", values="error")[list(SCHEMES)]
    ranks = stats.rankdata(errors.to_numpy(), axis=1).mean(axis=0)
    ranking = results["ranking"]
    assert ranking["average_ranks"] == pytest.approx(dict(zip(SCHEMES, ranks)))
    assert ranking["n_datasets"] == 2
    if not np.all(errors.to_numpy() == errors.to_numpy()[:, :1]):
        p = stats.friedmanchisquare(*errors.to_numpy().T).pvalue
        assert ranking["friedman"]["p_value"] == pytest.approx(p)
    q = stats.studentized_range.ppf(0.95, 3, np.inf) / math.sqrt(2)
    assert ranking["critical_difference"] == pytest.approx(q * math.sqrt(3 * 4 / (6 * 2)))
    assert "Average rank over 2 datasets" in printed and "Nemenyi critical difference" in printed


def test_dag_order_study_matches_orders_replayed_by_hand(run):
    folder, printed, config_path = run
    results, table = saved(folder)
    study = results["dag_orders"]["iris"]
    assert study["n"] == 5 and len(study["errors_pct"]) == len(study["kernel_evaluations"]) == 5
    assert study["min"] == min(study["errors_pct"]) and study["max"] == max(study["errors_pct"])
    dag_row = next(r for r in table if r["dataset"] == "iris" and r["scheme"] == "dag")
    assert study["selected_error"] == pytest.approx(float(dag_row["error_pct"]))
    # replay: each split's selected point refitted here, walked in the same 5 seeded orders
    dag = next(r for r in results["results"] if r["dataset"] == "iris" and r["scheme"] == "dag")
    plan, iris = load_config(config_path).plan("iris"), data.load("iris", progress=False)
    wrong, evaluations, n_test = np.zeros(5), np.zeros(5), 0
    for repeat in range(2):
        for fold in scaled_folds(iris, repeat_plan(plan, repeat)):
            split = next(s for s in dag["splits"] if (s["repeat"], s["fold"]) ==
                         (repeat, fold.index))
            machines = MaxWinsSVC(**split["params"], random_state=0).fit(fold.X_train,
                                                                          fold.y_train)
            for i, order in enumerate(random_orders(machines.classes_, 5, 0)):
                walked = DAGSVC.from_maxwins(machines, order=order)
                wrong[i] += np.sum(walked.predict(fold.X_test) != fold.y_test)
                evaluations[i] += walked.kernel_evaluations(fold.X_test) * len(fold.y_test)
            n_test += len(fold.y_test)
    assert study["errors_pct"] == pytest.approx(list(100 * wrong / n_test))
    assert study["kernel_evaluations"] == pytest.approx(list(evaluations / n_test))
    assert study["orders"][0] == [int(c) for c in random_orders([0, 1, 2], 5, 0)[0]]
    assert "DAGSVM class orders on iris (5 random orders" in printed and "min" in printed


def test_figures_are_real_images_and_report_html_embeds_them(run):
    folder, _, _ = run
    figures = folder / "figures"
    names = sorted(p.name for p in figures.glob("*.png"))
    assert names == sorted([*SIZES, "cd-diagram.png", "bayes-signed-rank.png"])
    for name, shape in SIZES.items():
        assert (figures / name).read_bytes()[:8] == PNG
        assert imread(figures / name).shape[:2] == shape, name
    assert imread(figures / "cd-diagram.png").shape[1] == 1200  # 8 in at 150 dpi
    html = (folder / "report.html").read_text()
    for png in figures.glob("*.png"):
        assert base64.b64encode(png.read_bytes()).decode() in html, png.name
    _, table = saved(folder)
    for row in table:
        for key in ("error_pct", "error_sd", "kernel_evaluations", "mcnemar_p"):
            if row[key]:
                assert f'title="{row[key]}"' in html or f">{row[key]}<" in html, (key, row)
    assert "DAGSVM class orders on wine" in html and "corrected-t" in html


def test_multisvm_report_restores_figures_and_html(run, tmp_path):
    folder, _, _ = run
    copy = tmp_path / folder.name  # the page's title names the run folder
    shutil.copytree(folder, copy)
    before = {p.name: p.read_bytes() for p in (copy / "figures").glob("*.png")}
    html = (copy / "report.html").read_text()
    shutil.rmtree(copy / "figures")
    (copy / "report.html").unlink()
    result = run_cli("report", copy)
    assert result.code == 0, result.err
    assert f"report: {copy / 'report.html'}" in result.out
    assert {p.name: p.read_bytes() for p in (copy / "figures").glob("*.png")} == before
    assert (copy / "report.html").read_text() == html


def edit_results(folder, change):
    """Apply ``change`` to results.json's document (as someone editing it by hand)."""
    path = folder / "results.json"
    saved = json.loads(path.read_text())
    change(saved)
    path.write_text(json.dumps(saved))


def edit_table(folder, **values):
    """Change the first report row saved in results.json."""
    edit_results(folder, lambda saved: saved["table"][0].update(values))


def edit_csv(folder, name, column, value):
    """Set ``column`` of the first data row of the CSV file ``name`` to the text ``value``."""
    with (folder / name).open(newline="") as stream:
        rows = list(csv.reader(stream))
    rows[1][rows[0].index(column)] = value
    with (folder / name).open("w", newline="") as stream:
        csv.writer(stream, lineterminator="\n").writerows(rows)


def cut_mid_row(path):
    """Cut ``path`` off in the middle of its last row (a run killed while writing it)."""
    text = path.read_text()
    last_row = text.rstrip("\n").rfind("\n") + 1
    path.write_text(text[:last_row + 15])


# each damaged file must be refused by `multisvm report` with one line naming the file
DAMAGE = [
    (lambda f: (f / "grid.csv").unlink(), "lacks grid.csv: it is not a finished run folder"),
    (lambda f: cut_mid_row(f / "grid.csv"), "grid.csv is malformed (empty or cut off mid-row"),
    (lambda f: (f / "grid.csv").write_text("a,b\n1,2\n"),
     "grid.csv is malformed (it lacks the column(s) dataset"),
    (lambda f: (f / "grid.csv").write_text("dataset,scheme\niris\n"),
     "grid.csv is malformed (row 2 has 1 fields, the header 2"),
    (lambda f: edit_csv(f, "grid.csv", "validation_error", "nan"),
     "grid.csv is malformed (a row's validation_error is not a finite number"),
    (lambda f: edit_csv(f, "grid.csv", "validation_error", ""),
     "grid.csv is malformed (a row's validation_error is not a finite number"),
    (lambda f: edit_csv(f, "grid.csv", "C", "inf"),
     "grid.csv is malformed (a row's C is not a finite number"),
    (lambda f: edit_csv(f, "grid.csv", "C", "ten"),
     "grid.csv is malformed (a row's C is not a finite number"),
    (lambda f: (f / "results.json").write_text("{cut"), "results.json: not valid JSON"),
    (lambda f: (f / "results.json").write_text('{"a": 1, "a": 2}'),
     "results.json: not valid JSON (duplicate key 'a')"),
    (lambda f: (f / "results.json").write_text("[1]"),
     "results.json is malformed (not a JSON object"),
    (lambda f: (f / "results.json").write_text('{"results": [], "table": []}'),
     "'results' must be a list of rows"),
    (lambda f: edit_results(f, lambda saved: saved["results"][0].update(params={})),
     "results.json is malformed (the iris ovr result's params is not a mapping with a finite C"),
    (lambda f: edit_results(f, lambda saved: saved["results"][0]["params"].update(C="10")),
     "result's params is not a mapping with a finite C"),
    (lambda f: edit_results(f, lambda saved: saved["results"][0].update(dataset=["iris"])),
     "results.json is malformed (a 'results' row's dataset or scheme is not a name"),
    (lambda f: edit_table(f, scheme=7), "a 'table' row's dataset or scheme is not a name"),
    (lambda f: edit_table(f, error_pct="abc"), "row's error_pct is not a finite number"),
    (lambda f: edit_table(f, mcnemar_p=True), "row's mcnemar_p is not a finite number"),
    (lambda f: edit_table(f, kernel_evaluations=float("inf")),
     "results.json: not valid JSON (Infinity is not a number JSON allows"),
    (lambda f: edit_results(f, lambda saved: saved["ranking"].update(friedman={"chi2": "abc"})),
     "'ranking' is not a ranking of the schemes: friedman is not a test"),
    (lambda f: edit_results(f, lambda saved: saved["ranking"]["average_ranks"].popitem()),
     "average_ranks is not a number per scheme"),
    (lambda f: edit_results(f, lambda saved: saved["ranking"].update(
        different_pairs=[["ovr", "svm"]])), "different_pairs is not a list of pairs"),
    (lambda f: edit_results(f, lambda saved: saved["ranking"]["verdict"]["pairs"][0].update(
        b="svm")), "'ranking' is not a ranking of the schemes: verdict: a pair does not name"),
    (lambda f: edit_results(f, lambda saved: saved["ranking"]["verdict"]["pairs"][0]["bayes"].pop(
        "p_rope")), "verdict: the maxwins vs dag pair's wilcoxon or bayes numbers are missing"),
    (lambda f: edit_results(f, lambda saved: saved["dag_orders"]["iris"].update(
        selected_error="1.3")), "'dag_orders' must map each dataset"),
    (lambda f: edit_results(f, lambda saved: saved.update(config=["spread"])),
     "results.json is malformed ('config' is not a name"),
    (lambda f: edit_csv(f, "table.csv", "error_pct", "abc"),
     "table.csv is malformed (the iris ovr row's error_pct is not a finite number"),
    (lambda f: edit_csv(f, "table.csv", "error_sd", "nan"),
     "table.csv is malformed (the iris ovr row's error_sd is not a finite number"),
    (lambda f: cut_mid_row(f / "table.csv"), "table.csv is malformed (empty or cut off mid-row"),
    (lambda f: (f / "run.json").write_text('"done"'), "run.json is malformed (not a JSON object"),
    (lambda f: (f / "run.json").write_text('{"status": NaN}'),
     "run.json: not valid JSON (NaN is not a number JSON allows"),
]


@pytest.mark.parametrize("damage, message", DAMAGE)
def test_report_refuses_a_damaged_run_folder_with_one_line(run, tmp_path, capsys, damage,
                                                            message):
    folder, _, _ = run
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    damage(copy)
    html = (copy / "report.html").read_bytes()
    with pytest.raises(SystemExit) as exited:
        main(["report", str(copy)])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and err.count("\n") == 1 and message in err, err
    assert (copy / "report.html").read_bytes() == html  # refused before anything is rewritten
    with pytest.raises(SystemExit):
        main(["report", str(tmp_path / "missing")])
    assert "no run folder at" in capsys.readouterr().err


def test_verdict_is_saved_printed_and_shown(run):
    """The Holm-Wilcoxon and Bayesian verdict of the run: saved under the ranking, computed
    from the table's test errors at the default ROPE and the config's seed, printed under
    Friedman's lines and shown in report.html."""
    from multisvm_cli.report.ranking import errors_table
    from multisvm_cli.report.verdict import compare_pairs

    folder, printed, _ = run
    results, _ = saved(folder)
    verdict = results["ranking"]["verdict"]
    assert verdict == compare_pairs(errors_table(results["table"]), rope=1.0, seed=0)
    assert verdict["rope"] == 1.0 and len(verdict["pairs"]) == 3
    # 2 datasets: no Wilcoxon p can be below 0.5, so Holm finds nothing
    assert all(p["wilcoxon"]["p_holm"] >= 0.5 for p in verdict["pairs"])
    flat = " ".join(printed.split())
    assert "Holm-corrected for 3 pairs (Demsar 2006): no pair differs" in flat
    assert flat.index("Friedman chi-square") < flat.index("Bayesian signed-rank test")
    html = (folder / "report.html").read_text()
    first = verdict["pairs"][0]
    probs = " / ".join(f"{first['bayes'][o]:.3f}" for o in ("p_left", "p_rope", "p_right"))
    assert probs in html and "ROPE = +-1 point of test error" in html
    assert "Bayesian signed-rank test (Benavoli et al. 2017), one bar per pair" in html


def test_resolved_config_and_validate_count_repeats(run, capsys):
    folder, _, config_path = run
    resolved = (folder / "config.yaml").read_text()
    assert "repeats: 2\n" in resolved and "dag_orders: 5\n" in resolved
    with pytest.raises(SystemExit) as exited:
        main(["validate", str(folder / "config.yaml")])
    out = capsys.readouterr().out
    assert exited.value.code == 0
    # 2 repeats x 3 folds x 1 split x 8 points (2 families x 4) = 48, + 2 x 3 x 2 final fits
    assert ("# iris: 4 grid points; 2 repeats x 3 outer fold(s) x 1 validation split(s) x 8 "
            "points over 2 scheme families (1-v-r + Max Wins/DAGSVM) = 48 selection fits, + 12 "
            "final fits") in out
