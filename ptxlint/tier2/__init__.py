"""Tier 2: exact operand types from libclang, driven by compile_commands.json (optional).

Everything here degrades to Tier 1: no libclang wheel, no compile database, a TU that does not
parse. See ``session`` for the API the engine and rules use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ptxlint.tier2 import compile_db, flags
    from ptxlint.tier2.session import (
        Instantiated,
        Tier2Session,
        Tier2Types,
        agreed,
        annotate,
        make_type_lookup,
    )

__all__ = [
    "compile_db",
    "flags",
    "Instantiated",
    "Tier2Session",
    "Tier2Types",
    "agreed",
    "annotate",
    "make_type_lookup",
]

_SUBMODULES = {"compile_db", "flags"}


def __getattr__(name: str) -> Any:
    # Loaded on first use: a run without a compile database never pays for libclang's glue.
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in __all__:
        return getattr(importlib.import_module(f"{__name__}.session"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
