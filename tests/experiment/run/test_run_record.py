"""A run folder is a complete, replayable record: the resolved config validates and replays to
the same table; run.json says what ran where; warnings are kept; files follow the umask; the
resume cache never serves a point computed by other software or refused by its check."""

import io
import json
import os
import stat
from pathlib import Path

import pytest
from configs import GLASS_TEN_FOLDS

from multisvm_cli.experiment import Settings, load_config, reproduce
from multisvm_cli.experiment.run.progress import progress_bar
from multisvm_cli.experiment.protocol import check_point_result
from multisvm_cli.base.storage import PointCache
from helpers import REPO, without_times, run_process


SMALL = """\
# a small config: iris and wine, two schemes
name: small
dataset: [iris, {name: wine, kernels: [{type: linear}]}]
split: {test_fraction: 0.3}
kernels:
  - {type: gaussian, sigma: [1, 3]}
C: [1, 100]
schemes: [ovr, dag, maxwins]
scheme_options: {dag: {order: natural}}
"""


@pytest.fixture
def small(tmp_path):
    path = tmp_path / "small.yaml"
    path.write_text(SMALL)
    return path


@pytest.mark.slow
def test_quickstart_run_folder_replays_to_the_same_table(tmp_path, run_multisvm):
    first = reproduce(load_config("quickstart"), Settings(out=str(tmp_path / "a"), quiet=True))
    saved = first.folder / "config.yaml"
    assert (first.folder / "config.original.yaml").read_text() == \
        (REPO / "configs" / "quickstart.yaml").read_text()
    code, out, err = run_multisvm("validate", str(saved))
    assert code == 0, err
    assert out.rstrip().endswith("valid; 111 grid points x schemes per outer fold; 111 fits in all")
    # the saved config keeps DAGSVM's natural order as written (not as null)
    assert "dag: {order: natural}" in saved.read_text()
    replay = reproduce(load_config(saved), Settings(out=str(tmp_path / "b"), quiet=True))
    assert without_times(replay.rows) == without_times(first.rows)
    assert len(replay.rows) == 21


def test_run_json_and_run_log_record_argv_host_memory_versions_and_warnings(
        mirror, data_home, tmp_path, run_multisvm, monkeypatch, write_config):
    path = write_config("glass.yaml", **{**GLASS_TEN_FOLDS, "name": None})
    monkeypatch.chdir(tmp_path)
    with pytest.warns(UserWarning, match="glass: The least populated class"):
        code, out, err = run_multisvm("reproduce-table", str(path), "--out", "out")
    assert code == 0, err
    folder = next((tmp_path / "out" / "glass").glob("2*"))
    meta = json.loads((folder / "run.json").read_text())
    assert meta["status"] == "done" and meta["argv"][-2:] == ["--out", "out"]
    assert meta["hostname"] and meta["memory_bytes"] > 2**28 and meta["multisvm"]
    assert meta["warnings"] == ["glass: The least populated class in y has only 9 members, "
                                "which is less than n_splits=10."]
    assert meta["workers"] == {"grid": 1, "fit": 1} and meta["backend"] == "threads"
    # this test imports multisvm from its checkout: commit and dirty flag are recorded
    assert len(meta["git_commit"]) == 40 and isinstance(meta["git_dirty"], bool)
    log = (folder / "run.log").read_text().splitlines()
    assert any(line.endswith("warning: glass: The least populated class in y has only 9 "
                             "members, which is less than n_splits=10.") for line in log)
    assert log[-1].split(" ", 1)[1].startswith("done in ")
    assert f"results: {folder.relative_to(tmp_path)}" in out


def test_an_installed_copy_records_no_git_commit(tmp_path):
    from multisvm_cli.experiment.run.provenance import git_checkout

    package = tmp_path / "site-packages" / "multisvm_cli"
    package.mkdir(parents=True)
    assert git_checkout(package) == {}
    assert set(git_checkout(REPO / "multisvm_cli")) == {"git_commit", "git_dirty"}


@pytest.mark.slow
@pytest.mark.parametrize("umask, file_mode, folder_mode", [(0o022, 0o644, 0o755),
                                                           (0o002, 0o664, 0o775)])
