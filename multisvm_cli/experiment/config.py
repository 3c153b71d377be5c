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
    estimate: nested                # [nested] nested | cv-best | [nested, cv-best] (see below)
    kernels:                        # every combination below is a grid point
      - {type: gaussian, sigma: [2, 4, 8]}   # or gamma: [...] (exactly one; gamma = 1/(2 sigma^2))
      - {type: polynomial, degree: [1, 2, 3], homogeneous: [true, false]}
      - {type: linear}
    C: [1, 10, 100]                 # a kernel entry may carry its own C list
    # C, sigma and gamma may be a range {base: 2, from: -2, to: 12[, step: 1]}: base**e for e
    # from ``from`` towards ``to`` by ``step`` (default 1 or -1), in that order; the resolved
    # config shows it expanded
    schemes: [ovr, maxwins, dag]    # ovr | maxwins | dag | udt | graph | hier | nb
    scheme_options: {graph: {threshold: 0.05}, dag: {order: natural}}
    compare_to: dag                 # [dag] the scheme McNemar's test compares the others with
    seed: 0                         # [0] default seed of split, validation and the estimators
    repeats: 1                      # [1] run the whole protocol N times, repeat r with split and
                                    #   validation seeds seed + r (error_sd: SD over folds x repeats)
    dag_orders: 0                   # [0] test the selected DAGSVM's pairwise SVMs under N random
                                    #   class orders (seeded by seed; no refit)
    reference:                      # optional: a paper's numbers, printed beside ours
      source: Platt et al. 1999, Table 1
      usps: {ovr: {sigma: 3.58, C: 100, error: 4.7, kernel_evaluations: 2936,
                   cpu_time: 3532, size_k: 760}}

A ``dataset`` list item may be a mapping ``{name: letter, split: ..., validation: ...,
scaling: ..., estimate: ..., kernels: ..., C: ...}`` overriding the top-level values for that
dataset.

``estimate`` says how the error is measured: ``nested`` (each outer fold's point is chosen on
that fold's training part only and tested once on its test part: an honest estimate), or
``cv-best`` (Hsu & Lin 2002, as the UDT paper reports: every grid point's k-fold
cross-validation error on the outer folds, pooled; the lowest one is both chosen and reported,
optimistic by construction; needs ``split: {method: kfold}``), or both as a list.

Ties on validation error go to the simpler model, whatever the grid's order (see
``GridPoint.simplicity``): smaller C, then a linear before a polynomial before a Gaussian
kernel, then the lower degree (homogeneous first), then the wider Gaussian (smaller gamma).

A mapping with ``path`` names a local data file instead of a registry dataset (see
:mod:`multisvm_cli.data.local`)::

    dataset:
      - {name: mydigits, path: data/digits.csv, label: target}      # csv: label name or index
      - {name: pen, path: data/pendigits, test_path: data/pendigits.t, format: svmlight}

