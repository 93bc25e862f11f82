"""Package layout only; everything else is in pyproject.toml.

The built-in rules live in the repository's top-level ``rules/`` folder but install as
``ptxlint_rules``: a top-level ``rules`` package collides with PyPI's django-rules (whichever is
installed second replaces the other's modules). pyproject.toml alone cannot both discover the
``ptxlint.*`` subpackages and rename one folder, hence this file.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["ptxlint", "ptxlint.*"]), "ptxlint_rules"],
    package_dir={"ptxlint_rules": "rules"},
)
