"""Sweeps (issue #19): the sweep: section, sweep.csv and its strict reader, the sweep table and
figures, and the training memory and Hier's levels carried into the results."""

import csv

import numpy as np
import pytest

from multisvm_cli.data.loader import Dataset
from multisvm_cli.base.errors import MultisvmError
from multisvm_cli.experiment import Settings, load_config, reproduce
from multisvm_cli.experiment.config import ConfigError, GridPoint
from multisvm_cli.experiment.protocol.final import _test
from multisvm_cli.experiment.protocol.fitting import make_estimator
from multisvm_cli.experiment.protocol.pooling import _pool
from multisvm_cli.experiment.splits import Fold
from multisvm_cli.experiment.plans import fraction_parts, pick_classes
from multisvm_cli.report.run_folder import SWEEP_COLUMNS, read_sweep
from multisvm_cli.report.table import table_rows

pytestmark = pytest.mark.usefixtures("mirror", "no_network")
LINEAR = [{"type": "linear"}]


def _toy(n_classes=10, per_class=None, seed=0):
    """A Dataset of 2-feature points in ``n_classes`` classes (``per_class`` rows each)."""
    per_class = per_class or [20 + 3 * c for c in range(n_classes)]
    y = np.repeat(np.arange(n_classes), per_class)
    X = np.random.default_rng(seed).normal(size=(len(y), 2)) + y[:, None]
    return Dataset("toy", None, {"all": (X, y)}, {}, {}, "")


def _run(write_config, tmp_path, **overrides):
    path = write_config(kernels=LINEAR, C=[1], **overrides)
    run = reproduce(load_config(path), Settings(out=str(tmp_path / "out"), quiet=True))
    with open(run.folder / "sweep.csv", newline="") as f:
        return run, list(csv.DictReader(f))


def test_classes_draws_are_seeded_and_differ_per_repeat_largest_takes_the_biggest():
    toy = _toy()
    draws = [pick_classes(toy, 4, "random", seed) for seed in range(5)]
    assert all(len(d) == 4 and len(set(d)) == 4 and d == sorted(d) for d in draws)
    assert len({tuple(d) for d in draws}) > 1
    assert draws[2] == pick_classes(toy, 4, "random", 2)
    assert pick_classes(toy, 3, "largest", 0) == [7, 8, 9]  # 41, 44, 47 rows
    with pytest.raises(MultisvmError, match="has 10 classes"):
        pick_classes(toy, 11, "random", 0)


def test_train_fraction_keeps_the_strata_and_one_test_part_per_seed():
    toy = _toy(4, [40, 80, 120, 160])
    n = 400
    small, whole = fraction_parts(toy, 0.2, 3), fraction_parts(toy, 0.7, 3)
    assert np.array_equal(small.parts["test"][1], whole.parts["test"][1])
    assert len(small.parts["test"][1]) == 120 and len(whole.parts["train"][1]) == 280
    y_train = small.parts["train"][1]
    assert len(y_train) == pytest.approx(0.2 * n, abs=1)
    assert np.bincount(y_train).tolist() == [8, 16, 24, 32]  # the 1:2:3:4 strata kept
    train_rows = {tuple(x) for x in small.parts["train"][0]}
    assert not train_rows & {tuple(x) for x in small.parts["test"][0]}


@pytest.mark.slow
def test_a_classes_sweep_writes_rows_table_and_figures(write_config, tmp_path, run_multisvm):
    run, rows = _run(write_config, tmp_path, dataset="wine", repeats=2,
                     schemes=["ovr", "maxwins", "hier"], sweep={"classes": [2, 3]})
    assert len(rows) == 2 * 3 * 2 and list(rows[0]) == SWEEP_COLUMNS
    for k in (2, 3):
        for repeat in (0, 1):
            mine = [r for r in rows if r["value"] == str(k) and r["repeat"] == str(repeat)]
            drawn = {r["classes"] for r in mine}
            assert len(drawn) == 1 and len(drawn.pop().split()) == k  # one draw for all schemes
    first = {r["classes"] for r in rows if r["value"] == "2" and r["repeat"] == "0"}
    assert first == {" ".join(map(str, pick_classes(_toy(3, [5, 5, 5]), 2, "random", 0)))}
    hier = [r for r in rows if r["scheme"] == "hier"]
    assert all(0 <= float(r["level1_accuracy"]) <= 1 for r in hier)
    assert all(r["level1_accuracy"] == "" for r in rows if r["scheme"] != "hier")
    assert all(float(r["max_train_memory_mb"]) > 0 for r in rows if r["scheme"] == "ovr")
    figure = run.folder / "figures" / "sweep-wine.png"
    assert figure.is_file()
    assert "<h2>Sweep</h2>" in (run.folder / "report.html").read_text()
    figure.unlink()
    result = run_multisvm("report", run.folder)
    assert result.code == 0 and figure.is_file()


