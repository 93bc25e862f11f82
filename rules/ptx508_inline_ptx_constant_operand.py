"""PTX508 inline-ptx-constant-operand."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.statement import analysis_of
from ptxlint.analysis.template_refs import refs_of
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.ptx.grammar import judged
from ptxlint.ptx.instructions import is_opcode
from ptxlint.ptx.toolkit import toolkit_accepts
from ptxlint.rule import Rule, RuleContext

from ._llvm import llvm_call


class InlinePtxConstantOperand(Rule):
    id = "PTX508"
    name = "inline-ptx-constant-operand"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    needs = ("immediate-operand",)
    summary = "A constant inline_ptx input lowered to an immediate the instruction rejects"
    tags = ("correctness", "operands", "python")
    docs = """\
## What it does
Flags a compile-time constant in `read_only_args` of CuTe DSL's `cute.arch.inline_ptx` (or
MLIR's `nvvm.inline_ptx`) whose placeholder sits where the instruction takes a register, not
an immediate: a packed or half-precision operand (`max.xorsign.abs.bf16x2`), an integer
literal for a `.f32` operand, and the other slots the instruction grammar knows.

## Why is this bad?
The user writes no constraint: MLIR's NVVM lowering chooses it, and gives every value defined
by a constant (`Int32(0)`, a Python `0`, a module constant) the immediate constraint `n`. The
template then reaches ptxas with the literal in the register's place, and ptxas rejects the
kernel ("Arguments mismatch for instruction 'max'", CUTLASS issue 3640 and PR 3642;
reproduced with nvidia-cutlass-dsl 4.8.1 for sm_90a). Nothing in the Python source shows that
the operand became an immediate.

## Example
```python
zero = Int32(0)
cute.arch.inline_ptx("max.xorsign.abs.bf16x2 {$w0}, {$r0}, {$r1};",
                     write_only_types=[Int32], read_only_args=[zero, value])
```

## Use instead
Put the constant in the template where the instruction takes one, or move it into a register
inside the template:
```python
cute.arch.inline_ptx(
    "{\\n.reg .b32 z;\\nmov.b32 z, 0;\\nmax.xorsign.abs.bf16x2 {$w0}, z, {$r0};\\n}",
    write_only_types=[Int32], read_only_args=[value])
```

## Fix safety
No fix is offered: where the constant belongs is the author's choice.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        call = llvm_call(statement)
        if call is None or call.api != "cute-ptx":
            return
        constants = {o.index: o for o in statement.operands if o.constraint.letters == "n"}
        if not constants:
            return
        analysis = analysis_of(statement)
        refs = refs_of(statement)
        for instruction in statement.ptx.instructions:
            if instruction.opaque or not is_opcode(instruction.opcode):
                continue
            if not judged(instruction.opcode, instruction.modifiers):
                continue
            for issue in analysis.verdict(instruction).issues:
                if issue.kind != "operand":
                    continue
                if toolkit_accepts(issue, context.options.get("cuda_version"), analysis.guards):
                    continue
                hit = next(
                    (t for t in refs.within(issue.start, issue.end) if t.index in constants), None
                )
                if hit is None or hit.index is None:
                    continue
                operand = constants[hit.index]
                span = self.template_span(statement, hit.start, hit.end)
                written = statement.source.text[span.start : span.end]
                # the grammar speaks of the lowered `$K`; the user wrote the placeholder
                reason = issue.message.replace(f"'${hit.index}'", f"'{written}'")
                yield self.finding(
                    statement,
                    span,
                    f"read_only_args value '{operand.expression}' is a constant, which "
                    f"inline_ptx lowers to the immediate constraint 'n', but "
                    f"'{instruction.mnemonic}' takes a register there ({reason}); "
                    "ptxas rejects the kernel",
                )
                break
