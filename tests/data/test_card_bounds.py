"""Hostile user dataset cards, table-driven: each is read through the bounded YAML loader and
gives one `error:` line naming the card, exit code 2 and no traceback (never a MemoryError or a
RecursionError)."""

import os

import pytest

from multisvm_cli import data


def alias_bomb(folder):
    """A 600-byte card whose aliases expand to 10^8 values."""
    lines = ["a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 8)]
    (folder / "evil.yaml").write_text("\n".join(lines) + "\nname: evil\n")


def deep_nesting(folder):
    (folder / "evil.yaml").write_text("name: " + "[" * 50_000 + "]" * 50_000 + "\n")


def endless(folder):
    os.symlink("/dev/zero", folder / "evil.yaml")


def too_large(folder):
    (folder / "evil.yaml").write_text("# " + "x" * (2 << 20) + "\nname: evil\n")


# name -> (how to write the card evil.yaml, fragment of the one line)
CASES = {
    "alias bomb": (alias_bomb, "more than 100000 values once aliases are expanded"),
    "50000-deep nesting": (deep_nesting, "nested too deeply to be a dataset card"),
    "symlink to /dev/zero": (endless, "not a regular file; a dataset card must be one"),
    "2 MiB card": (too_large, "larger than 1 MiB; too large for a dataset card"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES), ids=lambda c: c.replace(" ", "-"))
def test_a_hostile_user_card_is_one_line_naming_it(case, tmp_path, monkeypatch, run_multisvm,
                                                    no_network):
    write, fragment = CASES[case]
    cards = tmp_path / "cards"
    cards.mkdir()
    write(cards)
    card = cards / "evil.yaml"
    monkeypatch.setenv("MULTISVM_CARDS", str(cards))
    with pytest.raises(data.DatasetError) as refused:
        data.get_card("evil")
    message = str(refused.value)
    assert message.startswith(str(card)) and fragment in message and "\n" not in message
    code, out, err = run_multisvm("datasets", "info", "evil", "--cards", cards)
    assert (code, out) == (2, "") and err.count("\n") == 1, err
    assert err.startswith(f"error: {card}") and fragment in err and "Traceback" not in err
    assert no_network == []  # nothing was downloaded
