"""Regenerate the example outputs of README.md and the documentation pages (docs/**/*.md) from
real runs.

Each output sits between marker comments, in README.md or in any page under docs/::

    <!-- output: NAME -->
    ```
    $ multisvm ...
    ...what it printed...
    ```
    <!-- /output -->

and :data:`OUTPUTS` says how NAME is made: the command, how many of its last lines are shown,
the files it needs, and whether it is quick. The same NAME may appear in several pages; each
gets the same body. ``python scripts/readme_outputs.py`` reruns the quick and the medium
outputs in one fresh folder (with a fresh data home; models and results land there) and
rewrites the blocks; ``--long NAME...`` reruns those long ones too (minutes to hours: the
lead's measurements). A long output's block starts with the line saying when, at which commit
and on which machine it was made. ``--check`` only compares (times, run-folder timestamps and
long outputs' stamps masked) and exits 1 on a difference; ``--quick`` limits either to the
quick outputs, which tests/repo/test_readme_outputs.py checks on every test run.

Run it from a checkout with the dataset mirror set (``MULTISVM_MIRROR``), as the tests are.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = REPO / "docs"
WIDTH = "120"  # the terminal width the outputs are made at (COLUMNS)

TYPOS = """\
name: typos
dataset: iris
split: {test_fraction: 0.3}
scaling: minmax
kernels: [{type: gausian, sigma: [1, 2]}]
schemes: [ovr, maxwin, dag]
sead: 3
C: [1, 10]
"""
BAD = """\
dataset: iris
split: {test_fraction: 0.3}
kernels:
  - {type: gaussian, sigma: [4, 1.0e-200]}
C: [1]
schemes: [ovr]
"""
PEN = """\
name: pen
dataset:
  - {name: pen, path: data/pendigits, test_path: data/pendigits.t, format: svmlight}
scaling: maxabs
kernels:
  - {type: gaussian, sigma: [0.5, 1]}
C: [1, 10]
schemes: [ovr, maxwins, dag]
"""
DNA_SMALL = """\
name: dna-small
dataset: dna
scaling: none
kernels:
  - {type: gaussian, sigma: [4, 5.66, 8]}
