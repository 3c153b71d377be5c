"""Experiment configs: a YAML file naming datasets, scaling, split, validation, kernel grid, C grid
and schemes, validated into a :class:`Config` with one-line errors.

The package splits the work by idea: :mod:`.document` (the YAML with line numbers and the error),
:mod:`.values` (value checks), :mod:`.grid` (kernels and C), :mod:`.sections` (split,
validation, estimate, schemes, options, repeats, reference), :mod:`.datasets` (registry names and
local files) and :mod:`.resolved` (the Config and its resolved document); :func:`load_config`
here puts them together.

Every error is a :class:`ConfigError` whose message names the file, the line, the key and the
allowed values, e.g. ``configs/x.yaml:7: schemes[2]: 'svm' is not a scheme; allowed: ovr, ...``.

Format (defaults in brackets)::

    name: platt1999-usps            # [the file's stem] names the results folder
    dataset: usps                   # a registry name, or a list of names / {name: ..., overrides}
    scaling: paper                  # [paper; a local file: standard, or maxabs if sparse]
                                    #   none | minmax | standard | standard-continuous | maxabs
    max_iter: libsvm                # [libsvm] SMO iterations per binary SVM: libsvm = upstream
                                    #   LIBSVM's max(10^7, 100 x rows); an integer; none: no bound
    split: standard                 # [standard] the dataset's own train/test parts, or
                                    #   {test_fraction: 0.25, seed: 0}  stratified holdout test part
                                    #   {method: kfold, k: 10, seed: 0}  k-fold: every point tested once
    validation: {method: holdout, train_fraction: 0.7, seed: 0}   # [this] or {method: given}
                                    #   (the dataset's validation part) or {method: kfold, k: 10}
    estimate: nested                # [nested] nested | cv-best | [nested, cv-best] (see below)
    kernels:                        # every combination below is a grid point
      - {type: gaussian, sigma: [2, 4, 8]}   # or gamma: [...] (exactly one; gamma = 1/(2 sigma^2))
      - {type: polynomial, degree: [1, 2, 3], homogeneous: [true, false]}
      - {type: linear}
    C: [1, 10, 100]                 # a kernel entry may carry its own C list
    # C, sigma and gamma may be a range {base: 2, from: -2, to: 12[, step: 1]}: base**e for e
    # from ``from`` towards ``to`` by ``step`` (default 1 or -1), in that order; the resolved
    # config shows it expanded
    schemes: [ovr, maxwins, dag]    # any of the registry's (multisvm --help names them)
    scheme_options: {graph: {threshold: 0.05}, dag: {order: natural}}
    compare_to: dag                 # [dag] the scheme McNemar's test compares the others with
    seed: 0                         # [0] default seed of split, validation and the estimators
    repeats: 1                      # [1] run the whole protocol N times, repeat r with split and
                                    #   validation seeds seed + r (error_sd: SD over folds x repeats)
    dag_orders: 0                   # [0] test the selected DAGSVM's pairwise SVMs under N random
                                    #   class orders (seeded by seed; no refit)
    rope: 1.0                       # [1] the Bayesian signed-rank test's region of practical
                                    #   equivalence over datasets, in points of test error
                                    #   (0 to 50; see report.verdict)
    layout: table-1                 # [table-1] or hsu-lin: Hsu & Lin's (2002) Tables II and
                                    #   III after the Table-1 report (see report.hsu_lin)
    sweep: {classes: [2, 5, 10]}    # [none] run the protocol at each value of one setting
                                    #   (see :mod:`.sweep`: classes, train_fraction or one
                                    #   scheme option as a list)
    reuse_across_C: true            # [true] reuse a grid machine with no support vector at the
                                    #   bound for every larger C (exact; false: refit, for timings)
    solver: libsvm                  # [libsvm] or liblinear (linear kernels only; it also
                                    #   regularizes the bias); per dataset too; a scheme's
                                    #   scheme_options solver wins
    features: {vectorizer: tfidf}   # text datasets only (see .features): how documents become
                                    #   a sparse matrix, fitted on training documents only
    reference:                      # optional: a paper's numbers, printed beside ours
      source: Platt et al. 1999, Table 1
      usps: {ovr: {sigma: 3.58, C: 100, error: 4.7, kernel_evaluations: 2936,
                   cpu_time: 3532, size_k: 760}}

A ``dataset`` list item may be a mapping ``{name: letter, split: ..., validation: ...,
scaling: ..., estimate: ..., kernels: ..., C: ..., features: ..., solver: ...}`` overriding the top-level values for that
dataset.

``estimate`` says how the error is measured: ``nested`` (each outer fold's point is chosen on
that fold's training part only and tested once on its test part: an honest estimate), or
``cv-best`` (Hsu & Lin 2002, as the UDT paper reports: every grid point's k-fold
cross-validation error on the outer folds, pooled; the lowest one is both chosen and reported,
optimistic by construction; needs ``split: {method: kfold}``), or both as a list.

Ties on validation error go to the simpler model, whatever the grid's order (see
``GridPoint.simplicity``): smaller C, then a linear before a polynomial before a Gaussian
kernel, then the lower degree (homogeneous first), then the wider Gaussian (smaller gamma).

A mapping with ``path`` names a local data file instead of a registry dataset (see
:mod:`multisvm_cli.data.local.files`)::

    dataset:
      - {name: mydigits, path: data/digits.csv, label: target}      # csv: label name or index
      - {name: pen, path: data/pendigits, test_path: data/pendigits.t, format: svmlight}

``format`` is csv, svmlight or npz (from the extension when absent); ``label`` (csv: column
name or 0-based index, default the last) and ``header`` (csv: true/false, detected when absent),
``zero_based`` (svmlight, default false). A folder (or ``kind: text``) is a text folder: one
subfolder per class, one document per file (``test_path``: a folder of test documents). Paths are relative to the config file; the resolved
config writes them absolute. Without ``test_path`` there is no fixed split (use
``split: {test_fraction: ...}`` or k-fold). A local file's default scaling is ``standard``
(``maxabs`` for sparse data), shown in the resolved config; ``scaling: paper`` is refused for
it (no paper scaled that file).
Sparse data (svmlight files and cards) refuses the scalings that center (minmax, standard,
standard-continuous): use maxabs or none.
"""

