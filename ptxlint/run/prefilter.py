"""Which files can hold inline asm at all, decided on their bytes before decoding or parsing.

Most files of a CUDA tree hold no asm statement; such a file costs one substring search instead
of a decode and a tree-sitter parse. The test is necessary, not sufficient: a file that passes
is read properly by its front end, which decides where real statements are.

Front ends register the keyword bytes of the extensions they read (``register``): the C++ front
end's ``asm`` covers ``__asm__`` and ``__asm`` (and a quoted ``#include`` may bring an asm
macro); the Python front end's ``.py`` words are its own (``inline_asm``, ``InlineAsm``, ...).
Extensions nobody registered use the C++ keywords, because a file named on the command line is
linted as C++ whatever its extension.

A C++ file with none of them may still use an asm macro of a project header it includes, as
``#include "x.h"`` or ``#include <project/x.h>`` (DeepGEMM's ``DG_DEVICE_ASSERT``, CUTLASS's
``CUTLASS_NOT_IMPLEMENTED``). Such a file passes when one of those includes resolves inside the
tree (next to the file, the folders above it, the project's ``-I`` folders: where
``headers.find_header`` looks, so exactly the headers whose macros extraction would expand) to
a header that brings asm macros, and one of their names occurs in the file. Each header is
read and its include closure summarised once per process, so a file costs one scan for its
includes and, only where a project header brings asm macros, one for names. Letting every
file with a quoted include through instead had CUTLASS's ``include/`` parse 728 of its 742
files, 67 of which hold asm.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from ptxlint.frontends.cxx import headers
from ptxlint.frontends.cxx.lexer import block_comments
from ptxlint.lazy_regex import on_first_use

# ``asm`` covers __asm__ and __asm; a file without it can still expand an asm macro from a header
# it includes, which ``needs_include_check``/``uses_included_asm_macro`` decide.
CXX_KEYWORDS: tuple[bytes, ...] = (b"asm",)

_BY_EXTENSION: dict[str, tuple[bytes, ...]] = {}
# Front ends whose keywords are looked up on first use: (module, attribute).
_REGISTERED_LATER: dict[str, tuple[str, str]] = {
    ".py": ("ptxlint.frontends.python.apis", "PREFILTER"),
    ".jl": ("ptxlint.frontends.julia.apis", "PREFILTER"),
}


def register(extensions: Iterable[str], keywords: Iterable[bytes]) -> None:
    """Files with these extensions may hold asm when they contain one of ``keywords``."""
    words = tuple(keywords)
    for extension in extensions:
        _BY_EXTENSION[extension.lower()] = words


def keywords_for(path: str) -> tuple[bytes, ...]:
    extension = os.path.splitext(path)[1].lower()
    found = _BY_EXTENSION.get(extension)
    if found is None and extension in _REGISTERED_LATER:
        import importlib

        module, name = _REGISTERED_LATER.pop(extension)
        found = _BY_EXTENSION[extension] = tuple(getattr(importlib.import_module(module), name))
    return found if found is not None else CXX_KEYWORDS


def may_hold_asm(path: str, data: bytes) -> bool:
    """False only when no statement can be in ``data``: none of the keywords occurs, and no
    asm macro of a project header it includes is named in it."""
    if has_keyword(path, data):
        return True
    return needs_include_check(path, data) and uses_included_asm_macro(path, data)


def has_keyword(path: str, data: bytes) -> bool:
    """One of the file's front end keywords occurs in ``data`` (a substring search)."""
    return any(word in data for word in keywords_for(path))


def needs_include_check(path: str, data: bytes) -> bool:
    """Without a keyword, only a C++ file with an include can still hold asm, through a project
    header's macro: the one case that reads headers (``uses_included_asm_macro``), and so the
    one whose answer the runner keeps in its result cache."""
    return keywords_for(path) is CXX_KEYWORDS and b"include" in data


# `#include "name"`, and `#include <name>` where names without a '.' or '/' (<vector>,
# <cstdio>) are the standard library's. Searched from the literal `include` (a fast scan for
# the regex engine), the start of its line checked apart: a multi-line `^` pattern is tried at
# every byte (4x slower over CUTLASS, CCCL and the CUDA headers, same matches).
_INCLUDE = on_first_use(rb'include[ \t]*(?:"([^"\n]+)"|<([^>\n]*[./][^>\n]*)>)')
_LINE_HEAD = on_first_use(rb"[ \t]*#[ \t]*\Z")
_WORD_BYTE = on_first_use(rb"[\w$]")
_NAME_PATTERNS: dict[frozenset[str], re.Pattern[bytes]] = {}


