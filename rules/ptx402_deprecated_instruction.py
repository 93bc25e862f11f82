"""PTX402 deprecated-instruction."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.statement import StatementAnalysis, analysis_of
from ptxlint.model import AsmStatement, Finding, Fix, PtxInstruction, Severity
from ptxlint.ptx.instructions import Advice, Deprecation, advice, deprecation
from ptxlint.ptx.targets import ARCHES, Target
from ptxlint.ptx.toolkit import assembles, builds_branch
from ptxlint.ptx.versions import cuda_for_ptx
from ptxlint.rule import Rule, RuleContext

_FULL_MASK = "0xffffffff"


class DeprecatedInstruction(Rule):
    id = "PTX402"
    name = "deprecated-instruction"
    pure = True
    scope = "statement"
    severity = Severity.WARNING
    needs = ("deprecated-opcodes",)
    summary = "Instruction form the PTX ISA deprecated or removed"
    tags = ("correctness", "targets")
    docs = """\
## What it does
Flags instruction forms the PTX ISA marks deprecated: `shfl` and `vote` without `.sync`
(deprecated in PTX ISA 6.0, removed for sm_70 and newer from PTX ISA 6.4). It is an error when
the statement is compiled for sm_70 or newer (`--arch`, or `#if __CUDA_ARCH__ >= 700`-style
guards) and a warning otherwise; statements only compiled below sm_70 (under
`#if __CUDA_ARCH__ < 700`) are left alone, and so are branches that no supported toolkit
(CUDA 11.0 and newer) compiles (`#if __CUDACC_VER_MAJOR__ < 9`, `#if CUDA_VERSION < 9000`),
directly or through a macro of the file: the `#else` of `#ifdef USE_SYNC`, where the file
defines `USE_SYNC` under `__CUDACC_VER_MAJOR__ >= 9 && __CUDA_ARCH__ >= 300`, is the
fallback no supported build takes.
With `--arch`, a guard the rule cannot decide leaves the statement unchecked; a header's
include guard (`#ifndef X_H` / `#define X_H` around the whole file) is not one. With several
targets (`--arch sm_60,sm_80`), it is an error when one of the listed targets the statement is
compiled for is sm_70 or newer: that build fails, whatever the older one does.

It also reports, as info, a form ptxas takes but advises against: `mma.sp` without
`::ordered_metadata` (ptxas 13.0, on every target: "Modifier '.sp::ordered_metadata' should be
used on instruction 'mma' instead of modifier '.sp'"). Not where the form is PTX204's (the FP8
types have only `.sp::ordered_metadata`), nor in a branch only toolkits older than the
configured `cuda-version` build (the `#else` of `__CUDACC_VER_MAJOR__ >= 12`), nor where that
toolkit is older than the advised modifier: neither can use it. The fix is unsafe:
`.sp::ordered_metadata` needs PTX ISA 8.5 (CUDA 12.5), and reads the sparsity metadata as the
PTX ISA's section on it describes for that modifier: check the metadata the kernel builds
before taking it.

## Why is this bad?
ptxas 13.0: "Instruction 'shfl' without '.sync' is not supported on .target sm_70 and higher
from PTX ISA version 6.4". The old forms also assume the whole warp runs in lockstep, which
independent thread scheduling (Volta and newer) no longer guarantees.

## Example
```cuda
asm volatile("shfl.idx.b32 %0, %1, %2, 0x1f;" : "=r"(v) : "r"(x), "r"(lane));
```

## Use instead
```cuda
asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(v) : "r"(x), "r"(lane));
```

