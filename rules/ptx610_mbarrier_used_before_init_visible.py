"""PTX610 mbarrier-used-before-init-visible."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.divergence import Guard, divergent_guard, whole_warps
from ptxlint.analysis.function_flow import FileFlows, FunctionFlow, Step, flows_of
from ptxlint.analysis.lane_addresses import shared_local
from ptxlint.analysis.thread_sync import may_order_between
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.ptx.protocols import BULK_LOAD, EXPECT_TX, MBAR_ARRIVE, MBAR_INIT, MBAR_WAIT, TRACKED
from ptxlint.rule import Rule, RuleContext

from ._protocol import line_of, step_span, where

# The steps that operate on an mbarrier after its init, and the operand that names it.
_USES = frozenset({MBAR_ARRIVE, MBAR_WAIT, EXPECT_TX, TRACKED, BULK_LOAD})


class MbarrierUsedBeforeInitVisible(Rule):
    id = "PTX610"
    name = "mbarrier-used-before-init-visible"
    preview = True
    severity = Severity.ERROR
    needs = ("instructions", "helper-calls")
    summary = ("An mbarrier is used with no initialisation visible: some threads initialise "
               "it and whole warps use it with no barrier between, or nothing initialises it")
    tags = ("correctness", "async", "synchronization")
    docs = """\
## What it does
Flags the first use of an mbarrier (`mbarrier.arrive`, `arrive.expect_tx`, `test_wait` or
`try_wait`, `cp.async.mbarrier.arrive`, or a bulk copy that completes on it) by whole warps,
after an `mbarrier.init` of the same barrier that only some lanes execute (under
`if (threadIdx.x == 0)`, `lane == 0`, `elect_one_sync()`: a condition that splits the warp),
with nothing between the two that could make the initialisation visible to the other threads:
no `__syncthreads()`/`__syncwarp()`, no `bar.sync`/`barrier.*`, no fence or atomic, and no
call ptxlint cannot see into. The barrier is the variable behind the operands, followed as the
other PTX6xx rules follow it (`ptxlint.analysis.function_flow`).

Silent where the use sits under a condition that is not uniform across the warp (it may be the
initialising thread's own use, as a producer's `arrive.expect_tx` under the same
`elect_one_sync()`), where the two lie in the two arms of one `if`, where the barrier cannot be
named, and on any call between them that is not a known toolkit function. This rule is in
preview.
It also flags the first use of an mbarrier that nothing in its function may initialise: a
`__shared__` variable the function declares itself (a store of 0 is no initialisation), or
any barrier of a `__global__` kernel (shared memory keeps nothing from an earlier launch, and
every CTA of a cluster runs the kernel's code, so whoever initialises a kernel's barrier does
so in it). Silent where an `mbarrier.init` of it, or of a barrier ptxlint cannot name, lies in
the function or a helper it calls, and where the function makes a call ptxlint cannot see
into (`cuda::barrier`'s `init`, CuTe's `initialize_barrier` from a header it does not read),
holds an asm statement it cannot read, or declares an object whose constructor may take that
step; a barrier a device function is handed is its caller's business.
A file without asm statements of its own is checked too, where it calls an asm helper of a
project header it includes.
An asm statement with an instruction ptxlint cannot read may synchronise, as such a
call may, and silences the rule there too; so does the declaration of an object whose
class's constructor (in the file or a header it reads) may synchronise: one that calls
`__syncthreads()` or a function ptxlint cannot see into, holds such an asm statement or a
barrier, fence or atomic, or declares an object of such a class in turn.
A helper called through a type alias is followed too (`using WGMMA = typename
Selector<N>::type; WGMMA::wgmma(...)`, `conditional_t<B, T, F>`, an alias of the function,
its class or its namespace): where the alias may name several classes (the primary
template's and each specialization's member type, both sides of `conditional_t`), only
where every one's method takes the same steps; the call is one ptxlint cannot see into otherwise.

## Why is this bad?
`mbarrier.init` is a write to shared memory by the threads that run it. Any other mbarrier
operation on a location that does not hold an initialised mbarrier object is undefined (PTX
ISA, `mbarrier`), and nothing orders another thread's arrive or wait after that write unless
the threads synchronise: without `__syncthreads()` (or a cluster barrier, for a cluster's
barriers) a warp may arrive on, or wait on, stale shared memory: the phase it waits for never
completes (a hang) or completes at once (a race). It works in tests when the initialising warp
happens to run first.

## Example
```cuda
__shared__ uint64_t bar;
uint32_t b = (uint32_t)__cvta_generic_to_shared(&bar);
if (threadIdx.x == 0)
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(b), "r"(blockDim.x));
asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(b) : "memory");
```

