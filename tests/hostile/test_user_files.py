"""Hostile input, round two (issue #21), table-driven: local data, user cards, `multisvm report`,
the resume cache and model folders. Each case builds its files under the test's folder and
runs one command; it must give the exit code it should, exactly one ``error:`` or ``warning:``
line naming the user's file and the offending key, line or point, no traceback, and no file
created, changed or deleted outside the folders it may write to.

The finding each case answers is the number in its name (see the issue). Cases that need no
command line (the estimators' ``n_jobs``, the download's file mode) follow the table.
"""

import hashlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest
from configs import config_text
from sklearn.datasets import load_iris

from multisvm_cli.cli.main import main

GOOD = config_text(name="good", dataset=["iris", "wine"], schemes=["ovr", "maxwins"])
X, Y = load_iris(return_X_y=True)


def local_config(folder, path, **entry):
    """A config running the local file ``path`` (relative to ``folder``); its path."""
    item = ", ".join(f"{k}: {v}" for k, v in {"name": "mine", "path": path, **entry}.items())
    config = folder / "local.yaml"
    config.write_text(config_text(name="local", dataset=None, kernels=[{"type": "linear"}],
                                  C=[1], schemes=["ovr"]) + f"dataset: [{{{item}}}]\n")
    return config


def svmlight(folder, extra):
    """Iris as svmlight with ``extra`` appended to its first line; its file name."""
    lines = [f"{c} " + " ".join(f"{j + 1}:{v}" for j, v in enumerate(row)) for row, c in zip(X, Y)]
    lines[0] += extra
    (folder / "data.svm").write_text("\n".join(lines) + "\n")
    return "data.svm"


# --------------------------------------------------------------------------- case builders
# Each takes (tmp_path, run_folder) and returns (argv, the folders it may write under).

def huge_index(index):
    def build(tmp, _):
        return ["validate", local_config(tmp, svmlight(tmp, f" {index}:1"))], ()
    return build


def user_card(**changes):
    """A user card ``evil`` (glass's data) in ``tmp/cards``, a mirror holding its file, and
    ``datasets fetch evil`` into ``tmp/home``."""
    def build(tmp, _):
        mirror = Path(os.environ.get("MULTISVM_MIRROR", "/nonexistent"))
        if not (mirror / "glass" / "glass.data").is_file():
            pytest.skip("dataset mirror is absent")
        data = (mirror / "glass" / "glass.data").read_bytes()
        card = (Path(__file__).parents[2] / "datasets" / "glass.yaml").read_text()
        card = card.replace("name: glass\n", "name: evil\n")
        folder = changes.get("folder", "evil").replace("TMP", str(tmp))
        name = changes.get("file", "glass.data")
        card = card.replace("- name: glass.data", f"- name: '{name}'")
        card += f"folder: '{folder}'\n"
        if "sha256" in changes:
            card = card.replace(hashlib.sha256(data).hexdigest(), changes["sha256"])
        (tmp / "cards").mkdir()
        (tmp / "cards" / "evil.yaml").write_text(card)
        source = tmp / "m" / "mirror" / folder / name
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_bytes(data)
        return (["datasets", "fetch", "evil", "--cards", tmp / "cards", "--mirror",
                 tmp / "m" / "mirror", "--data-home", tmp / "home"], ("home",))
    return build


def card_text(text):
    def build(tmp, _):
        (tmp / "cards").mkdir()
        (tmp / "cards" / "evil.yaml").write_text(text)
        return ["datasets", "info", "evil", "--cards", tmp / "cards"], ()
    return build


def card_on_dev_zero(tmp, _):
    (tmp / "cards").mkdir()
    (tmp / "cards" / "evil.yaml").symlink_to("/dev/zero")
    return ["datasets", "info", "evil", "--cards", tmp / "cards"], ()


def report_of(damage):
    """``multisvm report`` of a copy of a finished run, damaged by ``damage(copy, tmp)``."""
    def build(tmp, run_folder):
        copy = tmp / "run"
        shutil.copytree(run_folder, copy)
        damage(copy, tmp)
        return ["report", copy], ()
    return build


