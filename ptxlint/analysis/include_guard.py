"""A header's classic include guard: ``#ifndef X_H`` / ``#define X_H`` ... ``#endif`` around all
of its code.

The condition ``!defined(X_H)`` holds whenever the compiler reads the header's contents at all
(the first inclusion; later ones skip the whole file), so for the code inside it says nothing
about the target. Left unrecognised it is an unknown macro, and a rule that needs every guard
decided for ``--arch`` (PTX401, PTX402) fell silent on every header.

Recognised (the shape GCC and clang call a file's "controlling macro"): apart from comments,
``#pragma`` lines and blank lines, the file opens with ``#ifndef X`` or ``#if !defined(X)``, the
next line is ``#define X``, the block has no ``#else``/``#elif`` of its own, and after its
``#endif`` come only preprocessor lines (cuda_runtime.h's ``#undef`` of its helper macros). A
``#ifndef X / #define X 4`` default-value block in the middle of a file is not one: code outside
it is not inside the guard.

The block is the one the front end's walk of the file's conditional directives
(``frontends.cxx.guards.guards_of``) opened there, the walk the statements' guards are read
from: its first branch and the directive that ends it. Only the guard's own lines and what
follows its ``#endif`` are read here, where a scan of its own stripped every comment of the
file and found its directives again (the decisions took 14-15.5 ms of the CUDA 13 headers'
run, 4.7-5 ms so, three runs each; the decision is the same on the 15,721 C/C++ files of the
CUDA headers, CUTLASS, flashinfer and 12 more repositories).
"""

from __future__ import annotations

import re

from ptxlint.frontends.cxx.guards import guards_of
from ptxlint.lazy_regex import on_first_use

__all__ = ["include_guard", "is_include_guard_condition"]

# A block comment as "/*", runs of other characters and of '*', and "*/": one step per run
# where ``/\*.*?\*/`` tried the end at every character.
_BLOCK = r"/\*[^*]*\*+(?:[^/*][^*]*\*+)*/"
_COMMENT = on_first_use(r"//[^\n]*|" + _BLOCK)
_CONTINUATION = on_first_use(r"\\\r?\n")
_OPENING = on_first_use(
    r"#\s*(?:ifndef\s+([A-Za-z_]\w*)|if\s*!\s*defined\s*(?:\(\s*([A-Za-z_]\w*)\s*\)|\s+([A-Za-z_]\w*)))"
    r"\s*$"
)
# The guard's lines as read with comments and line continuations taken for blanks (the
# compiler's reading): a blank within a line, and any run of blanks.
_IN_LINE = rf"(?:[ \t]|{_BLOCK}|//(?:\\\r?\n|[^\n])*|\\\r?\n)"
_ANY = rf"(?:\s|{_BLOCK}|//(?:\\\r?\n|[^\n])*|\\\r?\n)"
_OPENING_LINE = on_first_use(
    rf"{_IN_LINE}*#{_IN_LINE}*(?:ifndef{_IN_LINE}+([A-Za-z_]\w*)"
    rf"|if{_IN_LINE}*!{_IN_LINE}*defined{_IN_LINE}*"
    rf"(?:\({_IN_LINE}*([A-Za-z_]\w*){_IN_LINE}*\)|{_IN_LINE}+([A-Za-z_]\w*)))"
    rf"{_IN_LINE}*(?:\n|$)"
)
_DEFINE_LINE = on_first_use(rf"{_ANY}*#{_IN_LINE}*define{_IN_LINE}+([A-Za-z_]\w*)\b")
_CLOSING = on_first_use(r"[ \t]*#[ \t]*(endif|else|elif)\b")
_CODE_LINE = on_first_use(r"^[ \t]*[^\s#]", re.M)


# The last few texts asked about, by identity: the memo key of the pure rules and each guarded
# statement's analysis ask of the same file in turn.
_RECENT: list[tuple[str, str | None]] = []
_RECENT_KEPT = 8


def include_guard(text: str) -> str | None:
    """The macro of ``text``'s classic include guard, or ``None`` where it has none."""
    if "#" not in text:
        return None
    for known, name in _RECENT:
        if known is text:
            return name
    found = _scan(text)
    _RECENT.insert(0, (text, found))
    del _RECENT[_RECENT_KEPT:]
    return found


# What may stand before the guard's #ifndef: blanks, comments and #pragma lines.
_PREAMBLE = on_first_use(r"(?:\s+|//[^\n]*|/\*.*?\*/|#[ \t]*pragma\b[^\n]*)*", re.S)


def _scan(text: str) -> str | None:
    # Most files open with something else (`#pragma once` and an #include, code): they are
    # answered from their first lines, without reading the rest.
    preamble = _PREAMBLE().match(text)
    at = preamble.end() if preamble is not None else 0
    line_end = text.find("\n", at)
    first = text[at : line_end if line_end >= 0 else len(text)]
    if _OPENING().match(_COMMENT().sub(" ", first).strip()) is None:
        return None
    opening = _OPENING_LINE().match(text, at)
    if opening is None:
        return None
    name = opening.group(1) or opening.group(2) or opening.group(3)
    define = _DEFINE_LINE().match(text, opening.end())  # the very next line: nothing unguarded
    if define is None or define.group(1) != name:
        return None
    # The block itself is the one the front end's walk of the file's conditional directives
    # (``guards_of``, which the statements' guards were read from) opened there: its first
    # branch, and the directive that ends it, which is the guard's #endif, not an #else.
    branch = guards_of(text).branch_after(at)
    if (
        branch is None
        or branch.start > opening.end()
        or len(branch.conditions) != 1
        or not is_include_guard_condition(branch.conditions[0], name)
    ):
        return None  # never closed, or read otherwise by the walk
    closing = _CLOSING().match(text, branch.end)
    if closing is None or closing.group(1) != "endif":
        return None  # `#else` of the guard itself: the file is not all under it
    # After the #endif's line, only preprocessor lines: a file with no line that starts with
    # code is answered so; the comments of one that has such lines are read first (a line of
    # a block comment is no code).
    line_end = text.find("\n", branch.end)
    if line_end < 0 or _CODE_LINE().search(text, line_end) is None:
        return name
    tail = _COMMENT().sub(" ", _CONTINUATION().sub(" ", text[branch.end :]))
    line_end = tail.find("\n")
    if line_end >= 0 and _CODE_LINE().search(tail, line_end) is not None:
        return None  # code after the block is outside the guard: not a whole-file guard
    return name


def is_include_guard_condition(condition: str, name: str) -> bool:
    """Whether ``condition`` (as frontends.cxx.guards records it: ``!defined(X)`` for ``#ifndef X``,
    the text itself for ``#if``) is the include guard on macro ``name``."""
    if name not in condition:
        return False
    spaced = "".join(condition.split())
    return spaced in (f"!defined({name})", f"!defined{name}")
