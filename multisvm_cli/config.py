"""Experiment configs: a YAML file naming datasets, scaling, split, validation, kernel grid, C grid
and schemes, validated into a :class:`Config` with one-line errors.

Every error is a :class:`ConfigError` whose message names the file, the line, the key and the
allowed values, e.g. ``configs/x.yaml:7: schemes[2]: 'svm' is not a scheme; allowed: ovr, ...``.

Format (defaults in brackets)::

    name: platt1999-usps            # [the file's stem] names the results folder
    dataset: usps                   # a registry name, or a list of names / {name: ..., overrides}
    scaling: paper                  # [paper] none | minmax | standard | standard-continuous | paper
    split: standard                 # [standard] the dataset's own train/test parts, or
                                    #   {test_fraction: 0.25, seed: 0}  stratified holdout test part
                                    #   {method: kfold, k: 10, seed: 0}  k-fold: every point tested once
    validation: {method: holdout, train_fraction: 0.7, seed: 0}   # [this] or {method: given}
                                    #   (the dataset's validation part) or {method: kfold, k: 10}
    kernels:                        # every combination below is a grid point
      - {type: gaussian, sigma: [2, 4, 8]}
      - {type: polynomial, degree: [1, 2, 3], homogeneous: [true, false]}
      - {type: linear}
    C: [1, 10, 100]                 # a kernel entry may carry its own C list
    schemes: [ovr, maxwins, dag]    # ovr | maxwins | dag | udt | graph | hier | nb
    scheme_options: {graph: {threshold: 0.05}, dag: {order: natural}}
    compare_to: dag                 # [dag] the scheme McNemar's test compares the others with
    seed: 0                         # [0] default seed of split, validation and the estimators
    reference:                      # optional: a paper's numbers, printed beside ours
      source: Platt et al. 1999, Table 1
      usps: {ovr: {sigma: 3.58, C: 100, error: 4.7, kernel_evaluations: 2936,
                   cpu_time: 3532, size_k: 760}}

A ``dataset`` list item may be a mapping ``{name: letter, split: ..., validation: ...,
scaling: ..., kernels: ..., C: ...}`` overriding the top-level values for that dataset.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .errors import MultisvmError

SCHEME_NAMES = ("ovr", "maxwins", "dag", "udt", "graph", "hier", "nb")
KERNEL_FREE = ("nb",)  # schemes that use neither kernel nor C: scored at one grid point only
SCALINGS = ("none", "minmax", "standard", "standard-continuous", "paper")
KERNEL_TYPES = ("gaussian", "polynomial", "linear")
TOP_KEYS = ("name", "dataset", "scaling", "split", "validation", "kernels", "C", "schemes",
            "scheme_options", "compare_to", "seed", "reference")
DATASET_KEYS = ("name", "scaling", "split", "validation", "kernels", "C")
KERNEL_KEYS = {"gaussian": ("type", "sigma", "C"),
               "polynomial": ("type", "degree", "homogeneous", "C"),
               "linear": ("type", "C")}
SPLIT_FORMS = {"standard": {}, "holdout": {"test_fraction": 0.25}, "kfold": {"k": 10}}
VALIDATION_FORMS = {"holdout": {"train_fraction": 0.7}, "given": {}, "kfold": {"k": 10}}
REFERENCE_FIELDS = ("kernel", "sigma", "degree", "C", "error", "kernel_evaluations",
                    "cpu_time", "size_k")
GRID_PARAMS = ("C", "kernel", "sigma", "degree", "homogeneous", "n_jobs", "random_state")


class ConfigError(MultisvmError):
    """A config file that cannot be used; the message is one line with file, line and key."""


@dataclass(frozen=True)
class GridPoint:
    """One (kernel, C) point of the grid, as estimator parameters."""

    kernel: str
    C: float
    sigma: float | None = None
    degree: int | None = None
    homogeneous: bool | None = None

    def params(self) -> dict:
        """The estimator keyword arguments of this point (only those the kernel uses)."""
        params = {"kernel": self.kernel, "C": self.C}
        if self.kernel == "gaussian":
            params["sigma"] = self.sigma
        if self.kernel == "polynomial":
            params.update(degree=self.degree, homogeneous=self.homogeneous)
        return params

    def kernel_label(self) -> str:
        """How Table 1 names the kernel: ``gaussian sigma=4``, ``polynomial d=3 homogeneous``."""
        if self.kernel == "gaussian":
            return f"gaussian sigma={self.sigma:g}"
        if self.kernel == "polynomial":
            kind = "homogeneous" if self.homogeneous else "inhomogeneous"
            return f"polynomial d={self.degree} {kind}"
        return "linear"


@dataclass(frozen=True)
class DatasetPlan:
    """What to run on one dataset: scaling, outer split, validation method and grid."""

    name: str
    scaling: str
    split: dict
    validation: dict
    grid: tuple


@dataclass
class Config:
    """A validated experiment config; ``resolved`` is the config with every default filled in."""

    path: Path
    name: str
    datasets: list
    schemes: list
    scheme_options: dict
    compare_to: str
    seed: int
    reference: dict
    resolved: dict = field(repr=False)

    def grid_size(self) -> int:
        """Grid points x schemes, summed over datasets (one outer fold); naive Bayes counts once."""
        return sum(self.points_per_fold(plan) for plan in self.datasets)

    def points_per_fold(self, plan) -> int:
        """Grid points x schemes of one dataset's outer fold (kernel-free schemes once)."""
        return sum(1 if scheme in KERNEL_FREE else len(plan.grid) for scheme in self.schemes)

    def plan(self, dataset: str) -> DatasetPlan:
        """The plan of one dataset of this config (a clear error if the config lacks it)."""
        for plan in self.datasets:
            if plan.name == dataset:
                return plan
        names = ", ".join(p.name for p in self.datasets)
        raise ConfigError(f"{self.path}: dataset {dataset!r} is not in this config; it has: {names}")


