"""Mirror variants for tests: the shared mirror without the full Covertype file."""

from pathlib import Path

import pytest


@pytest.fixture
def partial_mirror(mirror, tmp_path):
    """A mirror like ``mirror`` whose covtype folder holds only the Kaggle file (UCI rows
    1..15,120): Covertype's test part is then not available locally."""
    root = tmp_path / "partial-mirror"
    root.mkdir()
    for folder in Path(mirror).iterdir():
        if folder.name != "covtype":
            (root / folder.name).symlink_to(folder)
    (root / "covtype").mkdir()
    kaggle = "kaggle-forest-cover-type-prediction-train.csv"
    (root / "covtype" / kaggle).symlink_to(Path(mirror) / "covtype" / kaggle)
    return root


@pytest.fixture(scope="session")
def shared_home(tmp_path_factory):
    """One data home for a whole test session: a large dataset is parsed once, then read from
    its parsed cache."""
    return tmp_path_factory.mktemp("shared-data-home")


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Any download attempt goes to a closed local port and fails at once (autouse where
    imported)."""
    monkeypatch.setenv("MULTISVM_URL_BASE", "http://127.0.0.1:9")
