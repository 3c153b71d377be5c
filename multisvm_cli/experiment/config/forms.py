"""The split and the validation of a dataset's plan as named objects: :class:`Split` and
:class:`Validation`, frozen, read by attribute (``plan.split.method``, ``plan.split.k``).

:data:`SPLIT_FORMS` and :data:`VALIDATION_FORMS` declare each method's own keys and their
defaults (None: required), and :data:`OWN_KINDS` what each own key holds;
:func:`.sections._section` checks a config's value against them and builds the object, the one
place a config's split or validation becomes one, and a saved model's metadata is checked
against the same declaration (:func:`..models.metadata.check_training_metadata`). A method with
own keys also has a ``seed``; one without (``standard``, ``given``, and the protocol's
own ``all`` split and ``test`` validation) has none (``seed`` is None).
:meth:`Section.as_dict` writes it back as the config, the resolved config, a saved model and
the resume-cache key write it: ``{method, own keys in the form's order, seed}``."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

SPLIT_FORMS = {"standard": {}, "holdout": {"test_fraction": 0.25}, "kfold": {"k": 10},
               "draws": {"draws": 20, "n_train": None, "n_test": None}}  # None: required
VALIDATION_FORMS = {"holdout": {"train_fraction": 0.7}, "given": {}, "kfold": {"k": 10}}
# what each own key holds: a share in (0, 1), a number of folds (>= 2), or a count (>= 1)
OWN_KINDS = {"test_fraction": "share", "train_fraction": "share", "k": "folds",
             "draws": "count", "n_train": "count", "n_test": "count"}


@dataclass(frozen=True)
class Section:
    """A split or a validation: its ``method`` and, where the method has own keys, its
    ``seed``; a subclass adds the own keys' fields (None where the method has not the key)."""

    method: str
    seed: int | None = None

    FORMS: ClassVar[dict] = {}

    @classmethod
    def of(cls, mapping) -> Section:
        """The object of a ``{method, own keys..., seed}`` mapping already checked (a config's
        by :func:`.sections._section`, a saved model's by its metadata check)."""
        return cls(**mapping)

    def as_dict(self) -> dict:
        """``{method, own keys in the form's order, seed}``, as the config writes it."""
        own = {key: getattr(self, key) for key in self.FORMS.get(self.method, {})}
        return {"method": self.method, **own,
                **({"seed": self.seed} if self.seed is not None else {})}

    def shifted(self, by) -> Section:
        """This section with its seed increased by ``by`` (itself when it has no seed)."""
        return self if self.seed is None else replace(self, seed=self.seed + by)


@dataclass(frozen=True)
class Split(Section):
    """The outer split: ``standard`` (the dataset's own parts), ``holdout`` (``test_fraction``),
    ``kfold`` (``k``), ``draws`` (``draws`` random draws of ``n_train`` and ``n_test`` rows), or
    the protocol's ``all`` (every row trains the final model)."""

    test_fraction: float | None = None
    k: int | None = None
    draws: int | None = None
    n_train: int | None = None
    n_test: int | None = None

    FORMS: ClassVar[dict] = SPLIT_FORMS

    @property
    def outer_folds(self) -> int:
        """How many outer folds it makes: k (k-fold), its draws (draws), else one."""
        return self.k or self.draws or 1


@dataclass(frozen=True)
class Validation(Section):
    """How a grid point is scored: ``holdout`` (``train_fraction`` of the training part fits),
    ``given`` (the dataset's validation part), ``kfold`` (``k``), or the cv-best estimate's
    ``test`` (the outer fold's own test part)."""

    train_fraction: float | None = None
    k: int | None = None

    FORMS: ClassVar[dict] = VALIDATION_FORMS

    @property
    def splits(self) -> int:
        """How many validation splits it makes: k (k-fold), else one."""
        return self.k or 1


def written(section):
    """``section`` as the config writes it (:meth:`Section.as_dict`); a plain mapping (a
    stand-in plan's) as it is."""
    return section.as_dict() if isinstance(section, Section) else section
