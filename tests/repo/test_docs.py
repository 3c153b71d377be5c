"""The documentation site's generated reference pages (scripts/gen_docs.py) list every command of
the click app, every dataset card and every config key; the nav (mkdocs.yml) names every page
under docs/ and only pages that exist, and no page lies loose at the top level; every repository
path the pages, README.md and benchmarks/README.md name exists; benchmarks/README.md lists every
script. The strict build itself (any warning fails) runs in CI (.ci/run: ``mkdocs build
--strict``)."""

import importlib.util
import re

import click
import yaml

from multisvm_cli.cli.main import cli
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


def test_the_api_reference_documents_every_schemes_class():
    from multisvm_cli.estimators.registry import REGISTRY

    page = gen_docs.api_page()
    for scheme in REGISTRY.values():
        assert f"### `{scheme.class_name}`\n\n```python\nclass {scheme.class_name}(" in page


def test_config_reference_lists_the_validating_table():
    page = gen_docs.config_page()
    rows = re.findall(r"^\| `(\w+)` \| ", page, re.M)
    assert rows[:len(KEYS)] == list(KEYS)


def test_nav_names_every_page_and_only_pages_that_exist():
    """Every page is in the nav, under a section (no loose top-level page besides the home and
    getting-started pages), and the nav names no missing page: nothing drops a missing page."""
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    assert "optional_pages" not in config.get("extra", {})

    def leaves(nav):
        for entry in nav:
            value = next(iter(entry.values())) if isinstance(entry, dict) else entry
            yield from (leaves(value) if isinstance(value, list) else [value])

    nav = list(leaves(config["nav"]))
    docs = REPO / "docs"
    generated = set(gen_docs.pages())
    written = {str(p.relative_to(docs)) for p in docs.rglob("*.md")}
    assert not generated & written, "a generated page is also written by hand"
    assert set(nav) <= written | generated
    assert written | generated <= set(nav)
    assert len(nav) == len(set(nav)), "a page is in the nav twice"
    loose = {page for page in nav if "/" not in page}
    assert loose == {"index.md", "getting-started.md"}, f"loose top-level pages: {loose}"
    hooks = (REPO / "scripts" / "mkdocs_hooks.py").read_text(encoding="utf-8")
    assert "on_config" not in hooks and "on_nav" not in hooks, "a hook that edits the nav"


def test_readme_names_every_command():
    """The README's command list has a line for each command (a new command needs its line)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    listed = readme.split("## Commands")[1].split("\n## ")[0]
    for name in _commands(cli, "multisvm")[1:]:
        if name != "multisvm datasets":  # the group: its commands are listed
            assert re.search(rf"^{re.escape(name)}\b", listed, re.M), name


ROOTED = ("tests", "multisvm_cli", "scripts", "benchmarks", "configs", "datasets", "docs")
IN_PACKAGE = ("cli", "base", "data", "estimators", "experiment", "report", "persist")
PATH = re.compile(rf"(?<![\w./-])(?:{'|'.join(ROOTED + IN_PACKAGE)})/[\w./<>*{{}}-]*")
MADE_AT_RUN_TIME = {"datasets/cache/"}  # .gitignore'd: made on first use
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def named_paths(text) -> set[str]:
    """The repository paths a page names: from the checkout's root (``tests/cli/x.py``), or a
    module in the package (``report/table.py``); placeholders (``<name>``, ``*``) left out."""
    found = set()
    for match in PATH.finditer(text):
        path = match.group(0).rstrip(".,-")
        if any(c in path for c in "<>*{}"):
            continue
        if path.split("/")[0] in ROOTED:
            found.add(path)
        elif path.endswith(".py"):
            found.add(f"multisvm_cli/{path}")
    return found


def test_named_paths_are_found_and_placeholders_skipped():
    text = ("see `tests/cli/test_docs.py`, report/table.py and benchmarks/README.md. Write "
            "`tests/test_<name>.py`; multisvm_cli/data/x.py; data/mine.csv; results/q")
    assert named_paths(text) == {"tests/cli/test_docs.py", "multisvm_cli/report/table.py",
                                 "benchmarks/README.md", "multisvm_cli/data/x.py"}


def test_every_repository_path_the_docs_name_exists():
    pages = [REPO / "README.md", REPO / "benchmarks" / "README.md",
             *sorted((REPO / "docs").rglob("*.md"))]
    gitignore = (REPO / ".gitignore").read_text(encoding="utf-8").split()
    assert MADE_AT_RUN_TIME <= set(gitignore)
    missing = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for path in sorted(named_paths(text) - MADE_AT_RUN_TIME):
            if not (REPO / path).exists():
                missing.append(f"{page.relative_to(REPO)}: {path}")
        if "docs" not in page.relative_to(REPO).parts:
            for link in LINK.findall(text):  # outside the site: mkdocs checks the site's links
                if "://" not in link and not (page.parent / link).exists():
                    missing.append(f"{page.relative_to(REPO)}: link {link}")
    assert not missing, "paths named in the docs that do not exist:\n" + "\n".join(missing)


def test_the_benchmarks_readme_lists_every_script_with_how_to_run_it():
    readme = (REPO / "benchmarks" / "README.md").read_text(encoding="utf-8")
    listed = re.findall(r"^## (\S+\.py)$", readme, re.M)
    scripts = sorted(path.name for path in (REPO / "benchmarks").glob("*.py"))
    assert listed == scripts, "benchmarks/README.md: one section per script, in name order"
    for name in listed:
        section = readme.split(f"\n## {name}\n")[1].split("\n## ")[0]
        assert re.search(r"^    python benchmarks/\S+\.py", section, re.M), name
