"""The keys of a config: the one table that declares each key once.

:data:`KEYS` maps each key to a :class:`Key`: where it may be written (:data:`TOP`, the top
level; :data:`DATASET`, a dataset entry, whose value wins over the top level's; :data:`LOCAL`, a
dataset entry naming a local file; :data:`SCHEME`, a scheme's ``scheme_options``), its default
(and that default as the documentation shows it), the check of a written value, the form the
resolved config writes, and a one-line description. Everything else reads this table:
:func:`.load.load_config` is a loop over it (any other key is refused with it), the
:class:`.resolved.Config` and each :class:`.resolved.DatasetPlan` hold one value per key, the
resolved config writes them in the table's order, and the documentation's config reference is
generated from it (``scripts/gen_docs.py``), so none of them can disagree: a new key is one row.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Callable

from ...data.bounds import MEMORY_MB
from ...data.local.files import TEST_PATH
from ...estimators.registry import REGISTRY
from ...report.hsu_lin import TABLE_1
from .checks import MAX_GRID_POINTS, check_flag, check_number, check_seed, show
from .class_limit import DEFAULT as CLASS_LIMIT
from .datasets import NAME_PATTERN, _dataset_names, _max_iter, dataset_scaling, default_scaling
from .features import dataset_features, default_features, features_dict, _solver
from .forms import written
from .grid import _C_list, _kernels, kernel_entries
from .own import own_options, resolved_compare_to, resolved_scheme_options, resolved_schemes
from .sections import (_compare_to, _dag_orders, _default_compare_to, _estimate, _layout,
                       _measured, _reference, _repeats, _rope, _scheme_options, _schemes, _split,
                       _validation, resolved_estimate)
from .sweep import _sweep, sweep_document

TOP = "top level"
DATASET = "per dataset"     # a dataset entry's value wins over the top level's
LOCAL = "per local file"    # a dataset entry naming a local file (``path``)
SCHEME = "per scheme"       # a scheme's scheme_options entry wins


def _alone(resolve):
    """A ``resolve`` of the value alone (the others' values unused)."""
    return lambda value, values: resolve(value)


def _always(value) -> bool:
    return True


def _is_none(value) -> bool:
    return value is None


def _is_empty(value) -> bool:
    return not value


@dataclass(frozen=True)
class Key:
    """One key of a config.

    ``where``: the places it may be written (:data:`TOP`, :data:`DATASET`, :data:`LOCAL`,
    :data:`SCHEME`); a key written at the top level and per dataset *cascades*: it is checked
    once per dataset (:func:`.load._plan`), the entry's value winning. ``default``: its value
    when the config leaves it out (a null counts as left out unless ``takes_null``), or a
    function ``(doc, *needed)`` giving it (it may fail like a check). ``check(doc, value, path,
    *needed)``: the checked value of a written one (a ConfigError naming file, line and key
    otherwise); a per-dataset key's default is checked as a written value is, a top-level
    key's is not. ``needs``: the values ``check`` and ``default`` take: keys earlier in the
    table (a per-dataset key may also need any top-level key, and the dataset's ``name``,
    ``local`` spec and ``text`` flag); when a top-level key's needed value is None (it failed),
    the key gets none either. ``required``: the config must name it (a cascading one at the
    top level or in every dataset entry). ``resolve(value, values)``: the value as the resolved
    config writes it (``values``: the config's, or the dataset's, checked values; None: as
    checked), ``omit(value)``: whether the resolved config leaves it out. ``field``: the
    attribute of the Config or DatasetPlan holding its checked value (None: the key's name).
    ``shown`` and ``meaning``: the documentation's default (None: ``default`` itself,
    :meth:`default_text`) and description.
    """

    shown: str | None  # None: the default itself, as YAML writes it
    meaning: str
    default: object = None
    check: Callable | None = None
    needs: tuple = ()
    where: tuple = (TOP,)
    required: bool = False
    takes_null: bool = False
    resolve: Callable | None = None
    omit: Callable | None = None
    field: str | None = None

    @property
    def cascades(self) -> bool:
        """Written at the top level and per dataset (the dataset's value wins)."""
        return TOP in self.where and DATASET in self.where

    def default_text(self) -> str:
        """The default as the documentation shows it."""
        if self.shown is not None:
            return self.shown
        text = str(self.default)
        return text.lower() if isinstance(self.default, bool) else text

    def written(self, value, values):
        """``value`` as the resolved config writes it (``values``: the others')."""
        return value if self.resolve is None else self.resolve(value, values)


def _name(doc, value, path):
    """A folder-safe name (it names the results folder)."""
    if not isinstance(value, str) or not NAME_PATTERN.match(value):
        doc.fail(path, f"expected a folder-safe name (letters, digits, '.', '_', '-', at "
                       f"most 100, not starting with '.' or '-'), got {show(value)}")
    return value


def _file_stem(doc):
    """The default name: the config file's stem, checked as a written name is."""
    return _name(doc, doc.path.stem, ("name",))


def _datasets(doc, value, path):
    """The dataset entries: (name, overrides, path) of each registry name or local file."""
    from ... import data

    return _dataset_names(doc, value, path, data.names(), entry_keys(), local_keys())


def _all_scheme_options(doc, value, path, schemes):
    """``scheme_options`` (None: not written) with each user's classifier row's own."""
    options = _scheme_options(doc, value, path, schemes)
    options.update(own_options(doc.data["schemes"]))
    return options


def _own_scheme_options(doc, schemes):
    """``scheme_options`` when absent: the user's classifier rows' own only."""
    return _all_scheme_options(doc, None, ("scheme_options",), schemes)


def _reference_of(doc, value, path, entries):
    """``reference``: rows of the config's datasets only."""
    return _reference(doc, value, path, [name for name, _, _ in entries])


def _no_reference(doc, entries):
    """``reference`` when absent: no paper's numbers (a new mapping for each config)."""
    return {}


def _default_rope(doc):
    """``rope`` when absent: the Bayesian test's own default (``report.verdict``)."""
    from ...report.verdict import DEFAULT_ROPE  # pandas and scipy: not for 'multisvm configs'

    return DEFAULT_ROPE



def _balanced_metrics(doc, value, path):
    """auto, true or false (:mod:`...report.balance`)."""
    if value == "auto" and isinstance(value, str):
        return value
    if not isinstance(value, bool):
        doc.fail(path, f"expected auto, true or false, got {show(value)}")
    return value


def _is_auto(value) -> bool:
    return isinstance(value, str) and value == "auto"


def _grid(doc, value, path, C_values, max_points):
    """``kernels``: the grid points of the kernel entries and C values (at most
    ``max_grid_points``: its default when that key failed)."""
    return _kernels(doc, value, path, C_values,
                    MAX_GRID_POINTS if max_points is None else max_points, required())


def _plans(value, values) -> list:
    """``dataset`` in the resolved config: each dataset's entry (:func:`plan_entry`)."""
    return [plan_entry(plan) for plan in value]


_LOCAL = "Checked with the entry's other file keys (the format decides which apply)."

KEYS = {
    "name": Key("the file's stem",
                "Names the results folder: letters, digits, '.', '_', '-', at most 100, not "
                "starting with '.' or '-'. In a dataset entry: the dataset's name (a local "
                "file's default: the file's stem).", default=_file_stem, check=_name),
    "seed": Key(None, "Default seed of the split, the validation split and the estimators "
                     "(0..2^32-1); the CLI's --seed replaces it.", default=0, check=check_seed),
    "schemes": Key("required",
                   f"{' | '.join(REGISTRY)}, by name, label or alias in any case "
                   f"({', '.join(s.label for s in REGISTRY.values())}, ...); or a user's "
                   f"classifier row {{scheme: package.module:ClassName, label, options}}.",
                   check=_schemes, required=True, resolve=resolved_schemes),
    "compare_to": Key("dag when it is run, else the first scheme",
                      "The scheme McNemar's test (or the corrected t-test) compares the others "
                      "with; it must be run.", default=_default_compare_to, check=_compare_to,
                      needs=("schemes",), resolve=resolved_compare_to),
    "scheme_options": Key("{}",
                          "Constructor parameters per scheme, e.g. {dag: {order: natural}, "
                          "graph: {threshold: 0.05}, hier: {level1: nb}}; the options table "
                          "below.", default=_own_scheme_options, check=_all_scheme_options,
                          needs=("schemes",), resolve=resolved_scheme_options),
    "dataset": Key("required",
                   "A registry name, a list of names, or list items that override the top-level "
                   "values for one dataset ({name: letter, split: ...}) or name a local file "
                   "({name: mine, path: data/mine.csv}).", check=_datasets, required=True,
                   resolve=_plans, field="datasets"),
    "path": Key("none", "A local data file (or a folder of documents, one subfolder per class), "
                        "relative to the config's folder; the resolved config writes it "
                        "absolute.", where=(LOCAL,)),
    TEST_PATH: Key("none", "The local dataset's test file (or folder): its own train/test "
                           "split; without it, no fixed split.", where=(LOCAL,)),
    "format": Key("from the extension",
                  "The local file's format: csv, svmlight, npz, or text (a folder of "
                  "documents).", where=(LOCAL,)),
    "kind": Key("numeric (text for a folder)", "numeric | text (a folder of documents).",
                where=(LOCAL,)),
    "memory_mb": Key(None, "A dense local file above this size in megabytes is refused before "
                           "it is read.", default=MEMORY_MB, where=(LOCAL,)),
    "scaling": Key("paper",
                   "none | minmax | standard | standard-continuous | maxabs | paper (the card's "
                   "paper_scaling); fitted on each training part only. A local file: standard "
                   "(maxabs if sparse); text: none.", default=default_scaling,
                   check=dataset_scaling, needs=("name", "local", "text"), where=(TOP, DATASET)),
    "features": Key("tfidf, lowercase, no stop words, l2 rows; a csv: {categorical: auto, "
                    "missing: refuse, unseen: refuse}",
                    "Text datasets: how documents become a sparse matrix (vectorizer, "
                    "stop_words, min_df, max_df, ...), fitted on training documents only. A "
                    "csv file: {drop: [COL, ...], categorical: auto | [COL, ...] (one-hot), "
                    "missing: refuse | drop (the rows) | impute (median / most frequent), "
                    "unseen: refuse | zeros (a test category the training part never saw)}, "
                    "fitted on each training part only (compare: --drop, --categorical, "
                    "--missing, --unseen).",
                    default=default_features, check=dataset_features,
                    needs=("name", "text", "local"),
                    where=(TOP, DATASET), resolve=_alone(features_dict), omit=_is_none),
    "solver": Key("libsvm",
                  "libsvm | liblinear (linear kernels only; it also regularizes the bias); top "
                  "level, per dataset, or per scheme in scheme_options (the scheme's wins).",
                  check=_solver, where=(TOP, DATASET, SCHEME), omit=_is_none),
    "split": Key(None,
                 "standard (the dataset's own parts), {test_fraction: F, seed: S} (a stratified "
                 "test part), {method: kfold, k: K, seed: S} (every point tested once) or "
                 "{method: draws, draws: N, n_train: A, n_test: B, seed: S} (N random "
                 "stratified draws of A training and B test rows; the mean and SD over draws).",
                 default="standard", check=_split, needs=("seed",), where=(TOP, DATASET),
                 resolve=_alone(written)),
    "validation": Key("{method: holdout, train_fraction: 0.7}",
                      "How each grid point is scored: holdout (a stratified split of the "
                      "training part), given (the dataset's validation part) or {method: kfold, "
                      "k: K}.", default="holdout", check=_validation, needs=("seed",),
                      where=(TOP, DATASET), resolve=_alone(written)),
    "estimate": Key(None,
                    "nested (honest: chosen on each fold's training part, tested once) | "
                    "cv-best (Hsu & Lin's best grid point's k-fold error, optimistic) | both as "
                    "a list; cv-best needs split: {method: kfold}.", default="nested",
                    check=_estimate, needs=("split",), where=(TOP, DATASET),
                    resolve=_alone(resolved_estimate)),
    "C": Key("required unless every kernel entry has its own",
             "A list of C values, or a range {base: B, from: A, to: Z[, step: S]}.",
             check=_C_list, where=(TOP, DATASET), required=True, omit=_always),
    "kernels": Key("required",
                   "A list of kernel entries; every combination is a grid point: {type: "
                   "gaussian, sigma: [...] or gamma: [...]}, {type: polynomial, degree: [...], "
                   "homogeneous: [...]}, {type: linear}; an entry may carry its own C list.",
                   check=_grid, needs=("C", "max_grid_points"), where=(TOP, DATASET),
                   required=True, resolve=_alone(kernel_entries), field="grid"),
    "refine": Key("false",
                  "Search coarse-to-fine (LIBSVM's guide): the grid above first, then finer "
                  "points around each fold's best cell (spacing halved to 2^1; an edge cell "
                  "extends the grid up to Hsu & Lin's range plus two steps of 2^2); grid.csv's "
                  "stage column says which stage each point is of.", default=False,
                  check=check_flag, where=(TOP, DATASET), omit=_is_empty),
    "max_iter": Key(None,
                    "SMO iterations per binary SVM: libsvm = upstream LIBSVM's max(10^7, 100 x "
                    "rows); an integer; none for no bound.", default="libsvm", check=_max_iter,
                    where=(TOP, DATASET, SCHEME), takes_null=True),
    "max_grid_points": Key(str(MAX_GRID_POINTS),
                           "A larger grid (per dataset) is refused unless raised here on "
                           "purpose.", check=partial(check_number, integer=True, positive=True),
                           omit=_is_none),
    "max_classes": Key(str(CLASS_LIMIT),
                       "A pairwise scheme (Max Wins, DAGSVM, ADAG, Coupling, ECOC with ovo: "
                       "k(k-1)/2 SVMs) on a dataset of more classes is refused unless raised "
                       "here (an integer >= 2; compare: --max-classes).",
                       check=partial(check_number, integer=True, low=1), omit=_is_none),
    "reference": Key("none",
                     "A paper's numbers printed beside ours: {source: ..., DATASET: {SCHEME: "
                     "{sigma, degree, kernel, C, error, kernel_evaluations, cpu_time, "
                     "size_k}}}.", default=_no_reference, check=_reference_of,
                     needs=("dataset",), omit=_is_empty),
    "repeats": Key(None,
                   "Run the whole protocol N times, repeat r with split and validation seeds "
                   "seed + r; the paired test becomes the corrected resampled t-test.",
                   default=1, check=_repeats),
    "dag_orders": Key(None,
                      "Test the selected DAG's pairwise SVMs under N random class orders (no "
                      "refit).", default=0, check=_dag_orders, needs=("schemes",)),
    "reuse_across_C": Key(None,
                          "Reuse a grid machine with no support vector at the bound for every "
                          "larger C (exact), and start each all-together (cs, ww) solve from "
                          "the last smaller C's (the same optimum within tol); false refits "
                          "every point from zero (for timings).",
                          default=True, check=check_flag),
    "rope": Key("1.0",
                "The Bayesian signed-rank test's region of practical equivalence, in points of "
                "test error (1 = one point of accuracy; 0 to 50).", default=_default_rope,
                check=_rope),
    "layout": Key(None,
                  "table-1 (the Table-1 report alone) | hsu-lin (Hsu & Lin's 2002 Table II, "
                  "rate and chosen (C, gamma), and Table III, training and testing time and "
                  "#SVs, after it in the terminal, table.md and report.html).",
                  default=TABLE_1, check=_layout),
    "sweep": Key("none",
                 "Run the protocol at each value of one setting: {classes: [...]}, "
                 "{train_fraction: [...]} or {scheme_options: {SCHEME: {OPTION: [...]}}}.",
                 check=_sweep, needs=("schemes",), resolve=_alone(sweep_document), omit=_is_none),
    "balanced_metrics": Key("auto",
                            "Balanced accuracy and macro F1 columns (scikit-learn's): auto shows "
                            "them for a dataset whose smallest test class has under a fifth of "
                            "its largest's rows, and the Answer then ranks its schemes by "
                            "balanced accuracy; true shows them always, false never.",
                            default="auto", check=_balanced_metrics, omit=_is_auto),
    "measured": Key("none",
                    "The config's last real run, for `multisvm configs`: {seconds: wall time, "
                    "cores: N, date: YYYY-MM-DD, page: the page that records it}; the run never "
                    "reads it.", check=_measured, omit=_always),
}


def written_at(place) -> tuple:
    """The keys that may be written at ``place`` (:data:`TOP`, :data:`DATASET`, :data:`LOCAL`,
    :data:`SCHEME`), in the table's order; read from :data:`KEYS` at each call, so a row added
    to the table is in it."""
    return tuple(name for name, key in KEYS.items() if place in key.where)


def local_keys() -> tuple:
    """The keys of a local dataset entry: the table's per-local-file rows, then the read options
    the formats declare (:func:`...data.formats.option_owners`; a format's options have their
    one home in its module)."""
    from ...data.formats import option_owners

    return (*written_at(LOCAL), *option_owners())


def entry_keys() -> tuple:
    """The keys a registry dataset's entry may hold: its name and the per-dataset keys."""
    return ("name", *written_at(DATASET))


def required() -> tuple:
    """The keys a config must name (a per-dataset one at the top level or in every entry)."""
    return tuple(name for name, key in KEYS.items() if key.required)


def resolved_document(values, names) -> dict:
    """The resolved document of the keys ``names`` with ``values`` (the table's order; a
    cascading key is written per dataset, not at the top level): each key as its row resolves
    it, where its row does not omit it."""
    return {name: KEYS[name].written(values[name], values) for name in names
            if name in values and not (KEYS[name].omit and KEYS[name].omit(values[name]))}


def plan_entry(plan) -> dict:
    """A dataset entry of the resolved config (``dataset``'s resolved form), from its
    :class:`.resolved.DatasetPlan`: its name, a local file's keys (``LocalSpec.entry``: paths
    absolute, the format and read options written), then each per-dataset key (the grid as one
    kernel entry per kernel, each with its own C list)."""
    names = written_at(DATASET)
    values = {name: getattr(plan, KEYS[name].field or name) for name in names}
    local = plan.local.entry() if plan.local is not None else {}
    return {"name": plan.name, **local, **resolved_document(values, names)}
