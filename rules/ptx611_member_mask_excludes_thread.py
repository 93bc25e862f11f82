"""PTX611 member-mask-excludes-thread."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ptxlint.analysis.divergence import FULL_MASK, member_mask
from ptxlint.analysis.function_flow import FileFlows, FunctionFlow, flows_of
from ptxlint.analysis.lane_sets import lane_ranges, reaching_lanes
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, PtxInstruction, PtxOperand, Severity
from ptxlint.ptx.protocols import collective
from ptxlint.rule import Rule, RuleContext


def _lanes(mask: int) -> str:
    """The lanes a mask leaves out, as ranges: ``24-31``, ``0, 2-3``."""
    return lane_ranges(~mask & FULL_MASK)


# the file's flows, the function holding the statement, and the statement's byte there
_Place = tuple[FileFlows | None, FunctionFlow | None, int]

_ACTS = {"shfl": "exchanges", "match": "compares", "redux": "reduces"}
_CALL = re.compile(r"[A-Za-z_]\w*\s*\(")


def _mask_is_data(statement: AsmStatement, mask: PtxOperand,
                  data: PtxOperand | None) -> str | None:
    """The C++ expression bound both to a collective's member mask and to the source whose
    per-lane values it exchanges (the same asm operand, or two bound to one expression);
    ``None`` otherwise, and for a call, whose two evaluations may differ."""
    if data is None or data is mask or mask.ref is None or data.ref is None:
        return None
    operands = statement.operands
    if not (mask.kind == data.kind == "ref" and max(mask.ref, data.ref) < len(operands)):
        return None
    text = " ".join(operands[mask.ref].expression.split())
    if not text or " ".join(operands[data.ref].expression.split()) != text:
        return None
    return None if _CALL.search(text) else text


class MemberMaskExcludesThread(Rule):
    id = "PTX611"
    name = "member-mask-excludes-thread"
    severity = Severity.ERROR
    needs = ("collectives",)
    summary = "A .sync collective executed by a lane its member mask leaves out"
    tags = ("correctness", "convergence")
    docs = """\
## What it does
Flags the member mask of a `.sync` warp collective (`shfl.sync`, `vote.sync`, `match.sync`,
`redux.sync`, `elect.sync`, `bar.warp.sync`) that leaves out a lane certain to execute it:

* a mask that names no lane (`0`): whichever thread executes the instruction is not in it;
* a mask that leaves out some lanes (`0x00ffffff`, `0xffff`) on an instruction of a kernel
  whose lanes that reach it are known exactly and include one the mask leaves out. Every lane
  reaches the kernel's straight-line code (no `if` arm, loop, `switch` or lambda around it,
  nothing before it that spells a way out: `goto`, an asm `ret`, `exit` or `trap`, a
  `return`); under `if` arms and past early returns whose conditions test the lane alone
  (`lane < 16`, `threadIdx.x % 32 >= 8`, `%laneid`, a lane helper, `lane & 1`, joined by `!`,
  `&&`, `||`), the lanes they admit reach it, the same in every warp: `if (lane < 16)` around
  a mask of `0xffff0000` runs lanes 0-15 outside it. A loop whose condition is the same in
  every lane (a counter that starts and steps alike in all of them, `for (int d = 1; d < 16;
  d *= 2)`, against a kernel parameter or a constant) and whose body spells no `break`,
  `continue`, `return` or `goto` is run, turn by turn, by every lane that enters it (cuSZ's
  scan ran `__shfl_up_sync(0xf, ...)` over a full warp in such a loop). A condition on
  anything else (data, a parameter, the warp index, `threadIdx.x < 16`, which admits lanes
  0-15 of warp 0 and no lane of the others) leaves the rule silent.

* a mask that is the data the instruction works on: `shfl.sync`, `match.sync` or
  `redux.sync` whose member mask is bound to the same C++ expression as its source `a` (the
  same asm operand, or two bound to one expression, `"r"(x)` twice). The source is what the
  lanes exchange, compare or reduce, so each lane names a mask of its own, and the executing
  lane is in it only where its value happens to have that bit set.

A mask that names lanes that never reach the instruction, while every lane that does is in
it, is PTX601's finding.

The mask is read where it is certain: an immediate, or an operand bound to a C++ constant
(a literal, or a local defined once from one). A mask computed at run time (`__activemask()`,
a ballot, a parameter) that is not the instruction's own source, a source and mask that are
one call (`__activemask()` twice: two evaluations), and a collective inside a `__device__`
helper with a partial mask (its callers may run it in part of a warp) stay silent. Like
PTX601, the rule assumes full warps of a one-dimensional block: a block whose size is not a
multiple of 32, whose last warp's missing lanes execute nothing, is the case it cannot tell.

