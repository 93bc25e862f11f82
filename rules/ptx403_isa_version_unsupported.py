"""PTX403 isa-version-unsupported."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.statement import analysis_of
from ptxlint.file_traits import toolkit_gate
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.ptx.instructions import instruction_ptx_requirement
from ptxlint.ptx.toolkit import oldest_compiling
from ptxlint.ptx.versions import cuda_for_ptx, format_cuda, format_ptx
from ptxlint.rule import Rule, RuleContext

# what the guards are: a C++ statement's #if conditions, or the version tests of the Python
# `if` statements around a DSL call (``frontends.python.version_guards``)
_GUARDS_NAMED = {False: "#if guards", True: "version tests"}


class IsaVersionUnsupported(Rule):
    id = "PTX403"
    name = "isa-version-unsupported"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    summary = "Instruction needs a newer PTX ISA than the oldest supported CUDA toolkit has"
    tags = ("correctness", "targets", "toolkit")
    docs = """\
## What it does
Flags an instruction form introduced in a newer PTX ISA version than the oldest CUDA toolkit
that compiles it accepts. That toolkit is the oldest the project supports, or a newer one where
the statement's `#if` guards ask for it:

- the project's oldest toolkit is `min-cuda-version` (configuration, or `--min-cuda-version`);
  without it, a `CMakeLists.txt` next to the configuration file (or in the working directory)
  that names exactly one version in `find_package(CUDAToolkit X)` (or FindCUDA's older
  `find_package(CUDA X)`) supplies it;
- a guard that tests the toolkit's version (`#if CUDA_VERSION >= 12050`,
  `__CUDACC_VER_MAJOR__ >= 12`, CCCL's `__cccl_ptx_isa >= 800`) names the oldest toolkit it
  admits, and that toolkit must accept every form inside it. This needs no setting: the guard
  is the author's own word that CUDA 12.0 builds the branch, so `st.async` (PTX ISA 8.1)
  under `__CUDACC_VER_MAJOR__ >= 12` breaks the build with CUDA 12.0.

Without a setting, a statement whose guards test no toolkit version, or bound it only from
above (the fallback of `#if CUDA_VERSION >= 12090`), is not reported: its oldest toolkit is
the project's to say.

A folder whose `CMakeLists.txt` (its own or one above it) puts every command inside
`if(CUDA_VERSION VERSION_GREATER_EQUAL X) ... endif()` (`CUDAToolkit_VERSION`,
`CMAKE_CUDA_COMPILER_VERSION`, or `NOT ... VERSION_LESS X` alike, alone or AND-ed with other
conditions, no `else`) adds no target
and no subdirectory with an older toolkit: the files under it are held to CUDA X where the
project's oldest toolkit, or a guard, admits an older one. A vendored TensorRT-LLM folder
gated on CUDA 12.8 inside a project that asks for CUDA 11.8 is not told that its `wgmma`
breaks the 11.8 build.

