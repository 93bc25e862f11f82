"""Where a ';' is missing between two statements of a PTX template.

PTX ends every statement with ';'; a newline ends nothing. A line that ends an instruction's
operands and a next line that starts another instruction (or a declaration, or a guarded
branch) are two statements missing their ';', and so are an opcode glued to the last operand
by adjacent string pieces (``"... p1, %1" "cvt.u32.u64 ..."``) and one a blank away from it on
the same line (``membar.sys st.volatile...``), and a line that ends an instruction's operands
before a label's line (``ld.f32 x, [%1]`` then ``retry:``). The parser reads them as two
(``PtxProblem`` "separator"), so that the second's operands stay its own and PTX205 reports
the one defect; ptxas rejects the text either way. A function of the text alone.
"""

from __future__ import annotations

import re

from ptxlint.lazy_regex import on_first_use
from ptxlint.ptx.opcodes import PTX_OPCODES

__all__ = ["first_missing", "last_split", "splits"]

# A line that ends with an operand (a word, `]`, `)`, a vector's `}`: a scope's `}` ends the
# statement before) and a next line that starts with an opcode and its modifiers, optionally
# guarded, or with a declaration (`.reg`: TransformerEngine declares between instructions);
# or an opcode glued to a number, `]` or `)` by adjacent string pieces. Group `prev`: the
# line's last character; `guard`: the guard; `op`: the opcode word; `directive`: the
# declaration's name.
MISSING_SEMICOLON = on_first_use(
    r"(?:(?P<prev>[\w\])}])[ \t\r\f\v]*\n\s*|(?<=[0-9\])]))"
    # (a line's opcode may be spaced from its modifiers, `xor .b32`, as ptxas reads them)
    r"(?:(?P<guard>@!?%{0,2}\w+\s+)?(?P<op>[a-z][a-z0-9_]*)(?(prev)(?=[ \t]*\.[a-z])|(?=\.[a-z]))"
    r"|(?<=\s)(?P<directive>\.(?:reg|local|shared|param|const)(?=[\s.])))",
    re.ASCII,
)
# Its second reading alone, where no line break can make the first.
_GLUED = re.compile(
    r"(?<=[0-9\])])(?P<guard>@!?%{0,2}\w+\s+)?(?P<op>[a-z][a-z0-9_]*)(?=\.[a-z])", re.ASCII)
# An opcode and its modifiers after an operand and blanks on the same line (`membar.sys
# st.volatile.global.u64 ...`, `cvta.to.shared.u64 p, %1 cvt.u32.u64 ...`): no operand is
# two words, and a PTX name has no '.', so the word starts an instruction. Read only past the
# statement's own mnemonic (``_HEAD``: its guard, `@p bra.uni`, is no such operand). Groups as
# ``MISSING_SEMICOLON``'s (`prev` and `directive` never take part).
_SAME_LINE = re.compile(
    r"(?<=[\w\])}])[ \t]+(?P<prev>(?!))?(?P<guard>@!?%{0,2}\w+[ \t]+)?"
    r"(?P<op>[a-z][a-z0-9_]*)(?=\.[a-z])(?P<directive>(?!))?", re.ASCII)
_HEAD = re.compile(r"\s*(?:@!?%{0,2}\w+\s+)?[A-Za-z_$%][\w.:$%]*", re.ASCII)
# A branch, return or trap without modifiers at the start of the next line (`try_wait ... P,
# [%0], %1` then `@!P bra L;`, a spin-wait's loop; `bra DONE;`), guarded or not (a guarded
# `call` too): no operand list goes on with such a word, and a label is followed by ':'. Its
# word has no '.' after it, so ``first_missing``'s search, which stops at the last '.', does
# not reach it; it is looked for apart, in a statement with a line break and one of the words.
_BARE = on_first_use(
    r"(?P<prev>[\w\])}])[ \t\r\f\v]*\n\s*(?P<guard>@!?%{0,2}\w+\s+)?"
    r"(?P<op>bra|ret|exit|trap|brkpt|call)(?=[\s;]|\Z)(?P<directive>(?!))?", re.ASCII)
_BARE_WORDS = ("bra", "ret", "exit", "trap", "brkpt", "call")


