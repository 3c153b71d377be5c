"""No import circle in the package, package ``__init__`` files included.

An import of ``a.b.c`` runs ``a/__init__.py`` and ``a/b/__init__.py`` first, so a module that
imports ``a.b.c`` depends on those ``__init__`` files too (those above the importing module
itself have already run, and are left out). Imports inside functions count: a circle closed at
call time is still a circle of ideas.
"""

import ast
from pathlib import Path
from helpers import REPO

PACKAGE = REPO / "multisvm_cli"


def import_graph(package: Path) -> dict[str, set[str]]:
    """Module name -> the package's modules its imports run (a package is its ``__init__``)."""
    files = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {}
    for module, path in files.items():
        here = module if path.name == "__init__.py" else module.rpartition(".")[0]
        above = {module.rsplit(".", depth)[0] for depth in range(module.count(".") + 1)}
        graph[module] = set()
        for name in _imported(ast.parse(path.read_text(encoding="utf-8")), here):
            parts = name.split(".")
            graph[module].update(ancestor for i in range(1, len(parts) + 1)
                                 if (ancestor := ".".join(parts[:i])) in files
                                 and ancestor not in above)
    return graph


def _imported(tree, here):
    """Every dotted name an import of ``tree`` (a module of package ``here``) names."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = here.split(".")[:len(here.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def cycles(graph) -> list[list[str]]:
    """The import circles: groups of two or more modules each reachable from the others."""
    reach = {}
    for start in graph:
        seen, todo = set(), list(graph[start])
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                todo += graph[node]
        reach[start] = seen
    groups = {frozenset(m for m in reach[start] if start in reach[m]) | {start}
              for start in graph if start in reach[start]}
    return sorted(sorted(group) for group in groups if len(group) > 1)


def test_the_package_has_no_import_circle():
    assert cycles(import_graph(PACKAGE)) == []


def _package(root: Path, files: dict) -> Path:
    for name, text in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "pkg"


def test_a_circle_through_an_init_file_is_found(tmp_path):
    """``a`` imports ``sub.b`` (which imports nothing), but that runs ``sub/__init__``, which
    imports ``c``, which imports ``a`` inside a function: a circle through the ``__init__``."""
    files = {"__init__.py": "", "a.py": "from .sub.b import y\n",
             "sub/__init__.py": "from .c import z\n", "sub/b.py": "y = 1\n",
             "sub/c.py": "def z():\n    from ..a import y\n"}
    assert cycles(import_graph(_package(tmp_path / "one", files))) == [
        ["pkg.a", "pkg.sub", "pkg.sub.c"]]
    files["sub/c.py"] = "def z():\n    from .b import y\n"  # the circle broken
    assert cycles(import_graph(_package(tmp_path / "two", files))) == []
