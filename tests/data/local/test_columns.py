"""A csv table as it comes (examples/penguins.csv: text columns and NA cells): one-hot and
imputed by scikit-learn's transformers fitted on each training part, rows with missing cells
dropped, columns dropped, and each bad table refused in one line before any run folder."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from multisvm_cli import data
from multisvm_cli.data.columns import ColumnOptions
from multisvm_cli.data.encoding import encoded
from multisvm_cli.data.local.files import cache_identity
from multisvm_cli.experiment import load_config
from multisvm_cli.experiment.splits import outer_index_folds, scaled_folds

PENGUINS = Path(__file__).resolve().parents[3] / "examples" / "penguins.csv"
NUMERIC = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g", "year"]


def penguins(tmp_path=None, **options):
    spec = data.LocalSpec(name="penguins", path=PENGUINS, format="csv",
                          options={"label": "species"}, columns=ColumnOptions(**options))
    return data.load_local(spec)


def reference(impute):
    """scikit-learn's own reading of the table: pandas' NA cells, the numeric columns (median
    imputed), then island and sex one-hot (most frequent imputed)."""
    table = pd.read_csv(PENGUINS, na_values=["NA"])
    if not impute:
        table = table.dropna().reset_index(drop=True)
    categorical = OneHotEncoder(sparse_output=False)
    steps = [("numeric", SimpleImputer(strategy="median") if impute else "passthrough", NUMERIC),
             ("categorical", make_pipeline(SimpleImputer(strategy="most_frequent"), categorical)
              if impute else categorical, ["island", "sex"])]
    return table, ColumnTransformer(steps)


@pytest.mark.parametrize("impute", [False, True])
def test_encoded_penguins_equal_scikit_learns_transformers_fitted_on_the_same_rows(impute):
    dataset = penguins(missing="impute" if impute else "drop")
    X, y = dataset.parts["all"]
    table, transformer = reference(impute)
    assert len(y) == len(table) == (344 if impute else 333)
    assert y.tolist() == table["species"].tolist()
    train, test = outer_index_folds(y, _five_folds())[0]
    ours = encoded(dataset.encoding, X[train], X[test])
    theirs = transformer.fit(table.iloc[train])
    np.testing.assert_array_equal(ours[0], theirs.transform(table.iloc[train]))
    np.testing.assert_array_equal(ours[1], theirs.transform(table.iloc[test]))
    assert ours[0].shape[1] == 5 + 3 + 2


def _five_folds():
    from multisvm_cli.experiment.config.forms import Split

    return Split("kfold", k=5, seed=0)


def test_the_protocols_folds_encode_then_scale_on_each_training_part_only(tmp_path):
    config = tmp_path / "p.yaml"
    config.write_text(f"name: p\ndataset: [{{name: penguins, path: {PENGUINS}, label: species, "
                      "features: {missing: impute}}]\nsplit: {method: kfold, k: 5, seed: 0}\n"
                      "schemes: [ovr]\nkernels: [{type: linear}]\nC: [1]\n")
    plan = load_config(config).datasets[0]
    dataset = data.load_local(plan.local)
    table, transformer = reference(True)
    folds = scaled_folds(dataset, plan)
    for fold, (train, test) in zip(folds, outer_index_folds(dataset.parts["all"][1], plan.split)):
        pipeline = make_pipeline(transformer, StandardScaler()).fit(table.iloc[train])
        np.testing.assert_allclose(fold.X_train, pipeline.transform(table.iloc[train]),
                                   atol=1e-12)
        np.testing.assert_allclose(fold.X_test, pipeline.transform(table.iloc[test]), atol=1e-12)


def test_the_report_line_says_what_was_done():
    assert penguins(missing="drop").encoding.note() == (
        "dropped 11 rows with missing cells; one-hot island (3), sex (2)")
    dropped = penguins(missing="drop", drop=("island", "year"))
    assert dropped.encoding.note() == ("dropped columns island, year; dropped 11 rows with "
                                       "missing cells; one-hot sex (2)")
    assert dropped.parts["all"][0].shape == (333, 5)
    assert penguins(missing="impute").provenance["prepared"] == (
        "imputed missing cells (median; most frequent for categories); one-hot island (3), "
        "sex (2)")


def test_a_changed_column_option_is_another_cache_key():
    keys = [cache_identity(penguins(**options)) for options in (
        {"missing": "drop"}, {"missing": "impute"}, {"missing": "drop", "drop": ("year",)},
        {"missing": "drop", "unseen": "zeros"})]
    assert all(a != b for i, a in enumerate(keys) for b in keys[i + 1:])
    assert cache_identity(penguins(missing="drop")) == keys[0]  # the same options: reused


def test_a_numeric_file_reads_and_records_as_before(tmp_path):
    path = tmp_path / "n.csv"
    path.write_text("a,b,label\n1,2,x\n3,4,y\n5,6,x\n7,8,y\n")
    spec = data.LocalSpec(name="n", path=path, format="csv")
    dataset = data.load_local(spec)
    assert dataset.encoding is None and "prepared" not in dataset.provenance
    assert dataset.parts["all"][0].dtype == np.float64


# --------------------------------------------------------------------------- bad input

BAD = {
    "unique strings": ("name,a,label\nann,1,x\nbob,2,y\ncid,3,x\ndee,4,y\neve,5,x\nfay,6,y\n"
                       "gus,7,x\nhal,8,y\nivy,9,x\njon,10,y\nkim,11,x\nlee,12,y\n", [],
                       "column 0 ('name') has 12 distinct texts in 12 rows (a name or an id?)"),
    "impute an all-missing column": ("a,b,label\n1,NA,x\n2,?,y\n3,,x\n4,nan,y\n",
                                     ["--missing", "impute"],
                                     "b is missing in every row: nothing to impute it from; "
                                     "--drop it"),
    "drop a column that is not there": ("a,bee,label\n1,2,x\n3,4,y\n5,6,x\n7,8,y\n",
                                        ["--drop", "be"],
                                        "--drop be: no such column; the columns are a, bee, "
                                        "label (did you mean 'bee'?)"),
    "a missing cell": ("a,b,label\n1,2,x\n3,NA,y\n5,6,x\n7,8,y\n", [],
                       "d.csv:3: b is missing (1 rows have a missing cell); --missing drop "
                       "(drop those rows), impute (median / most frequent) or refuse"),
    "one class": ("a,b,label\n1,2,x\n3,NA,y\n5,6,x\n", ["--missing", "drop"],
                  "the label column has one class ('x') in all 2 rows"),
}


@pytest.mark.parametrize("case", BAD)
def test_each_bad_table_is_one_line_exit_2_no_run_folder(case, tmp_path, run_multisvm):
    text, options, expected = BAD[case]
    (tmp_path / "d.csv").write_text(text)
    code, out, err = run_multisvm("compare", tmp_path / "d.csv", "--label", "label", *options,
                                  "--out", tmp_path / "out")
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert expected in err, err
    assert not (tmp_path / "out").exists()


TRAIN = "colour,a,label\nred,1,x\nblue,2,y\nred,3,x\nblue,4,y\nred,5,x\nblue,6,y\n"
TEST = "colour,a,label\nred,1,x\ngreen,2,y\nblue,3,y\n"


def test_a_test_category_the_training_file_lacks_is_refused_or_zeros_as_chosen(tmp_path,
                                                                             run_multisvm):
    (tmp_path / "train.csv").write_text(TRAIN)
    (tmp_path / "test.csv").write_text(TEST)
    code, _, err = run_multisvm("compare", tmp_path / "train.csv", tmp_path / "test.csv",
                                "--label", "label", "--out", tmp_path / "out")
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "colour 'green' is a category the training file" in err and "--unseen zeros" in err
    assert not (tmp_path / "out").exists()
    spec = data.LocalSpec(name="t", path=tmp_path / "train.csv", format="csv",
                          test_path=tmp_path / "test.csv", columns=ColumnOptions(unseen="zeros"))
    dataset = data.load_local(spec)
    assert dataset.encoding.note() == ("one-hot colour (2); 1 test row(s) with categories the "
                                       "training part never saw: all-zero one-hot columns")
    X_train, X_test = encoded(dataset.encoding, dataset.parts["train"][0],
                              dataset.parts["test"][0])
    assert X_test.tolist() == [[1, 0, 1], [2, 0, 0], [3, 1, 0]]  # a, then blue, red


@pytest.mark.parametrize("features, expected", [
    ("{missing: sometimes}", "missing: expected one of refuse, drop, impute, got 'sometimes'"),
    ("{drop: [1]}", "drop: expected column names"),
    ("{unsen: zeros}", "unknown key 'unsen' for a csv table"),
])
def test_validate_refuses_a_bad_features_value_before_a_run(tmp_path, run_multisvm, features,
                                                            expected):
    config = tmp_path / "p.yaml"
    config.write_text(f"name: p\ndataset: [{{name: penguins, path: {PENGUINS}, label: species, "
                      f"features: {features}}}]\nschemes: [ovr]\nkernels: [{{type: linear}}]\n"
                      "C: [1]\n")
    code, _, err = run_multisvm("validate", config)
    assert code == 2 and expected in err, err


def test_compare_runs_penguins_and_says_what_it_did(tmp_path, run_multisvm):
    code, out, err = run_multisvm("compare", PENGUINS, "--label", "species", "--missing", "drop",
                                  "--schemes", "ovr,nb", "--kernel", "linear", "--out",
                                  tmp_path / "out", "-q")
    assert code == 0, err
    line = "data: penguins: dropped 11 rows with missing cells; one-hot island (3), sex (2)."
    assert line in out
    report = next((tmp_path / "out").glob("compare-penguins/*/report.html")).read_text()
    assert line.removeprefix("data: ").rstrip(".") in report
    config = next((tmp_path / "out").glob("compare-penguins/*/config.yaml")).read_text()
    assert "missing: drop" in config


def test_a_fold_testing_a_category_its_training_part_lacks_is_refused_before_the_run(
        tmp_path, run_multisvm):
    rows = [f"{'green' if i == 0 else ('red', 'blue')[i % 2]},{i},{'xy'[i % 2]}"
            for i in range(20)]
    (tmp_path / "d.csv").write_text("colour,a,label\n" + "\n".join(rows) + "\n")
    code, _, err = run_multisvm("compare", tmp_path / "d.csv", "--label", "label",
                                "--schemes", "ovr", "--out", tmp_path / "out")
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "colour 'green' is in outer fold 2's test part but not in its training part" in err
    assert "--unseen zeros" in err and not (tmp_path / "out").exists()
