"""The all-together machines' solver (Crammer-Singer, Weston-Watkins): the machine, the
decomposition solver, its named state, the box of each formulation, its compiled loops and
sub-problems, and the Newton step."""