def included_names(data: bytes) -> list[str]:
    """The include names the check below looks up (quoted, and angle names with a '.' or
    '/'), of `#include` lines: one scan of ``data``. Lines inside a block comment are among
    them: the check narrows them only where they would let the file through
    (``uses_included_asm_macro``), and as the headers a result depends on they cost at most a
    needless re-lint."""
    return [name for _, name in _include_lines(data)]


def _include_lines(data: bytes) -> list[tuple[int, str]]:
    """Each `#include` line's `#` and the name it includes."""
    lines = []
    line_head = _LINE_HEAD().match
    for m in _INCLUDE().finditer(data):
        start = m.start()
        line_start = data.rfind(b"\n", 0, start) + 1
        if line_head(data, line_start, start):
            name = (m.group(1) or m.group(2)).decode("utf-8", "replace").strip()
            lines.append((data.rfind(b"#", line_start, start), name))
    return lines


def uses_included_asm_macro(path: str, data: bytes, included: list[str] | None = None) -> bool:
    """Whether a header that an include of ``data`` finds (``included``: its
    ``included_names``, when the caller has them) brings an asm macro that ``data`` names.
    Where one does, the includes inside block comments (no directives) are left out and the
    question asked again: the comments (``lexer.block_comments``, on the bytes decoded as
    Latin-1, one character per byte, so the offsets are the bytes') are read only for a file
    that would be let through, not for each of the 1,650 files of the CUDA 13 headers whose
    includes are scanned (20-30 ms of CPU)."""
    if not _uses(path, data, included if included is not None else included_names(data)):
        return False
    if b"/*" not in data:
        return True
    lines = _include_lines(data)
    hidden = block_comments(data.decode("latin-1"))
    kept = [name for at, name in lines if not hidden.hides(at)]
    return len(kept) == len(lines) or _uses(path, data, kept)


def _uses(path: str, data: bytes, included: list[str]) -> bool:
    base = os.path.dirname(os.path.abspath(path))
    names: set[str] = set()
    found: list[str] = []
    for name in included:
        header = headers.find_header(base, name)
        if header is not None:
            names |= headers.asm_names_through(header)
            found.append(header)
    if not names:
        return False
    each = frozenset(names)
    if names_one_of(data, each):
        return True
    # One header's names are already spread over its whole closure; two or more can add a
    # macro of one that calls the other's asm macro (``headers.asm_names_across``).
    if len(found) < 2:
        return False
    across = headers.asm_names_across(found, each)
    return len(across) > len(each) and names_one_of(data, across - each)


def names_one_of(data: bytes, names: frozenset[str]) -> bool:
    """Whether one of ``names`` occurs in ``data`` as a whole identifier. The pattern starts
    with the names, so the regex engine skips to bytes that can start one (a leading
    look-behind made it try every byte: 4x slower); the byte before is checked per match (a
    rejected match cannot hide an overlapping one: its bytes are identifier bytes too)."""
    pattern = _NAME_PATTERNS.get(names)
    if pattern is None:
        words = _alternation(sorted(n.encode() for n in names), _SHARED_PREFIX)
        pattern = _NAME_PATTERNS[names] = re.compile(words + rb"(?![\w$])")
    word_byte = _WORD_BYTE().match
    for m in pattern.finditer(data):
        start = m.start()
        if not start or not word_byte(data, start - 1):
            return True
    return False


# The names of a pattern share their first bytes this deep: at a byte that can start a name,
# the regex engine then tries the names that go on with the bytes it meets, not each name in
# turn (the CUDA 13 headers' asm macros mostly start with "__"; their 1,011 name checks took
# 27 ms of CPU as one alternative per name, 13 ms so). The bound keeps the pattern's nesting
# shallow whatever the names.
_SHARED_PREFIX = 4


def _alternation(names: list[bytes], depth: int) -> bytes:
    """A pattern that matches exactly ``names`` (sorted), their common first bytes (to
    ``depth``) matched once per group of names that share them."""
    if depth == 0 or len(names) <= 1:
        return b"(?:" + b"|".join(re.escape(n) for n in names) + b")"
    groups: dict[bytes, list[bytes]] = {}
    ends_here = False
    for name in names:
        if name:
            groups.setdefault(name[:1], []).append(name[1:])
        else:
            ends_here = True
    body = b"(?:" + b"|".join(
        re.escape(first) + _alternation(rest, depth - 1) for first, rest in groups.items()
    ) + b")"
    return body + b"?" if ends_here else body
