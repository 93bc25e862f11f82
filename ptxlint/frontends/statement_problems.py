"""What a front end could not read in an asm statement (``AsmStatement.problems``), worded in
one place: later stages test for some of them (``--fix`` leaves an unterminated statement
alone, extraction splits a statement with a directive inside by its branches, the language
server re-reads the whole file where a message spells offsets an edit moves), and a test of a
message's words must read the words the reader wrote."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "DIRECTIVE_INSIDE", "UNTERMINATED", "directive_inside", "missing_comma", "spells_offsets",
    "unread_operand", "unterminated",
]

UNTERMINATED = "unterminated asm statement: no closing parenthesis"
DIRECTIVE_INSIDE = "preprocessor directive inside the statement"
_AT_OFFSET = " at offset "


def unread_operand(role: str, start: int) -> str:
    return f"could not read {role} operand{_AT_OFFSET}{start}"


def missing_comma(at: int) -> str:
    return f"missing ',' between operands{_AT_OFFSET}{at}"


def unterminated(problems: Iterable[str]) -> bool:
    return UNTERMINATED in problems


def directive_inside(problems: Iterable[str]) -> bool:
    return DIRECTIVE_INSIDE in problems


def spells_offsets(problems: Iterable[str]) -> bool:
    """Whether a message names a source offset: an edit before it makes the message wrong."""
    return any(_AT_OFFSET in p for p in problems)
