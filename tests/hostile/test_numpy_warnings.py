"""numpy's warnings, hostile (issue #56): constant columns and columns of extreme scale gave
numpy's own words ("divide by zero encountered in log", "overflow encountered in square"),
naming no dataset or scheme, and a wrong model behind them. None is shown now: a column whose
sum of squares overflows is standardized as any other (``data/scaling.py``), and naive Bayes
on columns that are all constant scores by the class priors (``estimators/_base.py``), so the
only words are the run's own (one line per dataset and scheme)."""

import json
import warnings

import numpy as np

from multisvm_cli.data.scaling import Scaler
from multisvm_cli.estimators.nb import NBClassifier


def test_a_column_whose_squares_overflow_is_standardized_without_numpy_warnings():
    rng = np.random.default_rng(0)
    X = np.c_[rng.normal(size=1000) * 1e153, rng.normal(size=1000)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's RuntimeWarning fails the test
        Z = Scaler("standard", (0, 1)).fit(X).transform(X)
    np.testing.assert_allclose(Z.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(Z.std(axis=0), 1, rtol=1e-12)


def test_naive_bayes_on_constant_columns_scores_by_the_priors_without_numpy_warnings():
    X, y = np.full((12, 3), 5.0), np.array([0] * 6 + [1] * 4 + [2] * 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = NBClassifier().fit(X, y)
        scores = model.decision_function(X)
        predicted = model.predict(X)
    assert np.isfinite(scores).all()
    np.testing.assert_allclose(scores[0], np.log([6 / 12, 4 / 12, 2 / 12]) + scores[0, 0]
                               - np.log(6 / 12))
    assert predicted.tolist() == [0] * 12


def _csv(path, constant_only):
    rng = np.random.default_rng(0)
    rows = ["a,b,x,y"]
    for i in range(60):
        c = i % 3
        a, b = (5.0, 5.0) if constant_only else (rng.normal(c), rng.normal(-c))
        rows.append(f"{a:.3f},{b:.3f},5,{'pqr'[c]}")
    path.write_text("\n".join(rows) + "\n")
    return path


def _run_warnings(run_multisvm, data, out):
    """The warnings a ``compare`` run recorded in its run.json (those it shows)."""
    result = run_multisvm("compare", data, "--schemes", "nb,ovr", "--out", out, "--no-figures",
                          "-q")
    assert result.code == 0, result.err
    assert "encountered" not in result.err, result.err
    [run] = {path.resolve() for path in out.glob("*/*/run.json")}  # "latest" links to it
    return json.loads(run.read_text())["warnings"]


def test_compare_shows_no_numpy_words_for_constant_columns(tmp_path, run_multisvm):
    """A constant column among others: no word at all; every column constant: the run's own
    one line (grid points that predict one class, folded over the schemes), never numpy's."""
    assert _run_warnings(run_multisvm, _csv(tmp_path / "one.csv", False), tmp_path / "a") == []
    found = _run_warnings(run_multisvm, _csv(tmp_path / "every.csv", True), tmp_path / "b")
    assert not [w for w in found if "encountered" in w], found
    [folded] = found
    assert folded.split(":")[0].endswith("grid point(s) predicted one class for every "
                                         "validation point"), found
    assert "every gaussian" in folded and "(nb, ovr; C" in folded, found
