"""mkdocs hooks of the documentation site (mkdocs.yml ``hooks:``).

- ``on_config``: the nav entries naming a page of ``extra.optional_pages`` whose file is absent
  are dropped (pages other work adds; a missing page that is not listed there stays an error);
- ``on_files``: the reference pages of ``scripts/gen_docs.py`` are generated from the code at
  every build (never stored in docs/).
"""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path

from mkdocs.structure.files import File

log = logging.getLogger("mkdocs.hooks.multisvm")
SCRIPTS = Path(__file__).resolve().parent


def _gen_docs():
    spec = importlib.util.spec_from_file_location("gen_docs", SCRIPTS / "gen_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _prune(nav, missing):
    """``nav`` without the entries naming a page in ``missing`` (and sections left empty)."""
    kept = []
    for entry in nav:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        if isinstance(value, list):
            value = _prune(value, missing)
            if value:
                kept.append({next(iter(entry)): value})
        elif value not in missing:
            kept.append(entry)
    return kept


def on_config(config):
    docs = Path(config["docs_dir"])
    optional = config["extra"].get("optional_pages", [])
    missing = {page for page in optional if not (docs / page).is_file()}
    if missing:
        log.info("optional pages not present, left out of the nav: %s", ", ".join(sorted(missing)))
        config["nav"] = _prune(config["nav"], missing)
    return config


def on_files(files, config):
    for path, text in _gen_docs().pages().items():
        files.append(File.generated(config, path, content=text))
    return files
