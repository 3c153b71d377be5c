"""The protocol's named state: what a grid search and its final tests need (:class:`Search`),
and where a search's tasks write as they end (:class:`Stores`)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..config.forms import Validation


@dataclass(frozen=True)
class Search:
    """One dataset's grid search and final tests, as :func:`.plan.run_protocol` and
    :func:`.plan.fit_selected` set them up: the ``dataset`` (a loaded ``data.Dataset``), the
    ``plan`` it runs (a ``DatasetPlan``: one repeat's, :func:`..plans.repeat_plan`), the
    ``schemes`` (config rows), their estimator ``options`` ({scheme: options},
    :func:`.plan.plan_options`), the config's ``seed``, whether fits ``reuse`` machines across C
    (``reuse_across_C``) and the ``estimates`` whose grids are scored (``nested``,
    ``cv-best``). ``stage``: None (every unit scores the plan's grid), or a refinement stage's
    {(estimate, fold index, scheme group): its points} (:mod:`.refine`; the plan's grid then
    holds them all)."""

    dataset: object
    plan: object
    schemes: tuple
    options: dict
    seed: int
    reuse: bool = True
    estimates: tuple = ("nested",)
    stage: dict | None = None

    def scoring(self, estimate) -> Search:
        """This search with the plan whose validation scores ``estimate``'s grid
        (:func:`estimate_plan`): what the resume cache keys its points by."""
        return replace(self, plan=estimate_plan(self.plan, estimate))

    def points(self, estimate, fold, group) -> tuple:
        """The grid points the unit (``estimate``, outer ``fold`` index, scheme ``group``)
        scores: the plan's grid, or its points of the :attr:`stage`."""
        if self.stage is None:
            return self.plan.grid
        return self.stage.get((estimate, fold, group), ())


def estimate_plan(plan, estimate):
    """The plan whose validation scores ``estimate``'s grid: the plan itself for ``nested``;
    for ``cv-best`` the outer fold's own test part (validation method ``test``)."""
    return plan if estimate == "nested" else replace(plan, validation=Validation("test"))


@dataclass(frozen=True)
class Stores:
    """Where a grid search's tasks write their points as they end: the resume ``cache`` (a
    ``base.storage.PointCache``), its chain ``states`` (``base.chain_states.ChainStates``), the
    resumed tasks' ``starts`` ({task key: (the PointJob whose state a task starts from, that
    PathPoint)}, :func:`.chains.resolved_chains`) and whether chains keep states
    (``keep_states``: reuse across C, on a backend whose tasks run on this machine, where their
    files land in its cache)."""

    cache: object
    states: object
    starts: dict
    keep_states: bool
