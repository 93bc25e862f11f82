"""Included headers, found where ``include_lookup`` finds them: reading and caching each one's
defines, the closure of what a file includes, as far as macros need it, and the asm-bearing
macros in reach of the prefilter's question (headers sketched from their bytes)."""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet

from ptxlint.frontends.cxx import include_lookup
from ptxlint.frontends.cxx.defines import (
    MAX_HEADER_BYTES,
    MAX_INCLUDE_DEPTH,
    FileDefines,
    collect,
    note_digest,
    read_header_bytes,
)
from ptxlint.frontends.cxx.defines import include_names as include_names  # the one reader
from ptxlint.frontends.cxx.include_lookup import candidates as candidates
from ptxlint.frontends.cxx.include_lookup import find_header as find_header
from ptxlint.frontends.cxx.include_lookup import real_path as real_path
from ptxlint.frontends.cxx.include_lookup import resolved
from ptxlint.frontends.cxx.lexer import identifiers
from ptxlint.graphs import components
from ptxlint.lazy_regex import on_first_use

_HEADER_CACHE: dict[str, FileDefines | None] = {}
_UNREAD = object()


def _header(path: str) -> FileDefines | None:
    """A header's directives, memoised per process (read once: a linting run does not see
    its headers change; the language server re-reads the file it lints, not its headers)."""
    result = _HEADER_CACHE.get(path, _UNREAD)
    if result is not _UNREAD:
        return result  # type: ignore[return-value]
    result = None
    # the bytes a sketch of it read (``_sketch``) while the discovery walk has not taken them
    data = _READ_AHEAD.get(path) if _READ_AHEAD else None
    if data is None:
        data = read_header_bytes(path, _DIGESTS, MAX_HEADER_BYTES)
    if data is not None:
        _keep_ahead(path, data)
        result = collect(path, data.decode("utf-8", "replace"), keep_text=False)
        result.text = ""  # the definitions keep offsets only: do not hold every header
        for name in result.defines:
            _DEFINERS.setdefault(name, []).append(result)
    _HEADER_CACHE[path] = result
    return result


# Real path -> the bytes ``_header`` read of it, kept while a walk that may reach that file is
# under way in this process (``keep_read_ahead``), for the walk to take (``take_read_ahead``)
# instead of reading the file again: the prefilter reads most headers of a tree before the walk
# gets to them (the CUDA 13 headers: 1,468 of 1,681 files it checks; CUTLASS include/: 569 of
# 742). Bounded: what the walk never takes (headers outside the tree or not linted) stays
# until the walk ends, and no more than ``MAX_READ_AHEAD_BYTES`` is held.
_READ_AHEAD: dict[str, bytes] | None = None
_READ_AHEAD_HELD = 0
MAX_READ_AHEAD_BYTES = 32 * 1024 * 1024


def keep_read_ahead(keep: bool) -> None:
    """Keep the bytes of the headers read from now on for ``take_read_ahead``, or (False) stop
    and drop what is held."""
    global _READ_AHEAD, _READ_AHEAD_HELD
    _READ_AHEAD = {} if keep else None
    _READ_AHEAD_HELD = 0


def take_read_ahead(real: str) -> bytes | None:
    """The bytes read of the header at real path ``real`` while kept, handed over once."""
    global _READ_AHEAD_HELD
    if not _READ_AHEAD:
        return None
    data = _READ_AHEAD.pop(real, None)
    if data is not None:
        _READ_AHEAD_HELD -= len(data)
    return data


def _keep_ahead(real: str, data: bytes) -> None:
    global _READ_AHEAD_HELD
    if (
        _READ_AHEAD is not None
        and real not in _READ_AHEAD
        and _READ_AHEAD_HELD + len(data) <= MAX_READ_AHEAD_BYTES
    ):
        _READ_AHEAD[real] = data
        _READ_AHEAD_HELD += len(data)


if hasattr(os, "register_at_fork"):  # not on Windows, which does not fork
    # a pool's worker, forked while the walk goes on, never walks: it keeps no bytes
    os.register_at_fork(after_in_child=lambda: keep_read_ahead(False))


# name -> the headers read in this process that define it, as ``_header`` read them: a macro
# table finds a name's definitions among its headers through the few that define it, where
# asking each of its headers took a look-up per header and name (the CUDA 13 headers' asm
# files: 866 names asked of up to a few hundred headers each, 10-11 ms of CPU, 3 ms so).
# Cleared with the headers (``forget_headers``, before a run makes its first table).
_DEFINERS: dict[str, list[FileDefines]] = {}


def definers(name: str) -> list[FileDefines]:
    """The headers read so far (``_header``) that define ``name``, in the order read."""
    return _DEFINERS.get(name, [])


# SHA-256 of each header as first read in this run, kept while a result cache records what its
# results depend on (``keep_header_digests``): the bytes the definitions came from.
_DIGESTS: dict[str, bytes] | None = None


def keep_header_digests(keep: bool) -> None:
    global _DIGESTS
    _DIGESTS = {} if keep else None


