"""A user's folder of documents, hostile: symlinks out, FIFOs and devices, a huge document, too
many classes or files, missing test classes, names and bytes that are not UTF-8, and a numeric
model evaluated on a text dataset (issue #33)."""

import os

import pytest

from helpers import sparse_file, write_files

LINEAR = [{"type": "linear"}]


# ------------------------------------------------------- 6. a user's text folder, hostile

DOCS = {"spam/1": b"buy cheap now", "spam/2": b"cheap pills", "ham/a": b"hello friend",
        "ham/b": b"see you soon"}


def _refused(root, match, **kwargs):
    from multisvm_cli import data

    with pytest.raises(data.DatasetError) as caught:
        data.load_text_folder("mine", root, **kwargs)
    assert match in str(caught.value) and "\n" not in str(caught.value), str(caught.value)
    return str(caught.value)


def test_a_symlink_out_of_the_text_folder_is_refused(tmp_path):
    outside = write_files(tmp_path / "outside", {"secret/x": b"private words"})
    root = write_files(tmp_path / "mine", DOCS)
    (root / "ham" / "link").symlink_to(outside / "secret" / "x")
    assert "ham/link" in _refused(root, "a symbolic link out of the text folder")
    (root / "ham" / "link").unlink()
    (root / "secret").symlink_to(outside / "secret", target_is_directory=True)
    _refused(root, "a symbolic link out of the text folder")


def test_fifos_and_devices_in_a_text_folder_are_refused_unread(tmp_path):
    root = write_files(tmp_path / "mine", DOCS)
    os.mkfifo(root / "spam" / "pipe")
    assert "spam/pipe: a FIFO" in _refused(root, "not a document")
    (root / "spam" / "pipe").unlink()
    inside = tmp_path / "mine" / "spam" / "zero"
    os.symlink("/dev/zero", inside)
    _refused(root, "a symbolic link out of the text folder")


def test_a_huge_document_is_refused_unread(tmp_path):
    root = write_files(tmp_path / "mine", DOCS)
    sparse_file(root / "ham" / "huge", 10**9)
    message = _refused(root, "1,000,000,000 bytes, more than")
    assert "ham/huge" in message


def test_too_many_classes_or_files_are_refused(tmp_path):
    from multisvm_cli.data.text import folder as text_folder

    root = write_files(tmp_path / "mine", {f"c{i}/d": b"some words" for i in range(30)})
    _refused(root, "30 class folders, more than 29", max_classes=29)
    assert text_folder.MAX_TEXT_CLASSES == 1_000 and text_folder.MAX_TEXT_FILES == 100_000
    _refused(root, "more than 29 files", max_files=29)
    from multisvm_cli import data

    assert len(data.load_text_folder("mine", root, max_files=30).parts["all"][1]) == 30


def test_test_classes_missing_from_training_or_the_same_folder_are_refused(tmp_path):
    from multisvm_cli import data

    train = write_files(tmp_path / "train", DOCS)
    test = write_files(tmp_path / "test", {**DOCS, "eggs/1": b"green eggs"})
    with pytest.raises(data.DatasetError, match="eggs have test documents but no training"):
        data.load_text_folder("mine", train, test)
    with pytest.raises(data.DatasetError, match="the test folder is the training folder"):
        data.load_text_folder("mine", train, tmp_path / "train" / ".." / "train")


def test_non_utf8_names_and_bytes_name_their_file(tmp_path):
    root = write_files(tmp_path / "mine", DOCS)
    (root / "ham" / "b").write_bytes(b"caf\xe9")
    assert "ham/b: not utf-8 text" in _refused(root, "not utf-8 text", encoding="utf-8")
    (root / "ham" / "b").write_bytes(b"fine")
    (root / os.fsdecode(b"sp\xe4m")).mkdir()
    (root / os.fsdecode(b"sp\xe4m") / "1").write_bytes(b"words here")
    _refused(root, "not UTF-8; rename it")


@pytest.mark.usefixtures("mirror", "no_network", "data_home")
def test_evaluate_a_numeric_model_on_a_text_dataset_says_so(write_config, tmp_path,
                                                            run_multisvm):
    config = write_config(kernels=LINEAR, C=[1], schemes=["ovr"])
    model = tmp_path / "model"
    trained = run_multisvm("train", config, "--scheme", "ovr", "-o", model, "--out",
                           tmp_path / "out", "-q")
    assert trained.code == 0, trained.err
    result = run_multisvm("evaluate", model, "--dataset", "reuters21578")
    assert result.code != 0 and "Traceback" not in result.err
    [line] = result.err.strip().splitlines()
    assert "--dataset reuters21578: a text dataset" in line and "iris" in line
