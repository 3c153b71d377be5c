"""Chain states beside the resume cache: a stored state reads back as it was written, and every
check refuses what it must (another key's file, changed arrays, another shape or C, a file that
is no state, a pickle), each a miss with one warning."""

import io
import json
import warnings

import numpy as np
import pytest

from multisvm_cli.base.chain_states import ChainStates
from multisvm_cli.base.storage import PointCache

KEY = {"scheme": "cs", "point": {"C": 4.0, "gamma": 0.5}, "warm_chain": [1.0, 2.0]}
OTHER = {**KEY, "point": {"C": 8.0, "gamma": 0.5}}
NUMBERS = {"C": 4.0, "curvature": 12.5, "linear": -3.25}


@pytest.fixture
def states(tmp_path):
    return ChainStates(PointCache(tmp_path))


def arrays(G=True):
    rng = np.random.default_rng(0)
    beta = rng.normal(size=(3, 7))
    return {"beta": beta, **({"G": rng.normal(size=(3, 7))} if G else {})}


def refused(states, key=KEY, shape=(3, 7), C=4.0):
    """The warning a refused lookup gives (it must return None)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert states.get(key, shape, C) is None
    assert len(caught) == 1
    return str(caught[0].message)


@pytest.mark.parametrize("with_G", [True, False])
def test_a_state_reads_back_as_written(states, with_G):
    stored = arrays(with_G)
    states.put(KEY, NUMBERS, stored)
    numbers, found = states.get(KEY, (3, 7), 4.0)
    assert numbers == NUMBERS
    assert sorted(found) == sorted(stored)
    assert all(np.array_equal(found[name], stored[name]) for name in stored)
    states.drop(KEY)
    assert states.get(KEY, (3, 7), 4.0) is None and not list(states.folder.iterdir())


def test_nothing_stored_is_a_silent_miss(states):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert states.get(KEY, (3, 7), 4.0) is None


def test_another_points_file_is_refused(states):
    states.put(OTHER, {**NUMBERS, "C": 8.0}, arrays())
    states.path(OTHER).rename(states.path(KEY))
    assert "another grid point's state" in refused(states)


def test_changed_arrays_are_refused(states):
    states.put(KEY, NUMBERS, arrays())
    with np.load(states.path(KEY)) as stored:
        meta, beta, G = str(stored["meta"]), stored["beta"].copy(), stored["G"]
    beta[1, 2] += 1e-12  # one entry off by a rounding: the meta's SHA-256 no longer holds
    buffer = io.BytesIO()
    np.savez(buffer, meta=np.array(meta), beta=beta, G=G)
    states.path(KEY).write_bytes(buffer.getvalue())
    assert "its beta is not the array its meta describes" in refused(states)


def test_another_shape_or_C_is_refused(states):
    states.put(KEY, NUMBERS, arrays())
    assert "the problem (3, 8)" in refused(states, shape=(3, 8))
    states.warned = False
    assert "its point's C is 8" in refused(states, C=8.0)


@pytest.mark.parametrize("content", [b"not a zip file", b""])
def test_a_file_that_is_no_state_is_refused(states, content):
    states.path(KEY).write_bytes(content)
    assert str(states.path(KEY)) in refused(states)


def test_a_pickle_inside_is_refused_unread(states):
    meta = json.dumps({"key": KEY, "numbers": NUMBERS, "arrays": {"beta": {}}})
    buffer = io.BytesIO()
    np.savez(buffer, meta=np.array(meta), beta=np.array([{"payload": 1}], dtype=object))
    states.path(KEY).write_bytes(buffer.getvalue())
    assert "pickle" in refused(states).lower()


def test_force_misses(tmp_path):
    ChainStates(PointCache(tmp_path)).put(KEY, NUMBERS, arrays())
    assert ChainStates(PointCache(tmp_path, force=True)).get(KEY, (3, 7), 4.0) is None


def test_a_torn_file_is_refused(states):
    states.put(KEY, NUMBERS, arrays())
    states.path(KEY).write_bytes(states.path(KEY).read_bytes()[:-40])
    assert str(states.path(KEY)) in refused(states)