def header_digest(real: str) -> bytes | None:
    """The SHA-256 of the bytes ``real``'s definitions were read from in this run, if kept."""
    return None if _DIGESTS is None else _DIGESTS.get(real)


_CHILDREN: dict[str, tuple[str, ...]] = {}  # a header's includes, resolved


def closure(path: str, names: Sequence[str]) -> tuple[list[str], set[str]]:
    """The headers that the includes ``names`` of ``path`` reach, transitively, each once,
    as real paths in the order a macro table reads them (breadth first, to
    ``MAX_INCLUDE_DEPTH``), and those of them not read whole (``collect``): a header whose
    includes its sketch decided (``_SKETCH_KIDS``) is walked through them and read whole
    only when a definition of it is asked for (``sketch_definers``). The includes' closures
    are added to the reach first (``_reach``): every header of them whose definitions spell
    ``asm`` or an asm-bearing name is then read whole, so a header left unread brings no
    asm-bearing name (``MacroTable.asm_names``). Each header's includes are resolved once
    per process; a file's walk is dictionary look-ups over the include graph."""
    seen = {real_path(path)}
    out: list[str] = []
    unread: set[str] = set()
    # from the absolute folder, as the prefilter looks: ``ptxlint check k.cu`` must search the
    # folders above the working directory too (from "" there is no folder above to try)
    base = os.path.dirname(os.path.abspath(path))
    frontier: deque[tuple[str, int]] = deque()
    for name in names:
        real = _reached_include(base, name)
        if real is not None:
            frontier.append((real, 1))
    pop, push = frontier.popleft, frontier.append
    read, sketched, resolved = _HEADER_CACHE.get, _SKETCH_KIDS.get, _CHILDREN.get
    while frontier:
        real, depth = pop()
        if real in seen or depth > MAX_INCLUDE_DEPTH:
            continue
        seen.add(real)
        header = read(real, _UNREAD)
        children: Sequence[str] | None
        if header is _UNREAD:
            children = sketched(real)
            if children is not None and _named(real):
                out.append(real)
                unread.add(real)
                if depth < MAX_INCLUDE_DEPTH:
                    for child in children:
                        if child not in seen:
                            push((child, depth + 1))
                continue
            header = _header(real)
        if header is None:
            continue
        out.append(real)
        if depth < MAX_INCLUDE_DEPTH:  # a child one deeper than the limit is never read
            children = resolved(real)
            if children is None:
                children = _children(real, header)  # type: ignore[arg-type]
            for child in children:
                if child not in seen:
                    push((child, depth + 1))
    return out, unread


def read_whole(real: str) -> FileDefines | None:
    """The header at real path ``real`` read whole (``_header``: once per process)."""
    return _header(real)


def read_already(real: str) -> FileDefines | None:
    """The header at real path ``real`` if it has been read whole, else None."""
    found = _HEADER_CACHE.get(real)
    return found if isinstance(found, FileDefines) else None


# A sketched header not read whole: the names its ``#define`` text may define (each word
# after a ``define``: a superset of the names ``collect`` reads, where the text is ASCII),
# as name -> those headers (``sketch_definers``); a header is entered once per process
# (``_named``: whether it could be).
_SKETCH_DEFINERS: dict[str, list[str]] = {}
_NAMED: dict[str, bool] = {}
_DEFINED_NAME = on_first_use(
    rb"define(?:[ \t\n\r\f\v\x1c-\x1f]|\\\r?\n)*([A-Za-z_$][A-Za-z0-9_$]*)"
)


def _named(real: str) -> bool:
    """Enter the names a sketched header not read whole may define in ``_SKETCH_DEFINERS``;
    False where its ``#define`` text is not ASCII (``collect`` reads names and blanks beyond
    ASCII that the byte pattern does not: the header is read whole instead)."""
    found = _NAMED.get(real)
    if found is None:
        text = _UNSPELLED.get(real)  # none: the sketch found no ``#define``
        found = text is None or text.isascii()
        if found and text is not None:
            for name in set(_DEFINED_NAME().findall(text)):
                _SKETCH_DEFINERS.setdefault(name.decode("ascii"), []).append(real)
        _NAMED[real] = found
    return found


def sketch_definers(name: str) -> list[str]:
    """The sketched headers entered by ``closure`` that may define ``name`` (a superset of
    those that do, among the ones not read whole when entered)."""
    return _SKETCH_DEFINERS.get(name, [])


def _children(real: str, header: FileDefines) -> tuple[str, ...]:
    found = _CHILDREN.get(real)
    if found is None:
        base = os.path.dirname(real)
        children = (resolved(base, name) for name in header.includes)
        found = _CHILDREN[real] = tuple(c for c in children if c is not None)
    return found




def set_include_dirs(folders: Sequence[str]) -> None:
    """Search ``folders`` too for includes (per process: the runner sets it in each worker)."""
    if include_lookup.set_include_dirs(folders):
        _CHILDREN.clear()
        HEADER_ASM.clear()
        _CLOSURE_ASM.clear()
        _CLOSURE_PATHS.clear()
        _forget_reach()


