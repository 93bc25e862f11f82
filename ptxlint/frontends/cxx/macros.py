"""The ``#define``s of a translation unit, and macro expansion with a source map.

Templates are often built by macros: ``#define LOAD(T, SPACE) asm("ld." #SPACE "." #T ...)``.
This module collects the definitions of a file and of the headers it includes by relative path
(one pass per file, memoised), and expands an invocation the way the C preprocessor does
(object-like and function-like macros, ``#``, ``##``, ``__VA_ARGS__``, ``__VA_OPT__``, nested
expansion with hide sets). Every expanded token remembers where its characters were spelled:
in the file being linted (the macro body or the invocation's arguments) or elsewhere (a header),
so that findings can point at exact characters.

Nothing is guessed: a name with two live definitions that differ, or one defined only under
conditions that cannot hold, does not expand.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator, Sequence, Set
from dataclasses import dataclass, field

from ptxlint.frontends.cxx import preproc
from ptxlint.frontends.cxx.guards import FileGuards
from ptxlint.frontends.cxx.lexer import Token, identifiers, tokens
from ptxlint.graphs import components
from ptxlint.lazy_regex import on_first_use

# A header is read at most this large; bigger ones are treated as absent.
MAX_HEADER_BYTES = 16 * 1024 * 1024
# Bounds for pathological input: expansion stops (and the result is "unknown") past these.
MAX_EXPANDED_TOKENS = 50_000
# Macros expanding inside one another, the outermost first: each token carries the set of them
# (its hide set), made anew at each level, so a chain of n nested macros costs O(n^2) in it.
# Real code nests a few dozen at most (Boost.Preprocessor's deepest loops: 256 distinct names).
MAX_NESTING = 1024
MAX_INCLUDE_DEPTH = 16
MAX_ANCESTORS = 8  # folders above the including file searched for a quoted include

# Searched from the `#` (``_directives`` checks that only blanks precede it on its line): a
# `^`-anchored multi-line pattern would be tried at every character of every header. The body
# is taken a run of plain characters per step, not one character per step.
_DIRECTIVE = on_first_use(r"#[ \t]*(define|undef|include)\b((?:[^\n\\]+|\\\r?\n?|\\.)*)")
# `#include "x.h"`, and `#include <project/x.h>`: both are looked up in the including file's
# folder and the folders above it (a project's own include root), never in system folders.
_INCLUDE = on_first_use(r'^\s*(?:"([^"\n]+)"|<([^>\n]+)>)')
_DEFINE_HEAD = on_first_use(r"\s*([A-Za-z_$][\w$]*)(\()?")

Spelling = tuple[int, int]  # a half-open source range in the file being linted
INEXACT: Spelling = (-1, -1)  # spelled outside the file: the caller substitutes the invocation


class _Origin:
    """The file a definition was read from, for what only a few definitions are ever asked:
    their line and their ``#if`` guards. A file's hundreds of definitions cost one regex pass
    when read; the guards (a walk of every conditional of the file) are worked out the first
    time one of its definitions is looked up. A header's text is not kept meanwhile: it is read
    again then (a run does not see its headers change)."""

    __slots__ = ("path", "_text", "_guards", "_starts")

    def __init__(self, path: str, text: str | None) -> None:
        self.path = path
        self._text = text  # None: a header, read again on demand
        self._guards: FileGuards | None = None
        self._starts: list[int] | None = None

    def _load(self) -> tuple[FileGuards, list[int]]:
        if self._guards is None or self._starts is None:
            text = self._text if self._text is not None else (_read_header(self.path) or "")
            self._guards, self._starts = FileGuards(text), _line_starts(text)
        return self._guards, self._starts

    def line(self, offset: int) -> int:
        return _line_of(self._load()[1], offset)

    def guards(self, offset: int) -> tuple[str, ...]:
        return self._load()[0].at(offset, offset + 1)[0]


@dataclass(frozen=True)
class MacroDef:
    """One ``#define``: the macro's name, parameters and body, and where the directive is."""

    name: str
    params: tuple[str, ...] | None  # None: object-like
    variadic: bool  # the last parameter takes the remaining arguments
    spelling: str  # the body as written (tokens: ``body``)
    offset: int  # where ``spelling`` starts in the defining file's text
    path: str  # the defining file
    start: int  # the `#` of the directive
    end: int  # end of the directive
    origin: _Origin = field(repr=False, compare=False)
    _lazy: dict[str, object] = field(default_factory=dict, repr=False, compare=False)

    @property
    def body(self) -> tuple[Token, ...]:
        """The body's tokens, offsets into the defining file's text (lexed on first use)."""
        if "body" not in self._lazy:
            base = self.offset
            self._lazy["body"] = tuple(
                Token(t.kind, t.text, t.start + base, t.end + base) for t in tokens(self.spelling)
            )
        return self._lazy["body"]  # type: ignore[return-value]

    def identifiers(self) -> list[str]:
        """The texts of the body's identifier tokens (what ``body`` would give, without
        building a token for each: most definitions of a header are only ever read here)."""
        if "body" in self._lazy:
            return [t.text for t in self.body if t.kind == "ident"]
        return identifiers(self.spelling)

    @property
    def line(self) -> int:
        if "line" not in self._lazy:
            self._lazy["line"] = self.origin.line(self.start)
        return self._lazy["line"]  # type: ignore[return-value]

    @property
    def guards(self) -> tuple[str, ...]:
        """The #if conditions around the definition, outermost first."""
        if "guards" not in self._lazy:
            self._lazy["guards"] = self.origin.guards(self.start)
        return self._lazy["guards"]  # type: ignore[return-value]

    def same_as(self, other: MacroDef) -> bool:
        return (
            self.params == other.params
            and self.variadic == other.variadic
            and [t.text for t in self.body] == [t.text for t in other.body]
        )

    @property
    def signature(self) -> str:
        if self.params is None:
            return self.name
        return f"{self.name}({', '.join(self.params)})"


