"""The limit on classes for a scheme whose cost is quadratic in their number (issue #56).

A pairwise scheme (the registry's ``pairwise``: Max Wins, DAGSVM, ADAG, pairwise coupling; and
ECOC with the ``ovo`` code) trains one SVM per pair of classes: k (k - 1) / 2 of them, each
kept in memory, so 10,000 classes would make 50 million. Such a run (``validate``, a run,
``compare``, ``train`` of such a scheme) is refused in one line before any run folder or model
exists when its dataset has more than :func:`limit` classes: the config's ``max_classes``
(:data:`.keys.KEYS`; ``compare --max-classes``), 1,000 by default. Schemes linear in k (1-v-r,
naive Bayes, ...) have no limit.
"""

from __future__ import annotations

import numpy as np

from ...base.errors import MultisvmError

DEFAULT = 1000


def limit(config) -> int:
    """The most classes a pairwise scheme of ``config`` (a Config, or the protocol's
    :class:`.resolved.Study` of one: the functions here read its ``schemes``,
    ``scheme_options`` and ``max_classes``) may run on: its ``max_classes``, else
    :data:`DEFAULT`."""
    return DEFAULT if config.max_classes is None else config.max_classes


def pairwise_schemes(config, schemes=None) -> list:
    """The schemes of ``config`` (or those of ``schemes``, among them) that train one SVM per
    pair of classes."""
    from ...estimators.registry import REGISTRY

    schemes = config.schemes if schemes is None else schemes
    found = [s for s in schemes if s in REGISTRY and REGISTRY[s].pairwise]
    ecoc = config.scheme_options.get("ecoc", {})
    if "ecoc" in schemes and ecoc.get("code") == "ovo":
        found.append("ecoc")
    return found


def check_class_limit(config, plan, dataset, schemes=None) -> None:
    """Refusal (one line, naming the config or compare's file) when a pairwise scheme of
    ``config`` (of ``schemes``: ``train``'s one) would run on ``dataset`` (``plan``'s) with
    more than :func:`limit` classes."""
    schemes = pairwise_schemes(config, schemes)
    if not schemes:
        return
    k = len(np.unique(np.concatenate([y for _, y in dataset.parts.values()])))
    most = limit(config)
    if k > most:
        from ...estimators.registry import label

        where = plan.where["split"].path
        raise MultisvmError(
            f"{where}: schemes: {plan.name} has {k:,} classes, more than {most:,}: "
            f"{', '.join(map(label, schemes))} would train {k * (k - 1) // 2:,} pairwise SVMs; "
            f"choose schemes linear in the classes (1-v-r, NB, C&S, ...) or raise the limit "
            f"with max_classes (compare: --max-classes)")
