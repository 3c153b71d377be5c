"""A drawn ECOC code never gives two classes one row, and an option that does not apply to
the chosen code is refused (issue 56).

Before: ``{code: dense, code_size: 0.01}`` on iris drew [[1], [1], [-1]] (class 1 never
predicted, 33% error) and ``validate`` passed it; ``code_size`` with ``code: ovr`` was ignored.
"""

import numpy as np
import pytest

from multisvm_cli.estimators._codes import code_matrix, random_code
from multisvm_cli.estimators.ecoc import ECOCSVC
from tests.helpers import refused, run_cli


def ecoc_config(write_config, **options):
    return write_config(schemes=["ecoc"], C=[1], scheme_options={"ecoc": options})


@pytest.mark.parametrize("command", ["validate", "reproduce-table"])
def test_a_dense_code_too_small_for_distinct_rows_is_refused(write_config, tmp_path, command):
    config = ecoc_config(write_config, code="dense", code_size=0.01)
    extra = ["--out", tmp_path / "out"] if command == "reproduce-table" else []
    line = refused(run_cli(command, config, *extra), "scheme_options.ecoc.code_size: iris: ")
    assert line.endswith("code dense with code_size 0.01 has 1 column for 3 classes, so some "
                         "classes would share a row and never be told apart; 3 classes need at "
                         "least 2 columns: code_size >= 0.667"), line


@pytest.mark.parametrize("options, fragment", [
    ({"code": "ovr", "code_size": 0.5},
     "scheme_options.ecoc.code_size: code_size applies to the dense and sparse codes only "
     "(their draw), not to code ovr; remove it"),
    ({"code": "exhaustive", "code_seed": 3},
     "scheme_options.ecoc.code_seed: code_seed applies to the dense and sparse codes only"),
    ({"code": [[1, 1], [1, -1], [-1, 1]], "code_size": 2},
     "code_size applies to the dense and sparse codes only (their draw), not to an explicit "
     "code matrix"),
])
def test_an_option_that_does_not_apply_to_the_code_is_refused(write_config, options, fragment):
    refused(run_cli("validate", ecoc_config(write_config, **options)), fragment)


def test_options_that_apply_pass(write_config):
    code, _, err = run_cli("validate", ecoc_config(write_config, code="sparse", code_size=1,
                                                   code_seed=4))
    assert code == 0, err


def test_no_draw_of_equal_rows_is_kept():
    """16 classes in 4 dense columns: every draw repeats a row, so none is kept (it was
    returned, two classes sharing a row)."""
    with pytest.raises(ValueError, match="no valid dense code of 4 columns for 16 classes "
                                         r"\(every column a problem once, every row different\)"):
        code_matrix("dense", 16, 0.25, 0)


@pytest.mark.parametrize("k, sparse, columns", [(4, False, 2), (8, False, 3), (8, True, 2),
                                                (5, False, 3), (4, True, 2)])
def test_codes_with_the_fewest_columns_have_different_rows(k, sparse, columns):
    for seed in range(3):
        code = random_code(k, columns, sparse, seed)
        assert len(np.unique(code, axis=0)) == k, code


def test_a_local_file_of_16_classes_is_refused_by_validate(tmp_path, write_config):
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(16), 10)
    rows = [f"{a:.4f},{b:.4f},c{label}" for (a, b), label in zip(rng.normal(size=(160, 2)), y)]
    (tmp_path / "k16.csv").write_text("a,b,label\n" + "\n".join(rows) + "\n")
    config = write_config(dataset=[{"name": "k16", "path": "k16.csv", "label": "label"}],
                          schemes=["ecoc"], C=[1],
                          scheme_options={"ecoc": {"code": "dense", "code_size": 0.25}})
    refused(run_cli("validate", config), "scheme_options.ecoc.code_size: k16: no valid dense "
                                         "code of 4 columns for 16 classes")


def test_the_estimator_refuses_too_few_columns():
    X = np.arange(12.0).reshape(6, 2)
    with pytest.raises(ValueError, match="has 1 column for 3 classes"):
        ECOCSVC(code="dense", code_size=0.01).fit(X, [0, 0, 1, 1, 2, 2])
