"""The resume cache's key of a grid point, pinned: a refactor that changes a key's digest would
silently make every saved cache miss (and, worse, a changed key could match another point)."""

from types import SimpleNamespace

import pytest

from multisvm_cli.base.storage import PointCache
from multisvm_cli.experiment.config.grid import GridPoint
from multisvm_cli.experiment.protocol import cache

VERSIONS = {"multisvm": "0", "scikit-learn": "0", "code": "0" * 64}
DATASET = SimpleNamespace(name="iris", checksums={"iris.data": "ab" * 32}, provenance={})
PLAN = SimpleNamespace(split={"method": "holdout", "test_size": 0.3, "seed": 0},
                       scaling="standard", validation={"method": "holdout", "fraction": 0.7},
                       features=None)
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
    return PointCache.digest(cache.point_key(DATASET, PLAN, FOLD, POINT, scheme, options, 7,
                                             reuse, chain))


def test_a_point_keys_digest_is_pinned():
    assert digest("ovr", {"ovr": {"probability": True}}) == PINNED["ovr"]
    assert digest("nb", {}, reuse=False) == PINNED["nb"]
    assert digest("cs", {"cs": {"solver": "libsvm"}}, chain=(0.25, 1.0)) == PINNED["cs"]
