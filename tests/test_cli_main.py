"""multisvm_cli.cli.main: exit codes reach the shell."""

import click, pytest
from multisvm_cli import cli as cli_module

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
