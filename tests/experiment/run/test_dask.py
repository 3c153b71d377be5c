"""Scale-out: the quickstart's grid points run on a local Dask cluster of two worker processes
and give the same table as a local run (times aside)."""

import json

import pytest
import yaml

from multisvm_cli.cli.main import main
from helpers import REPO, without_times

distributed = pytest.importorskip("distributed", reason="dask is an optional extra (multisvm[dask])")


def small_quickstart(tmp_path, **overrides):
    """The quickstart on iris and wine with its schemes and a slightly smaller grid (or
    ``overrides``)."""
    config = yaml.safe_load((REPO / "configs" / "quickstart.yaml").read_text())
    config["dataset"] = ["iris", "wine"]
    config["C"] = [1, 100]
    config.update(overrides)
    path = tmp_path / "quickstart.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def report(capsys, *args):
    with pytest.raises(SystemExit) as exited:
        main(["reproduce-table", *args, "--format", "json", "--quiet"])
    captured = capsys.readouterr()
    assert exited.value.code == 0, captured.err
    return without_times(json.loads(captured.out))


ALL_TOGETHER = {"schemes": ["cs", "ww", "ovr"], "C": [1, 4, 16, 64], "scheme_options": {}}


@pytest.mark.slow
@pytest.mark.parametrize("overrides", [{}, ALL_TOGETHER],
                         ids=["quickstart", "warm-started-all-together"])
def test_dask_cluster_gives_the_local_table(tmp_path, capsys, data_home, overrides):
    config = small_quickstart(tmp_path, **overrides)
    local = report(capsys, str(config), "--out", str(tmp_path / "local"))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        remote = report(capsys, str(config), "--out", str(tmp_path / "dask"), "--backend", "dask",
                        "--scheduler", cluster.scheduler_address)
        with distributed.Client(cluster.scheduler_address) as client:
            executed = client.run(lambda dask_worker: dask_worker.state.executed_count)
    assert remote == local
    assert len(executed) == 2 and sum(executed.values()) > 0, executed  # work ran on the workers
    run = json.loads(next((tmp_path / "dask" / "quickstart").glob("2*/run.json")).read_text())
    assert run["backend"] == "dask" and run["grid_points"]["computed"] > 0


def test_scheduler_without_dask_backend_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["reproduce-table", str(small_quickstart(tmp_path)), "--scheduler",
              "tcp://127.0.0.1:1"])
    assert exited.value.code == 2
    assert capsys.readouterr().err == "error: --scheduler needs --backend dask\n"


def test_unreachable_scheduler_is_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["reproduce-table", str(small_quickstart(tmp_path)), "--backend", "dask",
              "--scheduler", "tcp://127.0.0.1:9", "--quiet"])
    err = capsys.readouterr().err
    assert exited.value.code == 2
    assert err.startswith("error: cannot reach the dask scheduler tcp://127.0.0.1:9") and \
        err.count("\n") == 1