``format`` is csv, svmlight or npz (from the extension when absent); ``label`` (csv: column
name or 0-based index, default the last) and ``header`` (csv: true/false, detected when absent),
``zero_based`` (svmlight, default false). Paths are relative to the config file; the resolved
config writes them absolute. Without ``test_path`` there is no fixed split (use
``split: {test_fraction: ...}`` or k-fold). ``scaling: paper`` means none for local data.
Sparse data (svmlight files and cards) refuses the scalings that center (minmax, standard,
standard-continuous): use maxabs or none.
"""

from __future__ import annotations

import copy
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..errors import MultisvmError
from ..estimators.options import OPTIONS, check_C
from ..estimators.registry import REGISTRY, SCHEME_NAMES
from ..kernels import KERNEL_NAMES, Kernel
from ..scaling import METHODS as SCALINGS

KERNEL_TYPES = KERNEL_NAMES
TOP_KEYS = ("name", "dataset", "scaling", "split", "validation", "kernels", "C", "schemes",
            "scheme_options", "compare_to", "seed", "reference", "max_grid_points", "repeats",
            "dag_orders", "estimate")
DATASET_KEYS = ("name", "scaling", "split", "validation", "estimate", "kernels", "C")
LOCAL_KEYS = ("path", "test_path", "format", "label", "header", "zero_based")
LOCAL_FORMAT_KEYS = {"label": "csv", "header": "csv", "zero_based": "svmlight"}
ESTIMATES = ("nested", "cv-best")
RANGE_KEYS = ("base", "from", "to", "step")
KERNEL_ORDER = {"linear": 0, "polynomial": 1, "gaussian": 2}  # simpler first (ties)
KERNEL_KEYS = {"gaussian": ("type", "sigma", "gamma", "C"),
               "polynomial": ("type", "degree", "homogeneous", "C"),
               "linear": ("type", "C")}
SPLIT_FORMS = {"standard": {}, "holdout": {"test_fraction": 0.25}, "kfold": {"k": 10}}
VALIDATION_FORMS = {"holdout": {"train_fraction": 0.7}, "given": {}, "kfold": {"k": 10}}
REFERENCE_FIELDS = ("kernel", "sigma", "degree", "C", "error", "kernel_evaluations",
                    "cpu_time", "size_k")
MAX_CONFIG_BYTES = 1 << 20      # a config is a page of YAML, not a megabyte
MAX_YAML_NODES = 100_000        # values after expanding aliases (an alias bomb stops here)
MAX_GRID_POINTS = 10_000        # per dataset; raise it on purpose with max_grid_points
SEED_RANGE = (0, 2**32 - 1)     # what numpy and scikit-learn take as a random_state
MAX_REPEATS = 1000              # repeats of the whole protocol
MAX_DAG_ORDERS = 100_000        # random class orders of the DAG order study
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")  # a portable folder name


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
    gamma: float | None = None  # a Gaussian given by gamma (then sigma is None)

    def params(self) -> dict:
        """The estimator keyword arguments of this point (only those the kernel uses), in the
        user's terms: ``sigma`` or ``gamma`` as the config gave it."""
        params = {"kernel": self.kernel, "C": self.C}
        if self.kernel == "gaussian":
            params.update({"gamma": self.gamma} if self.gamma is not None
                          else {"sigma": self.sigma})
        if self.kernel == "polynomial":
            params.update(degree=self.degree, homogeneous=self.homogeneous)
        return params

    def kernel_label(self) -> str:
        """How Table 1 names the kernel: ``gaussian sigma=4``, ``polynomial d=3 homogeneous``."""
        if self.kernel == "gaussian":
            if self.gamma is not None:
                return f"gaussian gamma={self.gamma:g}"
            return f"gaussian sigma={self.sigma:g}"
        if self.kernel == "polynomial":
            kind = "homogeneous" if self.homogeneous else "inhomogeneous"
            return f"polynomial d={self.degree} {kind}"
        return "linear"

    def simplicity(self) -> tuple:
        """The tie-break key (smaller is simpler), independent of the grid's order: smaller C,
        then linear < polynomial < Gaussian, then the lower degree (homogeneous before
        inhomogeneous), then the wider Gaussian (smaller gamma = 1/(2 sigma^2), i.e. larger
        sigma)."""
        gamma = 0.0
        if self.kernel == "gaussian":
            gamma = self.gamma if self.gamma is not None else 1.0 / (2.0 * self.sigma ** 2)
        return (self.C, KERNEL_ORDER[self.kernel], self.degree or 0, not self.homogeneous,
                gamma)


@dataclass(frozen=True)
class Location:
    """Where a key was written in a config: a check that runs later (against the data) names
    it as ``file:line: key: message``."""

    path: Path
    line: int
    key: str

    def error(self, message) -> "ConfigError":
        return ConfigError(f"{self.path}:{self.line}: {self.key}: {message}")


@dataclass(frozen=True)
class DatasetPlan:
    """What to run on one dataset: scaling, outer split, validation method and grid."""

    name: str
    scaling: str
    split: dict
    validation: dict
    grid: tuple
    estimate: tuple = ("nested",)  # nested and/or cv-best, as in ESTIMATES
    # where each section was written: key -> (file, line, key path), for errors found later
    where: dict = field(default_factory=dict, compare=False, repr=False)
    # a local data file's data.LocalSpec (None: a registry dataset)
    local: object = None


