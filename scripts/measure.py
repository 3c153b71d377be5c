"""Measure what getting-started states as figures, so that each comes from a real run.

``python scripts/measure.py install``: the size on disk of multisvm and the packages it needs
(its ``dependencies``, followed recursively, no extras) as installed in the virtual environment
that runs this script, and how many packages that is. ``python scripts/measure.py quickstart``:
the wall time of ``multisvm reproduce-table quickstart`` run from the current folder, into a
fresh results folder, on this machine's cores. scripts/readme_outputs.py runs both and pastes
what they print into docs/getting-started.md.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from importlib import metadata

ROOT = "multisvm"  # the distribution measured with everything it needs


def _name(requirement) -> str | None:
    """The distribution a requirement line names, or None when it only holds under an extra."""
    if "extra ==" in requirement.replace('"', "'").replace("'", ""):
        return None
    return re.match(r"[A-Za-z0-9._-]+", requirement).group(0)


def needed(root=ROOT) -> dict:
    """normalised name -> distribution, for ``root`` and every distribution it needs
    (extras left out; a requirement whose marker does not hold here is not installed: skipped)."""
    found, todo = {}, [root]
    while todo:
        try:
            dist = metadata.distribution(todo.pop())
        except metadata.PackageNotFoundError:
            continue
        key = re.sub(r"[-_.]+", "-", dist.metadata["Name"]).lower()
        if key in found:
            continue
        found[key] = dist
        todo += [name for name in map(_name, dist.requires or []) if name]
    return found


def install() -> str:
    """The line stating the size of multisvm and its dependencies in this environment."""
    dists = needed()
    size = sum(os.path.getsize(path) for dist in dists.values() for file in dist.files or []
               if os.path.isfile(path := dist.locate_file(file)))
    return (f"multisvm and the {len(dists) - 1} packages it needs: {size / 1e6:.0f} MB "
            f"on disk (the files their RECORDs list, in the environment of this run)")


def quickstart() -> str:
    """The line stating how long the quickstart took, start to end, with its figures."""
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "multisvm_cli", "reproduce-table", "quickstart",
                        "--quiet", "--out", out], check=True, capture_output=True)
        wall = time.perf_counter() - start
    return f"multisvm reproduce-table quickstart: {wall:.1f} s wall on {os.cpu_count()} cores"


if __name__ == "__main__":
    print({"install": install, "quickstart": quickstart}[sys.argv[1]]())
