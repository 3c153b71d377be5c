"""Shared test set-up: the dataset mirror is ../shared/datasets (as in .ci/run)."""

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DEFAULT_MIRROR = REPO.parent / "shared" / "datasets"
MIRROR = Path(os.environ.get("MULTISVM_MIRROR", DEFAULT_MIRROR))
# The benchmark scripts live outside the package; their tests import them as modules.
sys.path.insert(0, str(REPO / "benchmarks"))


@pytest.fixture(scope="session")
def mirror():
    """The folder of verified dataset copies; skip (never in CI) when it is absent."""
    if not MIRROR.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"dataset mirror {MIRROR} is missing in CI")
        pytest.skip(f"dataset mirror {MIRROR} is absent (set MULTISVM_MIRROR)")
    return MIRROR


@pytest.fixture
def data_home(tmp_path, monkeypatch):
    """A fresh, empty download/parsed cache for one test."""
    home = tmp_path / "data-home"
    monkeypatch.setenv("MULTISVM_DATA_HOME", str(home))
    return home
