"""report.html can be sent to someone: no host name and no absolute path of the data, the
mirror, the data home or the home folder, while run.json keeps them; ``multisvm report``
redraws the page the same way."""

import json
import os
import socket

import pytest
from sklearn.datasets import load_iris

from helpers import run_cli
from multisvm_cli.report.shared import shareable_meta, shareable_text

HOST = "lab-r55.example.org"


def test_a_shared_report_names_files_not_places_and_no_host(tmp_path, data_home,
                                                             monkeypatch):
    real_host = socket.gethostname()
    monkeypatch.setattr(socket, "gethostname", lambda: HOST)
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    data = home / "my data" / "iris.csv"  # a space in the folder's name
    data.parent.mkdir(parents=True)
    load_iris(as_frame=True).frame.to_csv(data, index=False)
    mirror = os.path.abspath(os.environ.get("MULTISVM_MIRROR") or tmp_path / "mirror")
    out = tmp_path / "out"
    result = run_cli("compare", data, "--label", "target", "--schemes", "ovr,nb", "--out", out,
                     "--mirror", mirror, "--data-home", data_home, "--quiet", "--no-figures")
    assert result.code == 0, result.err
    (run,) = (out / "compare-iris-data").glob("2*")
    meta = json.loads((run / "run.json").read_text())
    assert meta["hostname"] == HOST  # run.json keeps the provenance in full
    assert meta["local_data"]["iris-data"]["files"]["iris.csv"]["path"] == str(data)
    assert {str(data), mirror, str(data_home), str(out)} <= set(meta["argv"])
    page = (run / "report.html").read_text()
    _shareable(page, [str(tmp_path), str(home), mirror, str(data_home)], real_host)
    digest = meta["local_data"]["iris-data"]["files"]["iris.csv"]["sha256"]
    assert digest in page and "path: iris.csv" in page  # the config shows the file's name
    assert "&quot;--out&quot;, &quot;out&quot;" in page  # a folder: by its name
    moved = tmp_path / "elsewhere" / run.name  # the page names the run folder
    moved.parent.mkdir()
    run.rename(moved)
    (moved / "report.html").unlink()
    again = run_cli("report", moved, "--no-figures")
    assert again.code == 0, again.err
    assert (moved / "report.html").read_text() == page  # redrawn the same way, moved too


def _shareable(page, places, real_host):
    assert HOST not in page and f">{real_host}<" not in page
    for place in places:
        assert place not in page, place


@pytest.mark.parametrize("text, shown", [
    ("# resolved from /srv/me/q.yaml (defaults)", "# resolved from q.yaml (defaults)"),
    ("--out=/runs/results", "--out=results"),
    ("path: '/runs/data/wine.csv'", "path: 'wine.csv'"),
    ("/elsewhere/", "elsewhere"),
    ("C:\\Users\\jo\\wine.csv", "wine.csv"),
    ("(3/5 folds) Max Wins/DAGSVM/ADAG, 1 / 8, ratio 70/30", None),  # no path: as it is
    ("see https://example.org/a/b and docs/guides/own-data.md", None),
])
def test_each_absolute_path_is_shown_by_its_name(text, shown):
    assert shareable_text(text) == (text if shown is None else shown)


def test_a_path_run_json_names_is_rewritten_whole_and_not_inside_a_longer_one():
    meta = {"argv": ["/home/jo/My Data/x y.csv", "/home/jo/out"], "hostname": HOST}
    text = "/home/jo/My Data/x y.csv, /home/jo/out2/z.csv, /home/jo/out"
    assert shareable_text(text, meta) == "x y.csv, z.csv, out"
    assert shareable_meta(meta) == {"argv": ["x y.csv", "out"]}
