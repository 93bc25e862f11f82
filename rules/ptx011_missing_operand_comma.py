"""PTX011 missing-operand-comma."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.model import AsmStatement, Edit, Finding, Fix, Severity, Span
from ptxlint.rule import Rule, RuleContext


class MissingOperandComma(Rule):
    id = "PTX011"
    name = "missing-operand-comma"
    pure = True
    scope = "statement"
    severity = Severity.WARNING
    needs = ("missing-commas",)
    summary = "Two asm operands with no comma between them"
    tags = ("portability", "constraints")
    docs = """\
## What it does
Flags two operands of an asm statement written one after the other without a comma, such as
`"r"(ptr) "r"(value)`, usually at the end of a line before the next line's operands.

## Why is this bad?
nvcc's front end reads the two as separate operands and compiles the statement, so the slip goes
unnoticed until the file is built with another compiler: clang (CUDA or host pass) and GCC reject
it with a syntax error. CUTLASS (`arch/memory.h`, `arch/mma_sm90.h`) and CCCL (cudax STF) each
had to fix this after a clang build failed. The fix is always the same comma, so it is offered as
a safe fix.

## Example
```cuda
asm volatile("st.shared.u32 [%0], %1;\\n"
    :: "r"(ptr)
       "r"(value));
```

## Use instead
```cuda
asm volatile("st.shared.u32 [%0], %1;\\n"
    :: "r"(ptr),
       "r"(value));
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        # The extractor splits ``"r"(a) "l"(b)`` into two operands, as nvcc does, and notes
        # where; tokens a macro's body supplied lie outside the statement's own text.
        text = statement.source.text
        for close, at in statement.missing_commas:
            if not (statement.span.contains(close) and statement.span.contains(at)):
                continue
            if text[close] != ")" or text[at] not in "\"'[RLuU":
                continue
            yield self.finding(
                statement,
                Span(close, close + 1),
                "no ',' after this operand: nvcc reads the next one as another operand, "
                "clang and GCC reject the statement",
                fix=Fix("Insert the missing ','", (Edit(Span(close + 1, close + 1), ","),)),
            )