@dataclass
class FileDefines:
    """The directives of one file, in text order."""

    path: str
    text: str
    defines: dict[str, list[MacroDef]] = field(default_factory=dict)
    undefs: dict[str, list[int]] = field(default_factory=dict)
    includes: list[str] = field(default_factory=list)  # quoted include names
    asm_facts: tuple[set[str], dict[str, set[str]]] | None = None  # see _asm_facts


def collect(path: str, text: str, keep_text: bool = True) -> FileDefines:
    """One pass over ``text`` for its #define, #undef and #include "..." directives: O(text)
    for the directive scan plus O(body) per definition; lines and guards come later, per file,
    when a definition is looked up (``_Origin``). Without ``keep_text`` (a header) the text
    is not held: it is read again if one of its definitions is looked up."""
    out = FileDefines(path, text)
    if "#" not in text:
        return out
    origin = _Origin(path, text if keep_text else None)
    for start, m in _directives(text):
        kind, rest = m.group(1), m.group(2)
        if kind == "include":
            inc = _INCLUDE().match(rest)
            if inc:
                out.includes.append(inc.group(1) or inc.group(2))
            continue
        head = _DEFINE_HEAD().match(rest)
        if head is None:
            continue
        name = head.group(1)
        if kind == "undef":
            out.undefs.setdefault(name, []).append(start)
            continue
        body_start = m.start(2) + head.end()
        params: tuple[str, ...] | None = None
        variadic = False
        if head.group(2):  # `(` right after the name: function-like
            close = rest.find(")", head.end())
            if close < 0:
                continue
            names = [p.strip() for p in rest[head.end() : close].replace("\\\n", " ").split(",")]
            names = [p for p in names if p]
            if names and names[-1].endswith("..."):
                variadic = True
                last = names[-1][:-3].strip()
                names[-1] = last or "__VA_ARGS__"
            params = tuple(names)
            body_start = m.start(2) + close + 1
        out.defines.setdefault(name, []).append(
            MacroDef(
                name=name,
                params=params,
                variadic=variadic,
                spelling=text[body_start : m.end()],
                offset=body_start,
                path=path,
                start=start,
                end=m.end(),
                origin=origin,
            )
        )
    return out


def _directives(text: str) -> Iterator[tuple[int, re.Match[str]]]:
    """The ``#define``/``#undef``/``#include`` directives of ``text`` with their start (their
    line's): each a `#` with only blanks before it on its line (what ``^[ \t]*#`` in
    multi-line mode finds), in text order, the next searched after the end of the last one
    (its continuation lines included)."""
    search = _DIRECTIVE().search
    pos = 0
    while True:
        m = search(text, pos)
        if m is None:
            return
        start = m.start()
        line_start = text.rfind("\n", 0, start) + 1
        if line_start == start or not text[line_start:start].strip(" \t"):
            yield line_start, m
            pos = m.end()
        else:
            pos = start + 1  # a `#` inside a line: what follows may still hold a directive


def _line_starts(text: str) -> list[int]:
    starts = [0]
    i = text.find("\n")
    while i != -1:
        starts.append(i + 1)
        i = text.find("\n", i + 1)
    return starts


