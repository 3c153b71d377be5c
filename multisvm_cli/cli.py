"""The ``multisvm`` command line: a thin layer over the estimators and the data layer."""

import os
import sys

import click

from . import __version__
from .cli_datasets import datasets
from .errors import MultisvmError

EXIT_USER_ERROR = 2


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="multisvm")
def cli():
    """Compare multiclass SVM schemes (one-vs-rest, Max Wins, DAGSVM, UDT, GraphSVM, Hier)
    on the papers' datasets with one protocol, and print a Table-1 style report."""


cli.add_command(datasets)


def main(argv=None):
    """Entry point: run the CLI; user errors print one line and exit with code 2.

    Set ``MULTISVM_DEBUG=1`` to see the full traceback instead.
    """
    try:
        cli.main(args=argv, prog_name="multisvm", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(EXIT_USER_ERROR)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except (MultisvmError, ValueError, FileNotFoundError) as exc:
        if os.environ.get("MULTISVM_DEBUG"):
            raise
        message = " ".join(str(exc).split()) or type(exc).__name__
        click.echo(f"error: {message}", err=True)
        sys.exit(EXIT_USER_ERROR)
    sys.exit(0)
