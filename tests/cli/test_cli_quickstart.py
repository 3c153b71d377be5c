"""The README's main command, `multisvm reproduce-table configs/quickstart.yaml`, through click's
CliRunner and then as a real subprocess; the table's numbers are checked against estimators
fitted here directly with the selected parameters."""

import json

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from multisvm_cli import data
from multisvm_cli.estimators import DAGSVC, SCHEMES
from multisvm_cli.data.scaling import make_scaler
from helpers import REPO, run_cli, run_process

QUICKSTART = REPO / "configs" / "quickstart.yaml"
SCHEME_NAMES = ["ovr", "maxwins", "dag", "udt", "graph", "hier", "nb"]
TIMES = ("cpu_time", "selection_time", "evaluation_time")


def direct_fit(dataset, scheme, params):
    """Fit ``scheme`` as the quickstart does (30% stratified test part, [-1, 1] scaling fitted
    on the training part) and return (model, scaled test inputs, test labels)."""
    loaded = data.load(dataset, progress=False)
    X, y = loaded.parts["all"]
    train, test = train_test_split(np.arange(len(y)), test_size=0.3, stratify=y, random_state=0)
    train, test = np.sort(train), np.sort(test)  # rows keep the dataset's order
    scaler = make_scaler("paper", loaded.card).fit(X[train])
    options = {"dag": {"order": None}, "graph": {"threshold": 0.05}}.get(scheme, {})
    maker = SCHEMES["maxwins" if scheme == "dag" else scheme]
    model = maker(**params, random_state=0, **({} if scheme == "dag" else options))
    model.fit(scaler.transform(X[train]), y[train])
    if scheme == "dag":
        model = DAGSVC.from_maxwins(model, order=None)
    return model, scaler.transform(X[test]), y[test]


@pytest.mark.slow
def test_quickstart_cli_runner_then_subprocess(tmp_path, data_home):
    out = tmp_path / "results"
    result = run_cli("reproduce-table", QUICKSTART, "--out", out, "--quiet", "--format", "json")
    assert result.code == 0, result.err
    rows = json.loads(result.out)
    assert [(r["dataset"], r["scheme"]) for r in rows] == [
        (d, s) for d in ("iris", "wine", "digits") for s in SCHEME_NAMES]
    run = next((out / "quickstart").glob("2*"))
    results = json.loads((run / "results.json").read_text())["results"]

    for row, saved in zip(rows, results):
        model, X_test, y_test = direct_fit(row["dataset"], row["scheme"], saved["params"])
        wrong = np.sum(model.predict(X_test) != y_test)
        assert row["error_pct"] == pytest.approx(100 * wrong / len(y_test)), row
        assert row["kernel_evaluations"] == pytest.approx(model.kernel_evaluations(X_test)), row
        assert row["size_k"] == pytest.approx(model.n_parameters_ / 1000), row
        if row["scheme"] == "nb":
            assert row["kernel"] == "-" and row["C"] is None and row["kernel_evaluations"] == 0
        if row["scheme"] == "dag":
            assert "mcnemar_p" not in row or row["mcnemar_p"] is None
        else:
            assert 0 < row["mcnemar_p"] <= 1 and row["mcnemar_test"] in ("exact", "chi2")

    # the same command as a real process: finished grid points come from the cache
    done = run_process("reproduce-table", QUICKSTART, "--out", out)
    assert done.returncode == 0, done.stderr
    assert "DAGSVM" in done.stdout and "McNemar (Dietterich 1998) vs DAGSVM" in done.stdout
    assert f"results: {out / 'quickstart'}" in done.stdout
    assert "grid points" not in done.stderr  # no progress frames into a pipe
    assert len([line for line in done.stdout.splitlines()
                if line.split()[:1] in (["iris"], ["wine"], ["digits"])]) == 21
    second = sorted((out / "quickstart").glob("2*"))[-1]
    meta = json.loads((second / "run.json").read_text())
    assert meta["grid_points"]["cached"] == meta["grid_points"]["total"] == 111
    again = json.loads((second / "results.json").read_text())["table"]
    strip = lambda table: [{k: v for k, v in r.items() if k not in TIMES} for r in table]
    assert strip(again) == strip(json.loads((run / "results.json").read_text())["table"])
