"""The configs shipped with multisvm (the top-level ``configs/`` folder, installed as package
data ``multisvm_cli.configs``): named without a path, from any folder."""

from __future__ import annotations

from pathlib import Path

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
    or without ``.yaml``); otherwise the path as given (loading it says it does not exist)."""
    path = Path(given)
    if path.exists() or path.parent != Path("."):
        return path
    return shipped_configs().get(path.name.removesuffix(".yaml"), path)


def describe(path) -> str:
    """A shipped config's first comment line (what it runs), without the ``#``."""
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            return line.lstrip("# ").strip()
    return ""
