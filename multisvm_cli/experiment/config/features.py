"""Text datasets in a config: the ``features:`` section, the scalings a sparse text matrix can
take, and the ``solver:`` key (libsvm | liblinear) with the kernels liblinear can train.

``features:`` (top level or per dataset; a text dataset needs none written, the defaults are
``data.TextFeatures``'s: tf-idf, lowercase, no stop words, l2 rows) is refused on a numeric
dataset. A text dataset's scaling defaults to ``none`` (tf-idf rows are already l2-normalised)
and may be ``maxabs``; a centering scaling would densify the matrix and is refused.
``paper`` means ``none`` on text.
"""

from __future__ import annotations

from dataclasses import asdict

from ...base.errors import one_line
from ...estimators.options import SOLVERS
from ...estimators.registry import estimator, kernel_free
from .checks import check_choice, show

TEXT_SCALINGS = ("none", "maxabs", "paper")


def _features(doc, value, path):
    """The ``data.TextFeatures`` of a ``features:`` mapping (one line per problem)."""
    from ... import data

    try:
        return data.TextFeatures.from_mapping(value)
    except (data.DatasetError, TypeError) as exc:
        doc.fail(path, one_line(exc).removeprefix("features: "))


def default_features(doc, name, text, local):
    """A dataset's ``features`` when none is written: a text dataset's defaults (an empty
    mapping, checked as a written one is), none for numeric data (a csv table's column
    options then are :class:`data.columns.ColumnOptions`' defaults)."""
    return {} if text else None


def dataset_features(doc, value, path, name, text, local):
    """A dataset's checked ``features``: a text dataset's (:func:`_features`), or a local csv
    table's column options (:func:`table_features`); refused on other data."""
    if not text and local is not None and local.format == "csv":
        return table_features(doc, value, path)
    features = _features(doc, value, path)
    if not text:
        doc.fail(path, f"features is for text datasets and csv files; {name!r} is numeric")
    return features


def table_features(doc, value, path):
    """A csv table's ``features:`` (drop, categorical, missing, unseen) as a
    ``data.columns.ColumnOptions`` (one line per problem)."""
    from ...data.columns import ColumnOptions
    from ...data.errors import DatasetError

    try:
        return ColumnOptions.from_mapping(value)
    except DatasetError as exc:
        doc.fail(path, one_line(exc).removeprefix("features: "))


def with_table_features(local, values) -> object:
    """``local`` (a dataset's LocalSpec) holding its csv table's column options, which
    ``values["features"]`` holds after the features key's check; they leave ``values`` (a
    plan's ``features`` is a text dataset's): they say how the file is read."""
    from dataclasses import replace

    from ...data.columns import ColumnOptions

    if isinstance(values.get("features"), ColumnOptions):
        local = replace(local, columns=values["features"])
        values["features"] = None
    return local


def features_dict(features) -> dict:
    """The resolved config's ``features:`` (every setting written)."""
    settings = asdict(features)
    settings["ngram_range"] = list(settings["ngram_range"])
    return settings


def _solver(doc, value, path):
    """A ``solver:`` value: libsvm or liblinear."""
    return check_choice(doc, value, path, SOLVERS, "solver")


def scheme_solvers(plan, schemes, scheme_options) -> dict:
    """Each kernel scheme's solver on ``plan``: its scheme_options' solver, else the dataset's,
    else the top level's (``plan.solver``), else libsvm."""
    return {s: scheme_options.get(s, {}).get("solver", plan.solver or "libsvm")
            for s in schemes if not kernel_free(s)}


def _check_solvers(plan, schemes, scheme_options, written):
    """liblinear trains linear machines only: refuse it beside another kernel in the grid, and
    for a scheme whose class takes no liblinear (``_solvers``: the all-together machines);
    ``written``: the Location the error names (the solver's, else the schemes')."""
    solvers = scheme_solvers(plan, schemes, scheme_options)
    for scheme, solver in solvers.items():
        if solver not in estimator(scheme)._solvers:
            raise written.error(f"{scheme} trains with its own solver; solver {solver} (on "
                                f"{plan.name}) does not apply to it: set solver: libsvm for "
                                f"{scheme} in scheme_options, or leave it out of schemes")
    kernels = sorted({point.kernel for point in plan.grid} - {"linear"})
    liblinear = [s for s, solver in solvers.items() if solver == "liblinear"]
    if liblinear and kernels:
        raise written.error(f"solver liblinear ({show(liblinear)} on {plan.name}) trains "
                            f"linear machines only; the grid has the {', '.join(kernels)} "
                            f"kernel: use solver: libsvm or a linear kernel grid")
