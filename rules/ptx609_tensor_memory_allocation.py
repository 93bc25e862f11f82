"""PTX609 tensor-memory-allocation."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.function_flow import FunctionFlow, Step, flows_of
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.ptx.protocols import TC_ALLOC, TC_DEALLOC, TC_RELINQUISH
from ptxlint.rule import Rule, RuleContext

from ._protocol import ALIAS_CALLS, UNREADABLE_STEPS, step_span, where

_DEALLOC = frozenset({TC_DEALLOC})
_ALLOCATION = frozenset({TC_ALLOC, TC_DEALLOC})


def _columns(flow: FunctionFlow, step: Step) -> int | None:
    """The constant nCols of an alloc or dealloc step, else ``None``."""
    event = step.event
    if event.count is not None:
        return event.count
    operand = event.count_operand
    if operand is None or operand.kind != "ref" or operand.ref is None or \
            operand.ref >= len(step.statement.operands):
        return None
    return flow.constant_of(step, step.statement.operands[operand.ref].expression)


def never_deallocated(flow: FunctionFlow, alloc: Step) -> bool:
    """A kernel allocates Tensor Memory and no ``tcgen05.dealloc`` is anywhere in it: none of
    its steps (its helpers followed), no call ptxlint cannot read that may hold one, no
    destructor of the file or its headers that holds one, and the kernel's tree is whole
    (``FunctionFlow.whole``: a parse error may end its body before the dealloc)."""
    if not flow.kernel or not flow.whole or any(s.kind == TC_DEALLOC for s in flow.steps):
        return False
    if flow.opaque_between(flow.start, flow.end, _DEALLOC):
        return False
    owner = flow.owner
    return owner is not None and not owner.destructors_taking(_DEALLOC)


def other_columns(flow: FunctionFlow, dealloc: Step) -> tuple[Step, int, int] | None:
    """A kernel's one ``tcgen05.dealloc`` frees another number of columns than its one
    ``tcgen05.alloc`` of the same ``.cta_group`` took: (the alloc, its nCols, the dealloc's).
    ``None`` where either count is not a constant, the kernel allocates or frees more than
    once, or a call ptxlint cannot read may."""
    if not flow.kernel:
        return None
    allocs = [s for s in flow.steps if s.kind == TC_ALLOC]
    deallocs = [s for s in flow.steps if s.kind == TC_DEALLOC]
    if len(allocs) != 1 or deallocs != [dealloc]:
        return None
    alloc = allocs[0]
    if alloc.event.group != dealloc.event.group or flow.exclusive(alloc.start, dealloc.start):
        return None
    if flow.opaque_between(flow.start, flow.end, _ALLOCATION):
        return None
    taken, freed = _columns(flow, alloc), _columns(flow, dealloc)
    if taken is None or freed is None or taken == freed:
        return None
    return alloc, taken, freed


def relinquished_before(flow: FunctionFlow, alloc: Step) -> Step | None:
    """A ``tcgen05.relinquish_alloc_permit`` the same path of the function runs before
    ``alloc``: under the same ``if`` arms, in the same lambda or outside of one, and in no
    ``if`` arm or loop of a helper either of them is reached through. Two steps of one helper call
    are its own flow's to judge."""
    if not flow.once(alloc):
        return None
    arms = flow.arms_at(alloc.start)
    for step in flow.steps:
        if step.kind != TC_RELINQUISH or (step.start, step.order) >= (alloc.start, alloc.order):
            continue
        if not flow.once(step):
            continue
        if step.call is not None and alloc.call is not None and step.start == alloc.start:
            continue  # inside one helper call: the helper's flow reports it
        if flow.lambda_at(step.start) != flow.lambda_at(alloc.start):
            continue
        if flow.arms_at(step.start) == arms:
            return step
    return None


class TensorMemoryAllocation(Rule):
    id = "PTX609"
    name = "tensor-memory-allocation"
    preview = True
    severity = Severity.ERROR
    needs = ("instructions", "helper-calls")
    summary = "Tensor Memory allocated and never freed, freed by another nCols, or allocated " \
              "after the permit was relinquished"
    tags = ("correctness", "async", "tcgen05")
    docs = """\
## What it does
Checks the Tensor Memory protocol of `tcgen05.alloc`, `tcgen05.dealloc` and
`tcgen05.relinquish_alloc_permit` across the statements of a function and its helpers (same
file or included project headers, a few calls deep). It flags:

* a `tcgen05.alloc` in a kernel (`__global__`) with no `tcgen05.dealloc` anywhere in it;
  silent where a call ptxlint cannot read, or a destructor (an allocator object freeing at
  the end of its scope), may hold the dealloc, and where the kernel does not parse whole (an
  asm statement split by `#if` may end its body early in the tree);
* the one `tcgen05.dealloc` of a kernel that frees another number of columns than its one
  `tcgen05.alloc` of the same `.cta_group` took, both counts constants (immediates, or C++
  constants through the helpers' parameters);
* a `tcgen05.alloc` that the same path of a function reaches after a
  `tcgen05.relinquish_alloc_permit` (same `if` arms, in source order).

A kernel that never relinquishes the permit is not flagged: the ISA does not require it
(without it, another CTA's `tcgen05.alloc` on the SM may wait until this CTA exits). This rule
is in preview.
A file without asm statements of its own is checked too, where it calls an asm helper of a
project header it includes.
""" + UNREADABLE_STEPS + ALIAS_CALLS + """
## Why is this bad?
PTX ISA, "Tensor Memory Allocation and Management Instructions" (`tcgen05.alloc`,
`tcgen05.dealloc`, `tcgen05.relinquish_alloc_permit`; "Tensor Memory Allocation" says the
same): "All of the Tensor Memory that was allocated using tcgen05.alloc instruction in a kernel,
must be explicitly deallocated using tcgen05.dealloc before the kernel exits." "The operand
taddr must point to a previous Tensor Memory allocation", and nCols is "the number of columns
to be allocated or de-allocated": a dealloc of fewer columns leaves the rest allocated when
the kernel exits, one of more frees columns that allocation never took. "It is illegal for a
CTA to perform tcgen05.alloc after any of its constituent threads execute
tcgen05.relinquish_alloc_permit." What follows a broken allocation the ISA leaves undefined;
an allocation that is never satisfied hangs, as `tcgen05.alloc` "blocks if the requested
amount of Tensor Memory is not available". ptxas 13.0
(`-gencode arch=compute_100a,code=sm_100a`) compiles all three without a message, so
`--verify` cannot confirm them; the ISA text is the evidence.

## Example
```cuda
__global__ void k(float* out) {
  __shared__ uint32_t taddr;
  if (threadIdx.x / 32 == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 128;"
                 :: "r"((uint32_t)__cvta_generic_to_shared(&taddr)) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  __syncthreads();
  // ... tcgen05.mma / tcgen05.ld on taddr; the kernel returns with the columns allocated
}
```

## Use instead
```cuda
  __syncthreads();
  // ... tcgen05.mma / tcgen05.ld on taddr
  __syncthreads();
  if (threadIdx.x / 32 == 0)
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 128;"
                 :: "r"(taddr) : "memory");
}
```

## Fix safety
No automatic fix: where the dealloc belongs (after the last `tcgen05.ld` of every warp,
behind a barrier) is the kernel's own schedule.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        flows = flows_of(context)
        if flows is None:
            return
        for flow, step in flows.steps_of(statement):
            if step.kind == TC_ALLOC:
                relinquish = relinquished_before(flow, step)
                if relinquish is not None:
                    yield self.finding(
                        statement, step_span(flow, step),
                        f"`{step.instruction.mnemonic}` runs after the "
                        f"tcgen05.relinquish_alloc_permit at {where(flow, relinquish)}: a CTA "
                        f"may not allocate Tensor Memory once it gave up the permit")
                elif never_deallocated(flow, step):
                    yield self.finding(
                        statement, step_span(flow, step),
                        f"`{step.instruction.mnemonic}` allocates Tensor Memory that kernel "
                        f"{flow.name}() never frees: no tcgen05.dealloc before it exits")
            elif step.kind == TC_DEALLOC:
                found = other_columns(flow, step)
                if found is None:
                    continue
                alloc, taken, freed = found
                yield self.finding(
                    statement, step_span(flow, step),
                    f"`{step.instruction.mnemonic}` frees {freed} columns, but the "
                    f"tcgen05.alloc at {where(flow, alloc)} took {taken}")
