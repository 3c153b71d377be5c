"""The ``sweep:`` section: one setting varied over a list of values, the whole protocol run at each.

Exactly one of (Godbole et al. 2002's figures and Table 2)::

    sweep: {classes: [2, 5, 10], order: random}   # k classes per value: drawn at random (seeded,
                                                  #   a new draw per repeat) or the k largest
    sweep: {train_fraction: [0.1, 0.3, 0.5, 0.7]} # a stratified fraction of all rows trains,
                                                  #   a stratified 30% tests (the split is replaced)
    sweep: {scheme_options: {graph: {threshold: [0.01, 0.05, 0.1]}}}  # one option of one scheme
    sweep: {scheme_options: {ecoc: {code: [ovr, ovo], decoding: [hamming, loss]}}}
                                                  # several: every combination, the first
                                                  #   option's values outermost

The validated sweep is a dict: ``{"kind": "classes", "values": [...], "order": "random"}``,
``{"kind": "train_fraction", "values": [...]}`` or ``{"kind": "option", "scheme": ...,
"option": ..., "values": [...]}`` (each value checked as that option is); with several options,
``option`` is their names joined by ``+`` (``code+decoding``), ``options`` the names and each
value a tuple of one value per option (:func:`swept_options` maps a value to its options).
"""

from __future__ import annotations

import itertools

from .checks import (check_choice, check_distinct, check_list, check_mapping, check_number,
                     show)

SWEEP_KEYS = ("classes", "order", "train_fraction", "scheme_options")
KINDS = ("classes", "train_fraction", "scheme_options")
ORDERS = ("random", "largest")
TEST_FRACTION = 0.3  # the train_fraction sweep's test part (Godbole's 70:30)


def _sweep(doc, value, path, schemes):
    """The ``sweep`` section, validated (see the module's docstring); None when absent."""
    if value is None:
        return None
    check_mapping(doc, value, path, SWEEP_KEYS)
    kinds = [k for k in KINDS if k in value]
    if len(kinds) != 1:
        doc.fail(path, f"expected exactly one of {', '.join(KINDS)}, got "
                       f"{', '.join(kinds) or 'none'}")
    kind = kinds[0]
    if "order" in value and kind != "classes":
        doc.fail(path + ("order",), "order applies to a classes sweep only")
    where = path + (kind,)
    if kind == "classes":
        values = check_list(doc, value[kind], where,
                            lambda v, p: check_number(doc, v, p, integer=True, low=1))
        order = check_choice(doc, value.get("order", "random"), path + ("order",), ORDERS, "order")
        return {"kind": "classes", "values": values, "order": order}
    if kind == "train_fraction":
        values = check_list(doc, value[kind], where, lambda v, p: check_number(
            doc, v, p, low=0, high=1 - TEST_FRACTION + 1e-9))
        return {"kind": "train_fraction", "values": values}
    return _option_sweep(doc, value[kind], where, schemes)


def _option_sweep(doc, value, path, schemes):
    """``scheme_options: {scheme: {option: [values], ...}}``: one scheme, one or more options,
    each value checked by the ``scheme_options`` rules; several options sweep every
    combination."""
    if not isinstance(value, dict) or len(value) != 1:
        doc.fail(path, f"expected one scheme with one option list, got {show(value)}")
    (scheme, options), = value.items()
    if not isinstance(options, dict) or not options:
        doc.fail(path + (scheme,), f"expected one or more options, each with a list of values, "
                                   f"got {show(options)}")
    checked = {option: _option_values(doc, scheme, option, values, path, schemes)
               for option, values in options.items()}
    name = next(iter(checked.values()))[0]
    lists = {option: values for option, (_, values) in checked.items()}
    if len(lists) == 1:
        (option, values), = lists.items()
        return {"kind": "option", "scheme": name, "option": option, "values": values}
    return {"kind": "option", "scheme": name, "option": "+".join(lists),
            "options": tuple(lists), "values": list(itertools.product(*lists.values()))}


def _option_values(doc, scheme, option, values, path, schemes):
    """(the scheme's registry name, the checked values) of one swept option's list."""
    from .sections import _scheme_options

    where = path + (scheme, option)
    if not isinstance(values, list) or len(values) < 2:
        doc.fail(where, f"expected a list of 2 or more values, got {show(values)}")
    checked = [_scheme_options(doc, {scheme: {option: v}}, path, schemes) for v in values]
    (name,) = checked[0]
    checked = [c[name][option] for c in checked]
    check_distinct(doc, checked, where, values)  # a value twice would run twice under one name
    return name, checked


def _distinct(values) -> list:
    """``values`` without repeats, in order (by repr, as :func:`.checks.check_distinct`
    compares them: values may be lists)."""
    return list({repr(value): value for value in values}.values())


def swept_options(sweep, value) -> dict:
    """The scheme options an option sweep's ``value`` sets: ``{option: value}``, or one entry
    per option of a several-option sweep."""
    if "options" in sweep:
        return dict(zip(sweep["options"], value))
    return {sweep["option"]: value}


def sweep_document(sweep) -> dict:
    """The resolved config's ``sweep`` section (a valid section giving the same sweep)."""
    if sweep["kind"] == "classes":
        return {"classes": list(sweep["values"]), "order": sweep["order"]}
    if sweep["kind"] == "train_fraction":
        return {"train_fraction": list(sweep["values"])}
    def written(values):
        return ["natural" if v is None else v for v in values]
    if "options" in sweep:
        lists = {name: written(_distinct([value[i] for value in sweep["values"]]))
                 for i, name in enumerate(sweep["options"])}
        return {"scheme_options": {sweep["scheme"]: lists}}
    return {"scheme_options": {sweep["scheme"]: {sweep["option"]: written(sweep["values"])}}}


def sweep_name(sweep) -> str:
    """The swept setting's name: ``classes``, ``train_fraction`` or ``scheme.option``."""
    if sweep["kind"] == "option":
        return f"{sweep['scheme']}.{sweep['option']}"
    return sweep["kind"]
