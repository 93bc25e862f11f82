"""Where a name occurs in a file's bytes as a whole token: a plain search of a range, and
``Chunks``, the file cut into pieces with the set of tokens of each, which a search reads only
where the name is. Value flow (``value_flow``) decides which of the two to use per file (the
ski-rental rule of ``_FileFacts._search``); the costs it weighs are measured in its docstring.
"""

from __future__ import annotations

import bisect
import operator
from itertools import compress, repeat

from ptxlint.lazy_regex import on_first_use

__all__ = ["RAW_HIT_BYTES", "SEARCH_BUDGET", "WORD_OR_DOLLAR", "Chunks", "IDENTIFIER",
           "token_search", "token_starts"]

IDENTIFIER = on_first_use(rb"[A-Za-z_]\w*")
# What a search costs, in bytes scanned: each raw occurrence of the name (a hit that may sit
# inside a longer word) costs as much as this many bytes (150 ns against 0.37 ns).
RAW_HIT_BYTES = 400
# Building a file's ``Chunks`` costs about 14 searches of the file (5 ns a byte; the
# sets of whole tokens, 7.6-8.2 ns a byte on csrc/kda's largest files, against 1.1 ns a byte
# for a search of a common name there): the file is searched without them until its searches
# have cost this many times its bytes.
SEARCH_BUDGET = 12
_DIGITS = frozenset(b"0123456789")
_WORD_START = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_WORD = _DIGITS | _WORD_START
WORD_OR_DOLLAR = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$")


def token_starts(data: bytes, name: bytes, start: int = 0, end: int | None = None) -> list[int]:
    """Where ``name`` is a whole token inside ``data[start:end]`` (see ``token_search``)."""
    return token_search(data, name, start, end)[0]


def token_search(
    data: bytes, name: bytes, start: int = 0, end: int | None = None
) -> tuple[list[int], int]:
    """Where ``name`` is a whole match of ``IDENTIFIER.finditer(data)``, inside
    ``data[start:end]``: what a search from the file's start would find there. Such a match ends
    before a non-word byte, and starts where no earlier match runs on: after a non-word byte, or
    after digits that no letter precedes in their word ("9abc" holds the token "abc"; "a9bc"
    does not). The bytes around the range are read as the whole file's search reads them.

    O(end - start) in C for the search, plus a few steps per raw occurrence of ``name``: the
    second number is how many raw occurrences there were (what the search cost, with the
    range's bytes)."""
    if IDENTIFIER().fullmatch(name) is None:
        return [], 0
    out: list[int] = []
    raw = 0
    size = len(name)
    total = len(data)
    if end is None:
        end = total
    find = data.find
    at = find(name, start, end)
    while at >= 0:
        raw += 1
        after = at + size
        if after == total or data[after] not in _WORD:
            before = at - 1
            while before >= 0 and data[before] in _DIGITS:
                before -= 1
            if before < 0 or data[before] not in _WORD_START:
                out.append(at)
        at = find(name, at + size, end)
    return out, raw


# Word bytes stay, every other byte becomes a blank: the blank-separated words are the maximal
# ``[A-Za-z0-9_]`` runs, and each one's token is the run without its leading digits ("9abc"
# holds "abc", "0x1f" holds "x1f"; a run of digits holds none).
_WORDS_ONLY = bytes(c if c in _WORD else 32 for c in range(256))
_DIGIT_BYTES = b"0123456789"
_FIRST_LETTER = ord("A")  # every word byte below it is a digit
_CHUNK_BYTES = 8192


class Chunks:
    """A file cut into pieces of about ``_CHUNK_BYTES`` (each cut at a non-word byte, so that
    no token straddles two), with the set of tokens of each: where a name occurs.

    Built in C (translate, split, set) plus a look at each piece's distinct words that start
    with digits, it tells a search which pieces to read: a name costs a look-up per piece and a
    search of the pieces that hold it. The sets hold whole tokens: sets of their letters before
    the first digit (an earlier design) left every piece to be read for names such as ``q17``
    among ``q0`` ... ``q4000``, making a function of many such names quadratic."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        words = data.translate(_WORDS_ONLY)
        size = len(data)
        starts = [0]
        cut = words.find(b" ", _CHUNK_BYTES)
        while cut >= 0:
            starts.append(cut)
            cut = words.find(b" ", cut + _CHUNK_BYTES)
        self.starts = starts
        self.ends = starts[1:] + [size]
        self.words: list[set[bytes]] = []
        for a, b in zip(starts, self.ends, strict=True):
            tokens = set(words[a:b].split())
            # A word led by digits holds the token after them: read from the piece's distinct
            # words (a few hundred), not by a regex over its bytes (three times the cost).
            tokens.update([w.lstrip(_DIGIT_BYTES) for w in tokens if w[0] < _FIRST_LETTER])
            tokens.discard(b"")  # from a word of digits alone
            self.words.append(tokens)

    def token_starts(self, name: bytes, start: int, end: int) -> list[int]:
        """``token_search(data, name, start, end)``, reading only the pieces that hold the
        token ``name``."""
        if IDENTIFIER().fullmatch(name) is None:
            return []
        first = bisect.bisect_right(self.starts, start) - 1
        last = bisect.bisect_left(self.starts, end)
        out: list[int] = []
        starts, ends = self.starts, self.ends
        for k in compress(
            range(first, last), map(operator.contains, self.words[first:last], repeat(name))
        ):
            out += token_starts(self.data, name, max(starts[k], start), min(ends[k], end))
        return out

