"""PTX604 mbarrier-init-without-fence."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.function_flow import FunctionFlow, Step, steps_of_kind
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.ptx.protocols import BULK_LOAD, CLUSTER_RELEASE, FENCE_INIT, MBAR_INIT
from ptxlint.rule import Rule, RuleContext

from ._protocol import ALIAS_CALLS, UNREADABLE_STEPS, step_span, where

_RELEASES = frozenset({FENCE_INIT, CLUSTER_RELEASE})


def unreleased_init(flow: FunctionFlow, copy: Step) -> Step | None:
    """For a multicast bulk copy: the ``mbarrier.init`` of its barrier earlier in the
    function, with neither ``fence.mbarrier_init`` nor a release at cluster scope
    (``barrier.cluster.arrive`` without ``.relaxed``, ``fence.acq_rel.cluster``) between the
    two, nor a call that may hold one; ``None`` where the barrier cannot be named."""
    if not copy.event.multicast:
        return None
    barrier = flow.place(copy, copy.event.barrier)
    if barrier is None:
        return None
    for init in reversed(flow.steps):
        if init.kind != MBAR_INIT or (init.start, init.order) >= (copy.start, copy.order):
            continue
        if flow.place(init, init.event.memory) != barrier or flow.exclusive(init.start,
                                                                            copy.start):
            continue
        if flow.steps_between(init, copy, _RELEASES) or flow.opaque_between(
                init.start, copy.start, _RELEASES):
            return None
        return init
    return None


class MbarrierInitWithoutFence(Rule):
    id = "PTX604"
    name = "mbarrier-init-without-fence"
    preview = True
    severity = Severity.ERROR
    needs = ("instructions", "helper-calls")
    summary = "A multicast TMA signals mbarriers whose init was never released to the cluster"
    tags = ("correctness", "async", "cluster")
    docs = """\
## What it does
Flags a multicast bulk copy (`cp.async.bulk{.tensor}...multicast::cluster`) whose mbarrier was
initialised by `mbarrier.init` earlier in the same function with neither
`fence.mbarrier_init.release.cluster` nor another release at cluster scope
(`barrier.cluster.arrive` without `.relaxed`, `fence.acq_rel.cluster`) between the init and the
copy. The barrier is the variable behind the init's and the copy's mbarrier operands (through
`__cvta_generic_to_shared`, casts, locals defined once and up to three calls of same-file or
included-project helpers); where it cannot be named, or a call that may hold such a fence or
arrive lies between the two (CUTLASS's `fence_barrier_init()`, `cute::cluster_sync()`), the
rule is silent.

A copy into the issuing CTA alone is not flagged: the bulk copies access their mbarrier
operand "using generic-proxy" (PTX ISA 9.7.9.25.4.1, `cp.async.bulk`), so ordinary thread
synchronisation (`__syncthreads()`) after the init suffices there and no proxy fence is
needed. This rule is in preview.
A file without asm statements of its own is checked too, where it calls an asm helper of a
project header it includes.
""" + UNREADABLE_STEPS + ALIAS_CALLS + """
## Why is this bad?
With `.multicast::cluster`, "the mbarrier signal is also multicast to the same CTA-relative
offset as mbar in the shared memory of the destination CTA" (9.7.9.25.4.1): the copy's
complete-tx lands on barriers that other CTAs initialised. Their `mbarrier.init` must be
visible at cluster scope before that. `fence.mbarrier_init` exists for this: "When
.op_restrict is .mbarrier_init, the synchronizing effect of the fence only applies to the prior
mbarrier.init operations executed by the same thread on mbarrier objects in .shared::cta state
space" (9.7.13.4, `fence`), to be followed by `barrier.cluster.arrive.relaxed` and
`barrier.cluster.wait`. A relaxed arrive alone releases nothing: a CTA may then signal a
barrier whose initialisation it does not see, and the phase the consumers wait on never
completes or completes early.

## Example
```cuda
if (threadIdx.x == 0) init_barrier(&full, 1);
asm volatile("barrier.cluster.arrive.relaxed.aligned;\\n"
             "barrier.cluster.wait.aligned;" ::: "memory");
if (threadIdx.x == 0) tma_load_multicast(tile, src, &full, 0b11);
```

## Use instead
```cuda
if (threadIdx.x == 0) {
  init_barrier(&full, 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
asm volatile("barrier.cluster.arrive.relaxed.aligned;\\n"
             "barrier.cluster.wait.aligned;" ::: "memory");
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        for flow, step in steps_of_kind(context, statement, BULK_LOAD):
            init = unreleased_init(flow, step)
            if init is None:
                continue
            yield self.finding(
                statement, step_span(flow, step),
                f"`{step.instruction.mnemonic}` signals the mbarrier initialised at "
                f"{where(flow, init)} in every destination CTA, but no "
                f"fence.mbarrier_init.release.cluster (or releasing barrier.cluster.arrive) "
                f"makes that initialisation visible to the cluster first")
