"""PTX601 divergent-warp-collective."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.divergence import FULL_MASK, Guard, divergent_guard, may_split, member_mask
from ptxlint.analysis.function_flow import FileFlows, FunctionFlow, flows_of
from ptxlint.analysis.lane_sets import lane_ranges, reaching_lanes, whole_block_reaches
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, PtxInstruction, Severity, Span
from ptxlint.ptx.protocols import Collective, collective
from ptxlint.rule import Rule, RuleContext

from ._protocol import byte_span, line_of

# How far up the same file's calls a collective's helper is followed: its callers, and theirs
_CALLER_DEPTH = 2
# The words that spell a collective of each `.sync` family in asm or C++ (`__shfl_xor_sync`,
# `__ballot_sync`, `__syncwarp`, `__reduce_add_sync`...): on Volta and later, the lanes a mask
# names may meet the instruction's waiters at another instruction of the same family, so a
# lane that goes elsewhere is known absent only where no such word is within its reach.
_FAMILIES: dict[str, tuple[bytes, ...]] = {
    "shfl": (b"shfl",), "vote": (b"vote", b"ballot", b"_all_sync", b"_any_sync", b"_uni_sync"),
    "bar": (b"bar.warp", b"syncwarp"), "match": (b"match",), "redux": (b"redux", b"_reduce_"),
    "elect": (b"elect",)}


class DivergentWarpCollective(Rule):
    id = "PTX601"
    name = "divergent-warp-collective"
    severity = Severity.ERROR
    needs = ("collectives",)
    summary = "A warp-collective instruction reached under a condition that splits the warp"
    tags = ("correctness", "convergence")
    docs = """\
## What it does
Flags an asm statement holding a warp-collective instruction that only part of a warp can
reach, because a condition that certainly differs between the lanes of one warp guards it:

* a `.aligned` instruction (`wgmma.*`, `mma.sync.aligned`, `ldmatrix`, `stmatrix`,
  `bar.sync`, `tcgen05.*.sync.aligned`...) inside an `if` arm on such a condition, or after
  an early `return` on one;
* a `.sync` collective whose member mask names the whole warp (`shfl.sync`, `vote.sync`,
  `match.sync`, `redux.sync`, `bar.warp.sync`, `elect.sync` with `0xffffffff`) inside an
  `if` arm on such a condition (an early `return` is not flagged for these: an exited
  thread no longer counts for them, nor is a pair of the same opcode and mask, one in each
  arm's straight-line code: every lane runs one of the two, and the ISA's wait is for the
  lanes of the mask to have "executed `shfl.sync` with the same qualifiers and same
  `membermask`", whichever instruction; on an H200, each half of the warp exchanged within
  itself);
* in a kernel, a `.sync` collective whose constant member mask names lanes that never reach
  it, where the lanes that do are known exactly: each `if` arm around it and each earlier
  early return tests the lane alone (`lane < 16`, `threadIdx.x % 32 >= 8`, `lane & 1`, joined
  by `!`, `&&`, `||`), so every warp sends the same lanes there. `if (lane < 16)` around a
  mask of `0x00ffffff` names lanes 16-23, which went elsewhere; `if (lane < 16 || lane >= 24)`
  around a full mask names them too. Lanes that returned from the kernel on the way have
  exited and are not counted, and a named lane that may meet the others at another
  collective of the same kind, in the kernel or in a same-file function it calls there (Volta
  and later let the lanes of a mask wait for each other at different instructions), is not
  reported. When a lane that reaches the instruction is
  missing from the mask, that is PTX611's finding, not this one's.

