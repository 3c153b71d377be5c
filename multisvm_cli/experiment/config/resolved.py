"""A validated config: the :class:`Config`, its per-dataset plans, what the protocol takes of
it (:class:`Study`), its fit counts, and the resolved document (every default filled in, every
grid point explicit)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import yaml

from ...estimators.registry import kernel_free, label, scheme_groups
from .document import ConfigError
from .checks import did_you_mean


class KeyValues:
    """One value per key of the table (:data:`.keys.KEYS`), kept in ``values`` by each key's
    field name and read as attributes (``config.seed``, ``plan.split``): a key added to the
    table is a value here with no other edit. The constructor takes the keys' values as keyword
    arguments beside ``values``, so ``dataclasses.replace(plan, split=...)`` replaces one."""

    def __getattr__(self, name):
        values = self.__dict__.get("values")  # not yet set while unpickling
        if values is not None and name in values:
            return values[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _set(self, fixed, values, given):
        """Set the fixed fields and ``values`` updated with the ``given`` keys' values."""
        for name, value in {**fixed, "values": {**(values or {}), **given}}.items():
            object.__setattr__(self, name, value)


@dataclass(frozen=True, init=False)
class DatasetPlan(KeyValues):
    """What to run on one dataset: its name, its local file's spec, and the value of each
    per-dataset key (:func:`.keys.written_at` DATASET: scaling, split, validation, grid, estimate,
    features, solver, max_iter, ...; the defaults of what a config leaves out are the key
    table's)."""

    name: str
    # a local data file's data.LocalSpec (None: a registry dataset)
    local: object
    values: dict
    # where each section was written: key -> (file, line, key path), for errors found later
    where: dict = field(compare=False, repr=False)

    def __init__(self, *, name, local=None, values=None, where=None, **keys):
        self._set({"name": name, "local": local, "where": {} if where is None else where},
                  values, keys)

    def options(self, scheme_options, schemes) -> dict:
        """The estimators' keyword arguments per scheme on this dataset: ``scheme_options``
        with this plan's ``max_iter`` where a scheme sets none of its own (the default,
        libsvm's bound, is the estimators' own and left out: resume-cache keys stay as they
        were)."""
        if self.max_iter == "libsvm":
            return scheme_options
        return {s: {"max_iter": self.max_iter, **scheme_options.get(s, {})} for s in schemes}


@dataclass(frozen=True)
class Study:
    """What the protocol takes of a validated config (:meth:`Config.study`), and all it takes:
    the ``plans`` it runs (the config's DatasetPlans, in its order), the ``schemes`` and their
    ``scheme_options`` as the config gives them, the ``seed``, whether fits reuse machines
    across C (``reuse_across_C``), the ``repeats``, the DAG order study's ``dag_orders``,
    ``balanced_metrics``, the pairwise schemes' ``max_classes`` (:mod:`.class_limit`) and the
    ``sweep`` (None: none). Each field is named as the config's key, and a sweep's value
    derives one with ``dataclasses.replace`` (:func:`..plans.derive`)."""

    plans: tuple
    schemes: list
    scheme_options: dict
    seed: int
    reuse_across_C: bool = True
    repeats: int = 1
    dag_orders: int = 0
    balanced_metrics: object = "auto"
    max_classes: int | None = None
    sweep: dict | None = None


