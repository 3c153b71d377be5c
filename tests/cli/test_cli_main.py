"""multisvm_cli.cli.main.main: exit codes reach the shell."""

import click
import pytest
from configs import GLASS_TEN_FOLDS

from multisvm_cli.cli import main as cli_module
from helpers import run_process


def test_ctx_exit_code_reaches_the_shell(monkeypatch):
    @cli_module.cli.command("exit-three")
    @click.pass_context
    def exit_three(ctx):
        ctx.exit(3)
    try:
        with pytest.raises(SystemExit) as info:
            cli_module.main(["exit-three"])
        assert info.value.code == 3
    finally:
        cli_module.cli.commands.pop("exit-three")


@pytest.mark.slow
def test_warnings_are_one_line_naming_the_dataset(mirror, data_home, tmp_path, write_config):
    # glass's smallest class has 9 rows: scikit-learn warns that 10 stratified folds cannot
    # each hold one of them.
    import os

    config = write_config("glass-folds.yaml", **{**GLASS_TEN_FOLDS, "name": "glass-folds"})
    done = run_process("reproduce-table", config, "--quiet", "--out", tmp_path / "out",
                       "--mirror", mirror, timeout=300,
                       env={**os.environ, "MULTISVM_DATA_HOME": str(data_home)})
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if not line.startswith("results: ")]
    assert lines == ["warning: glass: The least populated class in y has only 9 members, "
                     "which is less than n_splits=10."]
    assert "McNemar" not in done.stdout  # only one scheme: nothing to compare with
