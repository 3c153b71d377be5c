"""Small helpers that several test files use, each written once here: the command line run
in-process and as a real process, a refused command's one ``error:`` line, class counts, a standardized
scikit-learn dataset, a folder of given files, result rows without what differs between
two runs of one config, and the recipes of docs/explanation/extending.md."""

import collections
import re
import subprocess
import textwrap
import sys
from pathlib import Path
from typing import NamedTuple

from click.testing import CliRunner

REPO = Path(__file__).resolve().parents[1]
EXTENDING = REPO / "docs" / "explanation" / "extending.md"
RECIPE = re.compile(r"^( *)<!-- recipe: ([\w-]+) -->\n\1```\w+\n(.*?)^\1```$", re.M | re.S)
# what two runs of one config may differ in: their times and the run folder
VARYING = ("cpu_time", "selection_time", "evaluation_time", "run_folder")


class CliResult(NamedTuple):
    """What one run of the command line gave."""

    code: int
    out: str
    err: str


def run_cli(*args) -> CliResult:
    """``multisvm ARGS`` run in-process (``multisvm_cli.cli.main:main``, click's CliRunner
    capturing the streams); conftest's ``run_multisvm`` fixture hands it out, and a
    module-wide fixture calls it directly."""
    from multisvm_cli.cli.main import main

    with CliRunner().isolation() as (out, err, _):
        try:
            main([str(arg) for arg in args])
            code = 0
        except SystemExit as exited:
            code = exited.code
    return CliResult(code, out.getvalue().decode(), err.getvalue().decode())


def run_process(*args, timeout=600, **options) -> subprocess.CompletedProcess:
    """``multisvm ARGS`` as a real process (``python -m multisvm_cli``), its output captured as
    text, run from the repository root unless ``cwd`` is given; ``options`` (``env``, ``cwd``)
    go on to ``subprocess.run``."""
    options.setdefault("cwd", REPO)
    return subprocess.run([sys.executable, "-m", "multisvm_cli", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, **options)


def real_run(home, name, config_text):
    """One real ``reproduce-table`` run of ``config_text`` (written as ``home/<name>.yaml``,
    its data home and results root under ``home``): (run folder, CliResult, config path)."""
    import pytest

    config = home / f"{name}.yaml"
    config.write_text(config_text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MULTISVM_DATA_HOME", str(home / "data-home"))
        result = run_cli("reproduce-table", config, "--out", home / "out", "--quiet")
    assert result.code == 0, result.err
    return next((home / "out" / name).glob("2*")), result, config


def counts(y) -> dict:
    """{label: rows} of the labels ``y``."""
    return dict(collections.Counter(y.tolist()))


def standardized(loader, n=None):
    """(X, y) of a scikit-learn dataset ``loader`` (``load_iris``, ...), X standardized, both
    cut to the first ``n`` rows."""
    from sklearn.preprocessing import StandardScaler

    X, y = loader(return_X_y=True)
    return StandardScaler().fit_transform(X)[:n], y[:n]


def refused(result, *fragments):
    """The command (a ``CliResult``) was refused: exit code 2, nothing on stdout, one ``error:``
    line holding every fragment, no traceback; that line."""
    assert result.code == 2, result
    assert result.out == ""
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.err
    assert "Traceback" not in result.err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def write_files(root, files):
    """``files`` ({"class/name": bytes}) written under ``root`` (a text folder); ``root``."""
    for name, content in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(content)
    return root


def without_times(rows) -> list:
    """The result rows without :data:`VARYING`, to compare two runs of one config."""
    return [{k: v for k, v in row.items() if k not in VARYING} for row in rows]


def sparse_file(path, size):
    """A file of ``size`` bytes that takes no disk space (all zeros)."""
    with open(path, "wb") as stream:
        stream.truncate(size)
    return path


def recipes() -> dict:
    """name -> the code of each block of docs/explanation/extending.md marked
    ``<!-- recipe: NAME -->``, dedented (the tests run each one as the page says)."""
    found = {}
    for match in RECIPE.finditer(EXTENDING.read_text(encoding="utf-8")):
        assert match.group(2) not in found, f"recipe {match.group(2)!r} twice"
        found[match.group(2)] = textwrap.dedent(match.group(3))
    return found


def recipe_row(name, namespace):
    """The recipe ``name``, one row of a table written as the table writes it (a ``Column(...)``
    or a ``"key": Key(...)`` item, a trailing comma allowed), evaluated in ``namespace`` (the
    table's module's): the row, or the one-item dict of a keyed row."""
    code = recipes()[name].strip().rstrip(",")
    return eval(f"{{{code}}}" if code.startswith(('"', "'")) else code, dict(namespace))
