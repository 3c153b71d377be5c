"""docs/explanation/architecture.md against the package: its folder list names each folder of the
package once (none missing, none extra; files are not listed, so a plug-in file needs no docs
edit), and every import between the package's parts goes down its layer table."""

import ast
import re
from helpers import REPO

PACKAGE = REPO / "multisvm_cli"
DOC = (REPO / "docs" / "explanation" / "architecture.md").read_text()


def _block(marker) -> list[str]:
    """The lines of the fenced block right after ``<!-- marker -->`` in the doc."""
    after = DOC.split(f"<!-- {marker} -->", 1)[1]
    return after.split("```", 2)[1].splitlines()[1:]


def documented_folders() -> list[str]:
    """Folder paths of the folder list, relative to the package ("" for the package itself), in
    the doc's order: two spaces of indent a level, a folder's name (ending in ``/``) before two
    spaces and its description; every line names one folder."""
    folders, path = [], []
    for line in _block("folders"):
        if not line.strip():
            continue
        text = line.lstrip()
        level = (len(line) - len(text)) // 2
        name = re.split(r"\s{2,}", text)[0]
        assert name.endswith("/") and len(line) - len(text) == 2 * level, f"not a folder: {line}"
        path = path[:level] + [name[:-1]]
        folders.append("/".join(path[1:]))
    return folders


def package_folders() -> set[str]:
    """Every folder of the package that holds a module, relative to it."""
    folders = {p.parent.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")}
    return {"" if folder == "." else folder for folder in folders}


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


def test_the_folder_list_names_every_folder_once_and_only_those():
    documented = documented_folders()
    assert len(documented) == len(set(documented)), f"named twice: {documented}"
    actual = package_folders()
    assert len(actual) >= 15
    missing, extra = sorted(actual - set(documented)), sorted(set(documented) - actual)
    assert not missing, f"folders the doc leaves out: {missing}"
    assert not extra, f"the doc names absent folders: {extra}"


def test_the_layers_name_each_top_folder_once_and_nothing_else():
    parts = [p.rstrip("/").removesuffix(".py") for line in _block("layers") if line.strip()
             for p in line.split(":", 1)[1].split()]
    assert len(parts) == len(set(parts)), f"a part in two layers: {parts}"
    for part in parts:
        assert (PACKAGE / part).is_dir() or (PACKAGE / f"{part}.py").is_file(), part
    tops = {folder for folder in package_folders() if folder and "/" not in folder}
    assert tops <= set(parts), f"folders in no layer: {sorted(tops - set(parts))}"


def test_every_import_goes_down_the_layers():
    level = layers()
    assert set(level) >= {part_of(m) for m, _ in imports()} - {"__init__", "__main__"}
    upward = sorted({(a, b) for a, b in imports()
                     if part_of(b) != "__init__" and part_of(a) in level
                     and level[part_of(b)] < level[part_of(a)]})
    assert not upward, f"imports reaching up a layer: {upward}"


def test_the_checks_fail_on_a_wrong_doc():
    """The folder parser sees a folder dropped from the doc, one named twice and one the package
    lacks, and the layer check an upward import (base above cli)."""
    global DOC
    original = DOC
    try:
        line = next(l for l in original.splitlines() if l.startswith("    joint/"))
        DOC = original.replace(line + "\n", "", 1)
        assert "estimators/joint" in package_folders() - set(documented_folders())
        DOC = original.replace(line, line + "\n" + line, 1)
        assert documented_folders().count("estimators/joint") == 2
        DOC = original.replace(line, line.replace("joint/", "jointly/"), 1)
        assert "estimators/jointly" in set(documented_folders()) - package_folders()
        DOC = original.replace("<!-- layers -->\n```\n", "<!-- layers -->\n```\nbase: base/\n",
                               1)
        level = layers()
        assert level["base"] < level["cli"]
        assert any(level[part_of(b)] < level[part_of(a)] for a, b in imports()
                   if part_of(a) in level and part_of(b) in level)
    finally:
        DOC = original
