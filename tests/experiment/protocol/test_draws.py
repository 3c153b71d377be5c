"""The draws split (Wu, Lin & Weng 2004's protocol): N random stratified draws of n_train /
n_test rows from a dataset's pooled rows, model selection inside each draw, and the mean and
SD of the draws' test errors in the report; its refusals; and the pairwise coupling scheme
that protocol compares with Max Wins' vote."""

import csv
from dataclasses import replace
import json
from statistics import mean, stdev

import numpy as np
import pytest
from configs import config_text, write
from helpers import real_run

from multisvm_cli.experiment.config.forms import Split
from multisvm_cli.experiment.splits import draw_seed, outer_index_folds

SPLIT = Split("draws", draws=5, n_train=60, n_test=45, seed=3)


def labels():
    """Iris-like labels: 50 of each of three classes, in blocks."""
    return np.repeat([0, 1, 2], 50)


def test_draws_are_stratified_disjoint_and_sized():
    y = labels()
    draws = outer_index_folds(y, SPLIT)
    assert len(draws) == 5
    for train, test in draws:
        assert (len(train), len(test)) == (60, 45)
        assert not set(train) & set(test)
        # stratified: 60 and 45 rows of three equal classes are 20 and 15 of each
        assert np.bincount(y[train]).tolist() == [20, 20, 20]
        assert np.bincount(y[test]).tolist() == [15, 15, 15]


def test_draws_repeat_for_a_seed_and_differ_between_draws_and_seeds():
    y = labels()
    first, again = outer_index_folds(y, SPLIT), outer_index_folds(y, SPLIT)
    for (a_train, a_test), (b_train, b_test) in zip(first, again):
        assert a_train.tolist() == b_train.tolist() and a_test.tolist() == b_test.tolist()
    trains = {tuple(train) for train, _ in first}
    assert len(trains) == 5  # five different draws
    other = outer_index_folds(y, replace(SPLIT, seed=4))
    assert not trains & {tuple(train) for train, _ in other}
    # repeat r shifts the seed by r: its draws are not the first repeat's draws shifted by one
    assert draw_seed(4, 0) not in {draw_seed(3, d) for d in range(5)}


REFUSALS = {
    "n_train + n_test above the rows": (
        "{method: draws, draws: 2, n_train: 100, n_test: 60}",
        "split: iris: n_train + n_test = 100 + 60 = 160 is more than the dataset's 150 rows"),
    "a class with fewer training rows than folds": (
        "{method: draws, draws: 2, n_train: 12, n_test: 30}\n"
        "validation: {method: kfold, k: 5}",
        "split: iris: draw 0's training part has 4 rows of class 0, fewer than the "
        "validation's 5 folds; raise n_train or lower k"),
    "no draw": ("{method: draws, draws: 0, n_train: 60, n_test: 45}",
                "split.draws: draws must be an integer from 1 to 10000, got 0"),
    "draws not an integer": ("{method: draws, draws: 2.5, n_train: 60, n_test: 45}",
                             "split.draws: expected an integer, got 2.5"),
    "no training row": ("{method: draws, draws: 2, n_train: 0, n_test: 45}",
                        "split.n_train: n_train must be a number of rows >= 1, got 0"),
    "n_test missing": ("{method: draws, draws: 2, n_train: 60}",
                       "split: a draws split needs n_test"),
    "fewer training rows than classes": (
        "{method: draws, draws: 2, n_train: 2, n_test: 45}",
        "split: iris: The train_size = 2 should be greater or equal to the number of classes"),
}


@pytest.mark.parametrize("case", sorted(REFUSALS), ids=lambda c: c.replace(" ", "-"))
def test_validate_and_the_run_refuse_bad_draws(case, tmp_path, run_multisvm, monkeypatch):
    split, fragment = REFUSALS[case]
    path = write(tmp_path, config_text().replace("{test_fraction: 0.3, seed: 1}", split))
    monkeypatch.chdir(tmp_path)
    for command in (["validate", path], ["reproduce-table", path, "--out", "out"]):
        code, out, err = run_multisvm(*command)
        lines = [x for x in err.splitlines() if not x.startswith("warning: ")]
        assert code == 2 and out == "", (command, err)
        assert len(lines) == 1 and lines[0].startswith(f"error: {path}:3: "), err
        assert fragment in lines[0], err
        assert "Traceback" not in err
    assert not (tmp_path / "out").exists()  # refused before any run folder