A helper holding the collective, called under such a condition from the same file (or called
by a helper that is), is reported at the call. Conditions that split a warp are comparisons of
the lane index (`threadIdx.x % 32`, `%laneid`, a lane helper) or of `threadIdx.x` with a
constant that does not fall on a warp boundary (`lane == 0`, `threadIdx.x < 16`), tests of
the lane's low bits, which every warp holds all of (`threadIdx.x % 2 == 0`, `lane & 1`), and
the `elect.sync`
predicate (`elect_one_sync()`). Uniform conditions stay silent: `threadIdx.x / 32 == 0`,
`threadIdx.x < 128`, template constants, `blockIdx`, kernel parameters, `__shfl_sync`
results. So do conditions the analysis cannot decide (`tid < n`, `data[tid] > 0`), and a
split that the uniform conditions on the way rule out: the else arm of
`if (warp == 0 && elect_one_sync())` splits warp 0 only, so an `else if (warp == 1)` under it,
or the `elect_one_sync()` of `else if (warp == 1 && elect_one_sync())`, which C++ evaluates
only once `warp == 1` held, is reached by warp 1 whole; so is the `else if (warp == 1)` of
`if (tid == 0)` where `warp` is `tid / 32` (or `tid >> 5`): warp 1 holds threads 32-63. The rule
assumes full warps of a one-dimensional block, as every full-mask collective already does.
An `if` arm that a brace in an `#if` branch may close before the collective is not taken as
holding it, nor its condition as deciding which lanes reach it: which configuration
compiles, the text does not say.

