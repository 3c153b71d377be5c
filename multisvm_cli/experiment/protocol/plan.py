"""A whole study through the protocol (datasets, repeats, estimates), and one saved model's
selection. Both take what the protocol needs of a config as its :class:`..config.resolved.Study`
(:meth:`..config.Config.study`), never the config itself."""

from __future__ import annotations

from dataclasses import replace

from ...base.storage import PointCache
from ...estimators.own import UserClassifierError
from ..config.forms import Split
from ..plans import load_plan_data, parts_needed, repeat_plan
from ..splits import scaled_folds
from .edges import mark_edges
from .final import fold_tests
from .fitting import NonFiniteFit, fit_group
from .pooling import _pool, combine_estimates
from .search import Search
from .selection import _of_estimate, select
from .refine import searched
from .tasks import grid_tasks


def run_protocol(study, datasets, cache: PointCache, n_jobs=1, progress=None, fit_jobs=None):
    """Run the protocol for every dataset x scheme of ``study`` (a
    :class:`..config.resolved.Study`) on ``datasets`` (name -> Dataset, from
    :func:`..config.against_data.load_datasets`), ``study.repeats`` times
    (:func:`..plans.repeat_plan`).

    ``n_jobs`` grid points run at once; the final fits' estimators get ``fit_jobs`` (default
    ``n_jobs``).

    Returns (results, grid rows, {dataset: checksums}); each grid row carries its ``repeat``;
    ``progress`` is called once with the total number of grid points x schemes and must return
    a bar with ``update(n)``.
    """
    repeats = study.repeats
    loaded = [(plan, datasets[plan.name]) for plan in study.plans]
    total = repeats * sum(len(plan.estimate) * plan.split.outer_folds
                          * sum(len(group) for _, group in grid_tasks(plan, study.schemes))
                          for plan in study.plans)
    bar = progress(total) if progress else None
    results, grid_rows = [], []
    try:
        for plan, dataset in loaded:
            tests = {e: {s: [] for s in study.schemes} for e in plan.estimate}
            rows_of_plan, stats = [], []
            search = plan_search(study, plan, dataset, study.schemes, plan.estimate)
            for r in range(repeats):
                repeat = replace(search, plan=repeat_plan(plan, r))
                folds = scaled_folds(dataset, repeat.plan)  # one repeat's folds in memory at once
                stats += [fold.text_stats for fold in folds if fold.text_stats]
                rows = searched(repeat, folds, cache, n_jobs=n_jobs, progress=bar)
                for row in rows:
                    row["repeat"] = r
                for estimate in plan.estimate:
                    found = fold_tests(repeat, folds, rows, fit_jobs or n_jobs, repeat=r,
                                       estimate=estimate,
                                       dag_orders=study.dag_orders if estimate == "nested" else 0)
                    for scheme in study.schemes:
                        tests[estimate][scheme] += found[scheme]
                rows_of_plan += rows
            per_estimate = {estimate: [_pool(plan.name, s, tests[estimate][s],
                                             _of_estimate(rows_of_plan, estimate),
                                             drawn=plan.split.method == "draws",
                                             balanced=study.balanced_metrics)
                                       for s in study.schemes]
                            for estimate in plan.estimate}
            mark_edges(per_estimate, tests, rows_of_plan)
            results += [{**result, **text_features(stats), **draw_count(plan, repeats)}
                        for result in combine_estimates(per_estimate)]
            grid_rows += rows_of_plan
    except (NonFiniteFit, UserClassifierError) as exc:
        raise type(exc)(f"dataset {plan.name}: {exc}") from None
    finally:
        if bar is not None:
            bar.close()
    checksums = {dataset.name: dict(dataset.checksums) for _, dataset in loaded}
    return results, grid_rows, checksums