Each toolkit's ptxas accepts PTX up to its own ISA version: CUDA 12.4 knows PTX ISA 8.4, 12.8
knows 8.7, 13.0 knows 9.0, and before CUDA 9 the numbers differ: 8.0 knows 5.0, 7.5 4.3 (the
ISA manual's release history, from CUDA 5.0 on). A toolkit also compiles only for the targets
it knows: with `min-cuda-version = "8.0"`, a branch under `__CUDA_ARCH__ >= 700` is first
compiled by CUDA 9.0. The version an instruction needs
comes from its "PTX ISA Notes", checked form by form against what ptxas 13.0 asks under an
older `.version` (`benchmarks/ptxas_isa_versions.py`): `cp.async.bulk` and `wgmma` 8.0
(sparse `wgmma` 8.2, and 8.4 with mixed integer types, `.s8.u8` or `.u8.s8`),
`.shared::cluster` 7.8, `tcgen05`, `clusterlaunchcontrol`, `mbarrier`'s `.relaxed` and the
`.tile::scatter4` of `cp.async.bulk.tensor` 8.6, `ld`/`st` `.v8` 8.8, and so on; a special
register among its operands counts too (ptxas: "Feature '%aggr_smem_size' requires PTX ISA
.version 8.1"): `%aggr_smem_size` 8.1, `%current_graph_exec` 8.0, the cluster registers 7.8,
`%reserved_smem_offset_*` 7.6. A
statement whose `#if` guards keep that toolkit out (`#if CUDA_VERSION >= 12080`,
`__CUDACC_VER_MAJOR__ >= 13`, CCCL's `__cccl_ptx_isa >= 860`, or an architecture the toolkit
does not know) is not reported; nor is one under a guard ptxlint cannot decide (a project's
own feature macro, usually set from the toolkit version in a header). A guard macro the file
or a header it includes by relative path defines is read through its definition: lmdeploy's
`#if TURBOMIND_ARCH_SM80`, 1 under `__CUDA_ARCH__ >= 800`, tests the architecture only, so
CUDA 11.3 compiles the branch.

`cuda-version` is a different setting: the toolkit whose ptxas the instruction verdicts of
PTX204/PTX206/PTX207 are for. A form that toolkit rejects too (`cvt.rn.bf16x2.e2m1x2`, new in
CUDA 13.2, under the default 13.0), or a spelling no form has, is PTX204's one finding: this
rule says nothing of it.

## Why is this bad?
The build breaks on the toolkits the project (or the guard) says it supports: ptxas stops with
"Not a name of any known instruction", "Unknown modifier" or "Feature 'st.async' requires PTX
ISA .version 8.1 or later", but only for users who build with the older toolkit.

## Example
```cuda
// min-cuda-version = "12.4"
asm volatile("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes"
             ".b128 [%0], [%1];" :: "r"(result), "r"(bar) : "memory");

#if __CUDACC_VER_MAJOR__ >= 12  // admits CUDA 12.0: PTX ISA 8.0
asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];"
             :: "r"(remote), "r"(value), "r"(remote_bar) : "memory");  // PTX ISA 8.1
#endif
```

## Use instead
```cuda
#if CUDA_VERSION >= 12080  // PTX ISA 8.6 arrived with CUDA 12.7; 12.8 is the first with sm_100
asm volatile("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes"
             ".b128 [%0], [%1];" :: "r"(result), "r"(bar) : "memory");
#endif

#if CUDA_VERSION >= 12010
asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];"
             :: "r"(remote), "r"(value), "r"(remote_bar) : "memory");
#endif
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        configured = context.options.get("min_cuda_version")
        since = configured if isinstance(configured, tuple) else None
        analysis = analysis_of(statement)
        macros = statement.context.guard_macros
        gate = toolkit_gate(statement.source)
        if gate is not None and since is not None and gate[0] <= since:
            gate = None  # the project's own oldest toolkit already builds the folder
        if gate is not None and since is not None:
            since = gate[0]  # the folder is built from a newer toolkit on than the project
        oldest = oldest_compiling(analysis.guards, macros, since)
        if oldest is not None and gate is not None and oldest[0] < gate[0]:
            oldest = oldest_compiling(analysis.guards, macros, gate[0])
        if oldest is None:
            return  # no toolkit certainly compiles it, or nothing says which is the oldest
        version, accepted = oldest
        cuda_version = context.options.get("cuda_version")
        for instruction in statement.ptx.instructions:
            if instruction.opaque:
                continue
            needed, feature = instruction_ptx_requirement(instruction)
            if needed <= accepted:
                continue
            if analysis.instruction_unknown(instruction):
                continue  # an unknown modifier is PTX204's
            spelling = analysis.spelling_issue(instruction, cuda_version)
            if spelling is not None and spelling.severity == "error":
                continue  # a spelling the run's own toolkit rejects is PTX204's
            first = cuda_for_ptx(needed)
            since_text = f"CUDA {format_cuda(first)} or newer" if first else "a newer CUDA"
            span = self.template_span(statement, instruction.opcode_start, instruction.opcode_end)
            if gate is not None and version == gate[0]:
                message = (
                    f"'{instruction.mnemonic}' needs PTX ISA {format_ptx(needed)} ('{feature}': "
                    f"{since_text}), but {gate[1]} builds this folder from CUDA "
                    f"{format_cuda(version)} on, whose ptxas accepts PTX ISA "
                    f"{format_ptx(accepted)} at most: the build breaks there unless a "
                    "CUDA_VERSION guard keeps that toolkit out")
            elif version == since:
                source = context.options.get("min_cuda_version_source")
                where = f" (find_package in {source})" if source else ""
                message = (
                    f"'{instruction.mnemonic}' needs PTX ISA {format_ptx(needed)} ('{feature}': "
                    f"{since_text}), but min-cuda-version is {format_cuda(version)}{where}, whose "
                    f"ptxas accepts PTX ISA {format_ptx(accepted)} at most: the build breaks "
                    "there unless a CUDA_VERSION guard keeps that toolkit out")
            else:
                message = (
                    f"'{instruction.mnemonic}' needs PTX ISA {format_ptx(needed)} ('{feature}': "
                    f"{since_text}), but the {_GUARDS_NAMED[statement.syntax == 'llvm']} "
                    f"around it admit CUDA "
                    f"{format_cuda(version)}, whose ptxas accepts PTX ISA {format_ptx(accepted)} "
                    "at most: the build breaks there unless the guard asks for "
                    + (f"CUDA {format_cuda(first)} (PTX ISA {format_ptx(needed)})" if first
                       else f"PTX ISA {format_ptx(needed)}"))
            yield self.finding(statement, span, message)
