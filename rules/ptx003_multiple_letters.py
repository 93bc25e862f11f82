"""PTX003 multiple-constraint-letters."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext


class MultipleConstraintLetters(Rule):
    id = "PTX003"
    name = "multiple-constraint-letters"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    needs = ("several-letters",)
    summary = "Constraint offers several register classes"
    tags = ("correctness", "constraints")
    docs = """\
## What it does
Flags an operand constraint with more than one letter, such as `"rf"` or `"=rl"`.

## Why is this bad?
GCC lets a constraint offer alternatives and picks one; nvcc does not: it rejects a constraint
with more than one letter. The register class of a PTX operand must be stated exactly, because
the template names the register type (`.u32`, `.f32`, `.u64`) and the two must agree.

Modifiers are not letters: `"=&r"` is a write-only, early-clobber `r` and is fine.

## Example
```cuda
asm("mov.b32 %0, %1;" : "=r"(out) : "rf"(in));
```

## Use instead
```cuda
asm("mov.b32 %0, %1;" : "=r"(out) : "r"(in));   // or "f" for a float
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        for operand in statement.operands:
            constraint = operand.constraint
            if constraint.opaque or len(constraint.letters) < 2 or constraint.letters.isdigit():
                continue
            yield self.finding(
                statement,
                constraint.span,
                f'constraint "{constraint.text}" of operand {operand.index} has several '
                f"letters ('{constraint.letters}'); nvcc accepts exactly one register class",
            )
