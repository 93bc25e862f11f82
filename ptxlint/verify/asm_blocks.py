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
from dataclasses import dataclass

__all__ = ["Block", "asm_blocks", "block_at", "is_begin", "outside_blocks"]

_MARKER = re.compile(r"\s*//\s*(begin|end)\s+inline\s+asm\s*")


@dataclass(frozen=True)
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


def _marker(line: str) -> str | None:
    """``"begin"`` or ``"end"`` for a marker line, None for any other."""
    if "inline" not in line:  # nearly every line: no pattern tried
        return None
    match = _MARKER.fullmatch(line)
    return match[1] if match else None


def is_begin(line: str) -> bool:
    """Whether ``line`` opens an inline asm block."""
    return _marker(line) == "begin"


def asm_blocks(ptx: str | Sequence[str]) -> list[Block]:
    """The blocks of ``ptx`` (its text, or its lines), in order. A begin marker without an end
    before the next begin opens no block of its own (the later one is the block)."""
    lines = ptx.splitlines() if isinstance(ptx, str) else ptx
    out: list[Block] = []
    start: int | None = None  # 0-based index of the current block's first template line
    for n, line in enumerate(lines):
        kind = _marker(line)
        if kind == "begin":
            start = n + 1
        elif kind == "end" and start is not None:
            out.append(Block(start + 1, tuple(lines[start:n])))
            start = None
    return out


def block_at(blocks: Sequence[Block], line: int) -> Block | None:
    """The block holding 1-based PTX ``line``, markers included."""
    for block in blocks:
        if block.begin <= line <= block.end:
            return block
    return None


def outside_blocks(ptx: str) -> str:
    """``ptx`` without its blocks (markers included): the code the compiler made itself."""
    lines = ptx.splitlines()
    kept: list[str] = []
    at = 0
    for block in asm_blocks(lines):
        kept.extend(lines[at:block.begin - 1])
        at = block.end
    kept.extend(lines[at:])
    return "\n".join(kept)