def _line_of(starts: list[int], offset: int) -> int:
    import bisect

    return bisect.bisect_right(starts, offset)


# --------------------------------------------------------------------------- headers

_HEADER_CACHE: dict[str, tuple[tuple[float, int], FileDefines | None]] = {}


def _header(path: str) -> FileDefines | None:
    """A header's directives, memoised per process (read once: a linting run does not see
    its headers change; the language server re-reads the file it lints, not its headers)."""
    cached = _HEADER_CACHE.get(path)
    if cached is not None:
        return cached[1]
    try:
        st = os.stat(path)
    except OSError:
        _HEADER_CACHE[path] = ((0.0, -1), None)
        return None
    key = (st.st_mtime, st.st_size)
    result: FileDefines | None = None
    if st.st_size <= MAX_HEADER_BYTES:
        text = _read_header(path, _DIGESTS)
        if text is not None:
            result = collect(path, text, keep_text=False)
            result.text = ""  # the definitions keep offsets only: do not hold every header
    _HEADER_CACHE[path] = (key, result)
    return result


def _read_header(path: str, digests: dict[str, bytes] | None = None) -> str | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    if digests is not None:
        import hashlib  # only a run with the result cache keeps digests

        digests[path] = hashlib.sha256(data).digest()
    return data.decode("utf-8", "replace")


# SHA-256 of each header as first read in this run, kept while a result cache records what its
# results depend on (``keep_header_digests``): the bytes the definitions came from.
_DIGESTS: dict[str, bytes] | None = None


def keep_header_digests(keep: bool) -> None:
    global _DIGESTS
    _DIGESTS = {} if keep else None


def header_digest(real: str) -> bytes | None:
    """The SHA-256 of the bytes ``real``'s definitions were read from in this run, if kept."""
    return None if _DIGESTS is None else _DIGESTS.get(real)


_FOUND: dict[tuple[str, str], str | None] = {}
_CHILDREN: dict[str, tuple[str, ...]] = {}  # a header's includes, resolved


def _included(path: str, own: FileDefines) -> list[FileDefines]:
    """Headers included from ``path``, transitively, each once. Each header is read and its
    includes resolved once per process (``_children``); a file's walk is then dictionary
    look-ups over the include graph."""
    seen = {_real(path)}
    out: list[FileDefines] = []
    # from the absolute folder, as the prefilter looks: ``ptxlint check k.cu`` must search the
    # folders above the working directory too (from "" there is no folder above to try)
    base = os.path.dirname(os.path.abspath(path))
    frontier: list[tuple[str, int]] = []
    for name in own.includes:
        candidate = _find_header(base, name)
        if candidate is not None:
            frontier.append((_real(candidate), 1))
    while frontier:
        real, depth = frontier.pop(0)
        if real in seen or depth > MAX_INCLUDE_DEPTH:
            continue
        seen.add(real)
        header = _header(real)
        if header is None:
            continue
        out.append(header)
        frontier.extend((child, depth + 1) for child in _children(real, header))
    return out


def _children(real: str, header: FileDefines) -> tuple[str, ...]:
    found = _CHILDREN.get(real)
    if found is None:
        base = os.path.dirname(real)
        resolved = (_find_header(base, name) for name in header.includes)
        found = _CHILDREN[real] = tuple(_real(c) for c in resolved if c is not None)
    return found


_REALPATHS: dict[str, str] = {}


def _real(path: str) -> str:
    """``os.path.realpath(path)``, memoised, and through the memoised real path of its folder
    where its last component is no symbolic link (what realpath then returns): one ``lstat``
    per header instead of one per component of its path."""
    real = _REALPATHS.get(path)
    if real is None:
        folder, name = os.path.split(path)
        if folder and name not in ("", ".", "..") and folder != path and not os.path.islink(path):
            real = os.path.join(_real(folder), name)
        else:
            real = os.path.realpath(path)
        _REALPATHS[path] = real
    return real


# A project's own include folders (``-I`` of its compile_commands.json that lie inside the
# linted tree; never system or toolkit folders), searched after the including file's folders.
_INCLUDE_DIRS: tuple[str, ...] = ()


def set_include_dirs(folders: Sequence[str]) -> None:
    """Search ``folders`` too for includes (per process: the runner sets it in each worker)."""
    global _INCLUDE_DIRS
    folders = tuple(folders)
    if folders != _INCLUDE_DIRS:
        _INCLUDE_DIRS = folders
        _FOUND.clear()
        _ABOVE.clear()
        _CHILDREN.clear()
        _HEADER_ASM.clear()
        _CLOSURE_ASM.clear()
        _CLOSURE_PATHS.clear()


