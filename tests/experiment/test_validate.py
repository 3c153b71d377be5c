"""`multisvm validate` runs every check a run would: what it refuses gets one
`file:line: key: message` line, exit code 2 and no run folder; what it accepts also runs.

The cases are those a new user hit on main before the experiment layer (each used to pass
validate and fail later, or to pass silently with a wrong meaning)."""


import pytest
from configs import GLASS_TEN_FOLDS, config_text, write

from multisvm_cli.cli.main import main

BASE = config_text()

# name -> (replace this, by that) in BASE, expected line, fragment of the message
REFUSED = {
    "negative seed": (("schemes: [ovr, maxwins, dag]", "schemes: [ovr, maxwins, dag]\nseed: -1"),
                      8, "seed: a seed must be an integer from 0 to 4294967295, got -1"),
    "k-fold larger than the dataset": (("split: {test_fraction: 0.3, seed: 1}",
                                        "split: {method: kfold, k: 200}"), 3,
                                       "split: iris: 200 stratified folds need 200 rows or more, "
                                       "and a class with 200 rows or more"),
    "k-fold larger than every class": (("split: {test_fraction: 0.3, seed: 1}",
                                        "split: {method: kfold, k: 60}"), 3,
                                       "split: iris: 60 stratified folds need 60 rows or more, "
                                       "and a class with 60 rows or more"),
    "validation k-fold larger than a training part's classes": (
        ("split: {test_fraction: 0.3, seed: 1}",
         "split: {test_fraction: 0.3, seed: 1}\nvalidation: {method: kfold, k: 40}"), 4,
        "validation: iris: 40 stratified folds need 40 rows or more, and a class with 40 rows "
        "or more (each fold tests one); the data has 105 rows, at most 35 of a class"),
    "test fraction leaving too few training rows": (("test_fraction: 0.3", "test_fraction: 0.999"),
                                                    3, "split: iris: a stratified split of 150 "
                                                       "rows into 0 and 150 needs every one of "
                                                       "the 3 classes on both sides"),
    "graph threshold not a number": (
        ("schemes: [ovr, maxwins, dag]", "schemes: [ovr, graph]\nscheme_options: "
                                         "{graph: {threshold: abc}}"),
        8, "scheme_options.graph.threshold: threshold must be a number in [0, 1), got 'abc'; "
           "allowed: a number in [0, 1)"),
    "dag order random": (("schemes: [ovr, maxwins, dag]", "schemes: [ovr, maxwins, dag]\n"
                                                          "scheme_options: {dag: {order: random}}"),
                         8, "scheme_options.dag.order: order must list every class exactly once"),
    "dag order not the dataset's classes": (
        ("schemes: [ovr, maxwins, dag]", "schemes: [ovr, maxwins, dag]\n"
                                         "scheme_options: {dag: {order: [0, 1, 7]}}"),
        8, "scheme_options.dag.order: iris: order must list every class exactly once: [0, 1, 2]"),
    "compare_to a scheme not run": (("schemes: [ovr, maxwins, dag]",
                                     "schemes: [dag, maxwins]\ncompare_to: ovr"), 8,
                                    "compare_to: scheme 'ovr' is not run; choose one of the "
                                    "schemes: dag, maxwins"),
    "sigma that underflows gamma": (("sigma: [1, 2]", "sigma: [1, 1.0e-200]"), 5,
                                    "kernels[0].sigma: sigma must be a number in [7.46e-155, "
                                    "4.74e+153]"),
    "sigma that overflows": (("sigma: [1, 2]", "sigma: 1.0e+200"), 5,
                             "kernels[0].sigma: sigma must be a number in"),
    "huge polynomial degree": (("{type: gaussian, sigma: [1, 2]}",
                                "{type: polynomial, degree: 1180591620717411303424}"), 5,
                               "kernels[0].degree: degree must be an integer in [1, 100]"),
    "C too large for libsvm": (("C: [1, 10]", "C: [1, 1.0e+17]"), 6,
                               "C[1]: C must be a number in (0, 4.5e+15]"),
    "sexagesimal C": (("C: [1, 10]", "C: [1:30]"), 6, "C[0]: expected a number, got '1:30'"),
    "name with a newline": (("name: small", 'name: "a\\nb"'), 1, "name: expected a folder-safe name"),
    "name of 300 characters": (("name: small", "name: " + "n" * 300), 1,
                               "name: expected a folder-safe name"),
    "grid above the limit": (("sigma: [1, 2]", "sigma: [" + ", ".join(str(i + 1) for i in range(6000))
                              + "]"), 4, "kernels: the grid has 12000 points, more than "
                                         "max_grid_points = 10000"),
    "max_grid_points below the grid": (("C: [1, 10]", "C: [1, 10]\nmax_grid_points: 3"), 4,
                                       "kernels: the grid has 4 points, more than "
                                       "max_grid_points = 3"),
    "no repeat": (("schemes: [ovr, maxwins, dag]", "schemes: [ovr, maxwins, dag]\nrepeats: 0"),
                  8, "repeats: must be > 0, got 0"),
    "repeats not an integer": (("schemes: [ovr, maxwins, dag]",
                                "schemes: [ovr, maxwins, dag]\nrepeats: 2.5"),
                               8, "repeats: expected an integer, got 2.5"),
    "repeats past the largest seed": (("schemes: [ovr, maxwins, dag]",
                                       "schemes: [ovr, maxwins, dag]\nseed: 4294967295\n"
                                       "repeats: 2"),
                                      9, "repeats: iris: seed 4294967295 + 1 repeats passes the "
                                         "largest seed 4294967295"),
    "repeats of a split without a seed": (("dataset: iris\nsplit: {test_fraction: 0.3, seed: 1}",
                                           "dataset: covertype\nsplit: standard\n"
                                           "validation: given\nrepeats: 3"),
                                          5, "repeats: covertype: a standard split with given "
                                             "validation has no seed"),
    "dag_orders without dag": (("schemes: [ovr, maxwins, dag]",
                                "schemes: [ovr, maxwins]\ndag_orders: 3"),
                               8, "dag_orders: the DAG order study needs the dag scheme"),
    "negative dag_orders": (("schemes: [ovr, maxwins, dag]",
                             "schemes: [ovr, maxwins, dag]\ndag_orders: -1"),
                            8, "dag_orders: must be an integer from 0 to 100000, got -1"),
}


