"""The README's quick example outputs (configs listing, validate, train and evaluate on wine)
are what the program prints now: each is run as scripts/readme_outputs.py makes it and compared
with the README's block, times and run-folder timestamps masked."""

import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("readme_outputs",
                                              REPO / "scripts" / "readme_outputs.py")
readme_outputs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(readme_outputs)
QUICK = [name for name, (_, _, quick) in readme_outputs.OUTPUTS.items() if quick]


def test_masks_hide_times_and_timestamps_only():
    text = "evaluation time: 0.010 s (183.9 us/point)\nresults: results/q/20261122-214540-2"
    assert readme_outputs.mask(text) == ("evaluation time: <t> s (<t> us/point)\n"
                                         "results: results/q/<timestamp>")
    assert readme_outputs.mask("error rate: 2.63% (1 errors)") == "error rate: 2.63% (1 errors)"


@pytest.mark.slow
def test_readme_quick_outputs_match_the_program(mirror, data_home):
    readme = readme_outputs.blocks(readme_outputs.README.read_text(encoding="utf-8"))
    assert set(QUICK) == {"configs", "validate", "train", "evaluate"} <= set(readme)
    fresh = readme_outputs.fresh_outputs(QUICK)
    for name in QUICK:
        assert readme_outputs.mask(fresh[name]) == readme_outputs.mask(readme[name]), (
            f"README output {name!r} is stale: run python scripts/readme_outputs.py")