def candidates(base: str, name: str) -> Iterator[str]:
    """Where ``#include "name"`` from a file in ``base`` is looked for, in order: next to it,
    as the compiler looks first, else in a folder above it (``#include "cutlass/cutlass.h"``
    from deep inside a tree whose root is on the include path), else in the project's include
    folders. The first that is a file is the header (``find_header``)."""
    folder = base
    for _ in range(MAX_ANCESTORS + 1):
        yield os.path.normpath(os.path.join(folder, name))
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    for folder in _INCLUDE_DIRS:
        yield os.path.normpath(os.path.join(folder, name))


def _find_header(base: str, name: str) -> str | None:
    """The header ``#include "name"`` from a file in ``base`` reads: the first of
    ``candidates`` that is a file, memoised per (folder, name)."""
    key = (base, name)
    if key in _FOUND:
        return _FOUND[key]
    found = _found_above(base, name, MAX_ANCESTORS)
    if found is None:
        found = next(
            (c for c in (os.path.normpath(os.path.join(f, name)) for f in _INCLUDE_DIRS)
             if os.path.isfile(c)),
            None,
        )  # fmt: skip
    _FOUND[key] = found
    return found


_ABOVE: dict[tuple[str, str, int], str | None] = {}


def _found_above(folder: str, name: str, above: int) -> str | None:
    """The first of ``candidates``' folders from ``folder`` up, ``above`` more folders at
    most, that holds ``name`` as a file, memoised per (folder, name, above): the files of
    one folder look up the same names, and share every step above it."""
    key = (folder, name, above)
    if key in _ABOVE:
        return _ABOVE[key]
    here = os.path.normpath(os.path.join(folder, name))
    found: str | None = here
    if not os.path.isfile(here):
        parent = os.path.dirname(folder)
        found = _found_above(parent, name, above - 1) if above > 0 and parent != folder else None
    _ABOVE[key] = found
    return found


find_header = _find_header


def include_names(text: str) -> list[str]:
    """The names ``#include`` directives of ``text`` bring, as ``collect`` reads them (one
    directive scan, no definitions built): what a file's macro table follows."""
    if "#" not in text:
        return []
    names = []
    for _, m in _directives(text):
        if m.group(1) == "include":
            inc = _INCLUDE().match(m.group(2))
            if inc:
                names.append(inc.group(1) or inc.group(2))
    return names


def header_include_names(real: str) -> list[str] | None:
    """The include names of a header as every file's macro table reads them (memoised per
    process), or None when it cannot be read (it then brings nothing)."""
    defs = _header(real)
    return None if defs is None else defs.includes


real_path = _real


def forget_headers() -> None:
    """Read headers afresh from now on: a run starts with what its headers hold when it starts
    (the memos of an earlier run in this process would otherwise outlive an edit)."""
    for memo in (_HEADER_CACHE, _FOUND, _ABOVE, _CHILDREN, _REALPATHS, _HEADER_ASM, _CLOSURE_ASM,
                 _CLOSURE_PATHS, _USED_IN, _DIRECT, _INDEXED, _DIGESTS or {}):
        memo.clear()

_CLOSURE_ASM: dict[str, frozenset[str]] = {}


def asm_names_through(header: str) -> frozenset[str]:
    """The asm-bearing macros a file gets by including ``header`` (its own and those of the
    headers it includes, transitively), memoised per header: the byte prefilter asks this
    for every project header a file includes. The closure is a set union per
    header (``_closure``) and the spread costs the referrers of the names found, so a tree's
    headers cost about their include graph's size, not graph x closure."""
    real = _real(header)
    found = _CLOSURE_ASM.get(real)
    if found is None:
        closure = _closure(real)
        names: set[str] = set()
        for path in closure & _DIRECT.keys():
            names |= _DIRECT[path]
        found = _CLOSURE_ASM[real] = _spread_names(names, closure)
    return found


_CLOSURE_PATHS: dict[str, frozenset[str]] = {}


def _kids(real: str) -> tuple[str, ...]:
    defs = _header(real)
    if defs is None:
        return ()
    _indexed(defs)
    return _children(real, defs)