# --------------------------------------------------------------------------- YAML with line marks

class _Document:
    """A parsed YAML document plus the line of every key and list item, keyed by path tuple."""

    def __init__(self, path: Path):
        self.path = path
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ConfigError(f"config file {path} does not exist") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read config file {path}: {exc}") from None
        loader = yaml.SafeLoader(text)
        try:
            node = loader.get_single_node()
            self.data = loader.construct_document(node) if node is not None else None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"{path}:{mark.line + 1}" if mark else str(path)
            problem = getattr(exc, "problem", None) or str(exc)
            raise ConfigError(f"{where}: YAML syntax error: {problem}") from None
        finally:
            loader.dispose()
        self.lines = {}
        if node is not None:
            self._record(node, ())

    def _record(self, node, path):
        self.lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for key_node, value_node in node.value:
                key = key_node.value
                if key in seen:
                    self.fail(path, f"key {key!r} is given twice", line=key_node.start_mark.line + 1)
                seen.add(key)
                self.lines[path + (key,)] = key_node.start_mark.line + 1
                self._record(value_node, path + (key,))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self._record(item, path + (index,))

    def line(self, path) -> int:
        """The line of ``path``, or of its closest enclosing key."""
        path = tuple(path)
        while path not in self.lines and path:
            path = path[:-1]
        return self.lines.get(path, 1)

    def fail(self, path, message, line=None):
        """Raise the one-line error ``FILE:LINE: key.path: message``."""
        line = line or self.line(path)
        raise ConfigError(f"{self.path}:{line}: {_key_name(path)}: {message}")


def _key_name(path) -> str:
    name = ""
    for part in path:
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else str(part))
    return name or "(top level)"


def _allowed(values) -> str:
    return ", ".join(str(v) for v in values)


# --------------------------------------------------------------------------- value checks

def _mapping(doc, value, path, allowed):
    if not isinstance(value, dict):
        doc.fail(path, f"expected a mapping with keys {_allowed(allowed)}, got {_show(value)}")
    for key in value:
        if key not in allowed:
            doc.fail(path + (key,), f"unknown key {key!r}; allowed keys: {_allowed(allowed)}")
    return value


def _choice(doc, value, path, allowed, what="value"):
    if not isinstance(value, str) or value not in allowed:
        doc.fail(path, f"{_show(value)} is not a valid {what}; allowed: {_allowed(allowed)}")
    return value


