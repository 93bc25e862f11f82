"""Which files can hold inline asm at all, decided on their bytes before decoding or parsing.

Most files of a CUDA tree hold no asm statement; such a file costs one substring search instead
of a decode and a tree-sitter parse. The test is necessary, not sufficient: a file that passes
is read properly by its front end, which decides where real statements are.

Front ends register the keyword bytes of the extensions they read (``register``): the C++ front
end's ``asm`` covers ``__asm__`` and ``__asm`` (and a quoted ``#include`` may bring an asm
macro); the Python front end's ``.py`` words are its own (``inline_asm``, ``InlineAsm``, ...).
Extensions nobody registered use the C++ keywords, because a file named on the command line is
linted as C++ whatever its extension.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

# ``asm`` covers __asm__ and __asm; a file without it can still expand an asm macro from a header
# it includes by relative path (extract.py reads those), so a quoted include lets it through too.
CXX_KEYWORDS: tuple[bytes, ...] = (b"asm", b'#include "', b"#include\t")

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
    """False only when no statement can be in ``data``: none of the keywords occurs."""
    return any(word in data for word in keywords_for(path))
