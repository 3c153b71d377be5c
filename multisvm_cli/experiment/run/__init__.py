"""One run of a config: settings, the sweep, progress, interruption, provenance, fit notes and the run folder's report."""