@pytest.mark.parametrize("case", sorted(REFUSED), ids=lambda c: c.replace(" ", "-"))
def test_validate_refuses_what_a_run_would_refuse(case, tmp_path, run_multisvm, monkeypatch):
    (old, new), line, fragment = REFUSED[case]
    assert old in BASE
    path = write(tmp_path, BASE.replace(old, new))
    monkeypatch.chdir(tmp_path)
    for command in (["validate", path], ["reproduce-table", path, "--out", "out"]):
        code, _, err = run_multisvm(*command)
        assert code == 2, (command, err)
        lines = [x for x in err.splitlines() if not x.startswith("warning: ")]
        assert len(lines) == 1 and lines[0].startswith(f"error: {path}:{line}: "), err
        assert fragment in lines[0], err
        assert "Traceback" not in err
    assert not (tmp_path / "out").exists()  # nothing written


# (replace this, by that) -> what the accepted config must mean
ACCEPTED = {
    "exponent without a dot is a number": (("C: [1, 10]", "C: [1e2, 10]"), [100.0, 10.0]),
    "a leading zero is decimal": (("C: [1, 10]", "C: [1, 010]"), [1.0, 10.0]),
}


@pytest.mark.parametrize("case", sorted(ACCEPTED), ids=lambda c: c.replace(" ", "-"))
def test_what_validate_accepts_runs(case, tmp_path, run_multisvm, monkeypatch):
    from multisvm_cli.experiment import load_config

    (old, new), Cs = ACCEPTED[case]
    path = write(tmp_path, BASE.replace(old, new))
    assert sorted({p.C for p in load_config(path).datasets[0].grid}) == sorted(Cs)
    monkeypatch.chdir(tmp_path)
    for command in (["validate", path], ["reproduce-table", path, "--out", "out"]):
        code, _, err = run_multisvm(*command)
        assert code == 0, err
    assert len(list((tmp_path / "out" / "small").glob("2*"))) == 1


def test_glass_ten_folds_is_valid_with_its_warning_and_the_true_fit_count(
        mirror, data_home, capsys, write_config):
    path = write_config(**{**GLASS_TEN_FOLDS, "name": None, "C": [1, 10], "kernels": [
        {"type": "linear"}, {"type": "gaussian", "sigma": [1, 2, 4]}]})
    with pytest.raises(SystemExit) as exited, pytest.warns(
            UserWarning, match="glass: The least populated class in y has only 9 members"):
        main(["validate", str(path), "--mirror", str(mirror)])
    captured = capsys.readouterr()
    assert exited.value.code == 0
    # 10 outer folds x 8 points: 80 fits to select, 10 to test
    assert ("# glass: 8 grid points; 10 outer fold(s) x 1 validation split(s) x 8 points over 1 "
            "scheme families (1-v-r) = 80 selection fits, + 10 final fits") in captured.out


@pytest.mark.parametrize("text, fragment", [
    ("a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
     + "".join(f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
               for p, c in zip("abcdefg", "bcdefgh")) + "dataset: iris\n",
     "more than 100000 values once aliases are expanded"),
    ("[" * 20000, "nested too deeply to be a config"),
])
def test_configs_that_would_exhaust_memory_or_the_stack_are_refused(text, fragment, tmp_path,
                                                                     capsys):
    path = write(tmp_path, text)
    with pytest.raises(SystemExit) as exited:
        main(["validate", str(path)])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and err.count("\n") == 1 and fragment in err, err


def test_a_config_that_is_not_a_regular_file_or_too_large_is_refused(tmp_path, capsys):
    big = write(tmp_path, "# " + "x" * (1 << 20) + "\n", "big.yaml")
    for path, fragment in (("/dev/zero", "not a regular file"), (big, "larger than 1 MiB")):
        with pytest.raises(SystemExit) as exited:
            main(["validate", str(path)])
        err = capsys.readouterr().err
        assert exited.value.code == 2 and fragment in err and err.count("\n") == 1, err
