"""The experiment layer: configs, splits, the protocol, runs, and saved models.

Everything the command line does goes through these functions (the CLI only parses options and
prints); a Python user or a benchmark calls them the same way:

- :func:`load_config` (a file or a shipped config's name) -> :class:`Config`;
  :func:`validate` also checks it against the data it finds locally;
- :func:`reproduce` (config, :class:`Settings`) -> :class:`Run` (run folder, report rows);
- :func:`train` / :func:`evaluate` / :func:`predict`: saved models (predict: a user's file);
- :func:`rebuild_report` (run folder): its figures and report.html again, from its files;
- :func:`shipped_configs`: the configs that come with multisvm.
"""

from ..base.lazy import module_getattr
from .shipped import config_path, describe, shipped_configs

# imported on first use: ``multisvm configs`` reads the shipped configs' list only
__getattr__ = module_getattr(__name__, {
    ".config": ("Config", "ConfigError", "GridPoint", "summary"),
    ".models.train_evaluate": ("Evaluation", "Trained", "evaluate", "train"),
    ".models.predict": ("Predictions", "predict"),
    ".run.report": ("rebuild_report",),
    ".run.reproduce": ("Run", "reproduce"),
    ".run.settings": ("BACKENDS", "Settings", "workers"),
})


def load_config(path, seed=None):
    """Read and validate a config file, or a shipped config named without a path: a
    :class:`Config`."""
    from .config import load_config as load

    return load(config_path(path), seed=seed)


def validate(path, mirror=None, data_home=None) -> tuple:
    """Every check a run would make of the config at ``path``: (Config, notes).

    The checks that need the data run on the datasets found locally (parsed cache, data home,
    mirror or installed package: never a download); ``notes`` says which could not be checked.
    """
    from .. import data
    from .protocol import load_plan_data, parts_needed
    from .data_checks import check_config_data
    from .config.against_data import check_plan

    config = load_config(path)
    notes = []
    for plan in config.datasets:
        if plan.local is not None:  # always here: read it (every file error shows now)
            loaded = load_plan_data(plan)
            check_plan(plan, loaded)
            check_config_data(config, plan, loaded)
            continue
        wanted = parts_needed(plan) or list(data.get_card(plan.name).parts)
        wanted = [part for part in wanted if part != "test" or plan.split["method"] != "standard"]
        available = data.available_parts(plan.name, mirror=mirror, data_home=data_home)
        if not set(wanted) <= set(available):
            notes.append(f"# {plan.name}: not found locally; its split sizes were not checked")
            continue
        loaded = data.load(plan.name, parts=wanted, mirror=mirror, data_home=data_home,
                           progress=False)
        check_plan(plan, loaded)
        check_config_data(config, plan, loaded)
    return config, notes


__all__ = ["BACKENDS", "Config", "ConfigError", "Evaluation", "GridPoint", "Predictions", "Run",
           "Settings", "Trained", "config_path", "describe", "evaluate", "load_config", "predict",
           "rebuild_report", "reproduce", "shipped_configs", "summary", "train", "validate", "workers"]
