"""The Allwein and Rifkin & Klautau results pages (issue 39): every paper number on the page comes
from its data file, at its place; the pages are current; tiny end-to-end runs of both studies'
shipped configs through the CLI are collected into the pages' cells."""

import copy
import csv
import importlib.util
import json
import re
from pathlib import Path

import pytest
import yaml

from tests.helpers import REPO

spec = importlib.util.spec_from_file_location("paper_pages", REPO / "scripts" / "paper_pages.py")
paper_pages = importlib.util.module_from_spec(spec)
spec.loader.exec_module(paper_pages)

EMPTY = {"runs": [], "cells": {}}


def _rows(lines, dataset):
    """The cells of every markdown table row of ``dataset`` in ``lines``."""
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines
            if line.startswith(f"| {dataset} |")]


def test_every_allwein_number_is_in_its_cell():
    paper = paper_pages.read_yaml(paper_pages.DATA / "allwein-2000.yaml")
    lines = paper_pages.allwein_block(paper, EMPTY)
    assert "Allwein, Schapire & Singer, JMLR 1 (2000), Table 3, p. 136:" in lines[0]
    for n, (decoding, rows) in enumerate(paper["errors"].items()):
        for dataset, values in rows.items():
            row = _rows(lines, dataset)[n]
            # a null of theirs (soybean's complete code) is their "-"
            assert row[2::2] == ["-" if v is None else f"{v:.1f}" for v in values], dataset
            assert row[1::2] == ["-"] * 5  # nothing measured: no number of ours
    # a changed number in the data file moves to the page
    changed = copy.deepcopy(paper)
    changed["errors"]["loss"]["glass"][2] = 99.9
    assert _rows(paper_pages.allwein_block(changed, EMPTY), "glass")[1][6] == "99.9"


def test_every_rifkin_klautau_number_is_in_its_cell():
    paper = paper_pages.read_yaml(paper_pages.DATA / "rifkin-klautau-2004.yaml")
    lines = paper_pages.rk_block(paper, EMPTY, ())
    titles = [line for line in lines if line.endswith("):")]
    assert [t.split(" (")[0] for t in titles] == [f"{m} against OVA" for m in paper["tables"]]
    for method, table in paper["tables"].items():
        alone = paper_pages.rk_block({**paper, "tables": {method: table}}, EMPTY, ())
        assert f"Table {table['table']}, p. {table['page']}" in alone[0]
        for dataset, values in table["rows"].items():
            (row,) = _rows(alone, dataset)
            low, high = values[4]
            assert row[8:] == [f"{values[0]:.2f}", f"{values[1]:.2f}", f"{values[2]:.2f}",
                               f"{values[3]:.3f}", f"[{low:.4g}, {high:.4g}]"], (method, dataset)
            assert row[1:8] == ["-"] * 7


def test_the_paper_point_column_is_the_configs():
    assert paper_pages.paper_point("SPA") == {"C": 16, "log2_gamma": -3.0}
    assert paper_pages.paper_point("DEN") == {"C": 2, "log2_gamma": -2.0}


def test_the_pages_are_current():
    assert paper_pages.main(["--check"]) == 0


def _tiny(tmp_path, name, **changes):
    """The shipped config ``name`` on glass alone, with ``changes``, written to tmp_path."""
    config = yaml.safe_load((REPO / "configs" / f"{name}.yaml").read_text())
    config.update(dataset=[{"name": "glass", "split": {"method": "kfold", "k": 3, "seed": 0}}],
                  **changes)
    config.pop("measured", None)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def _folder(out):
    """The run folder a reproduce-table printed."""
    return Path(re.search(r"results: (\S+)", out).group(1))


@pytest.mark.usefixtures("mirror", "no_network")
def test_a_tiny_allwein_run_fills_the_cells(tmp_path, run_multisvm):
    sweep = {"scheme_options": {"ecoc": {"code": ["ovr", "sparse"],
                                         "decoding": ["hamming", "loss"]}}}
    path = _tiny(tmp_path, "allwein-2000", sweep=sweep)
    result = run_multisvm("reproduce-table", str(path), "--out", str(tmp_path / "out"))
    assert result.code == 0, result.err
    folder = _folder(result.out)
    measured = paper_pages.collect("allwein-2000", [folder])
    cells = measured["cells"]["allwein-2000"]["glass"]
    rows = list(csv.DictReader(open(folder / "sweep.csv", newline="")))
    assert cells["loss"]["sparse"] == round(float(rows[3]["error_pct"]), 2)
    assert set(cells) == {"hamming", "loss"} and set(cells["hamming"]) == {"ovr", "sparse"}
    assert measured["runs"][0]["config"] == "allwein-2000"
    lines = paper_pages.allwein_block(paper_pages.read_yaml(paper_pages.DATA / "allwein-2000.yaml"),
                                      measured)
    assert _rows(lines, "glass")[1][9] == f"{cells['loss']['sparse']:.2f}"


