"""``multisvm datasets ...``: list, describe and fetch the registry's datasets.

``--mirror`` (env ``MULTISVM_MIRROR``) and ``--data-home`` (env ``MULTISVM_DATA_HOME``) are
accepted by the group and by each command (the command's value wins). ``--cards DIR`` (env
``MULTISVM_CARDS``) adds a folder of user dataset cards.
"""

import collections
import os

import click
from tabulate import tabulate

from ..base.errors import one_line
from .. import data


def set_user_cards(ctx, param, value):
    """``--cards DIR``: the user cards folder for this process (it sets ``MULTISVM_CARDS``, which
    the data layer reads)."""
    if value:
        os.environ["MULTISVM_CARDS"] = value
    return value


def cards_option(command):
    """Add ``--cards DIR`` to a group or command."""
    return click.option(
        "--cards", type=click.Path(file_okay=False), default=None, expose_value=False,
        callback=set_user_cards, is_eager=True,
        help="Folder of user dataset cards (the registry's card format), added beside the "
             "registry's [env MULTISVM_CARDS].")(command)


def location_options(command):
    """Add ``--mirror``, ``--data-home`` and ``--cards`` to a group or command."""
    command = cards_option(command)
    command = click.option(
        "--data-home", type=click.Path(file_okay=False), default=None,
        help="Download and parsed-data cache folder [env MULTISVM_DATA_HOME; default "
             "datasets/cache in a source checkout, else ~/.cache/multisvm].")(command)
    return click.option(
        "--mirror", type=click.Path(file_okay=False), default=None,
        help="Folder holding the canonical files, one subfolder per dataset "
             "[env MULTISVM_MIRROR].")(command)


def settings(ctx, mirror, data_home):
    """The command's --mirror / --data-home, else the group's, else None (env fallbacks)."""
    group = ctx.find_object(dict) or {}
    return {"mirror": mirror or group.get("mirror"),
            "data_home": data_home or group.get("data_home")}


@click.group()
@location_options
@click.pass_context
def datasets(ctx, mirror, data_home):
    """List, describe and fetch the papers' datasets."""
    ctx.obj = {"mirror": mirror, "data_home": data_home}


@datasets.command("list")
@location_options
@click.pass_context
def list_command(ctx, mirror, data_home):
    """Table of the datasets: classes, features, split sizes, paper scaling, cached parts; user
    cards (--cards) are marked."""
    where = settings(ctx, mirror, data_home)
    rows = []
    for name in data.names():
        card = data.get_card(name)
        cached = data.cached_parts(name, **where)
        rows.append([name, card.n_classes, features_text(card), split_text(card),
                     card.paper_scaling, cached_text(card, cached),
                     f"user card {card.path}" if card.origin == "user" else ""])
    click.echo(tabulate(rows, headers=["name", "classes", "features", "split", "paper scaling",
                                       "cached", "card"]))


@datasets.command("info")
@click.argument("name")
@location_options
@click.pass_context
def info_command(ctx, name, mirror, data_home):
    """Class counts of each part, source files and their checksum status."""
    where = settings(ctx, mirror, data_home)
    card = data.get_card(name)
    click.echo(f"{card.name}: {card.title}\n{card.description}")
    columns = "text documents (features from the config's features:)" if card.kind == "text" \
        else f"continuous columns {len(card.continuous_columns)} of {card.n_features}"
    click.echo(f"classes {card.n_classes}, features {features_text(card)}, split "
               f"{split_text(card)}, paper scaling {card.paper_scaling}, {columns}\n")
    available = data.available_parts(name, **where)
    loaded = data.load(name, available, progress=False, **where) if available else None
    if loaded is not None:
        click.echo(class_count_table(card, loaded))
    for part in card.parts:
        if part not in available:
            click.echo(f"part {part}: not available locally ({missing_files(card, part)}); "
                       f"run 'multisvm datasets fetch {name}'")
    click.echo("\n" + tabulate([[r["source"], r["file"], r["location"], r["sha256"]]
                                for r in data.file_status(name, **where)],
                               headers=["source", "file", "location", "sha256"]))


@datasets.command("fetch")
@click.argument("names", nargs=-1)
@click.option("--all", "fetch_all", is_flag=True, help="Fetch every dataset of the registry.")
@click.option("--no-progress", is_flag=True, help="No download progress bar.")
@location_options
@click.pass_context
def fetch_command(ctx, names, fetch_all, no_progress, mirror, data_home):
    """Fetch datasets into the data home (from the mirror when set, else by download),
    verify them and cache the parsed arrays. A dataset that can only be fetched in part
    (covertype without the full UCI file) caches the parts it can; each failure is one
    'error:' line and the exit code is 2."""
    if bool(names) == fetch_all:
        raise click.UsageError("name one or more datasets, or give --all")
    where = settings(ctx, mirror, data_home)
    failures = []
    for name in data.names() if fetch_all else names:
        try:
            report_fetched(data.fetch(name, progress=not no_progress, **where))
        except data.DatasetError as exc:
            failures.append(exc)
            fetch_available_parts(name, where, no_progress)
    for exc in failures[:-1]:
        click.echo(f"error: {one_line(exc)}", err=True)
    if failures:
        raise failures[-1]


def fetch_available_parts(name, where, no_progress):
    """After a failed fetch, fetch the parts that are available locally, if any."""
    if name not in data.names():
        return
    parts = data.available_parts(name, **where)
    if parts:
        report_fetched(data.fetch(name, parts, progress=not no_progress, **where))


def report_fetched(dataset):
    sizes = ", ".join(f"{part} {len(y):,}" for part, (X, y) in dataset.parts.items())
    trees = {spec.name for spec in dataset.card.files if spec.tree_sha256}
    files = ", ".join(f"{file} {'tree digest' if file in trees else 'sha256'} {digest[:16]}..."
                      for file, digest in dataset.checksums.items())
    click.echo(f"{dataset.name}: {sizes} (source {dataset.source_id}: {files})")


def features_text(card):
    return "text" if card.kind == "text" else card.n_features


def split_text(card):
    sizes = " / ".join(f"{part} {size:,}" for part, size in card.parts.items())
    return sizes if card.split == "fixed" else f"{sizes} (no fixed split)"


def cached_text(card, cached):
    if not cached:
        return "no"
    return "yes" if len(cached) == len(card.parts) else ", ".join(cached)


def class_count_table(card, dataset):
    """Rows: classes; columns: the loaded parts and their total."""
    counts = {part: collections.Counter(y.tolist()) for part, (X, y) in dataset.parts.items()}
    rows = [[label] + [counts[part][label] for part in counts]
            + [sum(c[label] for c in counts.values())] for label in card.classes]
    rows.append(["total"] + [sum(c.values()) for c in counts.values()]
                + [sum(sum(c.values()) for c in counts.values())])
    return tabulate(rows, headers=["class", *counts, "all parts"])


def missing_files(card, part):
    names = sorted({spec.name for src in card.sources if part in src.parts
                    for spec in src.files_for(part)})
    return "needs " + " or ".join(names)