def test_run_files_follow_the_umask(small, tmp_path, umask, file_mode, folder_mode):
    old = os.umask(umask)
    try:
        run = reproduce(load_config(small), Settings(out=str(tmp_path / "out"), quiet=True))
    finally:
        os.umask(old)
    assert stat.S_IMODE(run.folder.stat().st_mode) == folder_mode
    for name in ("config.yaml", "config.original.yaml", "grid.csv", "table.csv", "results.json",
                 "run.json", "run.log"):
        assert stat.S_IMODE((run.folder / name).stat().st_mode) == file_mode, name
    entry = next((tmp_path / "out" / "small" / "cache").glob("*.json"))
    assert stat.S_IMODE(entry.stat().st_mode) == file_mode


@pytest.mark.slow
def test_a_version_change_invalidates_the_resume_cache(small, tmp_path, monkeypatch):
    import sklearn

    settings = Settings(out=str(tmp_path / "out"), quiet=True)
    first = reproduce(load_config(small), settings)
    again = json.loads((reproduce(load_config(small), settings).folder / "run.json").read_text())
    # iris: 2 sigmas x 2 C, wine: linear x 2 C; 1-v-r and Max Wins/DAG: 18 grid rows
    assert again["grid_points"]["cached"] == again["grid_points"]["total"] == 18
    import multisvm_cli

    for module, version in ((multisvm_cli, "9.9.9"), (sklearn, "0.0.1")):
        monkeypatch.setattr(module, "__version__", version)
        run = reproduce(load_config(small), settings)
        meta = json.loads((run.folder / "run.json").read_text())
        assert meta["grid_points"]["cached"] == 0, module
        assert without_times(run.rows) == without_times(first.rows)


@pytest.mark.slow
def test_an_invalid_cache_entry_is_recomputed_not_used(small, tmp_path):
    settings = Settings(out=str(tmp_path / "out"), quiet=True)
    first = reproduce(load_config(small), settings)
    entries = sorted((tmp_path / "out" / "small" / "cache").glob("*.json"))
    stored = json.loads(entries[0].read_text())
    stored["result"]["n_validation"] = 0  # was a ZeroDivisionError
    entries[0].write_text(json.dumps(stored))
    run = reproduce(load_config(small), settings)
    meta = json.loads((run.folder / "run.json").read_text())
    # the entry's point is redone (with its Max Wins/DAG partner when it was one of them)
    assert meta["grid_points"]["computed"] in (1, 2)
    assert meta["grid_points"]["cached"] == 18 - meta["grid_points"]["computed"]
    assert without_times(run.rows) == without_times(first.rows)


@pytest.mark.parametrize("change, message", [
    ({"n_validation": 0}, "n_validation >= 1"),
    ({"n_errors": 5, "n_validation": 4}, "0 <= n_errors <= n_validation"),
    ({"n_errors": 1.5}, "must be integers"),
    ({"validation_error": 0.9}, "validation_error must be n_errors / n_validation"),
    ({"fit_cpu": -1}, "fit_cpu must be a finite number >= 0"),
    ({"kernel_evaluations": float("inf")}, "kernel_evaluations must be a finite number >= 0"),
    ({"notes": "x"}, "notes must be a list of texts"),
    ({"n_support_vectors": -1}, "n_support_vectors must be a finite number >= 0"),
    ({"kernel_evaluations": None}, "kernel_evaluations must be a finite number >= 0"),
    ({"size": float("nan")}, "size must be a finite number >= 0"),
])
def test_check_point_result_refuses_bad_entries(change, message):
    good = {"n_errors": 1, "n_validation": 4, "validation_error": 0.25, "fit_cpu": 0.1,
            "fit_wall": 0.1, "predict_wall": 0.01, "n_support_vectors": 12.0,
            "kernel_evaluations": 9.5, "size": 130.0, "notes": []}
    check_point_result(good)
    with pytest.raises(ValueError, match=message):
        check_point_result({**good, **change})
    cache = PointCache("/nonexistent", check=check_point_result)
    assert cache.get({"a": 1}) is None


