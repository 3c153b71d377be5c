"""Hsu & Lin's (2002) Tables II and III (report.hsu_lin): a real run's terminal output,
table.md and report.html against its results.json, and ``multisvm report`` redrawing them."""

import json
import math
import re

import pytest
import yaml

from multisvm_cli.report.hsu_lin import (OUTSIDE_TITLE, TITLE_II, TITLE_III, gamma_of,
                                         point_text, power_of_two, rate_cell)
from helpers import REPO
import paper_counts

PAPER = yaml.safe_load((REPO / "multisvm_cli" / "report" / "hsu_lin_paper.yaml").read_text())

LABELS = {"ovr": "1-v-r", "maxwins": "Max Wins", "dag": "DAGSVM"}
KFOLD = {"method": "kfold", "k": 5, "seed": 0}
# three small sets, a 2 x 2 corner of Hsu & Lin's grid: iris with both estimates (5 folds),
# glass with cv-best alone (5 folds), wine with one 70/30 test split (nested)
DATASETS = [{"name": "iris", "split": KFOLD, "estimate": ["nested", "cv-best"]},
            {"name": "glass", "split": KFOLD, "estimate": "cv-best"},
            {"name": "wine"}]
GRID = {"kernels": [{"type": "gaussian", "gamma": [0.25, 0.015625]}], "C": [1, 16]}


def table_block(text, title) -> list[list[str]]:
    """The rows (cells split on 2+ spaces) of the aligned table under ``title``."""
    lines = text.split("\n")
    start = lines.index(title) + 2  # title, blank line, header
    header = re.split(r"\s{2,}", lines[start].strip())
    assert set(lines[start + 1].replace(" ", "")) == {"-"}
    rows = []
    for line in lines[start + 2:]:
        if not line.strip():
            break
        rows.append(line)
    return header, rows


def split_cells(line, header_line_columns):
    """A row of an aligned table cut at its header's column starts (blank cells kept)."""
    starts = header_line_columns + [len(line) + 1]
    return [line[a:b].strip() for a, b in zip(starts, starts[1:])]


def column_starts(text, title) -> list[int]:
    lines = text.split("\n")
    dashes = lines[lines.index(title) + 3]
    return [m.start() for m in re.finditer(r"-+", dashes)]


def expected_rate(result) -> tuple[str, dict]:
    """Hsu & Lin's rate of a result, from its own counts: the cv-best error when it carries
    one (pooled over the folds), else its test errors over its test points."""
    source = result.get("cv_best") or result
    if result.get("estimate") == "cv-best":  # pooled over the folds: check the pooling too
        splits = result["splits"]
        assert source["n_errors"] == sum(s["n_errors"] for s in splits)
        assert source["n_test"] == sum(s["n_test"] for s in splits)
    return f"{100 - 100 * source['n_errors'] / source['n_test']:.2f}", source["params"]


def printed_range(dataset) -> str:
    """The paper's range of a dataset as the file prints it, worst-best; "" without one."""
    entry = PAPER["ranges"].get(dataset)
    return f"{entry['worst']}-{entry['best']}" if entry else ""


def paper_side(dataset, result) -> str:
    """"below" / "above" when a result's rate is outside the file's range, judged by row counts
    where the paper pins them (tests/paper_counts.py); "" inside or without a range."""
    source = result.get("cv_best") or result
    return paper_counts.side(dataset, 100 - 100 * source["n_errors"] / source["n_test"])


def power(value) -> str:
    exponent = math.log2(value)
    assert exponent == int(exponent)
    return f"2^{int(exponent)}"


@pytest.fixture
def hsu_lin_run(run_multisvm, write_config, mirror, data_home, tmp_path):
    config = write_config(name="hl", dataset=DATASETS, **GRID, layout="hsu-lin")
    run = run_multisvm("reproduce-table", config, "--out", tmp_path / "results", "-q",
                       "--no-figures", "--mirror", mirror)
    assert run.code == 0, run.err
    folder = (tmp_path / "results" / "hl" / "latest").resolve()
    return run.out, folder, json.loads((folder / "results.json").read_text())


