"""Run folders, atomic writes and the resume cache.

Layout under the results root (``--out``, default ``results/``)::

    results/<config-name>/
        cache/<sha256>.json        one small file per finished grid point (the resume cache)
        <timestamp>/               one folder per run, never overwritten (``-2``, ``-3`` suffixes)
            config.yaml            the resolved config
            grid.csv               every grid point: validation error, times (long format)
            table.csv, table.md    the Table-1 report
            results.json           everything the report is made from
            run.json               versions, BLAS, CPU, n_jobs, seed, git commit, start/end, status

Every file is written to a temporary name in the same folder and renamed with ``os.replace``, so
an interrupted run never leaves a half-written file.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from . import __version__


def atomic_write(path, text: str) -> Path:
    """Write ``text`` to ``path`` through a temporary file and ``os.replace``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_json(path, obj) -> Path:
    """Atomically write ``obj`` as indented JSON."""
    return atomic_write(path, json.dumps(obj, indent=2, sort_keys=False, default=_jsonable) + "\n")


def _jsonable(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def new_run_dir(root, config_name: str, now=None) -> Path:
    """Create ``root/<config_name>/<timestamp>/``; a suffix keeps an existing folder intact."""
    base = Path(root) / config_name
    base.mkdir(parents=True, exist_ok=True)
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    for attempt in range(1, 1000):
        folder = base / (stamp if attempt == 1 else f"{stamp}-{attempt}")
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            continue
    raise FileExistsError(f"cannot create a new run folder under {base}")


class PointCache:
    """The resume cache: one JSON file per finished grid point under ``folder``.

    The key of a point is a dict (dataset checksum, split, fold, scaling, validation, kernel, C,
    scheme, scheme options, seed); its file name is the SHA-256 of its canonical JSON, and the
    file holds the key next to the result so a hash collision or a stale file is detected.
    With ``force=True`` every lookup misses (the points are redone and overwritten).
    """

    def __init__(self, folder, force=False):
        self.folder = Path(folder)
        self.force = force

    @staticmethod
    def digest(key: dict) -> str:
        """The SHA-256 of the key's canonical JSON."""
        text = json.dumps(key, sort_keys=True, default=_jsonable)
        return hashlib.sha256(text.encode()).hexdigest()

    def path(self, key: dict) -> Path:
        return self.folder / f"{self.digest(key)}.json"

    def get(self, key: dict):
        """The cached result of ``key``, or None (also for an unreadable or mismatched file)."""
        if self.force:
            return None
        try:
            stored = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if stored.get("key") != json.loads(json.dumps(key, default=_jsonable)):
            return None
        return stored.get("result")

    def put(self, key: dict, result: dict) -> None:
        """Store a finished point at once (atomically), so a killed run keeps it."""
        write_json(self.path(key), {"key": key, "result": result})


def run_metadata(n_jobs, seed, backend, started, config_path) -> dict:
    """What run.json records about the software, the machine and the run's settings."""
    import joblib
    import numpy
    import scipy
    import sklearn

    return {
        "multisvm": __version__,
        "python": platform.python_version(),
        "libraries": {"numpy": numpy.__version__, "scipy": scipy.__version__,
                      "scikit-learn": sklearn.__version__, "joblib": joblib.__version__},
        "blas": _blas(),
        "cpu": _cpu(),
        "n_jobs": n_jobs,
        "backend": backend,
        "seed": seed,
        "config": str(config_path),
        "git_commit": _git_commit(),
        "started": started,
        "ended": None,
        "status": "running",
    }


def now_iso() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def _blas() -> list:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return []
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


def _git_commit():
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                             cwd=Path(__file__).resolve().parent, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


class Stopwatch:
    """Wall-clock seconds since creation."""

    def __init__(self):
        self.start = time.perf_counter()

    @property
    def wall(self) -> float:
        return time.perf_counter() - self.start


GRID_COLUMNS = ["dataset", "fold", "scheme", "kernel", "kernel_type", "C", "sigma", "degree", "homogeneous",
                "validation_error", "n_errors", "n_validation", "fit_cpu", "fit_wall",
                "predict_wall", "cached", "notes"]


def reproduce(config, out_root, *, n_jobs=1, fit_jobs=None, force=False, quiet=False,
              backend=None, mirror=None, data_home=None):
    """Run a config's protocol in a new run folder and write every output file there.

    Returns (run folder, report rows). run.json says ``running`` while it runs, then ``done``,
    ``failed`` or ``interrupted``; every other file appears only once it is complete.
    """
    import yaml
    from tqdm import tqdm

    from .protocol import run_protocol
    from .report import table_rows

    folder = new_run_dir(out_root, config.name)
    atomic_write(folder / "config.yaml", yaml.safe_dump(config.resolved, sort_keys=False))
    meta = run_metadata(n_jobs, config.seed, backend, now_iso(), config.path)
    write_json(folder / "run.json", meta)
    cache = PointCache(Path(out_root) / config.name / "cache", force=force)
    watch = Stopwatch()

    def progress(total):
        return tqdm(total=total, disable=quiet, file=sys.stderr, unit="point",
                    desc=f"{config.name}: grid points")

    try:
        results, grid_rows, checksums = run_protocol(config, cache, n_jobs=n_jobs,
                                                     progress=progress, mirror=mirror,
                                                     data_home=data_home, quiet=quiet,
                                                     fit_jobs=fit_jobs)
        rows = table_rows(results, config.reference, config.compare_to)
        write_outputs(folder, config, results, grid_rows, rows, checksums)
    except BaseException as exc:
        meta.update(ended=now_iso(), status="interrupted" if isinstance(
            exc, KeyboardInterrupt) else "failed", error=" ".join(str(exc).split()))
        write_json(folder / "run.json", meta)
        raise
    cached = sum(r["cached"] for r in grid_rows)
    meta.update(ended=now_iso(), status="done", wall_seconds=round(watch.wall, 3),
                grid_points={"total": len(grid_rows), "cached": cached,
                             "computed": len(grid_rows) - cached})
    write_json(folder / "run.json", meta)
    return folder, rows


def write_outputs(folder, config, results, grid_rows, rows, checksums):
    """grid.csv, table.csv, table.md and results.json, each written atomically."""
    import pandas as pd

    from .report import render

    grid = pd.DataFrame(grid_rows).reindex(columns=GRID_COLUMNS)
    atomic_write(folder / "grid.csv", grid.to_csv(index=False))
    source = config.reference.get("source")
    atomic_write(folder / "table.csv", render(rows, "csv"))
    atomic_write(folder / "table.md", render(rows, "markdown", source, config.compare_to) + "\n")
    public = [{k: v for k, v in r.items() if k not in ("correct",)} for r in results]
    write_json(folder / "results.json", {"config": config.name, "checksums": checksums,
                                         "compare_to": config.compare_to,
                                         "results": public, "table": rows})
