"""``multisvm datasets ...``: list, describe and fetch the registry's datasets."""

import click


@click.group()
def datasets():
    """List, describe and fetch the papers' datasets."""
