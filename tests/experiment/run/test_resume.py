"""A killed run resumes: finished grid points are read back from the cache, not recomputed,
and the final table equals an uninterrupted run's."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from multisvm_cli.cli.main import main
from multisvm_cli.base.storage import PointCache, atomic_write, new_run_dir
from helpers import REPO, without_times


CONFIG = """\
name: resume
dataset: usps
kernels:
  - {type: gaussian, sigma: [3, 4, 5]}
C: [1, 10]
schemes: [maxwins, dag]
"""


def reproduce(config, out, *extra):
    """Run ``multisvm reproduce-table`` as a real subprocess (JSON report on stdout)."""
    return subprocess.Popen(
        [sys.executable, "-m", "multisvm_cli", "reproduce-table", str(config), "--out", str(out),
         "--format", "json", "--quiet", *extra],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def last_run(out):
    return json.loads(sorted((out / "resume").glob("2*"))[-1].joinpath("run.json").read_text())


@pytest.mark.slow
def test_killed_run_resumes_without_redoing_points(mirror, data_home, tmp_path, monkeypatch):
    monkeypatch.setenv("MULTISVM_MIRROR", str(mirror))
    config = tmp_path / "resume.yaml"
    config.write_text(CONFIG)
    out = tmp_path / "results"
    cache = out / "resume" / "cache"

    run = reproduce(config, out)
    deadline = time.monotonic() + 300
    while len(list(cache.glob("*.json"))) < 4:  # two grid points x (Max Wins, DAG)
        assert run.poll() is None, f"the run ended before it could be killed: {run.stderr.read()}"
        assert time.monotonic() < deadline
        time.sleep(0.02)
    run.send_signal(signal.SIGKILL)
    run.wait()
    finished = {p: p.stat().st_mtime_ns for p in cache.glob("*.json")}
    assert 4 <= len(finished) < 12
    for path in finished:  # each cache file is whole: written to a temp name, then renamed
        assert set(json.loads(path.read_text())) == {"key", "result"}
    killed = sorted((out / "resume").glob("2*"))[-1]
    assert json.loads((killed / "run.json").read_text())["status"] == "running"
    assert not (killed / "table.csv").exists() and not list(killed.glob(".*.tmp"))

    resumed = reproduce(config, out)
    report, err = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, err
    points = last_run(out)["grid_points"]
    assert points == {"total": 12, "cached": len(finished), "computed": 12 - len(finished)}
    assert all(path.stat().st_mtime_ns == mtime for path, mtime in finished.items())

    fresh = reproduce(config, tmp_path / "fresh")
    uninterrupted, err = fresh.communicate(timeout=600)
    assert fresh.returncode == 0, err
    assert without_times(json.loads(report)) == without_times(json.loads(uninterrupted))


TINY = """\
name: resume
dataset: iris
split: {test_fraction: 0.3, seed: 0}
kernels: [{type: gaussian, sigma: [1, 2]}]
C: [1, 10]
schemes: [ovr, dag]
"""


@pytest.mark.slow
def test_rerun_uses_cache_and_force_redoes(tmp_path, capsys, data_home):
    config = tmp_path / "resume.yaml"
    config.write_text(TINY)
    out = tmp_path / "results"
    reports = []
    for extra in ([], [], ["--force"]):
        with pytest.raises(SystemExit) as exited:
            main(["reproduce-table", str(config), "--out", str(out), "--quiet", "--format",
                  "json", *extra])
        assert exited.value.code == 0
        reports.append(without_times(json.loads(capsys.readouterr().out)))
        points = last_run(out)["grid_points"]
        expected_cached = 8 if extra == [] and len(reports) == 2 else 0
        assert points == {"total": 8, "cached": expected_cached, "computed": 8 - expected_cached}
    assert reports[0] == reports[1] == reports[2]
    assert len(list((out / "resume").glob("2*"))) == 3  # never overwritten


@pytest.mark.slow
def test_several_configs_print_one_json_or_csv_document(tmp_path, capsys, data_home):
    first, second = tmp_path / "resume.yaml", tmp_path / "other.yaml"
    first.write_text(TINY)
    second.write_text(TINY.replace("name: resume", "name: other").replace("[ovr, dag]", "[nb]"))
    out = tmp_path / "results"

    def report(fmt, *configs):
        with pytest.raises(SystemExit) as exited:
            main(["reproduce-table", *map(str, configs), "--out", str(out), "--quiet",
                  "--format", fmt])
        assert exited.value.code == 0
        return capsys.readouterr().out

    alone = [without_times(json.loads(report("json", config))) for config in (first, second)]
    rows = without_times(json.loads(report("json", first, second)))  # one JSON array, not two
    assert [row.pop("config") for row in rows] == ["resume", "resume", "other"]
    assert rows == alone[0] + alone[1]
    lines = report("csv", first, second).splitlines()
    assert lines[0].startswith("config,dataset,scheme,kernel,C,error_pct,")
    assert [line.split(",")[:3] for line in lines[1:]] == [
        ["resume", "iris", "ovr"], ["resume", "iris", "dag"], ["other", "iris", "nb"]]


def test_cache_rejects_stale_or_mismatched_files(tmp_path):
    cache = PointCache(tmp_path)
    key = {"dataset": "iris", "point": {"C": 1.0}}
    assert cache.get(key) is None
    cache.put(key, {"n_errors": 3})
    assert cache.get(key) == {"n_errors": 3}
    assert PointCache(tmp_path, force=True).get(key) is None
    cache.path(key).write_text(json.dumps({"key": {"other": 1}, "result": {"n_errors": 9}}))
    assert cache.get(key) is None
    cache.path(key).write_text('{"key": ')  # a torn file is a miss, not a crash
    assert cache.get(key) is None


def test_run_dirs_never_overwritten_and_atomic_write(tmp_path):
    from datetime import datetime

    now = datetime(2024, 1, 2, 3, 4, 5)
    first, second = new_run_dir(tmp_path, "x", now), new_run_dir(tmp_path, "x", now)
    assert first.name == "20240102-030405" and second.name == "20240102-030405-2"
    target = atomic_write(first / "a.txt", "hello")
    assert target.read_text() == "hello" and os.listdir(first) == ["a.txt"]


def test_cache_entries_skip_fsync_and_a_torn_entry_is_a_miss(tmp_path, monkeypatch):
    synced = []
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd))
    cache = PointCache(tmp_path)
    cache.put({"a": 1}, {"n": 2})
    assert synced == [] and cache.get({"a": 1}) == {"n": 2}
    cache.path({"a": 1}).write_text('{"key": {"a": 1}, "res')  # what a crash may leave
    assert cache.get({"a": 1}) is None
    atomic_write(tmp_path / "run.json", "{}")  # run files are still synced
    assert len(synced) == 1


@pytest.mark.parametrize("content", [
    '{"key": {"a": 1}, "result": {"n": NaN}}',                 # not strict JSON
    '{"key": {"a": 1}, "result": {"n": 2}, "result": {"n": 3}}',  # a duplicate key
    '{"key": {"a": 1}, "result": ' + "[" * 40 + "]" * 40 + "}",  # nested too deeply
    '{"key": {"a": 1}, "result": {"n": 2}, "pad": "' + "x" * (1 << 20) + '"}',  # too large
])
def test_a_cache_entry_the_strict_reader_refuses_is_a_miss(tmp_path, content):
    cache = PointCache(tmp_path)
    cache.path({"a": 1}).parent.mkdir(parents=True, exist_ok=True)
    cache.path({"a": 1}).write_text(content)
    assert cache.get({"a": 1}) is None
    cache.put({"a": 1}, {"n": 2})  # recomputed and stored again
    assert cache.get({"a": 1}) == {"n": 2}


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_cache_entry_linked_to_dev_zero_is_a_miss_not_a_memory_error(tmp_path):
    cache = PointCache(tmp_path)
    cache.path({"a": 1}).parent.mkdir(parents=True, exist_ok=True)
    cache.path({"a": 1}).symlink_to("/dev/zero")
    assert cache.get({"a": 1}) is None