def header_include_names(real: str) -> list[str] | None:
    """The include names of a header as every file's macro table reads them (memoised per
    process), or None when it cannot be read (it then brings nothing). From the header's
    sketch where it decided every include line (``_SKETCH_NAMES``): the result cache records
    the include graph of each linted file's closure, and reading every header of it whole for
    that undid the macro tables' lazy reading."""
    sketched = _SKETCH_NAMES.get(real)
    if sketched is not None:
        return list(sketched)
    defs = _header(real)
    return None if defs is None else defs.includes


_ALSO_FORGET: list[Callable[[], object]] = []


def also_forget(clear: Callable[[], object]) -> None:
    """Call ``clear`` with ``forget_headers``: a later stage's memo of headers' text."""
    _ALSO_FORGET.append(clear)


def forget_headers() -> None:
    """Read headers afresh from now on: a run starts with what its headers hold when it starts
    (the memos of an earlier run in this process would otherwise outlive an edit)."""
    include_lookup.forget()
    for clear in _ALSO_FORGET:
        clear()
    for memo in (_HEADER_CACHE, _CHILDREN, HEADER_ASM, _CLOSURE_ASM, _CLOSURE_PATHS, _BITS,
                 _USED_IN, _DIRECT, _INDEXED, _DEFINERS, _SKETCH_DEFINERS, _NAMED, _DIGESTS or {}):
        memo.clear()
    _forget_reach()


_CLOSURE_ASM: dict[str, frozenset[str]] = {}


def asm_names_through(header: str) -> frozenset[str]:
    """The asm-bearing macros a file gets by including ``header`` (its own and those of the
    headers it includes, transitively), memoised per header: the byte prefilter asks this
    for every project header a file includes. The closure is a set union per
    header (``_closure``) and the spread costs the referrers of the names found, so a tree's
    headers cost about their include graph's size, not graph x closure."""
    real = real_path(header)
    found = _CLOSURE_ASM.get(real)
    if found is None:
        closure = _closure(real)
        names: set[str] = set()
        for path, direct in _DIRECT.items():
            if _reaches(closure, path):
                names |= direct
        found = _CLOSURE_ASM[real] = _spread_names(names, lambda path: _reaches(closure, path))
    return found


def asm_names_across(found: Sequence[str], names: frozenset[str]) -> frozenset[str]:
    """``names`` (the union of ``asm_names_through`` over the headers ``found``) spread over
    the union of their closures: a macro of one header may call another's asm macro although
    neither includes the other (``A.h``: ``#define R N(x)``, ``B.h``: ``N`` with asm), and a
    file including both expands ``R`` to asm, as its macro table does. Not memoised: over the
    CUDA 13 headers the prefilter asks it 1,007 times for 942 sets of headers (10 ms)."""
    closure = 0
    for header in found:
        closure |= _closure(real_path(header))
    return _spread_names(set(names), lambda path: _reaches(closure, path))


# A header's closure: the headers it reaches, as a set of bits, one per header (``_bit``). The
# union of a component's children's closures is then an OR of integers, not a hash of every
# member of every child's set: the prefilter over the CUDA 13 headers took 0.44 s, 0.33 s so
# (1,471 unions of frozensets were 0.135 s). A header's bit comes after those of the headers
# it reaches (they finish first), so its closure takes (its bit) / 8 bytes: n headers take
# n^2 / 16 bytes at most (200 KB for the CUDA headers' 1,779, 6 MB for 10,000).
_CLOSURE_PATHS: dict[str, int] = {}
_BITS: dict[str, int] = {}  # header -> its bit


def _bit(real: str) -> int:
    found = _BITS.get(real)
    if found is None:
        found = _BITS[real] = len(_BITS)
    return found


def _reaches(closure: int, path: str) -> bool:
    """Whether ``closure`` holds ``path`` (a header with no bit is in no closure: it was read
    for a macro table, never reached by ``_closure``)."""
    bit = _BITS.get(path)
    return bit is not None and bool(closure >> bit & 1)


def _kids(real: str) -> tuple[str, ...]:
    defs = _header(real)
    if defs is None:
        return ()
    _indexed(defs)
    return _children(real, defs)


def _closure(real: str) -> int:
    """``real`` and every header it includes, transitively, memoised per header. Tarjan's
    strongly connected components (iterative): a header on an include cycle gets the closure
    of its whole cycle, and a component's closure is the union of its members and its
    children's finished closures, so each header is visited once per process."""
    found = _CLOSURE_PATHS.get(real)
    if found is not None:
        return found
    for component in components(real, _kids, _CLOSURE_PATHS):
        closure = 0
        for member in component:
            closure |= 1 << _bit(member)
        members = closure
        for member in component:
            for c in _kids(member):
                if not members >> _bit(c) & 1:
                    closure |= _CLOSURE_PATHS[c]
        for member in component:
            _CLOSURE_PATHS[member] = closure
    return _CLOSURE_PATHS[real]


# identifier -> the headers (by path) with a macro whose body may use it (``_indexed``), and
# header -> its asm-bearing names; filled once per header, so a spread looks up only the
# names it reaches instead of asking every header of a closure about every name (that was
# |names| x |closure| per header: seconds on CCCL's include graph).
_USED_IN: dict[str, list[str]] = {}


