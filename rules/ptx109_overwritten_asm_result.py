"""PTX109 overwritten-asm-result."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.overwritten_results import overwritten_by
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext


class OverwrittenAsmResult(Rule):
    id = "PTX109"
    name = "overwritten-asm-result"
    severity = Severity.WARNING
    # the next statements of the block are read: a neighbour's edit changes the verdict
    scope = "file"
    needs = ("outputs",)
    summary = "Every result of an asm is overwritten by the next asm before anything reads it"
    tags = ("correctness", "dataflow")
    docs = """\
## What it does
Flags an asm statement whose template computes nothing but its outputs (no memory access,
ordering, barrier or changing special register) when a later asm statement of the same block,
with nothing between them but comments, `#pragma` lines and asm statements that name none of
the outputs' variables, writes every one of those outputs again as a write-only (`=`) output
and reads none of them. Each output must be a place the text names for certain (`x`, `c[2]`,
`acc.x`), compared as written; the later statement may read other constant elements of the
same array (`C[4]` after `C[0]`) but nothing else of those variables (`C`, `C[i]`, `*C`), and
a read-write (`+`) output of it reads the old value, so nothing is lost. Statements that come
from macros, or lie under different `#if` guards, are not compared.

## Why is this bad?
The first statement's work never reaches anything. Without `volatile` the compiler deletes it
(its outputs are dead); with `volatile` it runs and its results are thrown away. Either way the
program computes something other than what was written, and no compiler warns: each statement
is valid alone. The shapes that ship are a statement copied without changing its output list
(`"=f"(C[0])` in both copies, where the second meant `C[4]`) and an accumulator chain broken:
flashinfer's sm_75 path split an m16n16k16 MMA into two m16n8k8 ones and gave the second
`"f"(0.f)` as its accumulator, so the first one's products were overwritten and the attention
output was wrong on every Turing GPU until the second read `"f"(C[0])`.

## Example
```cuda
asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
             "{%7,%8,%9,%10};"
             : "=f"(C[0]), "=f"(C[1]), "=f"(C[2]), "=f"(C[3])
             : "r"(A[0]), "r"(A[1]), "r"(B[0]), "f"(0.f), "f"(0.f), "f"(0.f), "f"(0.f));
asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
             "{%7,%8,%9,%10};"
             : "=f"(C[0]), "=f"(C[1]), "=f"(C[2]), "=f"(C[3])
             : "r"(A[2]), "r"(A[3]), "r"(B[1]), "f"(0.f), "f"(0.f), "f"(0.f), "f"(0.f));
```

## Use instead
Chain the accumulator: the second statement reads what the first wrote.
```cuda
             : "r"(A[2]), "r"(A[3]), "r"(B[1]), "f"(C[0]), "f"(C[1]), "f"(C[2]), "f"(C[3]));
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        parsed = context.parsed
        if not isinstance(parsed, ParsedSource) or statement.source.text is not parsed.text:
            return
        found = overwritten_by(statement, parsed, context.file_statements)
        if found is None:
            return
        later = found.later
        line = later.source.text.count("\n", 0, later.span.start) + 1
        shown = ", ".join(found.places[:4]) + (", ..." if len(found.places) > 4 else "")
        lost = ("the compiler deletes it" if not statement.is_volatile
                else "it runs for nothing")
        outputs = [o for o in statement.operands if o.role == "output"]
        yield self.finding(
            statement, outputs[0].span,
            f"every result of this asm ({shown}) is written again by the asm statement at "
            f"line {line} before anything reads it: its work is lost ({lost}); if the later "
            "one continues this one's result, give it these as inputs (an accumulator), else "
            "it names the wrong outputs")
