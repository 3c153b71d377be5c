"""`multisvm report` checks the run-folder files it redraws from: an edited grid.csv, results.json
or sweep.csv is refused in one line; an untouched sweep run redraws (issue #33)."""

import shutil
import pytest

from multisvm_cli.experiment import Settings, load_config, reproduce

LINEAR = [{"type": "linear"}]


# ------------------------------------------------- 3. `multisvm report` checks what it redraws

@pytest.fixture(scope="module")
def sweep_run(tmp_path_factory, mirror):
    """A finished sweep run folder (iris and wine, 2 and 3 classes, two repeats, 1-v-r and
    Max Wins), made once; tests edit copies of it."""
    from configs import write_config

    folder = tmp_path_factory.mktemp("sweep-run")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MULTISVM_DATA_HOME", str(folder / "home"))
        config = write_config(folder, dataset=["iris", "wine"], kernels=LINEAR, C=[1, 10],
                              schemes=["ovr", "maxwins"], repeats=2,
                              sweep={"classes": [2, 3]})
        run = reproduce(load_config(config), Settings(out=str(folder / "out"), quiet=True))
    return run.folder


def _edited(sweep_run, tmp_path, name, edit):
    copy = tmp_path / "run"
    shutil.copytree(sweep_run, copy)
    path = copy / name
    path.write_text(edit(path.read_text()))
    return copy


def _swap_values(text, a, b):
    """``text`` (CSV) with the values of columns ``a`` and ``b`` swapped, the header kept."""
    lines = text.splitlines()
    header = lines[0].split(",")
    i, j = header.index(a), header.index(b)
    rows = [line.split(",") for line in lines[1:]]
    for row in rows:
        row[i], row[j] = row[j], row[i]
    return "\n".join([lines[0]] + [",".join(row) for row in rows]) + "\n"


def _swap_columns(text, a, b):
    """``text`` (CSV) with columns ``a`` and ``b`` swapped, header and values."""
    lines = [line.split(",") for line in text.splitlines()]
    i, j = lines[0].index(a), lines[0].index(b)
    for row in lines:
        row[i], row[j] = row[j], row[i]
    return "\n".join(",".join(row) for row in lines) + "\n"


def _error_edit(text, value):
    """sweep.csv with its first row's error_pct replaced by ``value``."""
    lines = text.splitlines()
    column = lines[0].split(",").index("error_pct")
    first = lines[1].split(",")
    first[column] = value
    return "\n".join([lines[0], ",".join(first)] + lines[2:]) + "\n"


@pytest.mark.parametrize("name, edit, problem", [
    ("sweep.csv", lambda t: _error_edit(t, "777.77"), "error_pct 777.77 is not in"),
    ("sweep.csv", lambda t: _error_edit(t, "55.5"), "not one of results.json's results"),
    ("sweep.csv", lambda t: "\n".join(t.splitlines()[:2] + t.splitlines()[3:]) + "\n",
     "has no row: a row was dropped"),
    ("sweep.csv", lambda t: _swap_columns(t, "cpu_time", "evaluation_time"),
     "columns are not the run's"),
    ("sweep.csv", lambda t: _swap_values(t, "cpu_time", "evaluation_time"),
     "not one of results.json's results"),
    ("sweep.csv", lambda t: t.replace(",70,30,", ",70,30.5,", 1), "n_test 30.5 is not a count"),
    ("table.csv", lambda t: t.replace("3.3333333333333335", "6.666666666666667", 1),
     "error_pct is '6.666666666666667', results.json has 3.33"),
    ("table.csv", lambda t: "\n".join(t.splitlines()[:-1]) + "\n", "rows, results.json's table"),
    ("grid.csv", lambda t: "\n".join(t.splitlines()[:-1]) + "\n", "but the run scored"),
    ("grid.csv", lambda t: _swap_columns(t, "fit_cpu", "fit_wall"), "columns are not the run's"),
])
def test_report_refuses_an_edited_file(sweep_run, tmp_path, run_multisvm, name, edit, problem):
    folder = _edited(sweep_run, tmp_path, name, edit)
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    result = run_multisvm("report", folder)
    assert result.code != 0
    [line] = result.err.strip().splitlines()
    assert line.startswith("error: ") and name in line and problem in line, line
    assert before == {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.slow
def test_report_redraws_an_untouched_sweep_run(sweep_run, tmp_path, run_multisvm):
    folder = _edited(sweep_run, tmp_path, "sweep.csv", lambda text: text)
    result = run_multisvm("report", folder)
    assert result.code == 0, result.err
    assert (folder / "figures" / "sweep-iris.png").is_file()
