"""The install ships every package: pyproject.toml's explicit package list names each folder of
multisvm_cli that holds an __init__.py (a missing one installs fine and fails on import)."""


import pytest
from helpers import REPO

tomllib = pytest.importorskip("tomllib")  # Python 3.11+


def test_every_package_folder_is_listed_in_pyproject():
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    folders = {".".join(init.parent.relative_to(REPO).parts)
               for init in (REPO / "multisvm_cli").rglob("__init__.py")}
    assert folders - listed == set()
    assert {"multisvm_cli.experiment.protocol", "multisvm_cli.persist", "multisvm_cli.report",
            "multisvm_cli.experiment.config"} <= listed
