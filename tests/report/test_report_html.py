"""report.html: one self-contained file from a run folder's saved files."""

import base64
import csv
import json
import re
from html.parser import HTMLParser

import pandas as pd
import pytest

from multisvm_cli.report.figures import cd, dag_orders
from multisvm_cli.base.errors import MultisvmError
from multisvm_cli.report.html import write_report
from multisvm_cli.report.html_table import SORTER
from multisvm_cli.report.ranking import rank_schemes
from multisvm_cli.report.table import render

VOID = {"meta", "img", "br", "hr", "link", "input"}
ROWS = [
    {"dataset": "iris", "scheme": "ovr", "kernel": "gaussian sigma=2", "C": 10.0,
     "error_pct": 4.444444444444445, "n_test": 45, "kernel_evaluations": 52.0, "cpu_time": 0.0123,
     "size_k": 0.912, "selection_time": 0.5, "evaluation_time": 0.002, "mcnemar_p": 0.617,
     "mcnemar_test": "exact", "significant": False},
    {"dataset": "iris", "scheme": "dag", "kernel": "gaussian sigma=4", "C": 100.0,
     "error_pct": 2.2222222222222223, "n_test": 45, "kernel_evaluations": 21.5, "cpu_time": 0.0101,
     "size_k": 0.75, "selection_time": 0.4, "evaluation_time": 0.001},
    {"dataset": "wine", "scheme": "ovr", "kernel": "linear", "C": 1.0, "error_pct": 0.0,
     "n_test": 54,
     "kernel_evaluations": 40.0, "cpu_time": 0.02, "size_k": 1.5, "selection_time": 0.3,
     "evaluation_time": 0.003, "mcnemar_p": 1.0, "mcnemar_test": "exact", "significant": False},
    {"dataset": "wine", "scheme": "dag", "kernel": "linear", "C": 1.0,
     "error_pct": 1.8518518518518519, "n_test": 54, "kernel_evaluations": 30.0, "cpu_time": 0.03,
     "size_k": 1.2, "selection_time": 0.2, "evaluation_time": 0.004},
]


class StrictParser(HTMLParser):
    """Records the tag structure; fails on a closing tag that does not match."""

    def __init__(self):
        super().__init__()
        self.stack, self.images, self.errors = [], [], []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs)["src"])
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(tag)


def fake_run(folder, with_csv=True):
    folder.mkdir(parents=True)
    if with_csv:
        (folder / "table.csv").write_text(render(ROWS, "csv"), encoding="utf-8")
    ranking = rank_schemes(pd.DataFrame({"ovr": [4.4, 0.0], "dag": [2.2, 1.9]},
                                        index=["iris", "wine"]))
    results = [{"dataset": r["dataset"], "scheme": r["scheme"], "params": {"C": r["C"]}}
               for r in ROWS]
    (folder / "results.json").write_text(json.dumps(
        {"config": "quickstart", "compare_to": "dag", "results": results, "table": ROWS,
         "ranking": ranking}))
    (folder / "config.yaml").write_text("name: quickstart\n# see http://example.org <b>\n"
                                        "C: [1, 100]\n")
    (folder / "run.json").write_text(json.dumps(
        {"multisvm": "0.1.0", "git_commit": "abc123", "status": "done",
         "libraries": {"numpy": "2.0"}}))
    cd.cd_diagram(ranking, folder / "figures" / "cd-diagram.png")
    dag_orders.dag_orders_histogram([1.0, 2.0, 2.0], [3.0, 4.0, 3.0], 2.0,
                            folder / "figures" / "dag-orders-iris.png", dataset="iris")
    return folder


