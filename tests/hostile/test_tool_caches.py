"""Other libraries' caches (matplotlib's fonts, numba's compiled steps) go to the data home, not
under $HOME or the installed package (issue #41)."""

import os
import subprocess
import sys
from pathlib import Path
from configs import config_text
from helpers import REPO

from multisvm_cli.cli import entry

LINEAR = [{"type": "linear"}]


# ----------------------------------------------------- 2. caches of other tools in the data home

def test_matplotlib_and_numba_caches_go_to_the_data_home(tmp_path):
    home, data_home = tmp_path / "home", tmp_path / "data-home"
    home.mkdir()
    env = {key: value for key, value in os.environ.items()
           if key not in ("MPLCONFIGDIR", "NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME")}
    env.update(HOME=str(home), MULTISVM_DATA_HOME=str(data_home))
    probe = ("import os, sys; from multisvm_cli.cli import entry; entry.tool_caches(); "
             "import numba, matplotlib; "
             "print(numba.config.CACHE_DIR); print(matplotlib.get_configdir())")
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                          text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    numba_dir, mpl_dir = done.stdout.split()
    assert Path(mpl_dir) == data_home / "matplotlib"
    assert Path(numba_dir) == entry.numba_folder(data_home)  # data_home/numba/<digest>
    config = tmp_path / "c.yaml"
    config.write_text(config_text(kernels=LINEAR, C=[1], schemes=["ovr"]))
    env["MULTISVM_MIRROR"] = os.environ.get("MULTISVM_MIRROR", str(REPO.parent / "shared" /
                                                                   "datasets"))
    env["MULTISVM_URL_BASE"] = "http://127.0.0.1:9"
    done = subprocess.run([sys.executable, "-m", "multisvm_cli", "reproduce-table", str(config),
                           "--out", str(tmp_path / "out"), "-q"], env=env, capture_output=True,
                          text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    assert list(home.iterdir()) == []  # nothing under $HOME/.cache or $HOME/.config
    assert (data_home / "matplotlib").is_dir()


def test_an_edit_to_any_compiled_file_moves_numba_to_a_fresh_folder(tmp_path, monkeypatch):
    """numba checks only a cached function's own file; the folder follows every file the
    solver compiles from, so an edit to a callee (here: a copy of the package with one file of
    estimators/joint/decomposition changed) cannot run old machine code."""
    import shutil
    from multisvm_cli.base import code_digest

    copy = tmp_path / "pkg"
    shutil.copytree(code_digest.PACKAGE / "estimators" / "joint", copy / "estimators" / "joint")
    monkeypatch.setattr(code_digest, "PACKAGE", copy)
    before = entry.numba_folder(tmp_path)
    callee = copy / "estimators" / "joint" / "decomposition" / "search.py"
    callee.write_text(callee.read_text() + "\n# edited\n")
    after = entry.numba_folder(tmp_path)
    assert before != after and before.parent == after.parent == tmp_path / "numba"
    assert len(after.name) == 12