def symlinked_figures(copy, tmp):
    shutil.rmtree(copy / "figures")
    (tmp / "elsewhere").mkdir()
    (tmp / "elsewhere" / "holiday.png").write_bytes(b"\x89PNG mine")
    (copy / "figures").symlink_to(tmp / "elsewhere")


def edit_results(change):
    def damage(copy, _):
        saved = json.loads((copy / "results.json").read_text())
        change(saved)
        (copy / "results.json").write_text(json.dumps(saved))
    return damage


def cut_grid(copy, _):
    text = (copy / "grid.csv").read_text()
    (copy / "grid.csv").write_text(text[:text.rstrip("\n").rfind("\n") + 15])


def npz_header(tmp, _):
    """An npz whose X.npy header says 100,000 x 3,000 float64 (2.4 GB): refused from the
    header, before a byte of data is read."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False,
                                                  "shape": (100_000, 3_000)})
    y = io.BytesIO()
    np.save(y, np.arange(100_000) % 2)
    with zipfile.ZipFile(tmp / "big.npz", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("X.npy", header.getvalue() + bytes(1 << 16))
        archive.writestr("y.npy", y.getvalue())
    return ["validate", local_config(tmp, "big.npz")], ()


def symlink_loop(tmp, _):
    (tmp / "loop.csv").symlink_to(tmp / "loop.csv")
    return ["validate", local_config(tmp, "loop.csv")], ()


def model_on_dev_zero(tmp, run_folder):
    model = tmp / "model"
    shutil.copytree(run_folder.parents[1] / "model", model)
    (model / "model.npz").unlink()
    (model / "model.npz").symlink_to("/dev/zero")
    return ["evaluate", model], ()


def cache_entries(edit):
    """``reproduce-table`` again over a copy of the run's results root whose cache entries
    ``edit(entry)`` changed."""
    def build(tmp, run_folder):
        shutil.copytree(run_folder.parents[1], tmp / "out", symlinks=True)
        for entry in sorted((tmp / "out" / "good" / "cache").glob("*.json")):
            edit(entry)
        return (["reproduce-table", run_folder.parents[2] / "good.yaml", "--out", tmp / "out",
                 "-q"], ("out/good/",))
    return build


def on_dev_zero(entry):
    if entry == sorted(entry.parent.glob("*.json"))[0]:
        entry.unlink()
        entry.symlink_to("/dev/zero")


def consistent_lie(entry):
    """The issue's edit: no errors out of one validation point, where the split has more."""
    stored = json.loads(entry.read_text())
    stored["result"].update(n_errors=0, n_validation=1, validation_error=0.0)
    entry.write_text(json.dumps(stored))


def other_columns(tmp, _):
    np.savetxt(tmp / "train.csv", np.column_stack([X, Y]), delimiter=",")
    np.savetxt(tmp / "test.csv", np.column_stack([X[:, :3], Y]), delimiter=",")
    config = local_config(tmp, "train.csv", test_path="test.csv")
    config.write_text(config.read_text().replace("split: {test_fraction: 0.3, seed: 1}\n", ""))
    return ["reproduce-table", config, "--out", tmp / "out", "-q"], ()


def huge_values(tmp, _):
    values = X.copy()
    values[5, 2], values[7, 1] = 1.5e308, -1.5e308
    np.savetxt(tmp / "big.csv", np.column_stack([values, Y]), delimiter=",", fmt="%.17g")
    return ["validate", local_config(tmp, "big.csv")], ()


def polynomial(degree, command):
    def build(tmp, _):
        config = tmp / "poly.yaml"
        config.write_text(config_text(name="poly", scaling="none", C=[1], schemes=["ovr"],
                                      kernels=[{"type": "polynomial", "degree": degree}]))
        extra = ["--out", tmp / "out", "-q"] if command == "reproduce-table" else []
        return [command, config, *extra], ("out/",)
    return build


def merge_override(tmp, _):
    config = tmp / "merge.yaml"
    config.write_text(GOOD.replace("  - {type: gaussian, sigma: [1, 2]}",
                                   "  - &g {type: gaussian, sigma: [1]}\n"
                                   "  - {<<: *g, sigma: [2]}"))
    return ["validate", config], ()


