"""PTX614 mixed-cta-group."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.cta_groups import group_clash
from ptxlint.analysis.function_flow import flows_of
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext

from ._protocol import ALIAS_CALLS, step_span, where


class MixedCtaGroup(Rule):
    id = "PTX614"
    name = "mixed-cta-group"
    severity = Severity.ERROR
    needs = ("cta-groups",)
    summary = "tcgen05 instructions of one function name both .cta_group::1 and .cta_group::2"
    tags = ("correctness", "tcgen05")
    docs = """\
## What it does
Flags a `tcgen05` instruction (`alloc`, `dealloc`, `relinquish_alloc_permit`, `mma`, `cp`,
`shift`, `commit`) whose `.cta_group::N` differs from that of another `tcgen05` instruction
the same function compiles with it: in its own asm statements, or in the same-file and
project-header helpers it calls (a few calls deep), which are inlined into it. The finding is
at the second of the two in program order, or at the call that reaches it; where that one is a
header's helper, at the file's own. A file with no `tcgen05` asm of its own that names a
`.cta_group` is not checked: following every kernel file's header helpers, as the preview
protocol rules do, cost a default run of the CUDA 13 headers 35% more CPU and of CUTLASS's
`include/` 79% more (measured with this rule asking for it).

What counts is the code ptxas is given, not the path a thread takes: two instructions in the
two arms of `if (warp_idx == 0)`, or in two helpers called by different warps, are in one
function all the same. An arm the C++ compiler may drop is another instantiation's, so the
rule stays silent where an `if`, `?:` or `switch` that holds one instruction and not the other
tests anything but a run-time value (the thread's or block's index, a lane or warp helper,
`elect_one_sync()`, a kernel's parameter, an asm output, a local made only of those):
`if constexpr`, a template parameter, a helper's parameter a caller may pass a constant for.
Where the calls down to the helper bind that condition to a constant (`alloc<2>()` into
`if constexpr (G == 1)`, `free(taddr, true)` into `if (pair)`), the arm the constant takes is
the kernel's code and the other is not. Instructions under `#if` branches that no build takes
together (`#if X` / `#else`) are apart too; one under `#if X` and one outside every `#if` meet
in the build that defines `X`. Two instructions of one helper call are the helper's finding,
not its caller's.
""" + ALIAS_CALLS + """
## Why is this bad?
ptxas 13.0 and later reject the function, and every kernel it is inlined into: "Function 'k'
uses single CTA(.cta_group::1) and CTA pair granularity(.cta_group::2) and that is not
allowed" (measured with ptxas 13.0, 13.1 and 13.5 for sm_100a, the two instructions in
either arm of a run-time branch, or in two non-inlined functions the kernel calls). ptxas
12.8 and 12.9 accept the same PTX, so code written for them stops building on CUDA 13: CCCL
split its `cuda::ptx` tests into one kernel per `.cta_group` for that reason (NVIDIA/cccl#8297,
#8340), and LLVM split its NVPTX tcgen05 tests, the two granularities being "not supported
inside a single function" (llvm/llvm-project#162597). The rule states what ptxas enforces;
the PTX ISA text this rule was checked against says nothing of it either way.

## Example
```cuda
__global__ void gemm_2sm(uint32_t* taddr_smem, uint64_t adesc, uint64_t bdesc, uint32_t idesc) {
  if (threadIdx.x / 32 == 0)
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 128;"
                 :: "r"((uint32_t)__cvta_generic_to_shared(taddr_smem)) : "memory");
  __syncthreads();
  if (threadIdx.x == 32)
    asm volatile("tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, 1;"
                 :: "r"(*taddr_smem), "l"(adesc), "l"(bdesc), "r"(idesc) : "memory");
}
```

## Use instead
```cuda
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], 128;"
                 :: "r"((uint32_t)__cvta_generic_to_shared(taddr_smem)) : "memory");
```
Give every `tcgen05` instruction of the kernel the granularity of its MMA, or split the two
granularities into two kernels (a template parameter chosen by `if constexpr` is fine).

## Fix safety
No automatic fix: which granularity the kernel means is its design.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        flows = flows_of(context)
        if flows is None:
            return
        own = flows.parsed.text
        for flow, step in flows.steps_reaching(statement):
            clash = group_clash(flow)
            if clash is None:
                continue
            if clash.second is step:
                here, other = step, clash.first
            elif clash.first is step and clash.second.statement.source.text is not own:
                here, other = step, clash.second  # the other one is a header's helper's
            else:
                continue
            kind = "kernel" if flow.kernel else "function"
            yield self.finding(
                statement, step_span(flow, here),
                f"`{here.instruction.mnemonic}` names .{here.event.group}, but the "
                f"`{other.instruction.mnemonic}` at {where(flow, other)} of the same {kind} "
                f"{flow.name}() names .{other.event.group}: ptxas 13.0 and later reject a "
                f"function whose tcgen05 instructions use both granularities ('uses single "
                f"CTA(.cta_group::1) and CTA pair granularity(.cta_group::2)'); give them one "
                f".cta_group, or split the kernel")