## Why is this bad?
The PTX ISA makes it undefined. For `mma`, `ldmatrix`, `stmatrix`, `wgmma` and every other
`.aligned` form: "The mandatory `.aligned` qualifier indicates that all threads in the warp
must execute the same instruction. In conditionally executed code, an [...] instruction
should only be used if it is known that all threads in the warp evaluate the condition
identically, otherwise behavior is undefined", and "the behavior [...] is undefined if [...]
any thread in the warp has exited" (9.7.14 "Warp Level Matrix Multiply-Accumulate
Instructions", 9.7.9.15 "ldmatrix"). For the `.sync` collectives, "`shfl.sync` will cause
executing thread to wait until all non-exited threads corresponding to `membermask` have
executed `shfl.sync` with the same qualifiers and same `membermask` value before resuming
execution" (9.7.9.6 "shfl.sync"; in the same words for `vote.sync`, `match.sync` and
`redux.sync`), "`bar.warp.sync` will cause executing thread to wait until all threads
corresponding to `membermask` have executed a `bar.warp.sync` with the same `membermask`
value" (9.7.13.2), and `elect.sync` "causes the executing thread to wait until all threads in
the membermask execute the elect instruction": lanes of the mask that the condition sent
elsewhere are not there to exchange with, and the lanes that came wait for lanes that are not
coming. Nothing at compile time says so, and compute-sanitizer's synccheck did not either. On
an H200 (`benchmarks/protocol_evidence.py`), a full-mask `shfl.sync` reached by lane 0 alone
read the value lane 5 held after the other arm, not at the shuffle, in every one of 4,096
warps; an `mma.sync.aligned` reached by lanes 0-15 gave wrong accumulators in every warp. CUB
shipped the partial-mask shape: with logical warps narrower than 32 lanes in a `while` loop,
`WarpScanShfl`'s shuffles could name lanes that were not there, which cuda-memcheck's synccheck
reported as "Barrier error detected. Invalid arguments" (NVIDIA/cub issue #154, NVIDIA/cccl
#854; issue #115, "bad member mask computation", broke segmented `WarpReduce` in CUDA 9). A
ballot run by lanes 0-15 of `if (threadIdx.x % 32 < 16)` with mask `0x00ffffff` finished on
an H200 (driver 580) with the vote of lanes 0-15 in each of 4,096 warps: undefined behaviour
that did no visible harm on that GPU, which is how such a mask survives until another does
otherwise.

## Example
```cuda
unsigned lane = threadIdx.x % 32;
if (lane == 0) {
  asm volatile("shfl.sync.bfly.b32 %0, %0, 16, 0x1f, 0xffffffff;" : "+f"(v));
}
```

A mask that names lanes the condition sends elsewhere:
```cuda
if (lane < 16) {  // lanes 16-23 never arrive
  asm volatile("shfl.sync.bfly.b32 %0, %0, 8, 0x1f, 0x00ffffff;" : "+f"(v));
}
```

## Use instead
```cuda
asm volatile("shfl.sync.bfly.b32 %0, %0, 16, 0x1f, 0xffffffff;" : "+f"(v));
if (lane == 0) {
  out[blockIdx.x] = v;
}
```
or a mask of the lanes that take the branch:
```cuda
if (lane < 16) {
  asm volatile("shfl.sync.bfly.b32 %0, %0, 8, 0x1f, 0x0000ffff;" : "+f"(v));
}
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        kinds = [(i, c) for i in statement.ptx.instructions
                 if not i.opaque and (c := collective(i)) is not None]
        if not kinds or analysis_of(statement).rocm_guarded:
            return
        if not may_split(context.parsed):
            return
        flows = flows_of(context)
        if flows is None:
            return
        flow = flows.function_holding(statement)
        if flow is None:
            return
        byte = flows.parsed.to_byte(statement.span.start)
        instruction, kind = next(
            ((i, c) for i, c in kinds if self._counts(statement, flow, c)), (None, None))
        if instruction is not None and kind is not None:
            guard = divergent_guard(flows, flow, byte, early_returns=kind.aligned)
            if guard is not None and not self._both_arms(statement, flows, flow, byte, guard,
                                                         instruction, kind):
                span = statement.template.source_span(instruction.opcode_start,
                                                      instruction.opcode_end)
                yield self.finding(statement, span, self._message(instruction, flow, guard))
                return
        absent = next(self._absent_lanes(statement, flows, flow, byte, kinds), None)
        if absent is not None:
            yield absent
            return
        if instruction is not None and kind is not None:
            yield from self._through_callers(statement, flows, flow, instruction, kind)

    @staticmethod
    def _both_arms(statement: AsmStatement, flows: FileFlows, flow: FunctionFlow, byte: int,
                   guard: Guard, instruction: PtxInstruction, kind: Collective) -> bool:
        """A `.sync` collective in one arm of the splitting `if`, and one of the same opcode
        and mask in the other: every lane that enters the `if` runs one of the two (each in
        its arm's straight-line code), and the lanes of the mask wait for each other across
        both, as the ISA words the wait ("executed `shfl.sync` with the same qualifiers and
        same `membermask`")."""
        if kind.aligned or guard.how not in ("if", "else"):
            return False
        ours = guard.node.child_by_field_name("consequence" if guard.how == "if"
                                               else "alternative")
        theirs = guard.node.child_by_field_name("alternative" if guard.how == "if"
                                                 else "consequence")
        if ours is None or theirs is None or not whole_block_reaches(flow, ours, byte):
            return False
        mask = member_mask(statement, kind.mask, flow)
        parsed = flows.parsed
        for other in flow.statements:
            at = parsed.to_byte(other.span.start)
            if whole_block_reaches(flow, theirs, at) and any(
                    i.opcode == instruction.opcode and c is not None and not c.aligned
                    and member_mask(other, c.mask, flow) == mask
                    for i in other.ptx.instructions if not i.opaque
                    for c in [collective(i)]):
                return True
        return False

    @staticmethod
    def _counts(statement: AsmStatement, flow: FunctionFlow, kind: Collective) -> bool:
        return kind.aligned or member_mask(statement, kind.mask, flow) == FULL_MASK

    def _absent_lanes(self, statement: AsmStatement, flows: FileFlows, flow: FunctionFlow,
                      byte: int, kinds: list[tuple[PtxInstruction, Collective]]
                      ) -> Iterator[Finding]:
        """A `.sync` collective of a kernel whose constant member mask names lanes that the
        lane conditions on the way send elsewhere, alive (an exited lane is not waited for),
        when every lane that reaches it is in the mask (one that is not is PTX611's)."""
        if statement.context.macro is not None or not flow.kernel:
            return
        for instruction, kind in kinds:
            mask = None if kind.aligned else member_mask(statement, kind.mask, flow)
            if not mask or kind.mask is None:
                continue
            lanes = reaching_lanes(flows, flow, byte)
            if lanes is None:
                return
            absent = mask & ~lanes.reach & ~lanes.exited
            if lanes.reach & ~mask or not absent \
                    or self._met_elsewhere(statement, flows, flow, instruction, mask, absent):
                continue
            span = statement.template.source_span(kind.mask.start, kind.mask.end)
            yield self.finding(statement, span, (
                f"`{instruction.mnemonic}`'s member mask {mask:#010x} names lanes "
                f"{lane_ranges(absent)}, which never reach it: the lane conditions on the way "
                f"admit lanes {lane_ranges(lanes.reach)} only, and each of those waits for "
                "every lane of the mask that has not exited"))
            return

    @staticmethod
    def _met_elsewhere(statement: AsmStatement, flows: FileFlows, flow: FunctionFlow,
                       instruction: PtxInstruction, mask: int, absent: int) -> bool:
        """Some lane of ``absent`` may execute another collective of ``instruction``'s family
        with the same mask in the kernel, or call a same-file function that spells one (or a
        place that spells one is not read)."""
        words = _FAMILIES.get(instruction.opcode, (instruction.opcode.encode(),))
        body = flow.node.child_by_field_name("body") or flow.node
        parsed, data = flows.parsed, flows.parsed.data
        spans = [(parsed.to_byte(s.span.start), parsed.to_byte(s.span.end), s)
                 for s in flow.statements]
        for word in words:
            at = data.find(word, body.start_byte, body.end_byte)
            while at >= 0:
                other = next((o for o in spans if o[0] <= at < o[1]), None)
                if other is None or (other[2] is not statement and any(
                        c is not None and not c.aligned and i.opcode == instruction.opcode
                        and member_mask(other[2], c.mask, flow) in (None, mask)
                        for i in other[2].ptx.instructions for c in [collective(i)])):
                    there = reaching_lanes(flows, flow, other[0] if other else at)
                    if there is None or there.reach & absent:
                        return True
                at = data.find(word, at + len(word), body.end_byte)
        # a call of a same-file function that spells one (its own callees are not read)
        for start, _, name, _, _ in flows.structured(flow).raw_calls:
            if any(word in data[f.node.start_byte:f.node.end_byte] for word in words
                   for f in flows.functions_named(name) if f is not flow):
                there = reaching_lanes(flows, flow, start)
                if there is None or there.reach & absent:
                    return True
        return False

    def _through_callers(self, statement: AsmStatement, flows: FileFlows, helper: FunctionFlow,
                         instruction: PtxInstruction, kind: Collective,
                         below: tuple[FunctionFlow, ...] = ()) -> Iterator[Finding]:
        """The calls of ``helper`` under a condition that splits the warp, and where a call is
        under none, the calls of its caller (``below``: the helpers called on the way down)."""
        followed: list[FunctionFlow] = []  # a caller calling it twice is followed once
        for caller, start, end in flows.callers(helper, follow=False):
            guard = divergent_guard(flows, caller, start, early_returns=kind.aligned)
            if guard is None:
                if len(below) + 1 < _CALLER_DEPTH and caller not in below \
                        and caller not in followed:
                    followed.append(caller)
                    yield from self._through_callers(statement, flows, caller, instruction,
                                                     kind, (*below, helper))
                continue
            span: Span = byte_span(caller, start, end)
            names = [f"{f.name}()" for f in (helper, *reversed(below))]
            held = " calls ".join(names[:2]) + "".join(f", which calls {n}" for n in names[2:])
            message = (f"{held}{', which' if below else ''} holds `{instruction.mnemonic}`, "
                       "which the whole warp must reach together; this call is under "
                       f"{self._guard(caller, guard)}")
            yield self.finding(statement, span, message)

    def _message(self, instruction: PtxInstruction, flow: FunctionFlow, guard: Guard) -> str:
        return (f"`{instruction.mnemonic}` must be reached by the whole warp, but it is under "
                f"{self._guard(flow, guard)}")

    @staticmethod
    def _guard(flow: FunctionFlow, guard: Guard) -> str:
        line = line_of(flow, guard.node.start_byte)
        if guard.how == "return":
            return f"the early return on `{guard.text}` (line {line}), which differs by lane"
        arm = "" if guard.how == "if" else "the else arm of "
        return f"{arm}`if {guard.text}` (line {line}), which differs by lane"
