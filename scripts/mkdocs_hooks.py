"""mkdocs hooks of the documentation site (mkdocs.yml ``hooks:``).

``on_files``: the reference pages of ``scripts/gen_docs.py`` are generated from the code at every
build (never stored in docs/). Every other page is a file under docs/ named in the nav; a nav
entry whose file is missing fails the strict build.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from mkdocs.structure.files import File

SCRIPTS = Path(__file__).resolve().parent


def _gen_docs():
    spec = importlib.util.spec_from_file_location("gen_docs", SCRIPTS / "gen_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def on_files(files, config):
    for path, text in _gen_docs().pages().items():
        files.append(File.generated(config, path, content=text))
    return files
