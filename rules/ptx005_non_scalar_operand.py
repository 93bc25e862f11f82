"""PTX005 non-scalar-operand."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext


class NonScalarOperand(Rule):
    id = "PTX005"
    name = "non-scalar-operand"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    needs = ("operands",)
    summary = "Operand is a struct, union or vector, not a scalar"
    tags = ("correctness", "constraints", "types")
    docs = """\
## What it does
Flags a register operand (`h r l q f d`) whose value is a struct, a union or a CUDA vector type
(`int4`, `float2`, `__half2`, `uint3`...).

Only records that cannot convert are flagged: nvcc converts a class with a conversion operator
(`operator unsigned()`) to the operand's type and accepts it, so a record with a conversion
operator, with base classes, or whose definition ptxlint cannot see is left alone. An array
decays to a pointer and is judged by PTX004 instead (nvcc reports a size mismatch for it).

## Why is this bad?
nvcc rejects it: `an asm operand must have scalar type`. A register holds one scalar; a vector
or struct has to be passed member by member (or bit-cast to an integer of the same size).

## Example
```cuda
float2 v;
asm("add.f32 %0, %0, 1.0;" : "+f"(v));
__half2 h2;
asm("mov.b32 %0, %0;" : "+r"(h2));
```

## Use instead
```cuda
asm("add.f32 %0, %0, 1.0;" : "+f"(v.x));
asm("mov.b32 %0, %0;" : "+r"(*reinterpret_cast<unsigned*>(&h2)));
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        for found in analysis_of(statement).non_scalar_operands:  # none in hipcc code
            operand = found.operand
            hint = " (pass a member such as '.x')" if "." not in operand.expression else ""
            yield self.finding(
                statement,
                operand.span,
                f"operand {operand.index} ({operand.expression}): {found.reason}; an asm "
                f"operand must have scalar type{hint}",
            )