def test_a_train_fraction_sweep_trains_on_that_share(write_config, tmp_path):
    run, rows = _run(write_config, tmp_path, schemes=["ovr", "graph"],
                     sweep={"train_fraction": [0.2, 0.7]})
    assert (run.folder / "figures" / "sweep-iris.png").is_file()
    n_train = {r["value"]: int(r["n_train"]) for r in rows}
    assert n_train == {"0.2": 30, "0.7": 105}  # iris: 150 rows, test 45 in both
    assert {int(r["n_test"]) for r in rows} == {45}


def test_an_option_sweep_replaces_the_option(write_config, tmp_path, capsys):
    run, rows = _run(write_config, tmp_path, schemes=["ovr", "graph"],
                     sweep={"scheme_options": {"graph": {"threshold": [0.0, 0.5]}}})
    assert [(r["sweep"], r["value"], r["scheme"]) for r in rows] == [
        ("graph.threshold", "0.0", "ovr"), ("graph.threshold", "0.0", "graph"),
        ("graph.threshold", "0.5", "ovr"), ("graph.threshold", "0.5", "graph")]
    ovr = [r for r in rows if r["scheme"] == "ovr"]
    assert ovr[0]["error_pct"] == ovr[1]["error_pct"]  # the option is graph's alone
    frame = read_sweep(run.folder)
    assert frame["value"].tolist() == [0.0, 0.0, 0.5, 0.5]
    assert (run.folder / "figures" / "sweep-iris.png").is_file()


def test_several_options_sweep_every_combination(write_config, tmp_path):
    """ecoc's code x decoding: each combination a run; the ovr code decoded by loss is 1-v-r's
    argmax and the ovo code decoded by Hamming distance is Max Wins' vote, so those rows'
    errors are the plain schemes' in the same run."""
    sweep = {"scheme_options": {"ecoc": {"code": ["ovr", "ovo"], "decoding": ["hamming", "loss"]}}}
    run, rows = _run(write_config, tmp_path, schemes=["ovr", "maxwins", "ecoc"], sweep=sweep)
    ecoc = {r["value"]: r["error_pct"] for r in rows if r["scheme"] == "ecoc"}
    assert list(ecoc) == ["[ovr, hamming]", "[ovr, loss]", "[ovo, hamming]", "[ovo, loss]"]
    assert {r["sweep"] for r in rows} == {"ecoc.code+decoding"}
    plain = {(r["value"], r["scheme"]): r["error_pct"] for r in rows}
    assert ecoc["[ovr, loss]"] == plain[("[ovr, loss]", "ovr")]
    assert ecoc["[ovo, hamming]"] == plain[("[ovo, hamming]", "maxwins")]
    config = load_config(run.folder / "config.yaml")
    assert config.sweep["values"] == [("ovr", "hamming"), ("ovr", "loss"), ("ovo", "hamming"),
                                      ("ovo", "loss")]


def test_a_several_option_sweep_with_list_values_resolves_to_the_same_sweep(write_config, tmp_path):
    """A list-valued option (DAG's order) swept with another: the resolved document (lists
    compared, not hashed; None written as natural) loads back to the same sweep."""
    from multisvm_cli.experiment.config.sweep import sweep_document

    sweep = {"scheme_options": {"dag": {"order": ["natural", [2, 0, 1]], "tol": [0.001, 0.01]}}}
    config = load_config(write_config(schemes=["dag"], sweep=sweep))
    assert config.sweep["values"] == [(None, 0.001), (None, 0.01), ([2, 0, 1], 0.001),
                                      ([2, 0, 1], 0.01)]
    assert sweep_document(config.sweep) == sweep
    again = load_config(write_config(schemes=["dag"], sweep=sweep_document(config.sweep)))
    assert again.sweep == config.sweep


