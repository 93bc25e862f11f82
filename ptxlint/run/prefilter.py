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

A C++ file with no asm at all still takes protocol steps where it calls the asm helpers of a
project header it includes (``cp_async_wait<N>()``, ``warpgroup_arrive()``): the protocol
rules follow such calls (``ptxlint.analysis.included_helpers``). While a rule whose ``needs``
name ``helper-calls`` is enabled for the file (the runner asks), it passes when it names one
of those helpers (``calls_included_helper``); the default rules never ask, and no header is
read for it.
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


def may_hold_asm(path: str, data: bytes, helpers: bool = False) -> bool:
    """False only when no statement can be in ``data``: none of the keywords occurs, and no
    asm macro of a project header it includes is named in it; with ``helpers`` (a rule that
    needs ``helper-calls`` is enabled for the file), nor an asm helper of such a header
    (``calls_included_helper``)."""
    if has_keyword(path, data):
        return True
    return needs_include_check(path, data) and (
        uses_included_asm_macro(path, data) or helpers and calls_included_helper(path, data))


def calls_included_helper(path: str, data: bytes) -> bool:
    """Whether ``data`` (a C++ file with no asm keyword) names, as a whole identifier, a
    function holding asm that a project header it includes defines: the helpers the protocol
    rules follow into (``included_helpers``, which reads those headers once per process), so
    the file is linted for those rules (``engine.helper_call_outcomes``). Asked only while
    such a rule is enabled for the file: the default rules never read these headers."""
    from ptxlint.analysis.included_helpers import helper_names  # a --preview run's only

    names = helper_names(path, decode_source(data)[0])
    return bool(names) and names_one_of(data, names)


def has_keyword(path: str, data: bytes) -> bool:
    """One of the file's front end keywords occurs in ``data`` (a substring search: ``find``,
    as in the rest of the prefilter, where ``in`` first asks its operand for an integer and
    makes and drops a TypeError per test, 1,800 instructions, about a second search of a
    small file)."""
    words = keywords_for(path)
    if len(words) == 1:  # C++'s ``asm``: no generator per file
        return data.find(words[0]) >= 0
    return any(data.find(word) >= 0 for word in words)


def keyword_count(path: str, data: bytes) -> int:
    """How many times the file's front end keywords occur in ``data``: what its statements
    cost, as the pool weighs its work (``runner.job_cost``)."""
    return sum(data.count(word) for word in keywords_for(path))


def needs_include_check(path: str, data: bytes) -> bool:
    """Without a keyword, only a C++ file with an include can still hold asm, through a project
    header's macro: the one case that reads headers (``uses_included_asm_macro``), and so the
    one whose answer the runner keeps in its result cache."""
    return keywords_for(path) is CXX_KEYWORDS and data.find(b"include") >= 0


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
    """``headers.name_patterns`` of ``names`` as whole identifiers, made once per set."""
    found = _NAME_PATTERNS.get(names)
    if found is None:
        found = _NAME_PATTERNS[names] = headers.name_patterns(names, whole=True)
    return found
