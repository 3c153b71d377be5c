"""The selection protocol: splits, shared Max Wins/DAG training, tie-breaking, and the whole
CLI on USPS with a small grid checked against estimators fitted directly."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from multisvm_cli.experiment.config import GridPoint
from multisvm_cli.estimators import SCHEMES, DAGSVC
from multisvm_cli.estimators.registry import scheme_groups
from multisvm_cli.experiment.protocol import select
from multisvm_cli.experiment.config.forms import Split, Validation
from multisvm_cli.experiment.splits import Fold, outer_index_folds, validation_splits
from helpers import run_cli

Y = np.repeat([0, 1, 2], [50, 60, 40])


def test_holdout_test_split_is_stratified_and_seeded():
    (train, test), = outer_index_folds(Y, Split("holdout", test_fraction=0.3, seed=0))
    assert len(test) == 45 and len(train) == 105
    assert np.bincount(Y[test]).tolist() == [15, 18, 12]
    assert not set(train) & set(test)
    (_, again), = outer_index_folds(Y, Split("holdout", test_fraction=0.3, seed=0))
    (_, other), = outer_index_folds(Y, Split("holdout", test_fraction=0.3, seed=1))
    assert np.array_equal(test, again) and not np.array_equal(test, other)


def test_kfold_tests_every_point_once():
    folds = outer_index_folds(Y, Split("kfold", k=10, seed=0))
    tested = np.concatenate([test for _, test in folds])
    assert len(folds) == 10 and np.array_equal(np.sort(tested), np.arange(len(Y)))
    assert all(np.bincount(Y[test]).tolist() == [5, 6, 4] for _, test in folds)


def test_validation_splits():
    X = np.arange(len(Y), dtype=float)[:, None]
    fold = Fold(0, X, Y, None, None, X[:7], Y[:7])
    (X_fit, y_fit, X_score, y_score), = validation_splits(
        fold, Validation("holdout", train_fraction=0.7, seed=0))
    assert len(y_fit) == 105 and len(y_score) == 45
    assert np.bincount(y_score).tolist() == [15, 18, 12]
    given, = validation_splits(fold, Validation("given"))
    assert given[0] is X and np.array_equal(given[3], Y[:7])
    kfold = validation_splits(fold, Validation("kfold", k=5, seed=0))
    assert len(kfold) == 5 and sum(len(s[3]) for s in kfold) == len(Y)


def test_scheme_groups_share_pairwise_training():
    assert scheme_groups(["ovr", "maxwins", "dag", "udt"]) == [("maxwins", "dag"), ("ovr",),
                                                                ("udt",)]
    assert scheme_groups(["dag", "ovr"]) == [("dag",), ("ovr",)]
    # several readers of one trainer: Max Wins' pairwise SVMs are trained once for all
    assert scheme_groups(["adag", "ovr", "dag", "maxwins"]) == [("maxwins", "dag", "adag"),
                                                               ("ovr",)]
    assert scheme_groups(["adag", "maxwins"]) == [("maxwins", "adag")]
    assert scheme_groups(["adag", "dag"]) == [("adag",), ("dag",)]


def test_the_registry_alone_says_which_schemes_share_fits():
    from multisvm_cli.estimators import registry
    from multisvm_cli.experiment.protocol import final, tasks

    assert registry.shared_group() == ("maxwins", "dag", "adag")
    assert registry.shared_groups() == [("maxwins", "dag", "adag")]
    assert tasks.scheme_groups is final.scheme_groups is registry.scheme_groups
    assert registry.scheme_groups(["nb", "maxwins"]) == [("nb",), ("maxwins",)]
    assert [s for s in registry.SCHEME_NAMES if registry.kernel_free(s)] == ["nb"]


def test_select_lowest_error_then_earlier_grid_point():
    class Plan:
        grid = (GridPoint("gaussian", 1.0, sigma=1.0), GridPoint("gaussian", 10.0, sigma=1.0),
                GridPoint("gaussian", 100.0, sigma=1.0))

    rows = [{"scheme": "ovr", "fold": 0, "point": p, "n_errors": e, "n_validation": 50}
            for p, e in zip(Plan.grid, [5, 3, 3])]
    assert select(rows, Plan, "ovr", 0)["point"] is Plan.grid[1]
    rows[2]["n_errors"] = 2
    assert select(rows, Plan, "ovr", 0)["point"] is Plan.grid[2]


USPS_CONFIG = """\
name: usps-small
dataset: usps
split: standard
validation: {method: holdout, train_fraction: 0.7, seed: 0}
kernels:
  - {type: gaussian, sigma: [3.58, 8]}
