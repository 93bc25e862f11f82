"""Offsets <-> LSP positions, and applying LSP text changes.

ptxlint's spans are offsets into a Python ``str``: code points. An LSP position is a line and a
*character* counted in the negotiated encoding's code units: UTF-16 by default (an emoji is two
units), UTF-8 or UTF-32 when client and server agree on it. Lines break at ``\\n``, ``\\r\\n``
and ``\\r`` and nowhere else (the spec's list; ``str.splitlines`` would also break at form feeds
and U+2028, which editors do not, and every position after one would be off by a line).

Out-of-range positions are clamped like the spec asks: a character past the end of its line
means the end of the line, a line past the end means the end of the text. A position inside a
UTF-16 surrogate pair or a UTF-8 sequence rounds down to the start of its code point.
"""

from __future__ import annotations

import bisect
import re
from functools import cached_property

from ptxlint.model import line_starts
from ptxlint.value_class import value_class

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"
ENCODINGS = (UTF8, UTF16, UTF32)

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def units(text: str, encoding: str = UTF16) -> int:
    """How many code units of ``encoding`` ``text`` takes."""
    if encoding == UTF32 or text.isascii():
        return len(text)
    if encoding == UTF16:
        return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    raise ValueError(f"unknown position encoding {encoding!r}")


def _char_units(char: str, encoding: str) -> int:
    code = ord(char)
    if encoding == UTF16:
        return 2 if code > 0xFFFF else 1
    if encoding == UTF8:
        return 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
    return 1


def sanitize(text: str) -> str:
    """Replace lone surrogates (JSON allows ``"\\udc80"``) by U+FFFD, one character for one.

    They cannot be encoded to UTF-8 for the parser; the replacement keeps every offset and every
    position of the text unchanged.
    """
    return _LONE_SURROGATE.sub("\ufffd", text) if _LONE_SURROGATE.search(text) else text


@value_class(slots=False)
class LineIndex:
    """Line starts of one text, for converting in both directions."""

    text: str

    @cached_property
    def line_starts(self) -> list[int]:
        return line_starts(self.text)  # the model's rule: CLI and editor agree on every line

    def _content_end(self, line: int) -> int:
        """Where ``line``'s content ends, before its line break (one line at a time: a
        whole-file table cost more than the re-lint after a keystroke)."""
        starts = self.line_starts
        if line + 1 >= len(starts):
            return len(self.text)
        end = starts[line + 1] - 1
        if self.text[end] == "\n" and end > starts[line] and self.text[end - 1] == "\r":
            end -= 1
        return end

    def position(self, offset: int, encoding: str = UTF16) -> tuple[int, int]:
        """The 0-based ``(line, character)`` of code-point ``offset``."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.line_starts, offset) - 1
        start = self.line_starts[line]
        # An offset between "\r" and "\n" is not a position an editor has: take the line end.
        offset = min(offset, self._content_end(line))
        return line, units(self.text[start:offset], encoding)

    def offset(self, line: int, character: int, encoding: str = UTF16) -> int:
        """The code-point offset of a 0-based LSP position, clamped into the text."""
        if line < 0:
            return 0
        if line >= len(self.line_starts):
            return len(self.text)
        start, end = self.line_starts[line], self._content_end(line)
        if character <= 0:
            return start
        segment = self.text[start:end]
        if encoding == UTF32 or segment.isascii():
            return start + min(character, len(segment))
        counted = 0
        for i, char in enumerate(segment):
            counted += _char_units(char, encoding)
            if counted > character:
                return start + i  # inside or just before this code point: its start
        return end

    def range(self, start: int, end: int, encoding: str = UTF16) -> tuple[tuple[int, int], ...]:
        return (self.position(start, encoding), self.position(end, encoding))


def apply_change(
    text: str,
    start: tuple[int, int] | None,
    end: tuple[int, int] | None,
    new_text: str,
    encoding: str = UTF16,
    index: LineIndex | None = None,
) -> str:
    """The text after one ``TextDocumentContentChangeEvent``; no range: a full replacement.
    ``index``: the text's line index when the caller has one."""
    if start is None or end is None:
        return new_text
    if index is None or index.text is not text:
        index = LineIndex(text)
    begin = index.offset(*start, encoding)
    finish = max(begin, index.offset(*end, encoding))
    return text[:begin] + new_text + text[finish:]
