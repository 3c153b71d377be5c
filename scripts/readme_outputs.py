"""Regenerate the README's example outputs from real runs.

Each output in README.md sits between marker comments::

    <!-- output: NAME -->
    ```
    $ multisvm ...
    ...what it printed...
    ```
    <!-- /output -->

and :data:`OUTPUTS` says how NAME is made: the command, and how many of its last lines are
shown. ``python scripts/readme_outputs.py`` reruns every command in a fresh folder (models and
results land there) and rewrites the blocks; ``--check`` only compares (times and run-folder
timestamps masked) and exits 1 on a difference; ``--quick`` limits either to the quick outputs,
which tests/test_readme_outputs.py checks on every test run.

Run it from a checkout with the dataset mirror set (``MULTISVM_MIRROR``), as the tests are.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
WIDTH = "120"  # the terminal width the outputs are made at (COLUMNS)

# name: (command after "multisvm", lines shown from the end or None for all, quick?)
OUTPUTS = {
    "configs": (["configs"], None, True),
    "validate": (["validate", "quickstart"], 5, True),
    "train": (["train", "quickstart", "--scheme", "dag", "--dataset", "wine", "-o",
               "models/wine-dag"], None, True),
    "evaluate": (["evaluate", "models/wine-dag", "--confusion"], None, True),
    "quickstart": (["reproduce-table", "quickstart"], None, False),
}
BLOCK = re.compile(r"(<!-- output: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /output -->)",
                   re.S)
MASKS = [  # what changes from run to run: times and run folders
    (re.compile(r"\d{8}-\d{6}(-\d+)?"), "<timestamp>"),
    (re.compile(r"\d+\.\d+ s\b"), "<t> s"),
    (re.compile(r"\(\d+\.\d+ us/point\)"), "(<t> us/point)"),
]


def shown_command(name) -> str:
    args, tail, _ = OUTPUTS[name]
    return "$ multisvm " + " ".join(args) + (f" | tail -{tail}" if tail else "")


def run_output(name, folder) -> str:
    """The block's body for ``name``: its command run in ``folder``, as the README shows it."""
    args, tail, _ = OUTPUTS[name]
    env = {**os.environ, "COLUMNS": WIDTH, "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, "-m", "multisvm_cli", *args], cwd=folder, env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{shown_command(name)} failed:\n{done.stderr}")
    lines = done.stdout.rstrip("\n").splitlines()
    lines = lines[-tail:] if tail else lines
    text = "\n".join(line.rstrip() for line in lines)
    return f"```\n{shown_command(name)}\n{_short_paths(text)}\n```\n"


SHIPPED_PATH = re.compile(r"(?:[^\s'\"]*[/\\])?configs[/\\](?=[A-Za-z0-9._-]+\.yaml)")


def _short_paths(text) -> str:
    """Shipped configs named as configs/<name>.yaml, wherever multisvm is installed (a checkout's
    configs/ or an installed package's multisvm_cli/configs/)."""
    return SHIPPED_PATH.sub("configs/", text)


def blocks(text) -> dict:
    """README's output blocks: name -> body."""
    return {m.group("name"): m.group("body") for m in BLOCK.finditer(text)}


def mask(text) -> str:
    for pattern, replacement in MASKS:
        text = pattern.sub(replacement, text)
    return text


def fresh_outputs(names) -> dict:
    """Each name's block body, made by running its command (in order: train before evaluate)
    in one fresh folder."""
    with tempfile.TemporaryDirectory() as folder:
        return {name: run_output(name, folder) for name in names}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 on a diff")
    parser.add_argument("--quick", action="store_true", help="only the quick outputs")
    options = parser.parse_args(argv)
    text = README.read_text(encoding="utf-8")
    names = [n for n in OUTPUTS if n in blocks(text) and (OUTPUTS[n][2] or not options.quick)]
    fresh = fresh_outputs(names)
    if options.check:
        stale = [n for n in names if mask(fresh[n]) != mask(blocks(text)[n])]
        for name in stale:
            print(f"README output {name!r} differs from `{shown_command(name)}`")
        return 1 if stale else 0
    new = BLOCK.sub(lambda m: m.group(1) + fresh.get(m.group("name"), m.group("body"))
                    + m.group(4), text)
    README.write_text(new, encoding="utf-8")
    print(f"rewrote {len(names)} outputs in {README}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