def plan_search(study, plan, dataset, schemes, estimates=("nested",)) -> Search:
    """The :class:`.search.Search` of ``schemes`` on ``plan``'s ``dataset`` in ``study``:
    their options on the plan (:func:`plan_options`), the study's seed and reuse across C,
    scoring ``estimates``."""
    return Search(dataset, plan, tuple(schemes), plan_options(study, plan), study.seed,
                  study.reuse_across_C, tuple(estimates))

def plan_options(study, plan) -> dict:
    """The estimators' options on ``plan``: the study's scheme_options with the plan's
    ``max_iter`` (:meth:`DatasetPlan.options`), each kernel scheme's solver filled in from the
    dataset's (or the top level's) ``solver`` where its own scheme_options name none."""
    from ..config.features import scheme_solvers

    options = {s: dict(o) for s, o in plan.options(study.scheme_options,
                                                   study.schemes).items()}
    if plan.solver is None:
        return options
    for scheme, solver in scheme_solvers(plan, study.schemes, study.scheme_options).items():
        options.setdefault(scheme, {})["solver"] = solver
    return options

def draw_count(plan, repeats) -> dict:
    """A draws split's results.json ``draws``: the random train/test draws its error (their
    mean: every draw tests n_test points) and error_sd are over (draws x repeats); {} for
    any other split."""
    if plan.split.method != "draws":
        return {}
    return {"draws": plan.split.draws * repeats}

def text_features(stats) -> dict:
    """A text dataset's results.json ``features``: the vocabulary size and the mean non-zeros
    per training document, averaged over the outer folds (and repeats); {} for numeric data."""
    if not stats:
        return {}
    return {"features": {
        "vocabulary_size": int(round(sum(s["vocabulary_size"] for s in stats) / len(stats))),
        "mean_nonzeros": round(sum(s["mean_nonzeros"] for s in stats) / len(stats), 3)}}

def fit_selected(study, plan, scheme, cache: PointCache, jobs, places, progress=None):
    """Select ``scheme``'s grid point on ``plan`` of ``study`` (a
    :class:`..config.resolved.Study`) and fit it on the whole training part
    (refused in one line above the study's class limit for a pairwise ``scheme``,
    :func:`..config.class_limit.check_class_limit`).

    ``jobs``: the grid points run at once (``jobs.grid``) and the final fit's threads
    (``jobs.fit``), as ``run.settings.Workers`` has them; ``places``: where the data is read
    from and whether to stay quiet (``mirror``, ``data_home``, ``quiet``, as
    ``run.settings.Settings`` has them).

    The training part is the first outer fold's (a draws split's first draw; all rows for a
    k-fold split); a dataset's own
    test part is not needed (covertype trains from its partial copy). Returns (fitted
    estimator, fitted scaler, selected grid row, dataset, fitted vocabulary: (terms, idf) of
    a text dataset's training documents, else None, a csv table's fitted encoding:
    ``data.fitted_columns.FittedColumns``, else None).
    """
    from ..config.against_data import check_plan
    from ..config.class_limit import check_class_limit

    parts = parts_needed(plan)
    parts = parts and [part for part in parts if part != "test"]
    dataset = load_plan_data(plan, parts, places.mirror, places.data_home, places.quiet)
    check_class_limit(study, plan, dataset, [scheme])
    check_plan(plan, dataset)
    if plan.split.method == "kfold":
        plan = replace(plan, split=Split("all"))
    fold = scaled_folds(dataset, plan)[0]
    bar = progress(len(grid_tasks(plan, [scheme]))) if progress else None
    search = plan_search(study, plan, dataset, [scheme])
    try:
        rows = searched(search, [fold], cache, n_jobs=jobs.grid, progress=bar)
    finally:
        if bar is not None:
            bar.close()
    chosen = select(rows, plan, scheme, fold.index)
    fitted, _, _ = fit_group((scheme,), chosen["point"].params(), search.options,
                             fold.X_train, fold.y_train, jobs.fit, study.seed)
    return fitted[scheme], fold.scaler, chosen, dataset, fold.vocabulary, fold.columns
