"""Experiment configs: a YAML file naming datasets, scaling, split, validation, kernel grid, C grid
and schemes, validated into a :class:`Config` with one-line errors.

The package splits the work by idea: :mod:`.document` (the YAML with line numbers and the error),
:mod:`.checks` (value checks), :mod:`.grid` (kernels and C), :mod:`.sections` (split,
validation, estimate, schemes, options, repeats, reference), :mod:`.forms` (the split's and
the validation's methods and the named objects a plan holds), :mod:`.datasets` (registry names and
local files) and :mod:`.resolved` (the Config and its per-dataset plans). :mod:`.keys` is the
table of every key, top level, per dataset and per local file (each key's default, check,
resolved form and description, once), and :func:`load_config` (:mod:`.load`) a loop over it. :mod:`.against_data` answers the rest of
"can this config run?" from the config and its data, for ``validate`` and the run alike.

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
                                    #   {method: draws, draws: 20, n_train: 300, n_test: 500, seed: 0}
                                    #     random stratified draws (Wu, Lin & Weng 2004)
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
                                    #   bound for every larger C (exact), warm-start cs and ww
                                    #   from the last smaller C (false: refit, for timings)
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

``format`` is a local format of the registry (:func:`multisvm_cli.data.formats.config_names`:
csv, svmlight, npz, text; from the extension when absent); its read options are its module's
``OPTIONS``: ``label`` (csv: column name or 0-based index, default the last) and ``header``
(csv: true/false, detected when absent), ``zero_based`` (svmlight, default false). A folder
(``format: text``, ``kind: text``) is a text folder: one
subfolder per class, one document per file (``test_path``: a folder of test documents). Paths are relative to the config file; the resolved
config writes them absolute. Without ``test_path`` there is no fixed split (use
``split: {test_fraction: ...}`` or k-fold). A local file's default scaling is ``standard``
(``maxabs`` for sparse data), shown in the resolved config; ``scaling: paper`` is refused for
it (no paper scaled that file).
Sparse data (svmlight files and cards) refuses the scalings that center (minmax, standard,
standard-continuous): use maxabs or none.
"""

from ...base.lazy import module_getattr

# imported on first use: ``multisvm configs`` reads the shipped configs through .document and
# .checks, without the table's modules (they import numpy)
__getattr__ = module_getattr(__name__, {
    ".document": ("ConfigError", "Location"),
    ".grid": ("GridPoint",),
    ".load": ("load_config",),
    ".resolved": ("Config", "DatasetPlan", "summary"),
})

__all__ = ["Config", "ConfigError", "DatasetPlan", "GridPoint", "Location", "load_config",
           "summary"]