from __future__ import annotations


from __future__ import annotations

from pathlib import Path

from .features import _check_solvers, _check_text, _features, _solver
from .datasets import (NAME_PATTERN, _check_parts, _check_sparse_scaling, _dataset_names,
                       _local_spec, _max_iter, _scaling)
from .document import ConfigError, Errors, Location, _Document, _key_name
from .grid import GridPoint, _C_list, _kernels
from .keys import TOP_KEYS
from .resolved import Config, DatasetPlan, _resolved, summary
from .own import own_options
from .sections import (_check_classes_sweep, _check_option_classes, _compare_to, _dag_orders,
                       _estimate, _layout, _reference, _repeats, _rope, _scheme_options, _schemes,
                       _split, _validation)
from .sweep import _sweep, sweep_document
from .values import MAX_GRID_POINTS, _mapping, _number, _seed, _show
from ...report.hsu_lin import TABLE_1

__all__ = ["Config", "ConfigError", "DatasetPlan", "GridPoint", "Location", "load_config",
           "summary"]


def load_config(path, seed=None) -> Config:
    """Read and validate a config file; ``seed`` (the CLI's ``--seed``) replaces its ``seed``.

    Raises :class:`ConfigError` (one line per problem: file, line, key, allowed values); the
    independent problems are reported together (at most 20): each top-level key, each dataset
    and each section is checked even when another failed, checks that need a failed value are
    skipped. These are all the checks that need no data; :func:`.validation.check_plan` adds
    those that need the dataset's labels (split sizes against class counts).
    """
    from ... import data

    path = Path(path)
    doc = _Document(path)
    raw = doc.data
    errors = Errors()
    if not isinstance(raw, dict):
        _mapping(doc, raw, (), TOP_KEYS)
    for key in raw:
        errors.attempt(_mapping, doc, {key: None}, (), TOP_KEYS)
    for key in ("dataset", "schemes"):
        if key not in raw:
            errors.attempt(doc.fail, (), f"missing key {key!r}; required keys: dataset, "
                                         "kernels, C, schemes")
    name = raw.get("name", path.stem)
    errors.attempt(_check_name, doc, name)
    if seed is None:
        seed = errors.attempt(_seed, doc, raw.get("seed", 0), ("seed",), default=0)
    schemes = errors.attempt(_schemes, doc, raw["schemes"], ("schemes",)) \
        if "schemes" in raw else None
    compare_to = errors.attempt(_compare_to, doc, raw, schemes) if schemes else None
    max_points = (errors.attempt(_number, doc, raw["max_grid_points"], ("max_grid_points",),
                                 default=MAX_GRID_POINTS, integer=True, positive=True)
                  if "max_grid_points" in raw else MAX_GRID_POINTS)
    defaults = {key: raw[key] for key in ("scaling", "split", "validation", "kernels", "C",
                                          "estimate", "features", "solver", "max_iter")
                if key in raw}
    entries = (errors.attempt(_dataset_names, doc, raw["dataset"], ("dataset",), data.names())
               if "dataset" in raw else None)
    if entries and "kernels" not in raw and any("kernels" not in o for _, o, _ in entries):
        errors.attempt(doc.fail, (), "missing key 'kernels'; required keys: dataset, kernels, "
                                     "C, schemes")
        entries = None
    plans = [errors.attempt(_plan, doc, name_, overrides, where, defaults, seed, max_points)
             for name_, overrides, where in entries or []]
    scheme_options = (errors.attempt(_scheme_options, doc, raw.get("scheme_options"),
                                     ("scheme_options",), schemes, default={})
                      if schemes else {})
    if schemes and scheme_options is not None:
        scheme_options.update(own_options(raw["schemes"]))  # a user's classifier rows
    for plan in plans:
        if plan is not None:
            errors.attempt(_check_option_classes, doc, scheme_options, plan)
            if schemes:
                errors.attempt(_check_solvers, doc, plan, schemes, scheme_options,
                               plan.where["solver"])
    reference = (errors.attempt(_reference, doc, raw.get("reference"), ("reference",),
                                [name_ for name_, _, _ in entries])
                 if entries else None)
    repeats = (errors.attempt(_repeats, doc, raw, plans)
               if plans and None not in plans else None)
    dag_orders = errors.attempt(_dag_orders, doc, raw, schemes) if schemes else None
    reuse = errors.attempt(_reuse_across_C, doc, raw, default=True)
    from ...report.verdict import DEFAULT_ROPE  # pandas and scipy: not for 'multisvm configs'

    rope = errors.attempt(_rope, doc, raw, DEFAULT_ROPE, default=DEFAULT_ROPE)
    layout = errors.attempt(_layout, doc, raw, default=TABLE_1)
    sweep = (errors.attempt(_sweep, doc, raw.get("sweep"), ("sweep",), schemes)
             if schemes else None)
    if sweep is not None and scheme_options:
        errors.attempt(_check_classes_sweep, doc, scheme_options, sweep)
    errors.raise_any()
    resolved = _resolved(name, seed, schemes, compare_to, scheme_options, reference, plans,
                         raw.get("max_grid_points"))
    resolved.update(repeats=repeats, dag_orders=dag_orders, reuse_across_C=reuse, rope=rope,
                    layout=layout)
    if sweep is not None:
        resolved["sweep"] = sweep_document(sweep)
    return Config(path=path, name=name, datasets=plans, schemes=schemes,
                  scheme_options=scheme_options, compare_to=compare_to, seed=seed,
                  reference=reference, resolved=resolved, original_text=doc.text,
                  repeats=repeats, dag_orders=dag_orders, reuse_across_C=reuse, sweep=sweep,
                  rope=rope, layout=layout)


