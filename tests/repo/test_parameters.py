"""Functions take few parameters: what travels together is a named object (the protocol's
``Search``, ``Stores``, ``Shared``; predict's ``PointsFile``), not a long positional list.  A
class's ``__init__`` is left aside: scikit-learn's constructor signatures rule there."""

import ast

from helpers import REPO

PACKAGE = REPO / "multisvm_cli"
MOST = 8


def parameter_count(node) -> int:
    """The parameters of a function, ``self``/``cls`` and ``*args``/``**kwargs`` as one each."""
    args = node.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    if names and names[0] in ("self", "cls"):
        names = names[1:]
    return len(names) + (args.vararg is not None) + (args.kwarg is not None)


def test_no_function_takes_more_than_eight_parameters():
    long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and node.name != "__init__" and parameter_count(node) > MOST):
                long.append(f"{where}:{node.lineno} {node.name}")
    assert long == []
