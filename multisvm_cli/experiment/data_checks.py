"""The checks of a config that need both the whole config and a dataset's data (issue #33).

:mod:`.validation` checks one plan's splits against its data; these check what a run would
otherwise refuse only after creating its folder, each as ``file:line: key: message``:

- text ``features``: ``min_df`` and ``max_df`` that keep no term on the number of training
  documents the vectorizer is fitted on (a count against a fraction: it depends on that
  number), and documents in which the analyzer finds no term at all (an empty vocabulary);
- a ``sweep``: every value on every repeat is derived as the run derives it
  (:func:`.sweep.derive`: more classes than the dataset has, a ``train_fraction`` too small
  to keep every class), and the derived plan's splits are checked (:func:`.validation.check_plan`);
- each scheme's options against the dataset's classes (a local file's written options, and
  every swept value): the scheme's own check (an ADAG/DAG ``order`` listing every class once,
  an ECOC ``code`` with one row per class, an exhaustive code on at most 12 classes);
- multinomial naive Bayes (a scheme's ``nb: multinomial``, written or swept) on data whose
  scaled values can be negative (MultinomialNB takes counts).

``multisvm validate`` runs them on the data it finds locally; ``reproduce-table`` and ``train``
on the data they loaded, before a run folder exists.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from ..base.errors import MultisvmError, one_line


def check_config_data(config, plan, dataset) -> None:
    """ConfigError for the first problem of the module's list on ``plan`` of ``config``."""
    if dataset.card.kind == "text" and plan.features is not None:
        _check_features(plan, dataset)
    _check_multinomial(config, plan, dataset)
    _check_option_classes(config, plan, dataset)
    if config.sweep is not None:
        _check_sweep(config, plan, dataset)


def _training_sizes(plan, dataset):
    """The fewest and the most documents a vectorizer of ``plan`` is fitted on: the validation
    fit part and the whole training part of an outer fold (pooled rows x their shares)."""
    from .splits import pooled

    split = plan.split
    if split["method"] == "standard":
        n_train = len(dataset.parts["train"][1])
    else:
        share = {"holdout": 1 - split.get("test_fraction", 0),
                 "kfold": 1 - 1 / split.get("k", 1)}.get(split["method"], 1.0)
        n_train = int(len(pooled(dataset)[1]) * share)
    fraction = plan.validation.get("train_fraction")
    if fraction is None and "k" in plan.validation:
        fraction = 1 - 1 / plan.validation["k"]
    return max(1, int(n_train * (fraction or 1.0))), n_train


def _check_features(plan, dataset):
    from ..data.text.features import doc_counts, vectorizer
    from .splits import pooled

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
    if sweep and sweep["kind"] == "option" and sweep["option"] == "nb" \
            and "multinomial" in sweep["values"]:
        found.append((sweep["scheme"], "sweep"))
    return [(s, w) for s, w in found if s in config.schemes]


def _check_multinomial(config, plan, dataset):
    from ..data.scaling import make_scaler, resolve
    from .splits import pooled

    schemes = _multinomial_schemes(config)
    if not schemes or dataset.card.kind == "text":  # tf-idf and counts are never negative
        return
    X, _ = pooled(dataset)
    Z = make_scaler(plan.scaling, dataset.card).fit(X).transform(X)
    lowest = float((Z.data if sp.issparse(Z) else Z).min(initial=0.0))
    if lowest < 0:
        scheme, where = schemes[0]
        raise plan.where[where].error(
            f"{plan.name}: {scheme} with nb: multinomial needs non-negative features (counts), "
            f"but under scaling {resolve(plan.scaling, dataset.card)} a value is {lowest:.3g}; "
            "use nb: gaussian, or a scaling that keeps values >= 0 (minmax, none)")


def _check_sweep(config, plan, dataset):
    from .run.sweep import derive
    from .validation import check_plan

    where = plan.where["sweep"]
    for value in config.sweep["values"]:
        for repeat in range(config.repeats):
            try:
                one, derived, _ = derive(config, plan, dataset, value, repeat)
            except MultisvmError as exc:
                raise where.error(one_line(exc)) from None
            check_plan(replace(one.datasets[0], where=plan.where), derived)


def _check_option_classes(config, plan, dataset):
    """Each scheme's options against the dataset's classes, by the scheme's own check
    (``_check_option_classes``): a local file's written options (a registry dataset's were
    checked against its card, :func:`.config.sections._check_option_classes`) and every swept
    value, named as ``file:line: key: dataset: <the scheme's sentence>``."""
    from ..estimators.registry import REGISTRY

    written = plan.where.get("scheme_options")
    checks = [(scheme, name, value, plan.where.get(("scheme_options", scheme, name), written), name)
              for scheme, given in config.scheme_options.items() if plan.local is not None
              for name, value in given.items()]
    sweep = config.sweep
    if sweep is not None and sweep["kind"] == "option":
        checks += [(sweep["scheme"], sweep["option"], value, plan.where["sweep"],
                    f"{sweep['option']} {value}") for value in sweep["values"]]
    checks = [check for check in checks if check[0] in REGISTRY]  # not a user's classifier row
    classes = np.unique(np.concatenate([y for _, y in dataset.parts.values()])) if checks else None
    for scheme, name, value, where, named in checks:
        try:
            REGISTRY[scheme].estimator._check_option_classes(name, value, classes, named)
        except ValueError as exc:
            raise where.error(f"{plan.name}: {exc}") from None