_DIRECT: dict[str, set[str]] = {}


_INDEXED: dict[str, FileDefines] = {}


_NO_NAMES: frozenset[str] = frozenset()

# A superset of the identifiers of C++ text: every identifier token (``lexer.identifiers``)
# is one of these words, and so are words inside comments, literals and numbers.
_WORD = on_first_use(r"[A-Za-z_$][A-Za-z0-9_$]*")


def _indexed(defs: FileDefines) -> AbstractSet[str]:
    """``defs``' asm-bearing names, the words of its bodies entered in ``_USED_IN`` on the
    first call. A header none of whose bodies spells ``asm`` has no asm-bearing name of its
    own, and a spread asks it only about the few names that spread reaches: its words are
    found by one search of its bodies (a superset of their identifiers), and its exact facts
    (``_asm_facts``) are made only when a spread asks it about one of them. Lexing every
    body of the CUDA 13 headers' include graph (1,779 headers, 17,617 bodies) to index it
    took 35-39 ms of CPU; indexing them so takes 14 ms (the bodies of 6 spell ``asm``)."""
    if _INDEXED.get(defs.path) is not defs:
        _INDEXED[defs.path] = defs
        bodies = "\n".join(body for _, body in defs.names_and_bodies())
        words: Iterable[str]
        if "asm" in bodies:
            direct, referrers = _asm_facts(defs)
            if direct:
                _DIRECT[defs.path] = direct
            words = referrers
        else:
            words = set(_WORD().findall(bodies))
        for word in words:
            _USED_IN.setdefault(word, []).append(defs.path)
    facts = defs.asm_facts
    return facts[0] if facts is not None else _NO_NAMES


def _spread_names(names: set[str], holds: Callable[[str], bool]) -> frozenset[str]:
    """``names`` and the macros of the headers that ``holds`` that use them, transitively."""
    frontier = list(names)
    while frontier:
        used = frontier.pop()
        for path in _USED_IN.get(used, ()):
            if not holds(path):
                continue
            for name in _asm_facts(_INDEXED[path])[1].get(used, ()):
                if name not in names:
                    names.add(name)
                    frontier.append(name)
    return frozenset(names)


def spread_over(headers: Sequence[FileDefines]) -> frozenset[str]:
    """``_spread`` over these headers' facts, through the index (equal result)."""
    names: set[str] = set()
    members: dict[str, FileDefines] = {}
    for defs in headers:
        names |= _indexed(defs)
        members[defs.path] = defs
    return _spread_names(names, members.__contains__)


def _asm_facts(defs: FileDefines) -> tuple[set[str], dict[str, set[str]]]:
    """Names whose body holds an asm keyword, and for every identifier of a body the macros
    that use it (once per file: headers are shared by every file that includes them)."""
    if defs.asm_facts is None:
        direct: set[str] = set()
        referrers: dict[str, set[str]] = {}
        for name, body in defs.names_and_bodies():
            for word in identifiers(body):
                if word in ("asm", "__asm__", "__asm"):
                    direct.add(name)
                elif word != name:
                    referrers.setdefault(word, set()).add(name)
        defs.asm_facts = (direct, referrers)
    return defs.asm_facts


HEADER_ASM: dict[tuple[str, ...], frozenset[str]] = {}


def _spread(
    facts: list[tuple[set[str], dict[str, set[str]]]], start: set[str] | None = None
) -> frozenset[str]:
    """Names with asm in their body, and the macros that use them, transitively."""
    names = set(start or ())
    for direct, _ in facts:
        names |= direct
    frontier = list(names)
    while frontier:
        used = frontier.pop()
        for _, referrers in facts:
            for name in referrers.get(used, ()):
                if name not in names:
                    names.add(name)
                    frontier.append(name)
    return frozenset(names)


ASM_KEYWORDS = frozenset({"asm", "__asm__", "__asm"})


# --------------------------------------------------------------------------- the asm names in reach

# The prefilter asks, for each file without an asm keyword, whether it names an asm-bearing
# macro of its include closure. Most files name none of the few such macros a tree has, and
# reading each header's directives (``collect``) and each closure to learn that was most of
# the question's cost. So it asks a cheaper question first: does the file name one of the
# asm-bearing macros found among all the headers sketched so far that a header of its
# closure defines (``asm_names_in_reach``)? Those hold every name the file's own closure can
# bring, so where the file names none the answer is no; the closure is walked (``collect``
# of each header) only for a file that names one.
#
# A header enters that set's reach by a sketch of its bytes, not a ``collect``: its include
# lines and its ``#define`` directives as two searches find them, a superset of what
# ``collect`` reads (no line-start check, block comments not hidden; the same grammar from the
# `#` on, so each directive ``collect`` reads lies inside one the search finds). A header's
# exact facts (``_asm_facts``) are made only where its definitions spell ``asm`` or the name
# of an asm-bearing macro: the CUDA 13 headers' include check sketches 1,833 headers and reads
# 6 whole (the figures: ``prefilter.uses_included_asm_macro``); the headers a macro table
# needs are read whole by it (``_header``), from the sketch's bytes while they are kept.
_HASH = rb"#(?:[ \t]|\\\r?\n)*"  # a directive's `#` and the blanks after it
_INCLUDE_REST = rb'include(?:[\s\x1c-\x1f\x80-\xff]|\\\r?\n)*(?:"([^"\n]+)"|<([^>\n]+)>)'
_DEFINE_REST = rb"define\b(?:[^\n\\]+|\\\r?\n?|\\.)*"  # to the line end no backslash continues
_SKETCH_INCLUDE = on_first_use(_HASH + _INCLUDE_REST)
_SKETCH_DEFINE = on_first_use(_HASH + _DEFINE_REST)
# both in one search (``_sketch``): a define's match has no group
_SKETCH_DIRECTIVE = on_first_use(_HASH + b"(?:" + _INCLUDE_REST + b"|" + _DEFINE_REST + b")")

