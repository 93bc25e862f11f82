"""PTX616 bulk-store-source-overwritten."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.function_flow import FileFlows, FunctionFlow, Step, flows_of, steps_of_kind
from ptxlint.analysis.store_sources import Overwrite, overwrites, overwritten_by_others
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.ptx.protocols import BULK_STORE
from ptxlint.rule import Rule, RuleContext

from ._protocol import ALIAS_CALLS, UNREADABLE_STEPS, byte_span, line_of, step_span, where


def _between(flow: FunctionFlow, found: Overwrite) -> str:
    """What lies between the store and the write, as the message says it."""
    wait = found.wait
    if wait is None:
        if found.ring is not None:
            return "with no cp.async.bulk.wait_group anywhere in the loop"
        if found.next_turn:
            return "with no cp.async.bulk.wait_group from the store to the end of the turn"
        return "with no cp.async.bulk.wait_group in between"
    mnemonic = wait.instruction.mnemonic
    if found.pending is None:
        return (f"and the `{mnemonic}` at {where(flow, wait)} comes before the store's "
                f"cp.async.bulk.commit_group, so it does not wait for the store")
    count, younger = found.pending
    return (f"but `{mnemonic} {count}` at {where(flow, wait)} lets the {count} most recent "
            f"bulk async-group(s) stay pending, and {younger} was committed after the store's")


class BulkStoreSourceOverwritten(Rule):
    id = "PTX616"
    name = "bulk-store-source-overwritten"
    preview = True
    severity = Severity.ERROR
    needs = ("instructions", "helper-calls")
    summary = "Shared memory a bulk (TMA) store reads is written before a wait completes the read"
    tags = ("correctness", "async", "tma")
    docs = """\
## What it does
Flags a write of the shared memory that a bulk store reads (`cp.async.bulk.global.shared::cta
.bulk_group`, `cp.async.bulk.tensor...global.shared::cta...bulk_group`, `cp.reduce.async.bulk`
to global: a TMA store), before a `cp.async.bulk.wait_group` or `cp.async.bulk.wait_group.read`
completes the store's bulk async-group. The write is an `st.shared` or `stmatrix` asm on the
same place, a copy into it (`cp.async`, a bulk load), or a C++ store through an element of the
variable the store's address is made from (`tile[i] = x`, through `__cvta_generic_to_shared`,
casts and locals defined once, and through same-file or included-project helpers, a few calls
deep).

Three shapes are flagged:
- in one run through the code: the store, then the write, with no wait between, or only waits
  that leave the store's group pending (`wait_group.read N` with fewer than N groups committed
  after the store's: `store(buf); commit; wait_group.read 1; buf[i] = x`), or that come before
  the store's `cp.async.bulk.commit_group` (they wait only for committed groups);
- in a loop: the write before the store in the loop's body, reached in the next turn, with no
  wait after the store in the turn that completes its group and none from the top of the turn
  to the write (the store moved into the loop, the wait left after it);
- in a ring of staging buffers: the loop picks the store's buffer with an index that comes
  back round (`stage = k % STAGES`, `slot = (slot + 1) % N`, `phase ^= 1`, `if (++s == S)
  s = 0`), the write before the store in the body writes the same stage, and no wait at all
  lies in the loop (the `wait_group.read STAGES - 1` before refilling the oldest buffer was
  left out). The loop asked is the outermost around both that keeps the buffer one of a
  ring, from the innermost that makes one out; where it counts to a constant no greater than
  the ring's size, the index never comes back round and the rule is silent.

A fourth, where the wait is there: the store is issued under a condition that splits the warp
(`if (threadIdx.x == 0)`), and the write, after it or at the top of the loop's next turn, is
under none, with nothing between that may order the threads (no `__syncthreads()`, barrier,
fence or atomic, no call ptxlint cannot read). A wait completes only the bulk groups of the
thread that runs it: in the other threads it returns at once, so they overwrite the buffer
while the issuing thread's store may still read it (ffpa-attn's epilogue, whose fix is a
barrier after the wait).