def test_tables_ii_and_iii_show_the_runs_numbers(hsu_lin_run, run_multisvm):
    out, folder, saved = hsu_lin_run
    assert saved["layout"] == "hsu-lin"
    results = {(r["dataset"], r["scheme"]): r for r in saved["results"]}
    assert len(results) == 9
    assert out.index("error %") < out.index(TITLE_II) < out.index(TITLE_III)
    check_table_ii(out, results)
    check_table_iii(out, results)
    check_markdown((folder / "table.md").read_text(), results)

    # report.html, and `multisvm report` redraws it from results.json alone
    page = (folder / "report.html").read_text()
    assert "Hsu &amp; Lin (2002) Table II" in page and ">#SVs</td>" in page
    table_ii = page[page.index("Table II"):page.index("Table III")]
    rate, params = expected_rate(results[("glass", "maxwins")])
    assert f"{rate} ({power(params['C'])}, {power(params['gamma'])})" in table_ii
    (folder / "report.html").unlink()
    redraw = run_multisvm("report", folder, "--no-figures")
    assert redraw.code == 0, redraw.err
    assert (folder / "report.html").read_text() == page


def check_table_ii(out, results):
    """Per dataset its protocol, per method "rate (C, gamma)" with C and gamma as 2^k."""
    header, rows = table_block(out, TITLE_II)
    assert header == ["dataset", "rate", "1-v-r", "Max Wins", "DAGSVM", "paper range"]
    starts = column_starts(out, TITLE_II)
    protocols = {"iris": "5-fold CV", "glass": "5-fold CV", "wine": "test set"}
    assert [split_cells(r, starts)[0] for r in rows] == ["iris", "glass", "wine"]
    outside = " ".join(out[out.index(OUTSIDE_TITLE):out.index(TITLE_III)].split())
    marked = 0
    for line in rows:
        dataset, protocol, *cells, paper = split_cells(line, starts)
        assert protocol == protocols[dataset] and paper == printed_range(dataset) != ""
        for scheme, cell in zip(LABELS, cells):
            rate, params = expected_rate(results[(dataset, scheme)])
            side = paper_side(dataset, results[(dataset, scheme)])
            assert cell == (f"{rate} ({power(params['C'])}, {power(params['gamma'])})"
                            + (f" [{side}]" if side else ""))
            # each cell outside the range is listed after the tables; none is written for "hl"
            listed = f"{dataset}, {LABELS[scheme]}: {rate} is {side} {paper}."
            assert (listed in outside) == bool(side)
            marked += bool(side)
    assert marked and outside.count("No reason is written for it (hsu_lin_paper.yaml, "
                                    "config hl).") == marked
    # iris carries both estimates: Table II shows the cv-best rate, not the nested one
    iris = results[("iris", "ovr")]
    assert f"{100 - iris['cv_best']['error_pct']:.2f}" in split_cells(rows[0], starts)[2]
    wine = results[("wine", "dag")]
    assert wine["n_test"] == 54 and len(wine["splits"]) == 1


def check_table_iii(out, results):
    """Training time, testing time and #SVs, one block of datasets each: the results'
    cpu_time (the folds' mean), evaluation_time and n_support_vectors (the folds' mean)."""
    header, rows = table_block(out, TITLE_III)
    assert header == ["dataset", "1-v-r", "Max Wins", "DAGSVM"] and len(rows) == 9
    starts = column_starts(out, TITLE_III)
    blocks = {"training time (s)": "cpu_time", "testing time (s)": "evaluation_time",
              "#SVs": "n_support_vectors"}
    key = None
    for line in rows:
        title, dataset, *cells = split_cells(line, starts)
        key = blocks[title] if title else key
        for scheme, cell in zip(LABELS, cells):
            result = results[(dataset, scheme)]
            value = result[key]
            if key != "evaluation_time":  # a fold's mean (one split: its own)
                splits = result["splits"]
                assert value == pytest.approx(sum(s[key] for s in splits) / len(splits))
            if key == "n_support_vectors":
                assert value > 0 and float(cell) == pytest.approx(value, abs=0.05)
            else:
                assert float(cell) == pytest.approx(value, abs=0.0051 if value >= 1 else 0.00051)


def check_markdown(markdown, results):
    """table.md: the same tables in markdown, each dataset's best rate in bold."""
    assert f"### {TITLE_II}" in markdown and f"### {TITLE_III}" in markdown
    section = markdown[markdown.index(TITLE_II):markdown.index(TITLE_III)]
    bold = []
    for dataset in ("iris", "glass", "wine"):
        row = next(line for line in section.split("\n") if line.startswith(f"| {dataset} "))
        rates = {s: float(expected_rate(results[(dataset, s)])[0]) for s in LABELS}
        cells = [c.strip() for c in row.strip("|").split("|")][2:]
        for scheme, cell in zip(LABELS, cells):
            assert cell.startswith("**") == (rates[scheme] == max(rates.values()))
            bold.append(cell.startswith("**"))
    assert any(bold) and not all(bold)  # this run's rates differ on some set


