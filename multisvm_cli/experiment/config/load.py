"""load_config: a config file read and validated into a :class:`Config`, a loop over the table
of keys (:data:`.keys.KEYS`): the top-level keys once, the per-dataset keys once per dataset;
the package's docstring describes the format."""

from __future__ import annotations

from pathlib import Path

from .datasets import _check_parts, _local_spec
from .document import Errors, Location, _Document, _key_name
from .features import _check_solvers, with_table_features
from .keys import DATASET, KEYS, TOP, required, resolved_document, written_at
from .resolved import Config, DatasetPlan
from .sections import _check_classes_sweep, _check_option_classes, _check_repeats
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
        check_mapping(doc, raw, (), written_at(TOP))
    for key in raw:
        errors.attempt(check_mapping, doc, {key: None}, (), written_at(TOP))
    for key in required():
        if key not in raw and not KEYS[key].cascades:
            errors.attempt(doc.fail, (), f"missing key {key!r}; required keys: "
                                         f"{', '.join(required())}")


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
                                     f"{', '.join(required())}")
        return []
    top = {key: raw[key] for key in written_at(DATASET) if key in raw}
    return [errors.attempt(_plan, doc, (name, overrides, where), top, checked)
            for name, overrides, where in entries or []]


def _check_across(doc, errors, checked, plans):
    """The checks across keys: each dataset's classes against the scheme options, its
    solvers against its grid, the repeats' seeds, and a classes sweep against a code."""
    schemes, options, sweep = checked["schemes"], checked["scheme_options"], checked["sweep"]
    for plan in plans:
        if plan is not None and options is not None:
            errors.attempt(_check_option_classes, doc, options, plan)
            written = plan.where["solver" if plan.solver is not None else "schemes"]
            errors.attempt(_check_solvers, plan, schemes, options, written)
    if plans and None not in plans:
        errors.attempt(_check_repeats, doc, checked["repeats"], plans)
    if sweep is not None and options:
        errors.attempt(_check_classes_sweep, doc, options, sweep)


def _config(doc, checked, plans) -> Config:
    """The :class:`Config` of the checked values (``dataset``'s: the plans), with its resolved
    document."""
    values = {name: checked[name] for name in written_at(TOP) if not KEYS[name].cascades}
    values["dataset"] = plans
    resolved = resolved_document(values, written_at(TOP))
    return Config(path=doc.path, datasets=plans, original_text=doc.text, resolved=resolved,
                  values={KEYS[name].field or name: value for name, value in values.items()
                          if name != "dataset"})


def _plan(doc, entry, top, checked):
    """One dataset's plan from its ``entry`` (name, overrides, where): each per-dataset key of
    the table, in its order, as the entry writes it, else as the top level does (``top``), else
    the table's default (a null counts as not written unless the key ``takes_null``); checked
    with the values it needs (earlier per-dataset keys, the top level's ``checked`` values, the
    dataset's ``name``, ``local`` spec and ``text`` flag). Then the split and validation
    against the dataset's parts."""
    from ... import data

    name, overrides, where = entry
    local = _local_spec(doc, name, overrides, where) if "path" in overrides else None
    text = local.format == "text" if local else data.get_card(name).kind == "text"
    values = {**checked, "name": name, "local": local, "text": text}
    written, names = {}, written_at(DATASET)
    for key_name in names:
        values[key_name], written[key_name] = _plan_value(doc, key_name, entry, top, values)
    local = with_table_features(local, values)
    _check_parts(doc, name, values["split"], values["validation"], where,
                 local.parts if local else None)
    located = {key: Location(doc.path, doc.line(at), _key_name(at))
               for key, at in {**{key: (key,) for key in written_at(TOP)}, **written}.items()}
    return DatasetPlan(name=name, local=local, where=located,
                       values={KEYS[key].field or key: values[key] for key in names})


def _plan_value(doc, name, entry, top, values):
    """(checked value, where it was written) of the per-dataset key ``name`` (see
    :func:`_plan`). Not written, it is located at the key's top-level name, or at the
    dataset's entry when its default is the dataset's own (a function of the data)."""
    key, (_, overrides, where) = KEYS[name], entry
    value, at = (overrides[name], where + (name,)) if name in overrides else (top.get(name),
                                                                              (name,))
    needed = [values[need] for need in key.needs]
    null = value is None and key.takes_null and (name in overrides or name in top)
    located = at
    if value is None and not null:
        value = key.default(doc, *needed) if callable(key.default) else key.default
        located = (where or ("dataset",)) if callable(key.default) else at
    if value is not None or null:
        value = key.check(doc, value, at, *needed)
    return value, located