@pytest.mark.parametrize("sweep, message", [
    ({"classes": [2], "train_fraction": [0.5]}, "exactly one of"),
    ({"classes": [1]}, "must be > 1"),
    ({"train_fraction": [0.8]}, "must be <"),
    ({"classes": [2], "order": "smallest"}, "not a valid order"),
    ({"train_fraction": [0.5], "order": "largest"}, "classes sweep only"),
    ({"scheme_options": {"graph": {"threshold": [0.1, "x"]}}}, "threshold"),
    ({"scheme_options": {"udt": {"threshold": [0.1, 0.2]}}}, "not in schemes"),
    ({"scheme_options": {"graph": {"threshold": [0.1, 0.2], "nb": "gaussian"}}}, "2 or more"),
    ({"scheme_options": {"graph": {}}}, "one or more options"),
    ({"classes": [2, 3, 2]}, r"classes: has a repeated value: \[2, 3, 2\]"),
    ({"scheme_options": {"graph": {"threshold": [0.1, 0.1]}}},
     r"threshold: has a repeated value: \[0.1, 0.1\]"),
    ({"scheme_options": {"graph": {"threshold": [0.1, 0.2], "nb": ["gaussian", "gaussian"]}}},
     r"nb: has a repeated value"),
])
def test_a_bad_sweep_section_is_refused_with_its_line(write_config, sweep, message):
    path = write_config(schemes=["ovr", "graph"], sweep=sweep)
    with pytest.raises(ConfigError, match=message) as caught:
        load_config(path)
    assert ":8: sweep" in str(caught.value)


def test_the_resolved_config_keeps_the_sweep(write_config, tmp_path):
    path = write_config(schemes=["ovr", "graph"], sweep={"classes": [2, 3]})
    config = load_config(path)
    assert config.sweep == {"kind": "classes", "values": [2, 3], "order": "random"}
    again = tmp_path / "resolved.yaml"
    again.write_text(config.resolved_text())
    assert load_config(again).sweep == config.sweep


@pytest.mark.parametrize("edit, problem", [
    (lambda t: t[:-20], "cut off"),
    (lambda t: t.replace("error_pct", "err", 1), "lacks the column"),
    (lambda t: t.replace(",0.5,", ",x,", 1), "not a finite number"),
])
def test_the_sweep_reader_refuses_a_malformed_file(tmp_path, edit, problem):
    header = ",".join(SWEEP_COLUMNS)
    good = (f"{header}\nclasses,2,iris,ovr,0,1 2,70,30,0.5,0.1,0.01,0.02,2.0,10,,\n")
    (tmp_path / "sweep.csv").write_text(good)
    assert read_sweep(tmp_path)["error_pct"].tolist() == [0.5]
    (tmp_path / "sweep.csv").write_text(edit(good))
    with pytest.raises(MultisvmError, match=problem):
        read_sweep(tmp_path)


def _fold():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    test = np.arange(len(y)) % 5 == 0
    return Fold(0, X[~test], y[~test], X[test], y[test])


@pytest.mark.parametrize("scheme", ["ovr", "hier"])
def test_memory_and_levels_in_the_table_are_the_estimators(scheme):
    fold, point = _fold(), GridPoint("linear", 1.0)
    estimator = make_estimator(scheme, point.params(), {}, 1, 0).fit(fold.X_train, fold.y_train)
    chosen = {"point": point, "validation_error": 0.0, "ties": 1}
    pooled = _pool("iris", scheme, [_test(estimator, fold, chosen, [])], [])
    assert pooled["max_train_memory_mb"] == estimator.max_train_memory_ / 1e6 > 0
    row, = table_rows([pooled], compare_to="dag")
    assert row["max_train_memory_mb"] == pooled["max_train_memory_mb"]
    if scheme == "hier":
        level1, level2 = estimator.level_accuracies(fold.X_test, fold.y_test)
        assert (row["level1_accuracy"], row["level2_accuracy"]) == (level1, level2)
    else:
        assert "level1_accuracy" not in row
