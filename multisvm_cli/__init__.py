"""multisvm: compare multiclass SVM schemes honestly (same data, same solver, same protocol)."""

__version__ = "0.1.0"