def _closure(real: str) -> frozenset[str]:
    """``real`` and every header it includes, transitively, memoised per header. Tarjan's
    strongly connected components (iterative): a header on an include cycle gets the closure
    of its whole cycle, and a component's closure is the union of its members and its
    children's finished closures, so each header is visited once per process."""
    found = _CLOSURE_PATHS.get(real)
    if found is not None:
        return found
    for component in components(real, _kids, _CLOSURE_PATHS):
        members = frozenset(component)
        parts = [members]
        for member in component:
            parts.extend(_CLOSURE_PATHS[c] for c in _kids(member) if c not in members)
        closure = frozenset().union(*parts)
        for member in component:
            _CLOSURE_PATHS[member] = closure
    return _CLOSURE_PATHS[real]


# identifier -> the headers (by path) with a macro whose body uses it, and header -> its
# asm-bearing names; filled once per header (``_indexed``), so a spread looks up only the
# names it reaches instead of asking every header of a closure about every name (that was
# |names| x |closure| per header: seconds on CCCL's include graph).
_USED_IN: dict[str, list[str]] = {}
_DIRECT: dict[str, set[str]] = {}
_INDEXED: dict[str, FileDefines] = {}


def _indexed(defs: FileDefines) -> set[str]:
    """``defs``' asm-bearing names, its referrers entered in ``_USED_IN`` on first call."""
    direct, referrers = _asm_facts(defs)
    if _INDEXED.get(defs.path) is not defs:
        _INDEXED[defs.path] = defs
        if direct:
            _DIRECT[defs.path] = direct
        for word in referrers:
            _USED_IN.setdefault(word, []).append(defs.path)
    return direct


def _spread_names(names: set[str], members: Set[str] | dict[str, FileDefines]) -> frozenset[str]:
    """``names`` and the macros of the headers in ``members`` that use them, transitively."""
    frontier = list(names)
    while frontier:
        used = frontier.pop()
        for path in _USED_IN.get(used, ()):
            if path not in members:
                continue
            for name in _asm_facts(_INDEXED[path])[1].get(used, ()):
                if name not in names:
                    names.add(name)
                    frontier.append(name)
    return frozenset(names)


def _spread_over(headers: Sequence[FileDefines]) -> frozenset[str]:
    """``_spread`` over these headers' facts, through the index (equal result)."""
    names: set[str] = set()
    members: dict[str, FileDefines] = {}
    for defs in headers:
        names |= _indexed(defs)
        members[defs.path] = defs
    return _spread_names(names, members)


def _asm_facts(defs: FileDefines) -> tuple[set[str], dict[str, set[str]]]:
    """Names whose body holds an asm keyword, and for every identifier of a body the macros
    that use it (once per file: headers are shared by every file that includes them)."""
    if defs.asm_facts is None:
        direct: set[str] = set()
        referrers: dict[str, set[str]] = {}
        for name, definitions in defs.defines.items():
            for d in definitions:
                for word in d.identifiers():
                    if word in ("asm", "__asm__", "__asm"):
                        direct.add(name)
                    elif word != name:
                        referrers.setdefault(word, set()).add(name)
        defs.asm_facts = (direct, referrers)
    return defs.asm_facts


_HEADER_ASM: dict[tuple[str, ...], frozenset[str]] = {}


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


# --------------------------------------------------------------------------- the table

_ASM_KEYWORDS = frozenset({"asm", "__asm__", "__asm"})


