"""Parse a file as an edit of the near-duplicate parsed just before it in this process.

Kernel libraries generate many variants of one source (a head size, a data type, a tile shape
per file): in flashinfer's source distribution two thirds of the asm-bearing bytes are lines
that a file of the same folder holds too. tree-sitter reparses an edited tree in time
proportional to the edit, and gives the tree a fresh parse would give (tested node by node,
positions included, in ``tests/test_tree_reuse.py``). So each process keeps the tree of the
last file it parsed; the next file from the same folder, of a similar size and mostly the same
lines (``line_diff``), is parsed as that tree with the differing lines edited.

The kept tree is dropped, not kept beside the new one, when the next file cannot use it: a
4 MB kernel's tree is about 100 MB, and a reused one shares most of its nodes with its base.
The runner hands a worker a folder's Python files one after another (``runner.family_order``).
The kept tree is the one handed out with the file's ``ParsedSource``: nothing edits a tree in
place (the language server's ``incremental`` edits a copy).

Cost when nothing is reused: one split of the text into lines and, for a candidate, one
``line_diff`` (O(n log n) in lines, far below the parse).

What it buys, measured: on flashinfer's generated CuTe DSL Python (38 MB in 361 asm-bearing
files) the parses cost 3.5 s reused against 4.1 s fresh, so the Python front end parses
through it. For C++ it bought nothing measurable: on two of flashinfer's generated C++ kernel
families on the 16-core H200 host (239 and 626 files, 46 and 30 of them reused), the medians
of three in-process lints were 12.3 s with reuse against 10.4 s without, and 7.2 s against
7.5 s, within the host's noise. So C++ files are parsed from nothing (``syntax_tree.parse``).
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

from ptxlint.frontends.line_diff import Run, equal_runs, matched

if TYPE_CHECKING:  # the runner imports this module before any file needs a parser
    import tree_sitter

# Smaller files are parsed afresh and leave the kept tree alone: a fresh parse of one costs a
# few milliseconds, and a folder's small bindings and headers between two big variants would
# otherwise evict the tree that the second one needs.
MIN_BYTES = 32 * 1024
# Reuse only when at least this share of the new file's lines is found in the kept one.
MIN_SHARED = 0.5


class _Kept:
    """The last large file this process parsed: its folder, lines and tree, which the next file of
    that folder may be parsed as an edit of. (A plain class: a data class costs about 0.3 ms of
    CPU to create at every start, and nothing compares or prints this one.)"""

    __slots__ = ("folder", "grammar", "size", "lines", "tree")

    def __init__(
        self, folder: str, grammar: str, size: int, lines: list[bytes], tree: tree_sitter.Tree
    ) -> None:
        self.folder = folder
        self.grammar = grammar
        self.size = size  # bytes; the text itself is ``lines``
        self.lines = lines
        self.tree = tree


_kept: list[_Kept] = []  # at most one
_lock = threading.Lock()  # the language server parses on two threads
reused = 0  # files parsed as an edit in this process (tests, profiles)


def family(path: str) -> str:
    """What a file must share with the kept one to be parsed as its edit: its folder. The
    runner keeps a family's files together where they may be (``runner.family_order``)."""
    return os.path.dirname(os.path.abspath(path))


def _lines(data: bytes) -> list[bytes]:
    """The lines of ``data`` without their newlines; the last one marked, so that it equals
    only another text's last line (one text may end in a newline where the other does not)."""
    lines = data.split(b"\n")
    lines[-1] += b"\n\0"
    return lines


def _starts(lines: list[bytes], size: int) -> list[int]:
    """The byte offset of each line, then ``size`` (the end)."""
    starts = [0] * (len(lines) + 1)
    at = 0
    for k, line in enumerate(lines):
        starts[k] = at
        at += len(line) + 1
    starts[-1] = size
    return starts


def _point(k: int, lines: list[bytes]) -> tuple[int, int]:
    """tree-sitter's (row, column) of the start of line ``k``, or of the end for ``len(lines)``."""
    if k < len(lines):
        return (k, 0)
    return (len(lines) - 1, len(lines[-1]) - 2)  # without the mark


def _edited(kept: _Kept, lines: list[bytes], data: bytes, runs: list[Run]) -> tree_sitter.Tree:
    """A copy of the kept tree with the lines between ``runs`` replaced by the new ones."""
    old_starts = _starts(kept.lines, kept.size)
    new_starts = _starts(lines, len(data))
    edits: list[tuple[int, int, int, int]] = []
    old_at = new_at = 0
    for old_first, new_first, count in [*runs, (len(kept.lines), len(lines), 0)]:
        if old_first > old_at or new_first > new_at:
            edits.append((old_at, old_first, new_at, new_first))
        old_at, new_at = old_first + count, new_first + count
    tree = kept.tree.copy()
    # Last edit first: the offsets and rows before an edit are then still the old ones.
    for old_first, old_stop, new_first, new_stop in reversed(edits):
        start = old_starts[old_first]
        if new_stop < len(lines):
            new_end_point = (old_first + new_stop - new_first, 0)
        else:  # the new text's end, inside its last line
            new_end_point = (old_first + new_stop - 1 - new_first, _point(new_stop, lines)[1])
        tree.edit(
            start_byte=start,
            old_end_byte=old_starts[old_stop],
            new_end_byte=start + new_starts[new_stop] - new_starts[new_first],
            start_point=(old_first, 0),
            old_end_point=_point(old_stop, kept.lines),
            new_end_point=new_end_point,
        )
    return tree


def parse(parser: tree_sitter.Parser, path: str, data: bytes, grammar: str) -> tree_sitter.Tree:
    """``parser``'s tree of ``data``, reusing the kept tree where it is a near-duplicate."""
    global reused
    if len(data) < MIN_BYTES:
        return parser.parse(data)
    folder = family(path)
    lines = _lines(data)
    with _lock:
        kept = _kept.pop() if _kept else None
    base: tree_sitter.Tree | None = None
    if (
        kept is not None
        and kept.folder == folder
        and kept.grammar == grammar
        and len(data) <= 2 * kept.size <= 4 * len(data)
    ):
        runs = equal_runs(kept.lines, lines)
        if matched(runs) >= MIN_SHARED * len(lines):
            base = _edited(kept, lines, data, runs)
    del kept  # not alive beside a fresh tree
    tree = parser.parse(data, base) if base is not None else parser.parse(data)
    if base is not None:
        reused += 1
    with _lock:
        _kept[:] = [_Kept(folder, grammar, len(data), lines, tree)]
    return tree


def forget() -> None:
    """Drop the kept tree (the memory goes back at once)."""
    with _lock:
        _kept.clear()