@dataclass
class Config:
    """A validated experiment config.

    ``original_text`` is the file as the user wrote it; ``resolved`` is the same experiment
    with every default filled in and every grid point explicit, itself a valid config
    (:meth:`resolved_text`): it validates and runs to the same table.
    """

    path: Path
    name: str
    datasets: list
    schemes: list
    scheme_options: dict
    compare_to: str
    seed: int
    reference: dict
    resolved: dict = field(repr=False)
    original_text: str = field(default="", repr=False)
    repeats: int = 1        # the whole protocol N times, split/validation seeds seed + r
    dag_orders: int = 0     # random class orders of the DAG order study (0: none)

    def resolved_text(self) -> str:
        """The resolved config as YAML (a comment says where it comes from)."""
        header = (f"# {self.name}: resolved from {self.path} (defaults filled in, every grid "
                  f"point explicit)\n")
        return header + yaml.safe_dump(self.resolved, sort_keys=False, default_flow_style=None)

    def families(self) -> list:
        """The schemes grouped by training: a scheme that reads another's machines (DAGSVM)
        is trained with it when both are run."""
        readers = {s for s in self.schemes if REGISTRY[s].trained_with in self.schemes}
        return [[s] + [r for r in readers if REGISTRY[r].trained_with == s]
                for s in self.schemes if s not in readers]

    def points_per_fold(self, plan) -> int:
        """Grid points x schemes of one dataset's outer fold (kernel-free schemes once)."""
        return sum(1 if REGISTRY[s].kernel_free else len(plan.grid) for s in self.schemes)

    def grid_size(self) -> int:
        """Grid points x schemes, summed over datasets (one outer fold); naive Bayes counts once."""
        return sum(self.points_per_fold(plan) for plan in self.datasets)

    def fits(self, plan) -> dict:
        """How many fits ``plan`` takes: outer folds x validation splits x (grid points of
        each scheme family, once for kernel-free ones) for selection, and outer folds x
        families for the final fits (Max Wins and DAGSVM count once: they share their fits)."""
        folds = plan.split.get("k", 1)
        splits = plan.validation.get("k", 1)
        families = self.families()
        points = sum(1 if REGISTRY[f[0]].kernel_free else len(plan.grid) for f in families)
        nested = "nested" in plan.estimate
        cv_best = folds * points + folds * len(families) if "cv-best" in plan.estimate else 0
        return {"repeats": self.repeats, "outer_folds": folds, "validation_splits": splits,
                "families": len(families), "points": points,
                "selection": self.repeats * folds * splits * points if nested else 0,
                "final": self.repeats * folds * len(families) if nested else 0,
                "cv_best": self.repeats * cv_best}

    def plan(self, dataset: str) -> DatasetPlan:
        """The plan of one dataset of this config (a clear error if the config lacks it)."""
        for plan in self.datasets:
            if plan.name == dataset:
                return plan
        names = ", ".join(p.name for p in self.datasets)
        raise ConfigError(f"{self.path}: dataset {dataset!r} is not in this config; it has: {names}")


def summary(config) -> str:
    """What ``multisvm validate`` prints under the resolved config: per dataset its grid and
    its true number of fits, then the totals."""
    lines, total = [], 0
    for plan in config.datasets:
        fits = config.fits(plan)
        total += fits["selection"] + fits["final"] + fits["cv_best"]
        families = " + ".join("/".join(REGISTRY[s].label for s in family)
                              for family in config.families())
        repeats = f"{fits['repeats']} repeats x " if fits["repeats"] > 1 else ""
        parts = []
        if "nested" in plan.estimate:
            parts.append(f"{repeats}{fits['outer_folds']} outer fold(s) x "
                         f"{fits['validation_splits']} validation split(s) x {fits['points']} "
                         f"points over {fits['families']} scheme families ({families}) = "
                         f"{fits['selection']} selection fits, + {fits['final']} final fits")
        if "cv-best" in plan.estimate:
            parts.append(f"cv-best: {repeats}{fits['outer_folds']} folds x {fits['points']} "
                         f"points + {fits['outer_folds'] * fits['families']} fits at the chosen "
                         f"points = {fits['cv_best']} fits (chosen and reported on the same folds)")
        lines.append(f"# {plan.name}: {len(plan.grid)} grid points; " + "; ".join(parts))
    lines.append("# ties on validation error go to the simpler model whatever the grid's order: "
                 "smaller C, then linear < polynomial < gaussian, lower degree, wider gaussian "
                 "(smaller gamma); results.json counts the tied points of every selection")
    lines.append(f"# {config.path}: valid; {config.grid_size()} grid points x schemes per "
                 f"outer fold; {total} fits in all")
    return "\n".join(lines)


# --------------------------------------------------------------------------- YAML with line marks

def _read_text(path: Path) -> str:
    """The config file's text: a regular file of at most MAX_CONFIG_BYTES UTF-8 bytes."""
    try:
        if not path.is_file():
            if path.exists():
                raise ConfigError(f"config {path} is not a regular file")
            raise ConfigError(f"config file {path} does not exist")
        with open(path, "rb") as stream:
            raw = stream.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"config {path} is larger than {MAX_CONFIG_BYTES // 1024} KB; a config "
                          f"is a page of YAML")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"config {path} is not UTF-8 text ({exc.reason} at byte "
                          f"{exc.start})") from None


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2 (core schema) numbers: ``1e2`` is a number, ``1:30``
    a string (YAML 1.1 read it as the base-60 integer 90), ``010`` is ten."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers
            if tag not in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_INT_12 = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT_12 = re.compile(r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                       r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")
_Loader.add_implicit_resolver("tag:yaml.org,2002:int", _INT_12, list("-+0123456789"))
_Loader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT_12, list("-+0123456789."))


