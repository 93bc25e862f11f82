"""ptxlint's built-in rules, registered through the ``ptxlint.rules`` entry point.

Every module ``ptxNNN_*.py`` in this package holds one rule class; they are collected here so
that adding a rule is adding a module (and its fixtures), nothing else.
"""

from __future__ import annotations

import importlib
import os

from ptxlint.rule import Rule


def _rule_modules() -> list[str]:
    """The ``ptx*`` modules of this package, by name: its folders listed (``pkgutil`` and its
    import cost 0.4 ms of CPU at every start, for the same names)."""
    names: set[str] = set()
    for folder in __path__:
        listed = os.listdir(folder)
        names.update(n[:-3] for n in listed if n.startswith("ptx") and n.endswith(".py"))
    return sorted(names)


def _collect() -> tuple[type[Rule], ...]:
    found: list[type[Rule]] = []
    for name in _rule_modules():
        module = importlib.import_module(f"{__name__}.{name}")
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
