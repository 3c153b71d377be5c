"""The table of top-level keys (config/keys.py) is the one home of each key: load_config takes
every default from it, a dataset entry may hold exactly its cascading keys, and each key's
``needs`` come before it."""

import dataclasses

import pytest

from multisvm_cli.experiment.config import ConfigError, load_config
from multisvm_cli.experiment.config.keys import DATASET_KEYS, KEYS, REQUIRED


def test_each_key_is_checked_at_the_top_level_or_per_dataset_and_needs_earlier_keys():
    order = list(KEYS)
    for name, key in KEYS.items():
        assert (key.check is None) == key.cascades, name
        assert all(order.index(need) < order.index(name) for need in key.needs), name
    assert DATASET_KEYS == ("name", "scaling", "split", "validation", "kernels", "C",
                            "estimate", "features", "solver", "max_iter")
    assert REQUIRED == ("dataset", "kernels", "C", "schemes")


def test_a_config_leaving_keys_out_gets_the_tables_defaults(write_config):
    config = load_config(write_config(name=None, dataset="usps", split=None))
    plan = config.datasets[0]
    assert config.name == "config"  # the file's stem
    assert (config.seed, config.repeats, config.dag_orders, config.reuse_across_C, config.rope,
            config.layout) == (0, 1, 0, True, 1.0, "table-1")
    assert config.compare_to == "dag" and config.reference == {} and config.sweep is None
    assert (plan.split, plan.validation["method"], plan.estimate, plan.max_iter, plan.solver,
            plan.scaling) == ({"method": "standard"}, "holdout", ("nested",), "libsvm", None,
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
    assert plan.validation == {"method": "kfold", "k": 3, "seed": 0} and plan.max_iter == 500


def test_a_missing_required_key_names_the_tables_required_keys(write_config):
    with pytest.raises(ConfigError, match=r"config.yaml:1: \(top level\): missing key 'schemes'; "
                                          r"required keys: dataset, kernels, C, schemes$"):
        load_config(write_config(schemes=None))
