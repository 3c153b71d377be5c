"""The protocol sections of a config: split, validation, estimate, schemes and their options,
compare_to, repeats, DAG order studies and the paper's reference numbers."""

from __future__ import annotations

import re

import numpy as np

from ...estimators.registry import (ALIASES, ORDER_STUDY, OWN, REFERENCE, REGISTRY, SCHEME_NAMES,
                                   label, own_name, scheme_groups, scheme_name)
from ...report.hsu_lin import LAYOUTS
from ...estimators.options import OptionError
from .document import Location, _key_name
from .forms import OWN_KINDS, Split, Validation
from .own import own_row
from .checks import (SEED_RANGE, check_choice, check_folds, check_list, check_mapping,
                     check_number, check_seed, joined, show)

ESTIMATES = ("nested", "cv-best")
MEASURED = ("seconds", "cores", "date", "page")  # a config's last measured run
REFERENCE_FIELDS = ("kernel", "sigma", "degree", "C", "error", "kernel_evaluations",
                    "cpu_time", "size_k")
MAX_REPEATS = 1000              # repeats of the whole protocol
MAX_DRAWS = 10_000              # random train/test draws of a draws split
MAX_DAG_ORDERS = 100_000        # random class orders of the DAG order study
ROPE_RANGE = (0.0, 50.0)        # points of test error: the Bayesian signed-rank test's ROPE


def _split(doc, value, path, seed):
    if isinstance(value, dict) and "method" not in value and "test_fraction" in value:
        value = {"method": "holdout", **value}
    return _section(doc, value, path, seed, Split, "split method",
                    "standard, {test_fraction: F, seed: S}, {method: kfold, k: K} or "
                    "{method: draws, draws: N, n_train: A, n_test: B}")


def _validation(doc, value, path, seed):
    return _section(doc, value, path, seed, Validation, "validation method",
                    "{method: holdout|given|kfold, ...}")


def _section(doc, value, path, seed, kind, what, expected):
    """The :class:`.forms.Split` or :class:`.forms.Validation` (``kind``) of a ``{method: ...,
    own keys..., seed}`` mapping (or just the method's name), checked against ``kind.FORMS``."""
    forms = kind.FORMS
    if isinstance(value, str):
        value = {"method": value}
    if not isinstance(value, dict):
        doc.fail(path, f"expected {expected}, got {show(value)}")
    method = check_choice(doc, value.get("method"), path + ("method",), tuple(forms), what)
    own = forms[method]
    check_mapping(doc, value, path, ("method", *own, *(("seed",) if own else ())))
    section = {"method": method}
    for key, default in own.items():
        where = path + (key,)
        if default is None and key not in value:
            doc.fail(path, f"a {method} split needs {key}, e.g. {{method: draws, draws: 20, "
                           f"n_train: 300, n_test: 500}}")
        section[key] = _own_value(doc, key, value.get(key, default), where)
    if own:
        section["seed"] = check_seed(doc, value.get("seed", seed), path + ("seed",))
    return kind.of(section)


def _own_value(doc, key, given, where):
    """One of a split's or a validation's own values, checked by its kind
    (:data:`.forms.OWN_KINDS`): folds (k), a share in (0, 1), or a count: of draws (1 to
    MAX_DRAWS) or of rows (n_train, n_test: >= 1)."""
    kind = OWN_KINDS[key]
    if kind == "folds":
        return check_folds(doc, given, where)
    if kind == "share":
        return check_number(doc, given, where, low=0, high=1)
    count = check_number(doc, given, where, integer=True)
    if key == "draws" and not 1 <= count <= MAX_DRAWS:
        doc.fail(where, f"draws must be an integer from 1 to {MAX_DRAWS}, got {count}")
    if count < 1:
        doc.fail(where, f"{key} must be a number of rows >= 1, got {count}")
    return count


SCHEME_ALIASES = (*ALIASES, *(scheme.label for scheme in REGISTRY.values()))


def _scheme(doc, value, path):
    """A scheme by its registry name, label or alias in any case (``Max Wins``, ``ovo``)."""
    return check_choice(doc, value, path, SCHEME_NAMES, "scheme", scheme_name, SCHEME_ALIASES)