# a header of the reach (real path) -> the headers its include lines find (a sketch's, or a
# header read whole before it was reached: ``_children``); () where it cannot be read. Closed
# under includes: every header its entries name has one.
_REACH_KIDS: dict[str, tuple[str, ...]] = {}
# a header of the reach whose definitions spell neither ``asm`` nor one of ``_ASM_NAMES``:
# their text (all its ``#define`` directives), searched again for the names found later
_UNSPELLED: dict[str, bytes] = {}
_ASM_NAMES: set[str] = set()  # the asm-bearing macros of the headers read whole, spread
_USERS: dict[str, set[str]] = {}  # an identifier -> the macros read whole whose body uses it
# the headers of the reach (bits: ``_REACH_BIT``) that define one of ``_ASM_NAMES`` -> the names
# they define, made again when a name is found, a header is read whole or a definer may have
# got its bit (``_name_masks``; ``_MASKED``: how many names it was made of, -1 when stale). The
# names a header defines share its entry: a file's names are a few tests of its closure (the
# CUDA 13 headers' 31 asm names have 7 entries), where each name took one (1,648 files asked)
_NAME_MASKS: dict[int, frozenset[str]] = {}
_MASKED = [-1]
_REACH_BIT: dict[str, int] = {}  # a header -> its bit, given when its closure is made
_REACH_CLOSURE: dict[str, int] = {}  # a header -> its closure in the reach, as bits
# a sketched header -> its includes as ``collect`` reads them, resolved, where the sketch
# decided each include line it found (``_include_line``)
_SKETCH_KIDS: dict[str, tuple[str, ...]] = {}
# and its include names as ``collect`` reads them (``FileDefines.includes``), for the result
# cache's include graph (``header_include_names``)
_SKETCH_NAMES: dict[str, tuple[str, ...]] = {}


def sketch_include_names(data: bytes) -> list[str]:
    """The include names of ``data`` as the sketch reads them: a superset of
    ``include_names`` of its text (every include line of it, and more)."""
    return [
        (quoted or angled).decode("utf-8", "replace")
        for quoted, angled in _SKETCH_INCLUDE().findall(data)
    ]


def asm_names_in_reach(base: str, names: Iterable[str]) -> frozenset[str]:
    """A superset of the asm-bearing macros that a file in folder ``base`` whose includes are
    ``names`` (or a superset of them) gets from its headers: never smaller than
    ``asm_names_through`` of each header they find, nor than ``asm_names_across`` of them.
    Each of the asm-bearing macros of the reach (every header sketched so far, these
    includes' closures added first) that a header of these includes' closures defines.

    Every header that defines an asm-bearing macro of the reach is read whole (its
    definitions spell the name), so the closures need only the sketches' include lines, and
    a file whose closure defines none gets the empty set without a search of its text."""
    closure = 0
    for name in names:
        real = _reached_include(base, name)
        if real is not None:
            closure |= _reach_closure(real)
    return _names_defined_in(closure)


def asm_names_of_file(path: str, data: bytes) -> frozenset[str]:
    """``asm_names_in_reach`` of the file at ``path`` whose bytes are ``data``, with its
    includes as the sketch reads them (``sketch_include_names``). The file enters the reach
    itself, sketched from these bytes as a header that includes it would sketch it, and the
    answer is read off its resolved includes: most files of a tree are some other file's
    header too, so one sketch per file and process serves both questions, where the file's
    include lines were searched and resolved again for its own (the CUDA 13 headers: 1,497
    of the 1,681 files asked were sketched already; CUTLASS include/: 568 of 742), and a file
    asked before any file includes it is not read again when one does (77 and 71 files);
    the question's CPU, each tree's files asked in the walk's order (3 runs each, 2 busy
    cores): 0.376-0.387 s -> 0.317-0.361 s and 0.166-0.171 s -> 0.152-0.158 s. A file read
    whole before it is asked (a macro table's header) answers from its includes as
    ``collect`` read them: a superset of what they bring all the same. Where the file's real
    path is not its absolute path (a link on the way: its includes are resolved from the
    folder it is named in) or its sketch found no include, it is asked as
    ``asm_names_in_reach`` asks."""
    absolute = os.path.abspath(path)
    real = real_path(absolute)
    if real == absolute:
        kids = _REACH_KIDS.get(real)
        if kids is None and len(data) <= MAX_HEADER_BYTES:  # as ``read_header_bytes`` reads
            _reach(real, data)
            kids = _REACH_KIDS[real]
        if kids:
            closure = 0
            for kid in kids:
                closure |= _reach_closure(kid)
            return _names_defined_in(closure)
    return asm_names_in_reach(os.path.dirname(absolute), sketch_include_names(data))