C: [2, 8]
schemes: [ovr, maxwins, dag]
"""
REPEATS = """\
name: repeats
dataset: [iris, wine]
split: {method: kfold, k: 3}
kernels: [{type: gaussian, sigma: [1, 3]}]
C: [1, 10]
schemes: [ovr, maxwins, dag]
repeats: 2
dag_orders: 5
"""

WINE_COLUMNS = ("alcohol,malic_acid,ash,alcalinity_of_ash,magnesium,total_phenols,flavanoids,"
                "nonflavanoid_phenols,proanthocyanins,color_intensity,hue,od280_od315,proline")
WINE_ROWS = ("14.23,1.71,2.43,15.6,127,2.8,3.06,0.28,2.29,5.64,1.04,3.92,1065",  # wine's rows 0,
             "12.37,0.94,1.36,10.6,88,1.98,0.57,0.28,0.42,1.95,1.05,1.82,520",  # 59, 70, 130, 177
             "12.29,1.61,2.21,20.4,103,1.1,1.02,0.37,1.46,3.05,0.906,1.82,870",
             "12.86,1.35,2.32,18,122,1.51,1.25,0.21,0.94,4.1,0.76,1.29,630",
             "14.13,4.1,2.74,24.5,96,2.05,0.76,0.56,1.35,9.2,0.61,1.6,560")
NEW_WINES = "\n".join([WINE_COLUMNS, *WINE_ROWS]) + "\n"
LABELLED_WINES = "\n".join([WINE_COLUMNS + ",class", *(  # the same rows with their classes
    f"{row},{label}" for row, label in zip(WINE_ROWS, (0, 1, 1, 2, 2)))]) + "\n"
NO_PROLINE = "\n".join(line.rsplit(",", 1)[0] for line in NEW_WINES.splitlines()) + "\n"

TEXTS = """\
name: texts
dataset: [{name: mytexts, path: texts, kind: text}]
split: {test_fraction: 0.3, seed: 0}
features: {vectorizer: tfidf, stop_words: english}
kernels: [{type: linear}]
C: [0.1, 1, 10]
solver: liblinear
schemes: [ovr]
"""
TOPICS = {  # a folder of documents, one subfolder per class: sentence i, then i + 1 or i + 2
    "cooking": ("Bake the bread in a hot oven.", "Whisk the eggs with sugar and butter.",
                "Simmer the garlic and tomato sauce for the pasta.",
                "Season the soup with salt and pepper.", "Knead the dough and let it rise.",
                "Roast the vegetables for dinner."),
    "space": ("The rocket launch reached orbit.", "A telescope photographed the moon.",
              "Astronauts docked with the space station.",
              "The probe landed on a distant planet.", "NASA scheduled the next mission.",
              "Astronomers found a new star with the telescope."),
    "sports": ("The team scored a late goal.", "The coach praised the players after the match.",
               "The league season starts in autumn.", "The referee stopped the match.",
               "Our players won the final.", "The goalkeeper saved a penalty in the league."),
}
TEXT_FILES = {"texts.yaml": TEXTS, **{
    f"texts/{topic}/{step}{i}.txt": f"{lines[i]} {lines[(i + step) % len(lines)]}\n"
    for topic, lines in TOPICS.items() for step in (1, 2) for i in range(len(lines))}}
NEW_TEXTS = {"new-texts/launch.txt": "The rocket carried a telescope into orbit.\n",
             "new-texts/recipe.txt": "Mix flour and butter, then bake it in the oven.\n",
             "new-texts/final.txt": "The players celebrated the goal with their coach.\n"}

# Wu, Lin & Weng's 300/500 protocol on part of its draws (docs/results/wu-lin-weng.md): the
# shipped config, its paper numbers included, with 2 of its 20 draws
WU_LIN_WENG_PART = (REPO / "configs" / "wu-lin-weng-2004.yaml").read_text(encoding="utf-8") \
    .replace("draws: 20,", "draws: 2,").replace("name: wu-lin-weng-2004\n",
                                                "name: wu-lin-weng-2004-part\n")


class Output(NamedTuple):
    """How one output is made: ``args`` after ``multisvm``; ``tail``: lines shown from the end
    (None: all); ``speed``: quick (checked by the tests), medium (seconds: run by default) or
    long (run only when named; its block carries its date, commit and machine); ``files``: files
    written into the folder first (text, or a path under the mirror to copy); ``fails``: the
    command is expected to exit non-zero, and its stderr is shown; ``stderr``: its stderr is
    shown though it succeeds (what it writes there is the output); ``program``: a script of the
    checkout (a benchmark) run with ``args`` instead of multisvm; ``fold``: names of
    :data:`FOLDS`, the parts of a report shown as one line saying how many lines they hold."""

    args: tuple
    tail: int | None = None
    speed: str = "quick"
    files: dict = {}  # never changed
    fails: bool = False
    stderr: bool = False
    program: str | None = None  # a script of the checkout run instead of multisvm
    fold: tuple = ()


MIRROR_NAME = "$MULTISVM_MIRROR"  # the mirror as the pages show it: a link of that name
MIRRORED = "mirror:"  # a files value naming a file under the dataset mirror

OUTPUTS = {  # in the order they are run, in one folder: train before evaluate
    "configs": Output(("configs",)),
    "validate": Output(("validate", "quickstart"), tail=5),
    "validate-typos": Output(("validate", "typos.yaml"), files={"typos.yaml": TYPOS},
                             fails=True),
    "validate-bad": Output(("validate", "bad.yaml"), files={"bad.yaml": BAD}, fails=True),
    "validate-dataset": Output(("validate", "ramanan-rbf", "--dataset", "iris", "--dataset",
                                "wine"), tail=4),
    "train": Output(("train", "quickstart", "--scheme", "dag", "--dataset", "wine", "-o",
                     "models/wine-dag")),
    "evaluate": Output(("evaluate", "models/wine-dag", "--confusion")),
    "predict": Output(("predict", "models/wine-dag", "new-wines.csv"),
                      files={"new-wines.csv": NEW_WINES}),
    "predict-columns": Output(("predict", "models/wine-dag", "no-proline.csv"),
                              files={"no-proline.csv": NO_PROLINE}, fails=True),
    "predict-scored": Output(("predict", "models/wine-dag", "labelled-wines.csv", "--confusion",
                              "-o", "predictions.csv"),
                             files={"labelled-wines.csv": LABELLED_WINES}, stderr=True),
    "train-text": Output(("train", "texts.yaml", "--scheme", "ovr", "-o", "models/texts-ovr"),
                         files=TEXT_FILES),
    "predict-text": Output(("predict", "models/texts-ovr", "new-texts"), files=NEW_TEXTS),
    "compare": Output(("compare", "wine.csv", "--label", "0", "--no-figures"), speed="medium",
                      files={"wine.csv": "mirror:wine/wine.data"}),
    "datasets-list": Output(("datasets", "list")),
    "datasets-info": Output(("datasets", "info", "dna")),
    "install-size": Output(("install",), program="scripts/measure.py"),
    "compare-penguins": Output(("compare", "examples/penguins.csv", "--missing", "drop",
                                "--no-figures"), speed="medium", fold=("legend",),
                               files={"examples/penguins.csv": REPO / "examples" / "penguins.csv"}),
    "quickstart": Output(("reproduce-table", "quickstart"), speed="medium"),
    "quickstart-brief": Output(("reproduce-table", "quickstart", "--no-figures"), speed="medium",
                               fold=("legend", "statistics")),
    "quickstart-time": Output(("quickstart",), speed="medium", program="scripts/measure.py"),
    "report": Output(("report", "results/quickstart", "--figure-format", "svg"),
                     speed="medium"),
    "repeats": Output(("reproduce-table", "repeats.yaml", "--no-figures"), speed="medium",
                      files={"repeats.yaml": REPEATS}),
    "pen": Output(("reproduce-table", "pen.yaml", "--n-jobs", "2"), speed="long",
                  files={"pen.yaml": PEN, "data/pendigits": MIRRORED + "pendigits/pendigits",
                         "data/pendigits.t": MIRRORED + "pendigits/pendigits.t"}),
    "dna-small": Output(("reproduce-table", "dna-small.yaml", "--n-jobs", "2"), speed="long",
                        files={"dna-small.yaml": DNA_SMALL}),
    "sweep-digits": Output(("reproduce-table", "sweep-digits.yaml", "-j", "2"), speed="long",
                           files={"sweep-digits.yaml": (DOCS / "figures" / "sweep-digits.yaml")}),
    "text-20newsgroups": Output(("reproduce-table", "text-20newsgroups", "-j", "2"),
                                speed="long"),
    "text-reuters": Output(("reproduce-table", "text-reuters", "-j", "2"), speed="long"),
    "sparse-predict": Output((), speed="long", program="benchmarks/sparse_predict.py"),
    "ramanan-rbf-quick": Output(("reproduce-table", "ramanan-rbf-quick", "-j", "2", "--format",
                                 "markdown"), speed="long"),
    "wu-lin-weng-part": Output(("reproduce-table", "wu-lin-weng-2004-part.yaml", "-j", "2",
                                "--format", "markdown"), speed="long",
                               files={"wu-lin-weng-2004-part.yaml": WU_LIN_WENG_PART}),
    "usps": Output(("reproduce-table", "platt1999-usps", "-j", "2"), speed="long"),
    "letter-gaussian": Output(("reproduce-table", "platt1999-letter-gaussian", "-j", "2"),
                              speed="long"),
    "covertype-gaussian": Output(("reproduce-table", "platt1999-covertype-gaussian", "-j", "2",
                                  "--wide"), speed="long"),
}
BLOCK = re.compile(r"(<!-- output: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /output -->)",
                   re.S)
STAMP = re.compile(r"^\*Run on .*?\*\n\n", re.M)
MASKS = [  # what changes from run to run: times, run folders, long outputs' stamps
    (STAMP, ""),
    (re.compile(r"\d{8}-\d{6}(-\d+)?"), "<timestamp>"),
    (re.compile(r"\d+\.\d+ s\b"), "<t> s"),
    (re.compile(r"\(\d+\.\d+ us/point\)"), "(<t> us/point)"),
    (re.compile(r"the \d+ packages it needs: \d+ MB"), "the <n> packages it needs: <size> MB"),
]


def shown_command(name) -> str:
    spec = OUTPUTS[name]
    program = f"python {spec.program}" if spec.program else "multisvm"
    return (f"$ {program} " + " ".join(spec.args)).rstrip() + (
        f" | tail -{spec.tail}" if spec.tail else "")


def _mirror() -> Path | None:
    value = os.environ.get("MULTISVM_MIRROR")
    return Path(value) if value else None


def _write_files(spec, folder):
    for relative, content in spec.files.items():
        target = Path(folder) / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Path):
            shutil.copyfile(content, target)
        elif content.startswith(MIRRORED):
            shutil.copyfile(_mirror() / content[len(MIRRORED):], target)
        else:
            target.write_text(content, encoding="utf-8")


def run_output(name, folder) -> str:
    """The block's body for ``name``: its command run in ``folder``, as the page shows it."""
    spec = OUTPUTS[name]
    _write_files(spec, folder)
    env = {**os.environ, "COLUMNS": WIDTH, "MPLBACKEND": "Agg",
           "MULTISVM_DATA_HOME": str(Path(folder) / "data-home")}
    env.pop("MULTISVM_CARDS", None)
    if _mirror() is not None:  # the mirror by a name of fixed length, so columns keep their width
        link = Path(folder) / MIRROR_NAME
        if not link.is_symlink():
            link.symlink_to(_mirror().resolve(), target_is_directory=True)
        env["MULTISVM_MIRROR"] = MIRROR_NAME
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    program = [str(REPO / spec.program)] if spec.program else ["-m", "multisvm_cli"]
    done = subprocess.run([sys.executable, *program, *spec.args], cwd=folder,
                          env=env, capture_output=True, text=True, check=False)
    if (done.returncode != 0) != spec.fails:
        raise SystemExit(f"{shown_command(name)} exited with {done.returncode}:\n{done.stderr}")
    text = done.stderr if spec.fails or spec.stderr else done.stdout
    lines = text.rstrip("\n").splitlines()
    lines = lines[-spec.tail:] if spec.tail else lines
    for part in spec.fold:
        lines = folded(lines, *FOLDS[part])
    text = "\n".join(line.rstrip() for line in lines)
    for where in {str(folder), os.path.realpath(folder)}:  # paths as the page shows them
        text = text.replace(where + os.sep, "")
    body = f"```\n{shown_command(name)}\n{_short_paths(text)}\n```\n"
    return (stamp() + body) if spec.speed == "long" else body