def test_without_the_layout_no_hsu_lin_tables(run_multisvm, write_config, mirror, data_home,
                                              tmp_path):
    config = write_config(**GRID)
    run = run_multisvm("reproduce-table", config, "--out", tmp_path / "r", "-q",
                       "--no-figures", "--mirror", mirror)
    assert run.code == 0, run.err
    folder = tmp_path / "r" / "small" / "latest"
    assert "Hsu & Lin" not in run.out
    assert "Hsu & Lin (2002) Table" not in (folder / "table.md").read_text()
    assert "Hsu &amp; Lin" not in (folder / "report.html").read_text()
    assert json.loads((folder / "results.json").read_text())["layout"] == "table-1"


def test_bad_layouts_are_refused_with_one_line(run_multisvm, write_config, tmp_path):
    bad = run_multisvm("validate", write_config(**GRID, layout="hsu_lin"))
    assert bad.code == 2
    assert bad.err.strip().endswith("layout: 'hsu_lin' is not a valid layout; allowed: table-1, "
                                    "hsu-lin (did you mean 'hsu-lin'?)")
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "results.json").write_text(json.dumps(
        {"layout": "paper", "results": [{"dataset": "iris", "scheme": "ovr",
                                         "params": {"C": 1.0}}],
         "table": [{"dataset": "iris", "scheme": "ovr"}]}))
    (folder / "run.json").write_text(json.dumps({"status": "done"}))
    refused = run_multisvm("report", folder, "--no-figures")
    assert refused.code == 2 and len(refused.err.strip().split("\n")) == 1
    assert "'layout' is not one of table-1, hsu-lin" in refused.err


def test_points_as_hsu_and_lin_write_them():
    assert [power_of_two(v) for v in (4096.0, 0.0625, 1, 3.0, 0.3)] == \
        ["2^12", "2^-4", "2^0", "3", "0.3"]
    # sigma = 2^-1.5 gives gamma = 1 / (2 sigma^2) = 2^2
    assert gamma_of({"kernel": "gaussian", "C": 1.0, "sigma": 2 ** -1.5}) == pytest.approx(4.0)
    assert gamma_of({"kernel": "linear", "C": 1.0}) is None
    cell = rate_cell({"params": {"kernel": "polynomial", "C": 8.0, "degree": 2},
                      "n_errors": 3, "n_test": 40})
    assert cell["accuracy"] == 92.5 and point_text(cell) == "(2^3, polynomial)"


def test_a_damaged_result_leaves_its_cells_blank():
    """A hand-edited results.json (counts or times missing, params not a mapping) gives blank
    cells in report.html's tables, never a traceback."""
    from multisvm_cli.report.hsu_lin import tables_html

    document = {"layout": "hsu-lin", "results": [
        {"dataset": "iris", "scheme": "ovr", "params": "C=1", "n_errors": 2, "n_test": 50,
         "cpu_time": "fast", "cv_best": "yes"},
        {"dataset": "iris", "scheme": "dag", "params": {"kernel": "gaussian", "C": 2.0,
                                                        "gamma": 0.5}, "n_test": 50}]}
    page = "\n".join(tables_html(document))
    # 100 - 100 * 2 / 50, the best, below iris's printed range; no point to show
    assert "<b>96.00 [below]</b></td>" in page and printed_range("iris") in page
    assert "<li>iris, 1-v-r: 96.00 is below" in page
    assert "(2^1, 2^-1)" not in page  # the dag result has no error count: no rate
    assert tables_html({**document, "layout": "table-1"}) == []


