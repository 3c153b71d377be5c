"""A researcher's own data named in a config: the local spec and its loading through the format
registry (``data/formats/``); this package imports the registry, never the reverse."""