class MacroTable:
    """Every definition a file can see: its own (position-sensitive) and its headers'."""

    def __init__(self, path: str, text: str, follow_includes: bool = True) -> None:
        self.path = path
        self.own = collect(path, text)
        self.headers = _included(path, self.own) if follow_includes and self.own.includes else []
        self._header_defs: dict[str, list[MacroDef]] = {}
        self._asm_names: frozenset[str] | None = None

    def _from_headers(self, name: str) -> list[MacroDef]:
        found = self._header_defs.get(name)
        if found is None:
            found = [d for h in self.headers for d in h.defines.get(name, ())]
            self._header_defs[name] = found
        return found

    def definitions(self, name: str) -> list[MacroDef]:
        return self.own.defines.get(name, []) + self._from_headers(name)

    def lookup(self, name: str, at: int | None = None) -> MacroDef | None:
        """The one live definition of ``name`` at offset ``at`` of the file, else None."""
        own = self.own.defines.get(name)
        candidates: list[MacroDef] = []
        if own:
            if at is None:
                candidates = list(own)
            else:
                undefs = [u for u in self.own.undefs.get(name, ()) if u < at]
                last_undef = max(undefs) if undefs else -1
                candidates = [d for d in own if last_undef < d.start < at]
                if not candidates and last_undef >= 0:
                    return None  # #undef'd here
        if not candidates:
            candidates = self._from_headers(name)
        live = [d for d in candidates if preproc.evaluate_guards(d.guards) is not False]
        if not live:
            return None
        first = live[0]
        if any(not first.same_as(d) for d in live[1:]):
            # #if A / #define M 1 / #else / #define M 2: not decidable here, unless one of them
            # alone holds asm (`#ifdef __CUDA_ARCH__` / `{ ...; asm("brkpt;"); }` / `#else` /
            # `assert(0)`): the asm exists only where that one holds, and the statement read
            # from it carries its guards.
            bearing = [d for d in live if self._holds_asm(d)]
            if bearing and all(bearing[0].same_as(d) for d in bearing[1:]):
                return bearing[0]
            return None
        return first

    def _holds_asm(self, d: MacroDef) -> bool:
        names = self.asm_names()
        return any(
            t.kind == "ident"
            and (t.text in _ASM_KEYWORDS or (t.text in names and t.text != d.name))
            for t in d.body
        )

    def asm_names(self) -> frozenset[str]:
        """Macros some expansion of which can contain an asm statement: those whose body
        holds the keyword, and those whose body uses one of them, transitively."""
        if self._asm_names is None:
            key = tuple(h.path for h in self.headers)
            inherited = _HEADER_ASM.get(key)
            if inherited is None:
                inherited = _HEADER_ASM[key] = _spread_over(self.headers)
            own = _asm_facts(self.own)
            self._asm_names = _spread([own], set(inherited))
        return self._asm_names

    def asm_bearing(self, name: str) -> bool:
        """Whether some expansion of ``name`` can contain an asm statement."""
        return name in self.asm_names()


# --------------------------------------------------------------------------- expansion


@dataclass(frozen=True)
class XToken:
    """A token of an expansion with the source of each of its characters."""

    kind: str
    text: str
    spans: tuple[Spelling, ...]  # one per character of text; INEXACT where spelled elsewhere
    hide: frozenset[str] = frozenset()
    space_before: bool = False

    @classmethod
    def spelled(
        cls, tok: Token, exact: bool, space_before: bool, hide: frozenset[str] = frozenset()
    ) -> XToken:
        if exact:
            spans = tuple((tok.start + k, tok.start + k + 1) for k in range(len(tok.text)))
        else:
            spans = (INEXACT,) * len(tok.text)
        return cls(tok.kind, tok.text, spans, hide, space_before)


def from_source(text: str, toks: Sequence[Token]) -> list[XToken]:
    """Tokens of the linted file as expansion input (exact spans)."""
    out = []
    prev_end = -1
    for t in toks:
        out.append(XToken.spelled(t, True, prev_end != t.start))
        prev_end = t.end
    return out


class ExpansionError(Exception):
    """The expansion ran past a bound or met something it cannot do exactly."""


