"""multisvm: compare multiclass SVM schemes honestly (same data, same solver, same protocol)."""

__version__ = "0.2.0"  # model format 2, new run-folder files: a new resume-cache key
