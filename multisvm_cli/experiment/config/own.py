"""A user's classifier as a row of the table: ``{scheme: "module:Class", label, options}`` in a
config's ``schemes`` (see :mod:`multisvm_cli.estimators.own`).

The row's scheme name is ``own:<label>`` (:func:`registry.own_name`); its class and options
travel as that scheme's ``scheme_options`` (``target``, ``options``), so every process that
fits it builds the same classifier.  The class is imported and built when the config is
validated: a module that is not installed, a class that is not a scikit-learn classifier, an
option it does not take, or a value its own parameter validation refuses (scikit-learn's
``_parameter_constraints``, as ``schemes[i].options.C``) is refused then, with one line, before
any run folder exists.
"""

from __future__ import annotations

from ...base.errors import one_line
from ...estimators.registry import OWN, own_name, scheme_name
from .values import _mapping, _show

ROW_KEYS = ("scheme", "label", "options")
MAX_LABEL = 40


def own_row(doc, value, path) -> str:
    """The scheme name of a user's classifier row (``own:<label>``), after checking it."""
    _mapping(doc, value, path, ROW_KEYS)
    if "scheme" not in value:
        doc.fail(path, "a classifier row needs 'scheme: package.module:ClassName'")
    target, options = value["scheme"], value.get("options") or {}
    label = value.get("label", str(target).rpartition(":")[2])
    if not isinstance(label, str) or not 0 < len(label) <= MAX_LABEL or not label.isprintable():
        doc.fail(path + ("label",), f"expected a printable name of 1 to {MAX_LABEL} characters, "
                                    f"got {_show(label)}")
    if scheme_name(label) is not None or label.startswith(OWN):
        doc.fail(path + ("label",), f"{label!r} names a multisvm scheme; give the row another label")
    from ...estimators.own import OptionError, build  # scikit-learn: only for a config with a row

    try:
        build(target, options)
    except OptionError as exc:  # the classifier's own parameter validation refused an option
        doc.fail(path + ("options", *exc.path), str(exc))
    except ValueError as exc:
        doc.fail(path + ("scheme",), one_line(exc))
    return own_name(label)


def own_options(rows) -> dict:
    """``own:<label>`` -> {"target", "options"} of a checked ``schemes`` list's classifier rows."""
    return {own_name(row.get("label", row["scheme"].rpartition(":")[2])):
            {"target": row["scheme"], "options": dict(row.get("options") or {})}
            for row in (rows if isinstance(rows, list) else [rows]) if isinstance(row, dict)}


def as_row(name, options) -> dict:
    """The ``schemes`` entry of a user's classifier row (for the resolved config)."""
    return {"scheme": options["target"], "label": name[len(OWN):], "options": options["options"]}
