"""docs/explanation/architecture.md against the package: its folder list names each folder of the
package once (none missing, none extra; files are not listed, so a plug-in file needs no docs
edit), every import between the package's parts goes down its layer table, each declaration
table it maps is a non-empty table of its row type, every step of its data flow names a
function that exists and that an earlier step calls, and its table of the schemes' own options
is the estimators' signatures."""

import ast
import importlib
import inspect
import re
from collections.abc import Collection, Mapping
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


def table_entries() -> list[tuple[str, str, str]]:
    """(``path:NAME``, row type, what a row holds) of each entry of the tables block: an entry's
    first line starts at the margin, its description goes on over the indented lines after it."""
    entries = []
    for line in _block("tables"):
        if line[:1].strip():
            ref, row_type = line.split()
            entries.append([ref, row_type, ""])
        elif line.strip():
            entries[-1][2] = f"{entries[-1][2]} {line.strip()}".strip()
    return [tuple(entry) for entry in entries]


def _module(path):
    """The package's module of the file ``path`` (a Path under the package)."""
    parts = path.relative_to(REPO).with_suffix("").parts
    return importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))


def rows(table) -> list:
    """A table's rows: a mapping's values, a collection's items (None for anything else)."""
    if isinstance(table, Mapping):
        return list(table.values())
    if isinstance(table, Collection) and not isinstance(table, str):
        return list(table)
    return None


def tables(ref) -> list:
    """The tables ``path:NAME`` names: NAME's attributes from the module at ``path`` (every
    module a ``*`` path matches that has the first), ``[]`` after a name going on from each of
    its rows (``REGISTRY[].estimator._option_constraints``: each scheme's)."""
    path, _, name = ref.partition(":")
    found = [_module(p) for p in sorted(PACKAGE.glob(path))]
    for i, part in enumerate(name.split(".")):
        attribute = part.removesuffix("[]")
        found = [getattr(v, attribute) for v in found if i or hasattr(v, attribute)]
        if part.endswith("[]"):
            found = [row for table in found for row in rows(table) or ()]
    return found


def is_a(row, row_type) -> bool:
    """Whether ``row`` is an instance of a class named ``row_type``."""
    return row_type in {cls.__name__ for cls in type(row).__mro__}


def table_problems() -> list[str]:
    """What is wrong with the tables block: an entry naming no table, an empty table or one
    whose rows are not of its type, an entry without its description."""
    problems = []
    for ref, row_type, what in table_entries():
        found = tables(ref)
        if not found or not what:
            problems.append(f"{ref}: " + ("names no table" if not found else "says nothing"))
        for table in found:
            if not rows(table):
                problems.append(f"{ref}: not a non-empty table: {table!r:.60}")
            elif not all(is_a(row, row_type) for row in rows(table)):
                problems.append(f"{ref}: a row is not a {row_type}")
    return problems


def test_the_declaration_tables_are_tables_of_their_row_types():
    names = {ref.partition(":")[2] for ref, _, _ in table_entries()}
    assert {"REGISTRY", "KEYS", "COLUMNS", "FIGURES", "FORMATS"} <= names
    assert not table_problems()
    assert len(tables("estimators/registry.py:REGISTRY[].estimator._option_constraints")) >= 13
    assert len(tables("data/formats/*.py:OPTIONS")) >= 2


STEP = re.compile(r"^\s*\|\s+(\S+\.py:\w+)", re.M)
NAMED = re.compile(r"(?<![\w./])((?:\w+/)*\w+\.py)(?::(\w+))?")
FOLDER = re.compile(r"(?<![\w./])((?:\w+/)+)(?![\w.])")


def flow_steps() -> list[str]:
    """The flow's steps in order: the ``path:function`` that begins each ``|`` line."""
    return STEP.findall("\n".join(_block("flow")))


def called(path) -> set[str]:
    """The names the module at ``path`` (in the package) calls: ``f(...)`` and ``x.f(...)``."""
    tree = ast.parse((PACKAGE / path).read_text(encoding="utf-8"))
    return {getattr(node.func, "id", getattr(node.func, "attr", None))
            for node in ast.walk(tree) if isinstance(node, ast.Call)}


def flow_problems() -> list[str]:
    """What is wrong with the flow: a module, folder or ``module:name`` it names that the
    package lacks, or a step that no earlier step's module calls."""
    text = "\n".join(_block("flow"))
    problems = [f"no folder {folder}" for folder in FOLDER.findall(text)
                if not (PACKAGE / folder).is_dir()]
    for path, name in NAMED.findall(text):
        if not (PACKAGE / path).is_file():
            problems.append(f"no module {path}")
        elif name and not hasattr(_module(PACKAGE / path), name):
            problems.append(f"{path} has no {name}")
    steps = flow_steps()
    for i, step in enumerate(steps[1:], 1):
        path, _, name = step.partition(":")
        exists = (PACKAGE / path).is_file() and hasattr(_module(PACKAGE / path), name)
        if exists and not any(name in called(p.partition(":")[0]) for p in steps[:i]):
            problems.append(f"{step}: called by no earlier step")
    return problems


def test_every_step_of_the_flow_exists_and_an_earlier_step_calls_it():
    steps = flow_steps()
    assert len(steps) >= 15 and steps[0] == "cli/main.py:reproduce_table"
    assert {"experiment/run/reproduce.py:reproduce", "report/html.py:write_report"} <= set(steps)
    assert not flow_problems()


def scheme_option_rows() -> dict:
    """{scheme: its own options as the engine contract's table writes them}."""
    after = DOC.split("<!-- scheme-options -->", 1)[1].split("\n\n", 1)[0]
    cells = [line.split("|")[1:3] for line in after.strip().splitlines()[2:]]
    return {scheme.strip(" `"): re.findall(r"`(\w+=[^`]+)`", own) for scheme, own in cells}


def test_the_engine_contract_lists_each_schemes_own_options_and_defaults():
    from multisvm_cli.estimators.registry import REGISTRY

    expected = {}
    for name, scheme in REGISTRY.items():
        parameters = inspect.signature(scheme.estimator).parameters
        expected[name] = [f"{option}={parameters[option].default!r}"
                          for option in scheme.estimator._own_options()]
    assert scheme_option_rows() == expected


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


def test_the_map_checks_fail_on_a_wrong_doc():
    """The tables check sees a table that is not there, a wrong row type and a name that is no
    table; the flow check a missing module, a missing function, an absent folder and a step
    nothing before it calls; the options check a default that is not the signature's."""
    global DOC
    original = DOC
    wrong = {"report/columns.py:COLUMNS  Column": "report/columns.py:COLUMNZ  Column",
             "report/figures/base.py:FIGURES  FigureKind": "report/figures/base.py:FIGURES  Key",
             "data/formats/*.py:OPTIONS  Option": "data/formats/*.py:LAST  Option",
             "report/html.py:write_report": "report/page.py:write_report",
             "experiment/splits.py:scaled_folds": "experiment/splits.py:scaled_fold",
             "data/formats/)": "data/format/)",
             "  |  report/table.py:table_rows": "  |  report/table.py:_csv_value",
             "`holdout=0.3`, `class_weight=None` |\n| `graph`":
                 "`holdout=0.2`, `class_weight=None` |\n| `graph`"}
    try:
        for old, new in wrong.items():
            assert original.count(old) == 1, old
            DOC = original.replace(old, new)
            problems = table_problems() + flow_problems()
            if "holdout" in old:
                assert not problems and scheme_option_rows()["udt"] == ["holdout=0.2",
                                                                        "class_weight=None"]
            else:
                assert len(problems) == 1, (old, problems)
    finally:
        DOC = original
