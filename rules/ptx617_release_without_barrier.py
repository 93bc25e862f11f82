"""PTX617 release-without-barrier."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.divergence import divergent_guard
from ptxlint.analysis.function_flow import FileFlows, FunctionFlow, Step, flows_of, steps_of_kind
from ptxlint.analysis.thread_sync import may_order_between
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.ptx.protocols import RELEASE
from ptxlint.rule import Rule, RuleContext

from ._protocol import line_of, step_span

_WRITES = frozenset({"write", "readwrite"})


def unpublished_write(flows: FileFlows, flow: FunctionFlow, step: Step
                      ) -> tuple[str, int] | None:
    """The last write before ``step`` (a release some lanes take) through a pointer of the
    function that threads outside the release's condition make too, with nothing between the
    two that may order them: (the pointer's name, the write's byte); else None."""
    found: tuple[str, int] | None = None
    for name, uses in flow.all_uses().items():
        if not flow.declared_pointer(name):
            continue  # an array or a value of the function's own: this thread's memory
        for byte, how, element in uses:
            if not element or how not in _WRITES or byte >= step.start:
                continue
            if found is not None and byte <= found[1]:
                continue
            if flow.exclusive(byte, step.start) or divergent_guard(flows, flow, byte):
                continue  # not on the way, or itself under a condition that picks lanes
            found = (name, byte)
    if found is None or may_order_between(flow, found[1], step.start):
        return None
    return found


class ReleaseWithoutBarrier(Rule):
    id = "PTX617"
    name = "release-without-barrier"
    preview = True
    severity = Severity.WARNING
    needs = ("instructions", "helper-calls")
    summary = ("A release that one lane publishes follows writes of the other threads with no "
               "barrier between")
    tags = ("correctness", "memory", "synchronization")
    docs = """\
## What it does
Flags a store, reduction or atomic with release semantics (`st.release`, `red.release`,
`atom.release` or `.acq_rel`, at any scope) that only some lanes execute (under
`if (threadIdx.x == 0)`, `lane == 0`, `elect_one_sync()`: a condition that splits the warp),
where the function writes memory through a pointer before it in code that every thread runs,
and nothing between the write and the release makes the other threads' writes visible to the
releasing one: no `__syncthreads()`/`__syncwarp()`, no `bar.sync`/`barrier.*`, no fence or
atomic, and no call ptxlint cannot see into. The release may be in the function's own asm or in
a helper it calls (same file or an included project header: `if (t == 0)
st_release_sys(flag, n);`).

Silent where the writes are to an array or value of the function's own (the thread's memory),
where they sit under a condition that picks lanes themselves, where the two lie in the two
arms of one `if`, and on anything between them that may synchronise.

## Why is this bad?
A release orders the memory operations of the thread that executes it, and those it has
observed, before the flag: not the writes other threads made at the same time. Thread 0's
`st.release.sys` on a "produced" counter tells the consumer the stage is ready while the other
threads' stores into it may still be in flight, and a "consumed" counter frees slots the other
threads may still be reading (exllamav3's all-reduce: the fix is a `__syncthreads()` before
the `if (t == 0)`). The barrier makes every thread's writes happen before the releasing
thread's release, which then carries them to the consumer.

## Example
```cuda
__global__ void publish(float* out, const float* in, unsigned* flag, unsigned n) {
  out[threadIdx.x] = in[threadIdx.x];
  if (threadIdx.x == 0)
    asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(flag), "r"(n) : "memory");
}
```

## Use instead
```cuda
__global__ void publish(float* out, const float* in, unsigned* flag, unsigned n) {
  out[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(flag), "r"(n) : "memory");
}
```
This rule is in preview.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        flows = flows_of(context)
        if flows is None:
            return
        for flow, step in steps_of_kind(context, statement, RELEASE):
            guard = divergent_guard(flows, flow, step.start)
            if guard is None:
                continue
            found = unpublished_write(flows, flow, step)
            if found is None:
                continue
            name, byte = found
            line = line_of(flow, guard.node.start_byte)
            picked = (f"after `if {guard.text}` returns (line {line}), which only some lanes "
                      "pass" if guard.how == "return" else
                      f"under `if {guard.text}` (line {line}), which only some lanes take")
            yield self.finding(
                statement, step_span(flow, step),
                f"`{step.instruction.mnemonic}` publishes {picked}, after "
                f"the write through `{name}` at line {line_of(flow, byte)} that the other "
                "threads make too, with no barrier between: a release orders only the writes "
                "of the thread that executes it (and those it has observed), so the consumer "
                "may see the flag before the other threads' data; add __syncthreads() (or "
                "__syncwarp() for one warp) before the condition")