def test_report_is_one_self_contained_valid_file(tmp_path):
    run = fake_run(tmp_path / "results" / "quickstart" / "20240101-000000")
    path = write_report(run)
    assert path == run / "report.html"
    text = path.read_text(encoding="utf-8")
    parser = StrictParser()
    parser.feed(text)
    parser.close()
    assert parser.errors == [] and parser.stack == []
    # every number of table.csv is in the page (its exact value in the cell's title)
    with (run / "table.csv").open(newline="") as stream:
        for row in csv.DictReader(stream):
            for key, value in row.items():
                if value and key not in ("scheme", "significant"):
                    assert f'"{value}"' in text or f">{value}<" in text, (key, value)
    assert ">4.44<" in text and 'title="4.444444444444445"' in text and ">DAGSVM<" in text
    # both figures, embedded as PNG data URIs identical to the files
    expected = {base64.b64encode((run / "figures" / n).read_bytes()).decode()
                for n in ("cd-diagram.png", "dag-orders-iris.png")}
    assert {src.removeprefix("data:image/png;base64,") for src in parser.images} == expected
    # no reference to the network; one script, inline: the column sorter, which loads nothing
    assert text.lower().count("<script") == 1 and f"<script>{SORTER}</script>" in text
    assert not re.search(r"fetch|XMLHttpRequest|import|https?:", SORTER)
    assert not re.search(r"(src|href)\s*=\s*\"?https?:", text)
    assert "http://example.org &lt;b&gt;" in text  # config text, escaped
    assert "Average rank over 2 datasets" in text and "Wilcoxon signed-rank" in text
    assert "abc123" in text and "{&quot;numpy&quot;: &quot;2.0&quot;}" in text
    assert "Critical-difference diagram" in text and "natural order" in text
    assert not list(run.glob(".*tmp"))


def test_table_from_results_json_and_no_figures(tmp_path):
    run = fake_run(tmp_path / "run", with_csv=False)
    for png in (run / "figures").glob("*.png"):
        png.unlink()
    (run / "figures" / "grid-iris-ovr-gaussian.png").write_bytes(b"not a png")
    text = write_report(run).read_text()
    assert ">1.85<" in text and 'title="1.8518518518518519"' in text
    assert "<img" not in text and "is not a PNG file; left out" in text


def test_bad_run_folders_fail_with_one_line(tmp_path):
    with pytest.raises(MultisvmError, match="no run folder at"):
        write_report(tmp_path / "missing")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(MultisvmError, match="lacks results.json: it is not a finished run"):
        write_report(empty)
    (empty / "results.json").write_text("{cut off")
    with pytest.raises(MultisvmError, match="results.json: not valid JSON"):
        write_report(empty)
    assert not (empty / "report.html").exists()


def answer_section(text):
    return text[text.index("<h2>Answer</h2>"):text.index("<h2>Results</h2>")]


def test_the_page_leads_with_the_answer_from_the_tests_against_compare_to(tmp_path):
    """A run saved without versus_best: the rows' tests against compare_to (DAGSVM) stand for
    tests against the best only where DAGSVM is the best (iris); on wine (best 1-v-r) the
    answer says DAGSVM was not tested against 1-v-r."""
    text = write_report(fake_run(tmp_path / "run")).read_text()
    assert text.index("<h2>Answer</h2>") < text.index("<h2>Results</h2>")
    answer = answer_section(text)
    iris, wine = answer.split("<tr><td class=\"text\">")[1:]
    # iris: DAGSVM 1 error of 45 (2.22%); Wilson's 95% interval of 1/45 is 0.39% to 11.57%,
    # of 0/54 0% to 6.64% (z^2/n / (1 + z^2/n), z = 1.96)
    assert "<b>DAGSVM</b> 2.22% (95% Wilson interval 0.39 to 11.57)" in iris
    assert "1-v-r (0.62, exact)" in iris and iris.endswith("<td class=\"text\">none</td></tr>\n")
    assert "<b>1-v-r</b> 0.00% (95% Wilson interval 0.00 to 6.64)" in wine
    assert "none; not tested against 1-v-r: DAGSVM" in wine


