"""PTX403 isa-version-unsupported."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.ptx.instructions import ptx_requirement
from ptxlint.ptx.targets import toolkit_compiles
from ptxlint.ptx.versions import cuda_for_ptx, format_cuda, format_ptx, ptx_for_cuda
from ptxlint.rule import Rule, RuleContext


class IsaVersionUnsupported(Rule):
    id = "PTX403"
    name = "isa-version-unsupported"
    pure = True
    preview = True
    scope = "statement"
    severity = Severity.ERROR
    summary = "Instruction needs a newer PTX ISA than the oldest supported CUDA toolkit has"
    tags = ("correctness", "targets", "toolkit")
    docs = """\
## What it does
Flags an instruction form introduced in a newer PTX ISA version than the oldest CUDA toolkit
the project supports accepts. That toolkit is `min-cuda-version` (configuration, or
`--min-cuda-version`); without it, a `CMakeLists.txt` next to the configuration file (or in the
working directory) that names exactly one `find_package(CUDAToolkit X)` supplies it. Without
either, the rule is silent.

Each toolkit's ptxas accepts PTX up to its own ISA version: CUDA 12.4 knows PTX ISA 8.4, 12.8
knows 8.7, 13.0 knows 9.0 (the ISA manual's release history). The version an instruction needs
comes from its "PTX ISA Notes": `cp.async.bulk` and `wgmma` 8.0, `.shared::cluster` 7.8,
`tcgen05`, `clusterlaunchcontrol` and `mbarrier`'s `.relaxed` 8.6, `ld`/`st` `.v8` 8.8, and
so on. A statement whose `#if` guards keep that toolkit out (`#if CUDA_VERSION >= 12080`,
`__CUDACC_VER_MAJOR__ >= 13`, CCCL's `__cccl_ptx_isa >= 860`, or an architecture the toolkit
does not know) is not reported; nor is one under a guard ptxlint cannot decide (a project's
own feature macro, usually set from the toolkit version in a header). A guard macro the file
or a header it includes by relative path defines is read through its definition: lmdeploy's
`#if TURBOMIND_ARCH_SM80`, 1 under `__CUDA_ARCH__ >= 800`, tests the architecture only, so
CUDA 11.3 compiles the branch.

`cuda-version` is a different setting: the toolkit whose ptxas the instruction verdicts of
PTX204/PTX206/PTX207 are for. This rule is in preview.

## Why is this bad?
The build breaks on the toolkits the project says it supports: ptxas stops with "Not a name of
any known instruction", "Unknown modifier" or "... requires PTX ISA .version 8.6 or later",
but only for users who build with the older toolkit.

## Example
```cuda
// min-cuda-version = "12.4"
asm volatile("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes"
             ".b128 [%0], [%1];" :: "r"(result), "r"(bar) : "memory");
```

## Use instead
```cuda
#if CUDA_VERSION >= 12080  // PTX ISA 8.6 arrived with CUDA 12.7; 12.8 is the first with sm_100
asm volatile("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes"
             ".b128 [%0], [%1];" :: "r"(result), "r"(bar) : "memory");
#endif
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        oldest = context.options.get("min_cuda_version")
        if not isinstance(oldest, tuple):
            return
        accepted = ptx_for_cuda(oldest)
        if accepted is None:
            return  # newer than every version the table knows
        analysis = analysis_of(statement)
        compiled: bool | None = None
        for instruction in statement.ptx.instructions:
            if instruction.opaque or analysis.instruction_unknown(instruction):
                continue  # an unknown spelling is PTX204's
            needed, feature = ptx_requirement(instruction.opcode, instruction.modifiers)
            if needed <= accepted:
                continue
            if compiled is None:
                compiled = toolkit_compiles(analysis.guards, oldest, accepted,
                                            statement.context.guard_macros)
            if not compiled:
                return
            first = cuda_for_ptx(needed)
            since = f"CUDA {format_cuda(first)} or newer" if first else "a newer CUDA"
            source = context.options.get("min_cuda_version_source")
            where = f" (find_package in {source})" if source else ""
            yield self.finding(
                statement,
                self.template_span(statement, instruction.opcode_start, instruction.opcode_end),
                f"'{instruction.mnemonic}' needs PTX ISA {format_ptx(needed)} ('{feature}': "
                f"{since}), but min-cuda-version is {format_cuda(oldest)}{where}, whose ptxas "
                f"accepts PTX ISA {format_ptx(accepted)} at most: the build breaks there unless "
                "a CUDA_VERSION guard keeps that toolkit out",
            )
