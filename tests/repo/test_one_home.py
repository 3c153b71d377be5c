"""Each small rule has one home: no module folds a message to one line by hand (errors.one_line)."""

import re
from helpers import REPO

PACKAGE = REPO / "multisvm_cli"
FOLDING = re.compile(r"""["'] ["']\.join\(str\(""")


def test_messages_are_folded_to_one_line_only_by_errors_one_line():
    folding = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
               if FOLDING.search(p.read_text()) and p.name != "errors.py"]
    assert folding == []


def test_one_line_folds_white_space_and_names_a_silent_exception():
    from multisvm_cli.base.errors import one_line

    assert one_line("a\n  b\tc ") == "a b c"
    assert one_line(ValueError("x\ny")) == "x y"
    assert one_line(KeyError()) == "KeyError"
    assert one_line("") == ""
