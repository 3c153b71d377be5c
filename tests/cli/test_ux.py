"""What a user sees: the quickstart's terminal table fits 120 columns, footnotes wrap,
``multisvm report results/<config>`` finds the latest run, svg figures, the HTML table, the
configs listing, config names with "did you mean", scheme names in --scheme."""

import os
import re

import pytest

from multisvm_cli.cli.main import SCHEME_HELP
from multisvm_cli.estimators.registry import scheme_names_help
from multisvm_cli.report.ranking import small_sample_caution
from helpers import REPO, run_cli


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory):
    """(results root, printed report) of one quickstart run with svg figures, 120 columns."""
    home = tmp_path_factory.mktemp("ux")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MULTISVM_DATA_HOME", str(home / "data-home"))
        patch.setenv("COLUMNS", "120")
        result = run_cli("reproduce-table", "quickstart", "--out", home / "out", "--quiet",
                         "--figure-format", "svg", "--dpi", "100")
    assert result.code == 0, result.err
    return home / "out", result.out


@pytest.mark.slow
def test_quickstart_table_fits_120_columns_and_says_what_it_left_out(quickstart):
    _, printed = quickstart
    assert max(len(line) for line in printed.splitlines()) <= 120
    header = printed.splitlines()[0].split()
    assert header[:4] == ["dataset", "scheme", "kernel", "C"] and "n_test" in header
    assert "SMO" not in printed.splitlines()[0]  # a --wide column
    assert "--wide shows every column" in printed
    assert "Caution: 3 datasets are too few" in printed  # 7 schemes pass k > 5: not named
    assert "7 schemes" not in printed
    # n_test is the number of test points: 30% of iris' 150, wine's 178, digits' 1797
    at = printed.splitlines()[0].index("n_test")
    n_tests = {line.split()[0]: line[at:].split()[0]
               for line in printed.splitlines()[2:23] if "Max Wins" in line}
    assert n_tests == {"iris": "45", "wine": "54", "digits": "540"}


@pytest.mark.slow
def test_svg_figures_latest_link_and_report_of_a_config_folder(quickstart, monkeypatch):
    out, _ = quickstart
    config_folder = out / "quickstart"
    latest = config_folder / "latest"
    assert latest.is_symlink() and (latest / "run.json").is_file()
    assert os.readlink(latest) == next(config_folder.glob("2*")).name  # relative
    figures = sorted(p.name for p in (latest / "figures").iterdir())
    assert figures and all(name.endswith(".svg") for name in figures)
    assert (latest / "figures" / "grid-iris-gaussian.svg").read_bytes().startswith(b"<?xml")
    html = (latest / "report.html").read_text()
    assert "data:image/svg+xml;base64," in html
    assert '<div class="scroll"><table class="sortable">' in html
    assert html.count('<tr class="best">') >= 3  # each dataset's lowest error
    result = run_cli("report", config_folder, "--figure-format", "pdf")
    assert result.code == 0, result.err
    assert f"{latest.resolve()}" in result.out
    kinds = {p.suffix for p in (latest / "figures").iterdir()}
    assert kinds == {".pdf"}  # the svg files of the earlier drawing are replaced


def test_report_of_a_folder_without_runs_is_refused(tmp_path, run_multisvm):
    result = run_multisvm("report", tmp_path)
    assert result.code == 2 and "neither a run folder" in result.err


def test_small_sample_caution_follows_demsar():
    assert small_sample_caution(11, 6) == ""
    assert small_sample_caution(10, 6).startswith("Caution: 10 datasets are too few")
    assert "asks for N > 10 datasets;" in small_sample_caution(10, 6)
    assert "k > 5" not in small_sample_caution(10, 6) and "scheme" not in small_sample_caution(
        10, 6).split(":")[1]
    assert small_sample_caution(20, 5).startswith("Caution: 5 schemes are too few")
    assert "asks for k > 5 schemes;" in small_sample_caution(20, 5)
    assert "N > 10" not in small_sample_caution(20, 5)
    assert small_sample_caution(3, 4).startswith("Caution: 3 datasets and 4 schemes are too few")
    assert "asks for N > 10 datasets and k > 5 schemes;" in small_sample_caution(3, 4)


def test_scheme_help_is_the_registry_s():
    assert SCHEME_HELP == scheme_names_help()


def test_configs_listing_ends_descriptions_at_a_sentence_and_fits(run_multisvm, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    result = run_multisvm("configs")
    assert result.code == 0 and max(len(line) for line in result.out.splitlines()) <= 100
    text = " ".join(result.out.split())
    assert "Quickstart: seven schemes on three small" in text
    times = dict(re.findall(r"^(\S+)\s.*?  +(-|\d[\w ]* s)$", result.out, flags=re.M))
    assert times["quickstart"] == "10 s" and times["decompositions"] == "1 min 20 s"
    assert times["platt1999-letter"] == "-"  # never measured: no guess
    assert "(no download, no network)." in text and "Under a minute" not in text
    names = re.findall(r"^(\S+)\s", result.out, flags=re.M)[2:]
    assert names == sorted(p.stem for p in (REPO / "configs").glob("*.yaml"))


def test_config_name_did_you_mean(run_multisvm, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_multisvm("validate", "quikstart")
    assert result.code == 2 and "did you mean 'quickstart'?" in result.err


def test_current_folder_configs_come_first(run_multisvm, tmp_path, monkeypatch, write_config):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "configs").mkdir()
    text = (REPO / "configs" / "quickstart.yaml").read_text().replace("seed: 0", "seed: 7")
    (tmp_path / "configs" / "quickstart.yaml").write_text(text)
    result = run_multisvm("validate", "quickstart")
    assert result.code == 0, result.err
    assert "running configs/quickstart.yaml (the current folder's configs/)" in result.err
    assert "seed: 7" in result.out


def test_tradeoff_spreads_and_names_equal_points():
    from multisvm_cli.report.figures.tradeoff import tradeoff_figure

    rows = [{"scheme": s, "error_pct": e, "kernel_evaluations": k}
            for s, e, k in (("graph", 0.0, 14.0), ("hier", 0.0, 14.0), ("dag", 0.0, 18.7))]
    fig = tradeoff_figure("iris", rows)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.texts] == ["GraphSVM = Hier"]
    assert "equal points spread sideways and named" in ax.get_title()
    at_14 = {round(float(line.get_transform().transform((14.0, 0.0))[0]))
             for line in ax.lines if list(line.get_xdata()) == [14.0]}
    assert len(at_14) == 2 and max(at_14) - min(at_14) > 5  # drawn apart (display pixels)
