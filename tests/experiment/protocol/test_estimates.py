"""The Hsu & Lin protocol beside the honest one: gamma grids, range grids, the cv-best estimate,
the simpler-model tie rule and SMO iteration counts."""

import textwrap

import numpy as np
import pytest
import yaml
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.svm import SVC

from multisvm_cli.estimators import REGISTRY, MaxWinsSVC, OneVsRestSVC
from multisvm_cli.experiment.config import ConfigError, GridPoint, load_config
from multisvm_cli.experiment.config.against_data import load_datasets
from multisvm_cli.experiment.protocol import (run_protocol, score_points, select,
                                              select_cv_best)
from multisvm_cli.experiment.splits import pooled
from multisvm_cli.report.table import render, table_rows
from multisvm_cli.base.storage import PointCache

IRIS = """\
name: iris-cv
dataset: iris
scaling: none
split: {method: kfold, k: 5, seed: 0}
validation: {method: holdout, train_fraction: 0.7, seed: 0}
estimate: ESTIMATE
kernels:
  - {type: gaussian, gamma: GAMMA}
C: CVALUES
schemes: [ovr, maxwins, dag]
"""


def iris_config(tmp_path, estimate="[nested, cv-best]", gamma="{base: 2, from: -3, to: 1}",
                C="{base: 2, from: -1, to: 5, step: 2}", name="config.yaml"):
    text = IRIS.replace("ESTIMATE", estimate).replace("GAMMA", gamma).replace("CVALUES", C)
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return load_config(path)


def run(config, tmp_path):
    datasets = load_datasets(config, quiet=True)
    return run_protocol(config.study(), datasets, PointCache(tmp_path / "cache"))


# --------------------------------------------------------------------------- config

def test_gamma_and_sigma_give_identical_models(tmp_path):
    by_gamma = iris_config(tmp_path, gamma="[2]", C="[10]").datasets[0].grid[0]
    by_sigma = GridPoint("gaussian", 10.0, sigma=0.5)  # 1 / (2 * 0.5^2) = 2
    assert by_gamma == GridPoint("gaussian", 10.0, gamma=2.0)
    assert by_gamma.params() == {"kernel": "gaussian", "C": 10.0, "gamma": 2.0}
    assert by_gamma.kernel_label() == "gaussian gamma=2"
    X, y = pooled(load_datasets(iris_config(tmp_path), quiet=True)["iris"])
    for scheme in ("ovr", "maxwins", "udt"):
        one = REGISTRY[scheme].estimator(**by_gamma.params(), random_state=0).fit(X, y)
        two = REGISTRY[scheme].estimator(**by_sigma.params(), random_state=0).fit(X, y)
        np.testing.assert_array_equal(one.decision_function(X), two.decision_function(X))
        assert one.smo_iterations_ == two.smo_iterations_


def test_range_grids_expand_in_order_and_the_resolved_config_keeps_them(tmp_path):
    config = iris_config(tmp_path, gamma="{base: 2, from: 1, to: -2}",
                         C="{base: 10, from: 0, to: 2}")
    grid = config.datasets[0].grid
    assert [p.gamma for p in grid[::3]] == [2.0, 1.0, 0.5, 0.25]  # downwards, as written
    assert [p.C for p in grid[:3]] == [1.0, 10.0, 100.0]
    assert config.datasets[0].estimate == ("nested", "cv-best")
    resolved = yaml.safe_load(config.resolved_text())["dataset"][0]
    assert resolved["kernels"][0] == {"type": "gaussian", "gamma": 2.0, "C": [1.0, 10.0, 100.0]}
    assert resolved["estimate"] == ["nested", "cv-best"]
    again = tmp_path / "resolved.yaml"
    again.write_text(config.resolved_text())
    assert load_config(again).datasets[0].grid == grid
    stepped = iris_config(tmp_path, gamma="{base: 2, from: -10, to: 4, step: 2}")
    assert [p.gamma for p in stepped.datasets[0].grid[::4]] == [2.0 ** e for e in range(-10, 5, 2)]


