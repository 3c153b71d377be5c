"""docs/explanation/architecture.md against the package: its module tree lists exactly the
package's modules, and every import between the package's parts goes down its layer table."""

import ast
import re
from helpers import REPO

PACKAGE = REPO / "multisvm_cli"
DOC = (REPO / "docs" / "explanation" / "architecture.md").read_text()


def _block(marker) -> list[str]:
    """The lines of the fenced block right after ``<!-- marker -->`` in the doc."""
    after = DOC.split(f"<!-- {marker} -->", 1)[1]
    return after.split("```", 2)[1].splitlines()[1:]


def documented_modules() -> set[str]:
    """Module paths of the tree block: two spaces of indent a level; a line's names (before
    two spaces) are comma-separated, ``name/`` a package (its ``__init__.py`` included)."""
    paths, folders = set(), []
    for line in _block("module tree"):
        if not line.strip() or line.strip() == "multisvm_cli/":
            continue
        text = line.lstrip()
        indent = len(line) - len(text)
        if indent % 2 or not indent:  # a description's continuation line
            continue
        names = re.split(r"\s{2,}", text)[0]
        folders = folders[:indent // 2 - 1]
        for name in (n.strip() for n in names.split(",")):
            if name.endswith("/"):
                folders.append(name[:-1])
                paths.add("/".join(folders + ["__init__.py"]))
            elif name.endswith(".py"):
                paths.add("/".join(folders + [name]))
    return paths


def layers() -> dict[str, int]:
    """Each part of the package (a top-level module or subpackage) -> its layer (0 = top)."""
    found = {}
    for level, line in enumerate(l for l in _block("layers") if l.strip()):
        for part in line.split(":", 1)[1].split():
            found.setdefault(part.rstrip("/").removesuffix(".py"), level)
    return found


def part_of(module: str) -> str:
    """``multisvm_cli.report.figures.cd`` -> ``report``; ``multisvm_cli`` -> ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imports():
    """(importing module, imported module) for every import of the package by itself."""
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(REPO).with_suffix("")
        module = ".".join(rel.parts)
        package = module.removesuffix(".__init__") if path.name == "__init__.py" \
            else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                targets = ([".".join(base + [node.module])] if node.module
                           else [".".join(base + [a.name]) for a in node.names])
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [node.module] if isinstance(node, ast.ImportFrom) else \
                    [a.name for a in node.names]
                targets = [n for n in names if n and n.split(".")[0] == "multisvm_cli"]
            else:
                continue
            for target in targets:
                yield module, _module_of(target)


def _module_of(name: str) -> str:
    """``name`` if it is a module or package of the repository, else the module it lives in
    (``multisvm_cli.__version__`` -> ``multisvm_cli``)."""
    path = REPO.joinpath(*name.split("."))
    if path.is_dir() or path.with_suffix(".py").is_file():
        return name
    return name.rpartition(".")[0]


def test_the_module_tree_lists_every_module_and_only_those():
    actual = {str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")}
    documented = documented_modules()
    assert not actual - documented, f"modules the doc leaves out: {sorted(actual - documented)}"
    assert not documented - actual, f"the doc names absent modules: {sorted(documented - actual)}"


def test_every_import_goes_down_the_layers():
    level = layers()
    assert set(level) >= {part_of(m) for m, _ in imports()} - {"__init__", "__main__"}
    upward = sorted({(a, b) for a, b in imports()
                     if part_of(b) != "__init__" and part_of(a) in level
                     and level[part_of(b)] < level[part_of(a)]})
    assert not upward, f"imports reaching up a layer: {upward}"


def test_the_checks_fail_on_a_wrong_doc(monkeypatch):
    """The tree parser sees a module dropped from the doc, and the layer check an upward
    import (base above cli)."""
    global DOC
    original = DOC
    try:
        DOC = original.replace("  kernels.py", "  kernelz.py", 1)
        assert "kernels.py" not in documented_modules()
        DOC = original.replace("<!-- layers -->\n```\n", "<!-- layers -->\n```\nbase: base/\n", 1)
        level = layers()
        assert level["base"] < level["cli"]
        assert any(level[part_of(b)] < level[part_of(a)] for a, b in imports()
                   if part_of(a) in level and part_of(b) in level)
    finally:
        DOC = original
