"""Other libraries' caches (matplotlib's fonts, numba's compiled steps) go to the data home, not
under $HOME or the installed package (issue #41)."""

import os
import subprocess
import sys
from pathlib import Path
from configs import config_text
from helpers import REPO

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
    assert Path(numba_dir) == data_home / "numba" and Path(mpl_dir) == data_home / "matplotlib"
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