def _construct_int(loader, node):
    text = loader.construct_scalar(node)
    return int(text, 0) if text[:2] in ("0o", "0x") else int(text, 10)


def _construct_float(loader, node):
    text = loader.construct_scalar(node).lower()
    return float(text.replace(".inf", "inf").replace(".nan", "nan"))


_Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_Loader.add_constructor("tag:yaml.org,2002:float", _construct_float)


class _Document:
    """A parsed YAML document plus the line of every key and list item, keyed by path tuple.

    What a config may cost is bounded before it is built: at most :data:`MAX_CONFIG_BYTES`
    bytes, :data:`MAX_YAML_NODES` values once aliases are expanded, and a nesting depth the
    parser can take; beyond that the config is refused with one line.
    """

    def __init__(self, path: Path):
        self.path = path
        self.text = _read_text(path)
        loader = _Loader(self.text)
        try:
            node = loader.get_single_node()
            self.data = loader.construct_document(node) if node is not None else None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"{path}:{mark.line + 1}" if mark else str(path)
            problem = getattr(exc, "problem", None) or str(exc)
            raise ConfigError(f"{where}: YAML syntax error: {problem}") from None
        except RecursionError:
            raise ConfigError(f"{path}: nested too deeply to be a config") from None
        finally:
            loader.dispose()
        self.lines = {}
        self.budget = MAX_YAML_NODES
        if node is not None:
            try:
                self._record(node, ())
            except RecursionError:
                raise ConfigError(f"{path}: nested too deeply to be a config") from None

    def _record(self, node, path):
        self.budget -= 1
        if self.budget < 0:
            raise ConfigError(f"{self.path}: more than {MAX_YAML_NODES} values once aliases are "
                              f"expanded; a config is not that large (an alias bomb?)")
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
    if isinstance(value, dict) and value.keys() & {"base", "from", "to"}:
        value = _range(doc, value, path)
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


def _range(doc, value, path) -> list:
    """The values of a range ``{base: B, from: E0, to: E1, step: S}``: B**e for e = E0, E0 + S,
    ... while e has not passed E1 (S defaults to 1, or -1 when E1 < E0), in that order.  Refused
    when empty (S pointing away from E1), when S is 0, or when a value is not a finite number
    > 0 (base <= 0, or an overflow)."""
    _mapping(doc, value, path, RANGE_KEYS)
    for key in ("base", "from", "to"):
        if key not in value:
            doc.fail(path, f"a range needs base, from and to, e.g. {{base: 2, from: -2, to: 12}}; "
                           f"missing {key!r}")
    base = _number(doc, value["base"], path + ("base",), positive=True)
    start = _number(doc, value["from"], path + ("from",))
    stop = _number(doc, value["to"], path + ("to",))
    step = _number(doc, value.get("step", 1 if stop >= start else -1), path + ("step",))
    count = _range_count(start, stop, step)
    if step == 0 or count < 1:
        doc.fail(path, f"the range from {start} to {stop} by step {step} is empty")
    if count > MAX_GRID_POINTS:
        doc.fail(path, f"the range has {count} values, more than {MAX_GRID_POINTS}")
    values = []
    for i in range(count):
        try:
            number = float(base) ** (start + i * step)
        except OverflowError:
            number = math.inf
        if not math.isfinite(number) or number <= 0:
            doc.fail(path, f"{base} ** {start + i * step} is not a finite number > 0; "
                           f"narrow the range")
        values.append(number)
    return values


def _range_count(start, stop, step) -> int:
    """How many exponents a range has (0 when empty or step is 0)."""
    if not step or (stop - start) / step < 0:
        return 0
    return int(math.floor((stop - start) / step + 1e-9)) + 1


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
        section["seed"] = _seed(doc, value.get("seed", seed), path + ("seed",))
    return section


def _seed(doc, value, path):
    """A seed: an integer in SEED_RANGE (what numpy and scikit-learn take)."""
    seed = _number(doc, value, path, integer=True)
    low, high = SEED_RANGE
    if not low <= seed <= high:
        doc.fail(path, f"a seed must be an integer from {low} to {high}, got {seed}")
    return seed


