"""The quick tier, what a contributor runs before each commit: ``python -m pytest -m quick``.

:data:`QUICK` lists its tests, chosen from the durations of the full suite: a fast real test
(one that asserts real numbers or messages) for each module of ``multisvm_cli``, plus the
repository checks. It maps a test file to the names of its tests in the tier (a name with
its ``[...]`` part: that case; without: every case; no name: every test of the file). The
hooks below, imported by conftest.py:

- mark the listed tests ``quick`` (so no test file carries the tier's choice);
- in the quick tier, collect only the files the list names (collecting the whole suite takes
  longer than most of the tier);
- whenever the whole of tests/ is collected (the full suite, the quick tier), fail at once,
  naming the entry, if an entry matches no test: a renamed test cannot shrink the tier
  silently;
- at the end of the quick tier (``-m quick`` alone, over the whole of tests/, run to the end),
  fail naming every module that no test touched (see touched.py): a new module needs a quick
  test. :data:`IN_A_CHILD_PROCESS` names the modules that only a real process runs, each with
  the listed test that runs it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from touched import Touched

TESTS = Path(__file__).resolve().parent
PACKAGE = TESTS.parent / "multisvm_cli"

QUICK = {  # test file: its tests in the tier (none named: all of them)
    "tests/base/test_hashing.py": ("test_text_features_cache_digest_is_unchanged",),
    "tests/cli/test_cli_compare.py": (
        "test_compare_refuses_bad_files_before_any_run_folder[args4-fragments4]",
    ),
    "tests/cli/test_cli_datasets.py": (
        "test_fetch_into_an_unwritable_data_home_is_one_error_line",
    ),
    "tests/cli/test_cli_quickstart.py": ("test_quickstart_cli_runner_then_subprocess",),
    "tests/cli/test_light_cli.py": ("test_every_help_imports_no_heavy_library",),
    "tests/data/formats/test_data_formats.py": (
        "test_a_registered_format_loads_a_card_and_its_parsed_cache",
    ),
    "tests/data/local/test_columns.py": (
        "test_encoded_penguins_equal_scikit_learns_transformers_fitted_on_the_same_rows[True]",
    ),
    "tests/data/local/test_columns_saved.py": (
        "test_saved_encoding_predicts_as_scikit_learns_transformers_fitted_on_the_training_rows"
        "[impute]",
    ),
    "tests/data/local/test_local_data.py": (
        "test_each_bad_file_is_one_line_with_file_and_line_exit_2_no_run_folder[npz object array]",
        "test_svmlight_columns_are_the_union_of_train_and_test",
    ),
    "tests/data/test_data_load.py": ("test_usps_split_and_scale",),
    "tests/data/test_delimited.py": (
        "test_a_card_file_and_a_users_csv_accept_the_same_files[bom and crlf]",
    ),
    "tests/estimators/joint/test_all_together.py": (
        "test_each_formulations_own_bounds_are_the_box_the_docstrings_write",
    ),
    "tests/estimators/joint/test_linear.py": (
        "test_the_primal_path_reaches_the_kernel_duals_optimum[40-3-0.5-ww]",
    ),
    "tests/estimators/joint/test_ww_steps.py": (
        "test_the_thinned_row_step_keeps_the_large_moves_and_descends[2]",
    ),
    "tests/experiment/config/test_config.py": (
        "test_malformed_config_real_subprocess[unknown scheme]",
    ),
    "tests/experiment/models/test_predict_text.py": (
        "test_a_version_2_model_folder_still_loads_and_predicts",
        "test_the_saved_vocabulary_and_idf_are_the_fitted_vectorizers",
    ),
    "tests/hostile/test_user_cards.py": (
        "test_a_user_text_card_loads_and_names_a_member_that_does_not_decode",
    ),
    "tests/hostile/test_validate_like_a_run.py": (
        "test_a_dag_order_sweep_runs_and_its_report_redraws",
        "test_a_text_folder_whose_documents_hold_no_term_is_refused_by_validate",
    ),
    "tests/persist/test_persist.py": (
        "test_round_trip_predicts_identically_with_the_same_figures[adag]",
        "test_round_trip_predicts_identically_with_the_same_figures[ovr]",
    ),
    "tests/repo/test_architecture.py": (),
    "tests/repo/test_docs.py": (),
    "tests/repo/test_extending.py": (),
    "tests/repo/test_import_cycles.py": (),
    "tests/repo/test_one_home.py": (),
    "tests/repo/test_parameters.py": (),
    "tests/repo/test_paper_pages.py": ("test_both_studies_configs_validate_with_their_codes",),
    "tests/repo/test_quick_tier.py": (),
    "tests/repo/test_readme_outputs.py": (
        "test_readme_has_no_dated_measurement_and_fits_200_lines",
    ),
    "tests/report/figures/test_report_figures.py": ("test_cd_diagram_two_schemes",),
    "tests/report/test_bootstrap.py": (
        "test_equal_classifiers_give_a_zero_interval_and_agree_on_everything",
    ),
    "tests/report/test_hsu_lin_tables.py": ("test_a_range_typed_as_a_number_is_refused",),
    "tests/report/test_report_html.py": ("test_linear_models_are_marked_not_given_kernel_labels",),
    "tests/report/test_shared_report.py": (
        "test_a_path_run_json_names_is_rewritten_whole_and_not_inside_a_longer_one",
    ),
    "tests/report/test_verdict.py": ("test_figure_draws_the_probabilities",),
}

# A module that only a real process runs, and the test of the tier that runs one.
CHILD = ("tests/experiment/config/test_config.py::"
         "test_malformed_config_real_subprocess[unknown scheme]")
IN_A_CHILD_PROCESS = {"multisvm_cli.__main__": CHILD, "multisvm_cli.cli.entry": CHILD}


def entries() -> list[str]:
    """The tier's entries: a file (all its tests) or ``file::test``."""
    return [f"{file}::{test}" if test else file
            for file, tests in QUICK.items() for test in (tests or ("",))]


