"""PTX205 missing-instruction-separator."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from itertools import accumulate

from ptxlint.model import (
    AsmStatement,
    Edit,
    Finding,
    Fix,
    PtxInstruction,
    PtxTemplate,
    Severity,
    Span,
    Template,
    piece_count,
)
from ptxlint.ptx.layout import PieceText, literal_content, piece_texts, source_spelling
from ptxlint.ptx.opcodes import PTX_OPCODES
from ptxlint.ptx.template_memo import TemplateMemo
from ptxlint.rule import STRING_PIECES, Rule, RuleContext

_LITERALS = STRING_PIECES
_SEPARATORS = ";{}"
_BLANK = " \t\r\n\f\v"
# What starts an instruction: a guard, or an opcode word followed by its modifiers or operands.
_START = re.compile(r"@|([A-Za-z_][A-Za-z0-9_]*)(?=[.\s;]|$)", re.ASCII)


def _starts_instruction(text: str, pos: int) -> int | None:
    """End of the guard or opcode word that starts an instruction at ``pos``, else ``None``."""
    m = _START.match(text, pos)
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
_OPCODE_TAIL = re.compile(r"[@A-Za-z_](?:(?<=@)|[A-Za-z0-9_]*(?=[.\s;]|$))", re.ASCII)


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
    scan = _OPCODE_TAIL.finditer
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
                while first > 0 and text[first - 1] in _BLANK:
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
        while stop < size and text[stop] in _BLANK:
            stop += 1
        if current is not None and pos <= current[1]:
            current = (current[0], max(current[1], stop))
            continue
        if current is not None:
            yield current
        current = (pos, stop)
    if current is not None:
        yield current


def _ending_at(statement: AsmStatement, end: int) -> PtxInstruction | None:
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


def _separator(statement: AsmStatement, pieces: tuple[PieceText, ...]) -> str:
    """What the file writes after a ``;`` at the end of a piece (``;\\n\\t``), else ``;``."""
    text = statement.template.text
    for item in pieces:
        if item.piece.kind not in _LITERALS or item.end == item.start:
            continue
        body = text[item.start : item.end].rstrip(_BLANK)
        if body.endswith(";"):
            tail = item.start + len(body)
            return ";" + source_spelling(statement, tail, item.end)
    return ";"


class MissingInstructionSeparator(Rule):
    id = "PTX205"
    name = "missing-instruction-separator"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    # a boundary between two string literals, a missing ';' the parser noted, or an LLVM
    # template's last instruction
    needs = ("string-pieces", "template-problems", "llvm")
    summary = "Adjacent string pieces run two instructions together"
    tags = ("correctness", "template")
    docs = """\
## What it does
Flags a boundary between two adjacent string literals of a template where the earlier piece ends
inside an instruction, without `;`, a brace or white space, and the later piece starts a new
instruction (a PTX opcode or an `@p` guard).

## Why is this bad?
C++ concatenates adjacent string literals with nothing in between, so
`"mov.u32 %0, 1" "add.u32 %0, %0, 1;"` becomes `mov.u32 %0, 1add.u32 %0, %0, 1;`: one malformed
instruction. ptxas rejects it with a syntax error on a line of generated PTX; when the pieces come
from different branches of a macro, only some configurations break.

A piece split *inside* one instruction (`"ld.global" ".f32 %0, [%1];"`, `"mov.u32 %0, " "%1;"`)
is fine and is not flagged.

It also flags a line that ends an instruction's operands without `;` when the next line starts
another instruction (`"cvta.to.shared.u64 p1, %1\n" "cvt.u32.u64 %0, p1;"`): PTX ends
instructions with `;`, not with a newline. ptxlint reads the two as two instructions, so the
second one's operands are not reported as a malformed operand list of the first.

In Python's LLVM-syntax calls (Triton, CuTe DSL) the rule also flags a *last* instruction
without `;`: the template is pasted into the PTX as written (Triton 3.6.0: *Parsing error near
'neg'*).

## Example
```cuda
asm("mov.u32 %0, %1"
    "add.u32 %0, %0, 1;" : "=r"(r) : "r"(x));
```

## Use instead
```cuda
asm("mov.u32 %0, %1;"
    "add.u32 %0, %0, 1;" : "=r"(r) : "r"(x));
```

