"""The report layer: everything a run's results become, from the saved files alone.

- :mod:`.record`: the per-scheme result record a run writes and the reports read (its keys,
  each declared once), and a scheme's label (the record's; the registry's for older runs);
- :mod:`.columns`: the Table-1 report's columns, each declared once (title, unit, format,
  range, note), which the tables, report.html, the footnote, the run checks and the
  run-folder reference are made from;
- :mod:`.table`: the Table-1 rows and their text (table, markdown, csv, json) and footnote;
- :mod:`.hsu_lin`: Hsu & Lin's (2002) Tables II and III, for configs with ``layout: hsu-lin``;
- :mod:`.paired`: the paired tests (McNemar's test, the corrected resampled t-test);
- :mod:`.ranking`: average ranks over datasets, Friedman's test, Nemenyi's critical difference;
- :mod:`.verdict`: Holm-corrected pairwise Wilcoxon tests and the Bayesian signed-rank test
  with a ROPE over datasets (:mod:`.figures.bayes`: its figure);
- :mod:`.run_folder`: the one writer and the one checked reader of a run folder's files;
- :mod:`.intervals`: 95% intervals of a test error (Wilson; the fold spread);
- :mod:`.summary`: the answer report.html leads with (the best scheme per dataset, and the
  schemes not significantly different from it);
- :mod:`.figures`: the figures, one module per kind, through one registry (:mod:`.figures.base`);
- :mod:`.html`, :mod:`.html_table`: report.html (its sortable table and column toggle).

Scheme names are shown by their label: the record's, else the registry's (``record.label``,
the one place the report layer asks the registry for one).
"""
