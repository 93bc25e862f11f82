"""The inline asm blocks of a compiler's PTX: the one reader of the ``// begin inline asm`` ...
``// end inline asm`` markers that nvcc and LLVM's NVPTX backend (Triton, CuTe DSL) write around
every inlined asm, its template spliced in between.

Every probe that looks for a statement's copies in PTX reads them here: the differential
check counts them, the whole-file probe maps ptxas's line numbers into them, the Triton and
CuTe probes read the registers the backend gave each operand, the harness tells the C++ code's
own accesses from the asm's. A marker is a line of its own; the spacing around and inside it
varies between emitters (``\\t// begin inline asm``, ``//begin inline asm``), and so may the
line ending (``\\r\\n``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ptxlint.value_class import value_class

__all__ = ["Block", "asm_blocks", "block_at", "is_begin", "outside_blocks"]

_MARKER = re.compile(r"\s*//\s*(begin|end)\s+inline\s+asm\s*")
# the same, found in the whole text (a marker is one when only blanks precede it on its line):
# one search from each `//`. Over 240,000 lines of PTX holding 10,000 blocks, every block took
# 32 ms so, 61-63 ms with each line tested; a `^`-anchored multi-line pattern, tried at every
# character, took 35 ms to search alone.
_MARKERS = re.compile(r"//[^\S\n]*(begin|end)[^\S\n]+inline[^\S\n]+asm[^\S\n]*$", re.M)


@value_class(slots=False)
class Block:
    """One inlined asm: the template lines between its markers."""

    first: int  # 1-based PTX line of the first template line (the one after the begin marker)
    lines: tuple[str, ...]

    @property
    def begin(self) -> int:
        """1-based PTX line of the ``// begin inline asm`` marker."""
        return self.first - 1

    @property
    def end(self) -> int:
        """1-based PTX line of the ``// end inline asm`` marker."""
        return self.first + len(self.lines)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def is_begin(line: str) -> bool:
    """Whether ``line`` opens an inline asm block."""
    if "inline" not in line:  # nearly every line: no pattern tried
        return False
    match = _MARKER.fullmatch(line)
    return match is not None and match[1] == "begin"


def asm_blocks(ptx: str | Sequence[str]) -> list[Block]:
    """The blocks of ``ptx`` (its text, or its lines), in order; lines are counted at each
    ``\\n``. A begin marker without an end before the next begin opens no block of its own
    (the later one is the block)."""
    text = ptx if isinstance(ptx, str) else "\n".join(ptx)
    out: list[Block] = []
    line = 1  # the 1-based line of ``at``
    at = 0
    begin: tuple[int, int] | None = None  # (line, offset) of the current block's first line
    for match in _MARKERS.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        before = text[line_start:match.start()]
        if before and not before.isspace():
            continue  # after an instruction: a comment, no marker
        line += text.count("\n", at, line_start)
        at = line_start
        if match[1] == "begin":
            begin = (line + 1, match.end() + 1)
        elif begin is not None:
            first, start = begin
            body = text[start:line_start - 1]
            lines = tuple(x.rstrip("\r") for x in body.split("\n")) if line > first else ()
            out.append(Block(first, lines))
            begin = None
    return out


def block_at(blocks: Sequence[Block], line: int) -> Block | None:
    """The block holding 1-based PTX ``line``, markers included."""
    for block in blocks:
        if block.begin <= line <= block.end:
            return block
    return None


def outside_blocks(ptx: str, mark: str | None = None) -> str:
    """``ptx`` without its blocks (markers included): the code the compiler made itself; each
    block the line ``mark`` where given, to say where it was."""
    lines = ptx.splitlines()
    kept: list[str] = []
    at = 0
    for block in asm_blocks(lines):
        kept.extend(lines[at:block.begin - 1])
        if mark is not None:
            kept.append(mark)
        at = block.end
    kept.extend(lines[at:])
    return "\n".join(kept)
