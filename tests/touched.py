"""Which of a package's modules ran code in this process: the quick tier's check that it
touches every module (see quick_tier.py).

A module is *touched* when one of its functions or methods ran (a call seen by
``sys.setprofile``; a module body, a class body or a comprehension run at import does not
count), or one of its compiled functions (numba's, which the profiler does not see) was
compiled or loaded for a call, or, for a module that defines no function at all (a table of constants, a package
``__init__`` that only imports), when it was imported. Code run in a child process (a real
``multisvm`` process, a process pool's workers) is not seen.
"""

from __future__ import annotations

import ast
import os
import sys
import threading
from pathlib import Path

_NEW_LOCALS = 0x2  # inspect.CO_NEWLOCALS: a function's or a comprehension's code, never a body
_AT_IMPORT = frozenset({"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>"})


class Touched:
    """Records the files whose functions ran, from :meth:`start` to :meth:`stop`, in every
    thread started meanwhile; :meth:`stop` puts back the profilers that were there before."""

    def __init__(self):
        self.files: set[str] = set()
        self._before = (None, None)

    def start(self):
        files = self.files

        def profile(frame, event, _arg):  # a closure: the fewest steps on every call
            if event == "call":
                code = frame.f_code
                if code.co_flags & _NEW_LOCALS and code.co_name not in _AT_IMPORT:
                    files.add(code.co_filename)

        self._before = (sys.getprofile(), threading.getprofile())
        sys.setprofile(profile)
        threading.setprofile(profile)

    def stop(self):
        sys.setprofile(self._before[0])
        threading.setprofile(self._before[1])

    def untouched(self, package: Path) -> list[str]:
        """The modules under the ``package`` folder that no code touched, sorted by name."""
        ran = {os.path.realpath(file) for file in self.files}
        imported = {os.path.realpath(module.__file__): module
                    for module in list(sys.modules.values()) if getattr(module, "__file__", None)}
        return sorted(name for name, path in modules(package)
                      if not (path in ran or _compiled_for_a_call(imported.get(path))
                              or (path in imported and not _defines_functions(path))))


def _compiled_for_a_call(module) -> bool:
    """Whether one of ``module``'s own numba functions has a compiled signature (it has one
    only once called)."""
    return module is not None and any(
        getattr(value, "signatures", None) and hasattr(value, "py_func")
        and value.py_func.__module__ == module.__name__ for value in vars(module).values())


def modules(package: Path) -> list[tuple[str, str]]:
    """(dotted name, source path) of each module in the ``package`` folder and below it
    (found as files: nothing is imported)."""
    found = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found.append((".".join(parts), os.path.realpath(path)))
    return found


def _defines_functions(path: str) -> bool:
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
               for node in ast.walk(tree))
