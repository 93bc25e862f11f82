"""A linted file's text as the process collecting a run's results keeps it: compressed.

A run keeps the text of every file with findings until the report is written (line and column
of each finding, snippets, fingerprints). flashinfer's source distribution has 1,270 such files,
225 MB of text, and the line index the report builds per file was about as large again: the
collecting process held more than both workers together. Generated kernels compress about
tenfold, and a report reads one file after the other, so a ``PackedSource`` keeps its text
zlib-compressed (fast level: packing costs less than sending the text between processes did)
and unpacks it on use into a small cache of the files most recently read, line index included.

It is a ``SourceFile`` to every reader: ``text``, ``line_starts`` and ``line_col`` answer as
for the text it was made from.
"""

from __future__ import annotations

import zlib
from collections import OrderedDict
from typing import Any

from ptxlint.model import SourceFile, line_starts

_LEVEL = 1  # zlib's fastest: generated code still shrinks about tenfold
_KEEP = 4  # files unpacked at a time (a report reads one file's findings together)
_UNPACKED: OrderedDict[int, tuple[PackedSource, str, list[int] | None]] = OrderedDict()


class PackedSource(SourceFile):
    """``SourceFile`` with the text compressed; made by ``pack``."""

    # Not the dataclass __init__: ``text`` is a property here (dataclasses.replace still works:
    # it passes path, text and decode_errors).
    def __init__(self, path: str, text: str, decode_errors: bool = False) -> None:
        self.path = path
        self.decode_errors = decode_errors
        # surrogatepass: a file's undecodable bytes were replaced, but Python sources may
        # carry lone surrogates through escapes; the text must come back exactly
        self._packed = zlib.compress(text.encode("utf-8", "surrogatepass"), _LEVEL)

    @property
    def text(self) -> str:  # type: ignore[override]
        return self._unpacked()[1]

    @property
    def line_starts(self) -> list[int]:
        return self.indexed()[1]

    def indexed(self) -> tuple[str, list[int]]:
        """The text and its line index from one look-up of the unpacked files, the index made
        where it is not yet (``text`` and ``line_starts`` each look up: ``line_col`` read
        through them looked up three times, 11,448 look-ups for the 1,908 ranges of the CUDA
        13 headers' report)."""
        entry = self._unpacked()
        starts = entry[2]
        if starts is None:
            starts = line_starts(entry[1])
            _UNPACKED[id(self)] = (self, entry[1], starts)
        return entry[1], starts

    def _unpacked(self) -> tuple[PackedSource, str, list[int] | None]:
        entry = _UNPACKED.get(id(self))
        if entry is not None and entry[0] is self:
            _UNPACKED.move_to_end(id(self))
            return entry
        text = zlib.decompress(self._packed).decode("utf-8", "surrogatepass")
        entry = (self, text, None)
        _UNPACKED[id(self)] = entry
        while len(_UNPACKED) > _KEEP:
            _UNPACKED.popitem(last=False)
        return entry

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "decode_errors": self.decode_errors, "_packed": self._packed}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SourceFile):
            return NotImplemented
        return (self.path, self.decode_errors, self.text) == (
            other.path, other.decode_errors, other.text
        )

    __hash__ = None  # type: ignore[assignment]  # as SourceFile's: mutable, compared by value

    def __repr__(self) -> str:
        return f"PackedSource(path={self.path!r}, {len(self._packed)} bytes packed)"


def pack(source: SourceFile) -> SourceFile:
    """``source`` with its text compressed (itself when it is packed already)."""
    if isinstance(source, PackedSource):
        return source
    return PackedSource(source.path, source.text, source.decode_errors)
