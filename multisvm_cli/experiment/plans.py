"""Plan transforms: a dataset's plan (:class:`.config.DatasetPlan`) turned into the plan and the
data one run of it uses. The protocol, a sweep and the checks against the data
(:mod:`.config.against_data`) all derive plans here, so what ``validate`` checks is what a run
runs.

- :func:`repeat_plan`: repeat r of a plan (split and validation seeds + r);
- :func:`parts_needed` and :func:`load_plan_data`: the parts a plan reads, and its Dataset;
- :func:`derive`: one sweep value at one repeat, as a one-repeat study and a derived dataset:

  - ``classes`` k: k classes (the k largest, or drawn uniformly with numpy's default generator
    seeded by seed + r: a new draw per repeat, the same draw for the same seed); every part of
    the dataset keeps only their rows;
  - ``train_fraction`` f: all rows are pooled, a stratified 30% test part is held out (seed +
    r: the same test part for every f of a repeat), and a stratified f of all rows, drawn from
    the other 70%, trains (f = 0.7: all of them), as in Godbole et al.'s Figure 11; the
    config's split is replaced by these parts;
  - a scheme option: that option replaced by the value.

  The derived dataset gets its own name (``iris classes=2 #1``) and a checksum entry naming
  the derivation (:func:`derivation`: the exact value, the drawn classes), so the resume cache
  never mixes its points with the whole dataset's or another value's.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from sklearn.model_selection import train_test_split

from ..base.errors import MultisvmError
from .config.forms import Split
from .config.sweep import TEST_FRACTION, swept_options, sweep_name
from .splits import pooled


def repeat_plan(plan, repeat):
    """``plan`` for repeat ``repeat`` (0, 1, ...): the split's and the validation's seeds (where
    they have one) increased by ``repeat``; repeat 0 is ``plan`` itself."""
    if repeat == 0:
        return plan
    return replace(plan, split=plan.split.shifted(repeat),
                   validation=plan.validation.shifted(repeat))


def parts_needed(plan):
    """The dataset parts a plan reads (None: all of them, pooled for a holdout or k-fold)."""
    if plan.split.method != "standard":
        return None
    return ["train", "test"] + (["validation"] if plan.validation.method == "given" else [])


def load_plan_data(plan, parts=None, mirror=None, data_home=None, quiet=False):
    """The Dataset of one plan: its local data file(s) (``plan.local``), else the registry's
    dataset, only ``parts`` (None: all)."""
    from .. import data

    if plan.local is not None:
        return data.load_local(plan.local, parts)
    return data.load(plan.name, parts=parts, mirror=mirror, data_home=data_home,
                     progress=not quiet)


def derive(study, plan, dataset, value, repeat):
    """(one-repeat study, derived dataset, classes kept or None) for ``value`` of ``study``'s
    sweep (``study``: a :class:`.config.resolved.Study`) at ``repeat``."""
    sweep = study.sweep
    seed = study.seed + repeat
    planned = repeat_plan(plan, repeat)
    options = study.scheme_options
    drawn = None
    if sweep["kind"] == "classes":
        drawn = pick_classes(dataset, value, sweep["order"], seed)
        derived = keep_classes(dataset, drawn)
    elif sweep["kind"] == "train_fraction":
        derived = fraction_parts(dataset, value, seed)
        planned = replace(planned, split=Split("standard"))
    else:
        options = {**options, sweep["scheme"]: {**options.get(sweep["scheme"], {}),
                                                **swept_options(sweep, value)}}
        derived = dataset
    name = f"{plan.name} {sweep_name(sweep)}={_text(value)}"
    if study.repeats > 1:
        name += f" #{repeat}"
    derived = replace(derived, name=name,
                      checksums={**derived.checksums,
                                 "sweep": derivation(name, value, seed, drawn, sweep)})
    one = replace(study, plans=(replace(planned, name=name),), repeats=1,
                  scheme_options=options, sweep=None)
    return one, derived, drawn


def derivation(name, value, seed, drawn, sweep) -> str:
    """The checksum entry naming a derived dataset: its name, the value exactly (``repr``:
    0.1 and 0.09999999 print alike under ``:g`` but are two values), the seed, and for a
    classes sweep the drawn classes in their order and the draw's ``order`` (the resume cache
    keys on it, so two draws never share a grid point)."""
    text = f"{name} seed {seed} value {value!r}"
    if drawn is not None:
        text += f" classes [{', '.join(map(repr, drawn))}] order {sweep['order']}"
    return text


def pick_classes(dataset, k, order, seed) -> list:
    """``k`` of the dataset's classes: the ``largest`` (most rows; ties by label), or drawn at
    random (``numpy.random.default_rng(seed)``), in label order."""
    _, y = pooled(dataset)
    classes, counts = np.unique(y, return_counts=True)
    if k > len(classes):
        raise MultisvmError(f"{dataset.name} has {len(classes)} classes; the classes sweep "
                            f"asks for {k}")
    if order == "largest":
        chosen = classes[np.argsort(-counts, kind="stable")[:k]]
    else:
        chosen = np.random.default_rng(seed).choice(classes, size=k, replace=False)
    return sorted(chosen.tolist())


def keep_classes(dataset, classes):
    """``dataset`` with only the rows of ``classes`` in every part."""
    parts = {}
    for part, (X, y) in dataset.parts.items():
        rows = np.flatnonzero(np.isin(y, classes))
        parts[part] = (X[rows], y[rows])
    return replace(dataset, parts=parts)


def fraction_parts(dataset, fraction, seed):
    """``dataset`` as a train part of ``fraction`` of all rows and a test part of 30% (both
    stratified, seeded; see the module's docstring)."""
    X, y = pooled(dataset)
    rest, test = train_test_split(np.arange(len(y)), test_size=TEST_FRACTION, stratify=y,
                                  random_state=seed)
    share = fraction * len(y) / len(rest)
    if share < 1:
        try:
            rest, _ = train_test_split(rest, train_size=share, stratify=y[rest],
                                       random_state=seed)
        except ValueError as exc:
            raise MultisvmError(f"{dataset.name}: a train_fraction of {fraction} is too small "
                                f"to keep every class ({exc})") from None
    rest, test = np.sort(rest), np.sort(test)
    return replace(dataset, parts={"train": (X[rest], y[rest]), "test": (X[test], y[test])})


def _text(value) -> str:
    """A swept value in a derived dataset's name (a several-option value: ``ovr+hamming``)."""
    if isinstance(value, tuple):
        return "+".join(map(_text, value))
    return "natural" if value is None else f"{value:g}" if isinstance(value, float) else str(value)
