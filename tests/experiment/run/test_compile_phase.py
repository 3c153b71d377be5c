"""The first run is honest about compiling (issue 55, item 6): the all-together solver's numba
compile is its own phase before the grid, said on stderr when numba's cache is cold, silent
when it is warm, and never in a grid point's time or CPU seconds nor in the ETA."""

import csv
import importlib
import io
import os
import pkgutil
import random
import subprocess
import sys

import pytest

from helpers import REPO
from multisvm_cli.estimators import warm_up as warm
from multisvm_cli.experiment.run import compile_phase as phase
from multisvm_cli.experiment.run.progress import progress_bar

COMPILING = phase.COMPILING.format(warm.COMPILE_SECONDS)


def pretend_compile(now, seconds):
    """A stand-in for :func:`warm.warm_up` whose compile takes ``seconds`` on the clock
    ``now`` (a one-item list)."""
    def compiling(announce):
        announce()
        now[0] += seconds
        return True
    return compiling


def test_the_eta_never_sees_the_compile(monkeypatch):
    now = [0.0]
    monkeypatch.setattr(warm, "warm_up", pretend_compile(now, 70.0))
    stream = io.StringIO()
    assert phase.compile_phase(["ovr", "cs"], mode="lines", stream=stream, clock=lambda: now[0])
    bar = progress_bar(10, "grid", mode="lines", stream=stream, clock=lambda: now[0])
    for _ in range(5):  # 7 s a point: the ETA is the other five points' 35 s, not the compile's
        now[0] += 7.0
        bar.update()
    assert stream.getvalue().splitlines() == [
        COMPILING, "compiled the all-together solver in 1m10s",
        "grid: 5/10 points, 50% of the expected cost, 0m35s elapsed, ETA 0m35s"]


def test_quiet_compiles_without_a_word(monkeypatch):
    now = [0.0]
    monkeypatch.setattr(warm, "warm_up", pretend_compile(now, 70.0))
    for quiet, mode in ((True, "auto"), (False, "none")):
        stream = io.StringIO()
        assert phase.compile_phase(["ww"], quiet=quiet, mode=mode, stream=stream)
        assert stream.getvalue() == ""


def test_schemes_without_the_compiled_solver_skip_the_phase(monkeypatch):
    def never(announce):
        raise AssertionError("warmed up for schemes that do not need it")
    monkeypatch.setattr(warm, "warm_up", never)
    stream = io.StringIO()
    assert not phase.compile_phase(["ovr", "maxwins", "dag", "nb"], mode="lines", stream=stream)
    assert stream.getvalue() == ""
    assert warm.needs_warm_up([phase.estimator(s) for s in ("llw", "ovr")])


@pytest.mark.parametrize("command", ["reproduce-table", "train"])
def test_the_phase_comes_before_the_grid(command, monkeypatch, tmp_path, write_config,
                                         run_multisvm):
    """Both commands that search a grid pass the phase (which decides itself whether the
    schemes need it) before their progress, and its clock, starts."""
    from multisvm_cli.experiment.models import train_evaluate
    from multisvm_cli.experiment.run import reproduce

    events = []
    for module in (reproduce, train_evaluate):
        real_bar = module.progress_bar
        monkeypatch.setattr(module, "compile_phase",
                            lambda schemes, *a: events.append(("compile", list(schemes))))
        monkeypatch.setattr(module, "progress_bar",
                            lambda *a, real_bar=real_bar, **k: events.append("grid") or
                            real_bar(*a, **k))
    config = write_config(schemes=["ovr", "maxwins"], C=[1], kernels=[{"type": "linear"}])
    args = ([command, config, "--out", tmp_path / "out"] if command == "reproduce-table" else
            [command, config, "--scheme", "ovr", "-o", tmp_path / "model"])
    result = run_multisvm(*args, "--quiet")
    assert result.code == 0, result.err
    schemes = ["ovr", "maxwins"] if command == "reproduce-table" else ["ovr"]
    assert events[:2] == [("compile", schemes), "grid"]


