"""A user's classifier as a row of the table: ``{scheme: "module:Class", label, options}`` in a
config's ``schemes`` (see :mod:`multisvm_cli.estimators.own`).

The row's scheme name is ``own:<label>`` (:func:`registry.own_name`); its class and options
travel as that scheme's ``scheme_options`` (``target``, ``options``), so every process that
fits it builds the same classifier.  The class is imported and built when the config is
validated: a module that is not installed, a class that is not a scikit-learn classifier, an
option it does not take, a value its own parameter validation refuses (scikit-learn's
``_parameter_constraints``, as ``schemes[i].options.C``), or an option that takes a
classifier given something else than ``{scheme, options}`` is refused then, with one
line, before any run folder exists.
"""

from __future__ import annotations

import copy

from ...base.errors import one_line
from ...estimators.registry import OWN, label, own_name, scheme_name
from .checks import check_mapping, show

ROW_KEYS = ("scheme", "label", "options")
NESTED_KEYS = ("scheme", "options")  # an option's classifier (estimators.own.BUILD_KEYS)
MAX_LABEL = 40


def own_row(doc, value, path) -> str:
    """The scheme name of a user's classifier row (``own:<label>``), after checking it."""
    check_mapping(doc, value, path, ROW_KEYS)
    if "scheme" not in value:
        doc.fail(path, "a classifier row needs 'scheme: package.module:ClassName'")
    target, options = value["scheme"], value.get("options") or {}
    label = value.get("label", str(target).rpartition(":")[2])
    if not isinstance(label, str) or not 0 < len(label) <= MAX_LABEL or not label.isprintable():
        doc.fail(path + ("label",), f"expected a printable name of 1 to {MAX_LABEL} characters, "
                                    f"got {show(label)}")
    if scheme_name(label) is not None or label.startswith(OWN):
        doc.fail(path + ("label",), f"{label!r} names a multisvm scheme; give the row another label")
    _nested_rows(doc, options, path + ("options",))
    _build(doc, target, options, path)
    return own_name(label)


def _nested_rows(doc, options, path):
    """An option written as a classifier (a mapping holding ``scheme``) has the row's form
    ``{scheme, options}`` and nothing else, its own options too."""
    if not isinstance(options, dict):
        return
    for name, value in options.items():
        if isinstance(value, dict) and "scheme" in value:
            check_mapping(doc, value, path + (name,), NESTED_KEYS)
            _nested_rows(doc, value.get("options"), path + (name, "options"))


def _build(doc, target, options, path):
    """Build the row's classifier, as every fit will: one line when it cannot be built, naming
    the option that needs a classifier where the class asked one for its tags and got
    something else (an int, a string, a mapping of another form)."""
    from ...estimators.own import OptionError, build  # scikit-learn: only with a row

    try:
        build(target, options)
    except OptionError as exc:  # the classifier's own parameter validation refused an option
        doc.fail(path + ("options", *exc.path), str(exc))
    except ValueError as exc:
        doc.fail(path + ("scheme",), one_line(exc))
    except Exception as exc:  # noqa: BLE001 - e.g. scikit-learn's tags of an option
        for name, value in options.items():
            where = path + ("options", name)
            if isinstance(value, dict) and "scheme" in value:  # the fault may be inside it
                _build(doc, value["scheme"], value.get("options") or {}, where)
            elif _takes_classifier(target, options, name):
                doc.fail(where, f"{target} takes a classifier here, written {{scheme: "
                                f"package.module:ClassName, options: {{...}}}}; got "
                                f"{show(value)}")
        doc.fail(path + ("options",), f"{target} cannot use these options: {one_line(exc)}")


def _takes_classifier(target, options, name) -> bool:
    """Whether ``target`` builds with option ``name`` given a classifier instead."""
    from ...estimators.own import build

    try:
        build(target, {**options, name: {"scheme": "sklearn.dummy:DummyClassifier"}})
    except Exception:  # noqa: BLE001 - whatever it raises, a classifier did not help
        return False
    return True


def own_options(rows) -> dict:
    """``own:<label>`` -> {"target", "options"} of a checked ``schemes`` list's classifier rows."""
    return {own_name(row.get("label", row["scheme"].rpartition(":")[2])):
            {"target": row["scheme"], "options": dict(row.get("options") or {})}
            for row in (rows if isinstance(rows, list) else [rows]) if isinstance(row, dict)}


def as_row(name, options) -> dict:
    """The ``schemes`` entry of a user's classifier row (for the resolved config)."""
    return {"scheme": options["target"], "label": name[len(OWN):], "options": options["options"]}


def resolved_schemes(schemes, values) -> list:
    """The resolved config's ``schemes``: a user's classifier row written as its row (its
    options from ``values["scheme_options"]``)."""
    options = values["scheme_options"]
    return [as_row(s, options[s]) if s.startswith(OWN) else s for s in schemes]


def resolved_compare_to(compare_to, values) -> str:
    """The resolved config's ``compare_to``: a user's classifier row by its label."""
    return label(compare_to) if compare_to.startswith(OWN) else compare_to


def resolved_scheme_options(scheme_options, values) -> dict:
    """The resolved config's ``scheme_options``: the registry schemes' (a user's classifier
    row's options are in its row), DAG's order written natural where it is the default."""
    options = {s: o for s, o in copy.deepcopy(scheme_options).items() if not s.startswith(OWN)}
    for given in options.values():
        if "order" in given and given["order"] is None:
            given["order"] = "natural"
    return options
