"""The asm statements a ``#define`` body begins with a keyword macro: ``#define ASM asm
__volatile__`` and then ``#define __addcy(c) ASM("addc.s32 %0, 0, 0;" : "=r"(c))``.

A body's statements are read where the ``asm`` keyword is written in it (``extract``'s walk of
the keywords). Where the body spells a macro that stands for the keyword and its qualifiers,
no keyword is written there, and the statement was never read: gmp-ecm's carry-chain macros
(its ``cudakernel.cu``), whose uses lie in another file, were unread as a whole. Here each use
of such a macro inside another ``#define``'s body is read as the keyword and qualifiers it
stands for, written where its name is (as ``extract`` reads such a macro's uses in code).

Only the file's own object-like macros whose whole body is an asm keyword and qualifiers count,
and only where ``extract`` saw the asm keyword in an object-like ``#define`` body: other files
pay nothing. :func:`keyword_macro` answers the same question of a macro used in code.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

import tree_sitter

from ptxlint.frontends.cxx import macro_uses
from ptxlint.frontends.cxx.lexer import Token, tokens
from ptxlint.frontends.cxx.macros import MacroTable
from ptxlint.frontends.cxx.statement_tokens import KEYWORDS, QUALIFIERS, end_of_directive
from ptxlint.frontends.syntax_tree import ParsedSource

__all__ = ["BodyUse", "keyword_macro", "keyword_macros", "uses_in_bodies"]

_BODY_OWNERS = frozenset({"preproc_def", "preproc_function_def"})


class BodyUse(NamedTuple):
    """A keyword macro's use in a ``#define`` body: where its name is, the tokens from it to
    the end of the statement it begins (its name first, then the words it stands for, each
    spanning the name), the body's ``#define`` node and the words."""

    start: int
    stream: list[Token]
    owner: tree_sitter.Node
    spelled: tuple[str, ...]


def keyword_macros(table: MacroTable) -> dict[str, tuple[str, ...]]:
    """The file's own object-like macros that stand for an asm keyword and its qualifiers,
    each with those words (a name's first definition counts)."""
    found: dict[str, tuple[str, ...]] = {}
    for name, defs in table.own.defines.items():
        if defs and defs[0].params is None and name not in KEYWORDS:
            words = tuple(defs[0].spelling.split())
            if _stands_for_keyword(words):
                found[name] = words
    return found


def _stands_for_keyword(words: tuple[str, ...]) -> bool:
    """``words`` are an asm keyword and qualifiers (``asm __volatile__``)."""
    return bool(words) and words[0] in KEYWORDS and all(w in QUALIFIERS for w in words[1:])


def uses_in_bodies(parsed: ParsedSource, macros: dict[str, tuple[str, ...]],
                   bodies: dict[int, list[Token]]) -> Iterator[BodyUse]:
    """Each use of one of ``macros`` that begins a statement in another ``#define``'s body,
    in text order. ``bodies``: the bodies' tokens by where each starts, as ``extract``'s walk
    read them (kept: a body is lexed once for all the statements in it)."""
    text = parsed.text
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, macros)) + r")\b")
    root = parsed.tree.root_node
    for match in pattern.finditer(text):
        start = match.start()
        byte = parsed.to_byte(start)
        node = root.descendant_for_byte_range(byte, byte + len(match[0]))
        if node is None or node.type != "preproc_arg":
            continue
        owner = node.parent
        if owner is None or owner.type not in _BODY_OWNERS:
            continue
        body_start = parsed.to_char(node.start_byte)
        body = bodies.get(body_start)
        if body is None:
            end = max(parsed.to_char(node.end_byte), end_of_directive(text, body_start))
            body = bodies[body_start] = list(tokens(text, body_start, end))
        at = next((k for k, t in enumerate(body) if t.start == start and t.kind == "ident"),
                  None)
        if at is None:
            continue  # inside a comment or a string of the body
        # up to the next statement the body begins: an asm keyword or another such use
        stop = next((k for k in range(at + 1, len(body)) if body[k].kind == "ident"
                     and (body[k].text in KEYWORDS or body[k].text in macros)), len(body))
        name = body[at]
        spelled = macros[match[0]]
        stand_ins = [Token("ident", word, name.start, name.end) for word in spelled[1:]]
        yield BodyUse(start, [name, *stand_ins, *body[at + 1:stop]], owner, spelled)


def keyword_macro(
    table: MacroTable, text: str, use: macro_uses.Use, line: int
) -> tuple[str, ...] | None:
    """The words an object-like macro stands for when it is only an asm keyword and its
    qualifiers (``#define ASM asm volatile``), else None. Such a macro's uses begin asm
    statements whose template, operands and clobbers are written in the file itself."""
    if use.name in KEYWORDS:
        return None  # `#define asm __asm__`: its uses are keywords the main walk reads
    done = macro_uses.expand_use(table, text, use, line)
    if done is None:
        return None
    words = tuple(tok.text for tok in tokens(done.virtual.text))
    return words if _stands_for_keyword(words) else None