@pytest.mark.usefixtures("mirror", "no_network")
def test_a_tiny_rifkin_klautau_run_compares_each_method_with_ova(tmp_path, run_multisvm):
    path = _tiny(tmp_path, "rifkin-klautau-2004", C=[4], validation={"method": "kfold", "k": 3},
                 kernels=[{"type": "gaussian", "gamma": [0.25]}],
                 sweep={"scheme_options": {"ecoc": {"code": ["dense", "exhaustive"]}}})
    result = run_multisvm("reproduce-table", str(path), "--out", str(tmp_path / "out"))
    assert result.code == 0, result.err
    folder = _folder(result.out)
    cells = paper_pages.collect("rifkin-klautau-2004", [folder])["cells"]
    glass = cells["rifkin-klautau-2004"]["glass"]
    assert set(glass) == {"OVA", "AVA", "DEN", "COM"}
    results = json.loads((folder / "results.json").read_text())["results"]
    ova = next(r for r in results if r["scheme"] == "ovr")
    assert glass["OVA"]["error"] == round(100 * ova["n_errors"] / ova["n_test"], 2)
    assert glass["OVA"]["vs_ova"]["diff"] == 0 and glass["OVA"]["vs_ova"]["agree"] == 1
    den = glass["DEN"]
    assert den["vs_ova"]["diff"] == pytest.approx(den["error"] - glass["OVA"]["error"], abs=0.02)
    low, high = den["vs_ova"]["bootstrap"]
    assert low <= den["vs_ova"]["diff"] / 100 + 1e-9 and high >= den["vs_ova"]["diff"] / 100 - 1e-9
    assert den["C"] == 4 and den["log2_gamma"] == -2


def test_both_studies_configs_validate_with_their_codes():
    from multisvm_cli.experiment import load_config

    allwein = load_config(REPO / "configs" / "allwein-2000.yaml")
    assert len(allwein.sweep["values"]) == 10 and allwein.sweep["option"] == "code+decoding"
    assert allwein.scheme_options["ecoc"]["code_size"] == "allwein"
    tuned = load_config(REPO / "configs" / "rifkin-klautau-2004.yaml")
    assert tuned.sweep["values"] == ["dense", "sparse", "exhaustive"]
    assert tuned.grid_size() == 5 * 6 * 3 * 2  # gamma x C x schemes x datasets
    letter = load_config(REPO / "configs" / "rifkin-klautau-2004-letter.yaml")
    assert letter.sweep["values"] == ["dense", "sparse"]  # 26 classes: no complete code
    point = load_config(REPO / "configs" / "rifkin-klautau-2004-paper-point.yaml")
    assert len(point.schemes) == 5 and point.compare_to == "own:RK OVA"


def test_an_added_run_replaces_what_the_data_held_of_its_datasets_only():
    held = {"runs": [{"config": "a", "datasets": ["glass", "vowel"]},
                     {"config": "a-part", "datasets": ["pendigits"]}],
            "cells": {"a": {"glass": {"loss": {"ovr": 30.0}}, "vowel": {"loss": {"ovr": 50.0}}},
                      "a-part": {"pendigits": {"loss": {"ovr": 3.0}}}}}
    added = {"runs": [{"config": "a", "datasets": ["pendigits"]}],
             "cells": {"a": {"pendigits": {"loss": {"ovr": 2.5, "exhaustive": 2.4}}}}}
    merged = paper_pages.add(copy.deepcopy(held), added)
    assert [(r["config"], r["datasets"]) for r in merged["runs"]] == [
        ("a", ["glass", "vowel"]), ("a", ["pendigits"])]
    assert merged["cells"] == {"a": {"glass": {"loss": {"ovr": 30.0}},
                                     "vowel": {"loss": {"ovr": 50.0}},
                                     "pendigits": {"loss": {"ovr": 2.5, "exhaustive": 2.4}}}}


def test_predictions_pair_row_by_row_across_repeats(tmp_path):
    """Two schemes' predictions of the same rows over two repeats come back in one order
    (repeat, fold, row), whatever labels they predicted."""
    rows = ["dataset,scheme,repeat,fold,row,true,predicted"]
    for scheme, predicted in (("ovr", "ab"), ("ecoc", "ba")):  # repeat 0 / 1 predictions
        for repeat in (1, 0):
            rows.append(f"glass,{scheme},{repeat},0,7,a,{predicted[repeat]}")
    (tmp_path / "predictions.csv").write_text("\n".join(rows) + "\n")
    table = paper_pages.predictions(tmp_path)
    assert table[("glass", "ovr")] == (["a", "a"], ["a", "b"])
    assert table[("glass", "ecoc")] == (["a", "a"], ["b", "a"])


def _without(measured, dataset):
    """``measured`` less every cell of ``dataset`` and every run that held only its cells."""
    cells = {config: {d: v for d, v in by_dataset.items() if d != dataset}
             for config, by_dataset in measured["cells"].items()}
    return {"runs": [run for run in measured["runs"]
                     if cells.get(run["config"]) or run["config"] not in cells],
            "cells": {config: held for config, held in cells.items() if held}}


