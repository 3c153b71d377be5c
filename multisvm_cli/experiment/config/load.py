"""load_config: a config file read and validated into a :class:`Config` (the package's
docstring describes the format)."""

from __future__ import annotations

from pathlib import Path

from .features import _check_solvers, _check_text, _features, _solver
from .datasets import (NAME_PATTERN, _check_parts, _check_sparse_scaling, _dataset_names,
                       _local_spec, _max_iter, _scaling)
from .document import ConfigError, Errors, Location, _Document, _key_name
from .grid import GridPoint, _C_list, _kernels
from .keys import TOP_KEYS
from .resolved import Config, DatasetPlan, _resolved, summary
from .own import own_options
from .sections import (_check_code, _check_code_sweep, _check_order, _compare_to, _dag_orders,
                       _estimate, _layout, _reference, _repeats, _rope, _scheme_options, _schemes,
                       _split, _validation)
from .sweep import _sweep, sweep_document
from .values import MAX_GRID_POINTS, _mapping, _number, _seed, _show
from ...report.hsu_lin import TABLE_1

__all__ = ["Config", "ConfigError", "DatasetPlan", "GridPoint", "Location", "load_config",
           "summary"]


def load_config(path, seed=None) -> Config:
    """Read and validate a config file; ``seed`` (the CLI's ``--seed``) replaces its ``seed``.

    Raises :class:`ConfigError` (one line per problem: file, line, key, allowed values); the
    independent problems are reported together (at most 20): each top-level key, each dataset
    and each section is checked even when another failed, checks that need a failed value are
    skipped. These are all the checks that need no data; :func:`.against_data.check_plan` adds
    those that need the dataset's labels (split sizes against class counts).
    """
    from ... import data

    path = Path(path)
    doc = _Document(path)
    raw = doc.data
    errors = Errors()
    if not isinstance(raw, dict):
        _mapping(doc, raw, (), TOP_KEYS)
    for key in raw:
        errors.attempt(_mapping, doc, {key: None}, (), TOP_KEYS)
    for key in ("dataset", "schemes"):
        if key not in raw:
            errors.attempt(doc.fail, (), f"missing key {key!r}; required keys: dataset, "
                                         "kernels, C, schemes")
    name = raw.get("name", path.stem)
    errors.attempt(_check_name, doc, name)
    if seed is None:
        seed = errors.attempt(_seed, doc, raw.get("seed", 0), ("seed",), default=0)
    schemes = errors.attempt(_schemes, doc, raw["schemes"], ("schemes",)) \
        if "schemes" in raw else None
    compare_to = errors.attempt(_compare_to, doc, raw, schemes) if schemes else None
    max_points = (errors.attempt(_number, doc, raw["max_grid_points"], ("max_grid_points",),
                                 default=MAX_GRID_POINTS, integer=True, positive=True)
                  if "max_grid_points" in raw else MAX_GRID_POINTS)
    defaults = {key: raw[key] for key in ("scaling", "split", "validation", "kernels", "C",
                                          "estimate", "features", "solver", "max_iter")
                if key in raw}
    entries = (errors.attempt(_dataset_names, doc, raw["dataset"], ("dataset",), data.names())
               if "dataset" in raw else None)
    if entries and "kernels" not in raw and any("kernels" not in o for _, o, _ in entries):
        errors.attempt(doc.fail, (), "missing key 'kernels'; required keys: dataset, kernels, "
                                     "C, schemes")
        entries = None
    plans = [errors.attempt(_plan, doc, name_, overrides, where, defaults, seed, max_points)
             for name_, overrides, where in entries or []]
    scheme_options = (errors.attempt(_scheme_options, doc, raw.get("scheme_options"),
                                     ("scheme_options",), schemes, default={})
                      if schemes else {})
    if schemes and scheme_options is not None:
        scheme_options.update(own_options(raw["schemes"]))  # a user's classifier rows
    for plan in plans:
        if plan is not None:
            errors.attempt(_check_order, doc, scheme_options, plan)
            errors.attempt(_check_code, doc, scheme_options, plan)
            if schemes:
                errors.attempt(_check_solvers, doc, plan, schemes, scheme_options,
                               plan.where["solver"])
    reference = (errors.attempt(_reference, doc, raw.get("reference"), ("reference",),
                                [name_ for name_, _, _ in entries])
                 if entries else None)
    repeats = (errors.attempt(_repeats, doc, raw, plans)
               if plans and None not in plans else None)
    dag_orders = errors.attempt(_dag_orders, doc, raw, schemes) if schemes else None
    reuse = errors.attempt(_reuse_across_C, doc, raw, default=True)
    from ...report.verdict import DEFAULT_ROPE  # pandas and scipy: not for 'multisvm configs'

    rope = errors.attempt(_rope, doc, raw, DEFAULT_ROPE, default=DEFAULT_ROPE)
    layout = errors.attempt(_layout, doc, raw, default=TABLE_1)
    sweep = (errors.attempt(_sweep, doc, raw.get("sweep"), ("sweep",), schemes)
             if schemes else None)
    if sweep is not None and scheme_options:
        errors.attempt(_check_code_sweep, doc, scheme_options, sweep)
    errors.raise_any()
    resolved = _resolved(name, seed, schemes, compare_to, scheme_options, reference, plans,
                         raw.get("max_grid_points"))
    resolved.update(repeats=repeats, dag_orders=dag_orders, reuse_across_C=reuse, rope=rope,
                    layout=layout)
    if sweep is not None:
        resolved["sweep"] = sweep_document(sweep)
    return Config(path=path, name=name, datasets=plans, schemes=schemes,
                  scheme_options=scheme_options, compare_to=compare_to, seed=seed,
                  reference=reference, resolved=resolved, original_text=doc.text,
                  repeats=repeats, dag_orders=dag_orders, reuse_across_C=reuse, sweep=sweep,
                  rope=rope, layout=layout)