def _folds(doc, value, path):
    k = _number(doc, value, path, integer=True)
    if k < 2:
        doc.fail(path, f"k-fold needs k >= 2, got {k}")
    return k


def _kernels(doc, value, path, C_values, max_points):
    """Expand the kernel entries and C values into the list of grid points (at most
    ``max_points``: the count is checked before the points are built)."""
    if not isinstance(value, list) or not value:
        doc.fail(path, f"expected a non-empty list of kernels, got {_show(value)}")
    _check_grid_size(doc, value, path, C_values, max_points)
    grid = []
    for i, entry in enumerate(value):
        where = path + (i,)
        if not isinstance(entry, dict):
            doc.fail(where, f"expected a mapping like {{type: gaussian, sigma: [1, 2]}}, "
                            f"got {_show(entry)}")
        kind = _choice(doc, entry.get("type"), where + ("type",), KERNEL_TYPES, "kernel type")
        _mapping(doc, entry, where, KERNEL_KEYS[kind])
        Cs = _C_list(doc, entry["C"], where + ("C",)) if "C" in entry else C_values
        if Cs is None:
            doc.fail((), "missing key 'C'; required keys: dataset, kernels, C, schemes "
                         "(or a C list in every kernel entry)")
        for point in _kernel_points(doc, entry, where, kind):
            grid.extend(GridPoint(C=C, **point) for C in Cs)
    if len(set(grid)) != len(grid):
        doc.fail(path, "two kernel entries give the same grid point")
    return tuple(grid)


def _check_grid_size(doc, entries, path, C_values, max_points):
    """Refuse a grid of more than ``max_points`` points before building it."""
    def count(value):
        if isinstance(value, dict):  # a range: its size if well formed (checked later)
            numbers = [value.get(k) for k in ("from", "to", "step")]
            numbers[2] = numbers[2] if numbers[2] is not None else 1
            if all(isinstance(n, (int, float)) and not isinstance(n, bool)
                   and math.isfinite(n) for n in numbers):
                start, stop, step = numbers
                return _range_count(start, stop, step if value.get("step") is not None
                                    else (1 if stop >= start else -1))
            return 1
        return len(value) if isinstance(value, list) else 1

    total = 0
    for entry in entries:
        if isinstance(entry, dict):
            values = [count(entry.get(key, 1))
                      for key in ("sigma", "gamma", "degree", "homogeneous")]
            total += math.prod(values) * count(entry.get("C", C_values or []))
    if total > max_points:
        doc.fail(path, f"the grid has {total} points, more than max_grid_points = {max_points}; "
                       f"set max_grid_points higher on purpose to run it")


def _kernel_points(doc, entry, where, kind):
    """The kernel parameter sets of one entry, each checked by ``Kernel.from_params`` (the
    check the estimators run: a value that would overflow the kernel is refused here)."""
    points = _kernel_values(doc, entry, where, kind)
    for point in points:
        key = next((k for k in ("sigma", "gamma", "degree") if k in point), "type")
        try:
            Kernel.from_params(**point)
        except ValueError as exc:
            doc.fail(where + (key,), str(exc))
    return points


def _kernel_values(doc, entry, where, kind):
    if kind == "gaussian":
        given = [key for key in ("sigma", "gamma") if key in entry]
        if len(given) != 1:
            doc.fail(where, "a gaussian kernel needs exactly one of sigma or gamma (a number > 0, "
                            "a list or a range; gamma = 1/(2 sigma^2))")
        key = given[0]
        values = _list(doc, entry[key], where + (key,),
                       lambda v, p: float(_number(doc, v, p, positive=True)))
        return [{"kernel": kind, key: v} for v in values]
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
    """A list of C values, each checked as the estimators check C (``check_C``)."""
    def one(v, p):
        C = float(_number(doc, v, p, positive=True))
        try:
            check_C(C)
        except ValueError as exc:
            doc.fail(p, str(exc))
        return C

    return _list(doc, value, path, one)


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
            overrides = _mapping(doc, item, where, DATASET_KEYS + LOCAL_KEYS)
            if "path" in item:
                entries.append((_local_name(doc, item, where, known), overrides, where))
                continue
            if "name" not in item:
                doc.fail(where, "a dataset mapping needs a name (a registry dataset) or a path "
                                "(a local data file)")
            for key in LOCAL_KEYS:
                if key in item:
                    doc.fail(where + (key,), f"{key} is for a local data file: add path")
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
    """``scheme_options`` as estimator keyword arguments, each value checked by the registry's
    option table (the estimators' own check). A DAG ``order: natural`` becomes None."""
    if value is None:
        return {}
    _mapping(doc, value, path, SCHEME_NAMES)
    options = {}
    for scheme, params in value.items():
        where = path + (scheme,)
        if scheme not in schemes:
            doc.fail(where, f"scheme {scheme!r} is not in schemes ({_allowed(schemes)})")
        options[scheme] = dict(_mapping(doc, params, where, REGISTRY[scheme].options))
        for name, given in options[scheme].items():
            if name == "order" and given == "natural":
                options[scheme][name] = given = None
            try:
                OPTIONS[name].check(name, given)
            except ValueError as exc:
                doc.fail(where + (name,), f"{exc}; allowed: {OPTIONS[name].allowed}")
    return options


