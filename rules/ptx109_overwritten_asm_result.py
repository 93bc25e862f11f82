"""PTX109 overwritten-asm-result."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.overwritten_results import overwritten_result
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext


class OverwrittenAsmResult(Rule):
    id = "PTX109"
    name = "overwritten-asm-result"
    severity = Severity.WARNING
    # the statements before it in the block are read: a neighbour's edit changes the verdict
    scope = "file"
    needs = ("outputs",)
    summary = "An asm writes again every result of the asm before it, which nothing read"
    tags = ("correctness", "dataflow")
    docs = """\
## What it does
Flags an asm statement that writes again, as write-only (`=`) outputs on every path through its
template, every output of an asm statement before it in the same block, reading none of them,
where that earlier statement computes nothing but its outputs (no memory access, ordering,
barrier or changing special register). Between the two there may be only comments, `#pragma`
lines and asm statements that name none of the outputs' variables. Each output must be a place
the text names for certain (`x`, `c[2]`, `acc.x`), compared as written; the flagged statement
may read other constant elements of the same array (`C[4]` after `C[0]`) but nothing else of
those variables (`C`, `C[i]`, `*C`), and a read-write (`+`) output reads the old value, so
nothing is lost. The finding is on the later statement, where the fix goes (its accumulator
inputs, or its outputs' names). Statements in macros, from macro expansions, or under
different `#if` guards are not compared.

One defect, one finding (`ptxlint.analysis.roots`): silent where the later statement's template
reads one of those outputs before it writes it (`selp.u32 %0, %3, %0, p;` given `"=r"(c)`):
it continues the earlier result, and the `=` that should be `+` is PTX106's finding, whose fix
makes the result read, not lost.

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
        if not isinstance(parsed, ParsedSource):
            return
        found = overwritten_result(statement, context.file_statements, parsed)
        if found is None:
            return
        earlier = found.earlier
        line = earlier.source.text.count("\n", 0, earlier.span.start) + 1
        shown = ", ".join(found.places[:4]) + (", ..." if len(found.places) > 4 else "")
        lost = ("the compiler deletes it" if not earlier.is_volatile
                else "it runs for nothing")
        yield self.finding(
            statement, statement.operands[found.again[0]].span,
            f"this asm writes again every result of the asm statement at line {line} "
            f"({shown}) before anything reads them, so that statement's work is lost ({lost}): "
            "if this one continues its result, read them as inputs (an accumulator); else "
            "these outputs are the wrong ones")