def _names_defined_in(closure: int) -> frozenset[str]:
    """The asm-bearing macros of the reach that a header of ``closure`` (bits) defines."""
    if not closure or not _ASM_NAMES:
        return _NO_NAMES
    found = [names for mask, names in _name_masks().items() if mask & closure]
    if len(found) <= 1:
        return found[0] if found else _NO_NAMES
    return frozenset().union(*found)


def _name_masks() -> dict[int, frozenset[str]]:
    if _MASKED[0] != len(_ASM_NAMES):
        bit = _REACH_BIT.get
        by_mask: dict[int, list[str]] = {}
        for name in _ASM_NAMES:
            mask = 0
            for defs in _DEFINERS.get(name, ()):
                at = bit(defs.path)
                if at is not None:
                    mask |= 1 << at
            if mask:  # (defined by no header of the reach: in no closure)
                by_mask.setdefault(mask, []).append(name)
        _NAME_MASKS.clear()
        _NAME_MASKS.update((mask, frozenset(names)) for mask, names in by_mask.items())
        _MASKED[0] = len(_ASM_NAMES)
    return _NAME_MASKS


def _reach_closure(real: str) -> int:
    """``real`` and every header of the reach it includes, transitively, as bits (Tarjan's
    components, as ``_closure``: each header visited once per process)."""
    found = _REACH_CLOSURE.get(real)
    if found is not None:
        return found
    kids = _REACH_KIDS.__getitem__
    for component in components(real, kids, _REACH_CLOSURE):
        closure = 0
        for member in component:
            at = _REACH_BIT.get(member)
            if at is None:
                at = _REACH_BIT[member] = len(_REACH_BIT)
                _MASKED[0] = -1  # a definer may have had no bit yet
            closure |= 1 << at
        members = closure
        for member in component:
            for child in kids(member):
                if not members >> _REACH_BIT[child] & 1:
                    closure |= _REACH_CLOSURE[child]
        for member in component:
            _REACH_CLOSURE[member] = closure
    return _REACH_CLOSURE[real]


def _reached_include(base: str, name: str) -> str | None:
    """The real path ``#include name`` from folder ``base`` reads, its closure added to the
    reach (``_reach``); None where it is found nowhere."""
    real = resolved(base, name)
    if real is not None and real not in _REACH_KIDS:
        _reach(real)
    return real


def _reach(root: str, data: bytes | None = None) -> None:
    """Add ``root``'s closure to the reach, and the asm-bearing macros it brings; ``data``:
    ``root``'s bytes, where the caller has read them."""
    whole: list[FileDefines] = []
    sketched: list[tuple[str, bytes]] = []
    stack = [root]
    while stack:
        real = stack.pop()
        if real in _REACH_KIDS:
            continue
        defs = _HEADER_CACHE.get(real, _UNREAD)
        children: Sequence[str] = ()
        if defs is not _UNREAD:  # read whole already (a macro table's): its exact facts
            if defs is not None:
                whole.append(defs)  # type: ignore[arg-type]
                children = _children(real, defs)  # type: ignore[arg-type]
        else:
            sketch = _sketch(real, data if real == root else None)
            if sketch is not None:
                children, defines = sketch
                if defines:
                    sketched.append((real, defines))
        _REACH_KIDS[real] = tuple(children)
        stack.extend(child for child in children if child not in _REACH_KIDS)
    spelled = _asm_names_spelled()
    for real, defines in sketched:
        if defines.find(b"asm") >= 0 or _spells(spelled, defines):  # (``_sketched``: find)
            defs = _header(real)
            if defs is not None:
                whole.append(defs)
        else:
            _UNSPELLED[real] = defines
    _settle(whole)