def _local_name(doc, item, where, known):
    """A local dataset's name: as given (default: the file's stem), folder-safe, and not the
    name of a registry or user-card dataset."""
    path = item["path"]
    name = item.get("name", Path(path).stem if isinstance(path, str) else None)
    name_path = where + (("name",) if "name" in item else ("path",))
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        doc.fail(name_path, f"expected a folder-safe dataset name (letters, digits, '.', '_', "
                            f"'-'), got {_show(name)}")
    if name in known:
        doc.fail(name_path, f"{name!r} is a registry dataset; give the local data another name")
    return name


def _local_spec(doc, name, entry, where):
    """The data.LocalSpec of a local dataset entry: files exist (relative to the config's
    folder), the format is known or inferred, the read options fit it."""
    from .. import data
    from ..data.local import FORMATS, infer_format

    paths = {key: _local_file(doc, entry[key], where + (key,))
             for key in ("path", "test_path") if key in entry}
    if "format" in entry:
        fmt = _choice(doc, entry["format"], where + ("format",), FORMATS, "format")
    else:
        fmt = infer_format(paths["path"])
        if fmt is None:
            doc.fail(where + ("path",), f"cannot tell the format of {paths['path'].name} from "
                                        f"its extension; add format: {_allowed(FORMATS)}")
    for key, needs in LOCAL_FORMAT_KEYS.items():
        if key in entry and fmt != needs:
            doc.fail(where + (key,), f"{key} is for {needs} files, not {fmt}")
    label = entry.get("label")
    if "label" in entry and (isinstance(label, bool) or not isinstance(label, (str, int))):
        doc.fail(where + ("label",), f"expected a column name or a 0-based index, got "
                                     f"{_show(label)}")
    for key in ("header", "zero_based"):
        if key in entry and not isinstance(entry[key], bool):
            doc.fail(where + (key,), f"expected true or false, got {_show(entry[key])}")
    return data.LocalSpec(name=name, path=paths["path"], format=fmt,
                          test_path=paths.get("test_path"), label=label,
                          header=entry.get("header"),
                          zero_based=bool(entry.get("zero_based", False)))


def _local_file(doc, value, path):
    """An existing file, relative to the config's folder; absolute."""
    if not isinstance(value, str) or not value:
        doc.fail(path, f"expected a file path, got {_show(value)}")
    file = (doc.path.parent / Path(value).expanduser()).resolve()
    if not file.is_file():
        doc.fail(path, f"file {value} not found (looked for {file}; paths are relative to the "
                       f"config's folder)")
    return file


def _check_sparse_scaling(doc, name, local, scaling, path):
    """Sparse data (svmlight) cannot take a centering scaling: one line naming maxabs."""
    from .. import data
    from ..scaling import check_sparse, resolve

    if local is not None:
        sparse, resolved = local.sparse, "none" if scaling == "paper" else scaling
    else:
        card = data.get_card(name)
        sparse = all(src.format == "svmlight" for src in card.sources)
        resolved = resolve(scaling, card)
    if sparse:
        try:
            check_sparse(resolved, f"{name} (svmlight)")
        except ValueError as exc:
            doc.fail(path, str(exc))