def _check_name(doc, name):
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        doc.fail(("name",), f"expected a folder-safe name (letters, digits, '.', '_', '-', at "
                            f"most 100, not starting with '.' or '-'), got {_show(name)}")


def _plan(doc, name, overrides, where, defaults, seed, max_points):
    """One dataset's plan: its overrides on top of the top-level values."""
    from ... import data

    def pick(key):
        if key in overrides:
            return overrides[key], where + (key,)
        return defaults.get(key), (key,)

    local = _local_spec(doc, name, overrides, where) if "path" in overrides else None
    text = local.format == "text" if local else data.get_card(name).kind == "text"
    features, features_path = pick("features")
    features = None if features is None else _features(doc, features, features_path)
    scaling, path = pick("scaling")
    scaling = _scaling(doc, scaling if scaling is not None else "none" if text else None, path,
                       local)
    _check_text(doc, name, text, features, scaling, {"features": features_path, "scaling": path})
    if text and features is None:
        features = data.TextFeatures()
    if not text:
        _check_sparse_scaling(doc, name, local, scaling, path)
    solver, solver_path = pick("solver")
    solver = None if solver is None else _solver(doc, solver, solver_path)
    max_iter, max_iter_path = pick("max_iter")
    given = "max_iter" in overrides or "max_iter" in defaults
    max_iter = _max_iter(doc, max_iter if given else "libsvm", max_iter_path)
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
    written["kernels"] = path
    written["features"] = features_path if features_path[-1:] == ("features",) and (
        "features" in overrides or defaults.get("features") is not None) else where or ("dataset",)
    written.update(sweep=("sweep",), scheme_options=("scheme_options",))
    _check_parts(doc, name, split, validation, where, local.parts if local else None)
    located = {key: Location(doc.path, doc.line(at), _key_name(at)) for key, at in written.items()}
    located["solver"] = solver_path if solver is not None else ("schemes",)
    return DatasetPlan(name=name, scaling=scaling, split=split, validation=validation, grid=grid,
                       estimate=estimate, where=located, local=local, features=features,
                       solver=solver, max_iter=max_iter)


def _reuse_across_C(doc, raw):
    """``reuse_across_C``: true (the default) or false."""
    reuse = raw.get("reuse_across_C", True)
    if not isinstance(reuse, bool):
        doc.fail(("reuse_across_C",), f"expected true or false, got {_show(reuse)}")
    return reuse
