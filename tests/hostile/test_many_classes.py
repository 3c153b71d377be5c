"""Many classes (issue #56): report.html's per-class section costs memory and text linear in the
number of classes (no k x k confusion matrix past its limit, the recall counted in one pass),
and a scheme quadratic in k (one SVM per pair of classes) is refused in one line above a limit
(default 1,000 classes, $MULTISVM_MAX_CLASSES), before any run folder exists; schemes linear
in k are not limited."""

import tracemalloc
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from helpers import refused
from multisvm_cli.base.errors import MultisvmError
from multisvm_cli.experiment.config import class_limit
from multisvm_cli.report.html import per_class_html
from multisvm_cli.report.per_class import CONFUSION_LIMIT, per_class, recall

K = 3000  # classes: a k x k matrix of counts alone would take K * K * 8 = 72 MB


def _predictions(k, per_class_points=5, schemes=("nb", "ovr")):
    """predictions.csv's frame (texts) of ``k`` classes, ``per_class_points`` test points
    each, every scheme right on all but its class 0 points."""
    true = np.repeat(np.arange(k), per_class_points).astype(str)
    rows = []
    for scheme in schemes:
        predicted = true.copy()
        predicted[:per_class_points] = "1"
        rows.append(pd.DataFrame({"dataset": "many", "scheme": scheme, "repeat": "0",
                                  "fold": "0", "row": np.arange(len(true)).astype(str),
                                  "true": true, "predicted": predicted}))
    return pd.concat(rows, ignore_index=True)


def test_the_per_class_section_is_linear_in_the_classes():
    frame = _predictions(K)
    table = [{"dataset": "many", "scheme": "nb", "error_pct": "0.1"},
             {"dataset": "many", "scheme": "ovr", "error_pct": "0.1"}]
    tracemalloc.start()
    try:
        html = "".join(per_class_html(frame, table))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 40e6, peak  # the k x k counts alone are 72 MB; their cells' HTML far more
    assert len(html) < 100 * K * 2, len(html)  # a recall row per scheme: cells linear in k
    assert f"{K} classes: the confusion matrix is shown for at most {CONFUSION_LIMIT}" in html


def test_recall_is_each_classes_share_predicted_right():
    true = ["a", "a", "b", "b", "b", "c"]
    predicted = ["a", "b", "b", "b", "a", "a"]
    assert recall(true, predicted, ["a", "b", "c", "d"]) == [0.5, 2 / 3, 0.0, None]
    [small] = per_class(_predictions(4, 2), {"many": "nb"})
    assert small["confusion"].tolist() == [[0, 2, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0],
                                           [0, 0, 0, 2]]


def _config(schemes, options=None):
    return SimpleNamespace(schemes=schemes, scheme_options=options or {})


def _dataset(k):
    y = np.arange(k)
    return SimpleNamespace(parts={"all": (None, y)})


def _plan(tmp_path):
    return SimpleNamespace(name="many", where={"split": SimpleNamespace(path=tmp_path / "c.yaml")})


def test_pairwise_schemes_are_refused_above_the_default_limit(tmp_path, monkeypatch):
    monkeypatch.delenv(class_limit.VARIABLE, raising=False)
    assert class_limit.limit() == 1000
    assert class_limit.pairwise_schemes(_config(["ovr", "maxwins", "dag", "adag", "coupling",
                                                 "nb", "cs", "ecoc"])) \
        == ["maxwins", "dag", "adag", "coupling"]
    assert class_limit.pairwise_schemes(_config(["ecoc"], {"ecoc": {"code": "ovo"}})) == ["ecoc"]
    plan = _plan(tmp_path)
    class_limit.check_class_limit(_config(["maxwins"]), plan, _dataset(1000))
    class_limit.check_class_limit(_config(["ovr", "nb"]), plan, _dataset(10_000))
    with pytest.raises(MultisvmError, match="1,001 classes, more than 1,000: Max Wins would "
                                            "train 500,500 pairwise SVMs"):
        class_limit.check_class_limit(_config(["nb", "maxwins"]), plan, _dataset(1001))


def _four_classes(path):
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(4), 10)
    X = rng.normal(size=(40, 2)) + y[:, None]
    lines = ["a,b,y"] + [f"{a:.3f},{b:.3f},{c}" for (a, b), c in zip(X, y)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_limit_is_set_by_the_environment_and_refused_before_a_run_folder(
        tmp_path, run_multisvm, monkeypatch):
    data = _four_classes(tmp_path / "four.csv")
    monkeypatch.setenv(class_limit.VARIABLE, "3")
    out = tmp_path / "out"
    refused(run_multisvm("compare", data, "--schemes", "nb,dag", "--out", out, "-q"),
            str(data), "4 classes, more than 3: DAGSVM would train 6 pairwise SVMs",
            class_limit.VARIABLE)
    assert not out.exists()
    result = run_multisvm("compare", data, "--schemes", "nb", "--out", out, "-q",
                          "--no-figures")
    assert result.code == 0, result.err
    monkeypatch.setenv(class_limit.VARIABLE, "lots")
    refused(run_multisvm("compare", data, "--schemes", "dag", "--out", out, "-q"),
            "MULTISVM_MAX_CLASSES='lots': expected a whole number")
