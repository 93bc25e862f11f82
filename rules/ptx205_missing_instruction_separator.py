"""PTX205 missing-instruction-separator."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.glued_pieces import BLANK, ending_at
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Edit, Finding, Fix, Severity, Span
from ptxlint.ptx.layout import STRING_PIECES, PieceText, literal_content, source_spelling
from ptxlint.rule import Rule, RuleContext


def _separator(statement: AsmStatement, pieces: tuple[PieceText, ...]) -> str:
    """What the file writes after a ``;`` at the end of a piece (``;\\n\\t``), else ``;``."""
    text = statement.template.text
    for item in pieces:
        if item.piece.kind not in STRING_PIECES or item.end == item.start:
            continue
        body = text[item.start : item.end].rstrip(BLANK)
        if body.endswith(";"):
            tail = item.start + len(body)
            return ";" + source_spelling(statement, tail, item.end)
    return ";"


# Who pastes the template into the PTX, by the statement's syntax.
_PASTERS = {"llvm": "Triton and LLVM paste", "gnu": "nvcc and clang paste"}


def _ptx_form(statement: AsmStatement) -> bool:
    """In a CUDA file or device code, the last instruction is one of the PTX ISA's forms (the
    grammar matched it with no spelling issue): then the template is PTX for sure, not a host
    function's x86 or Arm asm (``mov %%rsp, %0`` matches no PTX form; ``mfence`` is no PTX
    opcode)."""
    facts = analysis_of(statement)
    if not facts.clearly_ptx:
        return False
    verdict = facts.verdicts[-1]
    return (verdict is not None and verdict.form is not None
            and not any(i.kind in ("opcode", "modifier", "combination") for i in verdict.issues))


class MissingInstructionSeparator(Rule):
    id = "PTX205"
    name = "missing-instruction-separator"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    # a boundary between two string literals, a missing ';' the parser noted, or a last
    # instruction without one
    needs = ("string-pieces", "template-problems", "unterminated-last")
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
another instruction (`"cvta.to.shared.u64 p1, %1\n" "cvt.u32.u64 %0, p1;"`) or a label
(`ld.f32 e, [%1]` then `retry:`): PTX ends instructions with `;`, not with a newline.
ptxlint reads the two as two instructions, so the second one's operands are not reported as a
malformed operand list of the first.

The rule also flags a *last* instruction without `;` (`asm("trap")`): every compiler pastes
the template into the PTX as written, nvcc and clang with the next instruction or label on the
line after it, Triton and CuTe DSL with whatever they emit next, so ptxas reads on into it
(nvcc 13.0: *Parsing error near ':'*; Triton 3.6.0: *Parsing error near 'neg'*). In C++ it
does so where the last instruction is one of the PTX ISA's forms: a CUDA file's host function
may hold x86 or Arm asm, whose last line needs no `;`.

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
        text = statement.template.text
        yield from self._unterminated_last(statement)
        glued = analysis_of(statement).glued_pieces
        # The parser reads `... %1` + `cvt.u32.u64 ...` (glued, or on the next line) as two
        # instructions and notes the missing ';' between them: a glued boundary names it
        reported = {b.split.start for b in glued.boundaries if b.split is not None}
        for boundary in glued.boundaries:
            prev = boundary.prev
            fix = None
            content = literal_content(statement.source.text, prev.piece)
            if content is not None:
                separator = _separator(statement, glued.pieces)
                fix = Fix("end the earlier piece with ';'",
                          (Edit(Span(content.end, content.end), separator),))
            ends = text[boundary.tail : prev.end]
            word = text[boundary.begin : boundary.word_end]
            # as ptxas reads them: glued (`%1st`), or a blank of the later piece between
            joined = " ".join(text[boundary.tail : boundary.word_end].split())
            yield self.finding(
                statement,
                self.template_span(statement, boundary.tail, prev.end),
                f"'{ends}' ends its string piece without ';', so the next piece's '{word}' runs "
                f"into it ('{joined}'): two instructions become one",
                fix=fix,
            )
        for problem in statement.ptx.problems:
            if problem.kind == "separator" and problem.start not in reported:
                yield self._missing_at_line_end(statement, problem.start, problem.message)

    def _missing_at_line_end(self, statement: AsmStatement, last: int, message: str) -> Finding:
        """An instruction whose line ends without ';' before a line that starts another."""
        text = statement.template.text
        instruction = ending_at(statement, last + 1)
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
        """Every compiler pastes the template into the PTX as written: nvcc and clang put the
        next instruction (or a label) on the line after it, Triton and CuTe DSL whatever they
        emit next. So a last instruction without ';' runs into it (nvcc 13.0 on
        ``asm("trap")``, Triton 3.6.0: 'Parsing error near ...')."""
        instructions = statement.ptx.instructions
        if not instructions or statement.template.has_holes:
            return
        last = instructions[-1]
        if last.terminated or last.opaque or last.depth != 0 or statement.ptx.problems:
            return
        if statement.syntax != "llvm" and not _ptx_form(statement):
            return  # a host function's x86 or Arm asm ends its last line without ';'
        text = statement.template.text
        tail = text[last.end :]
        for start, end in statement.ptx.comments:
            if start >= last.end:
                tail = tail.replace(text[start:end], " ")
        if tail.strip():
            return
        end = last.end
        while end > last.start and text[end - 1] in BLANK:
            end -= 1
        char = statement.template.source_span(end - 1, end)
        fix = None
        if statement.source.text[char.start : char.end] == text[end - 1 : end]:
            fix = Fix("end the instruction with ';'", (Edit(Span(char.end, char.end), ";"),))
        yield self.finding(
            statement,
            self.template_span(statement, last.start, last.end),
            f"'{text[last.start : last.end].strip()}' is the last instruction and has no ';': "
            f"{_PASTERS.get(statement.syntax, 'the compiler pastes')} the template into the PTX "
            "as written, and ptxas reads the next line as part of it (syntax error)",
            fix=fix,
        )