## Why is this bad?
The PTX ISA makes it undefined, in the same words for each of these instructions: "The
behavior of `shfl.sync` is undefined if the executing thread is not in the `membermask`"
(likewise for `bar.warp.sync`, `vote.sync`, `match.sync` and `redux.sync`; for `elect.sync`:
"The behavior is undefined if the executing thread is not in membermask"). The mask says
which lanes take part and must wait for each other; a lane outside it that executes the
instruction anyway has no defined result, and on sm_6x and below the warp must also have
converged on the instruction. Nothing at compile time says so: ptxas takes any 32-bit mask.
On an H200 (`tests/test_ptx611_member_mask.py`), a ballot of 1 with mask `0x0000ffff` that
the whole warp ran gave `0xffffffff` in every one of 4,096 warps, counting the lanes the
mask leaves out, where the same ballot run by lanes 0-15 alone gave the masked `0x0000ffff`;
a converged warp's `shfl.sync` with mask `0` or `0x00ffffff` read as with a full one, so the
defect may sit unseen until another GPU or compiler does otherwise. Under a lane condition it
did not stay unseen: lanes 0-15 of `if (threadIdx.x % 32 < 16)` running a ballot whose mask
names lanes 0-7 (or lanes 16-31) stopped the kernel with "an illegal instruction was
encountered", built for sm_80 and for sm_90 (driver 580). The typical cause is a mask with
digits lost (`0xffffff` for `0xffffffff`: catboost fixed `__shfl_sync(0xFFFFFF, ...)` in
`linear_solver.cu`, issue #2339), a placeholder `0` left in, or a mask written for other lanes
than the branch admits. The PTX ISA also makes each of them wait until "all non-exited
threads corresponding to membermask have executed [it] with the same qualifiers and same
membermask value": a mask that is the value the lanes exchange differs from lane to lane
(where every lane holds the same value, the exchange has nothing to move). The typical cause
is an operand slot written for the data where the mask belongs (`shfl.up.sync.b32 r|p, %1,
%2, %3, %4;` with `%4` the summand bound to `x`, as `%1` is).

## Example
```cuda
__global__ void sum_rows(float* out, const float* in) {
  float v = in[threadIdx.x];
  asm volatile("shfl.sync.bfly.b32 %0, %0, 16, 0x1f, 0xffffff;" : "+f"(v));  // lanes 24-31?
  out[threadIdx.x] = v;
}
```

Under a lane condition:
```cuda
unsigned lane = threadIdx.x % 32;
if (lane < 16) {  // lanes 0-15 run it; the mask names lanes 16-31
  asm volatile("shfl.sync.idx.b32 %0, %0, 0, 0x1f, 0xffff0000;" : "+f"(v));
}
```

With the source in the mask's slot:
```cuda
asm("shfl.sync.up.b32 %0, %1, %2, 0, %3;" : "=r"(r) : "r"(x), "r"(delta), "r"(x));  // mask: x
```

## Use instead
```cuda
__global__ void sum_rows(float* out, const float* in) {
  float v = in[threadIdx.x];
  asm volatile("shfl.sync.bfly.b32 %0, %0, 16, 0x1f, 0xffffffff;" : "+f"(v));
  out[threadIdx.x] = v;
}
```
and the mask of the lanes the condition admits:
```cuda
if (lane < 16) {
  asm volatile("shfl.sync.idx.b32 %0, %0, 0, 0x1f, 0x0000ffff;" : "+f"(v));
}
```
and a mask of its own for a shuffle whose source took the mask's slot:
```cuda
asm("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(r) : "r"(x), "r"(delta));
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        masked: list[tuple[PtxInstruction, PtxOperand, PtxOperand | None]] = [
            (i, mask, c.data) for i in statement.ptx.instructions
            if not i.opaque and (c := collective(i)) is not None and not c.aligned
            and (mask := c.mask) is not None]
        if not masked or analysis_of(statement).rocm_guarded:
            return
        place: _Place | None = None  # the function, looked up once
        for instruction, mask, data in masked:
            value = member_mask(statement, mask)
            if value is None and mask.kind == "ref":
                place = place or self._function(statement, context)
                value = member_mask(statement, mask, place[1])
            if value is None and (shared := _mask_is_data(statement, mask, data)) is not None:
                yield self._finding(statement, mask, (
                    f"`{instruction.mnemonic}`'s member mask is `{shared}`, the value it "
                    f"{_ACTS[instruction.opcode]} lane by lane: each lane names its own mask, "
                    "and the PTX ISA asks every lane in the mask to execute it with the same "
                    "one, the executing lane among them (where all lanes hold one value, "
                    "there is nothing to exchange)"))
                continue
            if value is None or value == FULL_MASK:
                continue
            if value == 0:
                yield self._finding(statement, mask, (
                    f"`{instruction.mnemonic}`'s member mask names no lane: the thread that "
                    "executes it is never in the mask, which the PTX ISA leaves undefined"))
                continue
            if statement.context.macro is not None:
                continue  # a macro's body may hold a condition the call site does not show
            place = place or self._function(statement, context)
            flows, flow, byte = place
            if flows is None or flow is None or not flow.kernel:
                continue
            lanes = reaching_lanes(flows, flow, byte)
            if lanes is None or not lanes.reach & ~value:
                continue
            if lanes.reach == FULL_MASK:
                yield self._finding(statement, mask, (
                    f"every thread of the kernel reaches this `{instruction.mnemonic}`, but "
                    f"its member mask {value:#010x} leaves out lanes {_lanes(value)}, which "
                    "execute it outside the mask (undefined in the PTX ISA)"))
            else:
                yield self._finding(statement, mask, (
                    f"lanes {lane_ranges(lanes.reach)} of every warp reach this "
                    f"`{instruction.mnemonic}` (the lane conditions on the way admit them), but "
                    f"its member mask {value:#010x} leaves out lanes "
                    f"{lane_ranges(lanes.reach & ~value)} of them, which execute it outside the "
                    "mask (undefined in the PTX ISA)"))

    @staticmethod
    def _function(statement: AsmStatement, context: RuleContext) -> _Place:
        flows = flows_of(context)
        if flows is None:
            return None, None, 0
        byte = flows.parsed.to_byte(statement.span.start)
        return flows, flows.function_at(byte, follow=False), byte

    def _finding(self, statement: AsmStatement, mask: PtxOperand, message: str) -> Finding:
        return self.finding(statement, statement.template.source_span(mask.start, mask.end),
                            message)
