"""A small C/C++ lexer for the inside of asm statements and macro bodies.

tree-sitter locates statements and their context, but its grammar gives up on the macros that
real headers put inside asm (``"{" STRINGIFY(op) ".f16 ..."``, ``__LDG_PTR(ptr)``), so the
statement itself is read token by token: that survives any macro and keeps exact offsets.

The same lexing tells the directive scanners which lines are directives: not one inside a
multi-line block comment or raw string (``block_comments``), and, per file, where its
directives of one word are and whether an offset lies in one (``DirectiveLines``).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import NamedTuple

from ptxlint.lazy_regex import on_first_use

# What is skipped between tokens, and the tokens, each alternative tried in this order.
# Runs of plain characters are matched by one character class (``[^x]*(?:\\.[^x]*)*``, not
# ``(?:[^x]|\\.)*``): the same text, without a repetition step per character.
_SKIPPED = r"""
    (?P<ws>(?:[ \t\r\f\v\n]+|\\\r?\n)+)
  | (?P<lcomment>//[^\n\\]*(?:(?:\\\r?\n|\\.)[^\n\\]*)*)
  | (?P<bcomment>/\*.*?(?:\*/|\Z))
"""
_TOKENS = r"""
    (?P<raw>(?:u8|u|U|L)?R"(?P<delim>[^()\\\s"]{0,16})\(.*?\)(?P=delim)")
  | (?P<string>(?:u8|u|U|L)?"[^"\\\n]*(?:(?:\\\r?\n|\\.)[^"\\\n]*)*"?)
  | (?P<char>(?:u8|u|U|L)?'[^'\\\n]*(?:(?:\\\r?\n|\\.)[^'\\\n]*)*'?)
  | (?P<ident>[A-Za-z_$][A-Za-z0-9_$]*)
  | (?P<number>\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.']|\\\r?\n)*)
  | (?P<punct>::|->|\#\#|\.\.\.|<<=|>>=|[-+*/%&|^!=<>]=|&&|\|\||\+\+|--|<<|>>|.)
"""
_TOKEN = on_first_use(_SKIPPED + "|" + _TOKENS, re.S | re.X)  # for identifiers() only
# One match per token: the blanks and comments before it are folded into its match. The skipped
# run is what consecutive ``_TOKEN`` matches of ws/comments would take (each repetition tries the
# alternatives in the same order, and since a token or the end always follows, nothing
# backtracks into it); the token part is optional, for the end of the text.
_NEXT = on_first_use(
    "(?:" + re.sub(r"\(\?P<\w+>", "(?:", _SKIPPED) + ")*(?:" + _TOKENS + ")?", re.S | re.X
)


# A run of what is skipped between tokens (blanks, comments, line continuations), as ``_NEXT``
# skips it: for readers that match tokens themselves.
SKIPPED = on_first_use("(?:" + re.sub(r"\(\?P<\w+>", "(?:", _SKIPPED) + ")*", re.S | re.X)


class Token(NamedTuple):
    # a tuple, not a dataclass: CUTLASS's GMMA header alone has 265,000 of them
    kind: str  # ident | number | string | raw | char | punct
    text: str
    start: int
    end: int


_new_token = tuple.__new__  # what Token's generated __new__ calls, without its Python frame

# For scanners that inline ``tokens`` (the statement reader's hot loop): one ``NEXT_TOKEN()``
# match per token, its ``lastgroup`` the kind ("delim" meaning "raw"), and
# ``new_token(Token, (kind, text, start, end))`` the token.
NEXT_TOKEN = _NEXT
new_token = _new_token


def tokens(text: str, start: int = 0, end: int | None = None) -> Iterator[Token]:
    """Tokens of ``text[start:end]``; whitespace, comments and line continuations are dropped."""
    stop = len(text) if end is None else end
    # Each match starts where the last one ended: a character always follows the skipped run
    # (the last alternative takes any), so only the final match, at the end, can be empty.
    for m in _NEXT().finditer(text, start, stop):
        kind = m.lastgroup
        if kind is None:
            return  # only blanks and comments were left
        if kind == "delim":
            kind = "raw"
        yield _new_token(Token, (kind, m.group(kind), m.start(kind), m.end()))


def identifiers(text: str) -> list[str]:
    """The texts of the identifier tokens of ``text``: ``[t.text for t in tokens(text) if
    t.kind == "ident"]`` without a tuple per token. Every alternative of ``_TOKEN`` matches at
    least one character and the last one any character, so ``finditer`` meets exactly the
    matches that ``tokens`` steps through."""
    if '"' not in text and "'" not in text and "//" not in text and "/*" not in text:
        # no literal and no comment can start: only identifiers, numbers, punctuation and
        # blanks, and of these only a number holds identifier characters (most macro bodies;
        # a header's are all read here once: the CUDA 13 headers' 7,300 bodies, below)
        return [m.group(1) for m in _WORD_OR_NUMBER().finditer(text) if m.group(1)]
    return [m.group() for m in _TOKEN().finditer(text) if m.lastgroup == "ident"]


# ``_TOKEN``'s identifiers and numbers alone, for text without quotes or comments: every other
# token is punctuation or blanks, which hold no character that starts either, so a search
# steps over them and meets the same identifiers and numbers as the lexer (the number
# pattern is ``_TOKENS``' without the digit separator ``'``, which such text lacks).
# Reading the identifiers of the CUDA 13 headers' 7,259 macro bodies (274 hold a quote or a
# comment): 22 ms -> 14 ms of CPU.
_WORD_OR_NUMBER = on_first_use(
    r"([A-Za-z_$][A-Za-z0-9_$]*)|\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.]|\\\r?\n)*"
)


# --------------------------------------------------------------------------- string literals

_SIMPLE_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_OCTAL = on_first_use(r"[0-7]{1,3}")
_HEX = on_first_use(r"[0-9A-Fa-f]+")
_CONTINUATION = on_first_use(r"\\\r?\n")


# A plain class (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class DecodedString:
    """A string literal's value with, per character, the source characters that spell it."""

    __slots__ = ("text", "starts", "ends", "terminated")

    def __init__(
        self, text: str, starts: Sequence[int], ends: Sequence[int], terminated: bool,
    ) -> None:
        self.text = text
        # source offset where each decoded character's spelling starts and ends: ranges for a
        # literal without escapes (no list of one integer per character), lists otherwise
        self.starts = starts
        self.ends = ends
        self.terminated = terminated


def decode_string_literal(token: Token) -> DecodedString:
    """Decode a (raw) string literal token, mapping every character back to its spelling."""
    text, base = token.text, token.start
    if token.kind == "raw":
        open_quote = text.index('"')
        paren = text.index("(", open_quote)
        delim = text[open_quote + 1 : paren]
        body_start = paren + 1
        body_end = len(text) - len(delim) - 2
        body = text[body_start:body_end]
        return DecodedString(
            body,
            range(base + body_start, base + body_end),
            range(base + body_start + 1, base + body_end + 1),
            True,
        )

    open_quote = text.index('"')
    terminated = len(text) > open_quote + 1 and text.endswith('"') and not _escaped_end(text)
    body_end = len(text) - 1 if terminated else len(text)
    body_start = open_quote + 1
    if "\\" not in text[body_start:body_end]:
        return DecodedString(
            text[body_start:body_end],
            range(base + body_start, base + body_end),
            range(base + body_start + 1, base + body_end + 1),
            terminated,
        )

    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    i = body_start
    while i < body_end:
        plain = text.find("\\", i, body_end)
        if plain == -1:
            plain = body_end
        if plain > i:  # a run without escapes, copied whole
            out.append(text[i:plain])
            starts.extend(range(base + i, base + plain))
            ends.extend(range(base + i + 1, base + plain + 1))
            i = plain
            continue
        if i + 1 >= body_end:
            out.append("\\")
            starts.append(base + i)
            ends.append(base + i + 1)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in "\r\n":  # line continuation inside the literal: spliced away
            m = _CONTINUATION().match(text, i)
            i = m.end() if m else i + 2
            continue
        if nxt in _SIMPLE_ESCAPES:
            value, length = _SIMPLE_ESCAPES[nxt], 2
        elif nxt in "01234567":
            m = _OCTAL().match(text, i + 1, body_end)
            assert m is not None
            value, length = chr(int(m.group(), 8)), 1 + len(m.group())
        elif nxt == "x" and (m := _HEX().match(text, i + 2, body_end)):
            value, length = chr(int(m.group(), 16) & 0x10FFFF), 2 + len(m.group())
        elif nxt in "uU":
            width = 4 if nxt == "u" else 8
            digits = text[i + 2 : i + 2 + width]
            if len(digits) == width and _HEX().fullmatch(digits):
                value, length = chr(min(int(digits, 16), 0x10FFFF)), 2 + width
            else:
                value, length = nxt, 2
        else:  # unknown escape: compilers keep the character and warn
            value, length = nxt, 2
        out.append(value)
        starts.append(base + i)
        ends.append(base + i + length)
        i += length
    return DecodedString("".join(out), starts, ends, terminated)


@lru_cache(maxsize=4096)
def literal_value(kind: str, text: str) -> str:
    """The decoded value of a string literal token (``decode_string_literal(t).text``),
    memoised: constraint and clobber strings ("+r", "l", "memory") repeat thousands of times."""
    return decode_string_literal(Token(kind, text, 0, len(text))).text


def _escaped_end(text: str) -> bool:
    """Whether the final quote is itself escaped (an unterminated literal like ``"abc\\"``)."""
    backslashes = 0
    i = len(text) - 2
    while i >= 0 and text[i] == "\\":
        backslashes += 1
        i -= 1
    return backslashes % 2 == 1


# --------------------------------------------------------------------------- hidden spans


class BlockComments:
    """What of one text spans lines and hides them from the directive scanners: its
    multi-line block comments, and its multi-line raw string literals where asked for.
    Comments become one space in translation phase 3, before directives are recognised in
    phase 4, so a `#` inside one starts no directive (``#if 0``, ``#define``, ``#include``
    commented out); a raw string's body is a literal's, never a line of its own
    (``R"(\\n#include "x.h"\\n)"``). Only spans that hold a line break can hold the start of
    a line, so only those are kept."""

    __slots__ = ("_starts", "_ends")

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self._starts = [s for s, _ in spans]
        self._ends = [e for _, e in spans]

    def __bool__(self) -> bool:
        return bool(self._starts)

    def hides(self, offset: int) -> bool:
        """Whether ``offset`` lies inside one of the spans, its ``/*`` and ``*/`` (a raw
        string's prefix and closing quote) included."""
        i = bisect.bisect_right(self._starts, offset) - 1
        return i >= 0 and offset < self._ends[i]


_NO_BLOCK_COMMENTS = BlockComments([])
# Before a ``/*``, what can make an even number of quotes not mean whole string literals (a
# character literal, an escape, a raw string) or start a line comment: a line with an even
# number of quotes and none of these before its ``/*`` is not lexed (``block_comments``). Most
# ``/*`` of the CUDA 13 headers' asm files follow a string on their line (``"r"(/*as_b32*/
# ...)``): all of ``block_comments`` over those 110 files took 13.8-14.1 ms of CPU with each
# line lexed, 6.9-7.2 ms so (best of 5, twice each).
_NOT_PLAIN = on_first_use(r"['\\]|//|R\"")
# Searched by the regex engine, not ``str.find``: 0.8 ms against 2.3 ms over the 2.9 MB of
# CUTLASS's mma_sm90_gmma_sparse_ext.hpp, whose only ``/*`` is its licence at the top.
COMMENT_OPENER = on_first_use(r"/\*")
# A raw string literal's ``R"delim(`` (its encoding prefix is read backwards from the ``R``):
# a pattern that starts with its literal, so most texts cost one search that finds nothing.
_RAW_OPENER = on_first_use(r'R"([^()\\\s"]{0,16})\(')
_RAW_PREFIXES = ("", "u8", "u", "U", "L")


def block_comments(text: str, raw_strings: bool = False) -> BlockComments:
    """The multi-line block comments of ``text`` (``BlockComments``), and with
    ``raw_strings`` its multi-line raw string literals. Only each ``/*`` (and ``R"delim(``) is
    looked at, not every character: one opens a comment or a raw string unless it lies
    inside a string or character literal, a ``//`` comment, a block comment or a raw string,
    and those (continued lines aside) start on its own logical line, so that line's start up
    to the opener is lexed (``_TOKEN``; not where ``_NOT_PLAIN`` says it need not be).

    Raw strings are asked for by a linted file's directive lines (``DirectiveLines``, which
    its ``#if`` walks and ``#define`` scan read): finding them is one more search of the whole
    text, about 5 instructions a character (the ``/*`` search stops at the last comment), 116
    million of the CUDA 13 headers' 19.3 billion (``-j 1``, cachegrind) where every header
    read for its definitions paid it too."""
    opener = COMMENT_OPENER().search
    raw_opener = _RAW_OPENER().search
    found = opener(text)
    raw = raw_opener(text) if raw_strings else None
    if found is None and raw is None:
        return _NO_BLOCK_COMMENTS
    spans: list[tuple[int, int]] = []
    find = text.find
    token = _TOKEN().match
    not_plain = _NOT_PLAIN().search
    done = 0  # where the last comment or raw string ended: what precedes is lexed already
    while found is not None or raw is not None:
        if raw is not None and (found is None or raw.start() < found.start()):
            r = raw.start()
            at = _raw_start(text, r)
            end = _opened_at(text, at, "raw", done, token, not_plain) if at >= done else -1
            if end < 0:  # an identifier's R, or inside a literal or comment
                raw = raw_opener(text, r + 1)
                continue
        else:
            assert found is not None
            at = found.start()
            end = _opened_at(text, at, "bcomment", done, token, not_plain)
            if end < 0:  # inside a literal or a // comment
                found = opener(text, at + 1)
                continue
        if find("\n", at, end) >= 0:
            spans.append((at, end))
        done = end
        if found is not None and found.start() < end:
            found = opener(text, end)
        if raw is not None and raw.start() < end:
            raw = raw_opener(text, end)
    return BlockComments(spans) if spans else _NO_BLOCK_COMMENTS


def _raw_start(text: str, r: int) -> int:
    """Where a raw string whose ``R`` is at ``r`` starts: at its encoding prefix, or -1 where
    the ``R`` ends an identifier (``FOOR"(x)"`` is a name and a string)."""
    word = r
    while word > 0 and (text[word - 1].isalnum() or text[word - 1] in "_$"):
        word -= 1
    return word if text[word:r] in _RAW_PREFIXES else -1


def _opened_at(
    text: str,
    at: int,
    kind: str,
    done: int,
    token: Callable[[str, int], re.Match[str] | None],
    not_plain: Callable[[str, int, int], re.Match[str] | None],
) -> int:
    """The end of the comment (``kind`` "bcomment") or raw string ("raw") that starts at
    ``at``, or -1 where ``at`` lies inside a literal or a ``//`` comment (or is no start)."""
    if at < 0:
        return -1
    start = text.rfind("\n", 0, at) + 1
    while start >= 2 and text[start - 2] == "\\":  # a continued line: its first line
        start = text.rfind("\n", 0, start - 2) + 1
    pos = max(start, done)
    # through ``at + 1``: in `//*` the opener's `/` ends a `//` that starts a line comment
    if not text.count('"', pos, at) % 2 and not_plain(text, pos, at + 1) is None:
        # only whole string literals before it, without escapes: it opens what it spells
        if kind == "bcomment":
            close = text.find("*/", at + 2)
            return len(text) if close < 0 else close + 2
        m = token(text, at)
        return m.end() if m is not None and m.lastgroup == "raw" else -1
    n = len(text)
    while pos < n:
        m = token(text, pos)
        if m is None:  # unreachable: the last alternative takes any character
            return -1
        if m.end() > at:
            return m.end() if m.start() == at and m.lastgroup == kind else -1
        pos = m.end()
    return -1


# --------------------------------------------------------------------------- directive lines

# What may stand between a logical line's start and its `#`: blanks, and line splices.
_BEFORE_HASH = on_first_use(r"(?:[ \t]|\\\r?\n)*#")
# A directive's word, from its `#`.
_DIRECTIVE_WORD = on_first_use(r"#[ \t]*([A-Za-z_]\w*)?")


class DirectiveLines:
    """The preprocessor directive lines of one text, for every scanner that asks where they
    are: a `#` starts a directive where only blanks precede it on its logical line (physical
    lines joined at each backslash-newline, translation phase 2) and no multi-line block
    comment or raw string literal holds it (``block_comments``: phases 3 and 4). The text's
    ``block_comments`` are read here once, when a `#` first needs them, and the directives of
    each word asked for (``named``) once: the file's ``#error`` lines are found once for the
    targets it excludes (``ptx.targets``) and its host-only verdict (``host_code``), where
    each searched the text for them. Over the asm files of the CUDA 13 headers and of
    CUTLASS include/, that work (the hidden spans, raw strings now among them, and the
    ``#error`` lines) took 14.0 and 16.4 ms of CPU, 12.5 and 12.8 ms so (least of 7). Held by
    the file's ``FileGuards`` (``guards_of`` keeps the last few), one per text."""

    __slots__ = ("text", "_hidden", "_named", "_lines")

    def __init__(self, text: str, hidden: BlockComments | None = None) -> None:
        self.text = text
        self._hidden = hidden
        self._named: dict[str, tuple[int, ...]] = {}
        self._lines: list[tuple[int, int, str]] | None = None

    @property
    def hidden(self) -> BlockComments:
        """The text's multi-line block comments and raw strings (``block_comments``)."""
        if self._hidden is None:
            self._hidden = block_comments(self.text, raw_strings=True)
        return self._hidden

    def line_start(self, at: int) -> int:
        """Where the logical line starts of the directive whose `#` is at ``at``, or -1 where
        that `#` starts none (code before it on its logical line, or hidden)."""
        text = self.text
        rfind = text.rfind
        start = rfind("\n", 0, at) + 1
        if start != at and text[start:at].strip(" \t"):
            return -1
        # back over the continued lines before, while they are blank
        while (splice := _splice_before(text, start)) >= 0:
            before = rfind("\n", 0, splice) + 1
            if text[before:splice].strip(" \t"):
                return -1
            start = before
        hidden = self.hidden
        return -1 if hidden and hidden.hides(at) else start

    def named(self, word: str) -> tuple[int, ...]:
        """The `#` of each directive ``word`` (``error``, ``pragma``), in text order."""
        found = self._named.get(word)
        if found is None:
            # one search from `#` to `#` (a pattern that starts with its literal), as fast as
            # ``word in text`` over files that never spell the word; re's cache keeps it
            spelled = re.compile(r"#[ \t]*" + re.escape(word) + r"\b")
            line_start = self.line_start
            found = self._named[word] = tuple(
                m.start() for m in spelled.finditer(self.text) if line_start(m.start()) >= 0
            )
        return found

    def lines(self) -> list[tuple[int, int, str]]:
        """Every directive as ``(hash, end, word)``: its `#`, the line break that ends its
        logical line (the text's end where none does; a line break inside a comment on the
        line ends it too: phase 2 joins only backslash-newlines), and the word after the `#`
        ("" where none follows), in text order. For the readers that walk them all
        (``function_spans``)."""
        if self._lines is None:
            text = self.text
            find = text.find
            n = len(text)
            line_start = self.line_start
            out: list[tuple[int, int, str]] = []
            word = _DIRECTIVE_WORD().match
            at = find("#")
            while at >= 0:
                if line_start(at) < 0:
                    at = find("#", at + 1)
                    continue
                end = find("\n", at)
                while end >= 0 and (
                    text[end - 1] == "\\" or (text[end - 1] == "\r" and text[end - 2] == "\\")
                ):
                    end = find("\n", end + 1)
                if end < 0:
                    end = n
                found = word(text, at)
                out.append((at, end, (found.group(1) or "") if found else ""))
                at = find("#", end)
            self._lines = out
        return self._lines

    def holding(self, offset: int) -> int:
        """The `#` of the directive whose logical line holds ``offset`` after its `#`, or -1
        where none does: ``#define NAME(...)``'s name, a ``#define``'s continued body."""
        text = self.text
        start = text.rfind("\n", 0, offset) + 1
        while (splice := _splice_before(text, start)) >= 0:  # its first physical line
            start = text.rfind("\n", 0, splice) + 1
        m = _BEFORE_HASH().match(text, start, offset)
        if m is None:
            return -1
        at = m.end() - 1
        return at if self.line_start(at) >= 0 else -1


def _splice_before(text: str, start: int) -> int:
    """The backslash of the line splice that ends the line before the one at ``start``, or
    -1 where that line is not continued."""
    if start >= 2 and text[start - 2] == "\\":
        return start - 2
    if start >= 3 and text[start - 2] == "\r" and text[start - 3] == "\\":
        return start - 3
    return -1
