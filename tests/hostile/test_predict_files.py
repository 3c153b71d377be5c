"""The files a user predicts (`multisvm predict`): the output is a regular file outside the model,
a bad first row is named (not taken for a header), a registry model's columns are checked by
name, a folder holds class folders or documents, a very wide row is refused before it is
parsed, --proba is refused with the way to get it (issue #41)."""

import os
import pytest
from sklearn.datasets import load_iris

from helpers import refused

LINEAR = [{"type": "linear"}]


@pytest.fixture
def iris_model(tmp_path, run_multisvm, write_config, mirror, data_home, no_network):
    """A linear 1-v-r model of the registry's iris (4 features), trained through the CLI."""
    config = write_config(kernels=LINEAR, C=[1], schemes=["ovr"])
    model = tmp_path / "iris-ovr"
    code, _, err = run_multisvm("train", config, "--scheme", "ovr", "-o", model, "--out",
                                tmp_path / "results", "-q")
    assert code == 0, err
    return model


def _iris_csv(path, header=None, rows=slice(0, 5)):
    X = load_iris().data[rows]
    lines = ([header] if header else []) + [",".join(f"{v:g}" for v in row) for row in X]
    path.write_text("\n".join(lines) + "\n")
    return path


# --------------------------------------------------------------- 1. predict writes only a file

def test_predict_refuses_an_output_that_is_no_regular_file_or_is_in_the_model(
        iris_model, tmp_path, run_multisvm):
    points = _iris_csv(tmp_path / "x.csv")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    refused(run_multisvm("predict", iris_model, points, "-o", fifo, "--force"),
            str(fifo), "not a regular file")
    assert fifo.is_fifo()
    model_file = iris_model / "model.json"
    before = model_file.read_bytes()
    refused(run_multisvm("predict", iris_model, points, "-o", model_file, "--force"),
            "inside the model folder")
    assert model_file.read_bytes() == before
    refused(run_multisvm("predict", iris_model, points, "-o", iris_model / "new.csv"),
            "inside the model folder")
    assert not (iris_model / "new.csv").exists()
    code, _, err = run_multisvm("predict", iris_model, points, "-o", tmp_path / "p.csv")
    assert code == 0 and (tmp_path / "p.csv").read_text().startswith("row,label\n"), err


# ------------------------------------------------------ 3. a first row is data unless a header

@pytest.mark.parametrize("text, fragments", [
    ("5.1,abc,1.4,0.2\n5.0,3.2,1.4,0.2\n4.9,3.1,1.5,0.1\n", ("x.csv:1:", "column 1",
                                                            "'abc' is not a number")),
    ("5.1,abc,1.4,0.2\n", ("x.csv:1:", "column 1", "'abc' is not a number")),
    ("5.1,6_7,1.4,0.2\n5.0,3.2,1.4,0.2\n", ("x.csv:1:", "column 1", "'6_7' is not a number")),
    ("5.1,3.5,1.4,0.2\n5.0,3_2,1.4,0.2\n", ("x.csv:2:", "column 1", "'3_2' is not a number")),
    ("a,b,c,d\n", ("x.csv:1:", "a header row and no data rows")),
])
def test_a_bad_first_row_is_named_not_taken_for_a_header(iris_model, tmp_path, run_multisvm,
                                                         text, fragments):
    (tmp_path / "x.csv").write_text(text)
    refused(run_multisvm("predict", iris_model, tmp_path / "x.csv"), *fragments)


def test_a_local_training_file_with_underscored_numbers_is_refused(tmp_path):
    from multisvm_cli.data import DatasetError
    from multisvm_cli.data.csv_file import read_csv

    (tmp_path / "t.csv").write_text("1,2,0\n3,4_0,1\n5,6,0\n")
    with pytest.raises(DatasetError, match=r"t.csv:2: column 1: '4_0' is not a number"):
        read_csv(tmp_path / "t.csv")
    (tmp_path / "h.csv").write_text("x,y,label\n1,2,a\n3,4,b\n")  # a header is still a header
    X, y, first = read_csv(tmp_path / "h.csv")
    assert X.tolist() == [[1, 2], [3, 4]] and y.tolist() == ["a", "b"] and first == 2


# ------------------------------- 4. a registry model's columns are its card's names, or x0..

