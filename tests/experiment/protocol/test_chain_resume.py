"""A warm chain stopped mid-way resumes at its next C (issue #38's Letter): with one validation
split, each point is cached as it ends and the chain's state beside it, so a run stopped inside
a chain keeps the points below and goes on from the stored state; the numbers are those of an
uninterrupted run, step counts included.  A state that fails its checks is refused with one
warning and the chain is solved from its first C, to the same numbers."""

import pickle
import warnings

import pytest

from multisvm_cli.base.storage import PointCache
from multisvm_cli.experiment.config.against_data import load_datasets
from multisvm_cli.experiment.protocol import fitting, run_protocol
from multisvm_cli.experiment.protocol.tasks import PointsDone

from .test_warm_protocol import grid, numbers, warm_config

HOLDOUT = {"method": "holdout", "train_fraction": 0.7, "seed": 0}
STOP = 16.0  # the chain of sigma 4 is stopped as it starts this C


@pytest.fixture
def holdout_config(write_config):
    return warm_config(write_config, validation=HOLDOUT)


def stopped_run(config, folder, monkeypatch, scheme):
    """A run stopped as ``scheme`` starts C = STOP on sigma 4 (as Ctrl-C or a session's end
    would stop it)."""
    fit = fitting.fit_group

    def stopping(group, params, *args, **kwargs):
        if group[0] == scheme and params["C"] == STOP and params.get("sigma") == 4:
            raise KeyboardInterrupt
        return fit(group, params, *args, **kwargs)

    monkeypatch.setattr(fitting, "fit_group", stopping)
    with pytest.raises(KeyboardInterrupt):
        grid(config, folder)
    monkeypatch.setattr(fitting, "fit_group", fit)


def states(folder):
    return sorted(folder.glob("*.state.npz"))


@pytest.mark.parametrize("scheme", ["cs", "ww"])
def test_a_stopped_chain_resumes_at_its_next_C(scheme, holdout_config, tmp_path, monkeypatch,
                                               data_home):
    whole = grid(holdout_config, tmp_path / "whole")
    assert not states(tmp_path / "whole")  # an ended chain leaves no state
    folder = tmp_path / "stopped"
    stopped_run(holdout_config, folder, monkeypatch, scheme)
    assert len(states(folder)) == 1  # the state of C 4, the last point solved
    resumed = grid(holdout_config, folder)
    assert numbers(resumed) == numbers(whole)
    for (name, kernel, C), row in resumed.items():
        if name == scheme and kernel.endswith("4"):
            assert row["cached"] is (C < STOP), (kernel, C)
    assert not states(folder)


def test_a_refused_state_solves_the_chain_again(holdout_config, tmp_path, monkeypatch,
                                                data_home):
    whole = grid(holdout_config, tmp_path / "whole")
    folder = tmp_path / "stopped"
    stopped_run(holdout_config, folder, monkeypatch, "cs")
    state = states(folder)[0]
    state.write_bytes(state.read_bytes()[:-40])  # torn
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        resumed = grid(holdout_config, folder)
    assert [str(w.message) for w in caught if "chain state refused" in str(w.message)]
    assert numbers(resumed) == numbers(whole)
    for (name, kernel, C), row in resumed.items():
        if name == "cs" and kernel.endswith("4"):
            assert not row["cached"], C  # solved again from its first C


def test_k_fold_chains_keep_no_state(tmp_path, write_config, monkeypatch, data_home):
    """With several validation splits a point ends only after its last split's chain: nothing
    is cached mid-task and no state is kept (the chain is solved again, as before)."""
    folder = tmp_path / "stopped"
    stopped_run(warm_config(write_config), folder, monkeypatch, "cs")
    assert not states(folder)


def test_tasks_off_this_machine_keep_no_state(holdout_config, tmp_path, monkeypatch, data_home):
    """Under a backend that runs tasks elsewhere (Dask's workers: their files would land on
    other machines) no task gets a checkpoint, the ones joblib dispatches late from its own
    thread included, and every point is cached when its task ends."""
    import joblib
    from joblib._parallel_backends import ThreadingBackend

    from multisvm_cli.experiment.protocol import chains

    class NotHereBackend(ThreadingBackend):
        pass

    def called(*args):
        raise AssertionError("a checkpoint ran under a backend off this machine")

    joblib.register_parallel_backend("not-here", NotHereBackend)
    monkeypatch.setattr(chains.ChainCheckpoint, "__call__", called)
    with joblib.parallel_config(backend="not-here"):
        rows = grid(holdout_config, tmp_path / "elsewhere", n_jobs=2)
    assert numbers(grid(holdout_config, tmp_path / "elsewhere")) == numbers(rows)
    assert all(row["cached"] for row in grid(holdout_config, tmp_path / "elsewhere").values())
    assert not states(tmp_path / "elsewhere")


class CachedAtEachCount:
    """A progress bar that notes, at each ``update``, the points counted so far and the points
    in the resume cache."""

    def __init__(self, folder):
        self.folder, self.done, self.seen = folder, 0, []

    def update(self, n):
        self.done += n
        self.seen.append((self.done, len(list(self.folder.glob("*.json")))))

    def close(self):
        pass


def test_progress_counts_a_chains_points_as_they_end(holdout_config, tmp_path, data_home):
    """With one validation split a warm chain's points are counted as each is cached, not all
    when its task ends: at every count, the cache holds exactly the points counted."""
    folder = tmp_path / "cache"
    bar = CachedAtEachCount(folder)
    run_protocol(holdout_config.study(), load_datasets(holdout_config, quiet=True), PointCache(folder),
                 progress=lambda total: bar)
    assert bar.seen[-1] == (36, 36)  # 3 schemes x 2 kernels x 6 C
    assert all(done == cached for done, cached in bar.seen), bar.seen
    assert sum(1 for done, cached in bar.seen) >= 2 * 2 * 6  # cs, ww: one count per point


def test_points_done_counts_nothing_in_another_process():
    """Sent to a worker process, the counter moves no bar there; the task's points are then
    counted in the driving process when it returns."""
    counts = []

    class Bar:
        def update(self, n):
            counts.append(n)

    done = PointsDone(Bar())
    pickle.loads(pickle.dumps(done)).add(0, 3)
    done.add(1, 2)
    done.rest(0, 6)
    done.rest(1, 6)
    assert counts == [2, 6, 4]
