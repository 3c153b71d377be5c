"""`multisvm report` refuses a run folder whose config.yaml was edited or deleted (issue #41)."""

import pytest

from helpers import refused

LINEAR = [{"type": "linear"}]


# -------------------------------------------------------- 8. a run folder's config is checked

@pytest.fixture
def run_folder(tmp_path, write_config, mirror, data_home, no_network):
    from multisvm_cli.experiment import Settings, load_config, reproduce

    config = write_config(kernels=LINEAR, C=[1], schemes=["ovr", "maxwins"])
    return reproduce(load_config(config), Settings(out=str(tmp_path / "out"), quiet=True)).folder


@pytest.mark.parametrize("edit, fragment", [
    (lambda path: path.write_text(path.read_text().replace("C:", "# C:", 1) + "C: [5]\n"),
     "config.yaml is not the config the run wrote"),
    (lambda path: path.unlink(), "lacks config.yaml"),
])
def test_report_refuses_a_run_folder_whose_config_was_edited_or_deleted(
        run_folder, run_multisvm, edit, fragment):
    assert run_multisvm("report", run_folder, "--no-figures").code == 0  # untouched: redrawn
    edit(run_folder / "config.yaml")
    report = (run_folder / "report.html").read_bytes()
    refused(run_multisvm("report", run_folder, "--no-figures"), str(run_folder), fragment)
    assert (run_folder / "report.html").read_bytes() == report
