"""Hostile and faulty input, table-driven: every case gives the exit code it should, at most one
`error:` line and no traceback, and changes no file outside the folder it may write to.

Cases: configs (alias bomb, huge grid, deep nesting, an endless file, base-60 numbers, names
that cannot be folders, parameters that overflow the kernel), command-line options, the resume
cache, and I/O failures (an unwritable results folder, a full disk). The parsed-data cache,
downloads and model folders have their own modules (test_data_integrity.py, test_download.py,
test_model_integrity.py); a few of their cases run here through the command line too.
"""

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from configs import config_text

from multisvm_cli.cli.main import main
from helpers import REPO


GOOD = config_text(name="good", schemes=["ovr", "dag", "maxwins"])


def bomb(levels=8):
    """A 600-byte YAML whose aliases expand to 10^levels values under an unknown key."""
    lines = ["a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    return "\n".join(lines) + "\n" + GOOD


def huge_grid(n=1000):
    values = ", ".join(str(i + 1) for i in range(n))
    return GOOD.replace("sigma: [1, 2]", f"sigma: [{values}]").replace("C: [1, 10]",
                                                                       f"C: [{values}]")


# name -> (config text or None for GOOD, extra CLI args, exit code, fragment of the one line)
CONFIG_CASES = {
    "alias bomb under an unknown key": (bomb(), [], 2, "once aliases are expanded"),
    "1000 x 1000 grid": (huge_grid(), [], 2, "the grid has 1000000 points, more than "
                                             "max_grid_points = 10000"),
    "20000 open brackets": ("[" * 20000, [], 2, "nested too deeply to be a config"),
    "base-60 C": (GOOD.replace("C: [1, 10]", "C: [1:30]"), [], 2,
                  "C[0]: expected a number, got '1:30'"),
    "compare_to not run": (GOOD + "compare_to: udt\n", [], 2, "compare_to: scheme 'udt' is not run"),
    "name of 300 characters": ("name: " + "x" * 300 + "\n" + GOOD.split("\n", 1)[1], [], 2,
                               "expected a folder-safe name"),
    "name with a newline": ('name: "a\\nb"\n' + GOOD.split("\n", 1)[1], [], 2,
                            "expected a folder-safe name"),
    "sigma 1e-200": (GOOD.replace("sigma: [1, 2]", "sigma: [1.0e-200]"), [], 2,
                     "sigma must be a number in"),
    "sigma 1e+200": (GOOD.replace("sigma: [1, 2]", "sigma: [1.0e+200]"), [], 2,
                     "sigma must be a number in"),
    "degree 2^70": (GOOD.replace("{type: gaussian, sigma: [1, 2]}",
                                 "{type: polynomial, degree: 1180591620717411303424}"), [], 2,
                    "degree must be an integer in [1, 100]"),
    "n_jobs 0": (None, ["--n-jobs", "0"], 2, "--n-jobs: n_jobs must be a non-zero integer"),
    "dag order random": (GOOD + "scheme_options: {dag: {order: random}}\n", [], 2,
                         "order must list every class exactly once"),
}


def snapshot(root):
    """Every file under ``root`` with its size and modification time."""
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in Path(root).rglob("*") if p.is_file()}


def changed_outside(before, after, allowed):
    """Files created, changed or removed outside the ``allowed`` folder prefixes."""
    keys = set(before) | set(after)
    return sorted(k for k in keys if before.get(k) != after.get(k)
                  and not any(k.startswith(prefix) for prefix in allowed))


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CONFIG_CASES), ids=lambda c: c.replace(" ", "-"))
def test_hostile_configs_are_refused_in_one_line(case, tmp_path, run_multisvm, monkeypatch):
    text, extra, code, fragment = CONFIG_CASES[case]
    config = tmp_path / "config.yaml"
    config.write_text(text if text is not None else GOOD)
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    for command in (["validate", str(config)] if not extra else [],
                    ["reproduce-table", str(config), "--out", "out", *extra]):
        if not command:
            continue
        got, out, err = run_multisvm(*command)
        errors = [line for line in err.splitlines() if not line.startswith("warning: ")]
        assert got == code and len(errors) == 1 and errors[0].startswith("error: "), err
        assert fragment in errors[0] and "Traceback" not in err
    assert changed_outside(before, snapshot(tmp_path), allowed=()) == []


def test_an_endless_config_file_is_refused(run_multisvm):
    code, out, err = run_multisvm("validate", "/dev/zero")
    assert code == 2 and err == "error: /dev/zero: not a regular file; a config file must be one\n"


def test_a_thousand_workers_are_lowered_with_one_warning(tmp_path, run_multisvm):
    config = tmp_path / "good.yaml"
    config.write_text(GOOD)
    with pytest.warns(UserWarning, match="n_jobs=100000 is more than the"):
        code, out, err = run_multisvm("reproduce-table", str(config), "--out",
                                 str(tmp_path / "out"), "--n-jobs", "100000", "-q")
    assert code == 0, err


def test_a_resume_cache_entry_edited_to_divide_by_zero_is_recomputed(tmp_path, run_multisvm):
    config = tmp_path / "good.yaml"
    config.write_text(GOOD)
    args = ["reproduce-table", str(config), "--out", str(tmp_path / "out"), "--format", "json",
            "-q"]
    code, first, err = run_multisvm(*args)
    assert code == 0, err
    for entry in (tmp_path / "out" / "good" / "cache").glob("*.json"):
        stored = json.loads(entry.read_text())
        stored["result"]["n_validation"] = 0
        entry.write_text(json.dumps(stored))
    code, again, err = run_multisvm(*args)
    assert code == 0, err
    strip = lambda rows: [{k: v for k, v in r.items() if k not in (
        "cpu_time", "selection_time", "evaluation_time", "run_folder")} for r in json.loads(rows)]
    assert strip(again) == strip(first)
    last = sorted((tmp_path / "out" / "good").glob("2*"))[-1]
    assert json.loads((last / "run.json").read_text())["grid_points"]["cached"] == 0