def test_progress_bar_draws_only_on_a_terminal():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    for stream, drawn in ((io.StringIO(), False), (Terminal(), True)):
        bar = progress_bar(10, "grid points", stream=stream)
        bar.update(10)
        bar.close()
        assert ("grid points" in stream.getvalue()) == drawn
    quiet = Terminal()
    progress_bar(10, "grid points", quiet=True, stream=quiet).close()
    assert quiet.getvalue() == ""


@pytest.mark.slow
def test_json_report_holds_the_run_folder(small, tmp_path, run_multisvm):
    code, out, err = run_multisvm("reproduce-table", str(small), "--out",
                             str(tmp_path / "out"), "--format", "json", "-q")
    assert code == 0, err
    rows = json.loads(out)
    folders = {row["run_folder"] for row in rows}
    assert len(folders) == 1 and Path(folders.pop()).joinpath("table.csv").is_file()


def test_train_refuses_an_existing_model_folder_unless_forced(small, tmp_path, run_multisvm):
    model = tmp_path / "model"
    args = ["train", str(small), "--scheme", "ovr", "-o", str(model), "--out",
            str(tmp_path / "out"), "-q"]
    assert run_multisvm(*args)[0] == 0
    written = (model / "model.json").read_bytes()
    code, out, err = run_multisvm(*args)
    assert code == 2 and err == (f"error: {model} already exists; choose another folder with -o, "
                                 f"or pass --force to replace it\n")
    assert (model / "model.json").read_bytes() == written
    code, out, err = run_multisvm(*args, "--force")
    assert code == 0 and "saved to" in out, err


def test_shipped_configs_are_named_from_any_folder(tmp_path, run_multisvm, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_multisvm("configs")
    assert code == 0
    names = [line.split()[0] for line in out.splitlines()[2:]
             if not line.startswith(" ")]  # descriptions wrap onto indented lines
    assert names == sorted(p.stem for p in (REPO / "configs").glob("*.yaml"))
    code, out, err = run_multisvm("validate", "platt1999-usps")
    assert code == 0, err
    assert "name: platt1999-usps" in out


@pytest.mark.parametrize("n_jobs, fragment", [("0", "n_jobs must be a non-zero integer"),
                                              ("-999", None)])
def test_n_jobs_zero_is_refused_and_too_many_are_lowered(small, tmp_path, run_multisvm, n_jobs,
                                                         fragment):
    code, out, err = run_multisvm("reproduce-table", str(small), "--out",
                             str(tmp_path / "out"), "-q", "--n-jobs", n_jobs)
    if fragment:
        assert code == 2 and err.startswith("error: --n-jobs: ") and fragment in err
        assert not (tmp_path / "out").exists()
    else:
        assert code == 0, err  # -999: all cores but 998 -> at least one


def test_too_many_workers_are_lowered_to_the_cores_with_a_warning():
    from multisvm_cli.base.parallel import cpu_count, resolve_n_jobs

    with pytest.warns(UserWarning, match=f"n_jobs=100000 is more than the {cpu_count()}"):
        assert resolve_n_jobs(100_000) == cpu_count()
    assert resolve_n_jobs(-1) == cpu_count() and resolve_n_jobs(None) == 1
    assert resolve_n_jobs(2, limit=1) == 1


@pytest.mark.slow
def test_redirected_stderr_gets_no_progress_frames(small, tmp_path):
    done = run_process("reproduce-table", small, "--out", tmp_path / "out", timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and "\r" not in done.stdout


@pytest.mark.parametrize("name", sorted(p.stem for p in (REPO / "configs").glob("*.yaml")))
def test_every_shipped_config_resolves_to_a_config_of_the_same_experiment(name, tmp_path):
    config = load_config(name)
    saved = tmp_path / "config.yaml"
    saved.write_text(config.resolved_text())
    again = load_config(saved)
    assert [(p.name, p.scaling, p.split, p.validation, p.grid) for p in again.datasets] == \
        [(p.name, p.scaling, p.split, p.validation, p.grid) for p in config.datasets]
    assert (again.schemes, again.scheme_options, again.compare_to, again.seed, again.reference) \
        == (config.schemes, config.scheme_options, config.compare_to, config.seed, config.reference)
    assert again.resolved == config.resolved  # resolving is idempotent
