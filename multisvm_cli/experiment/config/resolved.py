"""A validated config: the :class:`Config`, its per-dataset plans, its fit counts, and the
resolved document (every default filled in, every grid point explicit)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from ...estimators.registry import OWN, kernel_free, label, scheme_groups
from .own import as_row
from .document import ConfigError
from .features import features_dict
from .checks import did_you_mean
from .sections import outer_folds


@dataclass(frozen=True, kw_only=True)
class DatasetPlan:
    """What to run on one dataset: scaling, outer split, validation method and grid (the
    defaults of what a config leaves out are the key table's, :data:`.keys.KEYS`)."""

    name: str
    scaling: str
    split: dict
    validation: dict
    grid: tuple
    estimate: tuple             # nested and/or cv-best, as in ESTIMATES
    # where each section was written: key -> (file, line, key path), for errors found later
    where: dict = field(default_factory=dict, compare=False, repr=False)
    # a local data file's data.LocalSpec (None: a registry dataset)
    local: object
    # a text dataset's data.TextFeatures (None: numeric data)
    features: object
    # the dataset's (or the top level's) solver: libsvm | liblinear (None: not written)
    solver: str | None
    max_iter: object  # libsvm's SMO bound (estimators.options: libsvm | int | none)

    def options(self, scheme_options, schemes) -> dict:
        """The estimators' keyword arguments per scheme on this dataset: ``scheme_options``
        with this plan's ``max_iter`` where a scheme sets none of its own (the default,
        libsvm's bound, is the estimators' own and left out: resume-cache keys stay as they
        were)."""
        if self.max_iter == "libsvm":
            return scheme_options
        return {s: {"max_iter": self.max_iter, **scheme_options.get(s, {})} for s in schemes}


@dataclass(kw_only=True)
class Config:
    """A validated experiment config (its values' defaults are the key table's,
    :data:`.keys.KEYS`).

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
    original_text: str = field(repr=False)
    repeats: int            # the whole protocol N times, split/validation seeds seed + r
    dag_orders: int         # random class orders of the DAG order study (0: none)
    reuse_across_C: bool    # grid fits reuse machines across C (estimators.reuse)
    sweep: dict | None      # the swept setting and its values (config.sweep), or None
    rope: float             # the Bayesian signed-rank test's ROPE, points of test error
    layout: str             # the report's tables: table-1 | hsu-lin (report.hsu_lin)
    # the file's datasets when only some of them are run (:meth:`only`), else None
    selected_from: list | None = None

    def resolved_text(self) -> str:
        """The resolved config as YAML (a comment says where it comes from, and which of the
        file's datasets it keeps when only some are run)."""
        header = (f"# {self.name}: resolved from {self.path} (defaults filled in, every grid "
                  f"point explicit)\n")
        if self.selected_from is not None:
            header += (f"# datasets selected: {', '.join(p.name for p in self.datasets)} of "
                       f"{', '.join(self.selected_from)}\n")
        return header + yaml.safe_dump(self.resolved, sort_keys=False, default_flow_style=None)

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
        folds = outer_folds(plan.split)
        splits = plan.validation.get("k", 1)
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
        lines.append(f"# {plan.name}: {len(plan.grid)} grid points; " + "; ".join(parts))
    lines.append("# ties on validation error go to the simpler model whatever the grid's order: "
                 "smaller C, then linear < polynomial < gaussian, lower degree, wider gaussian "
                 "(smaller gamma); results.json counts the tied points of every selection")
    lines.append(f"# {config.path}: valid; {config.grid_size()} grid points x schemes per "
                 f"outer fold; {total} fits in all")
    return "\n".join(lines)


def _resolved(name, seed, schemes, compare_to, scheme_options, reference, plans, max_points):
    """The config with every default filled in and every grid point explicit: a valid config
    document that gives the same experiment (same grid, same order, same seeds)."""
    own = [s for s in schemes if s.startswith(OWN)]  # a user's classifier rows
    options = {s: o for s, o in copy.deepcopy(scheme_options).items() if s not in own}
    for given in options.values():
        if "order" in given and given["order"] is None:
            given["order"] = "natural"
    rows = [as_row(s, scheme_options[s]) if s in own else s for s in schemes]
    resolved = {"name": name, "seed": seed, "schemes": rows,
                "compare_to": label(compare_to) if compare_to in own else compare_to,
                "scheme_options": options,
                "dataset": [_plan_dict(plan) for plan in plans]}
    if max_points is not None:
        resolved["max_grid_points"] = max_points
    if reference:
        resolved["reference"] = reference
    return resolved


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
    text = {"features": features_dict(plan.features)} if plan.features is not None else {}
    solver = {"solver": plan.solver} if plan.solver is not None else {}
    return {"name": plan.name, **local, "scaling": plan.scaling, **text, **solver,
            "split": plan.split, "validation": plan.validation, "estimate": estimate,
            "kernels": kernels, "max_iter": plan.max_iter}