## Use instead
```cuda
if (threadIdx.x == 0)
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(b), "r"(blockDim.x));
__syncthreads();
asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(b) : "memory");
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        # every statement: one with no mbarrier of its own anchors the steps of the helpers its
        # function calls (``FileFlows.steps_of``), as the carrier of a file without asm does
        flows = flows_of(context)
        if flows is None:
            return
        for flow, use in flows.steps_of(statement):
            if use.kind not in _USES:
                continue
            found = _unordered_init(flows, flow, use)
            if found is None:
                what = _never_initialised(flow, use)
                if what is not None:
                    yield self.finding(
                        statement, step_span(flow, use),
                        f"`{use.instruction.mnemonic}` uses {what} with `mbarrier.init`: shared "
                        "memory holds no mbarrier object when the kernel starts (a store of 0 "
                        "is none), and any other mbarrier operation on it is undefined, so a "
                        "wait may never complete; initialise it once (one thread, "
                        "mbarrier.init) and __syncthreads() before its first use")
                continue
            init, guard = found
            yield self.finding(
                statement, step_span(flow, use),
                f"`{use.instruction.mnemonic}` uses the mbarrier that `mbarrier.init` at "
                f"{where(flow, init)} initialises under `if {guard.text}` (line "
                f"{line_of(flow, guard.node.start_byte)}), which only some lanes take, but "
                "nothing between them makes the initialisation visible to the other threads: "
                "add __syncthreads() (or a cluster barrier) after the init")


def _barrier(flow: FunctionFlow, step: Step) -> tuple[str, str] | None:
    operand = step.event.barrier if step.kind == BULK_LOAD else step.event.memory
    return flow.place(step, operand)


def _unordered_init(flows: FileFlows, flow: FunctionFlow,
                    use: Step) -> tuple[Step, Guard] | None:
    """The ``mbarrier.init`` of ``use``'s barrier that only some lanes run, and the condition
    that picks them, where ``use`` is the first use of the barrier after it, whole warps run
    it, and nothing between the two may order them; else None."""
    barrier = _barrier(flow, use)
    if barrier is None:
        return None
    here = (use.start, use.order)
    init = next((s for s in reversed(flow.steps)
                 if s.kind == MBAR_INIT and (s.start, s.order) < here
                 and flow.place(s, s.event.memory) == barrier), None)
    if init is None or flow.exclusive(init.start, use.start):
        return None
    earlier = [s for s in flow.steps_between(init, use, _USES) if _barrier(flow, s) == barrier]
    if earlier:
        return None  # the first use after the init speaks for the missing barrier
    guard = divergent_guard(flows, flow, init.start)
    if guard is None or guard.how == "return" or not whole_warps(flows, flow, use.start):
        return None
    if may_order_between(flow, init.start, use.start):
        return None
    return init, guard


def _never_initialised(flow: FunctionFlow, use: Step) -> str | None:
    """Where ``use`` is the first use of a barrier that nothing in ``flow`` may initialise, the
    barrier in words: a ``__shared__`` variable of the function's own, or a place in one
    (``lane_addresses.shared_local``); or any barrier of a kernel (shared memory holds nothing
    from an earlier launch, and every CTA of a cluster runs the kernel's code: whoever
    initialises a barrier the kernel uses does so in it), then at the kernel's first use of
    one. Nothing may initialise it where the function has no ``mbarrier.init`` of it (a
    kernel: of any barrier; the variable: of anything but another ``__shared__`` variable of
    the function, a distinct object), and no call, unreadable asm statement or construction
    that may take that step (``FunctionFlow.opaque_between``). Else None."""
    if not flow.whole:
        return None
    barrier = _barrier(flow, use)
    local = barrier is not None and shared_local(flow, barrier[0])
    if not local and not flow.kernel:
        return None
    name = barrier[0] if local and barrier is not None else ""
    here = (use.start, use.order)
    for step in flow.steps:
        if step.kind == MBAR_INIT:
            # only another __shared__ variable of the function is surely another object: an
            # address held elsewhere (`int smem = __cvta_generic_to_shared(smem_raw)`) may
            # point into this one
            place = flow.place(step, step.event.memory) if local else None
            if place is None or place[0] == name or not shared_local(flow, place[0]):
                return None
        elif step.kind in _USES and (step.start, step.order) < here and (
                not local or _barrier(flow, step) == barrier):
            return None  # the first use speaks for the barrier (in a kernel: for them all)
    if flow.opaque_between(flow.start, flow.end, _INITS):
        return None
    if not local or barrier is None:
        return f"an mbarrier, but nothing in the kernel {flow.name}() initialises one"
    what = f"the mbarrier '{name}'" if not barrier[1] else f"an mbarrier in '{name}'"
    return f"{what}, a __shared__ variable of {flow.name}() that nothing in it initialises"


_INITS = frozenset({MBAR_INIT})