def _number(doc, value, path, *, positive=False, integer=False, low=None, high=None):
    kind = "an integer" if integer else "a number"
    ok_type = isinstance(value, int) if integer else isinstance(value, (int, float))
    if isinstance(value, bool) or not ok_type or (not integer and not math.isfinite(value)):
        doc.fail(path, f"expected {kind}, got {_show(value)}")
    if positive and value <= 0:
        doc.fail(path, f"must be > 0, got {value}")
    if low is not None and not low < value:
        doc.fail(path, f"must be > {low}, got {value}")
    if high is not None and not value < high:
        doc.fail(path, f"must be < {high}, got {value}")
    return value


def _list(doc, value, path, check):
    """A non-empty list (a scalar counts as a list of one) whose items pass ``check``."""
    items = value if isinstance(value, list) else [value]
    if isinstance(value, dict) or value is None:
        doc.fail(path, f"expected a value or a list of values, got {_show(value)}")
    if not items:
        doc.fail(path, "must not be empty")
    checked = [check(item, path + (i,) if isinstance(value, list) else path)
               for i, item in enumerate(items)]
    if len(set(map(repr, checked))) != len(checked):
        doc.fail(path, f"has a repeated value: {_show(value)}")
    return checked


def _show(value) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return repr(value)


# --------------------------------------------------------------------------- sections

def _split(doc, value, path, seed):
    if isinstance(value, dict) and "method" not in value and "test_fraction" in value:
        value = {"method": "holdout", **value}
    return _section(doc, value, path, seed, SPLIT_FORMS, "split method",
                    "standard, {test_fraction: F, seed: S} or {method: kfold, k: K}")


def _validation(doc, value, path, seed):
    return _section(doc, value, path, seed, VALIDATION_FORMS, "validation method",
                    "{method: holdout|given|kfold, ...}")


def _section(doc, value, path, seed, forms, what, expected):
    """A ``{method: ..., own keys..., seed}`` mapping (or just the method's name)."""
    if isinstance(value, str):
        value = {"method": value}
    if not isinstance(value, dict):
        doc.fail(path, f"expected {expected}, got {_show(value)}")
    method = _choice(doc, value.get("method"), path + ("method",), tuple(forms), what)
    own = forms[method]
    _mapping(doc, value, path, ("method", *own, *(("seed",) if own else ())))
    section = {"method": method}
    for key, default in own.items():
        where = path + (key,)
        given = value.get(key, default)
        section[key] = (_folds(doc, given, where) if key == "k"
                        else _number(doc, given, where, low=0, high=1))
    if own:
        section["seed"] = _number(doc, value.get("seed", seed), path + ("seed",), integer=True)
    return section


def _folds(doc, value, path):
    k = _number(doc, value, path, integer=True)
    if k < 2:
        doc.fail(path, f"k-fold needs k >= 2, got {k}")
    return k


def _kernels(doc, value, path, C_values):
    """Expand the kernel entries and C values into the list of grid points."""
    if not isinstance(value, list) or not value:
        doc.fail(path, f"expected a non-empty list of kernels, got {_show(value)}")
    grid = []
    for i, entry in enumerate(value):
        where = path + (i,)
        if not isinstance(entry, dict):
            doc.fail(where, f"expected a mapping like {{type: gaussian, sigma: [1, 2]}}, "
                            f"got {_show(entry)}")
        kind = _choice(doc, entry.get("type"), where + ("type",), KERNEL_TYPES, "kernel type")
        _mapping(doc, entry, where, KERNEL_KEYS[kind])
        Cs = _C_list(doc, entry["C"], where + ("C",)) if "C" in entry else C_values
        for point in _kernel_points(doc, entry, where, kind):
            grid.extend(GridPoint(C=C, **point) for C in Cs)
    if len(set(grid)) != len(grid):
        doc.fail(path, "two kernel entries give the same grid point")
    return tuple(grid)