def test_a_registry_models_columns_are_checked_by_name(iris_model, tmp_path, run_multisvm):
    other = _iris_csv(tmp_path / "other.csv", header="f0,f1,f2,target")
    refused(run_multisvm("predict", iris_model, other),
            "other.csv:1:", "feature column 0 is 'f0', the model's is 'x0'")
    named = _iris_csv(tmp_path / "named.csv", header="x0,x1,x2,x3")
    plain = _iris_csv(tmp_path / "plain.csv")
    outputs = []
    for path in (named, plain):
        code, out, err = run_multisvm("predict", iris_model, path)
        assert code == 0, err
        outputs.append(out)
    assert outputs[0] == outputs[1] and len(outputs[0].splitlines()) == 6


def test_a_cards_feature_names_are_its_models_columns(tmp_path, run_multisvm, write_config,
                                                      mirror, data_home, no_network):
    from sklearn.datasets import load_wine

    from multisvm_cli import data

    names = data.get_card("wine").feature_names
    assert len(names) == 13 and names[0] == "alcohol"
    config = write_config(dataset="wine", kernels=LINEAR, C=[1], schemes=["ovr"])
    model = tmp_path / "wine-ovr"
    code, _, err = run_multisvm("train", config, "--scheme", "ovr", "-o", model, "--out",
                                tmp_path / "results", "-q")
    assert code == 0, err
    X = load_wine().data[:4]
    rows = [",".join(f"{v:g}" for v in row) for row in X]
    (tmp_path / "named.csv").write_text("\n".join([",".join(names), *rows]) + "\n")
    code, out, err = run_multisvm("predict", model, tmp_path / "named.csv")
    assert code == 0 and len(out.splitlines()) == 5, err
    other = [f"f{j}" for j in range(12)] + ["target"]  # the case: 13 other names
    (tmp_path / "other.csv").write_text("\n".join([",".join(other), *rows]) + "\n")
    refused(run_multisvm("predict", model, tmp_path / "other.csv"),
            "feature column 0 is 'f0', the model's is 'alcohol'")


# ------------------------------------------ 5. a folder to predict: class folders or documents

def test_a_folder_with_class_folders_and_top_level_documents_is_refused(tmp_path):
    from multisvm_cli.data import DatasetError
    from multisvm_cli.data.text.folder import document_members

    (tmp_path / "docs" / "sport").mkdir(parents=True)
    (tmp_path / "docs" / "sport" / "1.txt").write_text("goal")
    (tmp_path / "docs" / "loose.txt").write_text("a document in no class folder")
    with pytest.raises(DatasetError) as caught:
        document_members(tmp_path / "docs")
    message = str(caught.value)
    assert "loose.txt" in message and "class subfolders" in message and "\n" not in message
    (tmp_path / "docs" / "loose.txt").unlink()
    members, labelled = document_members(tmp_path / "docs")
    assert members == {"sport/1.txt": b"goal"} and labelled


# ----------------------------------------------- 15. a row too wide is refused before it is read

def test_a_very_wide_row_is_refused_before_its_values_are_parsed(iris_model, tmp_path,
                                                                 run_multisvm, monkeypatch):
    from multisvm_cli.data import delimited

    wide = tmp_path / "wide.csv"
    wide.write_text(",".join(["1"] * 200_000) + "\n")

    def never(*args, **kwargs):
        raise AssertionError("the whole table was parsed")

    monkeypatch.setattr(delimited, "read", never)
    refused(run_multisvm("predict", iris_model, wide), "wide.csv:1:", "200000 columns",
            "takes 4 features")


# ---------------------------------------------------- --proba refused with the way to get it

def test_the_proba_refusal_says_how_to_get_probabilities(iris_model, tmp_path, run_multisvm):
    points = _iris_csv(tmp_path / "x.csv")
    refused(run_multisvm("predict", iris_model, points, "--proba"),
            "this 1-v-r model gives no class probabilities: it was trained without them",
            "scheme_options: {ovr: {probability: true}}", "or drop --proba")


def test_a_named_label_on_a_headerless_file_names_predicts_own_option(iris_model, tmp_path,
                                                                      run_multisvm):
    """(issue #56) predict's hint is its --label option, never the config key header: true."""
    rows = _iris_csv(tmp_path / "rows.csv")
    rows.write_text("".join(line + ",0\n" for line in rows.read_text().splitlines()))
    line = refused(run_multisvm("predict", iris_model, rows, "--label", "species"),
                   "label column 'species' is named but the file has no header row",
                   "give its index with --label (0..4)")
    assert "header: true" not in line
