"""Your own data without traps (issue #20 items 1-2): a local file is scaled by default, an
unscaled one with far-apart column ranges warns, and libsvm's fits are bounded as upstream
LIBSVM bounds them, a fit stopped at the bound being a warning in run.json and a * in the table."""

import csv
import json
import warnings

import pytest
from configs import write_wide_column_csv
from sklearn.datasets import load_iris

from multisvm_cli.estimators import REGISTRY
from multisvm_cli.estimators._solvers import iteration_bound
from multisvm_cli.experiment import load_config

pytestmark = pytest.mark.usefixtures("no_network")


def write_own(folder, scaling=None, extra=""):
    """A 300 x 6 four-class CSV whose column 2 is x1000, and a config running it."""
    write_wide_column_csv(folder)
    lines = ["name: own", "dataset: [{name: own, path: own.csv}]",
             "split: {test_fraction: 0.3, seed: 0}", "kernels: [{type: linear}]", "C: [1, 100]",
             "schemes: [ovr, maxwins]"]
    if scaling:
        lines.append(f"scaling: {scaling}")
    path = folder / "own.yaml"
    path.write_text("\n".join(lines) + "\n" + extra)
    return path


def test_a_local_csv_is_standardized_by_default_and_says_so(tmp_path, run_multisvm):
    config = load_config(write_own(tmp_path))
    assert config.datasets[0].scaling == "standard"
    assert config.resolved["dataset"][0]["scaling"] == "standard"
    assert config.resolved["dataset"][0]["max_iter"] == "libsvm"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = run_multisvm("validate", tmp_path / "own.yaml")
    assert result.code == 0


def test_an_unscaled_csv_with_a_wide_column_warns_naming_it(tmp_path, run_multisvm):
    with pytest.warns(UserWarning) as caught:
        result = run_multisvm("validate", write_own(tmp_path, scaling="none"))
    assert result.code == 0
    lines = [str(w.message) for w in caught]
    assert len(lines) == 1
    assert "own runs unscaled" in lines[0] and "columns 2 (" in lines[0]
    assert "against column" in lines[0]


def test_scaling_paper_on_a_local_file_is_refused_with_the_choices(tmp_path, run_multisvm):
    result = run_multisvm("validate", write_own(tmp_path, scaling="paper"))
    assert result.code == 2
    assert "registry datasets only" in result.err and "standard, standard-continuous" in result.err


def test_libsvm_bound_is_upstream_libsvm_s():
    assert iteration_bound("libsvm", 50) == 10**7
    assert iteration_bound("libsvm", 200_000) == 2 * 10**7
    assert iteration_bound("libsvm", 10**8) == 2**31 - 1
    assert iteration_bound(None, 5) == iteration_bound("none", 5) == -1
    assert iteration_bound(500, 5) == 500


def test_a_small_max_iter_stops_each_binary_fit_there_with_a_warning():
    X, y = load_iris(return_X_y=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bounded = REGISTRY["ovr"].estimator(kernel="linear", C=1, max_iter=20).fit(X, y)
    assert [str(w.message) for w in caught].count("Solver terminated early (max_iter=20)") >= 2
    assert bounded.smo_iterations_ <= 3 * 20
    free = REGISTRY["ovr"].estimator(kernel="linear", C=1, max_iter=None).fit(X, y)
    assert free.smo_iterations_ > 3 * 20


def test_a_fit_stopped_at_max_iter_warns_in_run_json_and_marks_the_table(tmp_path, run_multisvm):
    path = write_own(tmp_path, scaling="none", extra="max_iter: 200\n")
    result = run_multisvm("reproduce-table", path, "--out", tmp_path / "res", "--no-figures")
    assert result.code == 0, result.err
    run = json.loads(next((tmp_path / "res" / "own").glob("2*/run.json")).read_text())
    final = [w for w in run["warnings"] if "the final fit" in w]
    assert final and all("linear, C=" in w and "iteration bound" in w for w in final)
    assert any(w.startswith("own maxwins: ") and "grid point" in w for w in run["warnings"])
    assert "*" in result.out and "stopped at libsvm's iteration bound" in result.out
    # table.csv keeps the mark, so report.html (and multisvm report, which redraws it) shows it
    folder = next((tmp_path / "res" / "own").glob("2*"))
    rows = list(csv.DictReader((folder / "table.csv").open()))
    marked = [row["scheme"] for row in rows if row["bounded"] == "True"]
    assert marked and all(row["bounded"] in ("True", "") for row in rows)
    (folder / "report.html").unlink()
    assert run_multisvm("report", folder, "--no-figures").code == 0
    page = (folder / "report.html").read_text()
    assert page.count("*</td>") == len(marked)
    assert "stopped at libsvm&#x27;s iteration bound" in page


def test_max_iter_in_scheme_options_and_bad_values(tmp_path, run_multisvm):
    path = write_own(tmp_path, extra="scheme_options: {ovr: {max_iter: none}}\n")
    assert load_config(path).scheme_options == {"ovr": {"max_iter": "none"}}
    bad = write_own(tmp_path, extra="max_iter: -5\n")
    result = run_multisvm("validate", bad)
    assert result.code == 2 and "max_iter" in result.err and "none" in result.err
