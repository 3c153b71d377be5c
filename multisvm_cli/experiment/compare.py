"""``multisvm compare``'s config: the whole comparison on a user's file, written as a config.

:func:`compare_config_text` builds the YAML text of a config from a data file (csv, svmlight or
npz, or a folder of documents with one subfolder per class) and the few choices ``compare``
takes; :func:`compare_config` writes it to a file and loads it with :func:`load_config`, so the
comparison is checked and run exactly as that config would be (a bad file is refused by the
config's checks before any run folder exists), and the run folder keeps it.

Defaults: the schemes of :data:`DEFAULT_SCHEMES`; a local file's own scaling (standard for
dense data, maxabs for sparse: no paper scaled it); Hsu & Lin's (2002) RBF grid, gamma
2^4 .. 2^-10 and C 2^12 .. 2^-2, every :data:`COARSE_STEP`-th exponent (3 x 3 points) unless
``full`` (15 x 15), refined around each fold's best cell (``multisvm compare``'s default,
:mod:`.protocol.refine`); 5-fold cross-validation with each fold's kernel and C chosen on a 70/30
split of its training part (nested), or, with a test file, chosen on a 70/30 split of the
training file and tested once on the test file. A folder of documents gets tf-idf features
and a linear kernel.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

DEFAULT_SCHEMES = ("ovr", "maxwins", "dag", "ecoc", "cs", "ww", "nb")
KERNELS = ("gaussian", "linear", "polynomial")
GAMMA = (4, -10)     # Hsu & Lin's gamma exponents, 2^4 .. 2^-10
C_EXPONENTS = (12, -2)  # and C's, 2^12 .. 2^-2
COARSE_STEP = 7      # every 7th exponent: both ends and the middle
GRIDS = ("coarse", "refine", "full")  # the 3 x 3 grid, it refined, the whole 15 x 15 grid
FOLDS = 5
NAME_LIMIT = 100 - len("compare-") - len("-data")  # a config name is at most 100 characters


def compare_config_text(data, test=None, schemes=None, label=None, kernel=None,
                        grid="coarse", name=None, input_format=None) -> str:
    """The YAML text of the config ``multisvm compare DATA [TEST]`` runs: ``data`` (and
    ``test``) as absolute paths, the dataset named ``name`` (default: :func:`dataset_name`;
    the config is ``compare-<name>``), ``schemes`` (registry names; default
    :data:`DEFAULT_SCHEMES`), a csv's ``label`` column (name or index), ``kernel`` (one of :data:`KERNELS`; default
    gaussian, linear for a folder of documents, read as text with tf-idf features) over the
    ``grid`` (one of :data:`GRIDS`): the coarse grid, the coarse grid searched on
    coarse-to-fine (``refine``: the config's ``refine: true``), or Hsu & Lin's whole grid
    (``full``). A file's format is ``input_format`` (written as the entry's ``format``), else
    told as a config's is (:func:`..data.formats.infer_format`): a file it cannot tell is
    refused here, one DatasetError line naming ``--input-format``."""
    from ..data.formats import given_or_told
    from ..data.local.files import TEST_PATH  # numpy: not for 'multisvm compare --help'

    data_path = Path(data).resolve()
    entry = {"name": name or dataset_name(data_path), "path": str(data_path)}
    if input_format is not None:
        entry["format"] = input_format
    elif not data_path.is_dir():
        given_or_told(data_path, None, "--input-format")
    if test is not None:
        entry[TEST_PATH] = str(Path(test).resolve())
    if label is not None:
        entry["label"] = label
    step = -1 if grid == "full" else -COARSE_STEP
    config = {"name": f"compare-{entry['name']}", "dataset": [entry]}
    if data_path.is_dir():
        entry["kind"] = "text"
        config["features"] = {"vectorizer": "tfidf"}
    kernel = kernel or ("linear" if data_path.is_dir() else "gaussian")
    config["split"] = ({"method": "standard"} if test is not None
                       else {"method": "kfold", "k": FOLDS, "seed": 0})
    config["validation"] = {"method": "holdout", "train_fraction": 0.7, "seed": 0}
    config["estimate"] = "nested"
    config["kernels"] = [_kernel(kernel, step)]
    config["C"] = {"base": 2, "from": C_EXPONENTS[0], "to": C_EXPONENTS[1], "step": step}
    if grid == "refine":
        config["refine"] = True
    config["schemes"] = list(schemes or DEFAULT_SCHEMES)
    config["seed"] = 0
    head = (f"# written by multisvm compare {data}{'' if test is None else ' ' + str(test)}"
            f"{' --full' if grid == 'full' else ''}\n")
    return head + yaml.safe_dump(config, sort_keys=False, default_flow_style=None, width=100)


def compare_label(data, label=None, input_format=None):
    """(the label column ``compare`` runs a csv ``data`` with, the ``note:`` line saying it or
    None). A ``label`` given is used as it is (None for a file that is not csv: its label is
    explicit). Without one: the header's one column named like a label
    (:data:`..data.csv_file.LABEL_NAMES`), said; a headerless file's last column, as LIBSVM's
    and UCI's files put it, said; DatasetError (one line listing the columns and naming
    ``--label``) for a header with no such name or more than one."""
    from ..data.csv_file import csv_head, label_like
    from ..data.errors import DatasetError
    from ..data.formats import given_or_told

    path = Path(data)
    if label is not None or path.is_dir() or given_or_told(path, input_format,
                                                           "--input-format") != "csv":
        return label, None
    names, width = csv_head(path)
    if names is None:
        return None, (f"note: {data} has no header row: its last column ({width - 1}) is the "
                      f"label (--label INDEX names another)")
    found = label_like(names)
    if len(found) == 1:
        return found[0], (f"note: {data}: label column {found[0]!r}, by its name (--label "
                          f"NAME|INDEX names another)")
    which = ("no column is named like a label" if not found else
             f"{len(found)} columns are named like a label ({', '.join(found)})")
    raise DatasetError(f"{data}: which column is the label? {which}; the columns are "
                       f"{', '.join(names)}: name it with --label NAME|INDEX")


def compare_config(folder, data, test=None, seed=None, **choices):
    """:func:`compare_config_text`'s config written to ``folder``/<name>.yaml and loaded (a
    :class:`.Config`; ``seed``: the CLI's ``--seed``; ``max_classes`` among ``choices``: the
    key written as given, None: left out; raises :class:`.ConfigError` with one line per
    problem, a problem of the generated text named ``compare: <key>``; ``columns`` among
    ``choices``: a csv table's column options given, written as the entry's ``features:``)."""
    from .config import ConfigError, load_config

    max_classes, columns = choices.pop("max_classes", None), choices.pop("columns", None)
    text = compare_config_text(data, test, **choices)
    if columns:  # a csv table's column options given (--drop ...): the entry's features:
        head, body = text.split("\n", 1)
        document = yaml.safe_load(body)
        document["dataset"][0]["features"] = _column_features(columns)
        text = f"{head}\n" + yaml.safe_dump(document, sort_keys=False, default_flow_style=None,
                                            width=100)
    if max_classes is not None:
        text += f"max_classes: {max_classes}\n"
    path = Path(folder) / f"{yaml.safe_load(text)['name']}.yaml"
    path.write_text(text)
    try:
        config = load_config(path, seed)
    except ConfigError as error:  # the temporary file's name and line mean nothing to the user
        where = re.compile(rf"^{re.escape(str(path))}:\d+: ")
        raise ConfigError.several(where.sub("compare: ", line) for line in error.lines) from None
    config.path = Path(text.splitlines()[0].removeprefix("# written by "))  # run.json, config.yaml
    _name_the_files(config, str(data) if test is None else f"{data} {test}")
    return config


def _name_the_files(config, files) -> None:
    """Each key's location in ``config``'s plans made the user's ``files``: a check against
    the data that fails later (in the run) names them, never the temporary config."""
    from .config import ConfigError, Location

    class Given(Location):
        def error(self, message) -> ConfigError:
            return ConfigError(f"{self.path}: {message}")

    for plan in config.datasets:
        plan.where.update({key: Given(files, 0, at.key) for key, at in plan.where.items()
                           if isinstance(at, Location)})


def _column_features(columns) -> dict:
    """A csv entry's ``features:`` of the column options given (comma-separated names as
    lists)."""
    return {key: [name.strip() for name in value.split(",") if name.strip()]
            if key == "drop" or (key == "categorical" and value != "auto") else value
            for key, value in columns.items()}


def _kernel(kernel, step) -> dict:
    """The kernels row of ``kernel``: Gaussian over Hsu & Lin's gamma exponents (every
    ``-step``-th), polynomial of degree 2 and 3, or linear."""
    if kernel == "gaussian":
        return {"type": "gaussian", "gamma": {"base": 2, "from": GAMMA[0], "to": GAMMA[1],
                                              "step": step}}
    if kernel == "polynomial":
        return {"type": "polynomial", "degree": [2, 3]}
    return {"type": "linear"}


def dataset_name(path) -> str:
    """The dataset's name: the file's (or folder's) stem, made folder-safe (each run of other
    characters than letters, digits, '.', '_' and '-' one '-', no leading or trailing
    punctuation, at most :data:`NAME_LIMIT` characters), ``-data`` added when that is a
    registry dataset's name (a local file may not take one)."""
    from .. import data

    path = Path(path)
    stem = path.stem if path.is_file() else path.name
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("._-")[:NAME_LIMIT].rstrip("._-")
    safe = safe or "data"
    return f"{safe}-data" if safe in data.names() else safe