FOLDS = {  # a part of a printed report: its first line's start, the starts that end it, its name
    "legend": ("Columns:", ("", "data:", "On the grid's edge"), "the columns' legend"),
    "statistics": ("Average rank", ("results:",), "the tests over the datasets"),
}


def folded(lines, first, ends, what) -> list:
    """``lines`` with the part from the line starting ``first`` to the line before one that
    starts with one of ``ends`` ("" ends at a blank line) as one line."""
    start = next(i for i, line in enumerate(lines) if line.startswith(first))
    end = next(i for i in range(start + 1, len(lines))
               if any(lines[i].startswith(e) if e else not lines[i].strip() for e in ends))
    return [*lines[:start], f"[{what}, {end - start} lines: Reading the report]", *lines[end:]]


def stamp() -> str:
    """The line a long output starts with: the date, the commit and the machine."""
    commit = subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty"],
                            capture_output=True, text=True, check=False).stdout.strip()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    machine = f"{os.cpu_count()} cores, {platform.processor() or platform.machine()}"
    return f"*Run on {date} at commit {commit or 'unknown'}, on {machine}.*\n\n"


SHIPPED_PATH = re.compile(r"(?:[^\s'\"]*[/\\])?configs[/\\](?=[A-Za-z0-9._-]+\.yaml)")


