"""The top-level keys of a config: the one table that says which keys a config may hold.

:data:`KEYS` maps each key to its default (as the resolved config shows it, or a phrase) and a
one-line description. :func:`load_config` refuses any other top-level key with this table
(``TOP_KEYS``), and the documentation's config reference is generated from it
(``scripts/gen_docs.py``), so the two cannot disagree.
"""

from ...estimators.registry import REGISTRY

KEYS = {
    "name": ("the file's stem",
             "Names the results folder: letters, digits, '.', '_', '-', at most 100, not "
             "starting with '.' or '-'."),
    "dataset": ("required",
                "A registry name, a list of names, or list items that override the top-level "
                "values for one dataset ({name: letter, split: ...}) or name a local file "
                "({name: mine, path: data/mine.csv})."),
    "scaling": ("paper",
                "none | minmax | standard | standard-continuous | maxabs | paper (the card's "
                "paper_scaling); fitted on each training part only. A local file: standard "
                "(maxabs if sparse)."),
    "split": ("standard",
              "standard (the dataset's own parts), {test_fraction: F, seed: S} (a stratified "
              "test part) or {method: kfold, k: K, seed: S} (every point tested once)."),
    "validation": ("{method: holdout, train_fraction: 0.7}",
                   "How each grid point is scored: holdout (a stratified split of the training "
                   "part), given (the dataset's validation part) or {method: kfold, k: K}."),
    "kernels": ("required",
                "A list of kernel entries; every combination is a grid point: {type: gaussian, "
                "sigma: [...] or gamma: [...]}, {type: polynomial, degree: [...], homogeneous: "
                "[...]}, {type: linear}; an entry may carry its own C list."),
    "C": ("required unless every kernel entry has its own",
          "A list of C values, or a range {base: B, from: A, to: Z[, step: S]}."),
    "schemes": ("required",
                f"{' | '.join(REGISTRY)}, by name, label or alias in any case "
                f"({', '.join(s.label for s in REGISTRY.values())}, ...); or a user's classifier "
                f"row {{scheme: package.module:ClassName, label, options}}."),
    "scheme_options": ("{}",
                       "Constructor parameters per scheme, e.g. {dag: {order: natural}, graph: "
                       "{threshold: 0.05}, hier: {level1: nb}}; the options table below."),
    "compare_to": ("dag when it is run, else the first scheme",
                   "The scheme McNemar's test (or the corrected t-test) compares the others "
                   "with; it must be run."),
    "seed": ("0", "Default seed of the split, the validation split and the estimators "
                  "(0..2^32-1); the CLI's --seed replaces it."),
    "reference": ("none",
                  "A paper's numbers printed beside ours: {source: ..., DATASET: {SCHEME: "
                  "{sigma, degree, kernel, C, error, kernel_evaluations, cpu_time, size_k}}}."),
    "max_grid_points": ("10000",
                        "A larger grid (per dataset) is refused unless raised here on "
                        "purpose."),
    "repeats": ("1",
                "Run the whole protocol N times, repeat r with split and validation seeds "
                "seed + r; the paired test becomes the corrected resampled t-test."),
    "dag_orders": ("0",
                   "Test the selected DAG's pairwise SVMs under N random class orders (no "
                   "refit)."),
    "estimate": ("nested",
                 "nested (honest: chosen on each fold's training part, tested once) | cv-best "
                 "(Hsu & Lin's best grid point's k-fold error, optimistic) | both as a list; "
                 "cv-best needs split: {method: kfold}."),
    "reuse_across_C": ("true",
                       "Reuse a grid machine with no support vector at the bound for every "
                       "larger C (exact); false refits every point (for timings)."),
    "features": ("tfidf, lowercase, no stop words, l2 rows",
                 "Text datasets only: how documents become a sparse matrix (vectorizer, "
                 "stop_words, min_df, max_df, ...), fitted on training documents only."),
    "solver": ("libsvm",
               "libsvm | liblinear (linear kernels only; it also regularizes the bias); top "
               "level, per dataset, or per scheme in scheme_options (the scheme's wins)."),
    "sweep": ("none",
              "Run the protocol at each value of one setting: {classes: [...]}, "
              "{train_fraction: [...]} or {scheme_options: {SCHEME: {OPTION: [...]}}}."),
    "max_iter": ("libsvm",
                 "SMO iterations per binary SVM: libsvm = upstream LIBSVM's max(10^7, 100 x "
                 "rows); an integer; none for no bound."),
    "rope": ("1.0",
             "The Bayesian signed-rank test's region of practical equivalence, in points of "
             "test error (1 = one point of accuracy; 0 to 50)."),
    "layout": ("table-1",
               "table-1 (the Table-1 report alone) | hsu-lin (Hsu & Lin's 2002 Table II, rate "
               "and chosen (C, gamma), and Table III, training and testing time and #SVs, after "
               "it in the terminal, table.md and report.html)."),
}
TOP_KEYS = tuple(KEYS)
