"""PTX604 mbarrier-init-without-fence."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.function_flow import FunctionFlow, Step, flows_of
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.ptx.protocols import BULK_LOAD, FENCE_INIT, FENCE_PROXY, MBAR_INIT
from ptxlint.rule import Rule, RuleContext

from ._protocol import step_span, where

_FENCES = frozenset({FENCE_INIT, FENCE_PROXY})


def unfenced_init(flow: FunctionFlow, copy: Step) -> Step | None:
    """The ``mbarrier.init`` of the barrier a bulk copy completes on, earlier in the function,
    with no ``fence.mbarrier_init`` or ``fence.proxy.async`` (nor a call ptxlint cannot read)
    between the two; ``None`` where the barrier cannot be named."""
    barrier = flow.key(copy, copy.event.barrier)
    if barrier is None:
        return None
    for init in reversed(flow.steps):
        if init.kind != MBAR_INIT or (init.start, init.order) >= (copy.start, copy.order):
            continue
        if flow.key(init, init.event.memory) != barrier or flow.exclusive(init.start, copy.start):
            continue
        if flow.steps_between(init, copy, _FENCES) or flow.opaque_between(init.start,
                                                                           copy.start):
            return None
        return init
    return None


class MbarrierInitWithoutFence(Rule):
    id = "PTX604"
    name = "mbarrier-init-without-fence"
    preview = True
    severity = Severity.ERROR
    needs = ("instructions",)
    summary = "A bulk copy (TMA) completes on an mbarrier whose init was never fenced"
    tags = ("correctness", "async")
    docs = """\
## What it does
Flags a bulk copy into shared memory (`cp.async.bulk`, `cp.async.bulk.tensor`: TMA) whose
mbarrier was initialised by `mbarrier.init` earlier in the same function with no
`fence.mbarrier_init.release.cluster` or `fence.proxy.async` between the init and the copy.
The barrier is the variable behind the init's and the copy's mbarrier operands (through
`__cvta_generic_to_shared`, casts, locals defined once and one level of same-file helpers);
where it cannot be named, or a call ptxlint cannot read lies between the two (the fence may
be there: CUTLASS's `fence_barrier_init()`), the rule is silent. This rule is in preview.

## Why is this bad?
`mbarrier.init` is a write by the generic proxy; the copy's `complete-tx` on the barrier is
performed by the async proxy. The PTX memory model (8.6 "Proxies") orders accesses of
different proxies only through a proxy fence: without one the TMA unit may update a barrier
whose initialisation it does not yet see, and the phase the consumers wait on never completes
(a hang) or completes early. The ISA provides `fence.mbarrier_init.release.cluster` for
exactly this ("a lightweight fence [that] establishes ordering of prior `mbarrier.init`
operations [...] with subsequent operations in the async proxy", 9.7.13.4 "membar/fence"),
and CUTLASS, CCCL (`fence_proxy_async_shared_cta`) and ThunderKittens all issue one after
their barrier setup.

## Example
```cuda
if (threadIdx.x == 0) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar));
}
__syncthreads();
if (threadIdx.x == 0) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
               " [%0], [%1], 4096, [%2];" :: "r"(dst), "l"(src), "r"(bar) : "memory");
}
```

## Use instead
```cuda
if (threadIdx.x == 0) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__syncthreads();
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if not any(i.opcode == "cp" for i in statement.ptx.instructions):
            return
        flows = flows_of(context)
        if flows is None:
            return
        for flow, step in flows.steps_of(statement):
            if step.kind != BULK_LOAD:
                continue
            init = unfenced_init(flow, step)
            if init is None:
                continue
            yield self.finding(
                statement, step_span(flow, step),
                f"`{step.instruction.mnemonic}` completes on the mbarrier initialised at "
                f"{where(flow, init)}, with no fence.mbarrier_init or fence.proxy.async in "
                f"between: the async proxy may not see the initialisation")
