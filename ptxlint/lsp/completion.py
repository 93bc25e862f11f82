"""Completion from the instruction grammar: opcodes and modifiers inside an asm template, and a
snippet that writes the whole statement.

* Inside a string literal of an asm statement (``asm(``, ``asm volatile(``, ``__asm__``,
  ``inline_asm_elementwise(``... within the lines above), at the start of an instruction: the
  opcodes the grammar describes; after ``opcode.word.``: the modifiers that may follow the ones
  written, in the ISA's order (:mod:`ptxlint.generate.complete`); only those of forms the
  toolkit the document is linted for takes (its ``cuda-version``, or the rules' default), so
  completion never offers what PTX204 then reports as new in a later ptxas. The target
  (``arch``) does not narrow them: an opcode of another target is offered.
* Outside a string, after a whole spelling (``cp.async.ca.shared.global``): a snippet that
  replaces it with the statement ``ptxlint new`` derives, each C++ argument a tab stop (its
  ``#if`` keeps out the toolkits that lack the form, whatever ``cuda-version`` says).

Pure functions over the document's text and an offset; ``server`` turns the items into LSP
completion items. No lint is needed, so completion answers while a lint runs.
"""

from __future__ import annotations

import re

from ptxlint.value_class import value_class

__all__ = ["Item", "complete", "template_prefix"]

# An asm statement's opening within this many characters before the cursor counts.
_LOOKBACK = 2000
_ASM_CALL = re.compile(r"\b(?:asm|__asm__|__asm|inline_asm_elementwise|inline_asm)\b"
                       r"(?:\s+(?:volatile|__volatile__))?\s*\(")
_WORD = re.compile(r"[A-Za-z0-9_.:]*\Z")
# What may stand before an instruction inside a template: its start, a separator, braces, a
# label's colon, an escape for a line break or tab, or a guard predicate (@p, @!%p1).
_INSTRUCTION_START = re.compile(r'(?:["{};:]|\\[nt]|@!?%*\w+)\s*\Z')


@value_class(slots=False)
class Item:
    """One completion: what the list shows, what is inserted, and over which range of the
    text (``start``..``end``, offsets)."""

    label: str
    kind: str  # "opcode" | "modifier" | "snippet"
    insert: str
    start: int
    end: int
    detail: str = ""


def _inside_string(line: str) -> bool:
    """Whether the end of ``line`` is inside a double-quoted string (escapes honoured)."""
    inside = False
    i = 0
    while i < len(line):
        c = line[i]
        if c == "\\" and inside:
            i += 2
            continue
        if c == '"':
            inside = not inside
        elif c == "'" and not inside:  # a char literal or a Python string: skip it whole
            close = line.find("'", i + 1)
            if close < 0:
                return False
            i = close
        i += 1
    return inside


def _still_open(after: str) -> bool:
    """Whether the call whose arguments ``after`` starts never closes its parenthesis (strings
    skipped)."""
    depth = 1
    inside = False
    i = 0
    while i < len(after):
        c = after[i]
        if inside:
            if c == "\\":
                i += 1
            elif c == '"':
                inside = False
        elif c == '"':
            inside = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return False
        i += 1
    return True


def template_prefix(text: str, offset: int) -> tuple[str, int] | None:
    """The opcode being typed at ``offset`` inside an asm template, and where it starts; None
    when the cursor is not at an instruction of an asm statement's string."""
    line_start = text.rfind("\n", 0, offset) + 1
    line = text[line_start:offset]
    if not _inside_string(line):
        return None
    opening = text[max(0, offset - _LOOKBACK):offset]
    calls = list(_ASM_CALL.finditer(opening))
    if not calls or not _still_open(opening[calls[-1].end():]):
        return None  # no asm call above, or it was closed before the cursor
    word = _WORD.search(line)
    assert word is not None  # the pattern matches the empty string
    before = line[:word.start()]
    if not _INSTRUCTION_START.search(before):
        return None
    return word.group(), line_start + word.start()


def _opcode_items(prefix: str, start: int, end: int, cuda_version: object) -> list[Item]:
    from ptxlint.generate.complete import opcodes

    return [Item(op, "opcode", op, start, end, "PTX opcode") for op in opcodes(cuda_version)
            if op.startswith(prefix)]


def _modifier_items(word: str, start: int, end: int, cuda_version: object) -> list[Item]:
    from ptxlint.generate.complete import continuations
    from ptxlint.ptx import grammar

    opcode, *rest = word.split(".")
    written, partial = tuple(rest[:-1]), rest[-1]
    if not grammar.covered(opcode):
        return []
    at = end - len(partial)
    return [Item(c.word, "modifier", c.word, at, end, ".".join((opcode, *c.witness)))
            for c in continuations(opcode, written, cuda_version)
            if c.word.startswith(partial)]


def _snippet(text: str, offset: int) -> list[Item]:
    """After a whole spelling outside a string: the derived statement, as a snippet."""
    line_start = text.rfind("\n", 0, offset) + 1
    line = text[line_start:offset]
    if _inside_string(line) or "//" in line or line.lstrip().startswith("#"):
        return []
    word = _WORD.search(line)
    assert word is not None
    spelled = word.group()
    if "." not in spelled or spelled.startswith(".") or spelled.endswith("."):
        return []
    from ptxlint.generate import derive, select
    from ptxlint.generate.cxx import statement

    try:
        derived = derive(select(spelled))
    except ValueError:  # not a whole form, or no wrapper can bind it: no snippet
        return []
    start = line_start + word.start()
    return [Item(f"asm: {spelled}", "snippet", statement(derived, snippet=True), start, offset,
                 "inline PTX derived by ptxlint new")]


def complete(text: str, offset: int, cuda_version: object = None) -> list[Item]:
    """The completion items at ``offset`` of ``text``, for the toolkit ``cuda_version``
    (``(major, minor)``, the rule option; the rules' default when absent)."""
    found = template_prefix(text, offset)
    if found is None:
        return _snippet(text, offset)
    word, start = found
    if "." not in word:
        return _opcode_items(word, start, offset, cuda_version)
    return _modifier_items(word, start, offset, cuda_version)
