"""PTX401 arch-unsupported-instruction."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.ptx.instructions import Requirement, requirement
from ptxlint.ptx.targets import Target, compiled_for, lowest_target, statement_guards
from ptxlint.rule import Rule, RuleContext


class ArchUnsupportedInstruction(Rule):
    id = "PTX401"
    name = "arch-unsupported-instruction"
    severity = Severity.ERROR
    summary = "Instruction needs a newer GPU than the statement is compiled for"
    tags = ("correctness", "targets")
    docs = """\
## What it does
Flags an instruction whose minimum target is above the architecture the statement is compiled
for. The target is `--arch` (or `arch` in the configuration) when given; otherwise the lowest
architecture the statement's `#if __CUDA_ARCH__ ...` guards (and an enclosing CCCL
`NV_IF_TARGET(NV_PROVIDES_SM_XX, ...)`) let it compile for. Minimums come from the PTX ISA's
target notes: `cp.async` sm_80, `ldmatrix` sm_75, `redux.sync` sm_80, `elect.sync`,
`mbarrier.try_wait` and clusters (`.shared::cluster`) sm_90, `wgmma` and `setmaxnreg` sm_90a,
`tcgen05` sm_100a.

Features that need an architecture-specific target (`sm_90a`) are checked against `--arch`
only: `-arch=sm_90a` and `-arch=sm_90` both define `__CUDA_ARCH__ == 900`.

## Why is this bad?
ptxas refuses the instruction for the older target ("Feature ... requires .target sm_NN or
higher"), so the build breaks for every user who targets that GPU, often in a configuration
the author never built.

## Example
```cuda
#if __CUDA_ARCH__ >= 750
asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(s), "l"(g));
#endif
```

## Use instead
```cuda
#if __CUDA_ARCH__ >= 800
asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(s), "l"(g));
#endif
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if context.arch is not None:
            guards = statement_guards(statement)
            target = Target(context.arch, context.arch_suffix)
            if not compiled_for(guards, target, unknown_holds=False):
                return
            from_arch = True
        else:
            lowest = lowest_target(statement_guards(statement, local_only=True))
            if lowest is None:
                return
            target = lowest
            from_arch = False
        for instruction in statement.ptx.instructions:
            if instruction.opaque:
                continue
            need = requirement(instruction.opcode, instruction.modifiers)
            problem = _shortfall(need, target, from_arch)
            if problem is None:
                continue
            span = self.template_span(statement, instruction.opcode_start, instruction.opcode_end)
            source = "--arch" if from_arch else "its #if guards"
            yield self.finding(
                statement,
                span,
                f"'{instruction.mnemonic}' needs {problem} ({need.feature}), but the statement "
                f"is compiled for {target} ({source})",
            )


def _shortfall(need: Requirement, target: Target, check_suffix: bool) -> str | None:
    if need.sm > target.sm:
        return f"sm_{need.sm}{need.suffix} or newer"
    if check_suffix and need.only and target.sm not in need.only:
        listed = ", ".join(f"sm_{sm}{need.suffix}" for sm in need.only)
        return f"{listed} (it exists on no other target)"
    if check_suffix and need.suffix == "a" and target.suffix not in ("a", "f"):
        return f"an architecture-specific target such as sm_{max(need.sm, target.sm)}a"
    return None
