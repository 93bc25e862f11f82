"""An operand that invokes a function-like macro has the type of what the macro expands to.

The preprocessor replaces ``__HALF_TO_US(x)`` by ``*(reinterpret_cast<unsigned short *>(&(x)))``
before C++ reads it, so the operand is that expression, its names bound where the invocation
is written. The typer reads the invocation's expansion (``macros.Expander``, with the file's
macro table: its own ``#define``\\ s and its headers') as an expression parsed on its own, and
types it in the invocation's scope.

A header that is the second half of another (``cuda_fp16.hpp`` of ``cuda_fp16.h``, which
defines ``__HALF_TO_US`` and then includes it: ``companion``) reads the macros its companion
defines where it includes the half, for a name the half neither defines nor ``#undef``\\ s
before the use.

Only where one definition is in force at the invocation (``MacroTable.lookup``: none under
``#if`` arms that differ), the expansion is one expression, and the file is ASCII (the
table's offsets are characters, the typer's bytes). Anything else is unknown, as a name the
typer cannot see is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ptxlint.frontends.cxx.c_types import Node, _text
from ptxlint.frontends.cxx.companion import companion_table, looked_up_in
from ptxlint.frontends.cxx.defines import MacroDef
from ptxlint.frontends.cxx.lexer import tokens
from ptxlint.frontends.cxx.macros import (
    Expander,
    ExpansionError,
    MacroTable,
    from_source,
    lay_out,
)

if TYPE_CHECKING:
    from ptxlint.frontends.cxx.scope_lookup import ScopeLookup

# The file's macro table, made when first asked (``MacroPieces.table_now``)
TableSource = Callable[[], MacroTable]


def expansion(resolver: ScopeLookup, call: Node, name: str, b: int) -> Node | None:
    """The expression that the call ``call`` of ``name`` at byte ``b`` expands to, parsed on
    its own; None where ``name`` is no function-like macro there or the expansion is no one
    expression. Narrows the range of offsets the answer being worked out holds for to the
    file's directives around ``b`` (a ``#define`` or ``#undef`` of the file may change it)."""
    source = resolver.macro_source
    if source is None or not resolver._ascii:
        return None
    table = source()
    lo, hi = table.epoch_bounds(b)
    if lo > resolver._lo:
        resolver._lo = lo
    if hi < resolver._hi:
        resolver._hi = hi
    found = _in_force(table, name, b)
    if found is None:
        return None
    expander, definition = found
    if definition.params is None:
        return None
    text = _text(call)
    try:
        out = expander.expand(from_source(text, list(tokens(text))))
    except ExpansionError:
        return None
    if not out:
        return None
    return resolver._parse_alone(lay_out(out).text)


def _in_force(table: MacroTable, name: str, at: int) -> tuple[Expander, MacroDef] | None:
    r"""The definition of ``name`` in force at offset ``at`` of the file, and the expander
    that expands it there: the file's own or its headers' (``MacroTable.lookup``), else, for
    a name the file neither defines nor ``#undef``\ s before ``at``, its companion's where it
    includes the file (``companion``)."""
    definition = table.lookup(name, at)
    if definition is not None:
        return Expander(table, at), definition
    context = looked_up_in(table, name, at)
    if context is None or context[0] is table:
        return None
    other, place = context
    definition = other.lookup(name, place)
    return (Expander(other, place), definition) if definition is not None else None


def is_macro(resolver: ScopeLookup, name: str) -> bool:
    """Whether ``name`` is a macro anywhere in the file, its headers or its companion's: a
    call of it may read its arguments (``TypeResolver._call_key`` shares no answer across
    them)."""
    if resolver.macro(name):
        return True
    source = resolver.macro_source
    if source is None:
        return False
    table = source()
    if table.definitions(name):
        return True
    context = companion_table(table.path)
    return context is not None and bool(context[0].definitions(name))

