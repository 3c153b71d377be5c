"""Running a plan: datasets, repeats, both estimates, combined results.
"""

from __future__ import annotations

from dataclasses import replace

from ...storage import PointCache
from ..splits import scaled_folds
from .final import fold_tests
from .fitting import fit_group
from .grid import grid_search, grid_tasks
from .pooling import pool_scheme
from .selection import of_estimate, select

def load_datasets(config, mirror=None, data_home=None, quiet=False) -> dict:
    """Every dataset of ``config`` (name -> Dataset), only the parts its plan needs, checked
    against the plan (:func:`.validation.check_plan`) before anything is computed."""
    from ..validation import check_plan

    loaded = {}
    for plan in config.datasets:
        loaded[plan.name] = load_plan_data(plan, parts_needed(plan), mirror, data_home, quiet)
        check_plan(plan, loaded[plan.name])
    return loaded


def load_plan_data(plan, parts=None, mirror=None, data_home=None, quiet=False):
    """The Dataset of one plan: its local data file(s) (``plan.local``), else the registry's
    dataset, only ``parts`` (None: all)."""
    from ... import data

    if plan.local is not None:
        return data.load_local(plan.local, parts)
    return data.load(plan.name, parts=parts, mirror=mirror, data_home=data_home,
                     progress=not quiet)


def run_protocol(config, datasets, cache: PointCache, n_jobs=1, progress=None, fit_jobs=None):
    """Run the protocol for every dataset x scheme of ``config`` on ``datasets`` (name ->
    Dataset, from :func:`load_datasets`), ``config.repeats`` times (:func:`repeat_plan`).

    ``n_jobs`` grid points run at once; the final fits' estimators get ``fit_jobs`` (default
    ``n_jobs``).

    Returns (results, grid rows, {dataset: checksums}); each grid row carries its ``repeat``;
    ``progress`` is called once with the total number of grid points x schemes and must return
    a bar with ``update(n)``.
    """
    repeats = config.repeats
    loaded = [(plan, datasets[plan.name]) for plan in config.datasets]
    total = repeats * sum(len(plan.estimate) * plan.split.get("k", 1)
                          * sum(len(group) for _, group in grid_tasks(plan, config.schemes))
                          for plan in config.datasets)
    bar = progress(total) if progress else None
    results, grid_rows = [], []
    try:
        for plan, dataset in loaded:
            tests = {e: {s: [] for s in config.schemes} for e in plan.estimate}
            rows_of_plan = []
            for r in range(repeats):
                planned = repeat_plan(plan, r)
                folds = scaled_folds(dataset, planned)  # one repeat's folds in memory at once
                rows = grid_search(dataset, planned, folds, config.schemes,
                                   config.scheme_options, config.seed, cache, n_jobs=n_jobs,
                                   progress=bar, estimates=plan.estimate)
                for row in rows:
                    row["repeat"] = r
                for estimate in plan.estimate:
                    found = fold_tests(folds, planned, rows, config.schemes,
                                       config.scheme_options, config.seed, fit_jobs or n_jobs,
                                       repeat=r, estimate=estimate,
                                       dag_orders=config.dag_orders if estimate == "nested" else 0)
                    for scheme in config.schemes:
                        tests[estimate][scheme] += found[scheme]
                rows_of_plan += rows
            per_estimate = {estimate: [pool_scheme(plan.name, s, tests[estimate][s],
                                             of_estimate(rows_of_plan, estimate))
                                       for s in config.schemes]
                            for estimate in plan.estimate}
            results += combine_estimates(per_estimate)
            grid_rows += rows_of_plan
    finally:
        if bar is not None:
            bar.close()
    checksums = {dataset.name: dict(dataset.checksums) for _, dataset in loaded}
    return results, grid_rows, checksums


def repeat_plan(plan, repeat):
    """``plan`` for repeat ``repeat`` (0, 1, ...): the split's and the validation's seeds (where
    they have one) increased by ``repeat``; repeat 0 is ``plan`` itself."""
    if repeat == 0:
        return plan
    def shifted(section):
        return {**section, "seed": section["seed"] + repeat} if "seed" in section else section
    return replace(plan, split=shifted(plan.split), validation=shifted(plan.validation))


def combine_estimates(per_estimate):
    """One result per scheme from {estimate: pooled results}: the nested result when there
    is one (McNemar reads its ``correct``), carrying the cv-best one's error, point and ties
    under ``cv_best``; the cv-best result alone otherwise (without ``correct``: McNemar applies
    to the nested estimate only).  Each result says its ``estimate``."""
    nested, cv_best = per_estimate.get("nested"), per_estimate.get("cv-best")
    if cv_best is None:
        return [{**r, "estimate": "nested"} for r in nested]
    summaries = [{"kernel": r["kernel"], "C": r["C"], "params": r["params"],
                  "n_errors": r["n_errors"], "n_test": r["n_test"],
                  "error_pct": 100.0 * r["n_errors"] / r["n_test"],
                  "ties": r["selections"][0]["ties"]} for r in cv_best]
    if nested is None:
        return [{**{k: v for k, v in r.items() if k != "correct"}, "estimate": "cv-best",
                 "cv_best": s} for r, s in zip(cv_best, summaries)]
    return [{**r, "estimate": "nested", "cv_best": s} for r, s in zip(nested, summaries)]


def parts_needed(plan):
    """The dataset parts a plan reads (None: all of them, pooled for a holdout or k-fold)."""
    if plan.split["method"] != "standard":
        return None
    return ["train", "test"] + (["validation"] if plan.validation["method"] == "given" else [])


# --------------------------------------------------------------------------- one saved model

def fit_selected(config, plan, scheme, cache: PointCache, n_jobs=1, progress=None, mirror=None,
                 data_home=None, quiet=False, fit_jobs=None):
    """Select ``scheme``'s grid point on ``plan`` and fit it on the whole training part.

    The training part is the first outer fold's (all rows for a k-fold split); a dataset's own
    test part is not needed (covertype trains from its partial copy). Returns (fitted
    estimator, fitted scaler, selected grid row, dataset).
    """
    from ..validation import check_plan

    parts = parts_needed(plan)
    parts = parts and [part for part in parts if part != "test"]
    dataset = load_plan_data(plan, parts, mirror, data_home, quiet)
    check_plan(plan, dataset)
    if plan.split["method"] == "kfold":
        plan = replace(plan, split={"method": "all"})
    fold = scaled_folds(dataset, plan)[0]
    bar = progress(len(grid_tasks(plan, [scheme]))) if progress else None
    try:
        rows = grid_search(dataset, plan, [fold], [scheme], config.scheme_options, config.seed,
                           cache, n_jobs=n_jobs, progress=bar)
    finally:
        if bar is not None:
            bar.close()
    chosen = select(rows, plan, scheme, fold.index)
    fitted, _, _ = fit_group((scheme,), chosen["point"].params(), config.scheme_options,
                             fold.X_train, fold.y_train, fit_jobs or n_jobs, config.seed)
    return fitted[scheme], fold.scaler, chosen, dataset
