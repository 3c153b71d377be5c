"""A light command line: ``multisvm --help``, every ``multisvm <command> --help``, ``multisvm
configs`` and ``multisvm datasets list`` import none of numpy, scikit-learn, scipy, pandas or
matplotlib (each would add a tenth of a second to a second or more before any text appears). Each command runs in a fresh interpreter, which then lists the heavy libraries it
imported."""

import json
import os
import subprocess
import sys

import pytest

from multisvm_cli import data
from helpers import REPO

HEAVY = ("numpy", "sklearn", "scipy", "pandas", "matplotlib")
HEAVY_NOW = f"sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))"
CHILD = f"""
import contextlib, io, json, sys
from multisvm_cli.cli.main import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        main(sys.argv[1:])
    except SystemExit as exc:
        code = exc.code
print(json.dumps({{"code": code, "out": out.getvalue(), "heavy": {HEAVY_NOW}}}))
"""
EVERY_HELP = f"""
import contextlib, io, json, sys
import click
from multisvm_cli.cli.main import cli, main

def paths(group, prefix):
    for name, command in sorted(group.commands.items()):
        yield [*prefix, name]
        if isinstance(command, click.Group):
            yield from paths(command, [*prefix, name])

found = {{}}
for argv in [[], *paths(cli, [])]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            main([*argv, "--help"])
        except SystemExit as exc:
            code = exc.code
    found[" ".join(argv)] = [code, out.getvalue().startswith("Usage: multisvm"), {HEAVY_NOW}]
print(json.dumps(found))
"""


def run_child(tmp_path, *argv, code=CHILD, **env):
    environment = dict(os.environ, PYTHONPATH=str(REPO), MULTISVM_DATA_HOME=str(tmp_path / "home"),
                       MULTISVM_URL_BASE="http://127.0.0.1:9", **env)
    environment.pop("MULTISVM_MIRROR", None)
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True,
                          env=environment, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_every_help_imports_no_heavy_library(tmp_path):
    """``multisvm --help`` and each command's and subcommand's ``--help``, one after another
    in one interpreter: none has imported a heavy library, numpy included."""
    found = run_child(tmp_path, code=EVERY_HELP)
    assert {"", "compare", "predict", "reproduce-table", "datasets", "datasets list"} <= set(found)
    assert {argv: result for argv, result in found.items() if result != [0, True, []]} == {}


def test_configs_imports_no_heavy_library(tmp_path):
    result = run_child(tmp_path, "configs")
    assert result["code"] == 0 and result["heavy"] == []
    assert "quickstart" in result["out"] and "what it runs" in result["out"]


@pytest.mark.slow
def test_datasets_list_imports_no_heavy_library_and_still_sees_the_cache(tmp_path,
                                                                         monkeypatch):
    """The parsed cache of a dataset whose file ships inside scikit-learn (iris) is found
    without importing scikit-learn; a user card (--cards) is read and listed too."""
    monkeypatch.setenv("MULTISVM_DATA_HOME", str(tmp_path / "home"))
    data.load("iris", progress=False)  # (this process may import anything)
    cards = tmp_path / "cards"
    cards.mkdir()
    vowel = data.get_card("vowel").path.read_text()
    (cards / "myvowel.yaml").write_text(vowel.replace("\nname: vowel\n", "\nname: myvowel\n"
                                                      "folder: vowel\n"))
    result = run_child(tmp_path, "datasets", "list", "--cards", str(cards))
    assert result["code"] == 0 and result["heavy"] == []
    rows = {line.split()[0]: line for line in result["out"].splitlines()[2:]}
    assert rows["iris"].split()[1:3] == ["3", "4"] and rows["iris"].split()[-1] == "yes"
    assert rows["wine"].split()[-1] == "no" and f"user card {cards / 'myvowel.yaml'}" in rows["myvowel"]
    assert set(rows) == set(data.names()) | {"myvowel"}


def test_the_lazy_package_names_are_the_modules_objects():
    """``multisvm_cli.data`` and ``.experiment`` name their API lazily: the same objects as
    the modules that define them, and their submodules, as eager imports gave."""
    from multisvm_cli import experiment
    from multisvm_cli.data import loader
    from multisvm_cli.data.local import files as local
    from multisvm_cli.experiment.run import settings

    assert data.load is loader.load and data.LocalSpec is local.LocalSpec
    assert data.local.files is local and experiment.Settings is settings.Settings
    assert all(getattr(data, name) is not None for name in data.__all__)
    assert all(getattr(experiment, name) is not None for name in experiment.__all__)
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        data.nothing  # noqa: B018