ZEROS = "0" * 64

# name -> (builder, exit code, "error" or "warning" or None, fragments of the one line)
CASES = {
    "1 svmlight index 2^31-1": (huge_index(2**31 - 1), 2, "error",
                                ["data.svm:1: index 2147483647 makes 2,147,483,647 features",
                                 "stored values"]),
    "1 svmlight index 10^12": (huge_index(10**12), 2, "error",
                               ["data.svm:1: index 1000000000000 is past the largest index"]),
    "2 card folder ../escaped": (user_card(folder="../escaped"), 2, "error",
                                 ["cards/evil.yaml", "folder '../escaped' must be a plain name"]),
    "2 card file ../../../outside.data": (user_card(file="../../../outside.data"), 2, "error",
                                          ["cards/evil.yaml", "file name '../../../outside.data'"
                                           " must be a plain name"]),
    "2 card folder absolute": (user_card(folder="TMP/escaped"), 2, "error",
                               ["cards/evil.yaml", "/escaped' must be a plain name"]),
    "3 report through a symlinked figures/": (report_of(symlinked_figures), 2, "error",
                                              ["run/figures is a symlink"]),
    "5 digest of 64 unquoted zeros": (user_card(sha256=ZEROS), 2, "error",
                                      ["cards/evil.yaml", "sha256 must be a 64-digit hex"]),
    "6 card nested 50000 deep": (card_text("name: " + "[" * 50_000 + "]" * 50_000 + "\n"), 2,
                                 "error", ["cards/evil.yaml", "nested too deeply"]),
    "6 card on /dev/zero": (card_on_dev_zero, 2, "error",
                            ["cards/evil.yaml: not a regular file"]),
    "7 model.npz on /dev/zero": (model_on_dev_zero, 2, "error",
                                 ["model/model.npz: not a regular file"]),
    "4 resume-cache entries that lie consistently": (cache_entries(consistent_lie), 0, "warning",
                                                     ["resume-cache entry refused",
                                                      "n_validation is 1, but the plan scores 32 points"]),
    "7 resume-cache entry on /dev/zero": (cache_entries(on_dev_zero), 0, "warning",
                                          ["resume-cache entry refused", "not a regular file"]),
    "7 npz of 2.4 GB": (npz_header, 2, "error",
                        ["big.npz: 100,000 x 3,000 values are 2,289 MB",
                         "more than memory_mb = 2,048"]),
    "7 data path a symlink loop": (symlink_loop, 2, "error",
                                   ["local.yaml:7: dataset[0].path: file loop.csv cannot be "
                                    "resolved"]),
    "7 results.json dataset a list": (report_of(edit_results(
        lambda s: s["results"][0].update(dataset=["iris"]))), 2, "error",
        ["run/results.json is malformed", "dataset or scheme is not a name"]),
    "7 friedman chi2 abc": (report_of(edit_results(
        lambda s: s["ranking"].update(friedman={"chi2": "abc"}))), 2, "error",
        ["run/results.json is malformed", "friedman is not a test"]),
    "8 grid.csv cut mid-row": (report_of(cut_grid), 2, "error",
                               ["run/grid.csv is malformed (empty or cut off mid-row"]),
    "9 csv values of 1.5e308": (huge_values, 2, "error",
                                ["big.csv:6: column 2: '1.5e+308' is too large",
                                 "sum of squares overflows"]),
    "9 polynomial degree 100 on unscaled data": (polynomial(100, "validate"), 2, "error",
                                                 ["poly.yaml:4: kernels: iris: polynomial degree"
                                                  " 100 reaches (x.y + 1)^100 = 1e210",
                                                  "use degree <= 71"]),
    "9 a fit that is not finite names its point": (polynomial(40, "reproduce-table"), 2,
                                                   "error", ["dataset iris: ovr, kernel="
                                                             "polynomial degree=40", "C=1: "
                                                             "libsvm's dual coefficients are "
                                                             "not finite"]),
    "10 merge key overridden": (merge_override, 0, None, []),
    "10 test_path with other columns": (other_columns, 2, "error",
                                        ["test.csv:1: 3 feature columns", "train.csv has 4"]),
}


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """A finished run of GOOD (iris and wine, 1-v-r and Max Wins) and a model trained beside it:
    ``<tmp>/out/good/<run>`` and ``<tmp>/out/model``."""
    folder = tmp_path_factory.mktemp("finished")
    (folder / "good.yaml").write_text(GOOD)
    for argv in (["reproduce-table", folder / "good.yaml", "--out", folder / "out", "-q"],
                 ["train", folder / "good.yaml", "--scheme", "ovr", "--dataset", "iris", "-o", folder / "out" /
                  "model", "--out", folder / "train-out", "-q"]):
        with pytest.raises(SystemExit) as exited:
            main([str(a) for a in argv])
        assert exited.value.code == 0
    return next((folder / "out" / "good").glob("2*"))


