"""A text folder's layout, hostile (issue #56): hidden files and folders (``.keep``,
``.DS_Store``, ``.git/``) are no documents and no classes; an empty class folder, or a loose
document beside the class folders, is refused in one line, by one rule that training,
``compare`` and ``predict`` share."""

import pytest

from helpers import refused, run_cli, write_files

DOCS = {"spam/1": b"buy cheap now", "spam/2": b"cheap pills", "ham/a": b"hello friend",
        "ham/b": b"see you soon"}


def _refused(root, match):
    from multisvm_cli import data

    with pytest.raises(data.DatasetError) as caught:
        data.load_text_folder("mine", root)
    assert match in str(caught.value) and "\n" not in str(caught.value), str(caught.value)
    return str(caught.value)


def test_hidden_files_and_folders_are_ignored(tmp_path):
    from multisvm_cli import data

    root = write_files(tmp_path / "docs", {**DOCS, ".DS_Store": b"\x00\x01", "ham/.keep": b"",
                                           ".git/HEAD": b"ref: refs/heads/main",
                                           ".git/objects/ab": b"blob", "spam/.hidden/x": b"x"})
    loaded = data.load_text_folder("mine", root)
    texts, labels = loaded.parts["all"]
    assert loaded.card.classes == ("ham", "spam")
    assert labels.tolist() == ["ham", "ham", "spam", "spam"]
    clean = data.load_text_folder("mine", write_files(tmp_path / "clean", DOCS))
    assert loaded.checksums[str(root)] == clean.checksums[str(tmp_path / "clean")]


def test_a_class_folder_with_only_a_placeholder_is_refused_not_a_class(tmp_path):
    """``docs/empty/.keep`` made a third class ``empty`` with one document ``.keep``."""
    root = write_files(tmp_path / "docs", {**DOCS, "empty/.keep": b""})
    assert "docs/empty: an empty class folder" in _refused(root, "no document, hidden files "
                                                                 "aside")
    (root / "empty" / ".keep").unlink()
    _refused(root, "docs/empty: an empty class folder")


def test_a_loose_document_beside_the_class_folders_is_refused(tmp_path):
    """``docs/loose.txt`` was skipped by training and compare, refused by predict."""
    root = write_files(tmp_path / "docs", {**DOCS, "loose.txt": b"which class am I"})
    _refused(root, "docs: holds class subfolders and also 1 file(s) at its top level "
                   "('loose.txt'...), which no class would hold")
    out = tmp_path / "out"
    refused(run_cli("compare", root, "--schemes", "nb", "--out", out, "--quiet"),
            "('loose.txt'...), which no class would hold")
    assert not out.exists()


def test_predict_reads_a_folder_by_the_same_rule(tmp_path):
    """predict's folder: hidden files ignored, a loose document beside class folders and an
    empty class folder refused, with training's words."""
    from multisvm_cli import data
    from multisvm_cli.data.text.folder import document_members

    flat = write_files(tmp_path / "flat", {"a.txt": b"cheap", ".DS_Store": b"\x00"})
    assert document_members(flat) == ({"a.txt": b"cheap"}, False)
    labelled = write_files(tmp_path / "labelled", {**DOCS, ".git/HEAD": b"ref"})
    members, is_labelled = document_members(labelled)
    assert is_labelled and sorted(members) == sorted(DOCS)
    for extra, words in (({"loose.txt": b"x"}, "which no class would hold"),
                         ({"empty/.keep": b""}, "an empty class folder")):
        root = write_files(tmp_path / words.replace(" ", "-"), {**DOCS, **extra})
        with pytest.raises(data.DatasetError, match=words):
            document_members(root)
        _refused(root, words)
