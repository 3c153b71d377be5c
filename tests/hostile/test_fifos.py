"""A FIFO in place of one of the tool's own files is refused at once, never opened (issue 56).

Before the fix each of these blocked for ever in ``open()``: the regular-file check came after
it. A call that blocks here is released by opening the FIFO's write end, and the test fails.
"""

import os
import threading
import warnings

import pytest

from multisvm_cli.base.chain_states import ChainStates
from multisvm_cli.base.errors import MultisvmError
from multisvm_cli.base import readers
from multisvm_cli.base.storage import PointCache
from multisvm_cli.persist.format import ModelFormatError
from multisvm_cli.persist.npy import open_archive
from tests.configs import config_text
from tests.helpers import run_cli

KEY = {"point": 1}


def finishes(call, fifo, seconds=5):
    """What ``call()`` returned or raised ({"value"} or {"error"}); fails the test when it
    blocked (on ``fifo``) for ``seconds``, after releasing it."""
    box = {}

    def target():
        try:
            box["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # the blocked open() returns
        thread.join(seconds)
        pytest.fail(f"blocked in open() of the FIFO {fifo}")
    return box


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def test_the_one_check_calls_a_fifo_not_a_regular_file_and_a_missing_file_missing(fifo, tmp_path):
    with pytest.raises(MultisvmError, match=r"pipe: not a regular file; a data file must be one"):
        readers.regular_file(fifo, what="data file")
    with pytest.raises(MultisvmError, match=r"nothing: no such file"):
        readers.regular_file(tmp_path / "nothing")
    with pytest.raises(MultisvmError, match=r": not a regular file"):
        readers.regular_file(tmp_path)
    box = finishes(lambda: readers.read_bytes(fifo, 100), fifo)
    assert "not a regular file" in str(box["error"])


def test_a_resume_cache_entry_that_is_a_fifo_is_a_miss_with_a_warning(tmp_path):
    cache = PointCache(tmp_path)
    os.mkfifo(cache.path(KEY))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        box = finishes(lambda: cache.get(KEY), cache.path(KEY))
    assert box == {"value": None}
    assert any("not a regular file" in str(w.message) for w in caught), caught


def test_a_chain_state_that_is_a_fifo_is_a_miss_with_a_warning(tmp_path):
    states = ChainStates(PointCache(tmp_path))
    os.mkfifo(states.path(KEY))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        box = finishes(lambda: states.get(KEY, (3,), 1.0), states.path(KEY))
    assert box == {"value": None}
    assert any("not a regular file" in str(w.message) for w in caught), caught


def test_model_arrays_that_are_a_fifo_are_refused(tmp_path):
    npz = tmp_path / "model.npz"
    os.mkfifo(npz)

    def enter():
        with open_archive(npz):
            return "opened"
    box = finishes(enter, npz)
    assert isinstance(box["error"], ModelFormatError)
    assert "model.npz: not a regular file" in str(box["error"])


def test_validate_refuses_a_config_that_is_a_fifo(fifo):
    box = finishes(lambda: run_cli("validate", fifo), fifo)
    code, out, err = box["value"]
    assert code == 2 and err == f"error: {fifo}: not a regular file; a config file must be one\n"


def test_a_card_that_is_a_fifo_is_refused_in_one_line(tmp_path):
    cards = tmp_path / "cards"
    cards.mkdir()
    os.mkfifo(cards / "evil.yaml")
    box = finishes(lambda: run_cli("datasets", "info", "evil", "--cards", cards),
                   cards / "evil.yaml")
    code, out, err = box["value"]
    assert code == 2 and "evil.yaml: not a regular file" in err and "Traceback" not in err


def test_a_config_file_that_is_missing_is_not_called_irregular(tmp_path):
    (tmp_path / "small.yaml").write_text(config_text())
    code, _, err = run_cli("validate", tmp_path / "gone.yaml")
    assert code == 2 and "not a regular file" not in err


@pytest.mark.parametrize("kind", ["fifo", "device link"])
def test_data_that_is_not_a_regular_file_is_called_that_not_missing(tmp_path, kind):
    """A FIFO, or a link to /dev/zero, given as DATA exists: the refusal says what it is, not
    'not found' (a folder given as DATA is a folder of documents)."""
    data = tmp_path / "d.csv"
    os.mkfifo(data) if kind == "fifo" else data.symlink_to("/dev/zero")
    out = tmp_path / "out"
    result = run_cli("compare", data, "--out", out, "--quiet")
    assert result.code == 2 and len(result.err.strip().splitlines()) == 1, result.err
    assert "not a regular file; a data file must be one" in result.err, result.err
    assert "not found" not in result.err
    assert not out.exists()
