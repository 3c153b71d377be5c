"""The quick tier's own rules (tests/quick_tier.py, tests/touched.py): what counts as touching
a module, and a module run only by a real process is run by a test of the tier."""

import textwrap

from quick_tier import IN_A_CHILD_PROCESS, entries
from touched import Touched


def _package(root, files):
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text))


def test_a_module_is_touched_by_a_call_of_its_functions_not_by_its_import(tmp_path,
                                                                          monkeypatch):
    package = tmp_path / "touchpkg"
    package.mkdir()
    _package(package, {
        "__init__.py": "from . import called, imported, table\n",
        "called.py": """
            SQUARES = [i * i for i in range(3)]  # a comprehension at import: not a call
            class Shape:
                sides = 4
                def area(self):
                    return self.sides
            def unused():
                return 0
            """,
        "imported.py": "def never():\n    return 1\nclass Kind:\n    name = 'k'\n",
        "table.py": "LIMITS = {'C': (0, None)}\n",   # no function: its import touches it
        "alone.py": "VALUE = 1\n",                    # no function, never imported
    })
    monkeypatch.syspath_prepend(str(tmp_path))
    touched = Touched()
    touched.start()
    try:
        import touchpkg
        assert touchpkg.called.Shape().area() == 4
    finally:
        touched.stop()
    assert touched.untouched(package) == ["touchpkg.alone", "touchpkg.imported"]


def test_a_numba_function_counts_once_compiled_for_a_call(tmp_path, monkeypatch):
    package = tmp_path / "jitpkg"
    package.mkdir()
    _package(package, {
        "__init__.py": "from . import ran, waiting, wrapper\n",
        "ran.py": "from numba import njit\n@njit\ndef twice(x):\n    return 2 * x\n",
        "waiting.py": "from numba import njit\n@njit\ndef thrice(x):\n    return 3 * x\n",
        "plain.py": "def half(x):\n    return x / 2\n",   # compiled by wrapper.py
        "wrapper.py": "from numba import njit\nfrom . import plain\nhalf = njit(plain.half)\n",
    })
    monkeypatch.syspath_prepend(str(tmp_path))
    touched = Touched()
    touched.start()
    try:
        import jitpkg
        assert jitpkg.ran.twice(4) == 8 and jitpkg.wrapper.half(3.0) == 1.5
    finally:
        touched.stop()
    assert touched.untouched(package) == ["jitpkg.waiting"]


def test_a_module_only_a_process_runs_is_run_by_a_test_of_the_tier():
    assert set(IN_A_CHILD_PROCESS.values()) <= set(entries())
