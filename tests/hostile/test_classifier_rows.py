"""Hostile input, round four (issue #41), the config's share: a user's classifier row whose
nested option is not ``{scheme, options}`` (finding 12: an AttributeError traceback from
scikit-learn's tags), and two rows without labels (finding 16: "has a repeated value" naming
neither row nor the fix). Each test fails without its fix."""

import pytest

ROW = "sklearn.multiclass:OutputCodeClassifier"
HINT = "takes a classifier here, written {scheme: package.module:ClassName, options: {...}}"


def _validate(write_config, run_multisvm, *rows):
    """``multisvm validate`` of the base config with the schemes maxwins and ``rows``: (exit
    code, the lines of stderr, the config's path)."""
    path = write_config(kernels=[{"type": "linear"}], C=[1], schemes=["maxwins", *rows])
    result = run_multisvm("validate", path)
    return result.code, result.err.splitlines(), path


@pytest.mark.parametrize("estimator, key, message", [
    (5, "schemes[1].options.estimator", f"{ROW} {HINT}; got 5"),
    ("sklearn.svm:LinearSVC", "schemes[1].options.estimator",
     f"{ROW} {HINT}; got 'sklearn.svm:LinearSVC'"),
    ({"scheme": "sklearn.svm:LinearSVC", "options": {}, "extra": 1},
     "schemes[1].options.estimator.extra", "unknown key 'extra'; allowed keys: scheme, options"),
    ({"scheme": ROW, "options": {"estimator": "x"}},
     "schemes[1].options.estimator.options.estimator", f"{ROW} {HINT}; got 'x'"),
])
def test_a_nested_option_not_of_the_row_form_is_one_line(write_config, run_multisvm, estimator,
                                                         key, message):
    code, lines, path = _validate(write_config, run_multisvm,
                                  {"scheme": ROW, "label": "occ",
                                   "options": {"estimator": estimator}})
    assert code == 2 and lines == [f"error: {path}:7: {key}: {message}"]


def test_a_nested_classifier_of_the_row_form_is_valid(write_config, run_multisvm):
    code, lines, _ = _validate(write_config, run_multisvm,
                               {"scheme": ROW, "label": "occ",
                                "options": {"estimator": {"scheme": "sklearn.svm:LinearSVC",
                                                          "options": {"C": 2}}}})
    assert code == 0 and lines == []


def test_two_rows_of_one_name_are_named_with_the_fix(write_config, run_multisvm):
    rows = [{"scheme": "sklearn.svm:LinearSVC", "options": {"C": c}} for c in (1, 10)]
    code, lines, path = _validate(write_config, run_multisvm, *rows)
    assert code == 2 and lines == [
        f"error: {path}:7: schemes[2]: rows schemes[1] and schemes[2] are both named "
        f"'LinearSVC' (a row without a label is named after its class); give each row its own "
        f"label, e.g. label: LinearSVC-2"]
    rows[1]["label"] = "LinearSVC-2"
    assert _validate(write_config, run_multisvm, *rows)[0] == 0
