"""The limit on classes for a scheme whose cost is quadratic in their number (issue #56).

A pairwise scheme (the registry's ``pairwise``: Max Wins, DAGSVM, ADAG, pairwise coupling; and
ECOC with the ``ovo`` code) trains one SVM per pair of classes: k (k - 1) / 2 of them, each
kept in memory, so 10,000 classes would make 50 million. Such a run is refused in one line
before any run folder exists when its dataset has more than :func:`limit` classes: 1,000 by
default, set by the environment variable :data:`VARIABLE`. Schemes linear in k (1-v-r, naive
Bayes, ...) have no limit.
"""

from __future__ import annotations

import os

import numpy as np

from ...base.errors import MultisvmError

VARIABLE = "MULTISVM_MAX_CLASSES"
DEFAULT = 1000


def limit() -> int:
    """The most classes a pairwise scheme may run on: $MULTISVM_MAX_CLASSES, else
    :data:`DEFAULT`; a value that is not a whole number >= 2 is refused in one line."""
    text = os.environ.get(VARIABLE)
    if text is None:
        return DEFAULT
    if not text.strip().isascii() or not text.strip().isdigit() or int(text) < 2:
        raise MultisvmError(f"{VARIABLE}={text!r}: expected a whole number of classes, 2 or "
                            f"more (default {DEFAULT})")
    return int(text)


def pairwise_schemes(config) -> list:
    """The schemes of ``config`` that train one SVM per pair of classes."""
    from ...estimators.registry import REGISTRY

    found = [s for s in config.schemes if s in REGISTRY and REGISTRY[s].pairwise]
    ecoc = config.scheme_options.get("ecoc", {})
    if "ecoc" in config.schemes and ecoc.get("code") == "ovo":
        found.append("ecoc")
    return found


def check_class_limit(config, plan, dataset) -> None:
    """ConfigError-like refusal (one line, naming the config or compare's file) when a pairwise
    scheme of ``config`` would run on ``dataset`` (``plan``'s) with more than :func:`limit`
    classes."""
    schemes = pairwise_schemes(config)
    if not schemes:
        return
    k = len(np.unique(np.concatenate([y for _, y in dataset.parts.values()])))
    most = limit()
    if k > most:
        from ...estimators.registry import label

        where = plan.where["split"].path
        raise MultisvmError(
            f"{where}: schemes: {plan.name} has {k:,} classes, more than {most:,}: "
            f"{', '.join(map(label, schemes))} would train {k * (k - 1) // 2:,} pairwise SVMs; "
            f"choose schemes linear in the classes (1-v-r, NB, C&S, ...) or raise the limit "
            f"with {VARIABLE}")
