"""Can this config run? The checks of a config that need its data, one module for
``multisvm validate`` and the run (:func:`check_against_data`), each failing as
``file:line: key: message`` before a run folder exists:

- the split and the validation method fit the data, on every repeat's seeds (every training
  part holds every class twice over, k no larger than a class, a test part that is not empty;
  a draws split's n_train + n_test within the dataset's rows, and every class of the dataset
  in each draw's training part, with at least the validation's k folds of rows, or 2 for a
  holdout), and libsvm can fit the
  polynomial kernels on the data's scale (:func:`check_plan`; it runs the protocol's own
  splitting code, :mod:`..splits`, on the labels alone);
- text ``features``: ``min_df`` and ``max_df`` that keep no term on the number of training
  documents the vectorizer is fitted on (a count against a fraction: it depends on that
  number), and documents in which the analyzer finds no term at all (an empty vocabulary);
- a ``sweep``: every value on every repeat is derived as the run derives it
  (:func:`..plans.derive`: more classes than the dataset has, a ``train_fraction`` too small
  to keep every class), and the derived plan's splits are checked (:func:`check_plan`);
- each scheme's options against the dataset's classes (a local file's written options, and
  every swept value): the scheme's own check (an ADAG/DAG ``order`` listing every class once,
  an ECOC ``code`` with one row per class, an exhaustive code on at most 12 classes);
- multinomial naive Bayes (a scheme's ``nb: multinomial``, written or swept) on data whose
  scaled values can be negative (MultinomialNB takes counts).

:func:`validate` runs them on the data it finds locally (no download); ``reproduce-table``
(:func:`load_datasets`) on the data it loaded, and ``train`` runs :func:`check_plan`
on its training data, before anything is written.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from ...base.errors import MultisvmError, one_line
from ...base.thread_warnings import caught
from ..splits import named_warnings, outer_index_folds, pooled, validation_index_splits
from .class_limit import check_class_limit
from .sweep import swept_options

# libsvm multiplies and sums kernel values (its gradients, the decision values): past
# sqrt(float64 max) = 1.3e154 those overflow, so a kernel value may reach at most 1e150.
MAX_KERNEL_LOG10 = 150


def validate(path, mirror=None, data_home=None, datasets=()) -> tuple:
    """Every check a run would make of the config at ``path`` (a file, or a shipped config's
    name): (Config, notes); ``datasets`` (names), when given, keeps only those of the config
    (:meth:`.Config.only`).

    The checks that need the data (:func:`check_against_data`) run on the datasets found
    locally (parsed cache, data home, mirror or installed package: never a download); a local
    data file is always read, so every file error shows now; ``notes`` says which registry
    datasets could not be checked.
    """
    from ... import data
    from ..plans import load_plan_data, parts_needed
    from ..shipped import config_path
    from .load import load_config

    config = load_config(config_path(path))
    if datasets:
        config = config.only(datasets)
    notes = []
    for plan in config.datasets:
        if plan.local is not None:
            check_against_data(config, plan, load_plan_data(plan))
            continue
        wanted = parts_needed(plan) or list(data.get_card(plan.name).parts)
        wanted = [part for part in wanted if part != "test" or plan.split.method != "standard"]
        available = data.available_parts(plan.name, mirror=mirror, data_home=data_home)
        if not set(wanted) <= set(available):
            notes.append(f"# {plan.name}: not found locally; its split sizes were not checked")
            continue
        loaded = data.load(plan.name, parts=wanted, mirror=mirror, data_home=data_home,
                           progress=False)
        check_against_data(config, plan, loaded)
    return config, notes


def load_datasets(config, mirror=None, data_home=None, quiet=False) -> dict:
    """Every dataset of ``config`` (name -> Dataset), only the parts its plan needs, checked
    against the config (:func:`check_against_data`: the checks ``multisvm validate`` makes)
    before anything is computed."""
    from ..plans import load_plan_data, parts_needed

    loaded = {}
    for plan in config.datasets:
        loaded[plan.name] = load_plan_data(plan, parts_needed(plan), mirror, data_home, quiet)
        check_against_data(config, plan, loaded[plan.name])
    return loaded


def check_against_data(config, plan, dataset) -> None:
    """ConfigError for the first problem of the module's list on ``plan`` of ``config`` with
    ``dataset`` (its data): the checks ``multisvm validate`` and a run share."""
    check_class_limit(config, plan, dataset)
    check_plan(plan, dataset, config.repeats)
    if dataset.card.kind == "text" and plan.features is not None:
        _check_features(plan, dataset)
    _check_multinomial(config, plan, dataset)
    _check_option_classes(config, plan, dataset)
    if config.sweep is not None:
        _check_sweep(config, plan, dataset)


def check_plan(plan, dataset, repeats=1) -> None:
    """ConfigError (naming the split, validation or kernels key) when ``plan``'s splits cannot
    be made on ``dataset``'s labels, or leave a training part with fewer than two classes, on
    any of ``repeats`` repeats' seeds (:func:`..plans.repeat_plan`; the message names a repeat
    after the first), or a polynomial degree overflows on the scaled data
    (:func:`_check_polynomials`); warns when the data runs unscaled with column ranges far
    apart (``config.datasets.unscaled_ranges``)."""
    from ..plans import repeat_plan
    from .datasets import unscaled_ranges

    _check_polynomials(plan, dataset)
    if (ranges := unscaled_ranges(plan, dataset)) is not None:
        warnings.warn(ranges, UserWarning, stacklevel=2)
    _check_splits(plan, dataset)
    for repeat in range(1, repeats):
        planned = repeat_plan(plan, repeat)
        if (planned.split, planned.validation) != (plan.split, plan.validation):  # seeded
            _check_splits(replace(planned, name=f"{plan.name} (repeat {repeat})"), dataset)


def _check_splits(plan, dataset) -> None:
    """:func:`check_plan`'s checks of the splits of one repeat's ``plan``."""
    _check_unseen(plan, dataset)
    for y_train in _training_labels(plan, dataset):
        _check_classes(plan, "split", y_train, "an outer fold's training part")
        if plan.validation.method == "given":
            continue
        try:
            with caught():  # dropped: the run shows them, once, with the dataset
                pieces = validation_index_splits(y_train, plan.validation)
        except ValueError as exc:
            raise plan.where["validation"].error(_reason(plan, exc)) from None
        for fit_rows, score_rows in pieces:
            _check_classes(plan, "validation", y_train[fit_rows], "a validation fit part")
            if len(score_rows) == 0:
                raise plan.where["validation"].error(f"{plan.name}: a validation part is empty")


def _check_unseen(plan, dataset) -> None:
    """ConfigError at ``features`` when a csv table's outer fold tests a category its training
    part never has, under ``unseen: refuse`` (a test file's are checked as it is read)."""
    from ...data.encoding import unseen_categories

    encoding = getattr(dataset, "encoding", None)
    if encoding is None or not encoding.categorical or encoding.unseen != "refuse" or \
            plan.split.method in ("standard", "all"):
        return
    X, y = pooled(dataset)
    for number, (train, test) in enumerate(outer_index_folds(y, plan.split), 1):
        if (found := unseen_categories(encoding, X[train], X[test])) is not None:
            raise plan.where["features"].error(
                f"{plan.name}: {found[0]} {found[1]!r} is in outer fold {number}'s test part "
                "but not in its training part; features: {unseen: zeros} (compare: --unseen "
                "zeros) maps it to all-zero one-hot columns")


def _check_polynomials(plan, dataset):
    """ConfigError at ``kernels`` when a polynomial kernel's largest value on the scaled data,
    bounded by Cauchy-Schwarz as (max |x|^2 + 1)^degree ((max |x|^2)^degree homogeneous),
    passes 10^MAX_KERNEL_LOG10: libsvm's fit would not be finite."""
    from ...data.encoding import encoded, encoded_card
    from ...data.scaling import make_scaler, resolve

    degrees = sorted({(p.degree, bool(p.homogeneous)) for p in plan.grid
                      if p.kernel == "polynomial"})
    if not degrees or dataset.card.kind == "text":
        return
    X, card = pooled(dataset)[0], dataset.card
    if getattr(dataset.encoding, "encodes", False):  # a csv table's text / missing cells
        X = encoded(dataset.encoding, X)[0]
        card = encoded_card(card, X.shape[1])
    Z = make_scaler(plan.scaling, card).fit(X).transform(X)
    norms = Z.multiply(Z).sum(axis=1) if sp.issparse(Z) else np.einsum("ij,ij->i", Z, Z)
    largest = float(np.max(norms))
    for degree, homogeneous in degrees:
        base = largest + (0.0 if homogeneous else 1.0)
        if base > 1 and degree * math.log10(base) > MAX_KERNEL_LOG10:
            form = "(x.y)" if homogeneous else "(x.y + 1)"
            raise plan.where["kernels"].error(
                f"{plan.name}: polynomial degree {degree} reaches {form}^{degree} = "
                f"1e{degree * math.log10(base):.0f} on the data (scaling "
                f"{resolve(plan.scaling, dataset.card)}, largest |x|^2 = {largest:.3g}), past "
                f"the 1e{MAX_KERNEL_LOG10} "
                f"libsvm can sum; use degree <= {int(MAX_KERNEL_LOG10 / math.log10(base))} or "
                f"scale the features")


def _training_labels(plan, dataset):
    """The labels of every outer fold's training part (the splitting code of a run)."""
    if plan.split.method == "standard":
        return [dataset.parts["train"][1]]
    _, y = pooled(dataset)
    if plan.split.method == "draws":
        _check_draw_sizes(plan, len(y))
    try:
        with named_warnings(dataset.name):
            folds = outer_index_folds(y, plan.split)
    except ValueError as exc:
        raise plan.where["split"].error(_reason(plan, exc)) from None
    for _, test_rows in folds:
        if len(test_rows) == 0:
            raise plan.where["split"].error(f"{plan.name}: a test part is empty")
    if plan.split.method == "draws":
        classes = np.unique(y)
        for draw, (train_rows, _) in enumerate(folds):
            _check_draw_classes(plan, y[train_rows], classes, draw)
    return [y[train_rows] for train_rows, _ in folds]


def _check_draw_sizes(plan, n_rows):
    """ConfigError at ``split`` when a draw asks for more rows than the dataset has."""
    n_train, n_test = plan.split.n_train, plan.split.n_test
    if n_train + n_test > n_rows:
        raise plan.where["split"].error(
            f"{plan.name}: n_train + n_test = {n_train:,} + {n_test:,} = {n_train + n_test:,} "
            f"is more than the dataset's {n_rows:,} rows; lower n_train or n_test")


def _check_draw_classes(plan, labels, classes, draw):
    """ConfigError at ``split`` when one of the dataset's ``classes`` has fewer rows in a
    draw's training part (``labels``) than the selection needs: none at all (the machines would
    never learn it, and its test rows would all be wrong), fewer than a k-fold validation's k
    folds (a fold without it), or than a stratified holdout's 2."""
    method = plan.validation.method
    needed = plan.validation.k if method == "kfold" else 2 if method == "holdout" else 1
    counts = np.array([np.count_nonzero(labels == label) for label in classes])
    if counts.min() >= needed:
        return
    fewest, count = classes[np.argmin(counts)].item(), int(counts.min())
    because = (f"fewer than the validation's {needed} folds; raise n_train or lower k"
               if method == "kfold" else f"fewer than {needed}; raise n_train")
    raise plan.where["split"].error(
        f"{plan.name}: draw {draw}'s training part has {count} rows of class {fewest!r}, "
        f"{because}")


def _check_classes(plan, key, labels, what):
    classes = np.unique(labels)
    if len(classes) < 2:
        raise plan.where[key].error(f"{plan.name}: {what} has {len(labels)} rows of "
                                    f"{len(classes)} class; a multiclass SVM needs at least two")


def _reason(plan, exc) -> str:
    return f"{plan.name}: {one_line(exc)}"


def _training_sizes(plan, dataset):
    """The fewest and the most documents a vectorizer of ``plan`` is fitted on: the validation
    fit part and the whole training part of an outer fold (pooled rows x their shares)."""

    split = plan.split
    if split.method == "standard":
        n_train = len(dataset.parts["train"][1])
    elif split.method == "draws":
        n_train = split.n_train
    else:
        share = {"holdout": 1 - (split.test_fraction or 0),
                 "kfold": 1 - 1 / (split.k or 1)}.get(split.method, 1.0)
        n_train = int(len(pooled(dataset)[1]) * share)
    fraction = plan.validation.train_fraction
    if fraction is None and plan.validation.k is not None:
        fraction = 1 - 1 / plan.validation.k
    return max(1, int(n_train * (fraction or 1.0))), n_train


def _check_features(plan, dataset):
    from ...data.text.features import doc_counts, vectorizer

    settings = plan.features
    for n in _training_sizes(plan, dataset):
        low, high = doc_counts(settings, n)
        if high < low:
            raise plan.where["features"].error(
                f"{plan.name}: on {n:,} training documents min_df {settings.min_df} keeps terms "
                f"in {low:g} or more documents and max_df {settings.max_df} in {high:g} or "
                "fewer: no term is kept; lower min_df or raise max_df")
    docs = dataset.parts["train"][0] if "train" in dataset.parts else pooled(dataset)[0]
    analyze = vectorizer(settings).build_analyzer()
    if not any(analyze(str(doc)) for doc in docs):
        raise plan.where["features"].error(
            f"{plan.name}: no training document has a term under these features (stop words "
            f"{settings.stop_words}, ngram_range {list(settings.ngram_range)}): the vocabulary "
            "would be empty")


def _multinomial_schemes(config):
    """(scheme, where) of every scheme that would fit a multinomial naive Bayes."""
    found = [(s, "scheme_options") for s, o in config.scheme_options.items()
             if o.get("nb") == "multinomial"]
    sweep = config.sweep
    if sweep and sweep["kind"] == "option" and any(
            swept_options(sweep, value).get("nb") == "multinomial" for value in sweep["values"]):
        found.append((sweep["scheme"], "sweep"))
    return [(s, w) for s, w in found if s in config.schemes]


def _check_multinomial(config, plan, dataset):
    from ...data.encoding import encoded, encoded_card
    from ...data.scaling import make_scaler, resolve

    schemes = _multinomial_schemes(config)
    if not schemes or dataset.card.kind == "text":  # tf-idf and counts are never negative
        return
    X, card = pooled(dataset)[0], dataset.card
    if getattr(dataset.encoding, "encodes", False):  # a csv table's text / missing cells
        X = encoded(dataset.encoding, X)[0]
        card = encoded_card(card, X.shape[1])
    Z = make_scaler(plan.scaling, card).fit(X).transform(X)
    lowest = float((Z.data if sp.issparse(Z) else Z).min(initial=0.0))
    if lowest < 0:
        scheme, where = schemes[0]
        raise plan.where[where].error(
            f"{plan.name}: {scheme} with nb: multinomial needs non-negative features (counts), "
            f"but under scaling {resolve(plan.scaling, dataset.card)} a value is {lowest:.3g}; "
            "use nb: gaussian, or a scaling that keeps values >= 0 (minmax, none)")


def _check_sweep(config, plan, dataset):
    from ..plans import derive

    where = plan.where["sweep"]
    for value in config.sweep["values"]:
        for repeat in range(config.repeats):
            try:
                one, derived, _ = derive(config.study(), plan, dataset, value, repeat)
            except MultisvmError as exc:
                raise where.error(one_line(exc)) from None
            check_plan(replace(one.plans[0], where=plan.where), derived)


def _check_option_classes(config, plan, dataset):
    """Each scheme's options against the dataset's classes, by the scheme's own check
    (``_check_option_classes``): a local file's written options (a registry dataset's were
    checked against its card, :func:`.sections._check_option_classes`) and every swept
    value, named as ``file:line: key: dataset: <the scheme's sentence>``."""
    from ...estimators.options import OptionError
    from ...estimators.registry import REGISTRY

    written = plan.where.get("scheme_options")
    checks = [(scheme, name, value, plan.where.get(("scheme_options", scheme, name), written), name)
              for scheme, given in config.scheme_options.items() if plan.local is not None
              for name, value in given.items()]
    sweep = config.sweep
    if sweep is not None and sweep["kind"] == "option":
        checks += [(sweep["scheme"], option, one, plan.where["sweep"], f"{option} {one}")
                   for value in sweep["values"]
                   for option, one in swept_options(sweep, value).items()]
    checks = [check for check in checks if check[0] in REGISTRY]  # not a user's classifier row
    classes = np.unique(np.concatenate([y for _, y in dataset.parts.values()])) if checks else None
    for scheme, name, value, where, named in checks:
        try:
            REGISTRY[scheme].estimator._check_option_classes(name, value, classes, named)
        except ValueError as exc:
            raise where.error(f"{plan.name}: {exc}") from None
    for scheme, given in config.scheme_options.items():
        if plan.local is not None and scheme in REGISTRY and given:
            try:
                REGISTRY[scheme].estimator._check_options_together(given, classes)
            except OptionError as exc:
                where = plan.where.get(("scheme_options", scheme, exc.option), written)
                raise where.error(f"{plan.name}: {exc}") from None
