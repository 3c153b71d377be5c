"""The report layer: everything a run's results become, from the saved files alone.

- :mod:`.table`: the Table-1 rows and their text (table, markdown, csv, json) and footnote;
- :mod:`.hsu_lin`: Hsu & Lin's (2002) Tables II and III, for configs with ``layout: hsu-lin``;
- :mod:`.paired`: the paired tests (McNemar's test, the corrected resampled t-test);
- :mod:`.ranking`: average ranks over datasets, Friedman's test, Nemenyi's critical difference;
- :mod:`.verdict`: Holm-corrected pairwise Wilcoxon tests and the Bayesian signed-rank test
  with a ROPE over datasets (:mod:`.verdict_figure`: its figure);
- :mod:`.run_folder`: the one writer and the one checked reader of a run folder's files;
- :mod:`.drawing`, :mod:`.heatmaps`, :mod:`.figures`: the PNG figures;
- :mod:`.html`: report.html.

Scheme names are shown by their registry label (``estimators.registry.label``) only.
"""