@dataclass(init=False)
class Config(KeyValues):
    """A validated experiment config: the value of each top-level key of the table
    (:data:`.keys.KEYS`: name, seed, schemes, scheme_options, compare_to, reference, repeats,
    sweep, ...; the defaults of what it leaves out are the table's), and ``datasets``, the plan
    of each dataset.

    ``original_text`` is the file as the user wrote it; ``resolved`` is the same experiment
    with every default filled in and every grid point explicit, itself a valid config
    (:meth:`resolved_text`): it validates and runs to the same table.
    """

    path: Path
    datasets: list
    values: dict
    resolved: dict = field(repr=False)
    original_text: str = field(repr=False)
    # the file's datasets when only some of them are run (:meth:`only`), else None
    selected_from: list | None = None

    def __init__(self, *, path, datasets, resolved, original_text, selected_from=None,
                 values=None, **keys):
        self._set({"path": path, "datasets": datasets, "resolved": resolved,
                   "original_text": original_text, "selected_from": selected_from}, values, keys)

    def resolved_text(self) -> str:
        """The resolved config as YAML (a comment says where it comes from, and which of the
        file's datasets it keeps when only some are run)."""
        header = (f"# {self.name}: resolved from {self.path} (defaults filled in, every grid "
                  f"point explicit)\n")
        if self.selected_from is not None:
            header += (f"# datasets selected: {', '.join(p.name for p in self.datasets)} of "
                       f"{', '.join(self.selected_from)}\n")
        return header + yaml.safe_dump(self.resolved, sort_keys=False, default_flow_style=None)

    def study(self) -> Study:
        """What the protocol takes of this config (:class:`Study`): its plans and the values of
        the keys the protocol reads, as they are here."""
        return Study(plans=tuple(self.datasets),
                     **{f.name: getattr(self, f.name) for f in fields(Study) if f.name != "plans"})

    def only(self, names) -> Config:
        """This config restricted to the datasets ``names`` (in the file's order; each must be
        one of its datasets, else a :class:`ConfigError` naming them). Every other value, the
        name included, stays: each dataset's grid points are the full config's, and so are
        their resume-cache keys (:func:`..protocol.cache.point_key` holds no other dataset)."""
        wanted = {self.plan(name).name for name in names}
        plans = [plan for plan in self.datasets if plan.name in wanted]
        reference = {key: rows for key, rows in self.reference.items()
                     if key == "source" or key in wanted}
        resolved = {**self.resolved, "dataset": [entry for entry in self.resolved["dataset"]
                                                 if entry["name"] in wanted]}
        if "reference" in resolved:
            resolved["reference"] = reference
        return replace(self, datasets=plans, reference=reference, resolved=resolved,
                       selected_from=self.selected_from or [p.name for p in self.datasets])

    def families(self) -> list:
        """The schemes grouped by training (:func:`registry.scheme_groups`: DAGSVM is trained
        with Max Wins when both are run), in the config's order of their first scheme."""
        return sorted(scheme_groups(self.schemes, self.scheme_options),
                      key=lambda group: self.schemes.index(group[0]))

    def points_per_fold(self, plan) -> int:
        """Grid points x schemes of one dataset's outer fold (kernel-free schemes once)."""
        return sum(1 if kernel_free(s) else len(plan.grid) for s in self.schemes)

    def grid_size(self) -> int:
        """Grid points x schemes, summed over datasets (one outer fold); naive Bayes counts once."""
        return sum(self.points_per_fold(plan) for plan in self.datasets)

    def fits(self, plan) -> dict:
        """How many fits ``plan`` takes: outer folds x validation splits x (grid points of
        each scheme family, once for kernel-free ones) for selection, and outer folds x
        families for the final fits (Max Wins and DAGSVM count once: they share their fits)."""
        folds = plan.split.outer_folds
        splits = plan.validation.splits
        families = self.families()
        points = sum(1 if kernel_free(f[0]) else len(plan.grid) for f in families)
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
        names = [p.name for p in self.datasets]
        raise ConfigError(f"{self.path}: dataset {dataset!r} is not in this config; it has: "
                          f"{', '.join(names)}{did_you_mean(dataset, names)}")


def summary(config) -> str:
    """What ``multisvm validate`` prints under the resolved config: per dataset its grid and
    its true number of fits, then the totals."""
    lines, total = [], 0
    for plan in config.datasets:
        fits = config.fits(plan)
        total += fits["selection"] + fits["final"] + fits["cv_best"]
        families = " + ".join("/".join(label(s) for s in family)
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
        if plan.refine:  # the further stages' points follow from the scores
            parts.append("refine: then finer stages around each selection's best cell (their "
                         "points are known as the run scores them)")
        lines.append(f"# {plan.name}: {len(plan.grid)} grid points; " + "; ".join(parts))
    lines.append("# ties on validation error go to the simpler model whatever the grid's order: "
                 "smaller C, then linear < polynomial < gaussian, lower degree, wider gaussian "
                 "(smaller gamma); results.json counts the tied points of every selection")
    lines.append(f"# {config.path}: valid; {config.grid_size()} grid points x schemes per "
                 f"outer fold; {total} fits in all")
    return "\n".join(lines)