def snapshot(root):
    """Every entry under ``root`` (not following symlinks) with its size and mtime."""
    return {str(p.relative_to(root)): (p.lstat().st_size, p.lstat().st_mtime_ns)
            for p in Path(root).rglob("*") if not p.is_dir() or p.is_symlink()}


@pytest.mark.parametrize("case", sorted(CASES), ids=lambda c: c.replace(" ", "-"))
def test_hostile_input_gives_one_line(case, tmp_path, capsys, finished_run, monkeypatch,
                                      no_network):
    build, code, kind, fragments = CASES[case]
    monkeypatch.setenv("MULTISVM_DATA_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    argv, allowed = build(tmp_path, finished_run)
    before, outside = snapshot(tmp_path), set(os.listdir(tmp_path.parent))
    with warnings.catch_warnings(record=True) as caught, pytest.raises(SystemExit) as exited:
        warnings.simplefilter("always")
        main([str(a) for a in argv])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("error: ")]
    lines += [f"warning: {w.message}" for w in caught if issubclass(w.category, UserWarning)]
    assert exited.value.code == code, err
    assert "Traceback" not in err and len(lines) == (kind is not None), lines
    if kind:
        assert lines[0].startswith(f"{kind}: ") and "\n" not in lines[0]
        assert all(fragment in lines[0] for fragment in fragments), lines[0]
    after = snapshot(tmp_path)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k)
                     and not k.startswith(allowed + ("home/",) if allowed else ("home/",)))
    assert changed == [] and set(os.listdir(tmp_path.parent)) == outside


@pytest.mark.parametrize("edit", [on_dev_zero, consistent_lie], ids=["dev-zero", "lie"])
def test_a_refused_cache_entry_is_recomputed(tmp_path, finished_run, edit):
    """4, 7: a refused entry is recomputed, not counted as cached, and the table is the same."""
    argv, _ = cache_entries(edit)(tmp_path, finished_run)
    with warnings.catch_warnings(record=True), pytest.raises(SystemExit) as exited:
        warnings.simplefilter("always")
        main([str(a) for a in argv])
    assert exited.value.code == 0
    last = sorted((tmp_path / "out" / "good").glob("2*"))[-1]
    points = json.loads((last / "run.json").read_text())["grid_points"]
    computed = points["total"] if edit is consistent_lie else 1
    assert (points["computed"], points["cached"]) == (computed, points["total"] - computed)
    first = json.loads((finished_run / "results.json").read_text())["table"]
    again = json.loads((last / "results.json").read_text())["table"]
    assert [(r["kernel"], r["C"], r["error_pct"]) for r in again] == \
        [(r["kernel"], r["C"], r["error_pct"]) for r in first]


def test_report_deletes_only_the_figures_it_draws(tmp_path, finished_run, capsys):
    """3: a file of the user's in figures/ survives `multisvm report`; a stale figure of the
    run's own goes."""
    copy = tmp_path / "run"
    shutil.copytree(finished_run, copy)
    (copy / "figures" / "notes.png").write_bytes(b"\x89PNG mine")
    (copy / "figures" / "grid-gone-linear.png").write_bytes(b"\x89PNG stale")
    with pytest.raises(SystemExit) as exited:
        main(["report", str(copy)])
    assert exited.value.code == 0, capsys.readouterr().err
    assert (copy / "figures" / "notes.png").read_bytes() == b"\x89PNG mine"
    assert not (copy / "figures" / "grid-gone-linear.png").exists()


