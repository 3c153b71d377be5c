"""The documentation site's generated reference pages (scripts/gen_docs.py) list every command of
the click app, every dataset card and every config key; the nav (mkdocs.yml) names every page
under docs/ and only pages that exist. The strict build itself (any warning fails) runs in CI
(.ci/run: ``mkdocs build --strict``)."""

import importlib.util
import re

import click
import yaml

from multisvm_cli.cli.main import cli
from multisvm_cli.experiment.config import TOP_KEYS
from multisvm_cli.experiment.config.keys import KEYS
from helpers import REPO

spec = importlib.util.spec_from_file_location("gen_docs", REPO / "scripts" / "gen_docs.py")
gen_docs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen_docs)


def _commands(command, prefix):
    """Every command's full name, walked with click's own API."""
    names = [prefix]
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            names += _commands(sub, f"{prefix} {name}")
    return names


def test_cli_reference_lists_every_command_with_its_options():
    page = gen_docs.cli_page()
    names = _commands(cli, "multisvm")
    assert len(names) >= 10 and "multisvm datasets fetch" in names
    headings = re.findall(r"^#+ `(multisvm[^`]*)`$", page, re.M)
    assert sorted(headings) == sorted(names)  # each once
    for option in ("--n-jobs", "--figure-format", "--confusion", "--scheme", "--all", "--cards"):
        assert re.search(rf"^\| `[^`]*{option}\b[^`]*` \| \S", page, re.M), option


def test_cards_page_lists_every_card():
    page = gen_docs.cards_page()
    cards = sorted(path.stem for path in (REPO / "datasets").glob("*.yaml"))
    assert len(cards) >= 14
    assert re.findall(r"^## (\S+)$", page, re.M) == cards
    for path in (REPO / "datasets").glob("*.yaml"):
        card = yaml.safe_load(path.read_text(encoding="utf-8"))
        section = page.split(f"\n## {card['name']}\n")[1].split("\n## ")[0]
        assert f"classes: {card['n_classes']};" in section
        for source in card["sources"]:
            for file in source["files"]:
                assert f"`{file['name']}`" in section
                digests = file.get("sha256") or file.get("tree_sha256") or []
                for digest in [digests] if isinstance(digests, str) else digests:
                    assert f"`{digest[:16]}..." in section


def test_config_reference_lists_the_validating_table():
    assert TOP_KEYS == tuple(KEYS)
    page = gen_docs.config_page()
    rows = re.findall(r"^\| `(\w+)` \| ", page, re.M)
    assert rows[:len(TOP_KEYS)] == list(TOP_KEYS)


def test_nav_names_every_page_and_only_pages_that_exist():
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    optional = set(config["extra"]["optional_pages"])

    def leaves(nav):
        for entry in nav:
            value = next(iter(entry.values())) if isinstance(entry, dict) else entry
            yield from (leaves(value) if isinstance(value, list) else [value])

    nav = list(leaves(config["nav"]))
    docs = REPO / "docs"
    generated = set(gen_docs.pages())
    written = {str(p.relative_to(docs)) for p in docs.rglob("*.md")}
    assert not generated & written, "a generated page is also written by hand"
    assert set(nav) - optional <= written | generated
    assert written | generated <= set(nav)


def test_readme_names_every_command():
    """The README's command list has a line for each command (a new command needs its line)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    listed = readme.split("## Commands")[1].split("\n## ")[0]
    for name in _commands(cli, "multisvm")[1:]:
        if name != "multisvm datasets":  # the group: its commands are listed
            assert re.search(rf"^{re.escape(name)}\b", listed, re.M), name
