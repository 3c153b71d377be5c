"""The tests' shared experiment config: a small iris grid, written as YAML with overrides.

``config_text()`` is one line per top-level key, in :data:`BASE_CONFIG`'s order (the kernels
one item per line), so tests may assert line numbers and replace fragments of it::

    name: small
    dataset: iris
    split: {test_fraction: 0.3, seed: 1}
    kernels:
      - {type: gaussian, sigma: [1, 2]}
    C: [1, 10]
    schemes: [ovr, maxwins, dag]
"""

import textwrap

import yaml

BASE_CONFIG = {
    "name": "small",
    "dataset": "iris",
    "split": {"test_fraction": 0.3, "seed": 1},
    "kernels": [{"type": "gaussian", "sigma": [1, 2]}],
    "C": [1, 10],
    "schemes": ["ovr", "maxwins", "dag"],
}


def config_text(**overrides) -> str:
    """The base config's YAML with ``overrides`` (a key set to None is left out; new keys come
    last, in the order given)."""
    lines = []
    for key, value in {**BASE_CONFIG, **overrides}.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            lines += [f"{key}:"] + [f"  - {flow(item)}" for item in value]
        elif value is not None:
            lines.append(f"{key}: {flow(value)}")
    return "\n".join(lines) + "\n"


def flow(value) -> str:
    """``value`` in YAML's one-line flow style."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}: {flow(item)}" for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(flow(item) for item in value) + "]"
    return yaml.safe_dump(value, width=1000).split("\n")[0]


def write(folder, text, name="config.yaml"):
    """Write ``text`` (dedented) to ``folder / name``; its path."""
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def write_config(folder, filename="config.yaml", **overrides):
    """Write :func:`config_text` with ``overrides`` to ``folder / filename``; its path."""
    path = folder / filename
    path.write_text(config_text(**overrides))
    return path


# glass under 10 stratified folds: its smallest class has 9 rows, so scikit-learn warns
GLASS_TEN_FOLDS = {"dataset": "glass", "split": {"method": "kfold", "k": 10, "seed": 0},
                   "kernels": [{"type": "linear"}], "C": [1], "schemes": ["ovr"]}


def write_wide_column_csv(folder, filename="own.csv"):
    """A 300 x 6 four-class CSV (label last) whose classes overlap and whose column 2 is
    x1000: unscaled, SMO needs many iterations on it. Its path."""
    import numpy as np

    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, 300)
    X = rng.normal(size=(300, 6))
    X[:, :3] += 0.7 * y[:, None]
    X[:, 2] *= 1000
    np.savetxt(folder / filename, np.column_stack([X, y]), delimiter=",", fmt="%.6g")
    return folder / filename
