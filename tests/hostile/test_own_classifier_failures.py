"""A user's own classifier (a config row package.module:ClassName): one that fails is one line
naming the row and dataset; one that behaves still runs; the resume cache keys on the user's
module file (issue #41)."""

import json
import textwrap

import pytest

from configs import config_text
from helpers import refused

LINEAR = [{"type": "linear"}]


# ---------------------------------------------------------------- a user's classifier (6, 7, 13, 14)

USER_MODULE = '''\
import sys

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin


class Tricky(ClassifierMixin, BaseEstimator):
    """Fits nothing; predicts what ``mode`` says."""

    def __init__(self, mode="ok"):
        self.mode = mode

    def fit(self, X, y):
        if self.mode == "raise":
            raise RuntimeError("boom in fit")
        if self.mode == "exit":
            sys.exit(0)
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        n = X.shape[0]
        return {"ok": np.arange(n) % 3, "minus": np.full(n, -1), "frac": np.full(n, 1.9),
                "seven": np.full(n, 7), "nan": np.full(n, np.nan), "short": np.zeros(n - 1, int),
                "wide": np.zeros((n, 2), int), "text": np.array(["a"] * n)}[self.mode]
'''


def _user_config(tmp_path, monkeypatch, mode, module="hostile41_user", source=USER_MODULE):
    """A config with Max Wins and the row 'Mine' (``module:Tricky`` in ``mode``), the module
    written to a folder on sys.path."""
    folder = tmp_path / "user-modules"
    folder.mkdir(exist_ok=True)
    (folder / f"{module}.py").write_text(source)
    monkeypatch.syspath_prepend(str(folder))
    config = tmp_path / "own.yaml"
    config.write_text(config_text(kernels=LINEAR, C=[1], schemes=None) + textwrap.dedent(f"""\
        schemes:
          - maxwins
          - {{scheme: "{module}:Tricky", label: Mine, options: {{mode: {mode}}}}}
        """))
    return config


@pytest.mark.usefixtures("mirror", "data_home", "no_network")
@pytest.mark.parametrize("mode, fragments", [
    ("minus", ("predict", "-1", "not one of the classes")),      # 6: was the last class
    ("frac", ("predict", "1.9", "not one of the classes")),      # 6: was class 1
    ("short", ("predict", "values for", "points")),
    ("wide", ("predict", "an array of shape (", ", 2)")),
    ("text", ("predict", "'a'", "not one of the classes")),
    ("seven", ("predict", "7", "not one of the classes")),       # 13: was an IndexError
    ("nan", ("predict", "nan", "not one of the classes")),       # 13
    ("raise", ("fit raised RuntimeError: boom in fit",)),         # 13: was a traceback
    ("exit", ("fit raised SystemExit",)),                         # 14: was exit 0, no table
])
def test_a_users_classifier_failing_is_one_line_naming_row_and_dataset(
        tmp_path, monkeypatch, run_multisvm, mode, fragments):
    config = _user_config(tmp_path, monkeypatch, mode)
    result = run_multisvm("reproduce-table", config, "--out", tmp_path / "out", "-q",
                          "--no-figures")
    refused(result, "dataset iris", "row 'Mine' (hostile41_user:Tricky)", *fragments)
    assert "Traceback" not in result.out


@pytest.mark.usefixtures("mirror", "data_home", "no_network")
def test_a_well_behaved_users_classifier_still_runs(tmp_path, monkeypatch, run_multisvm):
    config = _user_config(tmp_path, monkeypatch, "ok")
    result = run_multisvm("reproduce-table", config, "--out", tmp_path / "out", "-q",
                          "--no-figures", "--format", "json")
    assert result.code == 0, result.err
    rows = {r["scheme"]: r for r in json.loads(result.out)}
    assert 0 < rows["own:Mine"]["error_pct"] < 100


@pytest.mark.usefixtures("mirror", "data_home", "no_network")
def test_the_resume_cache_keys_on_the_users_module_file(tmp_path, monkeypatch):
    from multisvm_cli.experiment import Settings, load_config, reproduce

    config = _user_config(tmp_path, monkeypatch, "ok", module="hostile41_edited")

    def cached():
        run = reproduce(load_config(config), Settings(out=str(tmp_path / "out"), quiet=True))
        return json.loads((run.folder / "run.json").read_text())["grid_points"]

    assert cached()["cached"] == 0
    assert cached()["cached"] == 2  # Max Wins' point and the row's
    module = tmp_path / "user-modules" / "hostile41_edited.py"
    module.write_text(module.read_text() + "\n# the user's edit\n")
    assert cached()["cached"] == 1  # Max Wins' point only: the row is computed again
    assert cached()["cached"] == 2