def _guarded_bare(text: str, pos: int, end: int) -> re.Match[str] | None:
    if text.find("\n", pos, end) < 0 or not any(text.find(w, pos, end) >= 0 for w in _BARE_WORDS):
        return None
    m = _BARE().search(text, pos + 1, end)
    while m is not None and m.group("op") == "call" and m.group("guard") is None:
        m = _BARE().search(text, m.end(), end)  # (an unguarded `call` may go on a list's line)
    return m


# A label at the start of the next line (`ld.f32 x, [%1]` then `retry:`): a statement starts
# with it, and no operand list goes on with a word and ':' (`::` is a state space's), so the
# line before lacks its ';'. Groups as ``MISSING_SEMICOLON``'s (`op`: the label's name).
_LABEL_LINE = on_first_use(
    r"(?P<prev>[\w\])}])[ \t\r\f\v]*\n\s*(?P<guard>(?!))?(?P<op>[A-Za-z_$%][\w$]*)"
    r"(?=[ \t]*:(?!:))(?P<directive>(?!))?", re.ASCII)


def _label_line(text: str, pos: int, end: int) -> re.Match[str] | None:
    if text.find("\n", pos, end) < 0 or text.find(":", pos, end) < 0:
        return None
    return _LABEL_LINE().search(text, pos + 1, end)


def _first(*found: re.Match[str] | None) -> re.Match[str] | None:
    present = [m for m in found if m is not None]
    return min(present, key=lambda m: m.start()) if present else None


def _same_line(text: str, pos: int, limit: int) -> re.Match[str] | None:
    """The first place past the mnemonic of the statement at ``pos`` where an instruction
    starts after an operand and blanks (``_SAME_LINE``), or None."""
    head = _HEAD.match(text, pos, limit)
    if head is None:
        return None
    m = _SAME_LINE.search(text, head.end(), limit)
    while m is not None and m.group("op") not in PTX_OPCODES:
        m = _SAME_LINE.search(text, m.end(), limit)
    return m


def _starts_another(m: re.Match[str]) -> bool:
    """Whether a match starts another statement: a declaration, or a PTX opcode."""
    return m.group("op") in PTX_OPCODES or bool(m.groupdict().get("directive"))


def first_missing(masked: str, pos: int, end: int) -> re.Match[str] | None:
    """The first place in the statement ``masked[pos:end]`` where another one starts without a
    ';' before it (``MISSING_SEMICOLON``'s match), or None. A match ends at an opcode followed
    by '.' and a letter: the search stops at the last '.', mostly the mnemonic's end
    (CUTLASS's templates 239-243 -> 207-216 ms of CPU)."""
    bare = _first(_guarded_bare(masked, pos, end), _label_line(masked, pos, end))
    last_dot = masked.rfind(".", pos + 1, end - 1)
    if last_dot == -1:
        return bare
    limit = last_dot + 2
    m = MISSING_SEMICOLON().search(masked, pos + 1, limit)
    while m is not None and not _starts_another(m):
        m = MISSING_SEMICOLON().search(masked, m.end(), limit)
    return _first(m, _same_line(masked, pos, limit), bare)


def splits(text: str, pos: int, semi: int) -> bool:
    """Whether the one-instruction template ``text[pos:semi]`` holds another statement's start:
    ``first_missing``'s question, where a text without a line break can only hold the glued
    and the same-line kinds."""
    if _guarded_bare(text, pos, semi) is not None or _label_line(text, pos, semi) is not None:
        return True
    last_dot = text.rfind(".", pos + 1, semi - 1)
    if last_dot == -1:
        return False
    search = (MISSING_SEMICOLON() if "\n" in text else _GLUED).search
    found = search(text, pos + 1, last_dot + 2)
    while found is not None:
        if _starts_another(found):
            return True
        found = search(text, found.end(), last_dot + 2)
    return _same_line(text, pos, last_dot + 2) is not None


def last_split(masked: str, pos: int, end: int) -> re.Match[str] | None:
    """The last place in ``masked[pos:end]`` where an instruction starts without a ';' before
    it (a declaration is no instruction), or None: what a ``{`` at ``end`` follows."""
    found = None
    m = first_missing(masked, pos, end)
    while m is not None:
        if m.group("op") is not None:
            found = m
        m = first_missing(masked, m.end() - 1, end)
    return found