def _schemes(doc, value, path):
    """The scheme names of ``schemes``: registry schemes by any of their names, and a user's
    classifier rows (:mod:`.own`) as ``own:<label>``; two rows of one name are refused naming
    both (a row without a label is named after its class)."""
    rows = {}  # a row's scheme name -> where it is

    def check(item, where):
        if not isinstance(item, dict):
            return _scheme(doc, item, where)
        name = own_row(doc, item, where)
        if name in rows:
            doc.fail(where, f"rows {_key_name(rows[name])} and {_key_name(where)} are both named "
                            f"{name[len(OWN):]!r} (a row without a label is named after its "
                            f"class); give each row its own label, e.g. label: "
                            f"{name[len(OWN):]}-2")
        rows[name] = where
        return name

    return check_list(doc, value, path, check)


def _scheme_options(doc, value, path, schemes):
    """``scheme_options`` as estimator keyword arguments, each value checked by the scheme's
    own constraint (``_option_constraints``: the estimator's check; a word such as DAG's
    ``order: natural`` becomes the estimator's value)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        check_mapping(doc, value, path, SCHEME_NAMES)
    options = {}
    for given, params in value.items():
        where = path + (given,)
        scheme = _scheme(doc, given, where)
        if scheme not in schemes:
            doc.fail(where, f"scheme {scheme!r} is not in schemes ({joined(schemes)})")
        estimator = REGISTRY[scheme].estimator
        for name in params if isinstance(params, dict) else ():
            _check_lacking(doc, scheme, name, where + (name,))
        options[scheme] = dict(check_mapping(doc, params, where, REGISTRY[scheme].options))
        if "solver" in options[scheme] and REGISTRY[scheme].kernel_free:
            doc.fail(where + ("solver",), f"{scheme} trains no SVM, so it has no solver; remove "
                                          "it (solver is for the SVM schemes)")
        for name, given in options[scheme].items():
            constraint = estimator._option_constraints[name]
            options[scheme][name] = given = constraint.value(given)
            try:
                estimator._check_option(name, given)
            except ValueError as exc:
                doc.fail(where + (name,), f"{exc}; allowed: {constraint.allowed}")
        try:
            estimator._check_options_together(options[scheme])
        except OptionError as exc:
            doc.fail(where + (exc.option,), str(exc))
    _check_shared_class_weight(doc, options, schemes, path)
    return options


def _check_shared_class_weight(doc, options, schemes, path):
    """Schemes trained together (a reader of its trainer's machines: DAGSVM of Max Wins') have
    one set of machines, so one ``class_weight``: a config that gives them two is refused."""
    for trainer, *readers in scheme_groups(schemes, options):
        weights = {s: options.get(s, {}).get("class_weight") for s in (trainer, *readers)}
        for reader in readers:
            if weights[reader] != weights[trainer]:
                where = reader if weights[reader] is not None else trainer
                doc.fail(path + (where, "class_weight"),
                         f"{label(reader)} reads the machines of {label(trainer)}, so both take one "
                         f"class_weight ({label(reader)}: {weights[reader] or 'none'}, "
                         f"{label(trainer)}: {weights[trainer] or 'none'}); give both the same")


def _check_lacking(doc, scheme, name, path):
    """An option of other schemes given to one without it: the constraint's ``lacking``
    sentence ("UDT has no class probabilities; probability applies to ...") where it has one."""
    if name in REGISTRY[scheme].options:
        return
    having = [s.name for s in REGISTRY.values() if name in s.options]
    lacking = {s.estimator._option_constraints[name].lacking for s in REGISTRY.values()
               if s.name in having}
    if having and None not in lacking:
        doc.fail(path, f"{label(scheme)} has no {lacking.pop()}; {name} applies to "
                       f"{joined(having)}")


def _check_option_classes(doc, options, plan):
    """Each scheme's options against the classes of ``plan``'s dataset, by the scheme's own
    check (``_check_option_classes``: an order listing every class once, a code with one row
    per class), failing with ``plan.name: <the scheme's sentence>``.  A local file's classes
    are known once it is read (:mod:`.against_data` checks them then): ``plan.where`` records
    where each option was written, for that check's ``file:line: key``."""
    from ... import data

    for scheme, given in _registry_options(options):
        for name, value in given.items():
            path = ("scheme_options", scheme, name)
            if plan.local is not None:
                plan.where[path] = Location(doc.path, doc.line(path), _key_name(path))
                continue
            classes = np.unique(np.asarray(data.get_card(plan.name).classes))
            try:
                REGISTRY[scheme].estimator._check_option_classes(name, value, classes)
            except ValueError as exc:
                doc.fail(path, f"{plan.name}: {exc}")
        if plan.local is None and given:
            classes = np.unique(np.asarray(data.get_card(plan.name).classes))
            try:
                REGISTRY[scheme].estimator._check_options_together(given, classes)
            except OptionError as exc:
                doc.fail(("scheme_options", scheme, exc.option), f"{plan.name}: {exc}")