class Expander:
    """Expands token sequences with one :class:`MacroTable`, at one offset of the file."""

    def __init__(self, table: MacroTable, at: int, line: int = 0) -> None:
        self.table = table
        self.at = at
        self.line = line
        self.produced = 0
        self.used: list[MacroDef] = []  # every definition that took part, outermost first

    def _def(self, name: str) -> MacroDef | None:
        return self.table.lookup(name, self.at)

    def expand(self, toks: Sequence[XToken]) -> list[XToken]:
        out: list[XToken] = []
        stack = list(reversed(toks))
        while stack:
            t = stack.pop()
            if t.kind != "ident" or t.text in t.hide:
                out.append(t)
                continue
            if t.text == "__LINE__" and self.line:
                out.append(XToken("number", str(self.line), (INEXACT,) * len(str(self.line))))
                continue
            d = self._def(t.text)
            if d is None:
                out.append(t)
                continue
            if len(t.hide) >= MAX_NESTING:
                raise ExpansionError(f"macros nested more than {MAX_NESTING} deep")
            if d.params is None:
                body = self._substitute(d, {}, t.hide | {d.name}, t.space_before)
            else:
                if not stack or stack[-1].text != "(":
                    out.append(t)  # a function-like macro's name without arguments
                    continue
                args = _read_args(stack)
                if args is None:
                    raise ExpansionError(f"unterminated invocation of {d.name}")
                bound = _bind(d, args)
                if bound is None:
                    raise ExpansionError(f"{d.name} takes {len(d.params)} arguments")
                body = self._substitute(d, bound, t.hide | {d.name}, t.space_before)
            self.used.append(d)
            self.produced += len(body)
            if self.produced > MAX_EXPANDED_TOKENS:
                raise ExpansionError("expansion too large")
            stack.extend(reversed(body))
        return out

    def _substitute(
        self,
        d: MacroDef,
        args: dict[str, list[XToken]],
        hide: frozenset[str],
        space_before: bool,
    ) -> list[XToken]:
        exact = d.path == self.table.path or _real(d.path) == _real(self.table.path)
        body = [
            XToken.spelled(t, exact, i > 0 and d.body[i - 1].end != t.start)
            for i, t in enumerate(d.body)
        ]
        expanded: dict[str, list[XToken]] = {}
        out: list[XToken] = []
        params = d.params or ()
        last = params[-1] if params and d.variadic else None
        placemarker = False  # the previous ## operand was an empty argument
        i = 0
        n = len(body)
        while i < n:
            t = body[i]
            if params and t.text in ("#", "%:") and i + 1 < n and body[i + 1].text in args:
                out.append(_stringify(args[body[i + 1].text], t))
                placemarker = False
                i += 2
                continue
            va_opt = t.text == "__VA_OPT__" and last is not None
            if va_opt and i + 1 < n and body[i + 1].text == "(":
                end = _group_end(body, i + 1)
                if last is not None and args.get(last):
                    out.extend(self._substitute_inner(body[i + 2 : end - 1], args, expanded))
                i = end
                continue
            if t.text == "##":
                i += 1
                continue
            pasted_left = i > 0 and body[i - 1].text == "##"
            pasted_right = i + 1 < n and body[i + 1].text == "##"
            if t.kind == "ident" and t.text in args:
                raw = args[t.text]
                if pasted_left or pasted_right:
                    piece = list(raw)
                else:
                    if t.text not in expanded:
                        expanded[t.text] = self.expand(raw)
                    piece = expanded[t.text]
            else:
                piece = [t]
            if pasted_left and out and not placemarker:
                if t.text == last and out[-1].text == ",":
                    if not piece:
                        out.pop()  # GNU `, ## __VA_ARGS__` with no variadic arguments
                else:
                    out, piece = _paste(out, piece)
            placemarker = not piece and pasted_right
            if piece:
                piece = [_with_space(piece[0], t.space_before), *piece[1:]]
            out.extend(piece)
            i += 1
        # a token of the definition's body has no hide set of its own: it shares ``hide``
        result = [
            XToken(x.kind, x.text, x.spans, x.hide | hide if x.hide else hide, x.space_before)
            for x in out
        ]
        if result:
            result[0] = _with_space(result[0], space_before)
        return result

    def _substitute_inner(
        self,
        inner: list[XToken],
        args: dict[str, list[XToken]],
        expanded: dict[str, list[XToken]],
    ) -> list[XToken]:
        out: list[XToken] = []
        for t in inner:
            if t.kind == "ident" and t.text in args:
                if t.text not in expanded:
                    expanded[t.text] = self.expand(args[t.text])
                out.extend(expanded[t.text])
            else:
                out.append(t)
        return out


def _with_space(t: XToken, space: bool) -> XToken:
    if t.space_before == space:
        return t
    return XToken(t.kind, t.text, t.spans, t.hide, space)


def _group_end(toks: Sequence[XToken], open_index: int) -> int:
    depth = 0
    for j in range(open_index, len(toks)):
        if toks[j].text == "(":
            depth += 1
        elif toks[j].text == ")":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(toks)


def _read_args(stack: list[XToken]) -> list[list[XToken]] | None:
    """Pops ``( a, b )`` off the stack (top is the ``(``) and returns the arguments."""
    stack.pop()
    args: list[list[XToken]] = [[]]
    depth = 0
    while stack:
        t = stack.pop()
        if t.text in ("(", "[", "{"):
            depth += 1
        elif t.text in (")", "]", "}"):
            if depth == 0 and t.text == ")":
                return args
            depth -= 1
        elif t.text == "," and depth == 0:
            args.append([])
            continue
        args[-1].append(t)
    return None


def _bind(d: MacroDef, args: list[list[XToken]]) -> dict[str, list[XToken]] | None:
    params = d.params or ()
    if not params:
        return {} if args == [[]] else None
    if not d.variadic:
        return dict(zip(params, args, strict=True)) if len(args) == len(params) else None
    fixed = len(params) - 1
    if len(args) < fixed:
        return None
    bound = {p: args[k] for k, p in enumerate(params[:-1])}
    rest: list[XToken] = []
    for k, a in enumerate(args[fixed:]):
        if k:
            rest.append(XToken("punct", ",", (INEXACT,)))
        rest.extend(a)
    bound[params[-1]] = rest
    return bound


