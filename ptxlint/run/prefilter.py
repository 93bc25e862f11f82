"""Which files can hold inline asm at all, decided on their bytes before decoding or parsing.

Most files of a CUDA tree hold no asm statement; such a file costs one substring search instead
of a decode and a tree-sitter parse. The test is necessary, not sufficient: a file that passes
is read properly by its front end, which decides where real statements are.

Front ends register the keyword bytes of the extensions they read (``register``): the C++ front
end's ``asm`` covers ``__asm__`` and ``__asm`` (and a quoted ``#include`` may bring an asm
macro); the Python front end's ``.py`` words are its own (``inline_asm``, ``InlineAsm``, ...).
Extensions nobody registered use the C++ keywords, because a file named on the command line is
linted as C++ whatever its extension.

A C++ file with none of them may still use an asm macro of a header it includes (DeepGEMM's
``DG_DEVICE_ASSERT``, CUTLASS's ``CUTLASS_NOT_IMPLEMENTED``). Such a file passes when one of
its includes, read as its macro table reads them (``headers.include_names``), resolves (next to
the file, the folders above it, the project's ``-I`` folders: where ``headers.find_header``
looks, so exactly the headers whose macros extraction would expand) to a header that brings
asm macros, and one of their names occurs in the file. The question is asked of the names in
reach first (``uses_included_asm_macro``), so a file that names none of a tree's few asm
macros costs a scan of its bytes, and the headers it reaches are sketched, not read whole.
Letting every file with a quoted include through instead had CUTLASS's ``include/`` parse 728
of its 742 files, 67 of which hold asm.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from ptxlint.frontends.cxx import headers
from ptxlint.lazy_regex import on_first_use
from ptxlint.run.discover import decode_source

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


_WORD_BYTE = on_first_use(rb"[\w$]")
_NAME_PATTERNS: dict[frozenset[str], tuple[re.Pattern[bytes], ...]] = {}


def uses_included_asm_macro(path: str, data: bytes, included: list[str] | None = None) -> bool:
    """Whether a header that an include of ``data`` finds brings an asm macro that ``data``
    names. ``included``: the file's include names as its macro table reads them
    (``headers.include_names`` of its text), when the caller has them.

    Asked first of the asm-bearing macros in reach (``headers.asm_names_in_reach``: those
    that the headers of this file's includes' closures define, among all the headers sketched
    so far): a file that names none of them names none of what its closure brings, and its
    closure is not walked. Only a file that names one reads its includes as the macro table
    does (its text decoded, block comments hidden: one reader for both) and walks their
    closures (``_uses``). The question alone (each tree's files asked in path order, 3 runs
    each, 2 busy cores): the CUDA 13 headers' 1,764 files (none names one; their 1,833
    headers sketched, 6 read whole, 31 asm macros) 0.47-0.51 s of CPU -> 0.28-0.30 s;
    CUTLASS include/'s 742 0.18-0.19 s -> 0.13 s; flashinfer's 673 0.15-0.17 s -> 0.11 s.
    In ``check -j 1 --no-cache`` (the same code with the closure walk alone, alternated 3
    times): this question's CPU 0.52-0.55 s -> 0.36-0.37 s and the whole run's 3.66-4.08 s ->
    3.43-3.80 s on the CUDA headers (the 820 headers macro tables need are read whole by
    them now, not here); CUTLASS include/ unchanged in all (4.75-5.15 s); instructions
    counted (cachegrind): -1.0% and -0.4%."""
    if included is None:
        names = headers.asm_names_of_file(path, data)
    else:
        base = os.path.dirname(os.path.abspath(path))
        names = headers.asm_names_in_reach(base, included)
    if not names or not names_one_of(data, names):
        return False
    if included is None:
        included = headers.include_names(decode_source(data)[0])
    return _uses(path, data, included)


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
    """Whether one of ``names`` occurs in ``data`` as a whole identifier. Each pattern starts
    with its names, so the regex engine skips to bytes that can start one (a leading
    look-behind made it try every byte: 4x slower); the byte before is checked per match (a
    rejected match cannot hide an overlapping one: its bytes are identifier bytes too)."""
    word_byte = _WORD_BYTE().match
    for pattern in _name_patterns(names):
        for m in pattern.finditer(data):
            start = m.start()
            if not start or not word_byte(data, start - 1):
                return True
    return False


def _name_patterns(names: frozenset[str]) -> tuple[re.Pattern[bytes], ...]:
    """Patterns that together match exactly ``names`` (each followed by no identifier byte):
    one per group of names that share their first ``_LEAD`` bytes, each beginning with the
    bytes all its names share, where the groups are few. A pattern that begins with a
    literal is searched for by the engine's literal scan; one that begins with alternatives
    tries a match at every byte that can start one of them, and an identifier's first byte
    (``_`` above all) is that common in C++: the CUDA 13 headers' 31 asm macros (three
    groups: ``LOAD_ENVREG``, ``_CUB_...``, ``__...``) over the 1,681 files the prefilter asks
    of took 64.6 ms as one pattern, 35.6 ms as three."""
    found = _NAME_PATTERNS.get(names)
    if found is None:
        encoded = sorted(n.encode() for n in names)
        groups: dict[bytes, list[bytes]] = {}
        for name in encoded:
            groups.setdefault(name[:_LEAD], []).append(name)
        parts = list(groups.values()) if len(groups) <= _MAX_GROUPS else [encoded]
        found = _NAME_PATTERNS[names] = tuple(_names_pattern(part) for part in parts)
    return found


def _names_pattern(names: list[bytes]) -> re.Pattern[bytes]:
    """A pattern that matches exactly ``names`` (sorted, at least one), each followed by no
    identifier byte."""
    first, last = names[0], names[-1]  # sorted: what they share, all share
    shared = 0
    while shared < min(len(first), len(last)) and first[shared] == last[shared]:
        shared += 1
    rest = _alternation([name[shared:] for name in names], _SHARED_PREFIX)
    return re.compile(re.escape(first[:shared]) + rest + rb"(?![\w$])")


# Names are grouped by this many first bytes, while they make no more than ``_MAX_GROUPS``
# groups: a search per group costs about a fifth of one search of them all as alternatives
# when they begin with ``_`` (``_name_patterns``), so more groups would cost more.
_LEAD = 2
_MAX_GROUPS = 4

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
