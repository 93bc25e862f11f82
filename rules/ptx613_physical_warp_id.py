"""PTX613 physical-warp-id."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.function_flow import FileFlows, flows_of
from ptxlint.analysis.index_uses import IndexUse, index_uses
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, PtxInstruction, Severity
from ptxlint.ptx.special_registers import special_register
from ptxlint.rule import Rule, RuleContext

_MOVES = frozenset({"mov", "cvt"})


def _special_reads(statement: AsmStatement, register: str
                   ) -> Iterator[tuple[PtxInstruction, int]]:
    """The instructions that move special register ``register`` (``warpid``, ``smid``)
    straight into an output operand, and which."""
    for instruction in statement.ptx.instructions:
        operands = instruction.operands
        if instruction.opcode not in _MOVES or instruction.opaque or len(operands) != 2 \
                or instruction.predicate is not None:
            continue
        destination, source = operands
        if source.kind == "special" and special_register(source.text)[0] == register \
                and destination.kind == "ref" and destination.ref is not None:
            yield instruction, destination.ref


class PhysicalWarpId(Rule):
    id = "PTX613"
    name = "physical-warp-id"
    severity = Severity.WARNING
    # a special register is spelled %%name in extended asm, %name in basic asm: a percent escape
    needs = ("percent-escapes",)
    summary = "%warpid, a warp's physical slot, used as its index in the block"
    tags = ("correctness", "warp")
    docs = """\
## What it does
Flags an asm statement that moves `%warpid` into an output (`mov.u32 %0, %%warpid;`) whose
value the file then counts with as if it were the warp's index in the block: an operand of
arithmetic or of a comparison (`w >> 2`, `warpid() < NUM_WARPS`), the index of a subscript
(`smem[warpid()]`) or a `switch` on it, through parentheses and casts. The value is followed
through the output's variable in the statement's function, and where that function returns
it (a `warpid()` getter), through the calls of the function in the same file and a local
that copies either (`int w = warpid();`).

Silent where the value is only logged or passed on: an argument to `printf` or to another
function, a store to memory or a member (a profiler recording where a warp ran), a getter that
the file never calls (a library's faithful wrapper, such as `cuda::ptx::get_sreg_warpid`: its
callers decide). Silent too where the arithmetic that uses it also counts with a value read
from `%smid` (`smid * 2048 + warpid * 32 + laneid`): that names a slot on the GPU (one
random-number state per hardware thread), which is what `%warpid` is, not a rank in the block.
`%laneid` is not flagged (it is the lane's index in its warp), nor `%smid`,
which persistent kernels read for their own scheduling where its caveats are understood.

## Why is this bad?
The PTX ISA ("Special Registers: %warpid"): `%warpid` "returns the thread's warp identifier",
which is unique among the warps of a CTA but is not their rank in it, and it "is volatile and
returns the location of a thread at the moment when read, but its value may change during
execution, e.g., due to rescheduling of threads following preemption. For this reason, `%ctaid`
and `%tid` should be used to compute a virtual warp index if such a value is needed in kernel
code; `%warpid` is intended mainly to enable profiling and diagnostic code". A slot number is
not 0..N-1 for the block's N warps: with several CTAs on one SM, a later CTA's warps sit in
higher slots, so `warpid() < NUM_WARPS` or `smem[warpid()]` picks the wrong role or indexes
past the end. Projects shipped it: ThunderKittens' `warpid()` read `%warpid` and was
rewritten to `threadIdx.x / 32`; mallocMC indexed per-warp shared arrays by it and read out of
bounds (alpaka-group/mallocMC#149); CUB documents its own `WarpId()` as "may not correspond
to a zero-based ranking within the thread block".

## Example
```cuda
__device__ int warpid() {
  int w;
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(w));
  return w;
}
__device__ int warpgroupid() { return warpid() >> 2; }
```

## Use instead
```cuda
__device__ int warpid() { return threadIdx.x / 32; }  // a 1-D block
```
For a 2-D or 3-D block, divide the linear thread index,
`(threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x`, by 32.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if "warpid" not in statement.template.text:
            return
        reads = list(_special_reads(statement, "warpid"))
        if not reads or statement.context.macro is not None \
                or analysis_of(statement).rocm_guarded:
            return
        flows = flows_of(context)
        if flows is None:
            return
        flow = flows.function_holding(statement)
        if flow is None:
            return
        for instruction, output in reads:
            if output >= len(statement.operands) or statement.operands[output].role != "output":
                continue
            uses = index_uses(flows, flow, statement, output)
            if uses:
                uses = _not_with_smid(uses, flows, context)
            if uses:
                source = instruction.operands[1]
                yield self.finding(
                    statement, self.template_span(statement, source.start, source.end),
                    _message(flows.parsed.text, flows.parsed.to_char(uses[0].byte), uses))


def _not_with_smid(uses: list[IndexUse], flows: FileFlows, context: RuleContext
                   ) -> list[IndexUse]:
    """``uses`` but those whose arithmetic also counts with a value read from ``%smid``
    (``smid * 2048 + warpid * 32 + laneid``): a slot on the GPU, which is what ``%warpid``
    is, not a rank in the block."""
    smid = [use.byte for other in context.file_statements
            if "smid" in other.template.text and other.context.macro is None
            for _, output in _special_reads(other, "smid")
            if output < len(other.operands) and other.operands[output].role == "output"
            for flow in (flows.function_holding(other),) if flow is not None
            for use in index_uses(flows, flow, other, output)]
    return [use for use in uses
            if not any(use.extent[0] <= byte < use.extent[1] for byte in smid)]


def _message(text: str, at: int, uses: list[IndexUse]) -> str:
    first = uses[0]
    line = text.count("\n", 0, at) + 1
    more = f" and {len(uses) - 1} more" if len(uses) > 1 else ""
    shown = " ".join(first.expression.split())
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return (f"'%warpid' is the warp's physical slot on the SM, not its index in the block, and "
            f"may change as the warp runs, yet `{shown}` (line {line}){more} uses it as an "
            "index: compute the index from %tid (threadIdx.x / 32 in a 1-D block); the PTX ISA "
            "meant %warpid for profiling")
