"""A researcher's own data files named in a config: the local spec, its readers and its size bounds."""