def test_answer_from_versus_best_and_the_table_columns(tmp_path):
    run = fake_run(tmp_path / "run")
    saved = json.loads((run / "results.json").read_text())
    saved["versus_best"] = {
        "iris": {"best": "dag", "alpha": 0.05, "tests": {"ovr": {"p_value": 0.01,
                                                                 "test": "chi2"}}},
        "wine": {"best": "ovr", "alpha": 0.05, "tests": {"dag": {"p_value": 0.5,
                                                                 "test": "exact"}}}}
    (run / "results.json").write_text(json.dumps(saved))
    rows = [{**row, "paper_error_pct": 3.3} if row["scheme"] == "dag" else row for row in ROWS]
    (run / "table.csv").write_text(render(rows, "csv"), encoding="utf-8")
    text = write_report(run).read_text()
    iris, wine = answer_section(text).split("<tr><td class=\"text\">")[1:]
    assert "significantly" not in iris and iris.endswith("<td class=\"text\">1-v-r (0.01, chi2)"
                                                          "</td></tr>\n")
    assert "DAGSVM (0.5, exact)" in wine and "not tested" not in wine
    head = re.search(r"<thead><tr>(.*?)</tr></thead>", text).group(1)
    titles = re.findall(r"<th[^>]*>([^<]*)</th>", head)
    # the paper's error right of ours; the empty columns (SMO iterations, error SD, ties, ...)
    # left out; the essential columns first shown, the rest marked extra (hidden by CSS)
    assert titles[titles.index("error %") + 1] == "paper err %"
    assert "SMO iters" not in titles and "error SD %" not in titles and "ties" not in titles
    extra = re.findall(r"<th class=\"[^\"]*extra[^\"]*\">([^<]*)</th>", head)
    assert extra == ["select s", "eval s", "test", "sig 0.05"]
    assert f"show all {len(titles)} columns (4 more)" in text
    assert "#all-columns:not(:checked) ~ div.scroll .extra { display: none; }" in text
    assert '<td class="paper" data-v="3.3">3.3</td>' in text
    assert 'data-v="4.444444444444445"' in text  # the sort compares the exact value


def test_linear_models_are_marked_not_given_kernel_labels(tmp_path):
    """results.json's table says which rows are linear models (``primal``): their scheme,
    kernel evals and iterations carry the mark, and the footnote says what they are."""
    run = fake_run(tmp_path / "run")
    saved = json.loads((run / "results.json").read_text())
    saved["table"] = [{**row, "primal": True} if row["dataset"] == "wine" else row
                      for row in saved["table"]]
    (run / "results.json").write_text(json.dumps(saved))
    text = write_report(run).read_text()
    table = text[text.index("<h2>Results</h2>"):text.index("<p class=\"note\">error %")]
    assert table.count("\u2021</td>") == 4  # wine's 2 rows: scheme and kernel evals
    assert ">1-v-r \u2021</td>" in table and 'data-v="40.0">40 \u2021</td>' in table
    assert ">52 \u2021<" not in table and 'data-v="52.0">52</td>' in table  # iris: kernels
    assert "dot products with weight vectors per test point" in text
    assert "\u2021 a linear model" in text


def test_paper_rows_sit_with_their_dataset_and_the_source_is_named(tmp_path):
    run = fake_run(tmp_path / "run")
    rows = ROWS + [{"dataset": "iris", "scheme": "udt", "paper_error_pct": 4.3}]  # paper only
    (run / "table.csv").write_text(render(rows, "csv"), encoding="utf-8")
    results = json.loads((run / "results.json").read_text())
    (run / "results.json").write_text(json.dumps({**results, "table": rows}))  # as a run writes
    (run / "config.yaml").write_text("name: quickstart\nreference:\n  source: Platt et al. "
                                     "(1999), Table 1\n  iris:\n    udt: {error: 4.3}\n")
    text = write_report(run).read_text()
    body = text[text.index("<tbody>"):text.index("</tbody>")]
    order = re.findall(r"<tr[^>]*><td class=\"text\">(\w+)</td><td class=\"text\"[^>]*>"
                       r"([^<]+)<", body)
    assert order == [("iris", "1-v-r"), ("iris", "DAGSVM"), ("iris", "UDT"),
                     ("wine", "1-v-r"), ("wine", "DAGSVM")]
    assert "paper columns: Platt et al. (1999), Table 1." in text
