"""The run's figures (PNG, SVG or PDF), one module per kind, all through one registry.

:mod:`.base` holds the registry (:func:`.base.figure`), what a figure reads (:class:`.base.RunData`)
and the drawing of a run (:func:`.base.write_figures`: draw, then remove the stale files);
:mod:`.drawing` writes a figure and holds the shared styles and tick labels. Every other module
of this package is a figure kind that registers itself when imported; this package imports
them all, so a new figure is one new module here and nothing else edited:

- :mod:`.cd`: ``cd-diagram``, average ranks and Nemenyi's critical difference;
- :mod:`.tradeoff`: ``tradeoff-<dataset>``, test error against kernel evaluations;
- :mod:`.dag_orders`: ``dag-orders-<dataset>``, the DAG scheme over random class orders;
- :mod:`.heatmaps`: ``grid-<dataset>-<kernel type>``, the model-selection grids;
- :mod:`.sweep`: ``sweep-<dataset>``, a sweep's error, time and memory.

Cost: a run draws one file per dataset x kernel type (not per scheme) and lays each figure out
by hand with fixed margins in inches (a layout engine measures every text and draws each figure
twice). Measured on the quickstart (3 datasets, 7 schemes, 2 kernel types; 2 shared cores):
40 files with constrained layout took 8.5 s; these 10 files take about 1.5 s of CPU.
"""

from __future__ import annotations

import importlib
import pkgutil

from .base import FIGURES, RunData, draw_figures, figure, registered, write_figures

__all__ = ["FIGURES", "RunData", "draw_figures", "figure", "registered",
           "write_figures"]

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