## Fix safety
The fix inserts `.sync` and appends the member mask `0xffffffff` (all lanes) as the last
operand. It is unsafe: when not all 32 lanes execute the statement, a full mask is undefined
behaviour; pass the mask of the lanes that really participate (`__activemask()` at the call
site is the closest to the old meaning).
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        for instruction in statement.ptx.instructions:
            if instruction.opaque:
                continue
            advised = advice(instruction.opcode, instruction.modifiers)
            if advised is not None:
                yield from self._advise(statement, instruction, advised, context)
                continue
            old = deprecation(instruction.opcode, instruction.modifiers)
            if old is None:
                continue
            severity = _severity(old, analysis_of(statement), context)
            if severity is None:
                return
            span = self.template_span(statement, instruction.opcode_start, instruction.opcode_end)
            removed = f"; removed for sm_{old.removed_sm}+ from PTX ISA {old.removed_ptx / 10:.1f}"
            yield self.finding(
                statement,
                span,
                old.message + removed,
                fix=self._fix(statement, instruction, old),
                severity=severity,
            )

    def _advise(self, statement: AsmStatement, instruction: PtxInstruction, advised: Advice,
                context: RuleContext) -> Iterator[Finding]:
        """An info where ptxas advises another modifier: not where the form is PTX204's (no
        such form: ``mma.sp`` of e4m3, which only ``.sp::ordered_metadata`` spells), nor in a
        branch only older toolkits build (the ``#else`` of ``__CUDACC_VER_MAJOR__ >= 12``),
        nor for a configured toolkit (``cuda-version``) older than the advised modifier."""
        analysis = analysis_of(statement)
        cuda_version = context.options.get("cuda_version")
        if analysis.no_device_build or analysis.spelling_issue(instruction, cuda_version) \
                is not None or not builds_branch(analysis.guards, cuda_version) \
                or not assembles(cuda_for_ptx(advised.ptx), cuda_version):
            return
        where = statement.template.text.find(f".{advised.modifier}", instruction.opcode_start,
                                             instruction.opcode_end)
        span = self.template_span(statement, instruction.opcode_start, instruction.opcode_end)
        edit = self.template_edit(statement, where + 1, where + 1 + len(advised.modifier),
                                  advised.advised) if where >= 0 else None
        fix = Fix(f"use '.{advised.advised}'", (edit,), safe=False) if edit else None
        yield self.finding(
            statement, span,
            f"'.{advised.modifier}' works, but {advised.why}; '.{advised.advised}' needs PTX "
            f"ISA {advised.ptx / 10:.1f}",
            fix=fix, severity=Severity.INFO)

    def _fix(
        self, statement: AsmStatement, instruction: PtxInstruction, old: Deprecation
    ) -> Fix | None:
        if not instruction.operands:
            return None
        opcode_end = instruction.opcode_start + len(instruction.opcode)
        insert = self.template_edit(
            statement, instruction.opcode_start, opcode_end, f"{old.opcode}.{old.current}"
        )
        last = instruction.operands[-1]
        append = self.template_edit(statement, last.start, last.end, f"{last.text}, {_FULL_MASK}")
        if insert is None or append is None:
            return None
        return Fix(
            f"use '{old.opcode}.{old.current}' with a full member mask",
            (insert, append),
            safe=False,
        )


def _severity(
    old: Deprecation, analysis: StatementAnalysis, context: RuleContext
) -> Severity | None:
    """Error where the form is removed, warning elsewhere, None when never compiled where it
    matters."""
    if analysis.no_device_build:
        # a branch for toolkits older than any supported one (CUDA < 11), or one a file
        # macro keeps from every supported target and toolkit (#ifndef USE_SYNC)
        return None
    if context.listed_targets:
        # an undecided guard leaves it unchecked; a header's include guard is none. Of several
        # targets, each build that compiles the statement counts: one where the form is
        # removed fails, whatever the others do
        built = [sm for sm, suffix in context.listed_targets
                 if analysis.compiled_for_arch(Target(sm, suffix))]
        if not built:
            return None
        return Severity.ERROR if max(built) >= old.removed_sm else Severity.WARNING
    reached = [sm for sm in ARCHES if analysis.compiled_for(Target(sm))]
    if not reached:
        return None
    if all(sm < old.removed_sm for sm in reached):
        return None  # under a `__CUDA_ARCH__ < 700` guard: the form is still valid there
    if all(sm >= old.removed_sm for sm in reached):
        return Severity.ERROR
    return Severity.WARNING