## Fix safety
The fix inserts `;` at the end of the earlier piece, inside its quotes, followed by the same
white space (for example `\\n\\t`) that the template's other pieces put after their `;`. It is
safe: the joined text was not valid PTX.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        template = statement.template
        text = template.text
        if statement.syntax == "llvm":
            yield from self._unterminated_last(statement)
        # The parser reads `... %1` + `cvt.u32.u64 ...` (glued, or on the next line) as two
        # instructions and notes the missing ';' between them.
        missing = [p for p in statement.ptx.problems if p.kind == "separator"]
        reported: set[int] = set()
        # the pieces (a pass over the template's source map) only where a boundary could be
        # reported: two string pieces at least (one literal has no boundary inside it), and
        # most templates have no such place wherever their pieces are cut
        pieces = (
            tuple(p for p in piece_texts(template) if p.end > p.start)
            if _literal_pieces(template) > 1 and _may_run_together(statement)
            else ()
        )
        for prev, nxt in zip(pieces, pieces[1:], strict=False):
            if prev.piece.kind not in _LITERALS or nxt.piece.kind not in _LITERALS:
                continue
            boundary = nxt.start
            last = text[prev.end - 1]
            if last in _SEPARATORS or last in _BLANK or _in_comment(statement, prev.end - 1):
                continue
            begin = boundary
            while begin < len(text) and text[begin] in _BLANK:
                begin += 1
            word_end = _starts_instruction(text, begin)
            if word_end is None:
                continue
            split = next((p for p in missing if p.start < boundary <= p.end), None)
            instruction = _spanning(statement, boundary)
            if instruction is None and split is not None:
                instruction = _ending_at(statement, split.start + 1)
            if instruction is None or instruction.opaque:
                continue
            if split is not None:
                reported.add(split.start)
            fix = None
            content = literal_content(statement.source.text, prev.piece)
            if content is not None:
                insert = Edit(Span(content.end, content.end), _separator(statement, pieces))
                fix = Fix("end the earlier piece with ';'", (insert,))
            tail = prev.end
            while tail > instruction.start and text[tail - 1] not in _BLANK + ",":
                tail -= 1
            glued = text[tail : prev.end] + text[begin:word_end]
            yield self.finding(
                statement,
                self.template_span(statement, tail, prev.end),
                f"'{text[tail : prev.end]}' ends its string piece without ';', so the next piece's "
                f"'{text[begin:word_end]}' runs into it ('{glued}'): two instructions become one",
                fix=fix,
            )

        for problem in missing:
            if problem.start not in reported:
                yield self._missing_at_line_end(statement, problem.start, problem.message)

    def _missing_at_line_end(self, statement: AsmStatement, last: int, message: str) -> Finding:
        """An instruction whose line ends without ';' before a line that starts another."""
        text = statement.template.text
        instruction = _ending_at(statement, last + 1)
        begin = instruction.start if instruction is not None else last
        char = statement.template.source_span(last, last + 1)
        fix = None
        if statement.source.text[char.start : char.end] == text[last : last + 1]:
            fix = Fix("end the instruction with ';'", (Edit(Span(char.end, char.end), ";"),))
        return self.finding(
            statement,
            self.template_span(statement, begin, last + 1),
            f"'{text[begin : last + 1].strip()}' has no ';' ({message}): ptxas reads on into "
            "the next instruction, a syntax error",
            fix=fix,
        )

    def _unterminated_last(self, statement: AsmStatement) -> Iterator[Finding]:
        """LLVM syntax (Triton, CuTe DSL): the template reaches ptxas as written, so a last
        instruction without ';' runs into whatever Triton emits next (research note row 8a:
        PTXASError 'Parsing error near ...')."""
        instructions = statement.ptx.instructions
        if not instructions or statement.template.has_holes:
            return
        last = instructions[-1]
        if last.terminated or last.opaque or last.depth != 0 or statement.ptx.problems:
            return
        text = statement.template.text
        tail = text[last.end :]
        for start, end in statement.ptx.comments:
            if start >= last.end:
                tail = tail.replace(text[start:end], " ")
        if tail.strip():
            return
        end = last.end
        while end > last.start and text[end - 1] in _BLANK:
            end -= 1
        char = statement.template.source_span(end - 1, end)
        fix = None
        if statement.source.text[char.start : char.end] == text[end - 1 : end]:
            fix = Fix("end the instruction with ';'", (Edit(Span(char.end, char.end), ";"),))
        yield self.finding(
            statement,
            self.template_span(statement, last.start, last.end),
            f"'{text[last.start : last.end].strip()}' is the last instruction and has no ';': "
            "Triton and LLVM paste the template into the PTX as written, and ptxas reads the "
            "next line as part of it (syntax error)",
            fix=fix,
        )
