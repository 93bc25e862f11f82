"""ptxlint's built-in rules, registered through the ``ptxlint.rules`` entry point.

Every module ``ptxNNN_*.py`` in this package holds one rule class; they are collected here so
that adding a rule is adding a module (and its fixtures), nothing else.

``BUILTIN_RULES`` holds the rules listed in ``manifest`` as stand-ins that import their module
on first use (ptxlint.lazy_rule), and the real class of any module the manifest does not list
yet (a rule just added: imported at once, as every rule was before the manifest).
"""

from __future__ import annotations

import importlib
import os

from ptxlint.lazy_rule import stand_in
from ptxlint.rule import Rule


def _rule_modules() -> list[str]:
    """The ``ptx*`` modules of this package, by name: its folders listed (``pkgutil`` and its
    import cost 0.4 ms of CPU at every start, for the same names)."""
    names: set[str] = set()
    for folder in __path__:
        listed = os.listdir(folder)
        names.update(n[:-3] for n in listed if n.startswith("ptx") and n.endswith(".py"))
    return sorted(names)


def _classes_of(name: str) -> list[type[Rule]]:
    """The rule classes module ``name`` of this package defines, imported now."""
    module = importlib.import_module(f"{__name__}.{name}")
    return [
        obj
        for obj in vars(module).values()
        if isinstance(obj, type)
        and issubclass(obj, Rule)
        and obj is not Rule
        and obj.__module__ == module.__name__
    ]


def real_rules() -> tuple[type[Rule], ...]:
    """Every built-in rule's real class, each module imported (what the manifest is made from)."""
    found = [cls for name in _rule_modules() for cls in _classes_of(name)]
    return tuple(sorted(found, key=lambda cls: cls.id))


def _collect() -> tuple[type[Rule], ...]:
    from .manifest import RULES

    present = set(_rule_modules())
    found: list[type[Rule]] = [stand_in(__name__, entry) for entry in RULES
                               if entry[0] in present]  # a rule removed: its entry goes too
    listed = {entry[0] for entry in RULES}
    for name in sorted(present - listed):
        found.extend(_classes_of(name))
    return tuple(sorted(found, key=lambda cls: cls.id))


BUILTIN_RULES = _collect()

__all__ = ["BUILTIN_RULES", "real_rules"]
