"""Where adjacent string pieces of a template run two instructions together: PTX205's fact.

C++ joins adjacent string literals with nothing between them, so ``"mov.u32 %0, 1"
"add.u32 %0, %0, 1;"`` is ``mov.u32 %0, 1add.u32 ...``: one malformed instruction. A boundary
between two string pieces counts where the earlier piece ends inside an instruction (past its
mnemonic, not in a comment, without ``;``, a brace or white space) and the later one starts an
instruction (a guard ``@``, or a PTX opcode word). The parser already reads some of these as two
instructions and notes the missing ``;`` (a ``separator`` problem): such a boundary names that
problem, so it is reported once.

A function of the template's text, parse and pieces (the boundary scan is memoised per parse).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from itertools import accumulate
from typing import NamedTuple

from ptxlint.lazy_regex import on_first_use
from ptxlint.model import (
    AsmStatement,
    PtxInstruction,
    PtxProblem,
    PtxTemplate,
    Template,
    piece_count,
)
from ptxlint.ptx.layout import STRING_PIECES, PieceText, piece_texts
from ptxlint.ptx.opcodes import PTX_OPCODES
from ptxlint.ptx.template_memo import TemplateMemo

__all__ = ["BLANK", "GluedBoundary", "GluedPieces", "ending_at", "glued_pieces"]

_LITERALS = STRING_PIECES
_SEPARATORS = ";{}"
BLANK = " \t\r\n\f\v"
# What starts an instruction: a guard, or an opcode word followed by its modifiers or operands.
_START = on_first_use(r"@|([A-Za-z_][A-Za-z0-9_]*)(?=[.\s;]|$)", re.ASCII)


def _starts_instruction(text: str, pos: int) -> int | None:
    """End of the guard or opcode word that starts an instruction at ``pos``, else ``None``."""
    m = _START().match(text, pos)
    if m is None:
        return None
    if m.group(1) is not None and m.group(1) not in PTX_OPCODES:
        return None
    return m.end()


_RUN_TOGETHER: TemplateMemo[bool] = TemplateMemo(4096)
# A guard, or a word that ends before '.', a blank, ';' or the end, from its first letter or
# '_' on: an opcode starts with one, so the digits before it hold no tail (``%123,`` and the
# like, most of a wgmma template's characters, are passed over at once; CUTLASS include/'s
# 2,854 templates of several pieces scan in 0.018 s of CPU instead of 0.032 s). Spelled with
# one character class first (``@`` ends its match at once, by the look-behind), where
# ``@|[A-Za-z_]...`` was a branch: the regular expression engine then skips the characters no
# match starts at without trying the pattern at each (a wgmma template's scan: 8.0 -> 4.5 us).
_OPCODE_TAIL = on_first_use(r"[@A-Za-z_](?:(?<=@)|[A-Za-z0-9_]*(?=[.\s;]|$))", re.ASCII)


_TAILS: dict[str, tuple[int, ...]] = {}
# the characters of a run the scan reads as one word (``_OPCODE_TAIL``'s)
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _opcode_tails(word: str) -> tuple[int, ...]:
    """Where in ``word`` a PTX opcode starts that ends the word (``mma`` in ``wgmma``), for
    each word once: templates repeat their words (``sync``, ``aligned``, ``f32``) thousands of
    times."""
    tails = _TAILS.get(word)
    if tails is None:
        tails = tuple(
            k for k in range(len(word))
            if (word[k].isalpha() or word[k] == "_") and word[k:] in PTX_OPCODES
        )
        if len(_TAILS) >= 16384:
            _TAILS.clear()
        _TAILS[word] = tails
    return tails


def _literal_pieces(template: Template) -> int:
    """How many of the template's pieces are string literals: a boundary the rule reports lies
    between two of them (70% of the CUDA 13 headers' templates are one literal)."""
    return piece_count(template, _LITERALS)  # pieces still to be made are not made for it


def _may_run_together(statement: AsmStatement) -> bool:
    """Whether some cut of the template into pieces could be reported: a boundary that is
    followed by blanks and the start of an instruction (``@``, or a PTX opcode that ends a
    word: ``mma`` in ``wgmma.``) and lies past an instruction's mnemonic or at a missing ';'.
    A function of the template's text and parse (memoised per parse, bounded): a superset of
    the boundaries ``check`` reports, found in O(words)."""
    ptx = statement.ptx
    text = statement.template.text
    return _RUN_TOGETHER.of(ptx, lambda: _runs_together(ptx, text), text)


def _runs_together(ptx: PtxTemplate, text: str) -> bool:
    """Whether some word start ``begin`` (its blanks reaching back to ``first``) meets a range
    ``[low, high)`` with ``low <= begin`` and ``first < high``. The ranges sorted by ``low``
    with a running maximum of ``high`` answer each word with a bisect: O((words + ranges) log
    ranges), where testing every range for every word was quadratic in the template's size
    (a generated 8,000-instruction template took seconds).

    Only the words that can meet a range are read: those of each range's text (``_windows``),
    an instruction's operands and the blanks after it, not its mnemonic's (``wgmma``,
    ``mma_async``, ``m64n256k16``: most of a template's words, as a wgmma's operands are
    ``%N`` tokens). The words read over CUTLASS include/'s 2,800 templates of several pieces:
    39,800 -> 11,500; with the scan's one character class first (``_OPCODE_TAIL``), the gate
    over them 33.7 -> 13.7 ms of CPU, over the CUDA 13 headers' 870: 11.0 -> 6.5 ms (cold
    ``_TAILS``, best of 5)."""
    ranges = [(i.opcode_end, i.end) for i in ptx.instructions]
    ranges += [(p.start + 1, p.end + 1) for p in ptx.problems if p.kind == "separator"]
    if not ranges:
        return False
    ranges.sort()
    lows = [low for low, _ in ranges]
    reach = list(accumulate((high for _, high in ranges), max))
    known = _TAILS.get
    scan = _OPCODE_TAIL().finditer
    for pos, stop in _windows(ranges, text):
        for m in scan(text, pos):
            at = m.start()
            if at > stop:
                break
            word = m.group()
            if word == "@":
                tails: tuple[int, ...] = (0,)
            else:
                found = known(word)
                tails = _opcode_tails(word) if found is None else found
                if not tails:
                    continue  # most words: no opcode ends them
            for k in tails:
                begin = at + k
                first = begin  # the boundaries whose blanks lead to `begin`: [first, begin]
                while first > 0 and text[first - 1] in BLANK:
                    first -= 1
                below = bisect_right(lows, begin)  # the ranges with low <= begin
                if below and reach[below - 1] > first:
                    return True
    return False


def _windows(ranges: list[tuple[int, int]], text: str) -> Iterator[tuple[int, int]]:
    """Where the scan's words that may meet one of ``ranges`` (sorted) start: from ``low``, or
    from the start of the run of word characters that runs across it (a scan from there finds
    the words the scan of the whole text finds, as no word runs across a character that is
    not a word's: a word ending past ``low`` starts there or later), up to ``high`` and the
    blanks after it
    (a word starting past them reaches back to no boundary before ``high``); overlapping
    windows merged."""
    size = len(text)
    current: tuple[int, int] | None = None
    for low, high in ranges:
        pos = min(low, size)
        if pos < size and text[pos] in _WORD:  # else no word across ``low``: none from before
            while pos > 0 and text[pos - 1] in _WORD:
                pos -= 1
        stop = high
        while stop < size and text[stop] in BLANK:
            stop += 1
        if current is not None and pos <= current[1]:
            current = (current[0], max(current[1], stop))
            continue
        if current is not None:
            yield current
        current = (pos, stop)
    if current is not None:
        yield current


def ending_at(statement: AsmStatement, end: int) -> PtxInstruction | None:
    """The instruction whose text ends at ``end`` (white space after it aside)."""
    for instruction in statement.ptx.instructions:
        if instruction.start < end <= instruction.end and not statement.template.text[
            end : instruction.end
        ].strip():
            return instruction
    return None


def _in_comment(statement: AsmStatement, offset: int) -> bool:
    return any(start <= offset < end for start, end in statement.ptx.comments)


def _spanning(statement: AsmStatement, boundary: int) -> PtxInstruction | None:
    """The instruction whose mnemonic ends before ``boundary`` and whose text runs past it."""
    for instruction in statement.ptx.instructions:
        if instruction.opcode_end <= boundary < instruction.end:
            return instruction
    return None


class GluedBoundary(NamedTuple):
    """A boundary between two string pieces that runs two instructions together."""

    prev: PieceText  # the earlier string piece
    tail: int  # where its last word starts (back to a blank or ','): what runs into the next
    begin: int  # where the later piece's instruction word starts (its blanks passed over)
    word_end: int  # and ends
    instruction: PtxInstruction  # the instruction the earlier piece ends inside
    split: PtxProblem | None  # the parser's missing ';' at this boundary, if it noted one


class GluedPieces(NamedTuple):
    """A template's string pieces (only where a boundary may be glued) and its glued
    boundaries."""

    pieces: tuple[PieceText, ...]
    boundaries: tuple[GluedBoundary, ...]


_NONE = GluedPieces((), ())


def _scope_brace(statement: AsmStatement, offset: int) -> bool:
    return any(brace.offset == offset for brace in statement.ptx.braces)


def glued_pieces(statement: AsmStatement) -> GluedPieces:
    """The glued boundaries of ``statement``'s template, in text order. The pieces (a pass over
    the template's source map) are made only where a boundary could be glued: two string
    pieces at least (one literal has no boundary inside it), and a place the scan
    (``_may_run_together``) finds; most templates have none wherever their pieces are cut."""
    template = statement.template
    if _literal_pieces(template) <= 1 or not _may_run_together(statement):
        return _NONE
    text = template.text
    pieces = tuple(p for p in piece_texts(template) if p.end > p.start)
    missing = [p for p in statement.ptx.problems if p.kind == "separator"]
    found: list[GluedBoundary] = []
    for prev, nxt in zip(pieces, pieces[1:], strict=False):
        if prev.piece.kind not in _LITERALS or nxt.piece.kind not in _LITERALS:
            continue
        boundary = nxt.start
        last = text[prev.end - 1]
        if last in _SEPARATORS and (last != "}" or _scope_brace(statement, prev.end - 1)):
            continue  # (a vector's `}`, `{%2, %3}` "mov.b64 ...", ends no instruction)
        if last in BLANK or _in_comment(statement, prev.end - 1):
            continue
        begin = boundary
        while begin < len(text) and text[begin] in BLANK:
            begin += 1
        word_end = _starts_instruction(text, begin)
        if word_end is None:
            continue
        split = next((p for p in missing if p.start < boundary <= p.end), None)
        instruction = _spanning(statement, boundary)
        if instruction is None and split is not None:
            instruction = ending_at(statement, split.start + 1)
        if instruction is None or instruction.opaque:
            continue
        tail = prev.end
        while tail > instruction.start and text[tail - 1] not in BLANK + ",":
            tail -= 1
        found.append(GluedBoundary(prev, tail, begin, word_end, instruction, split))
    return GluedPieces(pieces, tuple(found))
