"""Part of a config: ``reproduce-table CONFIG --dataset NAME`` runs only the named datasets, in
grid points the full run reuses from the resume cache, so a study can be run set by set and
assembled; ``validate --dataset`` checks the same part."""

import json
from pathlib import Path

import pytest
import yaml

from helpers import refused, without_times

CONFIG = """\
name: parts
dataset: [iris, wine]
split: {test_fraction: 0.3, seed: 0}
kernels: [{type: gaussian, sigma: [1, 2]}]
C: [1, 10]
schemes: [ovr, dag]
reference:
  source: made-up numbers
  iris: {ovr: {error: 4.0}}
  wine: {ovr: {error: 2.0}}
"""


def reproduce(run_multisvm, config, out, *datasets):
    """One run's (JSON report rows, run folder, run.json); each ``datasets`` name is a
    ``--dataset`` option."""
    options = [arg for name in datasets for arg in ("--dataset", name)]
    result = run_multisvm("reproduce-table", config, "--out", out, "--quiet", "--format",
                          "json", "--no-figures", *options)
    assert result.code == 0, result.err
    rows = json.loads(result.out)
    folder = Path(rows[0]["run_folder"])
    assert folder.parent == out / "parts"
    return rows, folder, json.loads((folder / "run.json").read_text())


@pytest.mark.slow
def test_a_study_run_set_by_set_is_assembled_without_new_fits(tmp_path, run_multisvm, mirror,
                                                               data_home, monkeypatch):
    monkeypatch.setenv("MULTISVM_MIRROR", str(mirror))
    config = tmp_path / "parts.yaml"
    config.write_text(CONFIG)
    out, fresh = tmp_path / "results", tmp_path / "fresh"

    parts = {}
    for name in ("wine", "iris"):
        rows, folder, meta = reproduce(run_multisvm, config, out, name)
        assert {row["dataset"] for row in rows} == {name}
        assert meta["datasets"] == {"selected": [name], "of": ["iris", "wine"]}
        assert meta["grid_points"] == {"total": 8, "cached": 0, "computed": 8}  # 2x2 x 2 schemes
        resolved = yaml.safe_load((folder / "config.yaml").read_text())
        assert [entry["name"] for entry in resolved["dataset"]] == [name]
        assert set(resolved["reference"]) == {"source", name}
        parts[name] = rows

    assembled, _, meta = reproduce(run_multisvm, config, out)
    assert meta["grid_points"] == {"total": 16, "cached": 16, "computed": 0}
    assert "datasets" not in meta
    direct, _, meta = reproduce(run_multisvm, config, fresh)
    assert meta["grid_points"]["computed"] == 16
    assert without_times(assembled) == without_times(direct)
    for name, rows in parts.items():
        assert without_times(rows) == without_times(
            [row for row in direct if row["dataset"] == name])
    assert {row["dataset"] for row in direct} == {"iris", "wine"}
    assert any(row["error_pct"] > 0 for row in direct)  # real test errors, not a blank table


def test_a_dataset_not_in_the_config_is_refused_before_any_run(tmp_path, run_multisvm):
    config = tmp_path / "parts.yaml"
    config.write_text(CONFIG)
    out = tmp_path / "results"
    refused(run_multisvm("reproduce-table", config, "--out", out, "--dataset", "iris",
                         "--dataset", "wnie"),
            "'wnie' is not in this config", "it has: iris, wine", "did you mean 'wine'")
    assert not out.exists()
    refused(run_multisvm("validate", config, "--dataset", "glass"), "it has: iris, wine")


def test_validate_checks_and_counts_only_the_named_datasets(tmp_path, run_multisvm):
    config = tmp_path / "parts.yaml"
    config.write_text(CONFIG)
    whole, part = run_multisvm("validate", config), run_multisvm("validate", config,
                                                                 "--dataset", "wine")
    assert whole.code == part.code == 0, part.err
    assert "# iris: 4 grid points" in whole.out and "# wine: 4 grid points" in whole.out
    assert "# iris:" not in part.out and "# wine: 4 grid points" in part.out
    assert "# datasets selected: wine of iris, wine" in part.out
    resolved = yaml.safe_load(part.out.split("\n# wine:")[0])
    assert [entry["name"] for entry in resolved["dataset"]] == ["wine"]
    # the fits: 1 fold x 1 validation split x 4 points x 2 families + 2 final fits
    assert "valid; 8 grid points x schemes per outer fold; 10 fits in all" in part.out
    assert "valid; 16 grid points x schemes per outer fold; 20 fits in all" in whole.out
