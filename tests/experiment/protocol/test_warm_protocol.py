"""Warm starts along C in the grid (issue #38): the all-together schemes' grid gives the same
numbers whatever ``-j`` says and after a resume that recomputes part of a task, its resume-cache
keys name their chain, and ``reuse_across_C: false`` turns it off."""

import json

import pytest

from multisvm_cli.experiment.config import load_config
from multisvm_cli.experiment.config.against_data import load_datasets
from multisvm_cli.experiment.protocol import run_protocol
from multisvm_cli.experiment.protocol.chains import resolved_chains, warm_chain
from multisvm_cli.experiment.config.grid import GridPoint
from multisvm_cli.base.storage import PointCache

GRID_C = [0.25, 1, 4, 16, 64, 256]
SAME = ("validation_error", "n_errors", "smo_iterations", "n_support_vectors", "size",
        "kernel_evaluations")


def warm_config(write_config, **overrides):
    """cs, ww and ovr on wine, two Gaussian kernels, six C values, 3-fold validation."""
    settings = {"dataset": "wine", "C": GRID_C, "schemes": ["cs", "ww", "ovr"],
                "kernels": [{"type": "gaussian", "sigma": [1, 4]}],
                "validation": {"method": "kfold", "k": 3, "seed": 0}}
    return load_config(write_config(**{**settings, **overrides}))


def grid(config, folder, n_jobs=1):
    """The grid rows of one run with the resume cache in ``folder``, by (scheme, kernel, C)."""
    rows = run_protocol(config.study(), load_datasets(config, quiet=True), PointCache(folder),
                        n_jobs=n_jobs)[1]
    return {(r["scheme"], r["kernel"], r["C"]): r for r in rows}


def numbers(rows):
    return {key: tuple(row[name] for name in SAME) for key, row in rows.items()}


def cache_entries(folder, scheme, C):
    """The resume-cache files of ``scheme``'s points at ``C`` (every kernel)."""
    found = []
    for path in folder.glob("*.json"):
        key = json.loads(path.read_text())["key"]
        if key["scheme"] == scheme and key["point"]["C"] == C:
            found.append((path, key))
    return found


def test_the_same_numbers_whatever_n_jobs_says(tmp_path, write_config, data_home):
    config = warm_config(write_config)
    alone = grid(config, tmp_path / "one")
    side_by_side = grid(config, tmp_path / "two", n_jobs=2)
    assert numbers(alone) == numbers(side_by_side)
    cold = grid(warm_config(write_config, reuse_across_C=False), tmp_path / "cold")
    for scheme in ("cs", "ww"):  # warm starts save steps, and the smallest C starts cold
        steps = {on: sum(r["smo_iterations"] for k, r in rows.items() if k[0] == scheme)
                 for on, rows in ((True, alone), (False, cold))}
        assert steps[True] < 0.8 * steps[False], (scheme, steps)
        assert all(alone[key]["smo_iterations"] == cold[key]["smo_iterations"]
                   for key in alone if key[0] == scheme and key[2] == GRID_C[0])


def test_a_resumed_run_gives_the_uninterrupted_numbers(tmp_path, write_config, data_home):
    config, folder = warm_config(write_config), tmp_path / "cache"
    first = grid(config, folder)
    entries = cache_entries(folder, "cs", 16)
    assert len(entries) == 2 and all(key["warm_chain"] == [0.25, 1.0, 4.0] for _, key in entries)
    assert all("warm_chain" not in key for _, key in cache_entries(folder, "ovr", 16))
    for path, _ in entries:  # lose cs's points at C 16, as an interrupted run would
        path.unlink()
    resumed = grid(config, folder)
    assert numbers(resumed) == numbers(first)
    for (scheme, _, C), row in resumed.items():
        # cs's chain is solved again up to C 16; the points above it and the others are cached
        assert row["cached"] is not (scheme == "cs" and C <= 16), (scheme, C)


def test_a_changed_chain_is_computed_afresh(tmp_path, write_config, data_home):
    """A C added to the grid changes the chain of every larger C: those points are not taken
    from the cache, and the smaller ones are solved again on the way (ovr's other points are
    cached)."""
    folder = tmp_path / "cache"
    grid(warm_config(write_config), folder)
    widened = warm_config(write_config, C=[0.25, 1, 2, 4, 16, 64, 256])
    rows = grid(widened, folder)
    for (scheme, _, C), row in rows.items():
        assert row["cached"] is (scheme == "ovr" and C != 2), (scheme, C)
    fresh = numbers(grid(widened, tmp_path / "fresh"))
    assert {key: value for key, value in numbers(rows).items() if key[0] != "ovr"} == \
        {key: value for key, value in fresh.items() if key[0] != "ovr"}


def test_warm_chain_and_resolved_chains():
    points = [GridPoint("gaussian", C, sigma=s) for s in (1.0, 2.0) for C in (4.0, 1.0, 16.0)]
    assert warm_chain(points, points[2]) == (1.0, 4.0)
    assert warm_chain(points, points[1]) == ()
    assert warm_chain(points, GridPoint("gaussian", 8.0, sigma=2.0)) == (1.0, 4.0)


@pytest.mark.parametrize("group, dropped", [(("cs",), {1.0, 4.0}), (("ovr",), set())])
def test_resolved_chains_drops_what_lies_below_a_missing_point(group, dropped):
    from multisvm_cli.experiment.protocol.tasks import PointJob

    class Fold:
        index = 0

    jobs = [PointJob(Fold, GridPoint("gaussian", C, sigma=1.0), group)
            for C in (1.0, 4.0, 16.0, 64.0)]
    looked_up = [(job, None if job.point.C == 16.0 else {"x": 1}) for job in jobs]
    resolved, starts = resolved_chains(looked_up)
    assert starts == {}
    missing = {job.point.C for job, stored in resolved if stored is None}
    assert missing == {16.0} | dropped
