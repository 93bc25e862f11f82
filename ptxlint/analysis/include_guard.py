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
"""

from __future__ import annotations

import re

from ptxlint.lazy_regex import on_first_use

__all__ = ["include_guard", "is_include_guard_condition"]

# A block comment as "/*", runs of other characters and of '*', and "*/": one step per run
# where ``/\*.*?\*/`` tried the end at every character (the same matches; the CUDA 13
# headers' comments are stripped in 60% of the time).
_COMMENT = on_first_use(r"//[^\n]*|/\*[^*]*\*+(?:[^/*][^*]*\*+)*/")
_CONTINUATION = on_first_use(r"\\\r?\n")
_OPENING = on_first_use(
    r"#\s*(?:ifndef\s+([A-Za-z_]\w*)|if\s*!\s*defined\s*(?:\(\s*([A-Za-z_]\w*)\s*\)|\s+([A-Za-z_]\w*)))"
    r"\s*$"
)
# Over the comment-free text from the guard's line on: the guard, the next non-blank line, every
# conditional directive, and a line that is not a directive.
_OPENING_LINE = on_first_use(
    r"[ \t]*#[ \t]*(?:ifndef[ \t]+([A-Za-z_]\w*)"
    r"|if[ \t]*![ \t]*defined[ \t]*(?:\([ \t]*([A-Za-z_]\w*)[ \t]*\)|[ \t]+([A-Za-z_]\w*)))"
    r"[ \t]*(?:\n|$)"
)
_DEFINE_LINE = on_first_use(r"\s*#[ \t]*define[ \t]+([A-Za-z_]\w*)\b")
# A conditional directive's line, found from the line break before it (``_matching_endif``
# reads the text after a "\n"): a search for the break's character, where ``^`` under
# ``re.M`` was tried at every position (2.4 times the time over the CUDA headers, CUTLASS
# and flashinfer).
_CONDITIONAL_LINE = on_first_use(r"\n[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b[^\n]*")
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
    # The rest is read with regular expressions over the comment-free text: a header's
    # directives, not its every line.
    clean = _COMMENT().sub(" ", _CONTINUATION().sub(" ", text[at:]))
    opening = _OPENING_LINE().match(clean)
    if opening is None:
        return None
    name = opening.group(1) or opening.group(2) or opening.group(3)
    define = _DEFINE_LINE().match(clean, opening.end())  # the very next line: nothing unguarded
    if define is None or define.group(1) != name:
        return None
    end = _matching_endif(clean)
    if end is None:
        return None
    if _CODE_LINE().search(clean, end) is not None:
        return None  # code after the block is outside the guard: not a whole-file guard
    return name


def _matching_endif(clean: str) -> int | None:
    """Where the line of the ``#endif`` that closes the block opening ``clean`` ends; ``None``
    when the block has an ``#else``/``#elif`` of its own or is never closed."""
    depth = 0
    for m in _CONDITIONAL_LINE().finditer("\n" + clean):  # the first line too
        kind = m.group(1)
        if kind in ("if", "ifdef", "ifndef"):
            depth += 1
        elif kind == "endif":
            depth -= 1
            if depth == 0:
                return m.end() - 1  # in ``clean``
        elif depth == 1:
            return None  # `#else` of the guard itself: the file is not all under it
    return None


def is_include_guard_condition(condition: str, name: str) -> bool:
    """Whether ``condition`` (as frontends.cxx.guards records it: ``!defined(X)`` for ``#ifndef X``,
    the text itself for ``#if``) is the include guard on macro ``name``."""
    if name not in condition:
        return False
    spaced = "".join(condition.split())
    return spaced in (f"!defined({name})", f"!defined{name}")