def test_the_sets_not_run_are_listed_until_a_run_adds_them():
    """"What this page does not cover" lists each of the paper's sets with no cells, saying
    whether the mirror holds it (or the set's note); a run added for a set (under any config,
    with fields the pages do not read) takes it off the list, and its table rows fill (issue
    58). Whichever runs the data holds: yeast's are taken out first."""
    paper = paper_pages.read_yaml(paper_pages.DATA / "rifkin-klautau-2004.yaml")
    measured = _without(paper_pages.read_yaml(paper_pages.DATA / "rifkin-klautau-2004-runs.yaml"),
                        "yeast")
    lines = paper_pages.uncovered_block(paper, measured)
    named = [line.split("**")[1] for line in lines]
    assert "glass" not in named and "satimage" not in named and "yeast" in named
    assert f"- **yeast**: {paper_pages.IN_MIRROR}." in lines
    assert f"- **spectrometer**: {paper_pages.NOT_IN_MIRROR}." in lines
    noted = {**paper, "sets": {**paper["sets"], "yeast": {"mirror": True,
                                                          "note": "not run:\n  too long"}}}
    assert "- **yeast**: not run: too long." in paper_pages.uncovered_block(noted, measured)
    cell = copy.deepcopy(measured["cells"]["rifkin-klautau-2004"]["glass"])
    cell["OVA"]["n_test"] = 1484  # a field the pages do not read
    added = {"runs": [{**measured["runs"][0], "config": "rifkin-klautau-2004-yeast",
                       "datasets": ["yeast"], "cores_busy": 2}],
             "cells": {"rifkin-klautau-2004-yeast": {"yeast": cell}}}
    merged = paper_pages.add(copy.deepcopy(measured), added)
    assert "yeast" not in " ".join(paper_pages.uncovered_block(paper, merged))
    with_yeast = {**paper, "tables": {"AVA": {**paper["tables"]["AVA"], "rows": {
        **paper["tables"]["AVA"]["rows"], "yeast": [41.0, 40.9, 0.1, 0.9, [-0.01, 0.01]]}}}}
    (row,) = _rows(paper_pages.rk_block(with_yeast, merged, ["rifkin-klautau-2004-yeast"]),
                   "yeast")
    assert row[1] == f"{cell['AVA']['error']:.2f}"
    assert any(line.startswith("- `rifkin-klautau-2004-yeast` (yeast): run on")
               for line in paper_pages.runs_block(merged))


def test_the_index_takes_a_studys_dates_and_commits_from_its_runs():
    studies = {study: paper_pages.measured_of(study) for study in paper_pages.STUDIES}
    table = paper_pages.index_block(studies)
    (allwein,) = [line for line in table if "(allwein.md)" in line]
    for run in studies["allwein-2000"]["runs"]:
        assert run["date"] in allwein and run["commit"] in allwein
    studies["allwein-2000"] = {"runs": [{"date": "2027-01-02", "commit": "abc1234"}],
                               "cells": {}}
    (allwein,) = [line for line in paper_pages.index_block(studies) if "(allwein.md)" in line]
    assert allwein.endswith("| 2027-01-02 (abc1234) |")


def test_a_page_that_differs_from_the_generated_one_fails_the_check(monkeypatch, tmp_path):
    page = tmp_path / "allwein.md"
    text = paper_pages.PAGES["allwein-2000"].read_text(encoding="utf-8")
    page.write_text(text.replace("| glass | 33.18 |", "| glass | 33.19 |"), encoding="utf-8")
    monkeypatch.setitem(paper_pages.PAGES, "allwein-2000", page)
    assert paper_pages.main(["--check"]) == 1
    assert paper_pages.main([]) == 0 and page.read_text(encoding="utf-8") == text


@pytest.mark.parametrize("name", ["allwein", "rifkin-klautau", "wu-lin-weng", "hsu-lin"])
def test_a_study_page_leads_with_its_verdict_and_says_what_it_does_not_cover(name):
    """Issue 58: at most 400 lines, the verdict before the first section, a section naming what
    was not run, and the history of attempts on how-reached.md, not here."""
    text = (REPO / "docs" / "results" / f"{name}.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 400
    assert "**Verdict.**" in text.split("\n## ")[0]
    assert "\n## What this page does not cover\n" in text


def test_the_wlw_table_puts_the_configs_reference_beside_our_draws():
    """Wu, Lin & Weng's waveform rows: ours from the runs file, the paper's DV mean from the
    config's ``reference`` (16.47, Figure 6 (c), p. 998); δ2 has no paper number."""
    measured = {"runs": [], "cells": {"wu-lin-weng-2004-waveform": {"waveform": {
        "maxwins": {"error": 15.0, "sd": 1.5}, "coupling": {"error": 14.25}}}}}
    dv, coupling = _rows(paper_pages.wlw_block(measured), "waveform")
    assert dv[2:6] == ["Max Wins (their DV)", "15.00", "1.50", "16.47"]
    assert "Figure 6" in dv[6] and "p. 998" in dv[6]
    assert coupling[3:] == ["14.25", "-", "-", "-"]