def test_an_estimator_with_a_hundred_thousand_jobs_fits_with_one_warning():
    """7: the estimators resolve n_jobs through parallel.resolve_n_jobs (joblib's threading
    backend raised AttributeError on 100,000 workers)."""
    from multisvm_cli.estimators import MaxWinsSVC

    with pytest.warns(UserWarning, match="n_jobs=100000 is more than the"):
        model = MaxWinsSVC(n_jobs=100_000).fit(X, Y)
    assert model.score(X, Y) > 0.95


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_a_downloaded_file_follows_the_umask(tmp_path, monkeypatch, umask):
    """10: a downloaded raw file gets 0o666 & ~umask, not mkstemp's 0600."""
    import urllib.request

    from multisvm_cli.data import download

    body = b"1,2,3\n"

    class Response(io.BytesIO):
        headers = {"Content-Length": str(len(body))}

    monkeypatch.setattr(urllib.request, "urlopen", lambda url, timeout=None: Response(body))
    old = os.umask(umask)
    try:
        download.download("http://example.invalid/x", tmp_path / "x.data", progress=False)
    finally:
        os.umask(old)
    assert (tmp_path / "x.data").stat().st_mode & 0o777 == 0o666 & ~umask


@pytest.mark.slow
def test_sigterm_ends_a_run_as_interrupted_with_exit_143(tmp_path, mirror):
    """10: SIGTERM (batch schedulers, `timeout`) is handled like Ctrl-C: run.json says
    interrupted, the exit code is 128 + 15."""
    config = tmp_path / "slow.yaml"
    config.write_text(config_text(name="slow", dataset="letter", C=[1, 10, 100, 1000],
                                  kernels=[{"type": "gaussian", "sigma": [1, 2, 4, 8]}]))
    env = dict(os.environ, MULTISVM_DATA_HOME=str(tmp_path / "home"),
               MULTISVM_MIRROR=str(mirror), MPLBACKEND="Agg")
    run = subprocess.Popen([sys.executable, "-m", "multisvm_cli", "reproduce-table", str(config),
                            "--out", str(tmp_path / "out"), "-q"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not list((tmp_path / "out").glob("slow/2*/run.json")) and run.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    time.sleep(0.5)
    run.send_signal(signal.SIGTERM)
    _, err = run.communicate(timeout=60)
    meta = json.loads(next((tmp_path / "out").glob("slow/2*/run.json")).read_text())
    assert run.returncode == 143 and "Traceback" not in err, err
    # "interrupted by SIGTERM" inside the run's work, "stopped by SIGTERM" while loading data
    assert meta["status"] == "interrupted"
    assert meta["error"] in ("interrupted by SIGTERM", "stopped by SIGTERM")


def test_a_run_is_marked_done_only_after_report_html_is_in_place(tmp_path, monkeypatch):
    """10: a kill while report.html is written leaves run.json at running, not done."""
    from multisvm_cli.report import html

    seen, write = [], html.write_report

    def watched(folder, *args, **kwargs):
        seen.append(json.loads((Path(folder) / "run.json").read_text())["status"])
        return write(folder, *args, **kwargs)

    monkeypatch.setattr(html, "write_report", watched)
    config = tmp_path / "good.yaml"
    config.write_text(config_text(name="good", schemes=["ovr"]))
    with pytest.raises(SystemExit) as exited:
        main(["reproduce-table", str(config), "--out", str(tmp_path / "out"), "-q"])
    assert exited.value.code == 0 and seen == ["running"]
    folder = next((tmp_path / "out" / "good").glob("2*"))
    assert json.loads((folder / "run.json").read_text())["status"] == "done"
    assert '<tr><th>status</th><td class="text">done</td></tr>' in \
        (folder / "report.html").read_text()  # the page still shows the final run.json
