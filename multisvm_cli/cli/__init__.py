"""The command line: ``multisvm`` and its commands (a thin layer over :mod:`multisvm_cli.experiment`)."""