def _check_order(doc, options, plan, where):
    """A DAG class order must list every class of the dataset exactly once."""
    from .. import data

    order = options.get("dag", {}).get("order")
    if order is None or plan.local is not None:
        return
    classes = list(data.get_card(plan.name).classes)
    if sorted(map(repr, order)) != sorted(map(repr, classes)):
        doc.fail(where, f"order must list every class of {plan.name} once: {_show(classes)}")


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
    These are all the checks that need no data; :func:`.validation.check_plan` adds
    those that need the dataset's labels (split sizes against class counts).
    """
    from .. import data

    path = Path(path)
    doc = _Document(path)
    raw = doc.data
    _mapping(doc, raw, (), TOP_KEYS)
    for key in ("dataset", "schemes"):
        if key not in raw:
            doc.fail((), f"missing key {key!r}; required keys: dataset, kernels, C, schemes")
    name = raw.get("name", path.stem)
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        doc.fail(("name",), f"expected a folder-safe name (letters, digits, '.', '_', '-', at "
                            f"most 100, not starting with '.' or '-'), got {_show(name)}")
    seed = _seed(doc, raw.get("seed", 0), ("seed",)) if seed is None else seed
    schemes = _schemes(doc, raw["schemes"], ("schemes",))
    compare_to = _compare_to(doc, raw, schemes)
    max_points = (_number(doc, raw["max_grid_points"], ("max_grid_points",), integer=True,
                          positive=True) if "max_grid_points" in raw else MAX_GRID_POINTS)
    defaults = {key: raw[key] for key in ("scaling", "split", "validation", "kernels", "C",
                                          "estimate") if key in raw}
    entries = _dataset_names(doc, raw["dataset"], ("dataset",), data.names())
    if "kernels" not in raw and any("kernels" not in overrides for _, overrides, _ in entries):
        doc.fail((), "missing key 'kernels'; required keys: dataset, kernels, C, schemes")
    plans = [_plan(doc, name_, overrides, where, defaults, seed, max_points)
             for name_, overrides, where in entries]
    scheme_options = _scheme_options(doc, raw.get("scheme_options"), ("scheme_options",), schemes)
    for plan, (_, _, where) in zip(plans, entries):
        _check_order(doc, scheme_options, plan, ("scheme_options", "dag", "order"))
    reference = _reference(doc, raw.get("reference"), ("reference",), [p.name for p in plans])
    repeats = _repeats(doc, raw, plans)
    dag_orders = _dag_orders(doc, raw, schemes)
    resolved = _resolved(name, seed, schemes, compare_to, scheme_options, reference, plans,
                         raw.get("max_grid_points"))
    resolved.update(repeats=repeats, dag_orders=dag_orders)
    return Config(path=path, name=name, datasets=plans, schemes=schemes,
                  scheme_options=scheme_options, compare_to=compare_to, seed=seed,
                  reference=reference, resolved=resolved, original_text=doc.text,
                  repeats=repeats, dag_orders=dag_orders)


def _repeats(doc, raw, plans):
    """``repeats``: an integer in [1, MAX_REPEATS]; repeat r uses split and validation seeds
    seed + r, so every seed must stay in SEED_RANGE and some dataset must have a seeded split
    or validation (a standard split with given validation would repeat the same run)."""
    if "repeats" not in raw:
        return 1
    path = ("repeats",)
    repeats = _number(doc, raw["repeats"], path, integer=True, positive=True)
    if repeats > MAX_REPEATS:
        doc.fail(path, f"must be at most {MAX_REPEATS}, got {repeats}")
    for plan in plans:
        for section in (plan.split, plan.validation):
            if "seed" in section and section["seed"] + repeats - 1 > SEED_RANGE[1]:
                doc.fail(path, f"{plan.name}: seed {section['seed']} + {repeats - 1} repeats "
                               f"passes the largest seed {SEED_RANGE[1]}; lower the seed")
        if repeats > 1 and "seed" not in plan.split and "seed" not in plan.validation:
            doc.fail(path, f"{plan.name}: a standard split with given validation has no seed, "
                           f"so every repeat would be the same run; use repeats: 1 or a "
                           f"holdout or k-fold validation")
    return repeats


def _dag_orders(doc, raw, schemes):
    """``dag_orders``: an integer in [0, MAX_DAG_ORDERS]; more than 0 needs the dag scheme."""
    if "dag_orders" not in raw:
        return 0
    path = ("dag_orders",)
    orders = _number(doc, raw["dag_orders"], path, integer=True)
    if not 0 <= orders <= MAX_DAG_ORDERS:
        doc.fail(path, f"must be an integer from 0 to {MAX_DAG_ORDERS}, got {orders}")
    if orders and "dag" not in schemes:
        doc.fail(path, f"the DAG order study needs the dag scheme; add dag to schemes "
                       f"({_allowed(schemes)}) or set dag_orders: 0")
    return orders


def _compare_to(doc, raw, schemes):
    """The scheme McNemar's test compares the others with: as given (it must be run), else
    DAGSVM when it is run, else the first scheme."""
    if "compare_to" not in raw:
        return "dag" if "dag" in schemes else schemes[0]
    compare_to = _choice(doc, raw["compare_to"], ("compare_to",), SCHEME_NAMES, "scheme")
    if compare_to not in schemes:
        doc.fail(("compare_to",), f"scheme {compare_to!r} is not run; choose one of the "
                                  f"schemes: {_allowed(schemes)}")
    return compare_to


def _plan(doc, name, overrides, where, defaults, seed, max_points):
    """One dataset's plan: its overrides on top of the top-level values."""
    def pick(key):
        if key in overrides:
            return overrides[key], where + (key,)
        return defaults.get(key), (key,)

    local = _local_spec(doc, name, overrides, where) if "path" in overrides else None
    scaling, path = pick("scaling")
    scaling = _choice(doc, scaling if scaling is not None else "paper", path, SCALINGS, "scaling")
    _check_sparse_scaling(doc, name, local, scaling, path)
    split, path = pick("split")
    split = _split(doc, split if split is not None else "standard", path, seed)
    written = {"split": path}
    validation, path = pick("validation")
    validation = _validation(doc, validation if validation is not None else "holdout", path, seed)
    written["validation"] = path
    estimate, path = pick("estimate")
    estimate = _estimate(doc, estimate if estimate is not None else "nested", path, split)
    C_values, C_path = pick("C")
    C_values = None if C_values is None else _C_list(doc, C_values, C_path)
    kernels, path = pick("kernels")
    grid = _kernels(doc, kernels, path, C_values, max_points)
    _check_parts(doc, name, split, validation, where, local.parts if local else None)
    located = {key: Location(doc.path, doc.line(at), _key_name(at)) for key, at in written.items()}
    return DatasetPlan(name=name, scaling=scaling, split=split, validation=validation, grid=grid,
                       estimate=estimate, where=located, local=local)


