"""User dataset cards (--cards): their options checked when the card loads, a text card's
members that do not decode named, an archive member name that is not UTF-8 refused (issue #33)."""

import pytest


# --------------------------------------------------- 6. user cards: options checked at load

TEXT_CARD = """\
name: mytext
title: my text
description: two classes of short documents
kind: text
n_classes: 2
n_features: 0
classes: [ham, spam]
split: fixed
parts: {{train: 4, test: 2}}
paper_scaling: none
continuous_columns: []
sources:
  - id: mine
    format: archive
    reader: {reader}
    encoding: {encoding}
    files:
      - name: mytext.tar.gz
        tree_sha256: {digest}
    parts:
      train: {{{train}}}
      test: {{{test}}}
"""
TEXT_FILES = {"train/ham/1": b"hello friend", "train/ham/2": b"see you soon",
              "train/spam/1": b"buy cheap now", "train/spam/2": b"cheap pills",
              "test/ham/1": b"hello again", "test/spam/1": b"cheap offer"}


def _text_card(tmp_path, files=TEXT_FILES, **changes):
    """A user card ``mytext`` in ``tmp/cards`` with its archive in ``tmp/mirror/mytext``;
    (cards folder, card file, mirror)."""
    import io
    import tarfile

    from multisvm_cli.data import archives

    mirror = tmp_path / "mirror" / "mytext"
    mirror.mkdir(parents=True, exist_ok=True)
    with tarfile.open(mirror / "mytext.tar.gz", "w:gz") as archive:
        for name, content in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    members = {k: v for k, v in files.items()}
    fields = {"reader": "folders", "encoding": "latin-1", "train": "folder: train",
              "test": "folder: test", **changes}
    try:
        digest = archives.tree_digest(members)
    except UnicodeEncodeError:
        digest = "0" * 64
    cards = tmp_path / "cards"
    cards.mkdir(exist_ok=True)
    card = cards / "mytext.yaml"
    card.write_text(TEXT_CARD.format(digest=digest, **fields))
    return cards, card, tmp_path / "mirror"


@pytest.mark.parametrize("changes, fragment", [
    ({"encoding": "no-such-codec"}, "encoding 'no-such-codec' is not a text encoding"),
    ({"encoding": "rot13"}, "encoding 'rot13' is not a text encoding"),
    ({"reader": "reuters-sgml"}, "part train: the reuters-sgml reader needs lewissplit"),
    ({"reader": "sgml"}, "reader must be one of folders, reuters-sgml, not 'sgml'"),
    ({"test": ""}, "part test: the folders reader needs folder"),
    ({"test": "folder: train/"}, "parts train and test have the same folder"),
    ({"test": "folder: ../test"}, "must be a relative path inside the archive"),
])
def test_a_user_cards_options_are_checked_when_it_loads(tmp_path, monkeypatch, run_multisvm,
                                                        no_network, changes, fragment):
    from multisvm_cli import data

    cards, card, _ = _text_card(tmp_path, **changes)
    monkeypatch.setenv("MULTISVM_CARDS", str(cards))
    with pytest.raises(data.DatasetError) as refused:
        data.get_card("mytext")
    message = str(refused.value)
    assert str(card) in message and fragment in message and "\n" not in message, message
    code, out, err = run_multisvm("datasets", "info", "mytext", "--cards", cards)
    assert code == 2 and err.count("\n") == 1 and fragment in err and "Traceback" not in err


def test_a_user_text_card_loads_and_names_a_member_that_does_not_decode(tmp_path, monkeypatch,
                                                                        no_network):
    from multisvm_cli import data

    cards, _, mirror = _text_card(tmp_path)
    monkeypatch.setenv("MULTISVM_CARDS", str(cards))
    loaded = data.load("mytext", mirror=mirror, data_home=tmp_path / "home", progress=False)
    assert list(loaded.parts["test"][1]) == ["ham", "spam"]
    cards, _, mirror = _text_card(tmp_path / "bad", encoding="utf-8",
                                  files={**TEXT_FILES, "test/spam/1": b"caf\xe9"})
    monkeypatch.setenv("MULTISVM_CARDS", str(cards))
    with pytest.raises(data.DatasetError, match=r"archive member test/spam/1 is not utf-8 text"):
        data.load("mytext", mirror=mirror, data_home=tmp_path / "home2", progress=False)


def test_an_archive_member_name_that_is_not_utf8_is_refused_naming_it(tmp_path):
    import io
    import tarfile

    from multisvm_cli.data import archives

    path = tmp_path / "x.tar.gz"
    with tarfile.open(path, "w:gz", encoding="latin-1", format=tarfile.GNU_FORMAT) as archive:
        info = tarfile.TarInfo("train/sp\xe4m/1")
        info.size = 3
        archive.addfile(info, io.BytesIO(b"abc"))
    with pytest.raises(archives.DatasetError, match=r"x.tar.gz member .* not UTF-8"):
        archives.read_members(path, "t")