@pytest.mark.parametrize("gamma, C, message", [
    ("{base: 2, from: 0, to: 3, step: -1}", "[1]", "the range from 0 to 3 by step -1 is empty"),
    ("{base: 2, from: 0, to: 3, step: 0}", "[1]", "is empty"),
    ("{base: 10, from: 300, to: 320}", "[1]", "is not a finite number > 0"),
    ("[1]", "{base: 2, from: 2000, to: 2001}", "is not a finite number > 0"),
    ("{base: 2, from: .nan, to: 3}", "[1]", "kernels[0].gamma.from: expected a number"),
    ("{base: 0, from: 0, to: 3}", "[1]", "gamma.base: must be > 0"),
    ("{base: 2, to: 3}", "[1]", "a range needs base, from and to"),
    ("{base: 2, from: 0, to: 3, by: 1}", "[1]", "unknown key 'by'"),
    ("[1]", "{base: 2, from: 51, to: 54}", "C"),  # past MAX_C = 2^52
])
def test_bad_ranges_are_refused_with_one_line(tmp_path, gamma, C, message):
    with pytest.raises(ConfigError, match=None) as error:
        iris_config(tmp_path, gamma=gamma, C=C)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_sigma_and_gamma_together_or_a_bad_estimate_are_refused(tmp_path):
    with pytest.raises(ConfigError, match="exactly one of sigma or gamma"):
        iris_config(tmp_path, gamma="[1]\n    sigma: [1]".replace("\n    ", ", ") + "")
    with pytest.raises(ConfigError, match="'best' is not a valid estimate; allowed: nested, "
                                          "cv-best"):
        iris_config(tmp_path, estimate="best")
    text = IRIS.replace("{method: kfold, k: 5, seed: 0}", "{test_fraction: 0.3}")
    path = tmp_path / "holdout.yaml"
    path.write_text(text.replace("ESTIMATE", "cv-best").replace("GAMMA", "[1]")
                    .replace("CVALUES", "[1]"))
    with pytest.raises(ConfigError, match="estimate cv-best is a k-fold cross-validation error"):
        load_config(path)


# --------------------------------------------------------------------------- ties

def test_the_tie_rule_picks_the_same_point_whatever_the_grid_order():
    up = tuple(GridPoint("gaussian", C, gamma=g) for g in (0.25, 1.0, 4.0) for C in (1.0, 16.0))
    errors = {p: (3 if p.C == 1.0 and p.gamma == 4.0 else 5 if p.gamma == 0.25 else 2)
              for p in up}

    class Up:
        grid = up

    class Down:
        grid = tuple(reversed(up))

    chosen = []
    for plan in (Up, Down):
        rows = [{"scheme": "ovr", "fold": 0, "point": p, "n_errors": errors[p],
                 "n_validation": 30} for p in plan.grid]
        chosen.append(select(rows, plan, "ovr", 0))
    # error 2 at (C=1, gamma=1), (C=16, gamma=1), (C=16, gamma=4): smallest C wins
    assert chosen[0]["point"] == chosen[1]["point"] == GridPoint("gaussian", 1.0, gamma=1.0)
    assert chosen[0]["ties"] == chosen[1]["ties"] == 3


@pytest.mark.slow
def test_the_tie_rule_end_to_end_on_iris_grid_written_up_or_down(tmp_path):
    up = iris_config(tmp_path, C="{base: 2, from: -1, to: 5, step: 2}", name="up.yaml")
    down = iris_config(tmp_path, C="{base: 2, from: 5, to: -1, step: -2}",
                       gamma="{base: 2, from: 1, to: -3}", name="down.yaml")
    results_up, _, _ = run(up, tmp_path / "a")
    results_down, _, _ = run(down, tmp_path / "b")
    for a, b in zip(results_up, results_down):
        assert a["selected"] == b["selected"] and a["n_errors"] == b["n_errors"]
        assert a["cv_best"] == b["cv_best"]
        assert [s["ties"] for s in a["selections"]] == [s["ties"] for s in b["selections"]]


# --------------------------------------------------------------------------- cv-best

@pytest.mark.slow
def test_cv_best_is_the_lowest_pooled_kfold_error_as_cross_val_score_computes_it(tmp_path):
    config = iris_config(tmp_path)
    results, grid_rows, _ = run(config, tmp_path)
    X, y = pooled(load_datasets(config, quiet=True)["iris"])
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)

    def n_errors(estimator, X_test, y_test):
        return int(np.sum(estimator.predict(X_test) != y_test))

    plan = config.datasets[0]
    for scheme, estimator in (("ovr", OneVsRestSVC), ("maxwins", MaxWinsSVC)):
        direct = {p: int(cross_val_score(estimator(**p.params()), X, y, cv=folds,
                                         scoring=n_errors).sum()) for p in plan.grid}
        lowest = min(direct.values())
        tied = [p for p in plan.grid if direct[p] == lowest]
        expected = min(tied, key=GridPoint.simplicity)
        result = next(r for r in results if r["scheme"] == scheme)
        assert result["cv_best"]["params"] == expected.params()
        assert result["cv_best"]["n_errors"] == lowest and result["cv_best"]["n_test"] == 150
        assert result["cv_best"]["ties"] == len(tied)
        assert select_cv_best(grid_rows, plan, scheme)["n_errors"] == lowest