def _sketch(real: str, data: bytes | None = None) -> tuple[list[str], bytes] | None:
    """A header's includes, resolved, and its ``#define`` directives, from one read of its
    bytes (kept for the discovery walk, as ``_header`` keeps them). Where each include line
    the search found is decided (``_include_line``), the header's includes as ``collect``
    reads them are kept too (``_SKETCH_KIDS``): a macro table walks its closure through them
    without reading the header whole. Deciding them took the CUDA 13 headers' 1,828
    sketches (10,755 include lines) from 72-74 ms of CPU to 90-94 ms. ``data``: its bytes,
    where the caller read them (the walk has them: they are not kept).

    The include lines and the ``#define`` directives are what two searches of the bytes find
    (``_SKETCH_INCLUDE``, ``_SKETCH_DEFINE``), found by one (``_SKETCH_DIRECTIVE``): both
    look for a `#`, and a header is mostly bytes without one, each byte a step of the regex
    engine per search. One search finds what the two find, match for match, unless a match
    of one holds a `#` where the other's could start (a definition spelling ``#include``,
    an include name with a `#`); such a header is searched twice (``_Overlap``). Instructions
    counted by cachegrind, the prefilter's question alone (each tree's files in the walk's
    order, as ``runner`` asks it, their bytes read first): the CUDA 13 headers (6,096
    definitions, 9,989 include lines in 19 MB) 1,915 M -> 1,860 M, CUTLASS include/ (378 and
    6,437 in 27 MB) 1,158 M -> 1,031 M; the whole ``check -j 1 --no-cache`` -0.33% and
    -0.43%."""
    if data is not None:
        note_digest(real, data, _DIGESTS)
    else:
        data = read_header_bytes(real, _DIGESTS, MAX_HEADER_BYTES)
        if data is None:
            return None
        _keep_ahead(real, data)
    try:
        return _sketched(real, data, _SKETCH_DIRECTIVE().finditer(data), True)
    except _Overlap:
        return _sketched(real, data, _SKETCH_INCLUDE().finditer(data), False)


class _Overlap(Exception):
    """A match of the one search may hide a match the two searches would find."""


def _sketched(
    real: str, data: bytes, found: Iterator[re.Match[bytes]], both: bool
) -> tuple[list[str], bytes]:
    """``_sketch`` of ``real``'s bytes ``data`` from the matches ``found``: of
    ``_SKETCH_DIRECTIVE`` (``both``), else of ``_SKETCH_INCLUDE``, the definitions then
    searched for on their own."""
    base = os.path.dirname(real)
    children = []
    exact: list[str] | None = []
    names: list[str] = []
    defines: list[bytes] = []
    comments = [-1, -1, 0]  # ``_include_line``'s: the last /* and */ before, searched to
    for m in found:
        if m.lastindex is None:  # a definition
            text = m.group()
            # (a `#` then ``include`` inside it: an include line the include search finds).
            # ``find``, not ``in``: ``bytes.__contains__`` asks its operand for an integer
            # first, and the TypeError it makes and drops costs more than a short search
            if text.find(b"#", 1) >= 0 and text.find(b"include") >= 0:
                raise _Overlap
            defines.append(text)
            continue
        quoted, angled = m.groups()
        spelled = quoted or angled
        if both and spelled.find(b"#") >= 0:  # where the definition search would look
            raise _Overlap
        name = spelled.decode("utf-8", "replace")
        child = resolved(base, name)
        if child is not None:
            children.append(child)
        if exact is not None:
            directive = _include_line(data, m.start(), m.end(), comments)
            if directive is None:
                exact = None
            elif directive:
                names.append(name)
                if child is not None:
                    exact.append(child)
    if not both:
        defines = _SKETCH_DEFINE().findall(data)
    if exact is not None:
        _SKETCH_KIDS[real] = tuple(exact)
        _SKETCH_NAMES[real] = tuple(names)
    return children, b"\n".join(defines)


# A line end, or a byte that ``collect``'s text patterns and the sketch's byte patterns may
# read apart (\x1c-\x1f are blanks to the one, beyond ASCII each reads its own way)
_UNDECIDED = on_first_use(rb"[\n\x1c-\x1f\x80-\xff]")


def _include_line(data: bytes, start: int, end: int, comments: list[int]) -> bool | None:
    """Whether the include line the sketch found at ``start:end`` of ``data`` is one of the
    include directives ``collect`` reads (``defines._directives``): its `#` first on its line
    but for blanks, outside block comments, and not on a line that continues the one before
    it (the directive before it would run on over it). None where that is not decided from
    the line alone: the line continues the one before, a block comment opened before it may
    still be open, or the match runs over a line end or holds a byte the two read apart.
    ``comments``: the last ``/*`` and ``*/`` before the include line asked before this one,
    and where it starts (each header's lines asked in order: its text searched once)."""
    if _UNDECIDED().search(data, start, end) is not None:
        return None
    line = data.rfind(b"\n", 0, start) + 1
    if line != start and data[line:start].strip(b" \t"):
        return False
    before = data[max(0, line - 3) : max(0, line - 1)]  # the line before's last two bytes
    if before.endswith(b"\\") or before == b"\\\r":
        return None  # a backslash ends the line before: a line splice
    # (a `#` starts the last line asked: no /* or */ lies across it). Only the last ``*/``
    # after the last ``/*`` decides: a ``*/`` is looked for after an opener found here, or
    # from the last line asked where one before it is still open; else the ``*/`` kept may
    # be an older one, before every later opener all the same. Where both were looked for
    # back to the last line asked, a header with ``//`` comments and an include line after its
    # code had that code searched twice: the prefilter's question (cachegrind, as counted in
    # ``_sketch``) 1,823 M -> 1,808 M instructions on the CUDA 13 headers, 1,022 M -> 1,004 M
    # on CUTLASS include/
    opened = data.rfind(b"/*", comments[2], start)
    if opened >= 0:
        comments[0] = opened
        closed = data.rfind(b"*/", opened, start)
    elif comments[0] >= 0 and comments[1] < comments[0] + 2:
        closed = data.rfind(b"*/", comments[2], start)
    else:
        closed = -1
    if closed >= 0:
        comments[1] = closed
    comments[2] = start
    if comments[0] >= 0 and comments[1] < comments[0] + 2:
        return None  # (the ``*/`` of ``/*/`` closes nothing)
    return True


