"""`multisvm report` checks predictions.csv against the run, not only against itself (issue
#56): edits that keep every count (a true label changed under every scheme, a row id or a
split moved, a right and a wrong row swapped, a probability column renamed, a row of zero
probabilities) and a missing or replaced file are refused in one line, exit 2; an untouched
run and a run folder from before the record still report."""

import json
import os
import shutil

import pandas as pd
import pytest

from helpers import real_run, refused

CONFIG = """\
name: points
dataset: iris
scaling: paper
split: {test_fraction: 0.3, seed: 0}
validation: {method: holdout, train_fraction: 0.7, seed: 0}
kernels:
  - {type: gaussian, sigma: [1]}
C: [1, 100]
schemes: [ovr, maxwins]
scheme_options: {maxwins: {probability: true}}
repeats: 2
seed: 0
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory, mirror):
    """One finished run folder (iris, 1-v-r and Max Wins with probabilities, two repeats)."""
    folder, _, _ = real_run(tmp_path_factory.mktemp("predictions"), "points", CONFIG)
    return folder


def _copy(run, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(run, copy, symlinks=True)
    return copy


def _edit(run, tmp_path, change):
    """A copy of the run folder whose predictions.csv is ``change(frame)`` (texts)."""
    copy = _copy(run, tmp_path)
    frame = pd.read_csv(copy / "predictions.csv", dtype=str, keep_default_na=False)
    change(frame)
    frame.to_csv(copy / "predictions.csv", index=False)
    return copy


def _point(frame, index=0):
    """The rows (every scheme's) of the test point of row ``index``."""
    first = frame.iloc[index]
    return (frame["repeat"] == first["repeat"]) & (frame["fold"] == first["fold"]) \
        & (frame["row"] == first["row"])


def _true_label(frame):
    rows = _point(frame)
    right = rows & (frame["true"] == frame["predicted"])
    frame.loc[right, "predicted"] = "zzz"
    frame.loc[rows, "true"] = "zzz"


def _row_id(frame):
    frame.loc[_point(frame), "row"] = "999999"


def _split(frame):
    frame.loc[_point(frame), ["repeat", "fold"]] = ["7", "9"]


def _swap(frame):
    """A wrong and a right row of one scheme with the same true label: their predictions
    swapped (the wrong one right, the right one wrong; counts kept)."""
    wrong = frame[(frame["true"] != frame["predicted"])].index[0]
    same = (frame["scheme"] == frame.at[wrong, "scheme"]) \
        & (frame["true"] == frame.at[wrong, "true"]) & (frame["true"] == frame["predicted"])
    right = frame[same].index[0]
    frame.loc[[wrong, right], "predicted"] = frame.loc[[right, wrong], "predicted"].to_numpy()


def _rename(frame):
    frame.columns = ["p_bogus" if c == "p_0" else c for c in frame.columns]


def _zeros(frame):
    row = frame[frame["p_0"] != ""].index[0]
    frame.loc[row, ["p_0", "p_1", "p_2"]] = "0.0"


@pytest.mark.parametrize("change, problem", [
    (_true_label, "a row id or a true label was edited"),
    (_row_id, "a row id or a true label was edited"),
    (_split, "repeat 7, fold 9, which is not a split of the run"),
    (_swap, "a prediction or probability was edited or swapped"),
    (_rename, "column p_bogus is not a class of the run"),
    (_zeros, "probabilities add up to 0, not 1"),
])
def test_report_refuses_a_consistent_edit(run, tmp_path, run_multisvm, change, problem):
    folder = _edit(run, tmp_path, change)
    refused(run_multisvm("report", folder), "predictions.csv", problem)


def _delete(path):
    path.unlink()


def _fifo(path):
    path.unlink()
    os.mkfifo(path)


def _folder(path):
    path.unlink()
    path.mkdir()


def _link(path):
    kept = path.with_name("kept.csv")
    path.rename(kept)
    path.symlink_to(kept)


@pytest.mark.parametrize("replace", [_delete, _fifo, _folder, _link])
def test_report_refuses_a_missing_or_replaced_file(run, tmp_path, run_multisvm, replace):
    folder = _copy(run, tmp_path)
    replace(folder / "predictions.csv")
    refused(run_multisvm("report", folder), "predictions.csv")


def test_an_untouched_run_and_one_from_before_the_record_report(run, tmp_path, run_multisvm):
    folder = _copy(run, tmp_path)
    assert run_multisvm("report", folder).code == 0
    results = json.loads((folder / "results.json").read_text())
    assert set(results["test_points"]["iris"]["schemes_sha256"]) == {"ovr", "maxwins"}
    assert results["test_points"]["iris"]["classes"] == ["0", "1", "2"]
    del results["test_points"]
    (folder / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    (folder / "predictions.csv").unlink()
    assert run_multisvm("report", folder).code == 0
