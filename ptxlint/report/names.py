"""File names as the line-oriented reports print them.

A file name may hold any byte but ``/`` and NUL: a newline in it would split a report line in two
(and forge a second finding for whoever parses ``path:line:col:``), an ESC would drive the
reader's terminal, a bidirectional override would show the name in another order. Such a name
is printed as git prints it (``core.quotePath``): in double quotes, with C escapes (``\\n``,
``\\t``, ``\\"``, ``\\\\``, ``\\xNN``, ``\\uNNNN``). Any other name, spaces included, is printed
as it is. Bytes that are not UTF-8 are left to the encoder (``report/emit.py``: ``\\xff``).
Machine formats (JSON, SARIF, the GitHub and Azure workflow commands) escape names their own way.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ptxlint.lazy_regex import on_first_use

if TYPE_CHECKING:
    from ptxlint.model import Finding, Fix

# C0, DEL and C1 controls, the Unicode line and paragraph separators, and the bidirectional
# embeddings, overrides and isolates.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_ESCAPES = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f",
            "\r": "\\r", '"': '\\"', "\\": "\\\\"}
_QUOTED = on_first_use(r'["\\]|' + _UNSAFE.pattern)


def _escape(match: re.Match[str]) -> str:
    char = match[0]
    if char in _ESCAPES:
        return _ESCAPES[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable_name(path: str) -> str:
    """``path`` for a line of a report: as is, or C-quoted when it holds a character that would
    break the line, the terminal or the reading order."""
    if not _UNSAFE.search(path):
        return path
    return '"' + _QUOTED().sub(_escape, path) + '"'


def branch_words(finding: Finding) -> str:
    """The note for a finding of one branch of its statement: an ``#if`` branch in C++, the
    branch of an ``if`` that binds the template in Python (the Python front end reads such a
    call once per branch)."""
    where = " && ".join(finding.branch)
    if finding.path.endswith((".py", ".jl")):
        return f"in the reading where the code takes `{where}`"
    return f"in the #if branch where {where}"


def fix_kind(fix: Fix) -> str:
    """What the text formats write after "fix": its safety, and why --fix refused it."""
    kind = "" if fix.safe else " (unsafe)"
    if fix.refused is not None:
        kind += f" (not applied: {fix.refused})"
    return kind


def fix_note(fix: Fix) -> str:
    """The same for the one-line formats: ``(fix, unsafe: ...)``."""
    note = "" if fix.safe else ", unsafe"
    if fix.refused is not None:
        note += f", not applied: {fix.refused}"
    return note