C: [10]
schemes: [ovr, maxwins, dag]
"""


def reproduce_json(tmp_path, name, config_text):
    """Write config ``name`` and run ``reproduce-table --format json`` on it through the CLI;
    return (the report rows, the run folder)."""
    config = tmp_path / f"{name}.yaml"
    config.write_text(config_text)
    out = tmp_path / "results"
    result = run_cli("reproduce-table", config, "--out", out, "--format", "json", "--quiet")
    assert result.code == 0, result.err
    return json.loads(result.out), next((out / name).glob("2*"))


@pytest.mark.slow
def test_usps_small_grid_matches_direct_fits(mirror, data_home, tmp_path, monkeypatch):
    """The report's numbers equal those of estimators fitted here by hand on the same split."""
    from multisvm_cli import data

    monkeypatch.setenv("MULTISVM_MIRROR", str(mirror))
    rows, run = reproduce_json(tmp_path, "usps-small", USPS_CONFIG)
    table = {row["scheme"]: row for row in rows}
    grid = pd.read_csv(run / "grid.csv")

    usps = data.load("usps", progress=False)
    X, y = usps.parts["train"]
    X_test, y_test = usps.parts["test"]
    fit, score = train_test_split(np.arange(len(y)), train_size=0.7, stratify=y, random_state=0)
    def fitted(scheme, sigma, rows):
        maker = SCHEMES["maxwins" if scheme == "dag" else scheme]
        model = maker(sigma=sigma, C=10, random_state=0).fit(X[rows], y[rows])
        return DAGSVC.from_maxwins(model) if scheme == "dag" else model

    for scheme in ("ovr", "maxwins", "dag"):
        errors = {}
        for sigma in (3.58, 8.0):
            model = fitted(scheme, sigma, fit)
            errors[sigma] = int(np.sum(model.predict(X[score]) != y[score]))
            logged = grid[(grid.scheme == scheme) & (grid.sigma == sigma)]
            assert logged.n_errors.item() == errors[sigma] and logged.n_validation.item() == 2188
        best = min(errors, key=lambda s: (errors[s], s))
        model = fitted(scheme, best, np.arange(len(y)))
        row = table[scheme]
        assert row["kernel"] == f"gaussian sigma={best:g}" and row["C"] == 10
        wrong = np.sum(model.predict(X_test) != y_test)
        assert row["error_pct"] == pytest.approx(100 * wrong / len(y_test))
        assert row["kernel_evaluations"] == pytest.approx(model.kernel_evaluations(X_test))
        assert row["size_k"] == pytest.approx(model.n_parameters_ / 1000)
    # Max Wins and DAG share training: the same CPU time when they chose the same point
    assert table["maxwins"]["kernel"] == table["dag"]["kernel"]
    assert table["maxwins"]["cpu_time"] == table["dag"]["cpu_time"]
    assert table["dag"]["kernel_evaluations"] < table["maxwins"]["kernel_evaluations"]
    assert table["ovr"]["mcnemar_test"] in ("chi2", "exact") and 0 <= table["ovr"]["mcnemar_p"] <= 1
    saved = json.loads((run / "results.json").read_text())
    assert saved["checksums"]["usps"] == dict(usps.checksums)
    assert json.loads((run / "run.json").read_text())["status"] == "done"


KFOLD_CONFIG = """\
name: iris-kfold
dataset: iris
split: {method: kfold, k: 3, seed: 0}
validation: {method: kfold, k: 2, seed: 0}
kernels:
  - {type: gaussian, sigma: [0.5, 2]}
C: [1, 100]
schemes: [ovr, udt]
"""


def test_kfold_split_pools_every_point_once(tmp_path, data_home):
    """10-fold-style evaluation (the UDT paper's protocol): every row is tested once, by the
    point selected on the other folds; the pooled error equals direct fits fold by fold."""
    from sklearn.model_selection import StratifiedKFold

    from multisvm_cli import data
    from multisvm_cli.data.scaling import make_scaler

    _, run = reproduce_json(tmp_path, "iris-kfold", KFOLD_CONFIG)
    results = {r["scheme"]: r for r in json.loads((run / "results.json").read_text())["results"]}
    grid = pd.read_csv(run / "grid.csv")
    assert len(grid) == 3 * 4 * 2 and (grid.n_validation == 100).all()  # 2 inner folds pooled

    iris = data.load("iris", progress=False)
    X, y = iris.parts["all"]
    folds = list(StratifiedKFold(n_splits=3, shuffle=True, random_state=0).split(X, y))
    for scheme, saved in results.items():
        assert saved["n_test"] == 150 and len(saved["selected"]) == 3
        wrong = 0
        for (train, test), params in zip(folds, saved["selected"]):
            scaler = make_scaler("paper", iris.card).fit(X[train])
            model = SCHEMES[scheme](**params, random_state=0)
            model.fit(scaler.transform(X[train]), y[train])
            wrong += np.sum(model.predict(scaler.transform(X[test])) != y[test])
        assert saved["n_errors"] == wrong
