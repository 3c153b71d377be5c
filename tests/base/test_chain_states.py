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


def put(states, stored, key=KEY, C=4.0):
    """Store ``stored`` under ``key`` with the numbers a solve at ``C`` gives it (its curvature
    beta'G - linear)."""
    curvature = NUMBERS["curvature"] if "G" not in stored else \
        float(np.sum(stored["beta"] * stored["G"])) - NUMBERS["linear"]
    states.put(key, {**NUMBERS, "C": C, "curvature": curvature}, stored)


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
    put(states, stored)
    numbers, found = states.get(KEY, (3, 7), 4.0)
    assert numbers["C"] == 4.0 and numbers["linear"] == NUMBERS["linear"]
    assert sorted(found) == sorted(stored)
    assert all(np.array_equal(found[name], stored[name]) for name in stored)
    states.drop(KEY)
    assert states.get(KEY, (3, 7), 4.0) is None and not list(states.folder.iterdir())


def test_nothing_stored_is_a_silent_miss(states):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert states.get(KEY, (3, 7), 4.0) is None


def test_another_points_file_is_refused(states):
    put(states, arrays(), OTHER, 8.0)
    states.path(OTHER).rename(states.path(KEY))
    assert "another grid point's state" in refused(states)


def test_changed_arrays_are_refused(states):
    put(states, arrays())
    with np.load(states.path(KEY)) as stored:
        meta, beta, G = str(stored["meta"]), stored["beta"].copy(), stored["G"]
    beta[1, 2] += 1e-12  # one entry off by a rounding: the meta's SHA-256 no longer holds
    buffer = io.BytesIO()
    np.savez(buffer, meta=np.array(meta), beta=beta, G=G)
    states.path(KEY).write_bytes(buffer.getvalue())
    assert "its beta is not the array its meta describes" in refused(states)


def test_another_shape_or_C_is_refused(states):
    put(states, arrays())
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


def rewritten(states, edit):
    """Rewrite the stored state with ``edit(meta dict, arrays dict)`` applied."""
    with np.load(states.path(KEY)) as stored:
        meta = json.loads(str(stored["meta"]))
        found = {name: stored[name].copy() for name in stored.files if name != "meta"}
    meta = edit(meta, found)
    buffer = io.BytesIO()
    np.savez(buffer, meta=np.array(json.dumps(meta)), **found)
    states.path(KEY).write_bytes(buffer.getvalue())


@pytest.mark.parametrize("meta", [None, [1], 3.0, {"key": KEY, "arrays": [], "numbers": {}}])
def test_a_meta_of_another_form_is_refused(states, meta):
    states.put(KEY, NUMBERS, arrays())
    rewritten(states, lambda old, found: meta)
    assert str(states.path(KEY)) in refused(states)


def test_an_encrypted_member_is_refused(states):
    """A zip header's flag bit saying 'encrypted' (zipfile raises RuntimeError)."""
    states.put(KEY, NUMBERS, arrays())
    raw = bytearray(states.path(KEY).read_bytes())
    central = raw.find(b"PK\x01\x02")
    raw[central + 8] |= 1
    states.path(KEY).write_bytes(bytes(raw))
    assert str(states.path(KEY)) in refused(states)


def test_a_curvature_that_is_not_the_arrays_is_refused(states):
    stored = arrays()
    curvature = float(np.sum(stored["beta"] * stored["G"])) - NUMBERS["linear"]
    states.put(KEY, {**NUMBERS, "curvature": curvature}, stored)
    assert states.get(KEY, (3, 7), 4.0) is not None
    rewritten(states, lambda meta, found: {**meta, "numbers": {**meta["numbers"],
                                                              "curvature": curvature * 2}})
    assert "curvature" in refused(states)


def test_cached_rows_read_back_and_must_be_rows(states):
    stored = {**arrays(G=False), "cached_rows": np.array([3, -1, 0, 6], dtype=np.int64)}
    states.put(KEY, NUMBERS, stored)
    assert states.get(KEY, (3, 7), 4.0)[1]["cached_rows"].tolist() == [3, -1, 0, 6]
    states.put(KEY, NUMBERS, {**stored, "cached_rows": np.array([7], dtype=np.int64)})
    assert "row indices" in refused(states)
    states.warned = False
    states.put(KEY, NUMBERS, {**stored, "cached_rows": np.array([3, 3], dtype=np.int64)})
    assert "distinct row indices" in refused(states)


def test_a_state_too_large_to_read_back_is_not_written(states, monkeypatch):
    import multisvm_cli.base.chain_states as module

    monkeypatch.setattr(module, "MAX_STATE_BYTES", (1 << 20) + 100)
    assert not states.put(KEY, NUMBERS, arrays())
    assert not states.path(KEY).exists()
    assert states.put(KEY, NUMBERS, {"beta": np.zeros((1, 4))})