def _settle(whole: list[FileDefines]) -> None:
    """Enter the facts of the headers ``whole`` (read whole) and spread the asm-bearing names
    to a fixed point: a name found reads again the sketched headers that spell it."""
    while whole:
        _MASKED[0] = -1  # new definers
        grown: set[str] = set()
        for defs in whole:
            direct, referrers = _asm_facts(defs)
            grown |= direct
            for word, users in referrers.items():
                known = _USERS.get(word)
                if known is None:
                    _USERS[word] = set(users)
                else:
                    known |= users
                if word in _ASM_NAMES:
                    grown |= users
        added = set()
        frontier = [name for name in grown if name not in _ASM_NAMES]
        while frontier:
            name = frontier.pop()
            if name in _ASM_NAMES:
                continue
            _ASM_NAMES.add(name)
            added.add(name)
            frontier.extend(user for user in _USERS.get(name, ()) if user not in _ASM_NAMES)
        whole = []
        if not added:
            return
        spelled = name_patterns(frozenset(added))
        for real, defines in list(_UNSPELLED.items()):
            if _spells(spelled, defines):
                del _UNSPELLED[real]
                read = _header(real)
                if read is not None:
                    whole.append(read)


def _spells(patterns: Sequence[re.Pattern[bytes]], data: bytes) -> bool:
    """Whether one of ``patterns`` (``name_patterns``) finds its names in ``data``."""
    return any(pattern.search(data) for pattern in patterns)


# ``name_patterns`` of ``_ASM_NAMES`` while it has this many names (it only grows between two
# ``_forget_reach``): made again per ``_reach`` (its source, then ``re``'s cache), it took
# 9.0-9.3 ms of the CUDA 13 headers' prefilter CPU, 2.3-3.0 ms so.
_SPELLED: list[tuple[int, tuple[re.Pattern[bytes], ...]]] = [(0, ())]


def _asm_names_spelled() -> tuple[re.Pattern[bytes], ...]:
    count, spelled = _SPELLED[0]
    if count != len(_ASM_NAMES):
        spelled = name_patterns(frozenset(_ASM_NAMES))
        _SPELLED[0] = (len(_ASM_NAMES), spelled)
    return spelled


# --------------------------------------------------------------------------- names searched for


def name_patterns(names: frozenset[str], whole: bool = False) -> tuple[re.Pattern[bytes], ...]:
    """Patterns that together find any of ``names`` in bytes: anywhere (a superset of their
    uses as identifiers), or (``whole``) each followed by no identifier byte (the caller
    checks the byte before); none for no names. One pattern per group of names that share
    their first ``_LEAD`` bytes, each beginning with the bytes all its names share, where the
    groups are few. A pattern that begins with a literal is searched for by the engine's
    literal scan; one that begins with alternatives tries a match at every byte that can
    start one of them, and an identifier's first byte (``_`` above all) is that common in
    C++. The CUDA 13 headers' 31 asm macros (three groups: ``LOAD_ENVREG``, ``_CUB_...``,
    ``__...``), as whole names over the 1,681 files the prefilter asks of: 64.6 ms as one
    pattern, 35.6 ms as three; anywhere in the ``#define`` text of the 1,925 headers of the
    reach (1.15 MB): 28.9 ms as one, 4.9 ms as three."""
    encoded = sorted(n.encode() for n in names)
    groups: dict[bytes, list[bytes]] = {}
    for name in encoded:
        groups.setdefault(name[:_LEAD], []).append(name)
    parts = list(groups.values()) if len(groups) <= _MAX_GROUPS else [encoded]
    tail = rb"(?![\w$])" if whole else b""
    return tuple(_names_pattern(part, tail) for part in parts if part)


def _names_pattern(names: list[bytes], tail: bytes) -> re.Pattern[bytes]:
    """A pattern that matches exactly ``names`` (sorted, at least one), each followed by
    ``tail``."""
    first, last = names[0], names[-1]  # sorted: what they share, all share
    shared = 0
    while shared < min(len(first), len(last)) and first[shared] == last[shared]:
        shared += 1
    rest = _alternation([name[shared:] for name in names], _SHARED_PREFIX)
    return re.compile(re.escape(first[:shared]) + rest + tail)


# Names are grouped by this many first bytes, while they make no more than ``_MAX_GROUPS``
# groups: a search per group costs about a fifth of one search of them all as alternatives
# when they begin with ``_`` (``name_patterns``), so more groups would cost more.
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


def _forget_reach() -> None:
    for memo in (_REACH_KIDS, _UNSPELLED, _ASM_NAMES, _USERS, _NAME_MASKS, _REACH_BIT,
                 _REACH_CLOSURE, _SKETCH_KIDS, _SKETCH_NAMES):
        memo.clear()
    _SPELLED[0] = (0, ())
    _MASKED[0] = -1