def _check_classes_sweep(doc, options, sweep):
    """A classes sweep draws other classes than the dataset's: an option that names the
    classes (an explicit code matrix, a class order) cannot follow it (the constraint's
    ``sweeps``)."""
    if sweep is None or sweep["kind"] != "classes":
        return
    for scheme, given in _registry_options(options):
        for name, value in given.items():
            try:
                REGISTRY[scheme].estimator._check_option_sweep(name, value,
                                                               f"scheme_options.{scheme}.{name}")
            except ValueError as exc:
                doc.fail(("sweep", "classes"), str(exc))


def _registry_options(options):
    """(scheme, its options) of the registry's schemes in ``options`` (a user's classifier
    rows declare no constraints of ours: their class checks its own)."""
    return [(scheme, given) for scheme, given in options.items() if scheme in REGISTRY]


def _reference(doc, value, path, datasets):
    if value is None:
        return {}
    if not isinstance(value, dict):
        doc.fail(path, f"expected a mapping dataset -> scheme -> numbers, got {show(value)}")
    reference = {}
    for dataset, rows in value.items():
        where = path + (dataset,)
        if dataset == "source":
            if not isinstance(rows, str):
                doc.fail(where, f"expected a text, got {show(rows)}")
            reference["source"] = rows
            continue
        if dataset not in datasets:
            doc.fail(where, f"dataset {dataset!r} is not in this config; allowed: "
                            f"source, {joined(datasets)}")
        if not isinstance(rows, dict):
            doc.fail(where, f"expected a mapping scheme -> numbers, got {show(rows)}")
        reference[dataset] = {str(row): _reference_row(doc, numbers, where + (row,))
                              for row, numbers in rows.items()}
    return reference


def _reference_row(doc, numbers, path):
    check_mapping(doc, numbers, path, REFERENCE_FIELDS)
    row = {}
    for key, number in numbers.items():
        if key == "kernel":
            row[key] = str(number)
        else:
            row[key] = check_number(doc, number, path + (key,))
    return row


def _repeats(doc, value, path):
    """``repeats``: an integer in [1, MAX_REPEATS] (:func:`_check_repeats` checks it against
    the datasets' plans)."""
    repeats = check_number(doc, value, path, integer=True, positive=True)
    if repeats > MAX_REPEATS:
        doc.fail(path, f"must be at most {MAX_REPEATS}, got {repeats}")
    return repeats


def _check_repeats(doc, repeats, plans):
    """Repeat r uses split and validation seeds seed + r, so every seed must stay in
    SEED_RANGE and some dataset must have a seeded split or validation (a standard split with
    given validation would repeat the same run)."""
    path = ("repeats",)
    for plan in plans:
        for section in (plan.split, plan.validation):
            if section.seed is not None and section.seed + repeats - 1 > SEED_RANGE[1]:
                doc.fail(path, f"{plan.name}: seed {section.seed} + {repeats - 1} repeats "
                               f"passes the largest seed {SEED_RANGE[1]}; lower the seed")
        if repeats > 1 and plan.split.seed is None and plan.validation.seed is None:
            doc.fail(path, f"{plan.name}: a standard split with given validation has no seed, "
                           f"so every repeat would be the same run; use repeats: 1 or a "
                           f"holdout or k-fold validation")