@pytest.mark.slow
def test_nested_final_fits_are_the_cv_best_grid_fits_at_the_chosen_point(tmp_path):
    config = iris_config(tmp_path)
    results, grid_rows, _ = run(config, tmp_path)
    for result in results:
        correct = result["correct"]
        assert len(correct) == 150 and result["estimate"] == "nested"
        for selection in result["selections"]:
            row = next(r for r in grid_rows if r["estimate"] == "cv-best"
                       and r["fold"] == selection["fold"] and r["scheme"] == result["scheme"]
                       and r["point"].params() == selection["params"])
            assert row["n_validation"] == 30  # the fold's test part
            fold = slice(30 * selection["fold"], 30 * (selection["fold"] + 1))
            assert row["n_errors"] == int(np.sum(~correct[fold]))  # same fit, same test


@pytest.mark.slow
def test_cv_best_alone_fills_error_pct_and_has_no_mcnemar(tmp_path):
    config = iris_config(tmp_path, estimate="cv-best")
    results, grid_rows, _ = run(config, tmp_path)
    assert {r["estimate"] for r in grid_rows} == {"cv-best"}
    rows = table_rows(results, compare_to="dag")
    for result, row in zip(results, rows):
        assert row["error_pct"] == pytest.approx(result["cv_best"]["error_pct"])
        assert row["estimate"] == "cv-best" and "mcnemar_p" not in row
    text = render(rows, "table", compare_to="dag")
    assert "Hsu & Lin" in text and "McNemar p" not in text and "McNemar (" not in text


@pytest.mark.slow
def test_both_estimates_show_both_columns_and_the_gap(tmp_path):
    results, _, _ = run(iris_config(tmp_path), tmp_path)
    rows = table_rows(results, compare_to="dag")
    for row in rows:
        assert row["optimism"] == pytest.approx(row["error_pct"] - row["cv_best_error_pct"])
    assert any("mcnemar_p" in row for row in rows)
    text = render(rows, "table", compare_to="dag")
    assert "cv-best err %" in text and "optimism" in text and "nested estimate" in text
    assert "estimate" in render(rows, "csv").splitlines()[0].split(",")


# --------------------------------------------------------------------------- SMO iterations

def test_smo_iterations_are_the_sum_of_the_binary_svms_n_iter(tmp_path):
    X, y = pooled(load_datasets(iris_config(tmp_path), quiet=True)["iris"])
    model = MaxWinsSVC(C=8.0, gamma=0.5).fit(X, y)
    direct = 0
    for i, j in ((0, 1), (0, 2), (1, 2)):
        rows = np.flatnonzero((y == i) | (y == j))
        direct += int(SVC(C=8.0, gamma=0.5).fit(X[rows], y[rows] == j).n_iter_[0])
    assert model.smo_iterations_ == direct
    split = [(X[::2], y[::2], X[1::2], y[1::2])]
    params = {"kernel": "gaussian", "C": 8.0, "gamma": 0.5}
    scored = score_points(("maxwins", "dag"), [params], {}, split, 0)[0]
    fitted = MaxWinsSVC(C=8.0, gamma=0.5).fit(X[::2], y[::2])
    assert scored["maxwins"]["smo_iterations"] == fitted.smo_iterations_ > 0


@pytest.mark.slow
def test_smo_iterations_reach_the_table_and_the_grid(tmp_path):
    results, grid_rows, _ = run(iris_config(tmp_path, estimate="nested"), tmp_path)
    # a grid point whose machines were all reused from a smaller C ran no SMO iteration
    assert all(isinstance(r["smo_iterations"], int)
               and (r["smo_iterations"] > 0 or r["n_reused_machines"] > 0) for r in grid_rows)
    assert any(r["smo_iterations"] > 0 for r in grid_rows)
    rows = table_rows(results, compare_to="dag")
    assert all(row["smo_iterations"] > 0 for row in rows)
    assert "SMO iters" in render(rows, "table", compare_to="dag")
