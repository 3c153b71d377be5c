"""The table of keys (config/keys.py) is the one home of each key: load_config takes every
default from it, a dataset entry may hold exactly its per-dataset keys, each key's ``needs``
come before it, and a key added as one row reaches validate, the Config, the run and the docs."""

import dataclasses
from pathlib import Path

import pytest
import yaml

from multisvm_cli.experiment.config import ConfigError, load_config
from multisvm_cli.experiment.config.checks import check_number
from multisvm_cli.experiment.config import keys
from multisvm_cli.experiment.config.keys import (DATASET, KEYS, LOCAL, TOP, Key, entry_keys,
                                                 local_keys, required, written_at)
from multisvm_cli.experiment.config.forms import Split, Validation
from helpers import recipe_row

REPO = Path(__file__).resolve().parents[3]


def test_each_key_is_checked_where_it_is_written_and_needs_earlier_keys():
    """Every top-level and per-dataset key has its check (a local file's are checked together
    by ``datasets._local_spec``); a key needs earlier keys, a per-dataset one also any
    top-level key and the dataset's own name, local spec and text flag."""
    order = list(KEYS)
    for name, key in KEYS.items():
        assert (key.check is None) == (key.where == (LOCAL,)), name
        dataset_own = ("name", "local", "text") if DATASET in key.where else ()
        assert all(need in dataset_own or order.index(need) < order.index(name)
                   or (DATASET in key.where and TOP in KEYS[need].where)
                   for need in key.needs), name
    assert entry_keys() == ("name", "scaling", "features", "solver", "split", "validation",
                            "estimate", "C", "kernels", "refine", "max_iter")
    assert written_at(LOCAL) == ("path", "test_path", "format", "kind", "memory_mb")
    assert local_keys() == written_at(LOCAL) + ("label", "header", "zero_based")
    assert required() == ("schemes", "dataset", "C", "kernels")


def test_a_config_leaving_keys_out_gets_the_tables_defaults(write_config):
    config = load_config(write_config(name=None, dataset="usps", split=None))
    plan = config.datasets[0]
    assert config.name == "config"  # the file's stem
    assert (config.seed, config.repeats, config.dag_orders, config.reuse_across_C, config.rope,
            config.layout) == (0, 1, 0, True, 1.0, "table-1")
    assert config.compare_to == "dag" and config.reference == {} and config.sweep is None
    assert (plan.split, plan.validation.method, plan.estimate, plan.max_iter, plan.solver,
            plan.scaling) == (Split("standard"), "holdout", ("nested",), "libsvm", None,
                              "paper")


def test_load_config_follows_the_table(write_config, monkeypatch):
    """Changing a default in the table changes what a config without the key gets: a top-level
    key's and a cascading key's (no second copy of a default in load_config)."""
    def default(name, value):
        monkeypatch.setitem(KEYS, name, dataclasses.replace(KEYS[name], default=value))

    default("dag_orders", 3)
    default("validation", {"method": "kfold", "k": 3})
    default("max_iter", 500)
    config = load_config(write_config())
    plan = config.datasets[0]
    assert config.dag_orders == 3 and config.resolved["dag_orders"] == 3
    assert plan.validation == Validation("kfold", k=3, seed=0) and plan.max_iter == 500


def test_a_missing_required_key_names_the_tables_required_keys(write_config):
    with pytest.raises(ConfigError, match=r"config.yaml:1: \(top level\): missing key 'schemes'; "
                                          r"required keys: schemes, dataset, C, kernels$"):
        load_config(write_config(schemes=None))


def _count(doc, value, path, *needed):
    """A test-only key's check: an integer > 0 (as a real row's would be)."""
    return check_number(doc, value, path, integer=True, positive=True)


@pytest.fixture
def new_rows():
    """Two rows added to the table (in place) and nowhere else: a top-level key and a
    per-dataset one (the dataset's value wins), as the own-table issue's keys will be; the
    per-dataset one is docs/explanation/extending.md's recipe."""
    rows = {"patience": Key(None, "A test-only top-level count.", default=3, check=_count),
            **recipe_row("config-key", vars(keys))}
    saved = list(KEYS.items())
    at = list(KEYS).index("max_iter") + 1  # after the last per-dataset key
    KEYS.clear()
    KEYS.update(saved[:at] + list(rows.items()) + saved[at:])
    yield rows
    KEYS.clear()
    KEYS.update(saved)


def test_a_key_added_as_one_row_reaches_validate_the_config_the_run_and_the_docs(
        new_rows, write_config, run_multisvm, tmp_path, monkeypatch):
    dataset = [{"name": "iris", "max_train_rows": 50}, "wine"]
    path = write_config(dataset=dataset, patience=5, split={"test_fraction": 0.3, "seed": 1},
                        kernels=[{"type": "linear"}], C=[1], schemes=["ovr"])
    config = load_config(path)
    assert config.patience == 5
    assert [plan.max_train_rows for plan in config.datasets] == [50, None]
    resolved = yaml.safe_load(config.resolved_text())
    assert resolved["patience"] == 5
    assert [entry.get("max_train_rows") for entry in resolved["dataset"]] == [50, None]
    top = load_config(write_config("top.yaml", dataset=dataset, max_train_rows=500))
    assert [plan.max_train_rows for plan in top.datasets] == [50, 500]

    validated = run_multisvm("validate", path)
    assert validated.code == 0, validated.err
    assert "patience: 5\n" in validated.out and "max_train_rows: 50\n" in validated.out

    bad = write_config("bad.yaml", patience=0)
    refused = run_multisvm("validate", bad)
    assert refused.code == 2 and "bad.yaml:8: patience: must be > 0, got 0" in refused.err
    bad = write_config("bad.yaml", dataset=[{"name": "iris", "max_train_rows": 0}])
    refused = run_multisvm("validate", bad)
    assert refused.code == 2, refused
    assert "bad.yaml:3: dataset[0].max_train_rows: must be > 0, got 0" in refused.err

    out = tmp_path / "out"
    ran = run_multisvm("reproduce-table", path, "--out", out, "--quiet", "--no-figures")
    assert ran.code == 0, ran.err
    saved = yaml.safe_load(next(out.glob("small/2*/config.yaml")).read_text())
    assert saved["patience"] == 5 and saved["dataset"][0]["max_train_rows"] == 50

    monkeypatch.syspath_prepend(str(REPO / "scripts"))
    import gen_docs

    page = gen_docs.config_page()
    assert "| `patience` | top level | 3 | A test-only top-level count. |" in page
    assert ("| `max_train_rows` | top level, per dataset | none | The most training rows a "
            "dataset may use (a positive integer). |") in page
