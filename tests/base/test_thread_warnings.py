"""Warnings are caught per thread (multisvm_cli/base/thread_warnings.py): two grid points fitting side
by side each get their own warnings, a warning repeated from one line reaches every collector,
a fit's worker threads hand theirs to the caller, and a run that computes its grid with -j 2
records the same warnings as its rerun from the resume cache (before: none of them)."""

import json
import threading
import warnings

import pytest
from multisvm_cli.estimators._binary import run_parallel
from multisvm_cli.base.thread_warnings import caught
from joblib import delayed


def _texts(found):
    return [str(w.message) for w in found]


def test_two_threads_catching_at_once_each_get_their_own_warnings_and_nothing_is_lost():
    step = threading.Barrier(2)
    got = {}

    def point(name, late):
        with caught() as found:
            step.wait()                      # both inside at once
            warnings.warn(f"{name} first", UserWarning)
            step.wait()
            if late:
                step.wait()                  # the other has left
                warnings.warn(f"{name} after the other left", UserWarning)
            else:
                pass
        if not late:
            step.wait()
        got[name] = _texts(found)

    with warnings.catch_warnings(record=True) as outside:
        warnings.simplefilter("always")
        threads = [threading.Thread(target=point, args=("a", False)),
                   threading.Thread(target=point, args=("b", True))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        warnings.warn("the run's own warning", UserWarning)
    assert got == {"a": ["a first"], "b": ["b first", "b after the other left"]}
    assert _texts(outside) == ["the run's own warning"]


def _warn_here():
    warnings.warn("Solver terminated early (max_iter=10)", UserWarning)


def test_a_warning_repeated_from_one_line_reaches_every_collector():
    with warnings.catch_warnings():
        warnings.simplefilter("default")     # shown once per line unless caught() says always
        for _ in range(3):
            with caught() as found:
                _warn_here()
            assert _texts(found) == ["Solver terminated early (max_iter=10)"]


def _fit_that_warns(i):
    warnings.warn(f"machine {i} stopped at the bound", UserWarning)
    return i * i


def test_warnings_of_a_fits_worker_threads_reach_the_callers_collector():
    with caught() as found:
        results = run_parallel([delayed(_fit_that_warns)(i) for i in range(4)], n_jobs=2)
    assert results == [0, 1, 4, 9]
    assert sorted(_texts(found)) == [f"machine {i} stopped at the bound" for i in range(4)]


ONE_CLASS = """name: oneclass
dataset: wine
scaling: minmax
split: {method: kfold, k: 5, seed: 0}
estimate: cv-best
kernels:
  - {type: gaussian, gamma: [16, 4, 1, 0.25]}
C: [0.0625, 0.25, 1, 4]
schemes: [ovr, maxwins, dag]
"""


@pytest.mark.slow
def test_a_computed_run_records_the_warnings_its_cached_rerun_records(tmp_path, data_home,
                                                                       run_multisvm,
                                                                       monkeypatch):
    config = tmp_path / "oneclass.yaml"
    config.write_text(ONE_CLASS)
    monkeypatch.chdir(tmp_path)
    recorded = []
    for _ in range(2):
        with pytest.warns(UserWarning, match="predicted one class"):
            code, out, err = run_multisvm("reproduce-table", config, "-j", "2", "--out", "out",
                                          "-q", "--no-figures")
        assert code == 0, err
        latest = json.loads((tmp_path / "out" / "oneclass" / "latest" / "run.json").read_text())
        recorded.append((latest["grid_points"]["cached"], latest["warnings"]))
    (computed, first), (cached, again) = recorded
    assert (computed, cached) == (0, 240)  # 16 points x 5 folds x 3 schemes
    assert first == again and len(first) == 1  # folded over the schemes: one line per run
    assert first[0] == ("80 grid point(s) predicted one class for every validation point: wine "
                        "gaussian gamma=16 in 3 scheme(s) (dag, maxwins, ovr; C 0.0625..4); wine "
                        "gaussian gamma=4 in 2 scheme(s) (dag, maxwins; C 0.0625..0.25)")