DRAWS_RUN = config_text(
    name="drawn", split={"method": "draws", "draws": 3, "n_train": 60, "n_test": 45, "seed": 0},
    scaling="minmax", validation={"method": "kfold", "k": 5, "seed": 0},
    kernels=[{"type": "gaussian", "gamma": [0.5, 2]}], schemes=["maxwins", "coupling"])


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    """One real run of a 3-draw config on iris (Max Wins and pairwise coupling)."""
    return real_run(tmp_path_factory.mktemp("draws"), "drawn", DRAWS_RUN)


def test_a_draws_run_reports_the_mean_and_sd_of_its_draws(drawn):
    folder, _, _ = drawn
    results = json.loads((folder / "results.json").read_text())["results"]
    with open(folder / "table.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["scheme"] for row in rows] == ["maxwins", "coupling"]
    for result, row in zip(results, rows):
        errors = [split["error_pct"] for split in result["splits"]]
        assert [split["n_test"] for split in result["splits"]] == [45, 45, 45]
        assert [split["n_train"] for split in result["splits"]] == [60, 60, 60]
        assert float(row["error_pct"]) == pytest.approx(mean(errors), abs=1e-9)
        assert float(row["error_sd"]) == pytest.approx(stdev(errors), abs=1e-9)
        assert row["draws"] == "3" and row["n_test"] == "135"
        chosen = [json.dumps(split, sort_keys=True) for split in result["selected"]]
        most = max(chosen.count(one) for one in chosen)
        suffix = f" ({most}/3 draws)" if most < 3 else ""
        assert row["kernel"].endswith(suffix) and "folds" not in row["kernel"], row["kernel"]
    # draws' test parts overlap: the paired test is the corrected resampled t-test
    assert rows[1]["mcnemar_test"] == "corrected-t"
    assert "over repeats or random draws: corrected-t" in (folder / "table.md").read_text()
    assert ">draws</th>" in (folder / "report.html").read_text()


def test_a_draws_run_is_the_same_at_any_j_and_resumes_from_its_cache(drawn, run_multisvm,
                                                                     monkeypatch):
    folder, _, config = drawn
    home = config.parent
    monkeypatch.setenv("MULTISVM_DATA_HOME", str(home / "data-home"))
    first = json.loads((folder / "results.json").read_text())["results"]
    for attempt in (1, 2):  # -j 2 in a new results root: computed afresh, then resumed
        code, _, err = run_multisvm("reproduce-table", config, "--out", home / "again",
                                    "--quiet", "-j", "2")
        assert code == 0, err
        again = sorted((home / "again" / "drawn").glob("2*"))[-1]
        second = json.loads((again / "results.json").read_text())["results"]
        for one, two in zip(first, second):
            assert [s["error_pct"] for s in one["splits"]] == \
                [s["error_pct"] for s in two["splits"]]
            assert [s["params"] for s in one["splits"]] == [s["params"] for s in two["splits"]]
        with open(again / "grid.csv", newline="") as handle:
            grid = list(csv.DictReader(handle))
        # 3 draws x 4 grid points x 2 schemes: the second run reads all from the cache
        assert len(grid) == 24
        assert {row["cached"] for row in grid} == {"True" if attempt == 2 else "False"}


def test_the_paired_test_of_draws_is_mcnemar_for_one_draw_and_corrected_t_for_several():
    from multisvm_cli.report.paired import paired_test

    def result(errors, draws):
        splits = [{"error_pct": e, "n_test": 45, "n_train": 60} for e in errors]
        return {"draws": draws, "repeats": 1, "splits": splits,
                "correct": np.array([True] * 40 + [False] * 5)}

    one = paired_test(result([11.1], 1), {**result([4.4], 1), "correct": np.ones(45, bool)})
    assert one["test"] == "exact" and one["n10"] == 0 and one["n01"] == 5
    several = paired_test(result([11.1, 6.7], 2), result([4.4, 2.2], 2))
    assert several["test"] == "corrected-t" and several["df"] == 1


def test_a_model_trained_on_a_draws_config_is_the_first_draws(drawn, run_multisvm, monkeypatch):
    """``train`` fits the first draw's training rows; ``evaluate`` then measures its test rows,
    by default, and finds the run's first draw's test error."""
    folder, _, config = drawn
    monkeypatch.setenv("MULTISVM_DATA_HOME", str(config.parent / "data-home"))
    model = config.parent / "models" / "maxwins"
    code, _, err = run_multisvm("train", config, "--scheme", "maxwins", "-o", model)
    assert code == 0, err
    code, out, err = run_multisvm("evaluate", model)
    assert code == 0, err
    first = json.loads((folder / "results.json").read_text())["results"][0]["splits"][0]
    assert f"error rate: {first['error_pct']:.2f}% ({first['n_errors']} errors)" in out
    code, out, err = run_multisvm("evaluate", model, "--part", "train")
    assert code == 0 and "error rate:" in out, err


def _check_with_labels(tmp_path, y, split, validation, repeats=1):
    """check_against_data of a config with ``split``, ``validation`` and ``repeats`` on random
    features with the labels ``y``."""
    from multisvm_cli.data import get_card
    from multisvm_cli.data.loader import Dataset
    from multisvm_cli.experiment.config.against_data import check_against_data
    from multisvm_cli.experiment.config.load import load_config

    X = np.random.default_rng(0).normal(size=(len(y), 4))
    dataset = Dataset("iris", get_card("iris"), {"all": (X, y)}, {}, {}, "test")
    text = config_text(split=split, validation=validation, repeats=repeats)
    config = load_config(write(tmp_path, text))
    check_against_data(config, config.datasets[0], dataset)


@pytest.mark.parametrize("validation", [{"method": "kfold", "k": 5, "seed": 0},
                                        {"method": "holdout", "train_fraction": 0.7, "seed": 0}])
def test_a_class_a_draw_leaves_out_of_its_training_part_is_refused(tmp_path, validation):
    # 1,000 / 1,000 / 30 rows: 20 of the 2,030 hold 0.3 of a row of class 2, so no draw has it
    y = np.repeat([0, 1, 2], [1000, 1000, 30])
    split = {"method": "draws", "draws": 2, "n_train": 20, "n_test": 200, "seed": 0}
    with pytest.raises(Exception, match=r"iris: draw 0's training part has 0 rows of class 2, "
                                        r"fewer than"):
        _check_with_labels(tmp_path, y, split, validation)


def test_every_repeats_draws_are_checked_not_only_the_first(tmp_path):
    # 30 / 10 rows: a draw of 18 holds 4.5 rows of class 1, 4 or 5 by the seed (ties drawn)
    y = np.repeat([0, 1], [30, 10])
    def ones(seed):
        split = Split("draws", draws=1, n_train=18, n_test=10, seed=seed)
        return int(np.sum(y[outer_index_folds(y, split)[0][0]] == 1))
    seed = next(s for s in range(50) if ones(s) == 5 and ones(s + 1) == 4)
    split = {"method": "draws", "draws": 1, "n_train": 18, "n_test": 10, "seed": seed}
    validation = {"method": "kfold", "k": 5, "seed": 0}
    _check_with_labels(tmp_path, y, split, validation)  # one repeat: passes
    with pytest.raises(Exception, match=r"iris \(repeat 1\): draw 0's training part has 4 "
                                        r"rows of class 1, fewer than the validation's 5 folds"):
        _check_with_labels(tmp_path, y, split, validation, repeats=2)
