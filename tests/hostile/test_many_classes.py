"""Many classes (issue #56): report.html's per-class section costs memory and text linear in the
number of classes (no k x k confusion matrix past its limit, the recall counted in one pass),
and a scheme quadratic in k (one SVM per pair of classes) is refused in one line above a limit
(default 1,000 classes, a config's max_classes: test_max_classes.py), before any run folder exists; schemes linear
in k are not limited."""

import tracemalloc
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

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
    return SimpleNamespace(schemes=schemes, scheme_options=options or {}, max_classes=None)


def _dataset(k):
    y = np.arange(k)
    return SimpleNamespace(parts={"all": (None, y)})


def _plan(tmp_path):
    return SimpleNamespace(name="many", where={"split": SimpleNamespace(path=tmp_path / "c.yaml")})


def test_pairwise_schemes_are_refused_above_the_default_limit(tmp_path):
    assert class_limit.limit(_config([])) == 1000
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
