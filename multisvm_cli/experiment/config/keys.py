"""The top-level keys of a config: the one table that declares each key once.

:data:`KEYS` maps each key to a :class:`Key`: its default (the value a config without it gets,
and that default as the documentation shows it), whether a dataset entry may override it, the
check of a written value, and a one-line description. :func:`.load.load_config` is a loop over
this table (any other top-level key is refused with it), a dataset entry may hold its
cascading keys (:data:`DATASET_KEYS`), and the documentation's config reference
is generated from it (``scripts/gen_docs.py``), so none of them can disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Callable

from ...estimators.registry import REGISTRY
from ...report.hsu_lin import TABLE_1
from .checks import MAX_GRID_POINTS, check_flag, check_number, check_seed, show
from .datasets import NAME_PATTERN, _dataset_names
from .own import own_options
from .sections import (_compare_to, _dag_orders, _default_compare_to, _layout, _measured,
                       _reference, _repeats, _rope, _scheme_options, _schemes)
from .sweep import _sweep


@dataclass(frozen=True)
class Key:
    """One top-level key.

    ``default``: its value when the config leaves it out, or a function ``(doc, *needed)``
    giving it (it may fail like a check). ``check(doc, value, path, *needed)``: the checked
    value of a written one (a ConfigError naming file, line and key otherwise). ``needs``: the
    keys, earlier in the table, whose checked values ``check`` and ``default`` take; when one
    of them has none (it failed), the key gets none either. ``cascades``: a dataset entry may
    override it; such a key is checked once per dataset (:func:`.load._plan`), and its
    ``default`` is what a dataset gets when neither the entry nor the top level writes it
    (None: decided by the data). ``required``: the config must name it (a cascading one at the
    top level or in every dataset entry). ``shown`` and ``meaning``: the documentation's
    default (None: ``default`` itself, :meth:`default_text`) and description.
    """

    shown: str | None  # None: the default itself, as YAML writes it
    meaning: str
    default: object = None
    check: Callable | None = None
    needs: tuple = ()
    cascades: bool = False
    required: bool = False

    def default_text(self) -> str:
        """The default as the documentation shows it."""
        if self.shown is not None:
            return self.shown
        text = str(self.default)
        return text.lower() if isinstance(self.default, bool) else text


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

    return _dataset_names(doc, value, path, data.names(), DATASET_KEYS)


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


KEYS = {
    "name": Key("the file's stem",
                "Names the results folder: letters, digits, '.', '_', '-', at most 100, not "
                "starting with '.' or '-'.", default=_file_stem, check=_name),
    "dataset": Key("required",
                   "A registry name, a list of names, or list items that override the top-level "
                   "values for one dataset ({name: letter, split: ...}) or name a local file "
                   "({name: mine, path: data/mine.csv}).", check=_datasets, required=True),
    "scaling": Key("paper",
                   "none | minmax | standard | standard-continuous | maxabs | paper (the card's "
                   "paper_scaling); fitted on each training part only. A local file: standard "
                   "(maxabs if sparse).", cascades=True),
    "split": Key(None,
                 "standard (the dataset's own parts), {test_fraction: F, seed: S} (a stratified "
                 "test part), {method: kfold, k: K, seed: S} (every point tested once) or "
                 "{method: draws, draws: N, n_train: A, n_test: B, seed: S} (N random "
                 "stratified draws of A training and B test rows; the mean and SD over draws).",
                 default="standard", cascades=True),
    "validation": Key("{method: holdout, train_fraction: 0.7}",
                      "How each grid point is scored: holdout (a stratified split of the "
                      "training part), given (the dataset's validation part) or {method: kfold, "
                      "k: K}.", default="holdout", cascades=True),
    "kernels": Key("required",
                   "A list of kernel entries; every combination is a grid point: {type: "
                   "gaussian, sigma: [...] or gamma: [...]}, {type: polynomial, degree: [...], "
                   "homogeneous: [...]}, {type: linear}; an entry may carry its own C list.",
                   cascades=True, required=True),
    "C": Key("required unless every kernel entry has its own",
             "A list of C values, or a range {base: B, from: A, to: Z[, step: S]}.",
             cascades=True, required=True),
    "schemes": Key("required",
                   f"{' | '.join(REGISTRY)}, by name, label or alias in any case "
                   f"({', '.join(s.label for s in REGISTRY.values())}, ...); or a user's "
                   f"classifier row {{scheme: package.module:ClassName, label, options}}.",
                   check=_schemes, required=True),
    "scheme_options": Key("{}",
                          "Constructor parameters per scheme, e.g. {dag: {order: natural}, "
                          "graph: {threshold: 0.05}, hier: {level1: nb}}; the options table "
                          "below.", default=_own_scheme_options, check=_all_scheme_options,
                          needs=("schemes",)),
    "compare_to": Key("dag when it is run, else the first scheme",
                      "The scheme McNemar's test (or the corrected t-test) compares the others "
                      "with; it must be run.", default=_default_compare_to, check=_compare_to,
                      needs=("schemes",)),
    "seed": Key(None, "Default seed of the split, the validation split and the estimators "
                     "(0..2^32-1); the CLI's --seed replaces it.", default=0, check=check_seed),
    "reference": Key("none",
                     "A paper's numbers printed beside ours: {source: ..., DATASET: {SCHEME: "
                     "{sigma, degree, kernel, C, error, kernel_evaluations, cpu_time, "
                     "size_k}}}.", default=_no_reference, check=_reference_of,
                     needs=("dataset",)),
    "max_grid_points": Key(None,
                           "A larger grid (per dataset) is refused unless raised here on "
                           "purpose.", default=MAX_GRID_POINTS,
                           check=partial(check_number, integer=True, positive=True)),
    "repeats": Key(None,
                   "Run the whole protocol N times, repeat r with split and validation seeds "
                   "seed + r; the paired test becomes the corrected resampled t-test.",
                   default=1, check=_repeats),
    "dag_orders": Key(None,
                      "Test the selected DAG's pairwise SVMs under N random class orders (no "
                      "refit).", default=0, check=_dag_orders, needs=("schemes",)),
    "estimate": Key(None,
                    "nested (honest: chosen on each fold's training part, tested once) | "
                    "cv-best (Hsu & Lin's best grid point's k-fold error, optimistic) | both as "
                    "a list; cv-best needs split: {method: kfold}.", default="nested",
                    cascades=True),
    "reuse_across_C": Key(None,
                          "Reuse a grid machine with no support vector at the bound for every "
                          "larger C (exact), and start each all-together (cs, ww) solve from "
                          "the last smaller C's (the same optimum within tol); false refits "
                          "every point from zero (for timings).",
                          default=True, check=check_flag),
    "features": Key("tfidf, lowercase, no stop words, l2 rows",
                    "Text datasets only: how documents become a sparse matrix (vectorizer, "
                    "stop_words, min_df, max_df, ...), fitted on training documents only.",
                    cascades=True),
    "solver": Key("libsvm",
                  "libsvm | liblinear (linear kernels only; it also regularizes the bias); top "
                  "level, per dataset, or per scheme in scheme_options (the scheme's wins).",
                  cascades=True),
    "sweep": Key("none",
                 "Run the protocol at each value of one setting: {classes: [...]}, "
                 "{train_fraction: [...]} or {scheme_options: {SCHEME: {OPTION: [...]}}}.",
                 check=_sweep, needs=("schemes",)),
    "max_iter": Key(None,
                    "SMO iterations per binary SVM: libsvm = upstream LIBSVM's max(10^7, 100 x "
                    "rows); an integer; none for no bound.", default="libsvm", cascades=True),
    "rope": Key("1.0",
                "The Bayesian signed-rank test's region of practical equivalence, in points of "
                "test error (1 = one point of accuracy; 0 to 50).", default=_default_rope,
                check=_rope),
    "layout": Key(None,
                  "table-1 (the Table-1 report alone) | hsu-lin (Hsu & Lin's 2002 Table II, "
                  "rate and chosen (C, gamma), and Table III, training and testing time and "
                  "#SVs, after it in the terminal, table.md and report.html).",
                  default=TABLE_1, check=_layout),
    "measured": Key("none",
                    "The config's last real run, for `multisvm configs`: {seconds: wall time, "
                    "cores: N, date: YYYY-MM-DD, page: the page that records it}; the run never "
                    "reads it.", check=_measured),
}
TOP_KEYS = tuple(KEYS)
DATASET_KEYS = ("name", *(name for name, key in KEYS.items() if key.cascades))
REQUIRED = tuple(name for name, key in KEYS.items() if key.required)
