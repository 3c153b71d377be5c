"""Reuse across C in the grid (issue #22): the same choices and errors with reuse on and off,
reused machines counted in the grid rows, final fits always real, and the switch."""

from dataclasses import replace

import pytest
import yaml

from multisvm_cli.experiment.config import ConfigError, load_config
from multisvm_cli.experiment.config.against_data import load_datasets
from multisvm_cli.experiment.protocol import run_protocol
from multisvm_cli.experiment.shipped import config_path as find_config
from multisvm_cli.base.storage import PointCache


def both_ways(config, tmp_path):
    """(results, grid rows) with reuse on, then with reuse off (separate caches)."""
    datasets = load_datasets(config, quiet=True)
    runs = []
    for reuse in (True, False):
        cache = PointCache(tmp_path / f"cache-{reuse}")
        results, rows, _ = run_protocol(replace(config.study(), reuse_across_C=reuse), datasets,
                                        cache)
        runs.append((results, rows))
    return runs


def assert_same_choices_or_ties(on, off):
    """Each scheme's choice and test errors agree; where a choice differs, both points tie at
    the lowest validation error (the machines agree within libsvm's tolerance, so a validation
    error can move only across a tie)."""
    untied = 0
    for mine, theirs in zip(on, off):
        assert (mine["dataset"], mine["scheme"]) == (theirs["dataset"], theirs["scheme"])
        if mine["selected"] == theirs["selected"]:
            assert mine["n_errors"] == theirs["n_errors"], mine["scheme"]
            assert mine["smo_iterations"] == theirs["smo_iterations"]  # final fits are real
            untied += 1
        else:
            assert mine["ties"] > 1 and theirs["ties"] > 1, (mine["dataset"], mine["scheme"])
    assert untied >= len(on) - 2  # nearly every choice is the very same point


@pytest.mark.slow
def test_quickstart_gives_the_same_table_with_reuse_on_and_off(tmp_path, data_home):
    config = load_config(find_config("quickstart"))
    assert config.reuse_across_C is True  # the default
    (on, rows_on), (off, rows_off) = both_ways(config, tmp_path)
    assert_same_choices_or_ties(on, off)
    assert all(r["n_reused_machines"] == 0 for r in rows_off)
    reused = sum(r["n_reused_machines"] for r in rows_on)
    assert reused > 0
    # a point reuses only from a smaller C of the same kernel: the smallest C never does
    smallest = min(r["C"] for r in rows_on if r["kernel_type"] != "-" and r["C"] is not None)
    assert all(r["n_reused_machines"] == 0 for r in rows_on if r.get("C") == smallest)
    # reused machines cost no SMO iterations
    assert (sum(r["smo_iterations"] for r in rows_on)
            < sum(r["smo_iterations"] for r in rows_off))


@pytest.mark.slow
def test_ramanan_rbf_quick_small_sets_give_the_same_choices(tmp_path, data_home, mirror):
    """ramanan-rbf-quick's protocol and grid (10-fold, both estimates, 7 x 7 gamma x C) on its
    two smallest sets."""
    text = yaml.safe_load(find_config("ramanan-rbf-quick").read_text())
    text.update(dataset=["iris", "wine"], name="rbf-quick-small")
    path = tmp_path / "small.yaml"
    path.write_text(yaml.safe_dump(text))
    (on, rows_on), (off, _) = both_ways(load_config(path), tmp_path)
    assert_same_choices_or_ties(on, off)
    assert sum(r["n_reused_machines"] for r in rows_on) > 0


def test_the_switch_is_a_boolean_and_is_resolved(tmp_path, write_config):
    config = load_config(write_config(reuse_across_C=False))
    assert config.reuse_across_C is False
    assert config.resolved["reuse_across_C"] is False
    with pytest.raises(ConfigError, match="reuse_across_C: expected true or false, got 'no'"):
        load_config(write_config(reuse_across_C="no"))