def _check_name(doc, name):
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        doc.fail(("name",), f"expected a folder-safe name (letters, digits, '.', '_', '-', at "
                            f"most 100, not starting with '.' or '-'), got {_show(name)}")


def _plan(doc, name, overrides, where, defaults, seed, max_points):
    """One dataset's plan: its overrides on top of the top-level values."""
    from ... import data

    def pick(key):
        if key in overrides:
            return overrides[key], where + (key,)
        return defaults.get(key), (key,)

    local = _local_spec(doc, name, overrides, where) if "path" in overrides else None
    text = local.format == "text" if local else data.get_card(name).kind == "text"
    features, features_path = pick("features")
    features = None if features is None else _features(doc, features, features_path)
    scaling, path = pick("scaling")
    scaling = _scaling(doc, scaling if scaling is not None else "none" if text else None, path,
                       local)
    _check_text(doc, name, text, features, scaling, {"features": features_path, "scaling": path})
    if text and features is None:
        features = data.TextFeatures()
    if not text:
        _check_sparse_scaling(doc, name, local, scaling, path)
    solver, solver_path = pick("solver")
    solver = None if solver is None else _solver(doc, solver, solver_path)
    max_iter, max_iter_path = pick("max_iter")
    given = "max_iter" in overrides or "max_iter" in defaults
    max_iter = _max_iter(doc, max_iter if given else "libsvm", max_iter_path)
    split, path = pick("split")
    split = _split(doc, split if split is not None else "standard", path, seed)
    written = {"split": path}
    validation, path = pick("validation")
    validation = _validation(doc, validation if validation is not None else "holdout", path, seed)
    written["validation"] = path
    estimate, path = pick("estimate")
    estimate = _estimate(doc, estimate if estimate is not None else "nested", path, split)
    C_values, C_path = pick("C")
    C_values = None if C_values is None else _C_list(doc, C_values, C_path)
    kernels, path = pick("kernels")
    grid = _kernels(doc, kernels, path, C_values, max_points)
    written["kernels"] = path
    written["features"] = features_path if features_path[-1:] == ("features",) and (
        "features" in overrides or defaults.get("features") is not None) else where or ("dataset",)
    written.update(sweep=("sweep",), scheme_options=("scheme_options",))
    _check_parts(doc, name, split, validation, where, local.parts if local else None)
    located = {key: Location(doc.path, doc.line(at), _key_name(at)) for key, at in written.items()}
    located["solver"] = solver_path if solver is not None else ("schemes",)
    return DatasetPlan(name=name, scaling=scaling, split=split, validation=validation, grid=grid,
                       estimate=estimate, where=located, local=local, features=features,
                       solver=solver, max_iter=max_iter)


def _reuse_across_C(doc, raw):
    """``reuse_across_C``: true (the default) or false."""
    reuse = raw.get("reuse_across_C", True)
    if not isinstance(reuse, bool):
        doc.fail(("reuse_across_C",), f"expected true or false, got {_show(reuse)}")
    return reuse