def _entry(nodeid: str, listed) -> str | None:
    """The entry among ``listed`` that selects the test ``nodeid``, if any."""
    for entry in (nodeid, nodeid.split("[", 1)[0], nodeid.split("::", 1)[0]):
        if entry in listed:
            return entry
    return None


def _whole(config) -> bool:
    """Whether this session collects the whole of tests/ (no narrower paths given)."""
    return all((config.invocation_params.dir / arg.split("::", 1)[0]).resolve() == TESTS
               for arg in config.args)


def _tier(config) -> bool:
    """Whether this session is the quick tier itself: ``-m quick``, nothing narrower."""
    return (config.option.markexpr == "quick" and not config.option.keyword
            and _whole(config))


def pytest_ignore_collect(collection_path, config):
    """In the quick tier, only the test files that :data:`QUICK` names are collected."""
    if (_tier(config) and collection_path.is_file() and collection_path.name.startswith("test_")
            and collection_path.is_relative_to(TESTS)
            and collection_path.relative_to(TESTS.parent).as_posix() not in QUICK):
        return True
    return None


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(config, items):
    """Mark the listed tests ``quick``; over the whole of tests/, refuse an entry that matches
    no collected test."""
    listed, found = set(entries()), set()
    for item in items:
        entry = _entry(item.nodeid, listed)
        if entry is not None:
            item.add_marker(pytest.mark.quick)
            found.add(entry)
    missing = sorted(listed - found)
    if missing and _whole(config):
        raise pytest.UsageError(
            "tests/quick_tier.py lists tests that do not exist (renamed or removed? list the "
            "new name, or another fast test of the same module):\n  " + "\n  ".join(missing))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtestloop(session):
    """In the quick tier, record which modules the tests touch while they run."""
    if not _tier(session.config):
        yield
        return
    touched = session.config.stash[_TOUCHED] = Touched()
    touched.start()
    try:
        yield
    finally:
        touched.stop()


_TOUCHED = pytest.StashKey[Touched]()


def pytest_sessionfinish(session):
    """At the end of a whole quick tier, fail if a module of the package was never touched."""
    touched = session.config.stash.get(_TOUCHED, None)
    if touched is None or session.shouldstop or session.shouldfail:
        return
    untouched = [name for name in touched.untouched(PACKAGE) if name not in IN_A_CHILD_PROCESS]
    if untouched:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        reporter.write("\n")  # after the progress line
        reporter.write_sep("=", "quick tier: modules that no test touched", red=True)
        for name in untouched:
            reporter.write_line(f"  {name}")
        reporter.write_line("Add a fast test of each to QUICK in tests/quick_tier.py.")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
