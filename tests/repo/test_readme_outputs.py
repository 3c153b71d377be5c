"""The example outputs of README.md and of the documentation pages (docs/**/*.md) are what the
program prints now: each quick one (configs listing, validate and its refusals, train and
evaluate on wine, the datasets list and a card's info) is run as scripts/readme_outputs.py
makes it and compared with every block of that name, times and run-folder timestamps masked.
Every block names an output the script can make, and a long one says when, at which commit and
on which machine it was made."""

import importlib.util
import re
from pathlib import Path

import pytest
from helpers import REPO

spec = importlib.util.spec_from_file_location("readme_outputs",
                                              REPO / "scripts" / "readme_outputs.py")
readme_outputs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(readme_outputs)
QUICK = [name for name, output in readme_outputs.OUTPUTS.items() if output.speed == "quick"]


def test_masks_hide_times_and_timestamps_only():
    text = "evaluation time: 0.010 s (183.9 us/point)\nresults: results/q/20261122-214540-2"
    assert readme_outputs.mask(text) == ("evaluation time: <t> s (<t> us/point)\n"
                                         "results: results/q/<timestamp>")
    assert readme_outputs.mask("error rate: 2.63% (1 errors)") == "error rate: 2.63% (1 errors)"
    size = "multisvm and the 27 packages it needs: 685 MB on disk"
    assert readme_outputs.mask(size) == "multisvm and the <n> packages it needs: <size> MB on disk"
    stamped = "*Run on 2026-11-22 at commit 5e4e85d, on 2 cores.*\n\n```\n$ multisvm x\n```\n"
    assert readme_outputs.mask(stamped) == "```\n$ multisvm x\n```\n"


def test_every_block_is_made_by_the_script_and_every_output_is_shown():
    found = readme_outputs.all_blocks()
    assert set(found) <= set(readme_outputs.OUTPUTS), "a page names an output the script lacks"
    assert set(readme_outputs.OUTPUTS) <= set(found), "an output no page shows"
    readme = readme_outputs.blocks(readme_outputs.README.read_text())
    assert list(readme) == ["compare-penguins", "quickstart-brief"]  # a user's table first


def test_a_folded_part_keeps_the_table_and_what_follows():
    lines = ["table", "", "Columns: a, b", "a: one", "McNemar: two", "data: penguins: dropped",
             "", "Average rank: x", "Friedman", "", "Wilcoxon", "results: r", "report: r"]
    legend, statistics = readme_outputs.FOLDS["legend"], readme_outputs.FOLDS["statistics"]
    assert readme_outputs.folded(lines, *legend)[:4] == [
        "table", "", "[the columns' legend, 3 lines: Reading the report]",
        "data: penguins: dropped"]
    assert readme_outputs.folded(lines[:5] + lines[6:], *legend)[2:4] == [
        "[the columns' legend, 3 lines: Reading the report]", ""]
    edged = [*lines[:5], "On the grid's edge (...): wine 1-v-r.", *lines[5:]]
    assert readme_outputs.folded(edged, *legend)[2:5] == [  # the edge note is shown
        "[the columns' legend, 3 lines: Reading the report]",
        "On the grid's edge (...): wine 1-v-r.", "data: penguins: dropped"]
    assert readme_outputs.folded(lines, *statistics)[-3:] == [
        "[the tests over the datasets, 4 lines: Reading the report]", "results: r", "report: r"]


def test_long_outputs_carry_date_commit_and_machine():
    stamp = re.compile(r"^\*Run on \d{4}-\d{2}-\d{2} at commit [0-9a-f]{7,}\b.*, on .+\.\*\n\n",
                       re.S)
    for name, places in readme_outputs.all_blocks().items():
        for page, body in places:
            long = readme_outputs.OUTPUTS[name].speed == "long"
            assert bool(stamp.match(body)) == long, f"{page.name}: output {name!r}"


def test_readme_has_no_dated_measurement_and_fits_200_lines():
    text = readme_outputs.README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    outside_outputs = readme_outputs.BLOCK.sub("", text)
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", outside_outputs)


@pytest.mark.slow
def test_quick_outputs_match_the_program(mirror, data_home):
    found = readme_outputs.all_blocks()
    assert {"configs", "validate", "train", "evaluate", "datasets-list"} <= set(QUICK)
    fresh = readme_outputs.fresh_outputs(QUICK)
    for name in QUICK:
        for page, body in found[name]:
            assert readme_outputs.mask(fresh[name]) == readme_outputs.mask(body), (
                f"{page.name}: output {name!r} is stale: run python scripts/readme_outputs.py")


@pytest.mark.slow
def test_an_output_does_not_depend_on_where_the_mirror_lies(mirror, data_home, tmp_path,
                                                            monkeypatch):
    """CI's mirror path is longer than a developer's: the table's columns must not widen."""
    deep = tmp_path / "a-much-longer-folder-name-than-anyone-uses" / "datasets"
    deep.parent.mkdir()
    deep.symlink_to(Path(mirror).resolve(), target_is_directory=True)
    monkeypatch.setenv("MULTISVM_MIRROR", str(deep))
    fresh = readme_outputs.fresh_outputs(["datasets-info"])["datasets-info"]
    [(page, body)] = readme_outputs.all_blocks()["datasets-info"]
    assert fresh == body, f"{page.name}: the mirror's path changed the output"