def joint_signatures():
    """Every compiled function of the all-together solver: name -> its compiled signatures."""
    from numba.core.registry import CPUDispatcher

    import multisvm_cli.estimators.joint as joint

    found = {}
    for info in pkgutil.walk_packages(joint.__path__, joint.__name__ + "."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.__module__ == module.__name__:
                found[f"{module.__name__}.{name}"] = set(value.signatures)
    return found


def documents(folder):
    """Three classes of 25 short documents each, under ``folder``."""
    rng = random.Random(0)
    common = "the a of and to in is it that for on with as was".split()
    topics = {"space": "orbit rocket launch moon planet star", "cars": "engine wheel brake road",
              "health": "doctor patient drug pain blood cure"}
    for topic, words in topics.items():
        (folder / topic).mkdir(parents=True)
        for i in range(25):
            text = " ".join(rng.choice(words.split() + common) for _ in range(40))
            (folder / topic / f"{i}.txt").write_text(text)
    return folder


@pytest.mark.slow
def test_a_fit_after_the_warm_up_compiles_nothing(mirror, tmp_path, run_multisvm):
    """Real runs (the protocol, its warm starts along C, dense, sparse and text data, every
    kernel) after :func:`warm.warm_up` use only the signatures it compiled."""
    from sklearn.datasets import dump_svmlight_file, load_wine

    warm.warm_up()
    before = joint_signatures()
    assert before["multisvm_cli.estimators.joint.decomposition.loops.run"]
    wine = mirror / "wine" / "wine.data"
    X, y = load_wine(return_X_y=True)
    dump_svmlight_file(X, y, str(tmp_path / "wine.svm"), zero_based=False)
    runs = [[wine, "--label", "0"], [wine, "--label", "0", "--kernel", "linear"],
            [wine, "--label", "0", "--kernel", "polynomial"], [tmp_path / "wine.svm"],
            [documents(tmp_path / "docs")]]
    for i, run in enumerate(runs):
        result = run_multisvm("compare", *run, "--schemes", "cs,ww,llw", "--quiet",
                              "--format", "csv", "--out", tmp_path / "out", "--name", f"r{i}")
        assert result.code == 0, result.err
        new = {name: signatures - before.get(name, set())
               for name, signatures in joint_signatures().items()}
        assert not any(new.values()), f"compare {run} compiled what the warm-up did not: " + \
            "; ".join(f"{name} {sorted(map(str, sig))}" for name, sig in new.items() if sig)


def compare_cold(data, out, cache):
    """``multisvm compare`` of ``data`` (wine) with C&S, in a process whose numba cache is
    ``cache``: (its stderr, grid.csv's rows)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-m", "multisvm_cli", "compare", str(data), "--label",
                           "0", "--schemes", "cs", "--progress", "lines", "--format", "csv",
                           "--out", str(out)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    with open(next(out.glob("compare-*/latest/grid.csv")), newline="") as stream:
        rows = list(csv.DictReader(stream))
    return done.stderr, rows


@pytest.mark.slow
def test_a_cold_cache_is_compiled_as_its_own_phase(mirror, tmp_path):
    """With an empty numba cache the run says the phase, and no grid point's CPU seconds hold
    the compile (over 30 CPU s); the next run, its cache warm, says nothing."""
    cache, wine = tmp_path / "numba", mirror / "wine" / "wine.data"
    stderr, rows = compare_cold(wine, tmp_path / "first", cache)
    said = [line for line in stderr.splitlines() if line.startswith("compil")]
    assert said[0] == COMPILING and said[1].startswith("compiled the all-together solver in ")
    assert rows and max(float(row["fit_cpu"]) for row in rows) < 5.0
    stderr, rows = compare_cold(wine, tmp_path / "second", cache)
    assert not [line for line in stderr.splitlines() if line.startswith("compil")], stderr
    assert rows and max(float(row["fit_cpu"]) for row in rows) < 5.0
