"""The bounded YAML loader (multisvm_cli.base.yaml_loader): YAML 1.2 numbers, and every document too
costly to build refused with one line naming it, before it is built."""

import pytest

from multisvm_cli.base.errors import MultisvmError
from multisvm_cli.base.yaml_loader import MAX_YAML_DEPTH, MAX_YAML_NODES, load, parse, read_yaml


def test_numbers_are_yaml_1_2():
    assert load("[1e2, 010, 0x1f, 0o17, 1:30, 1_000, .inf, yes]", "t.yaml") == [
        100.0, 10, 31, 15, "1:30", "1_000", float("inf"), True]


def test_the_root_node_keeps_lines():
    node, document = parse("a: 1\nb:\n  - 2\n", "t.yaml")
    assert document == {"a": 1, "b": [2]}
    assert [key.start_mark.line + 1 for key, _ in node.value] == [1, 2]
    assert parse("", "t.yaml") == (None, None)


# name -> (YAML text, fragment of the one line)
REFUSED = {
    "syntax error on line 2": ("a: [1\nb: 2\n", "t.yaml:2: YAML syntax error"),
    "a python tag": ("!!python/object:os.system {}", "t.yaml:1: YAML syntax error"),
    "recursive alias": ("&a [*a, 1]", "nested too deeply to be a card"),
    "alias bomb": ("a: &a [" + "1, " * 9 + "1]\n" + "".join(
        f"{c}: &{c} [" + ", ".join([f"*{p}"] * 10) + "]\n" for p, c in zip("abcd", "bcde")),
        f"more than {MAX_YAML_NODES} values once aliases"),
    "one node too deep": ("[" * (MAX_YAML_DEPTH + 1) + "]" * (MAX_YAML_DEPTH + 1),
                          "nested too deeply to be a card"),
    "past the parser's stack": ("[" * 50_000, "nested too deeply to be a card"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(REFUSED), ids=lambda c: c.replace(" ", "-"))
def test_costly_or_invalid_documents_are_one_line(case):
    text, fragment = REFUSED[case]
    with pytest.raises(MultisvmError) as refused:
        load(text, "t.yaml", what="card")
    assert fragment in str(refused.value) and "\n" not in str(refused.value)


def test_the_deepest_allowed_document_loads():
    text = "[" * MAX_YAML_DEPTH + "]" * MAX_YAML_DEPTH
    assert load(text, "t.yaml") is not None


def test_read_yaml_bounds_the_bytes(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_text("a: " + "x" * 2000 + "\n")
    with pytest.raises(MultisvmError, match="big.yaml: larger than 1000 bytes"):
        read_yaml(path, 1000)
    assert read_yaml(path, 4000) == {"a": "x" * 2000}
