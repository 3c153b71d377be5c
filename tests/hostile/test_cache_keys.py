"""What keys a cache entry: the code digest, the solver, sweep values and a classes draw in the
resume cache's point key; the parser in the parsed-data cache; a text-features entry checked
against its documents, not trusted; the reuse store's machines by solver (issue #33)."""

import json
import shutil
import warnings

import numpy as np
import pytest

from multisvm_cli.base import code_digest as code_module
from multisvm_cli.experiment import Settings, load_config, reproduce

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