def _kernel_points(doc, entry, where, kind):
    if kind == "gaussian":
        if "sigma" not in entry:
            doc.fail(where, "a gaussian kernel needs sigma (a number > 0 or a list)")
        sigmas = _list(doc, entry["sigma"], where + ("sigma",),
                       lambda v, p: float(_number(doc, v, p, positive=True)))
        return [{"kernel": kind, "sigma": s} for s in sigmas]
    if kind == "polynomial":
        if "degree" not in entry:
            doc.fail(where, "a polynomial kernel needs degree (an integer >= 1 or a list)")
        degrees = _list(doc, entry["degree"], where + ("degree",),
                        lambda v, p: _number(doc, v, p, integer=True, positive=True))
        kinds = _list(doc, entry.get("homogeneous", False), where + ("homogeneous",),
                      lambda v, p: v if isinstance(v, bool)
                      else doc.fail(p, f"expected true or false, got {_show(v)}"))
        return [{"kernel": kind, "degree": d, "homogeneous": h} for d in degrees for h in kinds]
    return [{"kernel": "linear"}]


def _C_list(doc, value, path):
    return _list(doc, value, path, lambda v, p: float(_number(doc, v, p, positive=True)))


def _dataset_names(doc, value, path, known):
    """The dataset entries as (name, overrides dict, path) triples."""
    items = value if isinstance(value, list) else [value]
    if value is None or isinstance(value, list) and not value:
        doc.fail(path, "name at least one dataset; known: " + _allowed(known))
    entries = []
    for i, item in enumerate(items):
        where = path + (i,) if isinstance(value, list) else path
        overrides = {}
        if isinstance(item, dict):
            overrides = _mapping(doc, item, where, DATASET_KEYS)
            if "name" not in item:
                doc.fail(where, "a dataset mapping needs a name")
            item, name_path = item["name"], where + ("name",)
        else:
            name_path = where
        _choice(doc, item, name_path, known, "dataset")
        entries.append((item, overrides, where))
    names = [name for name, _, _ in entries]
    if len(set(names)) != len(names):
        doc.fail(path, f"a dataset is named twice: {_show(names)}")
    return entries


def _schemes(doc, value, path):
    return _list(doc, value, path,
                 lambda v, p: _choice(doc, v, p, SCHEME_NAMES, "scheme"))


def _scheme_options(doc, value, path, schemes):
    if value is None:
        return {}
    _mapping(doc, value, path, SCHEME_NAMES)
    options = {}
    for scheme, params in value.items():
        where = path + (scheme,)
        if scheme not in schemes:
            doc.fail(where, f"scheme {scheme!r} is not in schemes ({_allowed(schemes)})")
        allowed = _scheme_parameters(scheme)
        options[scheme] = dict(_mapping(doc, params, where, allowed))
        if scheme == "dag" and options[scheme].get("order") == "natural":
            options[scheme]["order"] = None
    return options


def _scheme_parameters(scheme):
    """The constructor parameters a config may set for a scheme (not the grid's own)."""
    from .estimators import SCHEMES

    names = SCHEMES[scheme]().get_params(deep=False)
    return tuple(sorted(name for name in names if name not in GRID_PARAMS))


def _reference(doc, value, path, datasets):
    if value is None:
        return {}
    if not isinstance(value, dict):
        doc.fail(path, f"expected a mapping dataset -> scheme -> numbers, got {_show(value)}")
    reference = {}
    for dataset, rows in value.items():
        where = path + (dataset,)
        if dataset == "source":
            if not isinstance(rows, str):
                doc.fail(where, f"expected a text, got {_show(rows)}")
            reference["source"] = rows
            continue
        if dataset not in datasets:
            doc.fail(where, f"dataset {dataset!r} is not in this config; allowed: "
                            f"source, {_allowed(datasets)}")
        if not isinstance(rows, dict):
            doc.fail(where, f"expected a mapping scheme -> numbers, got {_show(rows)}")
        reference[dataset] = {str(row): _reference_row(doc, numbers, where + (row,))
                              for row, numbers in rows.items()}
    return reference


def _reference_row(doc, numbers, path):
    _mapping(doc, numbers, path, REFERENCE_FIELDS)
    row = {}
    for key, number in numbers.items():
        if key == "kernel":
            row[key] = str(number)
        else:
            row[key] = _number(doc, number, path + (key,))
    return row