def _estimate(doc, value, path, split):
    """``estimate``: nested, cv-best or a list of both, as a tuple in ESTIMATES order; cv-best
    needs a k-fold outer split (it is a k-fold cross-validation error)."""
    chosen = _list(doc, value, path, lambda v, p: _choice(doc, v, p, ESTIMATES, "estimate"))
    if "cv-best" in chosen and split["method"] != "kfold":
        doc.fail(path, f"estimate cv-best is a k-fold cross-validation error: it needs split: "
                       f"{{method: kfold, k: K}}, not {split['method']}")
    return tuple(e for e in ESTIMATES if e in chosen)


def _resolved(name, seed, schemes, compare_to, scheme_options, reference, plans, max_points):
    """The config with every default filled in and every grid point explicit: a valid config
    document that gives the same experiment (same grid, same order, same seeds)."""
    options = copy.deepcopy(scheme_options)
    if "order" in options.get("dag", {}) and options["dag"]["order"] is None:
        options["dag"]["order"] = "natural"
    resolved = {"name": name, "seed": seed, "schemes": list(schemes), "compare_to": compare_to,
                "scheme_options": options,
                "dataset": [_plan_dict(plan) for plan in plans]}
    if max_points is not None:
        resolved["max_grid_points"] = max_points
    if reference:
        resolved["reference"] = reference
    return resolved


def _check_parts(doc, name, split, validation, where, parts=None):
    """The split and validation methods must fit the parts the dataset comes with (``parts``:
    a local dataset's; default: the card's)."""
    from .. import data

    parts = set(parts or data.get_card(name).parts)
    if split["method"] == "standard" and "test" not in parts:
        doc.fail(where, f"dataset {name!r} has no test part of its own (parts: "
                        f"{_allowed(sorted(parts))}); use split: {{test_fraction: 0.25}} or "
                        f"{{method: kfold, k: 10}}")
    if validation["method"] == "given" and ("validation" not in parts
                                            or split["method"] != "standard"):
        doc.fail(where, f"validation: given needs split: standard and a dataset with a "
                        f"validation part; {name!r} has parts {_allowed(sorted(parts))}")


def _plan_dict(plan: DatasetPlan) -> dict:
    """A dataset entry of the resolved config: its grid as one kernel entry per kernel (in grid
    order), each with its own C list."""
    kernels = []
    for point in plan.grid:
        params = point.params()
        params.pop("C")
        entry = {"type": params.pop("kernel"), **params}
        if kernels and {k: v for k, v in kernels[-1].items() if k != "C"} == entry:
            kernels[-1]["C"].append(point.C)
        else:
            kernels.append({**entry, "C": [point.C]})
    estimate = list(plan.estimate) if len(plan.estimate) > 1 else plan.estimate[0]
    local = plan.local.entry() if plan.local is not None else {}
    return {"name": plan.name, **local, "scaling": plan.scaling, "split": plan.split,
            "validation": plan.validation, "estimate": estimate, "kernels": kernels}