def test_cells_outside_the_paper_range_carry_the_reason_written_for_them(monkeypatch):
    """A reason is read per config, dataset and method ("all": every method of the dataset);
    a cell inside the range, a dataset the paper does not quote (vowel's 990 rows) and
    another config get none."""
    from multisvm_cli.report import hsu_lin, paper_range

    written = {**PAPER, "reasons": {"study": {"vehicle": {"ww": "W&W's reason."},
                                              "glass": {"all": "Glass's reason."}}}}
    monkeypatch.setattr(paper_range, "paper", lambda: written)

    def result(dataset, scheme, errors, n_test):
        return {"dataset": dataset, "scheme": scheme, "n_errors": errors, "n_test": n_test,
                "params": {"kernel": "gaussian", "C": 1.0, "gamma": 1.0}}

    results = [result("vehicle", "ww", 120, 846),     # 85.82: below 86.052
               result("vehicle", "cs", 118, 846),     # 86.05 (728 / 846 = 86.052): inside
               result("glass", "ww", 50, 214),        # 76.64: above 73.832
               result("vowel", "ww", 400, 990),       # no range for the 990-row vowel
               result("satimage", "ww", 174, 2000)]   # 91.30: their worst, 1,826 rows
    assert hsu_lin.outside_lines(results, "study") == [
        f"vehicle, W&W: 85.82 is below {printed_range('vehicle')}. W&W's reason.",
        f"glass, W&W: 76.64 is above {printed_range('glass')}. Glass's reason."]
    assert hsu_lin.outside_lines(results, "other")[0].endswith(
        "No reason is written for it (hsu_lin_paper.yaml, config other).")
    header, body = hsu_lin.table_ii(results)
    assert header[-1] == "paper range" and [row[-1] for row in body] == [
        printed_range("vehicle"), printed_range("glass"), "", printed_range("satimage")]
    assert body[0][2:4] == ["85.82 (2^0, 2^0) [below]", "86.05 (2^0, 2^0)"]


def test_a_draws_rate_is_labelled_by_its_draws_not_as_folds():
    from multisvm_cli.report.hsu_lin import protocol

    splits = [{"fold": i, "error_pct": 10.0} for i in range(20)]  # a draw is stored as a fold
    assert protocol({"draws": 20, "splits": splits}) == "20 draws"
    assert protocol({"splits": splits}) == "nested 20-fold"


def test_a_range_typed_as_a_number_is_refused(monkeypatch):
    """An unquoted 97.68 in hsu_lin_paper.yaml is a float, whose Decimal is 97.680000000000006...:
    its last printed decimal, and so the half unit that widens the range, would be wrong."""
    from multisvm_cli.report import paper_range

    typed = {**PAPER, "ranges": {**PAPER["ranges"], "letter-hsu-lin": {
        **PAPER["ranges"]["letter-hsu-lin"], "worst": 97.68}}}
    monkeypatch.setattr(paper_range, "paper", lambda: typed)
    with pytest.raises(ValueError, match="letter-hsu-lin's worst must be quoted as printed"):
        paper_range.side("letter-hsu-lin", 97.0)
    assert paper_range.side("satimage", 80.0) == paper_range.BELOW


def test_a_range_end_pinned_by_the_difference_column_is_judged_by_rows():
    """Satimage's worst is printed 91.3, but 92.35 less the Difference column's 1.050 pins it at
    91.30, 1,826 of 2,000 test rows: W&W's 91.25 (1,825 rows) is below it, which the half-unit
    rounding rule (91.25 to 91.35) missed (issue 58). One row more is inside, and a rate shown
    to 2 decimals is judged by the counts it rounds from."""
    from fractions import Fraction

    from multisvm_cli.report import paper_range

    assert paper_range.bounds("satimage")["worst"] == (Fraction(9130, 100), Fraction(9130, 100))
    assert paper_range.side("satimage", 100 * 1825 / 2000) == paper_range.BELOW
    assert paper_range.side("satimage", 91.25, rounding=0.005) == paper_range.BELOW
    assert paper_range.side("satimage", 100 * 1826 / 2000) is None
    assert paper_range.side("satimage", 92.35) is None
    assert paper_range.side("satimage", 92.40) == paper_range.ABOVE
    # nothing pins wine's best beyond its rows: 99.44 shown is 177 of 178 rows, 99.438 printed
    assert paper_range.side("wine", 99.44, rounding=0.005) is None
    # the package and the tests' brute-force reading agree on every set, end and row
    for dataset, entry in paper_range.paper()["ranges"].items():
        worst, best = paper_counts.ends(dataset)
        found = paper_range.bounds(dataset)
        assert float(found["worst"][0]) == pytest.approx(worst, abs=1e-9), dataset
        assert float(found["best"][1]) == pytest.approx(best, abs=1e-9), dataset
        rows = entry.get("rows") or entry["size"]
        for k in range(max(0, round(worst * rows / 100) - 3), round(worst * rows / 100) + 3):
            rate = 100 * k / rows
            assert (paper_range.side(dataset, rate) or "") == paper_counts.side(dataset, rate)
