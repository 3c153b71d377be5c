"""Which of a package's modules ran code in this process: the quick tier's check that it
touches every module (see quick_tier.py).

A module is *touched* when one of its functions or methods ran (a call seen by
``sys.setprofile``; a module body, a class body or a comprehension run at import does not
count), or one of its functions compiled by numba (which the profiler does not see) was
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
        loaded = [module for module in list(sys.modules.values())
                  if getattr(module, "__file__", None)]
        imported = {os.path.realpath(module.__file__) for module in loaded}
        compiled = _compiled_for_a_call(
            [module for module in loaded
             if os.path.realpath(module.__file__).startswith(os.path.realpath(package))])
        return sorted(name for name, path in modules(package)
                      if not (path in ran or name in compiled
                              or (path in imported and not _defines_functions(path))))


def _compiled_for_a_call(kept_in) -> set[str]:
    """The modules (names) a numba function of which has a compiled signature (it gets one
    only when called), kept in one of ``kept_in``. A function compiled into its callers
    (``inline="always"``) never gets one: a test must call it as Python."""
    numba = sys.modules.get("numba.core.dispatcher")
    if numba is None:
        return set()
    return {value.py_func.__module__ for module in kept_in for value in vars(module).values()
            if isinstance(value, numba.Dispatcher) and value.signatures}


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