def _stringify(arg: list[XToken], hash_token: XToken) -> XToken:
    """``#param``: the argument's spelling as a string literal, each character mapped."""
    quote_span = hash_token.spans[0] if hash_token.spans else INEXACT
    chars: list[str] = ['"']
    spans: list[Spelling] = [quote_span]
    for k, t in enumerate(arg):
        if k and t.space_before:
            chars.append(" ")
            spans.append(INEXACT)
        literal = t.kind in ("string", "raw", "char")
        for ch, span in zip(t.text, t.spans, strict=False):
            if literal and ch in ('"', "\\"):
                chars.append("\\")
                spans.append(span)
            chars.append(ch)
            spans.append(span)
    chars.append('"')
    spans.append(quote_span)
    return XToken("string", "".join(chars), tuple(spans), frozenset(), hash_token.space_before)


def _paste(out: list[XToken], piece: list[XToken]) -> tuple[list[XToken], list[XToken]]:
    """``left ## right``: the last token of ``out`` and the first of ``piece`` become one."""
    if not piece:
        return out, piece
    left, right = out[-1], piece[0]
    text = left.text + right.text
    relexed = list(tokens(text))
    if len(relexed) != 1:
        raise ExpansionError(f"pasting {left.text!r} and {right.text!r} is not one token")
    joined = XToken(relexed[0].kind, text, left.spans + right.spans, left.hide, left.space_before)
    return out[:-1] + [joined], piece[1:]


# --------------------------------------------------------------------------- virtual text


@dataclass(frozen=True)
class VirtualText:
    """Expanded tokens laid out as text, with each character's source spelling."""

    text: str
    spans: tuple[Spelling, ...]  # per character


def lay_out(toks: Sequence[XToken]) -> VirtualText:
    parts: list[str] = []
    spans: list[Spelling] = []
    previous: XToken | None = None
    for t in toks:
        if previous is not None and (t.space_before or not _stay_apart(previous.text, t.text)):
            parts.append(" ")
            spans.append(INEXACT)
        previous = t
        parts.append(t.text)
        spans.extend(t.spans if len(t.spans) == len(t.text) else (INEXACT,) * len(t.text))
    return VirtualText("".join(parts), tuple(spans))


# --------------------------------------------------------------------------- string pieces


@dataclass(frozen=True)
class ExpandedString:
    """A template or constraint piece that expanded to string literals only."""

    text: str
    starts: list[int]
    ends: list[int]
    used: tuple[MacroDef, ...]


def expand_to_string(
    table: MacroTable,
    text: str,
    toks: Sequence[Token],
    within: tuple[int, int],
    forbidden: frozenset[str] = frozenset(),
) -> ExpandedString | None:
    """Expand the macro piece ``toks`` of a statement; its value when it is string literals.

    Characters spelled inside ``within`` (the piece itself: an argument such as ``u32`` of
    ``STR(u32)``) keep their exact position; all others (a macro body, a header) map to the
    whole piece. ``forbidden`` names parameters of an enclosing ``#define``: a piece that uses
    one has no value until that macro is expanded.
    """
    from ptxlint.frontends.cxx.lexer import decode_string_literal

    if any(t.kind == "ident" and t.text in forbidden for t in toks):
        return None
    if not any(t.kind == "ident" and table.lookup(t.text, within[0]) for t in toks):
        return None
    expander = Expander(table, within[0])
    try:
        out = expander.expand(from_source(text, toks))
    except ExpansionError:
        return None
    if not out or not all(t.kind in ("string", "raw") for t in out):
        return None
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    lo, hi = within
    for t in out:
        decoded = decode_string_literal(Token(t.kind, t.text, 0, len(t.text)))
        if not decoded.terminated:
            return None
        chars.append(decoded.text)
        for a, b in zip(decoded.starts, decoded.ends, strict=True):
            first, last = t.spans[a], t.spans[b - 1]
            if first[0] >= lo and last[1] <= hi and first != INEXACT and last != INEXACT:
                starts.append(first[0])
                ends.append(max(first[0] + 1, last[1]))
            else:
                starts.append(lo)
                ends.append(hi)
    return ExpandedString("".join(chars), starts, ends, tuple(expander.used))


@functools.lru_cache(maxsize=4096)
def _stay_apart(left: str, right: str) -> bool:
    """Whether ``left`` and ``right`` written together still lex as those two tokens.
    Memoised: an expansion asks it for every pair of adjacent tokens that had no space between
    them, by lexing the two again, and the pairs repeat (``(``, ``,``, ``%``, names)."""
    joined = [t.text for t in tokens(left + right)]
    return joined == [left, right]
