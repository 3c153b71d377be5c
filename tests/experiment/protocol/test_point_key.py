"""The resume cache's key of a grid point, pinned: a refactor that changes a key's digest would
silently make every saved cache miss (and, worse, a changed key could match another point)."""

from dataclasses import dataclass
from types import SimpleNamespace

import pytest

from multisvm_cli.base.storage import PointCache
from multisvm_cli.experiment.config.grid import GridPoint
from multisvm_cli.experiment.protocol import Search, cache

VERSIONS = {"multisvm": "0", "scikit-learn": "0", "code": "0" * 64}
DATASET = SimpleNamespace(name="iris", checksums={"iris.data": "ab" * 32}, provenance={})


@dataclass(frozen=True)
class Plan:  # what a key reads of a DatasetPlan
    split: dict
    scaling: str
    validation: dict
    features: object = None


PLAN = Plan({"method": "holdout", "test_size": 0.3, "seed": 0}, "standard",
            {"method": "holdout", "fraction": 0.7})
FOLD = SimpleNamespace(index=1)
POINT = GridPoint("gaussian", 4.0, sigma=2.0)
PINNED = {  # computed at 92b0f04, before the grid search's state was named
    "ovr": "98c5b49c4c2c43427412e701e4ef2d56266bcbc508769eba2883053bcebf6aa3",
    "nb": "eb1d6c56697bbcb53aa0c56da1a6e65dea6914b67cca8bee6d9d2ed9f78fdc43",
    "cs": "74a3f62224985379646aff4adbbb74848d7d3d596e606587cde3c167fc5e7b80"}


@pytest.fixture(autouse=True)
def fixed_versions(monkeypatch):
    monkeypatch.setattr(cache, "software_versions", lambda: dict(VERSIONS))


def digest(scheme, options, reuse=True, chain=None):
    search = Search(DATASET, PLAN, (scheme,), options, 7, reuse)
    return PointCache.digest(cache.point_key(search, FOLD, POINT, scheme, chain))


def test_a_point_keys_digest_is_pinned():
    assert digest("ovr", {"ovr": {"probability": True}}) == PINNED["ovr"]
    assert digest("nb", {}, reuse=False) == PINNED["nb"]
    assert digest("cs", {"cs": {"solver": "libsvm"}}, chain=(0.25, 1.0)) == PINNED["cs"]


def test_a_cv_best_point_is_keyed_by_the_plan_that_scores_it():
    search = Search(DATASET, PLAN, ("ovr",), {}, 7, estimates=("nested", "cv-best"))
    nested, cv_best = (cache.point_key(search.scoring(e), FOLD, POINT, "ovr")
                       for e in search.estimates)
    assert nested["validation"] == PLAN.validation
    assert cv_best["validation"] == {"method": "test"}
    assert {k: v for k, v in cv_best.items() if k != "validation"} == \
        {k: v for k, v in nested.items() if k != "validation"}