@pytest.mark.parametrize("where", ["under-a-file", "sysfs"])
def test_an_unwritable_results_folder_is_one_line(where, tmp_path, run_multisvm):
    config = tmp_path / "good.yaml"
    config.write_text(GOOD)
    if where == "under-a-file":
        (tmp_path / "plain").write_text("not a folder")
        out = tmp_path / "plain" / "results"
    else:
        out = Path("/sys/multisvm-results")
        if os.access("/sys", os.W_OK) and not Path("/sys/kernel").is_dir():
            pytest.skip("no sysfs here")
    code, _, err = run_multisvm("reproduce-table", str(config), "--out", str(out), "-q")
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: "), err
    assert "check that the folder exists, is writable and has room" in err
    assert not out.exists()


def test_a_full_disk_is_one_line_and_run_json_says_failed(tmp_path, run_multisvm, monkeypatch):
    from multisvm_cli.base import storage

    config = tmp_path / "good.yaml"
    config.write_text(GOOD)
    real = storage.atomic_write

    def full_disk(path, data, **options):
        if Path(path).name == "grid.csv":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real(path, data, **options)

    monkeypatch.setattr(storage, "atomic_write", full_disk)
    monkeypatch.setattr("multisvm_cli.experiment.run.reproduce.atomic_write", full_disk)
    monkeypatch.setattr("multisvm_cli.report.run_folder.atomic_write", full_disk)
    code, _, err = run_multisvm("reproduce-table", str(config), "--out",
                           str(tmp_path / "out"), "-q")
    assert code == 2 and err.count("\n") == 1, err
    assert "grid.csv: No space left on device" in err
    folder = next((tmp_path / "out" / "good").glob("2*"))
    meta = json.loads((folder / "run.json").read_text())
    assert meta["status"] == "failed" and "No space left on device" in meta["error"]
    assert not (folder / "grid.csv").exists() and not list(folder.glob(".*.tmp"))


def test_a_model_folder_under_a_file_is_one_line(tmp_path, run_multisvm):
    config = tmp_path / "good.yaml"
    config.write_text(GOOD)
    (tmp_path / "plain").write_text("x")
    code, _, err = run_multisvm("train", str(config), "--scheme", "ovr", "-o",
                           str(tmp_path / "plain" / "model"), "--out", str(tmp_path / "out"), "-q")
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: "), err


@pytest.mark.slow
def test_a_hostile_config_through_a_real_process_prints_no_traceback(tmp_path):
    config = tmp_path / "bomb.yaml"
    config.write_text(bomb())
    done = subprocess.run([sys.executable, "-m", "multisvm_cli", "validate", str(config)],
                          capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "once aliases are expanded" in done.stderr


# Model folders through `multisvm evaluate` (the library-level cases are in
# test_model_integrity.py): name -> (edit of the saved folder, fragment of the one line).
def _edit_json(change):
    from model_files import edit_json

    return lambda folder: edit_json(folder, change)


def _unsealed_json(change):
    from model_files import edit_json

    return lambda folder: edit_json(folder, change, seal=False)


def _npy_as_npz(folder):
    import numpy as np

    np.save(folder / "model.npy", np.zeros(3))
    (folder / "model.npy").replace(folder / "model.npz")


def _nested(folder):
    from model_files import reseal

    (folder / "model.json").write_text("[" * 100_000 + "]" * 100_000)
    reseal(folder)


MODEL_CASES = {
    "sigma changed after saving": (_unsealed_json(lambda d: d["params"].update(sigma=3.0)),
                                   "changed after saving"),
    "classes turned into strings": (_edit_json(lambda d: d["metadata"].update(
        classes=["a", "b", "c"])), "classes"),
    "split missing": (_edit_json(lambda d: d["metadata"].pop("split")), "lacks 'split'"),
    "checksums as a list": (_edit_json(lambda d: d["metadata"].update(checksums=[])),
                            "checksums"),
    "split as a string": (_edit_json(lambda d: d["metadata"].update(split="standard")), "split"),
    "a .npy renamed to model.npz": (_npy_as_npz, "model.npz"),
    "deeply nested model.json": (_nested, "model.json"),
}


@pytest.fixture(scope="module")
def trained_model(tmp_path_factory):
    """A DAGSVM trained on iris by `multisvm train` (saved once, copied per case)."""
    folder = tmp_path_factory.mktemp("trained")
    config = folder / "good.yaml"
    config.write_text(GOOD)
    with pytest.raises(SystemExit) as exited:
        main(["train", str(config), "--scheme", "dag", "-o", str(folder / "model"), "--out",
              str(folder / "out"), "-q"])
    assert exited.value.code == 0
    return folder / "model"


@pytest.mark.parametrize("case", sorted(MODEL_CASES), ids=lambda c: c.replace(" ", "-"))
def test_tampered_models_are_refused_by_evaluate_in_one_line(case, trained_model, tmp_path,
                                                             run_multisvm):
    import shutil

    edit, fragment = MODEL_CASES[case]
    model = tmp_path / "model"
    shutil.copytree(trained_model, model)
    edit(model)
    before = snapshot(tmp_path)
    code, out, err = run_multisvm("evaluate", str(model))
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("error: "), err
    assert fragment in err and "Traceback" not in err
    assert changed_outside(before, snapshot(tmp_path), allowed=()) == []