def _dag_orders(doc, value, path, schemes):
    """``dag_orders``: an integer in [0, MAX_DAG_ORDERS]; more than 0 needs the dag scheme."""
    orders = check_number(doc, value, path, integer=True)
    if not 0 <= orders <= MAX_DAG_ORDERS:
        doc.fail(path, f"must be an integer from 0 to {MAX_DAG_ORDERS}, got {orders}")
    if orders and ORDER_STUDY not in schemes:
        doc.fail(path, f"the DAG order study needs the {ORDER_STUDY} scheme; add {ORDER_STUDY} "
                       f"to schemes ({joined(schemes)}) or set dag_orders: 0")
    return orders


def _rope(doc, value, path):
    """``rope``: the half-width of the region of practical equivalence of the Bayesian
    signed-rank test over datasets (``report.verdict``), in points of test error (1 = one
    point of accuracy), a number from 0 (no ROPE) to 50."""
    rope = check_number(doc, value, path)
    if not ROPE_RANGE[0] <= rope <= ROPE_RANGE[1]:
        doc.fail(path, f"must be from {ROPE_RANGE[0]:g} to {ROPE_RANGE[1]:g} points of test "
                       f"error (1 = one point of accuracy), got {rope}")
    return float(rope)


def _layout(doc, value, path):
    """``layout``: which tables the report shows, one of LAYOUTS: ``table-1`` (the Table-1
    report alone) or ``hsu-lin`` (Hsu & Lin's 2002 Tables II and III after it;
    :mod:`multisvm_cli.report.hsu_lin`)."""
    return check_choice(doc, value, path, LAYOUTS, "layout")


def _compare_to(doc, value, path, schemes):
    """The scheme McNemar's test compares the others with, as given: it must be run."""
    if isinstance(value, str) and own_name(value) in schemes:
        return own_name(value)  # a user's classifier row, by its label
    compare_to = _scheme(doc, value, path)
    if compare_to not in schemes:
        doc.fail(path, f"scheme {compare_to!r} is not run; choose one of the "
                       f"schemes: {joined(schemes)}")
    return compare_to


def _default_compare_to(doc, schemes):
    """``compare_to`` when absent: the registry's reference (DAGSVM) when it is run, else the
    first scheme."""
    return REFERENCE if REFERENCE in schemes else schemes[0]


def _estimate(doc, value, path, split):
    """``estimate``: nested, cv-best or a list of both, as a tuple in ESTIMATES order; cv-best
    needs a k-fold outer split (it is a k-fold cross-validation error)."""
    chosen = check_list(doc, value, path,
                        lambda v, p: check_choice(doc, v, p, ESTIMATES, "estimate"))
    if "cv-best" in chosen and split.method != "kfold":
        doc.fail(path, f"estimate cv-best is a k-fold cross-validation error: it needs split: "
                       f"{{method: kfold, k: K}}, not {split.method}")
    return tuple(e for e in ESTIMATES if e in chosen)


def resolved_estimate(estimate):
    """The resolved config's ``estimate``: one name, or the list of both."""
    return list(estimate) if len(estimate) > 1 else estimate[0]



def _measured(doc, value, path):
    """``measured``: the config's last real run, {seconds: its wall time, cores: the machine's
    cores, date: YYYY-MM-DD, page: the documentation page that records it}, all four written;
    ``multisvm configs`` shows it, the run itself never reads it."""
    check_mapping(doc, value, path, MEASURED)
    for key in MEASURED:
        if key not in value:
            doc.fail(path, f"missing key {key!r}; measured needs {joined(MEASURED)}")
    check_number(doc, value["seconds"], path + ("seconds",), positive=True)
    check_number(doc, value["cores"], path + ("cores",), positive=True, integer=True)
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(value["date"])):
        doc.fail(path + ("date",), f"expected a date YYYY-MM-DD, got {show(value['date'])}")
    if not isinstance(value["page"], str) or not value["page"]:
        doc.fail(path + ("page",), f"expected the page that records the run, got "
                                   f"{show(value['page'])}")
    return dict(value, date=str(value["date"]))
