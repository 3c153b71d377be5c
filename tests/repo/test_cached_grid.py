"""scripts/cached_grid.py: what a resume cache holds of one dataset's grid, summed per scheme and
kernel, with entries of other code left out or refused."""

import importlib.util
import json

import pytest

from multisvm_cli.base.storage import PointCache
from tests.helpers import REPO

spec = importlib.util.spec_from_file_location("cached_grid", REPO / "scripts" / "cached_grid.py")
cached_grid = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cached_grid)


def entry(folder, name, dataset, scheme, gamma, C, fit_cpu, code="aaa"):
    """A resume-cache entry as a run stores it (``name`` is only the test's label); its path."""
    key = {"versions": {"code": code}, "dataset": dataset, "scheme": scheme,
           "point": {"kernel": "gaussian", "C": C, "gamma": gamma}}
    result = {"n_errors": 3, "n_validation": 10, "validation_error": 0.3, "fit_cpu": fit_cpu,
              "fit_wall": fit_cpu, "predict_wall": 0.1, "n_support_vectors": 5.0,
              "kernel_evaluations": 5.0, "size": 50.0, "notes": []}
    store = PointCache(folder)
    store.put(key, result)
    return store.path(key)


@pytest.fixture
def cache(tmp_path):
    entry(tmp_path, "a", "letter", "cs", 0.5, 1.0, 2.5)
    entry(tmp_path, "b", "letter", "cs", 0.5, 2.0, 4.0)
    entry(tmp_path, "c", "letter", "cs", 8.0, 1.0, 1.5)
    entry(tmp_path, "d", "letter", "ovr", 0.5, 1.0, 0.5)
    entry(tmp_path, "e", "shuttle", "cs", 0.5, 1.0, 99.0)  # another dataset: not counted
    return tmp_path


def test_points_and_cpu_per_scheme_and_kernel_largest_gamma_first(cache):
    rows = cached_grid.summary(cache, "letter").to_dict("records")
    assert rows == [{"scheme": "cs", "kernel": "gaussian 2^3", "points": 1, "fit CPU s": 1.5},
                    {"scheme": "cs", "kernel": "gaussian 2^-1", "points": 2, "fit CPU s": 6.5},
                    {"scheme": "ovr", "kernel": "gaussian 2^-1", "points": 1, "fit CPU s": 0.5}]


def test_entries_of_other_code_are_refused_or_left_out(cache, capsys):
    entry(cache, "f", "letter", "cs", 0.5, 4.0, 10.0, code="bbb")
    with pytest.raises(SystemExit, match="letter: entries of 2 code digests \\(aaa, bbb\\)"):
        cached_grid.summary(cache, "letter")
    only_b = cached_grid.summary(cache, "letter", code="bbb").to_dict("records")
    assert only_b == [{"scheme": "cs", "kernel": "gaussian 2^-1", "points": 1, "fit CPU s": 10.0}]
    cached_grid.main([str(cache), "letter", "--code", "aaa"])
    printed = capsys.readouterr().out
    assert "| gaussian 2^-1 |" in printed and "| cs       |        3 |" in printed


def test_entries_a_run_would_refuse_are_left_out_and_counted(cache, capsys):
    renamed = entry(cache, "g", "letter", "cs", 0.5, 8.0, 50.0)
    renamed.rename(cache / "stale.json")  # filed under another key's name
    bad = entry(cache, "h", "letter", "cs", 0.5, 16.0, 60.0)
    stored = json.loads(bad.read_text())
    stored["result"]["n_errors"] = 11  # more errors than validation points
    bad.write_text(json.dumps(stored))
    (cache / "torn.json").write_text('{"key": ')
    with pytest.warns(UserWarning, match="resume-cache entry refused"):
        rows = cached_grid.summary(cache, "letter").to_dict("records")
    assert rows[1] == {"scheme": "cs", "kernel": "gaussian 2^-1", "points": 2, "fit CPU s": 6.5}
    assert "3 entries a run would refuse were left out" in capsys.readouterr().err
