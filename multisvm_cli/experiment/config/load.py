"""load_config: a config file read and validated into a :class:`Config`, a loop over the table
of top-level keys (:data:`.keys.KEYS`); the package's docstring describes the format."""

from __future__ import annotations

from pathlib import Path

from .datasets import _check_parts, _check_sparse_scaling, _local_spec, _max_iter, _scaling
from .document import Errors, Location, _Document, _key_name
from .features import _check_solvers, _check_text, _features, _solver
from .grid import _C_list, _kernels
from .keys import DATASET_KEYS, KEYS, REQUIRED, TOP_KEYS
from .resolved import Config, DatasetPlan, _resolved
from .sections import (_check_classes_sweep, _check_option_classes, _check_repeats, _estimate,
                       _split, _validation)
from .sweep import sweep_document
from .checks import check_mapping


def load_config(path, seed=None) -> Config:
    """Read and validate a config file; ``seed`` (the CLI's ``--seed``) replaces its ``seed``.

    Raises :class:`.ConfigError` (one line per problem: file, line, key, allowed values); the
    independent problems are reported together (at most 20): each top-level key, each dataset
    and each check across keys runs even when another failed; checks that need a failed value
    are skipped. These are all the checks that need no data; :mod:`.against_data` adds those
    that need the dataset's labels (split sizes against class counts).
    """
    doc = _Document(Path(path))
    errors = Errors()
    _check_names(doc, errors)
    checked = _top_level(doc, errors, {} if seed is None else {"seed": seed})
    plans = _plans(doc, errors, checked)
    _check_across(doc, errors, checked, plans)
    errors.raise_any()
    return _config(doc, checked, plans)


def _check_names(doc, errors):
    """The document is a mapping of known top-level keys holding the required ones."""
    raw = doc.data
    if not isinstance(raw, dict):
        check_mapping(doc, raw, (), TOP_KEYS)
    for key in raw:
        errors.attempt(check_mapping, doc, {key: None}, (), TOP_KEYS)
    for key in REQUIRED:
        if key not in raw and not KEYS[key].cascades:
            errors.attempt(doc.fail, (), f"missing key {key!r}; required keys: "
                                         f"{', '.join(REQUIRED)}")


def _top_level(doc, errors, checked) -> dict:
    """Each top-level key's value, in the table's order (``checked``: those already given):
    as written and checked, else its default. A key whose check fails gets its default when
    that is a value (later checks go on with it), else None; so does a key needing one that
    has none. Cascading keys are left to each dataset's plan (:func:`_plan`)."""
    raw = doc.data
    for name, key in KEYS.items():
        if key.cascades or name in checked:
            continue
        needed = [checked.get(need) for need in key.needs]
        fallback = None if callable(key.default) else key.default
        if any(value is None for value in needed):
            checked[name] = None
        elif name in raw:
            checked[name] = errors.attempt(key.check, doc, raw[name], (name,), *needed,
                                           default=fallback)
        else:
            checked[name] = (errors.attempt(key.default, doc, *needed)
                             if callable(key.default) else key.default)
    return checked


def _plans(doc, errors, checked) -> list:
    """Each dataset's plan (None where it failed): the cascading keys, checked per dataset."""
    entries, raw = checked["dataset"], doc.data
    if entries and "kernels" not in raw and any("kernels" not in o for _, o, _ in entries):
        errors.attempt(doc.fail, (), f"missing key 'kernels'; required keys: "
                                     f"{', '.join(REQUIRED)}")
        return []
    top = {key: raw[key] for key in DATASET_KEYS if key in raw and key != "name"}
    return [errors.attempt(_plan, doc, name, overrides, where, top, checked["seed"],
                           checked["max_grid_points"])
            for name, overrides, where in entries or []]


def _check_across(doc, errors, checked, plans):
    """The checks across keys: each dataset's classes against the scheme options, its
    solvers against its grid, the repeats' seeds, and a classes sweep against a code."""
    schemes, options, sweep = checked["schemes"], checked["scheme_options"], checked["sweep"]
    for plan in plans:
        if plan is not None and options is not None:
            errors.attempt(_check_option_classes, doc, options, plan)
            errors.attempt(_check_solvers, doc, plan, schemes, options, plan.where["solver"])
    if plans and None not in plans:
        errors.attempt(_check_repeats, doc, checked["repeats"], plans)
    if sweep is not None and options:
        errors.attempt(_check_classes_sweep, doc, options, sweep)


def _config(doc, checked, plans) -> Config:
    """The :class:`Config` of the checked values, with its resolved document."""
    values = {key: checked[key] for key in ("name", "schemes", "scheme_options", "compare_to",
                                            "seed", "reference", "repeats", "dag_orders",
                                            "reuse_across_C", "sweep", "rope", "layout")}
    resolved = _resolved(values["name"], values["seed"], values["schemes"], values["compare_to"],
                         values["scheme_options"], values["reference"], plans,
                         doc.data.get("max_grid_points"))
    resolved.update({key: values[key] for key in ("repeats", "dag_orders", "reuse_across_C",
                                                  "rope", "layout")})
    if values["sweep"] is not None:
        resolved["sweep"] = sweep_document(values["sweep"])
    return Config(path=doc.path, datasets=plans, resolved=resolved, original_text=doc.text,
                  **values)


def _plan(doc, name, overrides, where, top, seed, max_points):
    """One dataset's plan: its overrides on top of the top-level values (``top``), on top of
    the table's defaults (a null counts as not written, except max_iter's: no bound)."""
    from ... import data

    def pick(key, null_is_value=False):
        value, at = (overrides[key], where + (key,)) if key in overrides else (top.get(key),
                                                                                (key,))
        if value is None and not (null_is_value and (key in overrides or key in top)):
            value = KEYS[key].default
        return value, at

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
    max_iter, max_iter_path = pick("max_iter", null_is_value=True)
    max_iter = _max_iter(doc, max_iter, max_iter_path)
    split, path = pick("split")
    split = _split(doc, split, path, seed)
    written = {"split": path}
    validation, path = pick("validation")
    validation = _validation(doc, validation, path, seed)
    written["validation"] = path
    estimate, path = pick("estimate")
    estimate = _estimate(doc, estimate, path, split)
    C_values, C_path = pick("C")
    C_values = None if C_values is None else _C_list(doc, C_values, C_path)
    kernels, path = pick("kernels")
    grid = _kernels(doc, kernels, path, C_values, max_points)
    written["kernels"] = path
    written["features"] = features_path if features_path[-1:] == ("features",) and (
        "features" in overrides or top.get("features") is not None) else where or ("dataset",)
    written.update(sweep=("sweep",), scheme_options=("scheme_options",))
    _check_parts(doc, name, split, validation, where, local.parts if local else None)
    located = {key: Location(doc.path, doc.line(at), _key_name(at)) for key, at in written.items()}
    located["solver"] = solver_path if solver is not None else ("schemes",)
    return DatasetPlan(name=name, scaling=scaling, split=split, validation=validation, grid=grid,
                       estimate=estimate, where=located, local=local, features=features,
                       solver=solver, max_iter=max_iter)
