"""What run.json records about the software, the machine and the run's settings."""

from __future__ import annotations

import os
import platform
import socket
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from ... import __version__

PACKAGE_DIR = Path(__file__).resolve().parents[2]


def now_iso() -> str:
    """Local time with its UTC offset, to the second."""
    return datetime.now().astimezone().isoformat(timespec="seconds")


def run_metadata(settings, jobs, seed, config_path) -> dict:
    """run.json's first content: command line, software, machine, settings, status running."""
    import joblib
    import numpy
    import scipy
    import sklearn

    from ...base.code_digest import code_digest

    return {
        "multisvm": __version__,
        "code_digest": code_digest(),  # the source files' digest: the caches key on it
        "argv": list(settings.argv or sys.argv),
        "python": platform.python_version(),
        "libraries": {"numpy": numpy.__version__, "scipy": scipy.__version__,
                      "scikit-learn": sklearn.__version__, "joblib": joblib.__version__},
        "blas": _blas(),
        "hostname": socket.gethostname(),
        "cpu": _cpu(),
        "memory_bytes": _total_memory(),
        "n_jobs": settings.n_jobs if settings.n_jobs is not None else 1,
        "workers": {"grid": jobs.grid, "fit": jobs.fit},
        "backend": jobs.backend,
        "seed": seed,
        "config": str(config_path),
        **git_checkout(),
        "started": now_iso(),
        "ended": None,
        "status": "running",
    }


def _blas() -> list:
    from threadpoolctl import threadpool_info

    return [{key: info.get(key) for key in ("internal_api", "version", "num_threads",
                                              "threading_layer", "architecture")}
            for info in threadpool_info() if info.get("user_api") == "blas"]


def _cpu() -> dict:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"model": model, "logical_cores": os.cpu_count()}


def _total_memory():
    import psutil

    return int(psutil.virtual_memory().total)


def git_checkout(package_dir=PACKAGE_DIR) -> dict:
    """``{git_commit, git_dirty}`` when the package is imported from a git checkout (the
    package folder's parent holds ``.git``), else ``{}``: an installed copy says nothing about
    whatever repository the current folder happens to be in."""
    root = Path(package_dir).parent
    if not (root / ".git").exists():
        return {}
    try:
        commit = _git(root, "rev-parse", "HEAD")
        dirty = bool(_git(root, "status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.SubprocessError):
        return {}
    return {"git_commit": commit or None, "git_dirty": dirty}


def _git(root, *args) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          timeout=10, check=True)
    return done.stdout.strip()
