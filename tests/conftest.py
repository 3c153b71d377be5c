"""Shared test set-up: the dataset mirror (../shared/datasets, as in .ci/run) and a partial
one, a fresh or a session-wide data home, no network, the in-process command line, the base
config (see configs.py), and the quick tier's hooks (see quick_tier.py)."""

import functools
import http.server
import os
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DEFAULT_MIRROR = REPO.parent / "shared" / "datasets"
MIRROR = Path(os.environ.get("MULTISVM_MIRROR", DEFAULT_MIRROR))
# The benchmark scripts live outside the package; their tests import them as modules.
sys.path.insert(0, str(REPO / "benchmarks"))
# tests/ is a package (same-named test files in two folders do not clash); its shared helpers
# (configs, model_files, local_server) are imported by name.
sys.path.insert(0, str(REPO / "tests"))

import local_server  # noqa: E402  (tests/ is on sys.path)
from configs import write_config as _write_config  # noqa: E402
from helpers import run_cli  # noqa: E402
from quick_tier import (  # noqa: E402,F401  (the quick tier's hooks: tests/quick_tier.py)
    pytest_collection_modifyitems, pytest_ignore_collect, pytest_runtestloop,
    pytest_sessionfinish)


@pytest.fixture(scope="session")
def mirror():
    """The folder of verified dataset copies; skip (never in CI) when it is absent."""
    if not MIRROR.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"dataset mirror {MIRROR} is missing in CI")
        pytest.skip(f"dataset mirror {MIRROR} is absent (set MULTISVM_MIRROR)")
    return MIRROR


@pytest.fixture
def partial_mirror(mirror, tmp_path):
    """A mirror like ``mirror`` whose covtype folder holds only the Kaggle file (UCI rows
    1..15,120): Covertype's test part is then not available locally."""
    root = tmp_path / "partial-mirror"
    root.mkdir()
    for folder in Path(mirror).iterdir():
        if folder.name != "covtype":
            (root / folder.name).symlink_to(folder)
    (root / "covtype").mkdir()
    kaggle = "kaggle-forest-cover-type-prediction-train.csv"
    (root / "covtype" / kaggle).symlink_to(Path(mirror) / "covtype" / kaggle)
    return root


@pytest.fixture(scope="session")
def shared_home(tmp_path_factory):
    """One data home for a whole test session: a large dataset is parsed once, then read from
    its parsed cache."""
    return tmp_path_factory.mktemp("shared-data-home")


@pytest.fixture
def served(tmp_path):
    """(folder, base URL): a local HTTP server over ``folder``, stopped after the test."""
    folder = tmp_path / "served"
    folder.mkdir()

    class Handler(local_server.QuietHandler):
        directory_path = folder

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield folder, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def data_home(tmp_path, monkeypatch):
    """A fresh, empty download/parsed cache for one test."""
    home = tmp_path / "data-home"
    monkeypatch.setenv("MULTISVM_DATA_HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def no_user_cards():
    """No user cards folder: ``--cards`` sets ``MULTISVM_CARDS`` for the whole process, so a
    test that passes it would otherwise change the dataset list of every later test."""
    saved = os.environ.pop("MULTISVM_CARDS", None)
    yield
    os.environ.pop("MULTISVM_CARDS", None)
    if saved is not None:
        os.environ["MULTISVM_CARDS"] = saved


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """Every test: a download goes to a closed local port and fails at once (a test of
    downloads points ``MULTISVM_URL_BASE`` at its own local server instead)."""
    monkeypatch.setenv("MULTISVM_URL_BASE", "http://127.0.0.1:9")


@pytest.fixture
def no_network(monkeypatch):
    """No test reaches the network: in this process ``urlopen`` fails at once as a refused
    connection would (tests of a failed download rely on that) and records the URL in the list
    this fixture gives, so a test can assert that nothing was tried; a child process gets
    ``MULTISVM_URL_BASE`` pointing at a closed local port."""
    tried = []

    def refuse(url, *args, **kwargs):
        tried.append(getattr(url, "full_url", url))
        raise urllib.error.URLError(ConnectionRefusedError(111, "no network in tests"))

    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    monkeypatch.setenv("MULTISVM_URL_BASE", "http://127.0.0.1:9")
    return tried


@pytest.fixture
def run_multisvm():
    """``run_multisvm(*args)``: ``multisvm ARGS`` run in-process, as ``CliResult(code, out,
    err)`` (see helpers.run_cli)."""
    return run_cli


@pytest.fixture
def write_config(tmp_path):
    """``write_config(filename="config.yaml", **overrides)``: the base config (configs.py) with
    ``overrides``, written into the test's folder; its path."""
    return lambda filename="config.yaml", **overrides: _write_config(tmp_path, filename,
                                                                     **overrides)
