"""The experiment layer: configs, splits, the protocol, runs, and saved models.

Everything the command line does goes through these functions (the CLI only parses options and
prints); a Python user or a benchmark calls them the same way:

- :func:`load_config` (a file or a shipped config's name) -> :class:`Config`;
  :func:`validate` also checks it against the data it finds locally, as a run would
  (:mod:`.config.against_data`);
- :func:`reproduce` (config, :class:`Settings`) -> :class:`Run` (run folder, report rows);
- :func:`train` / :func:`evaluate` / :func:`predict`: saved models (predict: a user's file);
- :func:`rebuild_report` (run folder): its figures and report.html again, from its files;
- :func:`shipped_configs`: the configs that come with multisvm.
"""

from ..base.lazy import module_getattr

# imported on first use: ``multisvm --help`` imports none of them (the config package imports
# numpy), ``multisvm configs`` the shipped configs' list only
__getattr__ = module_getattr(__name__, {
    ".config": ("Config", "ConfigError", "GridPoint", "summary"),
    ".config.against_data": ("validate",),
    ".models.train_evaluate": ("Evaluation", "Trained", "evaluate", "train"),
    ".models.predict": ("PointsFile", "Predictions", "predict"),
    ".run.report": ("rebuild_report",),
    ".run.reproduce": ("Run", "reproduce"),
    ".run.settings": ("BACKENDS", "Settings", "workers"),
    ".shipped": ("config_path", "describe", "measured_time", "shipped_configs"),
})


def load_config(path, seed=None):
    """Read and validate a config file, or a shipped config named without a path: a
    :class:`Config`."""
    from .config import load_config as load
    from .shipped import config_path

    return load(config_path(path), seed=seed)


__all__ = ["BACKENDS", "Config", "ConfigError", "Evaluation", "GridPoint", "PointsFile",
           "Predictions", "Run", "Settings", "Trained", "config_path", "describe", "evaluate", "load_config",
           "measured_time", "predict", "rebuild_report", "reproduce", "shipped_configs", "summary",
           "train", "validate", "workers"]
