"""The validation protocol: model selection and testing, as in Platt et al. (1999), section 5.

For each dataset and each outer fold (the dataset's own train/test split, a seeded stratified
holdout test part, or k folds), the scaler is fitted on the training part only. Then, for each
scheme, every (kernel, C) grid point is trained on the validation-training rows (70% of the
training part, stratified and seeded; or the dataset's own validation part with ``given``; or
k-fold) and scored by the combined multiclass error on the held-out rows. Each scheme selects
its own point (lowest validation error; ties go to the simpler model, ``GridPoint.simplicity``:
smaller C, then the simpler kernel, then the wider Gaussian, whatever the grid's order; the
number of tied points is kept), which is retrained on the whole training part and tested once
on the test part: the ``nested`` estimate.

The ``cv-best`` estimate (Hsu & Lin 2002, reported by the UDT paper) scores every grid point on
the outer folds themselves: trained on each fold's training part, tested on its test part, the
errors pooled over the k folds; the point with the lowest pooled error is chosen and that error
reported (optimistic: chosen on the folds it is reported on).  What the two estimates share:
the outer folds and their scaling; the cv-best fits at a point are the fits the nested estimate
makes when it selects that point (the final fits are redone rather than keeping every grid
point's model: they are 1/len(grid) of the work); and both estimates' grid tasks run in one
pool, so the slow ones of either keep both cores busy.  They share no validation fits: the
nested estimate's grid is trained on a 70/30 (or k-fold) split of each training part, the
cv-best one on the whole training part.

Max Wins and DAGSVM share their pairwise machines: at each grid point the pairwise SVMs are
trained once and both schemes are scored from them (``DAGSVC.from_maxwins``), as in Table 1.
Grid points that differ only in C are scored in one task, in which 1-v-r's fits share one
training Gram matrix (when it fits ``memory_mb``; on USPS this saves 0.17 s of a 0.45 s fit).
The pairwise SVMs do not use it: gathering a pair's rows from it cost more than libsvm computing
the few kernel columns SMO visits (measured on USPS).  Tasks are dispatched through
``joblib.Parallel`` (threads unless told otherwise: libsvm and BLAS release the GIL), so
``joblib.parallel_config`` (loky, threading, dask) decides where they run; each finished task's
points are written to the resume cache at once.

Repeats (``Study.repeats``): repeat r runs the whole protocol again with the split's and the
validation's seeds increased by r (:func:`..plans.repeat_plan`); every outer fold of every repeat
is one *split* whose test error results.json keeps. A scheme's ``error_pct`` pools the test
points of all splits; ``error_sd`` is the sample standard deviation (ddof = 1) of the splits'
test errors (None for a single split).

The DAG order study (``Study.dag_orders`` = N): the selected DAGSVM of every final fit is
tested again under N random class orders, the same N orders (seeded by the study's seed) on
every split, without refitting (:meth:`DAGSVC.with_order`); each order's test error is pooled
over the splits like ``error_pct``.

The package, one idea a module: :mod:`.search` (the named state: what a grid search and its
final tests need, and where its tasks write), :mod:`.fitting` (fit and score a group of
schemes at grid points), :mod:`.tasks` (the grid as named tasks, run in parallel),
:mod:`.cache` (the resume cache's key and entry check), :mod:`.selection` (nested, cv-best,
the tie rule), :mod:`.final` (final fits and tests, the DAG order study), :mod:`.pooling` (one
Table-1 result from the splits' tests), :mod:`.plan` (a whole study, and one saved model's
selection); the plans they run come from :mod:`..plans`. What they take of a config is its
:class:`..config.resolved.Study` (:meth:`..config.Config.study`): the plans and the few keys
the protocol reads, never the config itself.
"""

from .cache import check_point_result, point_key, software_versions
from .final import dag_order_study, fold_tests, random_orders
from .fitting import Stopwatch, fit_group, make_estimator, score_points, shared_gram
from .plan import fit_selected, run_protocol
from .pooling import combine_estimates
from .search import Search, Stores, estimate_plan
from .selection import select, select_cv_best
from .tasks import GridTask, PointJob, grid_search, grid_tasks, same_kernel_tasks

__all__ = ["GridTask", "PointJob", "Search", "Stopwatch", "Stores", "check_point_result", "combine_estimates",
           "dag_order_study", "estimate_plan", "fit_group", "fit_selected", "fold_tests",
           "grid_search", "grid_tasks", "make_estimator", "point_key",
           "random_orders", "run_protocol",
           "same_kernel_tasks", "score_points", "select", "select_cv_best", "shared_gram",
           "software_versions"]
