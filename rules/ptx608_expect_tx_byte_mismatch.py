"""PTX608 expect-tx-byte-mismatch."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.function_flow import FunctionFlow, Step, steps_of_kind
from ptxlint.model import AsmStatement, Finding, PtxOperand, Severity
from ptxlint.ptx.protocols import BULK_LOAD, EXPECT_TX, MBAR_WAIT
from ptxlint.rule import Rule, RuleContext

from ._protocol import ALIAS_CALLS, UNREADABLE_STEPS, step_span

_TAKES = frozenset({BULK_LOAD, EXPECT_TX})


def _value(flow: FunctionFlow, step: Step, operand: PtxOperand | None) -> int | None:
    """An immediate operand, or the constant value of the C++ expression bound to it (through
    the helpers' parameters to the caller's arguments)."""
    if operand is None:
        return None
    if operand.kind == "immediate":
        try:
            return int(operand.text.rstrip("uUlL"), 0)
        except ValueError:
            return None
    if operand.kind != "ref" or operand.ref is None or operand.ref >= len(
            step.statement.operands):
        return None
    return flow.constant_of(step, step.statement.operands[operand.ref].expression)


def mismatch(flow: FunctionFlow, expect: Step) -> tuple[int, int, int] | None:
    """(expected bytes, copied bytes, copies) when every bulk copy completing on the barrier
    of ``expect`` in its phase has a constant size and their sum differs from its constant
    expect-tx count. The phase is the stretch between the waits on that barrier around
    ``expect``, at the same loop depth; ``None`` wherever anything in it is unknown (a tensor
    copy, whose size is the tensor map's box; a multicast; a second expect-tx; a call
    ptxlint cannot read; a copy in a loop or an ``if`` arm the expect-tx is not in)."""
    barrier = flow.place(expect, expect.event.memory)
    expected = expect.event.count
    if expected is None:
        expected = _value(flow, expect, expect.event.count_operand)
    if barrier is None or expected is None:
        return None
    loops = flow.loops_at(expect.start)
    same: list[Step] = []
    for step in flow.steps:
        if step.kind not in (BULK_LOAD, EXPECT_TX, MBAR_WAIT):
            continue
        key = flow.place(step,
                         step.event.barrier if step.kind == BULK_LOAD else step.event.memory)
        if key != barrier or flow.exclusive(step.start, expect.start):
            continue
        same.append(step)
    here = same.index(expect)
    lo = max((k for k in range(here) if same[k].kind == MBAR_WAIT), default=-1)
    hi = min((k for k in range(here + 1, len(same)) if same[k].kind == MBAR_WAIT),
             default=len(same))
    phase = same[lo + 1:hi]
    copies = [s for s in phase if s.kind == BULK_LOAD]
    if not copies or any(s.kind == EXPECT_TX and s is not expect for s in phase):
        return None
    if not all(flow.once(s) for s in phase):
        return None  # in an if arm or a loop of a helper: which copies run, how often, unknown
    start = min(s.start for s in phase)
    end = max(s.start for s in phase)
    if flow.opaque_between(start, end + 1, _TAKES):
        return None
    total = 0
    arms = flow.arms_at(expect.start)
    for copy in copies:
        if copy.event.tensor or any("multicast" in m for m in copy.instruction.modifiers):
            return None
        if flow.loops_at(copy.start) != loops or not flow.arms_at(copy.start) <= arms:
            return None  # another loop, or an `if` arm the expect-tx is not in
        size = _value(flow, copy, copy.event.size_operand)
        if size is None:
            return None
        total += size
    return (expected, total, len(copies)) if total != expected else None


class ExpectTxByteMismatch(Rule):
    id = "PTX608"
    name = "expect-tx-byte-mismatch"
    preview = True
    severity = Severity.ERROR
    needs = ("instructions", "helper-calls")
    summary = "mbarrier expect-tx byte count differs from the bytes of the bulk copies on it"
    tags = ("correctness", "async")
    docs = """\
## What it does
Flags an `mbarrier.arrive.expect_tx` (or `mbarrier.expect_tx`) whose byte count is a
constant that differs from the sum of the constant sizes of the non-tensor bulk copies
(`cp.async.bulk...mbarrier::complete_tx::bytes`) completing on the same mbarrier in the same
phase of the same function: between the waits on that barrier around the expect-tx, at the
same loop depth. Counts are immediates, or C++ expressions made of literals, `sizeof` of a
built-in type and locals defined once by such expressions (through up to three calls of same-file
helpers). Any unknown silences it: a tensor copy (its size is the tensor map's box), a
multicast copy, a second expect-tx, a copy in another loop or in an `if` arm or a loop of a
helper, a call ptxlint cannot read, a non-constant size. This rule is in preview.
A file without asm statements of its own is checked too, where it calls an asm helper of a
project header it includes.
""" + UNREADABLE_STEPS + ALIAS_CALLS + """
## Why is this bad?
PTX ISA 9.7.13.15.5 ("tx-count"): "The tx-count of an mbarrier object must be set to the total
amount of asynchronous memory operations, in units as specified by the asynchronous
operations, to be tracked by the current phase"; each copy's complete-tx then decrements it by
the bytes it wrote, and the phase completes when the pending arrivals and the tx-count are
both zero (9.7.13.15.4 "Phase Completion"). Expecting more bytes than arrive leaves the phase
open forever (the consumers hang); expecting fewer completes it before the last copy lands
(they read partly-written shared memory), and the extra complete-tx then counts against the
next phase. On an H200 (`benchmarks/protocol_evidence.py`), twice the bytes left all 1,024
phases open; half the bytes let 12% of the words be read before they landed, and left
a quarter of the phases open.

## Example
```cuda
asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(8192));
asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
             " [%0], [%1], %2, [%3];" :: "r"(dst), "l"(src), "r"(4096), "r"(bar) : "memory");
```

## Use instead
```cuda
asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(4096));
asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
             " [%0], [%1], %2, [%3];" :: "r"(dst), "l"(src), "r"(4096), "r"(bar) : "memory");
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        for flow, step in steps_of_kind(context, statement, EXPECT_TX):
            found = mismatch(flow, step)
            if found is None:
                continue
            expected, total, copies = found
            plural = "copy" if copies == 1 else "copies"
            yield self.finding(
                statement, step_span(flow, step),
                f"expects {expected} bytes on this mbarrier, but the {copies} bulk {plural} "
                f"completing on it in this phase write {total} bytes")
