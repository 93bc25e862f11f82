"""PTX008 percent-escape."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.model import AsmStatement, Finding, Fix, Severity
from ptxlint.rule import Rule, RuleContext


class PercentEscape(Rule):
    id = "PTX008"
    name = "percent-escape"
    severity = Severity.ERROR
    summary = "'%' written the wrong way for the kind of asm statement"
    tags = ("correctness", "template")
    docs = """\
## What it does
Checks how `%` is spelled, which depends on the kind of statement:
- *basic* asm (no colon) is passed to ptxas verbatim, so `%%clock` reaches ptxas as `%%clock`:
  a syntax error (**error**);
- a `%` at the very end of an *extended* template crashes nvcc 13.0 with an internal compiler
  error (**error**);
- *extended* asm naming a PTX register or special register with a single `%` (`%clock`,
  `%tid.x`, `%r1`): nvcc 13.0 passes it through, clang rejects it (*invalid % escape*), and the
  CUDA inline PTX guide requires `%%` (**warning**).

`%=` (a number unique to the statement instance) is fine in extended asm.

## Why is this bad?
The C++ front end rewrites `%` only in extended asm. Writing the escape where none is processed
(or leaving it out where it is) hands ptxas text other than what the author read: a syntax
error at best, and code that another compiler (clang) rejects at worst.

## Example
```cuda
asm volatile("mov.u32 %%r1, %%clock;");             // basic asm with %%
asm volatile("mov.u32 %0, %clock;" : "=r"(t));     // extended asm with a single %
```

## Use instead
```cuda
asm volatile("mov.u32 %r1, %clock;");
asm volatile("mov.u32 %0, %%clock;" : "=r"(t));
```

## Fix safety
Both rewrites are safe: they produce the text ptxas was meant to see.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        for token in statement.ptx.percents:
            span = self.template_span(statement, token.start, token.end)
            if not statement.extended:
                if token.kind == "escape":
                    edit = self.template_edit(statement, token.start, token.end, "%")
                    yield self.finding(
                        statement,
                        span,
                        "basic asm (no operands) is passed to ptxas verbatim: '%%' stays '%%' "
                        "and is a syntax error; write a single '%'",
                        fix=Fix("Replace '%%' with '%'", (edit,)) if edit else None,
                    )
                continue
            if token.kind == "trailing":
                yield self.finding(
                    statement,
                    span,
                    "a '%' at the end of an extended asm template crashes nvcc (internal "
                    "compiler error); write '%%' for a literal percent sign",
                )
            elif token.kind == "bare":
                edit = self.template_edit(statement, token.start, token.start + 1, "%%")
                yield self.finding(
                    statement,
                    span,
                    f"'%{token.name}' in extended asm must be written '%%{token.name}': a single "
                    "'%' introduces an operand (clang rejects it, nvcc passes it through)",
                    fix=Fix("Escape the register as '%%'", (edit,)) if edit else None,
                    severity=Severity.WARNING,
                )
