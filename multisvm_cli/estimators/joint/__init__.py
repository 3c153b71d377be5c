"""The all-together machines' solver (Crammer-Singer, Weston-Watkins): the machine, the decomposition solver and its compiled loops."""
