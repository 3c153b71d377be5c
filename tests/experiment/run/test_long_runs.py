"""Long runs (issue #20 item 3): Ctrl-C and SIGTERM stop a run inside a libsvm fit within 2 s
(exit 130 / 143, run.json ``interrupted``, run.log written as the run goes, the resume cache
intact), and without a terminal progress is one line at most every 30 s, weighted by cost."""

import io
import json
import os
import signal
import subprocess
import sys
import time

import pytest
from configs import write_wide_column_csv

from multisvm_cli.experiment.run.progress import LineProgress, point_cost, progress_bar

SLOW = """name: slow
dataset: [{name: own, path: own.csv}]
split: {test_fraction: 0.3, seed: 0}
scaling: none
max_iter: none
kernels: [{type: linear}]
C: [0.001, 1000000]
schemes: [ovr]
"""


def slow_run(tmp_path):
    """A run whose second grid point is a linear fit with huge C on unscaled overlapping
    data (libsvm's SMO runs for many minutes), started as ``multisvm reproduce-table``."""
    write_wide_column_csv(tmp_path)
    (tmp_path / "slow.yaml").write_text(SLOW)
    env = {**os.environ, "MPLBACKEND": "Agg", "MULTISVM_DATA_HOME": str(tmp_path / "home")}
    return subprocess.Popen([sys.executable, "-m", "multisvm_cli", "reproduce-table",
                             str(tmp_path / "slow.yaml"), "--out", str(tmp_path / "res"),
                             "--no-figures"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_running(tmp_path, process, seconds=60):
    """The run folder once run.json says ``running`` (then one more second, inside the fit)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        for meta in (tmp_path / "res" / "slow").glob("2*/run.json"):
            if json.loads(meta.read_text()).get("status") == "running":
                time.sleep(1.5)
                return meta.parent
        time.sleep(0.1)
    raise AssertionError("the run never started")


@pytest.mark.slow
@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_inside_a_libsvm_fit_stops_the_run_within_2_s(tmp_path, signum, code):
    process = slow_run(tmp_path)
    try:
        folder = wait_running(tmp_path, process)
        sent = time.monotonic()
        process.send_signal(signum)
        process.wait(timeout=10)
        took = time.monotonic() - sent
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == code
    assert took < 2.0
    meta = json.loads((folder / "run.json").read_text())
    assert meta["status"] == "interrupted" and signal.Signals(signum).name in meta["error"]
    log = (folder / "run.log").read_text()
    assert "started slow" in log and "interrupted by" in log
    assert not list(folder.glob("*.tmp*")) and not (folder / "table.csv").exists()
    for entry in (tmp_path / "res" / "slow" / "cache").glob("*.json"):
        json.loads(entry.read_text())  # every cached point whole


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_progress_lines_are_at_most_one_per_30_s_with_a_cost_weighted_eta():
    clock, stream = Clock(), io.StringIO()
    # 10 cheap points, then 10 points 9x as costly: 10 done is 10% of the cost, not 50%
    bar = LineProgress(20, "x: grid points", stream, [(10, 1.0), (10, 9.0)], clock)
    for second in range(1, 121):
        clock.now = float(second)
        if second % 12 == 0:
            bar.update(1)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 3  # at 36 s, 72 s, 108 s (one per 30 s at most)
    assert lines[0].startswith("x: grid points: 3/20 points, 3% of the expected cost")
    assert lines[0].endswith("ETA 19m24s")  # 36 s for 3% of the cost (by count: 3m24s)


def test_progress_modes():
    assert isinstance(progress_bar(5, "d", stream=io.StringIO()), LineProgress)  # no terminal
    assert isinstance(progress_bar(5, "d", stream=io.StringIO(), mode="lines"), LineProgress)
    assert progress_bar(5, "d", stream=io.StringIO(), quiet=True).disable
    assert progress_bar(5, "d", stream=io.StringIO(), mode="none").disable


def test_point_cost_counts_binary_problems_times_rows_squared_plus_a_fixed_cost():
    fixed = 500**2
    assert point_cost("ovr", 100, 10) == 10 * (100**2 + fixed)
    assert point_cost("ovr", 100, 2) == 100**2 + fixed
    assert point_cost("maxwins", 100, 10) == pytest.approx(45 * (20**2 + fixed))
    assert point_cost("udt", 100, 10) == 9 * 100**2 + 55 * fixed
    assert point_cost("nb", 100, 10) == 100


def test_progress_lines_prints_them(tmp_path, run_multisvm, write_config, monkeypatch):
    import multisvm_cli.experiment.run.progress as progress

    monkeypatch.setattr(progress, "LINE_EVERY", 0.0)
    result = run_multisvm("reproduce-table", write_config(), "--out", tmp_path / "res",
                          "--no-figures", "--progress", "lines")
    assert result.code == 0, result.err
    assert "small: grid points: " in result.err and " points, " in result.err and "ETA" in result.err
