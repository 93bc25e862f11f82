"""PTX607 wgmma-without-fence."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.flow_syntax import may_leave_loop, turn_may_skip
from ptxlint.analysis.function_flow import FunctionFlow, Step, steps_of_kind
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.ptx.protocols import WG_FENCE
from ptxlint.ptx.protocols import WG_MMA as MMA
from ptxlint.rule import Rule, RuleContext

from ._protocol import ALIAS_CALLS, UNREADABLE_STEPS, line_of, reaches_registers, step_span

_WRITES = ("write", "readwrite", "initialise")
_FENCES = frozenset({WG_FENCE})


def unfenced_write(flow: FunctionFlow, mma: Step) -> tuple[int, str] | None:
    """The last write, by ordinary C++ code before ``mma``, of a register ``mma`` reads (its
    accumulators, its A fragment) with no ``wgmma.fence`` between: (byte, variable). ``None``
    where a register cannot be named, or a call ptxlint cannot read lies between."""
    names = flow.keys(mma, mma.event.registers)
    if not names:
        return None
    writes = sorted(((byte, name) for name in names
                     for byte, how, element in flow.uses_of(name)
                     if byte < mma.start and how in _WRITES
                     and reaches_registers(flow, name, element)), reverse=True)
    for byte, name in writes:
        if flow.exclusive(byte, mma.start) or flow.lambda_at(byte) != flow.lambda_at(mma.start):
            continue
        between = [s for s in flow.steps
                   if byte < s.start and (s.start, s.order) < (mma.start, mma.order)]
        if any(s.kind == WG_FENCE for s in between) or flow.opaque_between(
                byte, mma.start, _FENCES):
            return None
        if any(s.kind == MMA for s in between):
            return None  # the first wgmma after the write is the one reported
        return byte, name
    return None


def unfenced_loop_write(flow: FunctionFlow, mma: Step) -> tuple[int, str] | None:
    """The first write, by ordinary C++ code after ``mma`` in a loop around it, of a register
    ``mma`` reads, that the loop's next turn brings to ``mma`` with no ``wgmma.fence`` on the
    way (from the write to the end of the turn, and from the start of the loop to ``mma``):
    (byte, variable). ``None`` where a register cannot be named, or on that way lies a call
    ptxlint cannot read, another ``wgmma`` (the first one the write reaches is the one
    reported), or a ``break``, ``return`` or ``goto`` after the write (the turn may be the
    last)."""
    names = flow.keys(mma, mma.event.registers)
    if not names:
        return None
    for loop in reversed(flow.loops_at(mma.start)):  # innermost first
        writes = sorted((byte, name) for name in names
                        for byte, how, element in flow.uses_of(name)
                        if mma.start < byte < loop[1] and how in _WRITES
                        and reaches_registers(flow, name, element))
        for byte, name in writes:
            if flow.exclusive(byte, mma.start) or \
                    flow.lambda_at(byte) != flow.lambda_at(mma.start):
                continue
            way = [s for s in flow.steps if byte < s.start < loop[1] or (
                loop[0] <= s.start and (s.start, s.order) < (mma.start, mma.order))]
            if any(s.kind in (WG_FENCE, MMA) for s in way) or flow.opaque_between(
                    byte, loop[1], _FENCES) or flow.opaque_between(
                    loop[0] - 1, mma.start, _FENCES) or may_leave_loop(flow.node, loop, byte):
                return None
            return byte, name
    return None


def unfenced_entry(flow: FunctionFlow, mma: Step) -> bool | None:
    """``mma`` is the first ``wgmma.mma_async`` a ``__global__`` kernel reaches from its
    entry (its own, or a followed helper's), and no ``wgmma.fence`` may run before it: none of
    the kernel's steps before it is a fence or another ``wgmma``, and no call ptxlint cannot
    read lies between the entry and it (nor in the helper call that reaches it), nor an asm
    statement it cannot read, nor a declaration whose constructor may fence
    (``opaque_between``). ``True``
    where the wgmma lies in no loop that holds a later fence (or a call that may), ``False``
    (a finding about the loop's first turn) where one does, the wgmma lies in no other loop,
    and the loop's first turn reaches the wgmma before any later place of it: no ``if``,
    ``switch``, ``?:``, ``&&`` or ``||`` inside the loop around it, no ``continue`` or
    ``goto`` before it, and every helper on the way takes it once.
    ``None`` (silent) otherwise, in a lambda, or in a function that is no kernel: its
    callers may fence."""
    if not flow.kernel or flow.lambda_at(mma.start) is not None:
        return None
    key = (mma.start, mma.order)
    if any(s.kind in (WG_FENCE, MMA) for s in flow.steps if (s.start, s.order) < key):
        return None
    if flow.opaque_between(flow.start - 1, mma.start + 1, _FENCES):
        return None  # the helper call that reaches the wgmma counts: it may fence first
    later = [s.start for s in flow.steps if (s.start, s.order) > key and s.kind == WG_FENCE]
    if any(start == mma.start for start in later) and not flow.once(mma):
        return None  # the helper may fence before the wgmma, in a loop or an if of its own
    turning = [loop for loop in flow.loops_at(mma.start)
               if any(loop[0] <= start < loop[1] for start in later)
               or flow.opaque_between(mma.start, loop[1], _FENCES)]
    if not turning:
        return True
    # the outermost loop around the wgmma holds the later fence: it is the first turn of
    # that loop that must reach the wgmma, with no loop inside it that may not turn at all
    if len(flow.loops_at(mma.start)) > 1 or not flow.once(mma) or turn_may_skip(
            flow.node, turning[0], mma.start):
        return None
    return False


class WgmmaWithoutFence(Rule):
    id = "PTX607"
    name = "wgmma-without-fence"
    preview = True
    severity = Severity.ERROR
    needs = ("instructions", "helper-calls")
    summary = ("wgmma.mma_async reads registers that ordinary code wrote, or is a kernel's first,"
               " with no wgmma.fence")
    tags = ("correctness", "async", "wgmma")
    docs = """\
## What it does
Flags a `wgmma.mma_async` whose accumulator (or register A fragment) variables were written by
ordinary C++ code earlier in the function (`float d[4] = {}`, `d[i] *= s`) with no
`wgmma.fence.sync.aligned` between that write and the `wgmma.mma_async`. The registers are the
C++ variables bound to those operands (through up to three calls of same-file or
included-project helpers). Where a variable cannot be named, or a call ptxlint cannot read lies
between the write and the `wgmma` (the fence may be there: CUTLASS's `warpgroup_arrive()`), the
rule is silent. A write after the `wgmma.mma_async`, in a loop around it, counts too where the
loop's next turn brings it to the `wgmma.mma_async` with no fence on the way (from the write to
the end of the turn, and from the start of the loop to the `wgmma`): the accumulators zeroed or
rescaled after the wait, and the fence only before the loop. Not where that way holds another
`wgmma`, a call ptxlint cannot read, or a `break`, `return` or `goto` after the write. This
rule is in preview.
A file without asm statements of its own is checked too, where it calls an asm helper of a
project header it includes.
""" + UNREADABLE_STEPS + ALIAS_CALLS + """
It also flags the first `wgmma.mma_async` a `__global__` kernel issues (its own, or one of a
helper it calls) where no `wgmma.fence` may run before it: none lies before it in the kernel
or the helpers it calls, on any path, and between the kernel's entry and the `wgmma` lies no
call ptxlint cannot read, no asm statement it cannot read (a template with a macro's text it
does not know, in the kernel or a helper it calls), and no declaration of an object whose
constructor in the file or its headers may fence (a declaration runs it). A fence later in a loop
around the `wgmma` is the next turn's: the first turn is flagged where it reaches the
`wgmma` for sure (no `if`, `switch`, `?:`, `&&`, `||` or inner loop of the kernel around the
`wgmma` inside the loop, no `continue` or `goto` before it, no `if` or loop of a helper on
the way). Silent in a function that is no kernel (its callers may fence), and for a `wgmma`
in a lambda. Where the accumulators' write is flagged too, that finding (which names the
write) is the one given.

## Why is this bad?
PTX ISA 9.7.15.5.2 (`wgmma.mma_async`): "wgmma.fence instruction must be used to fence the
register accesses of wgmma.mma_async instruction from their prior accesses. Otherwise, the
behavior is undefined." 9.7.15.6 (`wgmma.fence`) requires it "before the first
wgmma.mma_async operation in a warpgroup", and "between a register access by a
thread in the warpgroup and any wgmma.mma_async instruction that accesses the same registers,
either as accumulator or input register containing fragments of matrix A". ptxas, compiled
with `-gencode arch=compute_90a,code=sm_90a`, patches it where it sees it and says so: "(C7519)
warpgroup.arrive is injected in around line N by compiler to allow use of registers in GMMA"
(each kernel of the bad fixture gets it, the clean twin none). `--verify` compiles the file
for sm_90a and confirms the finding with that line where it names the function.

## Example
```cuda
float d[4] = {0.f, 0.f, 0.f, 0.f};
asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"
             " {%0,%1,%2,%3}, %4, %5, 1, 1, 1, 0, 0;"
             : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(desc_a), "l"(desc_b));
```

## Use instead
```cuda
float d[4] = {0.f, 0.f, 0.f, 0.f};
asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"
             " {%0,%1,%2,%3}, %4, %5, 1, 1, 1, 0, 0;"
             : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(desc_a), "l"(desc_b));
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        for flow, step in steps_of_kind(context, statement, MMA):
            write = unfenced_write(flow, step)
            carried = write is None
            if carried:
                write = unfenced_loop_write(flow, step)
            if write is None:
                entry = unfenced_entry(flow, step)
                if entry is None:
                    continue
                turn = "" if entry else " in the first turn of the loop around it"
                yield self.finding(
                    statement, step_span(flow, step),
                    f"`{step.instruction.mnemonic}` is the first wgmma kernel `{flow.name}` "
                    f"issues{turn}, and no wgmma.fence comes before it")
                continue
            byte, name = write
            turn = " in the loop's previous turn" if carried else ""
            yield self.finding(
                statement, step_span(flow, step),
                f"`{step.instruction.mnemonic}` uses `{name}`, written at line "
                f"{line_of(flow, byte)}{turn} by ordinary code, with no wgmma.fence in between")
