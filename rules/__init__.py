"""ptxlint's built-in rules, registered through the ``ptxlint.rules`` entry point.

Every module ``ptxNNN_*.py`` in this package holds one rule class; they are collected here so
that adding a rule is adding a module (and its fixtures), nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil

from ptxlint.rule import Rule


def _collect() -> tuple[type[Rule], ...]:
    found: list[type[Rule]] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if not info.name.startswith("ptx"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for obj in vars(module).values():
            if (
                isinstance(obj, type)
                and issubclass(obj, Rule)
                and obj is not Rule
                and obj.__module__ == module.__name__
            ):
                found.append(obj)
    return tuple(sorted(found, key=lambda cls: cls.id))


BUILTIN_RULES = _collect()

__all__ = ["BUILTIN_RULES"]
