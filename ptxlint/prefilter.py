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
``macros.find_header`` looks, so exactly the headers whose macros extraction would expand) to
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

from ptxlint import macros

# ``asm`` covers __asm__ and __asm; a file without it can still expand an asm macro from a header
# it includes, which ``needs_include_check``/``uses_included_asm_macro`` decide.
CXX_KEYWORDS: tuple[bytes, ...] = (b"asm",)

_BY_EXTENSION: dict[str, tuple[bytes, ...]] = {}
# Front ends whose keywords are looked up on first use: (module, attribute).
_REGISTERED_LATER: dict[str, tuple[str, str]] = {
    ".py": ("ptxlint.frontends.python.apis", "PREFILTER"),
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
# <cstdio>) are the standard library's.
_INCLUDE = re.compile(
    rb'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]*[./][^>\n]*)>)', re.M
)
_NAME_PATTERNS: dict[frozenset[str], re.Pattern[bytes]] = {}


def included_names(data: bytes) -> list[str]:
    """The include names the check below looks up (quoted, and angle names with a '.' or
    '/')."""
    return [
        (m.group(1) or m.group(2)).decode("utf-8", "replace").strip()
        for m in _INCLUDE.finditer(data)
    ]


def uses_included_asm_macro(path: str, data: bytes) -> bool:
    base = os.path.dirname(os.path.abspath(path))
    names: set[str] = set()
    for name in included_names(data):
        header = macros.find_header(base, name)
        if header is not None:
            names |= macros.asm_names_through(header)
    if not names:
        return False
    key = frozenset(names)
    pattern = _NAME_PATTERNS.get(key)
    if pattern is None:
        words = b"|".join(re.escape(n.encode()) for n in sorted(names))
        pattern = _NAME_PATTERNS[key] = re.compile(rb"(?<![\w$])(?:" + words + rb")(?![\w$])")
    return pattern.search(data) is not None
