"""The package list: every package folder of multisvm_cli, found (setuptools' discovery), and
the two folders of shipped YAML files that pyproject.toml's package-dir maps into it."""

from setuptools import find_packages, setup

DATA_PACKAGES = ["multisvm_cli.cards", "multisvm_cli.configs"]  # package-dir: datasets/, configs/

setup(packages=[*find_packages(include=["multisvm_cli", "multisvm_cli.*"]), *DATA_PACKAGES])
