"""Hostile input, round three (issue #33): caches that notice code and sweep changes, a
text-features entry checked against its documents, reproducible parallel liblinear fits,
`multisvm report`'s checked reader, bounded local files, and the tracebacks and
validate-then-refuse gaps listed in the issue. Each test fails without its fix."""

import json
import os
import shutil
import warnings

import numpy as np
import pytest

from multisvm_cli.base import code_digest as code_module
from multisvm_cli.experiment import Settings, load_config, reproduce
from helpers import write_files

LINEAR = [{"type": "linear"}]


def _reproduce(write_config, out, **overrides):
    """Run the base config with ``overrides`` (linear, C=1, 1-v-r) into ``out``; its run.json."""
    overrides = {"kernels": LINEAR, "C": [1], "schemes": ["ovr"], **overrides}
    run = reproduce(load_config(write_config(**overrides)), Settings(out=str(out), quiet=True))
    return json.loads((run.folder / "run.json").read_text()), run.folder


# ------------------------------------------------------------ 1. what computed a cache entry

@pytest.fixture
def edited_code(tmp_path, monkeypatch):
    """The package's digest as if a source file had been edited (a copy with one more line)."""
    copy = tmp_path / "edited" / "multisvm_cli"
    shutil.copytree(code_module.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    with open(copy / "data" / "parsers.py", "a") as stream:
        stream.write("\n# the user's edit\n")
    monkeypatch.setattr(code_module, "PACKAGE", copy)
    code_module.code_digest.cache_clear()
    yield copy
    monkeypatch.undo()
    code_module.code_digest.cache_clear()


def test_the_code_digest_changes_with_any_edit_rename_or_new_file(tmp_path):
    copy = tmp_path / "multisvm_cli"
    shutil.copytree(code_module.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    first = code_module.digest_of(copy)
    assert first == code_module.digest_of(code_module.PACKAGE) == code_module.code_digest()
    solver = copy / "estimators" / "_solvers.py"
    original = solver.read_bytes()
    solver.write_bytes(original + b"\n# an edit\n")
    edited = code_module.digest_of(copy)
    solver.write_bytes(original)
    assert edited != first and code_module.digest_of(copy) == first  # revert: the same code
    (copy / "extra.py").write_text("")
    assert code_module.digest_of(copy) not in (first, edited)
    (copy / "extra.py").rename(copy / "other.py")
    assert code_module.digest_of(copy) not in (first, edited)


@pytest.mark.slow
@pytest.mark.usefixtures("mirror", "no_network", "data_home")
def test_after_a_code_edit_no_cached_point_is_reused(write_config, tmp_path, request):
    out = tmp_path / "out"
    assert _reproduce(write_config, out)[0]["grid_points"]["cached"] == 0
    assert _reproduce(write_config, out)[0]["grid_points"] == {"total": 1, "cached": 1,
                                                               "computed": 0}
    request.getfixturevalue("edited_code")
    assert _reproduce(write_config, out)[0]["grid_points"]["cached"] == 0  # the edited code
    assert _reproduce(write_config, out)[0]["grid_points"]["cached"] == 1  # its own entry
    request.getfixturevalue("monkeypatch").undo()  # the edit reverted
    code_module.code_digest.cache_clear()
    record = _reproduce(write_config, out)[0]  # the original code's entry, not the edited one's
    assert record["grid_points"]["cached"] == 1
    assert record["code_digest"] == code_module.digest_of(code_module.PACKAGE)


def test_the_point_key_names_the_solver_even_when_it_is_the_default():
    from multisvm_cli.experiment.protocol.cache import scheme_solver

    assert scheme_solver("ovr", {}) == "libsvm"
    assert scheme_solver("ovr", {"ovr": {"solver": "liblinear"}}) == "liblinear"
    assert scheme_solver("nb", {"nb": {}}) is None


@pytest.mark.usefixtures("mirror", "no_network", "data_home")
def test_two_sweep_values_that_print_alike_share_no_cached_point(write_config, tmp_path):
    record, folder = _reproduce(write_config, tmp_path / "out",
                                sweep={"train_fraction": [0.1, 0.09999999]})
    assert record["grid_points"] == {"total": 2, "cached": 0, "computed": 2}


@pytest.mark.slow
@pytest.mark.usefixtures("mirror", "no_network", "data_home")
def test_a_classes_draw_changed_by_its_order_shares_no_cached_point(write_config, tmp_path):
    out = tmp_path / "out"
    first, folder = _reproduce(write_config, out, sweep={"classes": [2], "order": "random"})
    second, other = _reproduce(write_config, out, sweep={"classes": [2], "order": "largest"})
    drawn = [(f / "sweep.csv").read_text().splitlines()[1] for f in (folder, other)]
    assert "1 2" in drawn[0] and "0 1" in drawn[1]  # seed 0 draws classes 1 and 2 of iris
    assert second["grid_points"]["cached"] == 0
    third, _ = _reproduce(write_config, out, sweep={"classes": [2], "order": "random"})
    assert third["grid_points"]["cached"] == third["grid_points"]["total"]


@pytest.mark.usefixtures("no_network")
def test_an_edited_parser_parses_afresh(mirror, data_home, request):
    from multisvm_cli import data

    data.load("iris", mirror=mirror, data_home=data_home, progress=False)
    again = data.load("iris", mirror=mirror, data_home=data_home, progress=False)
    assert all(source.startswith("parsed cache ") for source in again.sources.values())
    request.getfixturevalue("edited_code")
    edited = data.load("iris", mirror=mirror, data_home=data_home, progress=False)
    assert not any(source.startswith("parsed cache ") for source in edited.sources.values())


# ------------------------------------------------- 4. a text-features entry checked, not trusted

TRAIN = ["apple banana cherry", "banana cherry", "cherry date", "apple date elder"]
TEST = ["apple elder", "fig banana", "date date cherry"]


def _entry(cache_dir):
    from multisvm_cli.data.text.features import TextFeatures, fit_transform_parts

    first = fit_transform_parts(TextFeatures(), TRAIN, TEST, cache_dir=cache_dir)
    [entry] = cache_dir.glob("*.npz")
    return first, entry


def test_a_consistently_edited_text_entry_is_rebuilt(tmp_path):
    from multisvm_cli.data.text.cache import arrays_sha256
    from multisvm_cli.data.text.features import TextFeatures, fit_transform_parts

    first, entry = _entry(tmp_path)
    with np.load(entry) as stored:
        arrays = dict(stored)
    arrays["1_data"] = arrays["1_data"][::-1].copy()  # the test rows' weights, reordered
    np.savez(entry, **arrays)
    record_file = entry.with_suffix(".json")
    record = json.loads(record_file.read_text())
    record["arrays_sha256"] = arrays_sha256(arrays)  # its own checksum recomputed
    record_file.write_text(json.dumps(record))
    with pytest.warns(UserWarning, match=f"{entry}.*does not match its documents.*rebuilt"):
        again = fit_transform_parts(TextFeatures(), TRAIN, TEST, cache_dir=tmp_path)
    assert (again.matrices[1] != first.matrices[1]).nnz == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the rebuilt entry is used as it is
        fit_transform_parts(TextFeatures(), TRAIN, TEST, cache_dir=tmp_path)


def test_a_text_entry_for_other_rows_is_rebuilt(tmp_path):
    from multisvm_cli.data.text.cache import check, Unusable
    from multisvm_cli.data.text.features import TextFeatures, documents_digest, transform_with

    _, entry = _entry(tmp_path)
    digest = documents_digest(TRAIN, TEST)
    assert check(entry, TextFeatures(), digest, (TRAIN, TEST),
                 transform_with).matrices[1].shape == (3, 5)
    with pytest.raises(Unusable, match="different rows"):
        check(entry, TextFeatures(), digest, (TRAIN, TEST[:2]), transform_with)


def test_a_truncated_text_entry_is_named_and_rebuilt(tmp_path):
    from multisvm_cli.data.text.features import TextFeatures, fit_transform_parts

    first, entry = _entry(tmp_path)
    entry.write_bytes(entry.read_bytes()[:200])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = fit_transform_parts(TextFeatures(), TRAIN, TEST, cache_dir=tmp_path)
    [line] = [str(w.message) for w in caught]
    assert str(entry) in line and "truncated" in line and "rebuilt" in line
    assert "\n" not in line and (again.matrices[0] != first.matrices[0]).nnz == 0


def test_the_reuse_store_keys_its_machines_by_solver():
    from multisvm_cli.estimators.reuse import MachineReuse

    rows, positive = np.arange(4), np.array([True, False, True, False])
    keys = {MachineReuse.key(b"x", rows, positive, "linear", 1e-3, solver)
            for solver in ("libsvm", "liblinear")}
    assert len(keys) == 2


# ---------------------------------------------------- 2. liblinear fits under threads reproduce

@pytest.mark.slow
@pytest.mark.usefixtures("no_network")
def test_liblinear_gives_the_same_machines_under_two_threads(mirror, data_home):
    """20 one-vs-rest liblinear fits two at a time: before the lock, every fit of three gave
    other weights (liblinear's coordinate order comes from the C library's global rand())."""
    from sklearn.exceptions import ConvergenceWarning

    from multisvm_cli import data
    from multisvm_cli.data.text.features import TextFeatures, fit_transform_parts
    from multisvm_cli.estimators import OneVsRestSVC

    news = data.load("20newsgroups", parts=["train"], mirror=mirror, data_home=data_home,
                     progress=False)
    docs, y = news.parts["train"]
    rows = np.concatenate([np.flatnonzero(y == g)[:60] for g in np.unique(y)])
    (X,) = fit_transform_parts(TextFeatures(), docs[rows]).matrices
    machines = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for _ in range(3):
            model = OneVsRestSVC(kernel="linear", solver="liblinear", C=1.0, n_jobs=2)
            machines.append(model.fit(X, y[rows]).machines_.to_arrays(""))
    assert len(machines[0]) >= 2
    for other in machines[1:]:
        assert other.keys() == machines[0].keys()
        for name, array in machines[0].items():
            assert np.asarray(other[name]).tobytes() == np.asarray(array).tobytes(), name


# ------------------------------------------------- 3. `multisvm report` checks what it redraws

@pytest.fixture(scope="module")
def sweep_run(tmp_path_factory, mirror):
    """A finished sweep run folder (iris and wine, 2 and 3 classes, two repeats, 1-v-r and
    Max Wins), made once; tests edit copies of it."""
    from configs import write_config

    folder = tmp_path_factory.mktemp("sweep-run")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MULTISVM_DATA_HOME", str(folder / "home"))
        config = write_config(folder, dataset=["iris", "wine"], kernels=LINEAR, C=[1, 10],
                              schemes=["ovr", "maxwins"], repeats=2,
                              sweep={"classes": [2, 3]})
        run = reproduce(load_config(config), Settings(out=str(folder / "out"), quiet=True))
    return run.folder


def _edited(sweep_run, tmp_path, name, edit):
    copy = tmp_path / "run"
    shutil.copytree(sweep_run, copy)
    path = copy / name
    path.write_text(edit(path.read_text()))
    return copy


def _swap_values(text, a, b):
    """``text`` (CSV) with the values of columns ``a`` and ``b`` swapped, the header kept."""
    lines = text.splitlines()
    header = lines[0].split(",")
    i, j = header.index(a), header.index(b)
    rows = [line.split(",") for line in lines[1:]]
    for row in rows:
        row[i], row[j] = row[j], row[i]
    return "\n".join([lines[0]] + [",".join(row) for row in rows]) + "\n"


def _swap_columns(text, a, b):
    """``text`` (CSV) with columns ``a`` and ``b`` swapped, header and values."""
    lines = [line.split(",") for line in text.splitlines()]
    i, j = lines[0].index(a), lines[0].index(b)
    for row in lines:
        row[i], row[j] = row[j], row[i]
    return "\n".join(",".join(row) for row in lines) + "\n"


def _error_edit(text, value):
    """sweep.csv with its first row's error_pct replaced by ``value``."""
    lines = text.splitlines()
    column = lines[0].split(",").index("error_pct")
    first = lines[1].split(",")
    first[column] = value
    return "\n".join([lines[0], ",".join(first)] + lines[2:]) + "\n"


@pytest.mark.parametrize("name, edit, problem", [
    ("sweep.csv", lambda t: _error_edit(t, "777.77"), "error_pct 777.77 is not in"),
    ("sweep.csv", lambda t: _error_edit(t, "55.5"), "not one of results.json's results"),
    ("sweep.csv", lambda t: "\n".join(t.splitlines()[:2] + t.splitlines()[3:]) + "\n",
     "has no row: a row was dropped"),
    ("sweep.csv", lambda t: _swap_columns(t, "cpu_time", "evaluation_time"),
     "columns are not the run's"),
    ("sweep.csv", lambda t: _swap_values(t, "cpu_time", "evaluation_time"),
     "not one of results.json's results"),
    ("sweep.csv", lambda t: t.replace(",70,30,", ",70,30.5,", 1), "n_test 30.5 is not a count"),
    ("table.csv", lambda t: t.replace("3.3333333333333335", "6.666666666666667", 1),
     "error_pct is '6.666666666666667', results.json has 3.33"),
    ("table.csv", lambda t: "\n".join(t.splitlines()[:-1]) + "\n", "rows, results.json's table"),
    ("grid.csv", lambda t: "\n".join(t.splitlines()[:-1]) + "\n", "but the run scored"),
    ("grid.csv", lambda t: _swap_columns(t, "fit_cpu", "fit_wall"), "columns are not the run's"),
])
def test_report_refuses_an_edited_file(sweep_run, tmp_path, run_multisvm, name, edit, problem):
    folder = _edited(sweep_run, tmp_path, name, edit)
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    result = run_multisvm("report", folder)
    assert result.code != 0
    [line] = result.err.strip().splitlines()
    assert line.startswith("error: ") and name in line and problem in line, line
    assert before == {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.slow
def test_report_redraws_an_untouched_sweep_run(sweep_run, tmp_path, run_multisvm):
    folder = _edited(sweep_run, tmp_path, "sweep.csv", lambda text: text)
    result = run_multisvm("report", folder)
    assert result.code == 0, result.err
    assert (folder / "figures" / "sweep-iris.png").is_file()


# ------------------------------------------- 5. a local or mirror file bounded like a download

def _sparse_file(path, size):
    """A file of ``size`` bytes that takes no disk space (all zeros)."""
    with open(path, "wb") as stream:
        stream.truncate(size)
    return path


def test_a_huge_file_in_place_of_a_mirror_archive_is_refused_unread(tmp_path, no_network):
    from multisvm_cli import data

    mirror = tmp_path / "mirror"
    (mirror / "reuters21578").mkdir(parents=True)
    _sparse_file(mirror / "reuters21578" / "reuters21578.tar.gz", 3 * 10**9)
    with pytest.raises(data.DatasetError) as caught:
        data.load("reuters21578", mirror=mirror, data_home=tmp_path / "home", progress=False)
    message = str(caught.value)
    assert "3,000,000,000 bytes, more than" in message and "not read" in message
    assert "\n" not in message


def test_an_archive_is_read_only_with_the_compression_its_name_declares(tmp_path):
    """A file named .tar.gz that is not gzip is refused at once (``r:*`` went on to try bz2
    and LZMA); a plain tar named .tar.gz too."""
    import tarfile

    from multisvm_cli.data import archives

    plain = tmp_path / "plain.tar.gz"
    with tarfile.open(plain, "w") as archive:  # no compression, named .tar.gz
        archive.add(__file__, arcname="a/doc")
    with pytest.raises(archives.DatasetError, match="cannot read the archive"):
        archives.read_members(plain, "t")
    assert archives.read_members(plain, "t", name="plain.tar") == {
        "a/doc": open(__file__, "rb").read()}
    assert archives.tar_mode("x.TAR.GZ") == "r:gz" and archives.tar_mode("x.tar") == "r:"
    with pytest.raises(archives.DatasetError, match="not named as a tar archive"):
        archives.tar_mode("x.zip")


def test_a_huge_or_special_local_file_is_refused_before_it_is_read(tmp_path):
    from multisvm_cli.data import DatasetError
    from multisvm_cli.data.local.files import LocalSpec, load_local

    huge = _sparse_file(tmp_path / "huge.svm", 3 * 10**9)
    with pytest.raises(DatasetError, match=r"huge.svm: 3,000,000,000 bytes, more than 4 x "
                                           r"memory_mb"):
        load_local(LocalSpec("mine", huge, "svmlight", memory_mb=256))
    fifo = tmp_path / "pipe.svm"
    os.mkfifo(fifo)
    with pytest.raises(DatasetError, match="pipe.svm"):
        load_local(LocalSpec("mine", fifo, "svmlight"))


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
    _sparse_file(root / "ham" / "huge", 10**9)
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


# ------------------------------------- 6. what `validate` passed and the run refused, refused

TEXT_CONFIG = dict(dataset="reuters21578", split=None, kernels=LINEAR, C=[1], schemes=["ovr"])


@pytest.mark.parametrize("overrides, key, fragment", [
    (dict(TEXT_CONFIG, features={"min_df": 5, "max_df": 3}), "features",
     "min_df (5) is above max_df (3)"),
    (dict(TEXT_CONFIG, features={"min_df": 0.5, "max_df": 3}), "features",
     "min_df 0.5 keeps terms in 2286 or more documents and max_df 3 in 3 or fewer"),
    (dict(TEXT_CONFIG, features={"ngram_range": [1, 1000]}), "features",
     "1 <= low <= high <= 5"),
    (dict(sweep={"classes": [2, 5]}), "sweep", "iris has 3 classes; the classes sweep "
                                                   "asks for 5"),
    (dict(dataset="glass", sweep={"train_fraction": [0.01, 0.5]}), "sweep",
     "a train_fraction of 0.01 is too small to keep every class"),
    (dict(scaling="standard", schemes=["ovr", "nb"],
          sweep={"scheme_options": {"nb": {"nb": ["gaussian", "multinomial"]}}}),
     "sweep", "nb with nb: multinomial needs non-negative features"),
    (dict(schemes=["dag"], sweep={"scheme_options": {"dag": {"order": ["natural", [2, 1]]}}}),
     "sweep", "iris: order [2, 1] must list every class exactly once: [0, 1, 2]"),
    (dict(schemes=["ovr", "nb"], scheme_options={"nb": {"solver": "liblinear"}}),
     "scheme_options.nb.solver", "nb trains no SVM, so it has no solver"),
])
def test_validate_refuses_what_the_run_would_refuse_after_making_its_folder(
        write_config, tmp_path, run_multisvm, mirror, data_home, no_network, overrides, key,
        fragment):
    config = write_config(**{"kernels": LINEAR, "C": [1], "schemes": ["ovr"], **overrides})
    for command in (["validate", config], ["reproduce-table", config, "--out", tmp_path / "out",
                                           "--quiet"]):
        result = run_multisvm(*command)
        assert result.code != 0 and "Traceback" not in result.err
        [line] = result.err.strip().splitlines()
        assert f"{config}:" in line and f": {key}: " in line and fragment in line, line
    assert not (tmp_path / "out").exists()  # refused before any run folder


def test_a_text_folder_whose_documents_hold_no_term_is_refused_by_validate(
        tmp_path, run_multisvm, no_network):
    from configs import config_text

    words = [b"the and of", b"it is the", b"of the", b"and it", b"is it", b"the of"]
    root = write_files(tmp_path / "mine", {f"{c}/{i}": text for c in "ab"
                                           for i, text in enumerate(words)})
    config = tmp_path / "words.yaml"
    config.write_text(config_text(name="words", dataset=None, kernels=LINEAR, C=[1],
                                  schemes=["ovr"], split={"test_fraction": 0.5, "seed": 0},
                                  validation={"method": "holdout", "train_fraction": 0.5,
                                              "seed": 0},
                                  features={"stop_words": "english"})
                      + f"dataset: [{{name: words, path: {root}, format: text}}]\n")
    result = run_multisvm("validate", config)
    assert result.code != 0, result.out
    [line] = result.err.strip().splitlines()
    assert "features" in line and "the vocabulary would be empty" in line, line


@pytest.mark.usefixtures("mirror", "no_network", "data_home")
def test_a_dag_order_sweep_runs_and_its_report_redraws(write_config, tmp_path, run_multisvm):
    config = write_config(kernels=LINEAR, C=[1], schemes=["dag"],
                          sweep={"scheme_options": {"dag": {"order": ["natural", [2, 1, 0]]}}})
    result = run_multisvm("reproduce-table", config, "--out", tmp_path / "out", "--quiet")
    assert result.code == 0, result.err
    [folder] = [p for p in (tmp_path / "out" / "small").glob("2*")]
    values = [line.split(",")[1] for line in (folder / "sweep.csv").read_text().splitlines()[1:]]
    assert values == ["natural", '"[2']  # "[2, 1, 0]" quoted: one cell
    assert run_multisvm("report", folder).code == 0


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
