"""The uses of specifier macros that precede a declaration, and what to leave out of the parse
so that tree-sitter reads the declaration.

A macro that expands to declaration specifiers only (``#define CUTLASS_DEVICE __forceinline__
__device__``; ``__CUDA_HOSTDEVICE__``, empty outside CUDA) is, to tree-sitter, an identifier:
it reads ``CUTLASS_DEVICE Pipeline(Params p) : params_(p) {}`` as a declaration of type
``CUTLASS_DEVICE``, and ``__CUDA_HOSTDEVICE__ __CUDA_FP16_INLINE__ __half::operator signed
char() const`` as two type names, then recovers with an ERROR node that may hold the rest of a
class or of the file (CUTLASS's sm90_pipeline.hpp, 1,388 of its lines; cuda_fp16.hpp, 3,483).
A statement macro that expands to a pragma (``CUTLASS_PRAGMA_UNROLL for (...)``) is the same
to it. Leaving such a use out of the parse gives the declaration tree-sitter's own keywords
or none, as the preprocessor gives it the specifiers, which the grammar never needs to tell a
declaration from another.

Which names are such macros is the caller's to judge (``cxx.specifier_macros``, from the
file's macros and its headers'); here, where a use of one stands where a declaration's
specifiers or a statement's start may: after the end of a declaration or statement (``;``,
a brace, ``:`` of an access specifier or label, ``>`` of a template head, ``)`` of an
attribute or a condition, ``]]``) or another word, and before a word, ``::``, ``~`` or
``[[`` (what a declaration's specifiers, declarator or a statement begin with). A use in a
directive, a comment or a literal is none. Offsets are the text's characters.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["specifier_uses"]

# Block and line comments, string and character literals and a directive's logical line
# (continuations included), whose words are no uses, and the macro-looking words: ALL_CAPS,
# leading underscores allowed (``__CUDA_HOSTDEVICE__``, ``_CCCL_NODISCARD``); the keywords the
# grammar reads (``__device__``, ``_Pragma``) are none. Only these pass through Python: a
# tokenizer of the whole file cost four times the parse it saves (CUDA 13 headers).
_CANDIDATES = re.compile(
    r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"
    r"|^[ \t]*#(?:\\\r?\n|[^\n])*|(?P<word>\b_*[A-Z][A-Z0-9_]*\b)",
    re.M | re.S,
)
# What a declaration's specifiers, its declarator or a statement may begin with.
_NEXT = re.compile(r"\s*(?:[A-Za-z_]|::|~|\[\[)")
# The characters a declaration's specifiers or a statement may follow, besides a word's (the
# end of a declaration or statement, a brace, ``:`` of an access specifier or label, ``>`` of a
# template head, ``)`` of an attribute or a condition, ``]]``).
_BEFORE = frozenset(";{}:>)]")
_WORD_BEFORE = re.compile(r"\w+$")
# Words after which a word is an operand, not a declaration's start.
_EXPRESSION_WORDS = frozenset(("return", "case", "goto", "sizeof", "co_return", "co_yield",
                               "throw", "new", "delete", "typeid", "alignof", "decltype"))


def specifier_uses(text: str, is_specifier: Callable[[str, int], bool]) -> list[tuple[int, int]]:
    """The character ranges, in order, of the uses of macros in ``text`` that
    ``is_specifier(name, offset)`` says expand to declaration specifiers (or a pragma, or
    nothing) only and that stand where a declaration's specifiers may."""
    found: list[tuple[int, int]] = []
    follows = _NEXT.match
    for m in _CANDIDATES.finditer(text):
        if m.lastgroup != "word":
            continue  # a comment, a literal or a directive
        start, end = m.span()
        if follows(text, end) is not None and _may_precede(text, start) and is_specifier(
                m.group(), start):
            found.append((start, end))
    return found


def _may_precede(text: str, start: int) -> bool:
    """Whether what comes before ``start`` (blanks aside) may end what a declaration's
    specifiers follow: nothing, a word that makes no operand of what follows, or one of
    ``_BEFORE`` that is not part of ``::``, ``->`` or a single ``]``."""
    k = start - 1
    while k >= 0 and text[k] in " \t\r\n":
        k -= 1
    if k < 0:
        return True
    last = text[k]
    if last == "_" or last.isalnum():
        word = _WORD_BEFORE.search(text, max(0, k - 31), k + 1)
        return word is None or word.group() not in _EXPRESSION_WORDS
    if last not in _BEFORE:
        return False
    before = text[k - 1] if k else ""
    if last == ":":
        return before != ":"
    if last == ">":
        return before != "-"
    if last == "]":
        return before == "]"
    return True
