r"""The ``#define``\ s of one file, read from its text: each macro's parameters, body tokens and
where they are spelled, with the limits that keep a hostile header linear."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import field

from ptxlint.frontends.cxx.guards import FileGuards, guards_of
from ptxlint.frontends.cxx.lexer import (
    COMMENT_OPENER,
    BlockComments,
    Token,
    block_comments,
    identifiers,
    tokens,
)
from ptxlint.lazy_regex import on_first_use
from ptxlint.value_class import value_class

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
# is taken a run of plain characters per step, not one character per step. A backslash-newline
# is deleted before directives are read (translation phase 2), so one may stand wherever a
# blank may, between the `#` and the directive's name too.
_DIRECTIVE = on_first_use(
    r"#(?:[ \t]|\\\r?\n)*(define|undef|include)\b((?:[^\n\\]+|\\\r?\n?|\\.)*)"
)


# `#include "x.h"`, and `#include <project/x.h>`: both are looked up in the including file's
# folder and the folders above it (a project's own include root), never in system folders.
# Blanks and line splices may stand before the name (``#include \`` and the name on the next
# line); a splice inside the name is not joined (no file is named so).
INCLUDE = on_first_use(r'^(?:\s|\\\r?\n)*(?:"([^"\n]+)"|<([^>\n]+)>)')


_DEFINE_HEAD = on_first_use(r"(?:\s|\\\r?\n)*([A-Za-z_$][\w$]*)(\()?")


Spelling = tuple[int, int]  # a half-open source range in the file being linted


INEXACT: Spelling = (-1, -1)  # spelled outside the file: the caller substitutes the invocation


class _Origin:
    """The file a definition was read from, for what only a few definitions are ever asked:
    their line and their ``#if`` guards. A file's hundreds of definitions cost one regex pass
    when read; the guards are worked out when one of its definitions is looked up
    (``FileGuards.conditions_at``: the linted file's from the walk its statements' guards
    read, a header's from a walk of its directives that stops once the first definition asked
    about is answered). A header's text is not kept meanwhile: it is read again then (a run
    does not see its headers change)."""

    __slots__ = ("path", "_text", "_guards", "_starts")

    def __init__(self, path: str, text: str | None) -> None:
        self.path = path
        self._text = text  # None: a header, read again on demand
        self._guards: FileGuards | None = None
        self._starts: list[int] | None = None

    def _load(self) -> FileGuards:
        if self._guards is None:
            if self._text is not None:  # the linted file: the walk its statements' guards read
                self._guards = guards_of(self._text)
            else:
                self._guards = FileGuards(read_header(self.path) or "")
        return self._guards

    def line(self, offset: int) -> int:
        # made apart from the guards, which are asked far more often: over CUTLASS's
        # include/, 100 files' guards and one definition's line (the line starts of the 12
        # files whose guards were asked, GMMA's 60,000-line headers among them, took 14 ms)
        if self._starts is None:
            self._starts = _line_starts(self._load().text)
        return _line_of(self._starts, offset)

    def guards(self, offset: int) -> tuple[str, ...]:
        return self._load().conditions_at(offset)


@value_class
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

    def memo(self, key: str, make: Callable[[], object]) -> object:
        """What ``make`` gives, made on the first call with ``key`` and kept with the
        definition (its readers' views of the body: expansion tokens, ``macros``)."""
        found = self._lazy.get(key)
        if found is None:
            found = self._lazy[key] = make()
        return found

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


# One ``#define`` as ``collect`` read it, before it is made a ``MacroDef``: name, parameters,
# variadic, spelling, offset, start, end (``MacroDef``'s fields, in order).
_Read = tuple[str, "tuple[str, ...] | None", bool, str, int, int, int]


class HeaderDefines(Mapping[str, "list[MacroDef]"]):
    """A header's definitions by name, each name's ``MacroDef`` objects made the first time the
    name is looked up (the same objects afterwards). Most of a header's definitions are only ever
    read for their names and body identifiers (``names_and_bodies``: the include closure's
    asm facts, the index of who defines what); a macro table looks up a few names of each
    header. Reading the directives of the CUDA 13 headers' 1,887 files took 50-52 ms of CPU
    with every definition made, 39 ms so; a run makes only the ones looked up."""

    __slots__ = ("_read", "_made", "_path", "_origin")

    def __init__(self, read: dict[str, list[_Read]], path: str, origin: _Origin) -> None:
        self._read = read
        self._made: dict[str, list[MacroDef]] = {}
        self._path = path
        self._origin = origin

    def __getitem__(self, name: str) -> list[MacroDef]:
        made = self._made.get(name)
        if made is None:
            made = self._made[name] = _made(self._read[name], self._path, self._origin)
        return made

    def get(self, name: str, default: object = None) -> list[MacroDef] | None:  # type: ignore[override]
        return self[name] if name in self._read else default  # type: ignore[return-value]

    def __contains__(self, name: object) -> bool:
        return name in self._read

    def __iter__(self) -> Iterator[str]:
        return iter(self._read)

    def __len__(self) -> int:
        return len(self._read)

    def names_and_bodies(self) -> Iterator[tuple[str, str]]:
        for name, read in self._read.items():
            for one in read:
                yield name, one[3]


def _made(read: list[_Read], path: str, origin: _Origin) -> list[MacroDef]:
    return [
        MacroDef(
            name=name, params=params, variadic=variadic, spelling=spelling, offset=offset,
            path=path, start=start, end=end, origin=origin,
        )
        for name, params, variadic, spelling, offset, start, end in read
    ]


# A plain class (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class FileDefines:
    """The directives of one file, in text order."""

    __slots__ = ("path", "text", "defines", "undefs", "includes", "asm_facts")

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        # a plain dict for a file read with its text (the linted file: every definition is
        # asked for), a ``HeaderDefines`` for a header
        self.defines: Mapping[str, list[MacroDef]] = {}
        self.undefs: dict[str, list[int]] = {}
        self.includes: list[str] = []  # quoted include names
        self.asm_facts: tuple[set[str], dict[str, set[str]]] | None = None  # see _asm_facts

    def names_and_bodies(self) -> Iterator[tuple[str, str]]:
        """Each definition's name and body as written (``MacroDef.spelling``), without
        making the ``MacroDef`` objects a header has not made yet."""
        defines = self.defines
        if isinstance(defines, HeaderDefines):
            yield from defines.names_and_bodies()
            return
        for name, definitions in defines.items():
            for d in definitions:
                yield name, d.spelling


def collect(path: str, text: str, keep_text: bool = True) -> FileDefines:
    """One pass over ``text`` for its #define, #undef and #include "..." directives: O(text)
    for the directive scan plus O(body) per definition; lines and guards come later, per file,
    when a definition is looked up (``_Origin``). Without ``keep_text`` (a header) the text
    is not held: it is read again if one of its definitions is looked up, and its
    ``MacroDef`` objects are made per name when looked up (``HeaderDefines``)."""
    out = FileDefines(path, text)
    if "#" not in text:
        return out
    origin = _Origin(path, text if keep_text else None)
    read: dict[str, list[_Read]] = {}
    # a linted file's block comments are its guards' (one scan for both); a header has no guards
    hidden = guards_of(text).comments if keep_text else _hiding_comments(text)
    for start, m in _directives(text, hidden):
        kind, rest = m.group(1), m.group(2)
        if kind == "include":
            name = _include_name(rest)
            if name is not None:
                out.includes.append(name)
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
        end = m.end()
        one = (name, params, variadic, text[body_start:end], body_start, start, end)
        found = read.get(name)
        if found is None:
            read[name] = [one]
        else:
            found.append(one)
    if keep_text:
        out.defines = {name: _made(each, path, origin) for name, each in read.items()}
    else:
        out.defines = HeaderDefines(read, path, origin)
    return out


def _directives(
    text: str, hidden: BlockComments | None = None
) -> Iterator[tuple[int, re.Match[str]]]:
    """The ``#define``/``#undef``/``#include`` directives of ``text`` with their start (their
    line's): each a `#` with only blanks before it on its line (what ``^[ \t]*#`` in
    multi-line mode finds) and outside a block comment (``lexer.block_comments``), in text
    order, the next searched after the end of the last one (its continuation lines
    included). ``hidden``: the text's block comments, where the caller has them."""
    search = _DIRECTIVE().search
    if hidden is None:
        hidden = _hiding_comments(text)
    pos = 0
    while True:
        m = search(text, pos)
        if m is None:
            return
        start = m.start()
        line_start = text.rfind("\n", 0, start) + 1
        if (line_start == start or not text[line_start:start].strip(" \t")) and not (
            hidden and hidden.hides(start)
        ):
            yield line_start, m
            pos = m.end()
        else:
            # a `#` inside a line or a comment: what follows may still hold a directive
            pos = start + 1


def include_names(text: str) -> list[str]:
    """The names the ``#include`` directives of ``text`` bring, in text order: the one reader
    of a file's includes, for its macro table (``collect``: its ``includes``) and for the
    prefilter's question about it alike, so both follow the same headers (one directive scan,
    no definitions built)."""
    if "#" not in text:
        return []
    names = []
    for _, m in _directives(text):
        if m.group(1) == "include":
            name = _include_name(m.group(2))
            if name is not None:
                names.append(name)
    return names


def include_offsets(text: str) -> list[tuple[int, str]]:
    """``include_names`` with the offset of each directive's line."""
    if "#" not in text:
        return []
    found = []
    for start, m in _directives(text):
        if m.group(1) == "include":
            name = _include_name(m.group(2))
            if name is not None:
                found.append((start, name))
    return found


def _include_name(rest: str) -> str | None:
    """The name an ``#include`` directive brings, from what follows its ``include``."""
    inc = INCLUDE().match(rest)
    return None if inc is None else inc.group(1) or inc.group(2)


_NO_COMMENTS = BlockComments([])


def _hiding_comments(text: str) -> BlockComments:
    """The block comments of ``text`` (``lexer.block_comments``) where one of them may hide a
    directive, else none: a comment hides one only where a `#` lies inside it, and each
    comment runs from a ``/*`` to the first ``*/`` after it, so where no such stretch of the
    text holds a `#` (whether each ``/*`` opens a comment or lies in a literal) none does,
    and the text is not lexed for them. Over the CUDA 13 headers' 1,887 files (92 of which
    have a `#` in such a stretch) ``block_comments`` of each took 0.054 s of CPU, this 0.018 s;
    over CUTLASS include/'s 825 (2 of them), 0.031 s and 0.018 s."""
    opener, closer, find = COMMENT_OPENER().search, _COMMENT_CLOSER().search, text.find
    found = opener(text)
    while found is not None:
        at = found.start()
        close = closer(text, at + 2)
        end = len(text) if close is None else close.start()
        if find("#", at, end) >= 0:
            return block_comments(text)
        # a ``/*`` inside this stretch ends at the same ``*/``: it holds no `#` either
        found = opener(text, end + 2)
    return _NO_COMMENTS


# searched by the regex engine, not ``str.find``: a third of the time over long texts (the
# opener is the lexer's)
_COMMENT_CLOSER = on_first_use(r"\*/")


def _line_starts(text: str) -> list[int]:
    """Where each line starts: 0, and one past each "\n" (found by one regex scan: a ``find``
    per line from Python took 18 ms for the three GMMA headers of CUTLASS, 60,000 lines
    each, whose definitions were looked up; this takes 10)."""
    return [0, *[m.end() for m in _NEWLINE().finditer(text)]]


_NEWLINE = on_first_use("\n")


def _line_of(starts: list[int], offset: int) -> int:
    import bisect

    return bisect.bisect_right(starts, offset)


def read_header(
    path: str, digests: dict[str, bytes] | None = None, limit: int | None = None
) -> str | None:
    """The text of ``path``, None where it cannot be read or is over ``limit`` bytes."""
    data = read_header_bytes(path, digests, limit)
    return None if data is None else data.decode("utf-8", "replace")


# binary on Windows too, where a descriptor opened without it reads as text
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0)


def read_header_bytes(
    path: str, digests: dict[str, bytes] | None = None, limit: int | None = None
) -> bytes | None:
    """The bytes of ``path``, None where it cannot be read or is over ``limit`` bytes (asked
    of the open file: one system call fewer per header than a ``stat`` of the path first).
    Read through the descriptor, as many bytes as its stat gives and one more: no buffered
    file object per header, and no second read to find the end of a file that is as large as
    its stat says (one that grew since, or read short, is read on to its end). The CUDA 13
    headers' 1,887 files, read warm: 21-24 ms -> 14-15 ms of CPU."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        if limit is not None and size > limit:
            return None
        data = os.read(fd, size + 1)
        if len(data) != size:  # grown, or a short read: read on to the end
            chunks = [data]
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            data = b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)
    note_digest(path, data, digests)
    return data


def note_digest(path: str, data: bytes, digests: dict[str, bytes] | None) -> None:
    """Record the SHA-256 of ``data``, read of ``path``, in ``digests`` when it is kept."""
    if digests is not None:
        import hashlib  # only a run with the result cache keeps digests

        digests[path] = hashlib.sha256(data).digest()
