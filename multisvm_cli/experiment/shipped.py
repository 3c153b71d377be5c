"""The configs shipped with multisvm (the top-level ``configs/`` folder, installed as package
data ``multisvm_cli.configs``): named without a path, from any folder.

A name is looked up in the current folder's ``configs/`` first (a checkout's, where edits take
effect even after ``pip install .``), then in the installed copy; when the current folder's copy
is not the installed file a note on stderr says which file runs (run.json's ``config`` names it).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from ..base.readers import read_text
from .config.document import MAX_CONFIG_BYTES, ConfigError
from .config.checks import did_you_mean

PACKAGE_DIR = Path(__file__).resolve().parents[1]


def configs_dir() -> Path:
    """The shipped configs' folder: installed package data, or ``<checkout>/configs``."""
    installed = PACKAGE_DIR / "configs"
    return installed if installed.is_dir() else PACKAGE_DIR.parent / "configs"


def shipped_configs() -> dict:
    """Shipped config name (the file's stem) -> path, sorted by name."""
    paths = {path.stem: path for path in configs_dir().glob("*.yaml")}
    return dict(sorted(paths.items()))


def config_path(given) -> Path:
    """The file ``given`` names: an existing path as it is, else a shipped config's name (with
    or without ``.yaml``); otherwise the path as given (loading it says it does not exist). A
    bare name that is neither is refused with the closest shipped name."""
    path = Path(given)
    if path.exists() or path.parent != Path("."):
        return path
    name = path.name.removesuffix(".yaml")
    shipped = shipped_configs()
    local = Path("configs") / f"{name}.yaml"
    if local.is_file():
        if name not in shipped or local.resolve() != shipped[name].resolve():
            print(f"note: {name}: running {local} (the current folder's configs/), not the "
                  "installed copy", file=sys.stderr, flush=True)
        return local.resolve()  # run.json records the file that ran
    if name in shipped:
        return shipped[name]
    hint = did_you_mean(name, shipped)
    if hint or path.suffix != ".yaml":
        raise ConfigError(f"{given}: no such config file, and no shipped config of that name"
                          f"{hint}; 'multisvm configs' lists them")
    return path


# a sentence ends at '.' before a capital (or the end), not after "et al" or "e.g"
SENTENCE_END = re.compile(r"(?<!\bal)(?<!e\.g)(?<!i\.e)\.(?=\s+[A-Z]|\s*$)")


def describe(path) -> str:
    """A shipped config's first sentence (what it runs), from its leading comment paragraph."""
    words = []
    text = read_text(path, MAX_CONFIG_BYTES, ConfigError, "config file")
    for line in text.splitlines():
        text = line.lstrip("#").strip()
        if not line.startswith("#") or not text:
            if words:
                break
            continue
        words.append(text)
    paragraph = " ".join(words)
    end = SENTENCE_END.search(paragraph)
    return paragraph[:end.end()] if end else paragraph


def measured_time(path) -> str:
    """How long a config's last measured run took, from its ``measured`` key ("1 min 20 s", with
    "(N cores)" after it unless it ran on 2; checked when the config loads), or "-" when it has
    none: never a guess."""
    import yaml

    data = yaml.safe_load(read_text(path, MAX_CONFIG_BYTES, ConfigError, "config file"))
    measured = data.get("measured") if isinstance(data, dict) else None
    if not isinstance(measured, dict) or "seconds" not in measured:
        return "-"
    seconds = int(measured["seconds"] + 0.5)  # half up: 24.5 s shows as 25 s
    hours, minutes, rest = seconds // 3600, seconds // 60 % 60, seconds % 60
    shown = (f"{hours} h {minutes} min" if hours else
             f"{minutes} min {rest} s" if minutes else f"{rest} s")
    cores = measured.get("cores", 2)
    return shown if cores == 2 else f"{shown} ({cores} cores)"