It is silent where the count of a wait is not known (a template parameter nothing binds), where
a commit lies in a loop the store is not in or in an `if` arm of a helper, where a call ptxlint
cannot read may commit or wait, and where the two are in the two arms of an `if` or in two
lambdas. The write must be to the same place: the same variable and pointer arithmetic, or
that address plus run-time indices (`stage_base + lane * 16`, an element of the tile: `p + i`
is `&p[i]`), and, for a buffer of stages (`tile[stage][i]`), the same first index; and no
variable the store's address is computed from may change between them (in the next-turn
shape: anywhere in the loop, as `smem + (k % 2) * TILE` picks another buffer each turn: that
is the ring shape, and only a loop with no wait is flagged there, since a wait's count against
the ring's size is not reckoned). A variable that only grows (`ptr += TILE`, the loop's
counter) names a new buffer each turn: no ring. A store and a write of one helper call are the
helper's own finding. A store whose completion is an mbarrier (`.mbarrier::complete_tx
::bytes`, to another CTA's shared memory) is not counted in bulk async-groups and not checked.
""" + UNREADABLE_STEPS + ALIAS_CALLS + """This rule is in preview.

## Why is this bad?
The store has only been issued. It reads its source in the async proxy while the thread runs
on. PTX ISA 9.7.9.27.2.2 (`cp.async.bulk.wait_group`): the wait makes the thread wait "until
only N or fewer of the most recent bulk async-groups are pending and all the prior bulk
async-groups committed by the executing threads are complete", and "the optional .read
modifier indicates that the waiting has to be done until all the bulk async operations in the
specified bulk async-group have completed ... reading from their source locations". A write
before that races with the store's read: global memory may receive the new values, or a mix,
depending on timing. Measured on an H100 (`benchmarks/protocol_evidence.py`, the `store_reuse`
experiment): 1,024 blocks each store a 32 KB tile, write it again after a `__syncthreads()`
and store it once more; with no wait between, 7,347,304-7,366,264 of the 8,388,608 words of
the first stores held the second tile's values in four runs, and none with
`wait_group.read 0` before the rewrite. Each pipeline that reuses a store's staging buffer
must wait first: NVIDIA Fuser moved a store's commit and wait into the loop for this
(NVIDIA/Fuser#5448), and deepseek-ai/DeepEP#657 reported a `wait_group kNumStages - 1` that
let a TMA load refill the stage a store still read (fixed in 2dfbdb9; the rule flags its
parent at the two calls of `tma_copy`, and is silent on the fix). No compile shows it;
Triton's ConSan checks it at run time.

## Example
```cuda
for (int t = 0; t < tiles; ++t) {
  tile[threadIdx.x] = compute(t);                 // the previous turn's store may still read it
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 4096;"
                 :: "l"(out + t * 1024), "r"(smem_u32(tile)) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  }
}
asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
```

## Use instead
```cuda
for (int t = 0; t < tiles; ++t) {
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");  // the source is free again
  __syncthreads();
  tile[threadIdx.x] = compute(t);
  ...
```
Wait with `.read` (the source may be reused once it is read) for every group that still reads
the buffer, then let the other threads write it (a barrier after the wait). With several
staging buffers, `wait_group.read STAGES - 1` before refilling the oldest one.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        flows = flows_of(context)
        for flow, store in steps_of_kind(context, statement, BULK_STORE):
            found = next(overwrites(flow, store), None)
            if found is None:
                if flows is not None:
                    yield from self._by_others(statement, flows, flow, store)
                continue
            write = found.write
            if write is not None:
                span = step_span(flow, write)
                how = f"`{write.instruction.mnemonic}`"
            else:
                name = flow.name_used_at(found.at) or flow.key(store, store.event.memory) or ""
                span = byte_span(flow, found.at, found.at + len(name.encode()))
                how = f"`{name}`"
            turn = " in the loop's previous turn" if found.next_turn else ""
            if found.ring is not None:
                turn = (f" in an earlier turn of the loop (`{found.ring}` comes back round to "
                        f"the same buffer)")
            yield self.finding(
                statement, span,
                f"{how} at line {line_of(flow, found.at)} writes the shared memory that the "
                f"bulk store at {where(flow, store)} reads{turn}, "
                f"{_between(flow, found)}: the store may still be reading it")

    def _by_others(self, statement: AsmStatement, flows: FileFlows, flow: FunctionFlow,
                   store: Step) -> Iterator[Finding]:
        """The first write of the source by threads that did not issue the store
        (``store_sources.overwritten_by_others``)."""
        found = next(overwritten_by_others(flows, flow, store), None)
        if found is None:
            return
        at, write, guard = found
        if write is not None:
            span, how = step_span(flow, write), f"`{write.instruction.mnemonic}`"
        else:
            name = flow.name_used_at(at) or flow.key(store, store.event.memory) or ""
            span, how = byte_span(flow, at, at + len(name.encode())), f"`{name}`"
        yield self.finding(
            statement, span,
            f"{how} at line {line_of(flow, at)} writes the shared memory that the bulk store at "
            f"{where(flow, store)} reads, which only the lanes under `if {guard.text}` (line "
            f"{line_of(flow, guard.node.start_byte)}) issue, and the other threads write it "
            "with no barrier between: cp.async.bulk.wait_group waits only for the bulk groups "
            "of the thread that runs it, so in the others it returns at once while the store "
            "may still be reading; add __syncthreads() after the issuing thread's wait")
