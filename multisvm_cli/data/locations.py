"""Where things live: the cards, the data home (download and parsed cache), the mirror, and the
URL base for downloads.

Settings, first one set wins:
- data home: the ``data_home`` argument, ``MULTISVM_DATA_HOME``, ``<checkout>/datasets/cache``
  when running from a source checkout (the cards folder is writable and beside pyproject.toml),
  else ``$XDG_CACHE_HOME/multisvm`` (default ``~/.cache/multisvm``);
- mirror: the ``mirror`` argument, ``MULTISVM_MIRROR``, else none. A mirror is a folder with one
  subfolder per dataset holding its canonical files (the layout of ``../shared/datasets``);
- URL base: the ``url_base`` argument, ``MULTISVM_URL_BASE``, else each file's canonical URL.
  With a base, file F of dataset D is downloaded from ``<base>/D/F`` (an HTTP mirror).
- user cards: ``MULTISVM_CARDS`` (the CLI's ``--cards`` sets it), a folder of dataset cards in
  the registry's format that adds datasets beside the registry's (never replacing one).
"""

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]


def cards_dir():
    """The folder of ``*.yaml`` cards: installed package data, or ``<checkout>/datasets``."""
    installed = PACKAGE_DIR / "cards"
    if installed.is_dir():
        return installed
    return PACKAGE_DIR.parent / "datasets"


def data_home(value=None):
    """The download and parsed-data cache folder (see the module docstring); not created here."""
    value = value or os.environ.get("MULTISVM_DATA_HOME")
    if value:
        return Path(value).expanduser()
    cards = cards_dir()
    if cards.name == "datasets" and (cards.parent / "pyproject.toml").is_file() \
            and os.access(cards, os.W_OK):
        return cards / "cache"
    cache_root = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache_root).expanduser() / "multisvm"


def mirror(value=None):
    """The mirror folder, or None when none is set."""
    value = value or os.environ.get("MULTISVM_MIRROR")
    return Path(value).expanduser() if value else None


def url_base(value=None):
    """The download URL base without a trailing slash, or None (use the canonical URLs)."""
    value = value or os.environ.get("MULTISVM_URL_BASE")
    return value.rstrip("/") if value else None


def user_cards():
    """The user cards folder (``MULTISVM_CARDS``), or None when none is set."""
    value = os.environ.get("MULTISVM_CARDS")
    return Path(value).expanduser() if value else None