# --------------------------------------------------------------------------- entry point

def load_config(path, seed=None) -> Config:
    """Read and validate a config file; ``seed`` (the CLI's ``--seed``) replaces its ``seed``.

    Raises :class:`ConfigError` (one line: file, line, key, allowed values) on any problem.
    """
    from . import data

    path = Path(path)
    doc = _Document(path)
    raw = doc.data
    _mapping(doc, raw, (), TOP_KEYS)
    for key in ("dataset", "kernels", "C", "schemes"):
        if key not in raw:
            doc.fail((), f"missing key {key!r}; required keys: dataset, kernels, C, schemes")
    name = raw.get("name", path.stem)
    if not isinstance(name, str) or not name or "/" in name or name.startswith("."):
        doc.fail(("name",), f"expected a folder-safe name, got {_show(name)}")
    seed = _number(doc, raw.get("seed", 0), ("seed",), integer=True) if seed is None else seed
    schemes = _schemes(doc, raw["schemes"], ("schemes",))
    compare_to = _choice(doc, raw.get("compare_to", "dag"), ("compare_to",), SCHEME_NAMES,
                         "scheme")
    defaults = {key: raw[key] for key in ("scaling", "split", "validation", "kernels", "C")
                if key in raw}
    plans = [_plan(doc, name_, overrides, where, defaults, seed)
             for name_, overrides, where in _dataset_names(doc, raw["dataset"], ("dataset",),
                                                           data.names())]
    scheme_options = _scheme_options(doc, raw.get("scheme_options"), ("scheme_options",), schemes)
    reference = _reference(doc, raw.get("reference"), ("reference",), [p.name for p in plans])
    resolved = {"name": name, "seed": seed, "schemes": schemes, "compare_to": compare_to,
                "scheme_options": copy.deepcopy(scheme_options), "reference": reference,
                "datasets": [_plan_dict(plan) for plan in plans]}
    return Config(path=path, name=name, datasets=plans, schemes=schemes,
                  scheme_options=scheme_options, compare_to=compare_to, seed=seed,
                  reference=reference, resolved=resolved)


def _plan(doc, name, overrides, where, defaults, seed):
    """One dataset's plan: its overrides on top of the top-level values."""
    def pick(key):
        if key in overrides:
            return overrides[key], where + (key,)
        return defaults.get(key), (key,)

    scaling, path = pick("scaling")
    scaling = _choice(doc, scaling if scaling is not None else "paper", path, SCALINGS, "scaling")
    split, path = pick("split")
    split = _split(doc, split if split is not None else "standard", path, seed)
    validation, path = pick("validation")
    validation = _validation(doc, validation if validation is not None else "holdout", path, seed)
    C_values, C_path = pick("C")
    C_values = _C_list(doc, C_values, C_path)
    kernels, path = pick("kernels")
    grid = _kernels(doc, kernels, path, C_values)
    _check_parts(doc, name, split, validation, where)
    return DatasetPlan(name=name, scaling=scaling, split=split, validation=validation, grid=grid)


def _check_parts(doc, name, split, validation, where):
    """The split and validation methods must fit the parts the dataset comes with."""
    from . import data

    parts = set(data.get_card(name).parts)
    if split["method"] == "standard" and "test" not in parts:
        doc.fail(where, f"dataset {name!r} has no test part of its own (parts: "
                        f"{_allowed(sorted(parts))}); use split: {{test_fraction: 0.25}} or "
                        f"{{method: kfold, k: 10}}")
    if validation["method"] == "given" and ("validation" not in parts
                                            or split["method"] != "standard"):
        doc.fail(where, f"validation: given needs split: standard and a dataset with a "
                        f"validation part; {name!r} has parts {_allowed(sorted(parts))}")


def _plan_dict(plan: DatasetPlan) -> dict:
    return {"name": plan.name, "scaling": plan.scaling, "split": plan.split,
            "validation": plan.validation,
            "grid": [dict(point.params(), label=point.kernel_label()) for point in plan.grid]}
