"""Tier 2: exact operand types from libclang, driven by compile_commands.json (optional).

Everything here degrades to Tier 1: no libclang wheel, no compile database, a TU that does not
parse. See ``session`` for the API the engine and rules use.
"""

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