def _short_paths(text) -> str:
    """Shipped configs named as configs/<name>.yaml, wherever multisvm is installed (a checkout's
    configs/ or an installed package's multisvm_cli/configs/)."""
    return SHIPPED_PATH.sub("configs/", text)


def pages() -> list[Path]:
    """README.md and every documentation page."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def blocks(text) -> dict:
    """A page's output blocks: name -> body."""
    return {m.group("name"): m.group("body") for m in BLOCK.finditer(text)}


def all_blocks() -> dict:
    """name -> [(page, body)] over README.md and the documentation pages."""
    found = {}
    for page in pages():
        for name, body in blocks(page.read_text(encoding="utf-8")).items():
            found.setdefault(name, []).append((page, body))
    return found


def mask(text) -> str:
    for pattern, replacement in MASKS:
        text = pattern.sub(replacement, text)
    return text


def fresh_outputs(names) -> dict:
    """Each name's block body, made by running its command (in :data:`OUTPUTS` order: train
    before evaluate) in one fresh folder."""
    with tempfile.TemporaryDirectory() as folder:
        return {name: run_output(name, folder) for name in OUTPUTS if name in names}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 on a diff")
    parser.add_argument("--quick", action="store_true", help="only the quick outputs")
    parser.add_argument("--long", nargs="*", default=[], metavar="NAME",
                        help="also rerun these long outputs (all of them: --long all)")
    options = parser.parse_args(argv)
    unknown = sorted(set(all_blocks()) - set(OUTPUTS))
    if unknown:
        raise SystemExit(f"pages name outputs that OUTPUTS lacks: {', '.join(unknown)}")
    wanted = {"quick"} if options.quick else {"quick", "medium"}
    names = [n for n in OUTPUTS if n in all_blocks() and (
        OUTPUTS[n].speed in wanted or n in options.long or "all" in options.long)]
    fresh = fresh_outputs(names)
    if options.check:
        stale = [(page, n) for n in names for page, body in all_blocks()[n]
                 if mask(fresh[n]) != mask(body)]
        for page, name in stale:
            print(f"{page.relative_to(REPO)}: output {name!r} differs from "
                  f"`{shown_command(name)}`")
        return 1 if stale else 0
    for page in pages():
        text = page.read_text(encoding="utf-8")
        new = BLOCK.sub(lambda m: m.group(1) + fresh.get(m.group("name"), m.group("body"))
                        + m.group(4), text)
        if new != text:
            page.write_text(new, encoding="utf-8")
            print(f"rewrote {page.relative_to(REPO)}")
    print(f"made {len(names)} outputs: {', '.join(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
