"""The value of an integer expression in one C++ function, for value flow
(``FunctionFlow.constant``): literals, ``sizeof`` of a built-in type whose size every target
agrees on (``c_types.certain_size``), and locals defined once by such an expression, followed
``MAX_CHAIN`` deep.

The text, with those replaced by their values, is evaluated as the C preprocessor evaluates
``#if`` arithmetic (``frontends.cxx.preproc.integer_value``: 64-bit, C's division, what C
leaves undefined unknown). A linted file's text is never handed to Python's own evaluator,
where ``1<<99999999999`` would take gigabytes and ``7/2`` would not be C's 3.
"""

from __future__ import annotations

import re
from typing import Protocol

import tree_sitter

from ptxlint.frontends.cxx.c_types import STD_SCOPES, certain_size
from ptxlint.frontends.cxx.preproc import integer_value
from ptxlint.lazy_regex import on_first_use

MAX_CHAIN = 4  # locals followed through their initializers

# ``sizeof`` of a type named by words (``unsigned int``), in a namespace or none
_SIZEOF = on_first_use(
    r"sizeof\s*\(\s*((?:[A-Za-z_]\w*\s*::\s*)*)([A-Za-z_]\w*(?:\s+[A-Za-z_]\w*)*)\s*\)")
# a name, not the letters of a literal (``16u``, ``0x1fUL``, ``1e5``)
_NAME = on_first_use(r"(?<![\w.])[A-Za-z_]\w*")
_BOOL = on_first_use(r"(?<![\w.])(?:true|false)(?!\w)")


class Definitions(Protocol):
    """What a function's flow knows of its names (``FunctionFlow``)."""

    @property
    def parameters(self) -> tuple[str, ...]: ...
    def values_of(self, name: str) -> list[tree_sitter.Node | None] | None:
        """The value nodes ``name`` receives (None for a write whose value is unknown), or
        None where it receives none."""

    def text(self, node: tree_sitter.Node) -> str: ...


def constant_of(flow: Definitions, expression: str, depth: int = 0) -> int | None:
    """The value of ``expression`` in ``flow``'s function, or None where any part of it is
    not known (a parameter, a name written more than once or with an unknown value, a type
    whose size is not built in, anything past ``MAX_CHAIN`` locals)."""
    if depth > MAX_CHAIN:
        return None

    def sizeof(match: re.Match[str]) -> str:
        scope = "::".join(part.strip() for part in match.group(1).split("::")[:-1])
        size = certain_size(" ".join(match.group(2).split())) if scope in STD_SCOPES else None
        return str(size) if size is not None else "@"  # "@": no C expression reads it

    text = _SIZEOF().sub(sizeof, expression.strip())
    if "true" in text or "false" in text:  # C++'s bool literals, 1 and 0 in arithmetic
        text = _BOOL().sub(lambda m: "1" if m.group() == "true" else "0", text)
    for name in set(_NAME().findall(text)):
        values = flow.values_of(name)
        if name in flow.parameters or values is None or len(values) != 1 or values[0] is None:
            return None
        inner = constant_of(flow, flow.text(values[0]), depth + 1)
        if inner is None:
            return None
        # parenthesised: a negative value after a minus must not read as a decrement
        text = re.sub(rf"\b{re.escape(name)}\b", f"({inner})", text)
    return integer_value(text)
