"""The figure registry: a figure kind registered in one new file (tests/report/figures/toy_figure.py) is drawn,
its stale files cleaned up and its caption shown in report.html, with nothing else edited."""

import html
import importlib
import json

import pytest

from multisvm_cli.base.errors import MultisvmError
from multisvm_cli.experiment.run.report import rebuild_report
from multisvm_cli.report.figures import base, figure, registered
from multisvm_cli.report.html import write_report
from multisvm_cli.report.run_folder import GRID_COLUMNS
from multisvm_cli.report.run_folder import read_results

from .test_report_figures import grid_frame  # iris x {ovr, dag, nb} grid.csv rows

ROWS = [{"dataset": "iris", "scheme": "ovr", "kernel": "gaussian sigma=2", "C": 10.0,
         "error_pct": 100 * 2 / 45, "n_test": 45, "kernel_evaluations": 52.0},
        {"dataset": "iris", "scheme": "dag", "kernel": "gaussian sigma=4", "C": 1.0,
         "error_pct": 100 * 1 / 45, "n_test": 45, "kernel_evaluations": 21.5},
        {"dataset": "wine", "scheme": "ovr", "kernel": "linear", "C": 1.0,
         "error_pct": 100 * 3 / 54, "n_test": 54, "kernel_evaluations": 40.0}]


@pytest.fixture
def toy():
    """The toy figure's module, imported (registered) for one test, then unregistered."""
    module = importlib.import_module(".toy_figure", __package__)
    module = importlib.reload(module) if module.NAME not in base.FIGURES else module
    yield module
    base.unregister(module.NAME)


def small_run(folder):
    """A run folder with the files the figures read: grid.csv, results.json (no ranking),
    run.json, and the config.yaml every finished run folder holds."""
    folder.mkdir(parents=True)
    grid = grid_frame().assign(estimate="nested")  # in the run's columns, as a run writes it
    grid.reindex(columns=GRID_COLUMNS).to_csv(folder / "grid.csv", index=False)
    pairs = set(zip(grid["dataset"], grid["scheme"]))  # results.json's results match grid.csv
    results = [{"dataset": d, "scheme": s, "params": {"kernel": "gaussian", "sigma": 2.0,
                                                     "C": 1.0}} for d, s in sorted(pairs)]
    (folder / "results.json").write_text(json.dumps(
        {"config": "toy", "compare_to": "dag", "results": results, "table": ROWS}))
    (folder / "run.json").write_text(json.dumps({"status": "done"}))
    (folder / "config.yaml").write_text("name: toy\n")
    return folder


def test_a_figure_in_one_new_file_is_drawn_cleaned_up_and_captioned(tmp_path, toy):
    assert toy.NAME in [kind.name for kind in registered()]
    run = small_run(tmp_path / "run")
    figures = run / "figures"
    figures.mkdir()
    (figures / "toy-errors-letter.png").write_bytes(b"an earlier drawing's")  # stale
    (figures / "toy-errors-iris.pdf").write_bytes(b"an earlier drawing, another format")
    (figures / "notes.png").write_bytes(b"the user's own file")  # no kind owns it: kept
    drawn = rebuild_report(run)
    names = sorted(p.name for p in figures.iterdir())
    assert names == ["grid-iris-gaussian.png", "grid-iris-linear.png",
                     "grid-iris-polynomial.png", "notes.png", "toy-errors-iris.png",
                     "toy-errors-wine.png", "tradeoff-iris.png", "tradeoff-wine.png"]
    assert drawn[-1] == run / "report.html"
    assert toy.DRAWN == {"iris": {"ovr": 2, "dag": 1}, "wine": {"ovr": 3}}
    page = (run / "report.html").read_text()
    assert "<h2>Toy errors</h2>" in page
    assert page.count(f"</b>: {html.escape(toy.CAPTION)}</figcaption>") == 2
    assert "<b>toy-errors-iris.png</b>" in page and "<b>toy-errors-wine.png</b>" in page
    # report.html's order is the kinds' order: trade-off (20) < toy (35) < grids (40)
    assert (page.index("tradeoff-wine.png") < page.index("<h2>Toy errors</h2>")
            < page.index("grid-iris-gaussian.png"))
    assert read_results(run)["table"] == ROWS  # the run's files are only read


def test_without_the_toy_module_nothing_names_it(tmp_path):
    base.unregister("toy-errors")
    run = small_run(tmp_path / "run")
    (run / "figures").mkdir()
    (run / "figures" / "toy-errors-iris.png").write_bytes(b"not a kind's file any more")
    rebuild_report(run)
    assert (run / "figures" / "toy-errors-iris.png").exists()  # no registered kind owns it
    page = write_report(run).read_text()
    assert "toy-errors" not in page and "<h2>Error against evaluation cost</h2>" in page


@pytest.mark.slow
def test_a_figure_may_read_another_json_or_csv_file_of_the_run(tmp_path):
    """A figure reading verdict.json is drawn only where the run wrote it, from its checked
    content; a run without it just lacks the figure."""
    seen = []

    @figure("verdict-check", reads=("verdict.json", "table_rows"), caption="A check.")
    def draw(data, folder, fmt, dpi):
        seen.append(data.get("verdict.json"))
        return []

    try:
        run = small_run(tmp_path / "run")
        base.write_figures(run)
        assert seen == []  # no verdict.json: not drawn
        (run / "verdict.json").write_text('{"iris": {"p_better": 0.93}}')
        base.write_figures(run)
        assert seen == [{"iris": {"p_better": 0.93}}]
        (run / "verdict.json").write_text('{"iris": NaN}')
        with pytest.raises(MultisvmError, match="verdict.json"):
            base.write_figures(run)  # strict JSON, one line
    finally:
        base.unregister("verdict-check")


def test_a_kind_is_refused_when_it_reads_the_unknown_or_clashes():
    with pytest.raises(ValueError, match="reads model.bin; a figure reads only results"):
        figure("odd", reads=("model.bin",), caption="")
    with pytest.raises(ValueError, match="reads ../grid.csv"):
        figure("odd", reads=("../grid.csv",), caption="")
    with pytest.raises(ValueError, match="clashes with the registered figure 'grid'"):
        figure("grid-extra", reads=("grid",), caption="")
    with pytest.raises(ValueError, match="clashes with the registered figure 'dag-orders'"):
        figure("dag", reads=("grid",), caption="")
    assert "odd" not in base.FIGURES and "dag" not in base.FIGURES
