"""Ctrl-C or SIGTERM during start-up (the imports of click and the command line) ends multisvm
with one line and its exit code, never a traceback (issue #33)."""

import pytest


# ------------------------------------------------- 6. Ctrl-C or SIGTERM during start-up

START_UP = r"""
import os, runpy, signal, sys

class SignalDuringImport:
    '''Sends the signal to this process in the middle of importing the command line.'''
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.{signal})
        return None

sys.meta_path.insert(0, SignalDuringImport())
runpy.run_module("multisvm_cli", run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize("module", ["click", "multisvm_cli.cli.main"])  # both imported by --version
@pytest.mark.parametrize("name, code", [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_during_start_up_ends_with_one_line(tmp_path, module, name, code):
    import subprocess
    import sys

    script = START_UP.format(module=module, signal=name)
    done = subprocess.run([sys.executable, "-c", script, "--version"], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert (done.returncode, done.stderr, done.stdout) == (code, "Aborted.\n", "")
