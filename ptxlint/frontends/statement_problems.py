"""What a front end could not read in an asm statement (``AsmStatement.problems``), worded in
one place: later stages test for some of them (``--fix`` leaves an unterminated statement
alone, extraction splits a statement with a directive inside by its branches, the language
server re-reads the whole file where a message spells offsets an edit moves), and a test of a
message's words must read the words the reader wrote."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "BROKEN_LITERAL", "DIRECTIVE_INSIDE", "UNTERMINATED", "broken_literal", "broken_literals",
    "directive_inside", "left_out", "missing_comma", "spells_offsets", "unread_operand",
    "unterminated",
]

UNTERMINATED = "unterminated asm statement: no closing parenthesis"
DIRECTIVE_INSIDE = "preprocessor directive inside the statement"
BROKEN_LITERAL = "unterminated string literal in the template"
# A string literal ends at its line's end only where its closing quote is missing: nvcc rejects
# the file, and what the template would spell is no one's reading (the lexer's guess).
_BROKEN_LITERAL_SKIP = (
    "a string literal of the template runs to the end of its line (nvcc: missing closing "
    "quote), so the file does not compile; in CUDA C++ held in a Python string that is not raw, "
    "each '\\n' becomes a line break"
)
_AT_OFFSET = " at offset "
_PIECE = " (template piece "
_ESCAPE = "; its line break is the Python escape "
_OPENING = " of the Python string opened by "


def broken_literal(piece: int, escape: str = "", opening: str = "") -> str:
    """The problem of a template whose ``piece``-th piece (``Template.pieces``) is a string
    literal that runs to the end of its line; ``escape``: how the Python string that holds the
    C++ spells that line break, where an escape (``\\n``) of a string that is not raw made it
    (the Python front end knows, ``embedded_cxx``), and ``opening``: that string's prefix and
    opening quotes (``f\"\"\"``). An index, not an offset: it holds where the statement's
    pieces are moved (an embedded statement's, an edit's)."""
    return f"{BROKEN_LITERAL}{_PIECE}{piece})" + (f"{_ESCAPE}{escape}" if escape else "") + (
        f"{_OPENING}{opening}" if escape and opening else "")


def broken_literals(problems: Iterable[str]) -> list[tuple[int, str, str]]:
    """Each literal ``broken_literal`` recorded: (its piece's index, the Python escape or "",
    the opening of the Python string that spells it or "")."""
    found = []
    for problem in problems:
        if problem.startswith(BROKEN_LITERAL + _PIECE):
            piece, _, escape = problem[len(BROKEN_LITERAL + _PIECE):].partition(")")
            escape, _, opening = escape.removeprefix(_ESCAPE).partition(_OPENING)
            found.append((int(piece), escape, opening))
    return found


def unread_operand(role: str, start: int) -> str:
    return f"could not read {role} operand{_AT_OFFSET}{start}"


def missing_comma(at: int) -> str:
    return f"missing ',' between operands{_AT_OFFSET}{at}"


def unterminated(problems: Iterable[str]) -> bool:
    return UNTERMINATED in problems


def left_out(problems: Iterable[str]) -> str | None:
    """Why a statement with these problems is left out rather than linted, or None."""
    broken = any(p.startswith(BROKEN_LITERAL) for p in problems)
    return _BROKEN_LITERAL_SKIP if broken else None


def directive_inside(problems: Iterable[str]) -> bool:
    return DIRECTIVE_INSIDE in problems


def spells_offsets(problems: Iterable[str]) -> bool:
    """Whether a message names a source offset: an edit before it makes the message wrong."""
    return any(_AT_OFFSET in p for p in problems)
