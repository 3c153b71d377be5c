"""A character YAML does not allow (ESC or NUL, pasted from coloured terminal output) in a
config or a card is one line naming the file, the line and the character (issue 56); it was
``yaml.reader.ReaderError``'s traceback in ``validate``, ``reproduce-table`` and ``datasets
list --cards``."""

import pytest

from multisvm_cli.base.errors import MultisvmError
from multisvm_cli.base.yaml_loader import load
from tests.configs import config_text
from tests.helpers import refused, run_cli


@pytest.mark.parametrize("text, line, code", [
    ("name: a\nb: \x1b[0m\n", 2, "001B"),
    ("a: 1\n\nb: x\x00\n", 3, "0000"),
    ("\x1b", 1, "001B"),
])
def test_the_loader_names_the_line_and_the_character(text, line, code):
    with pytest.raises(MultisvmError) as raised:
        load(text, "f.yaml")
    assert str(raised.value) == f"f.yaml:{line}: character U+{code} is not allowed; remove it"


def coloured_config(tmp_path, byte="\x1b"):
    path = tmp_path / "small.yaml"
    path.write_text(config_text().replace("C: [1, 10]", f"C: [1, 10]  # {byte}[0m"))
    return path


@pytest.mark.parametrize("command", ["validate", "reproduce-table"])
@pytest.mark.parametrize("byte, code", [("\x1b", "001B"), ("\x00", "0000")])
def test_a_config_with_an_esc_or_nul_byte_is_refused_in_one_line(tmp_path, command, byte, code):
    config = coloured_config(tmp_path, byte)
    extra = ["--out", tmp_path / "out"] if command == "reproduce-table" else []
    refused(run_cli(command, config, *extra),
            f"{config}:6: character U+{code} is not allowed; remove it")
    assert not (tmp_path / "out").exists()


def test_a_card_with_an_esc_byte_is_refused_in_one_line(tmp_path):
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "evil.yaml").write_text("name: evil\n\x1b[31mtitle: red\n")
    for args in (["datasets", "list", "--cards", cards],
                 ["datasets", "info", "evil", "--cards", cards]):
        refused(run_cli(*args), f"{cards / 'evil.yaml'}:2: character U+001B is not allowed")
