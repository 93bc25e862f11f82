"""PTX603 cp-async-read-before-wait."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ptxlint.analysis.buffer_regions import memory_region
from ptxlint.analysis.cp_async_groups import uncommitted_at
from ptxlint.analysis.flow_syntax import compact, subscripts_at
from ptxlint.analysis.function_flow import FunctionFlow, Step, steps_of_kind
from ptxlint.analysis.group_counts import left_pending
from ptxlint.analysis.rings import Ring, comes_round, ring_index
from ptxlint.analysis.stage_links import computed_from
from ptxlint.model import AsmStatement, Finding, Severity, Span
from ptxlint.ptx.protocols import (
    BULK_LOAD,
    BULK_STORE,
    BULK_WAIT,
    COMMIT,
    COPY,
    MBAR_WAIT,
    SHARED_READ,
    TRACKED,
    WAIT,
)
from ptxlint.rule import Rule, RuleContext

from ._protocol import ALIAS_CALLS, UNREADABLE_STEPS, byte_span, line_of, step_span, where

_COVERS = frozenset({WAIT, MBAR_WAIT, TRACKED})
_TRACKING = frozenset({TRACKED})


def _waits_in_loop(flow: FunctionFlow, at: int, covers: Callable[[Step], bool]) -> bool:
    """A step ``covers`` accepts lies in a loop around byte ``at``: a pipeline, where a later
    turn's wait covers what this turn leaves pending."""
    return any(covers(s) and start <= s.start < end
               for start, end in flow.loops_at(at) for s in flow.steps)


def unwaited_reads(
    flow: FunctionFlow, copy: Step
) -> Iterator[tuple[int, Step | None, Step | None]]:
    """The reads of the shared memory ``copy`` fills (:meth:`FunctionFlow.reads_of`) that no
    wait separates from it, or only a ``cp.async.wait_group N`` that leaves the copy's group
    pending (:func:`.left_pending`), or that comes before any commit of the copy
    (:func:`.uncommitted_at`) where a commit follows before the read (without one, PTX602
    reports the wait): (byte, the read's step or None for a C++ read, that wait). Nothing
    where a wait sits in a loop around the copy or the read (a pipeline: a later stage's wait
    covers this copy), where a call between them may wait, or where another copy to the same
    place, one the wait completes, may be what the read reads."""
    if not flow.once(copy):
        return  # in an if arm or a loop of a helper: which copy, which wait, unknown here
    tracked = _may_track(flow, copy)

    def may_cover(wait: Step) -> bool:
        # a wait no run that takes the copy reaches covers nothing of it, nor an mbarrier
        # wait where no cp.async.mbarrier.arrive has an mbarrier track the copy
        return wait.kind in _COVERS and not flow.exclusive(copy.start, wait.start) and (
            wait.kind != MBAR_WAIT or tracked)

    if _waits_in_loop(flow, copy.start, may_cover):
        return
    after = (copy.start, copy.order)
    place = flow.place(copy, copy.event.memory)
    region = memory_region(flow, copy, copy.event.memory)

    def same_memory(other: Step) -> bool:
        """``other`` copies to where the read may read: the same place, or (the read is of a
        region of a raw buffer) the same region, or a part of the buffer no region names."""
        there = flow.place(other, other.event.memory)
        if there == place:
            # two stages of one buffer (`&s[0][i]`, `&s[1][i]`) hold different data
            stages = (flow.stage(copy, copy.event.memory), flow.stage(other, other.event.memory))
            return not all(s is not None and s.isdigit() for s in stages) or \
                stages[0] == stages[1]
        if region is None or there is None or place is None or there[0] != place[0]:
            return False
        elsewhere = memory_region(flow, other, other.event.memory)
        return elsewhere is None or elsewhere == region

    for at, read in flow.reads_of(copy, copy.event.memory):
        # a wait of the same helper call as the copy, after it, covers it too
        last = (read.start, read.order) if read is not None else (at, -1)
        covers = [s for s in flow.steps if after < (s.start, s.order) < last and may_cover(s)]
        # a wait_group before the copy's commit waits for nothing of it
        early = [s for s in covers if uncommitted_at(flow, copy, s)]
        if early and not any(s.kind == COMMIT and after < (s.start, s.order) < last
                             and not flow.exclusive(copy.start, s.start) for s in flow.steps):
            continue  # and no commit before the read: PTX602's finding, at the wait
        covers = [s for s in covers if s not in early]
        if flow.opaque_between(copy.start, at, _COVERS) or any(
                left_pending(flow, copy, s) is None for s in covers):
            continue
        if covers and any(c.kind == COPY and c is not copy and (c.start, c.order) < last
                          and same_memory(c)
                          and any(left_pending(flow, c, s) is None for s in covers)
                          for c in flow.steps):
            continue  # the read may be of another copy's data there, one the wait completed
        if _waits_in_loop(flow, at, may_cover):
            continue
        yield at, read, covers[0] if covers else early[0] if early else None


_MBAR_WAITS = frozenset({MBAR_WAIT})


def unwaited_bulk_read(
    flow: FunctionFlow, copy: Step
) -> tuple[int, Step | None, Step | None] | None:
    """The first read of the shared memory a bulk copy with mbarrier completion
    (``.mbarrier::complete_tx::bytes``) fills, where no mbarrier wait separates it from the
    copy: (byte, the read's step or None for a C++ read, a ``cp.async.bulk.wait_group`` or
    ``cp.async.wait_group`` between them, which waits for groups the copy is in none of).
    Nothing where an mbarrier wait sits in a loop around the copy or the read (a pipeline),
    where a call between them may wait, or where the copy is in an ``if`` arm or a loop of
    a helper."""
    if not flow.once(copy):
        return None

    def may_cover(step: Step) -> bool:
        return step.kind == MBAR_WAIT and not flow.exclusive(copy.start, step.start)

    if _waits_in_loop(flow, copy.start, may_cover):
        return None
    after = (copy.start, copy.order)
    reads = flow.reads_of(copy, copy.event.memory)
    # a bulk store of the same place reads it too (through the async proxy: a TMA store of
    # the tile the load fills)
    place = flow.place(copy, copy.event.memory)
    reads.extend((s.start, s) for s in flow.steps
                 if s.kind == BULK_STORE and after < (s.start, s.order) and place is not None
                 and not flow.exclusive(copy.start, s.start)
                 and flow.place(s, s.event.memory) == place)
    if not reads:
        return None
    at, read = min(reads, key=lambda r: (r[0], r[1].order if r[1] is not None else -1))
    last = (read.start, read.order) if read is not None else (at, -1)
    if any(after < (s.start, s.order) < last and may_cover(s) for s in flow.steps) or \
            flow.opaque_between(copy.start, at, _MBAR_WAITS) or _waits_in_loop(flow, at, may_cover):
        return None
    wrong = next((s for s in flow.steps if s.kind in (BULK_WAIT, WAIT)
                  and after < (s.start, s.order) < last
                  and not flow.exclusive(copy.start, s.start)), None)
    return at, read, wrong


def ring_reads(flow: FunctionFlow, copy: Step) -> tuple[int, Step | None, Ring] | None:
    """The first read, in a loop around ``copy``, of a stage of the ring buffer the copy fills
    (``tile[k % S][i]``: :func:`.rings.comes_round` of the expressions its address is written
    with), where no wait (nor a call that may take one) lies anywhere in the outermost loop
    the ring stays one in: (byte, the read's step or None for a C++ read, the copy's ring).
    The read's first index must make a ring of the same constant size or modulus, or be the
    copy's own, so that over the turns it reads the stages the copy fills. Only a buffer of
    stages indexed first (``tile[stage][i]``) is asked; where several copies fill it, the
    earliest one's finding is the only one."""
    memory = copy.event.memory
    place = flow.place(copy, memory)
    stage = flow.stage(copy, memory)
    loops = flow.loops_at(copy.start)
    if place is None or stage is None or not loops or not flow.once(copy):
        return None
    variable = place[0]
    found = comes_round(flow, computed_from(flow, copy, memory).spelled, loops)
    if found is None:
        return None
    ring, outer = found
    tracked = _may_track(flow, copy)
    if any(s.kind in _COVERS and (s.kind != MBAR_WAIT or tracked) and
           outer[0] <= s.start < outer[1] for s in flow.steps) or \
            flow.opaque_between(outer[0], outer[1], _COVERS):
        return None

    def same_ring(index: str | None) -> bool:
        if index is None:
            return False
        if compact(index) == stage:
            return True
        other = ring_index(flow, (index,), outer)
        return other is not None and (ring.size is not None and other.size == ring.size or
                                      ring.modulus is not None and other.modulus == ring.modulus)

    def reachable(at: int) -> bool:
        return not flow.exclusive(copy.start, at) and \
            flow.lambda_at(at) == flow.lambda_at(copy.start)

    word = len(variable.encode())
    reads: list[tuple[int, Step | None]] = []
    for byte, how, element in flow.uses_of(variable):
        if not element or how not in ("read", "readwrite") or not outer[0] <= byte < outer[1] \
                or not reachable(byte):
            continue
        node = flow.node.descendant_for_byte_range(byte, byte + word)
        subs = subscripts_at(node, flow.text) if node is not None else ()
        if len(subs) > 1 and same_ring(subs[0]):
            reads.append((byte, None))
    reads.extend((s.start, s) for s in flow.steps
                 if s.kind == SHARED_READ and outer[0] <= s.start < outer[1] and
                 reachable(s.start) and (there := flow.place(s, s.event.memory)) is not None
                 and there[0] == variable and same_ring(flow.stage(s, s.event.memory)))
    if not reads:
        return None
    at, read = min(reads, key=lambda r: r[0])
    # one missing wait, one finding: the read is the earliest copy's to report
    if any(c.kind == COPY and (c.start, c.order) < (copy.start, copy.order)
           and outer[0] <= c.start < outer[1] and (earlier := ring_reads(flow, c)) is not None
           and earlier[0] == at for c in flow.steps):
        return None
    return at, read, ring


def _may_track(flow: FunctionFlow, copy: Step) -> bool:
    """The function may have an mbarrier track ``copy``: a ``cp.async.mbarrier.arrive``
    (PTX ISA: it makes the mbarrier track the executing thread's prior cp.async operations) that
    a run taking the copy may reach, or a call that may take one. Without it, no mbarrier
    wait is for the copy."""
    return any(s.kind == TRACKED and not flow.exclusive(copy.start, s.start)
               for s in flow.steps) or \
        bool(flow.opaque_between(flow.start, flow.end, _TRACKING))


def _read_at(flow: FunctionFlow, copy: Step, start: int, read: Step | None) -> tuple[Span, str]:
    """Where a read of ``copy``'s buffer at byte ``start`` is, and how the message names it: an
    asm read by its mnemonic; a C++ read by the variable read, the copy's own or a pointer to
    its region of a raw buffer."""
    if read is not None:
        return step_span(flow, read), f"`{read.instruction.mnemonic}`"
    spelled = flow.name_used_at(start)
    buffer = spelled if spelled is not None else flow.key(copy, copy.event.memory) or ""
    return byte_span(flow, start, start + len(buffer.encode())), f"`{buffer}`"


class CpAsyncReadBeforeWait(Rule):
    id = "PTX603"
    name = "cp-async-read-before-wait"
    preview = True
    severity = Severity.ERROR
    needs = ("instructions", "helper-calls")
    summary = "Shared memory a cp.async fills is read before any wait for the copy"
    tags = ("correctness", "async")
    docs = """\
## What it does
Flags the first read of a shared-memory buffer that a `cp.async` of the same function fills,
when no `cp.async.wait_group`, `cp.async.wait_all` or mbarrier wait lies between the copy and
the read. The read is a C++ read of the same variable (`tile[i]`, `*tile`), the variable
passed to a toolkit function that reads what it points to (`wmma::load_matrix_sync(a, tile,
16)`, `memcpy(dst, tile, n)`), or an `ld.shared`/`ldmatrix` asm on it; the buffer is the
variable behind the copy's destination operand (through `__cvta_generic_to_shared`, casts and
locals defined once, and through same-file or included-project helpers, up to three calls
deep). Where one raw buffer is carved
into regions (`float* s_x = reinterpret_cast<float*>(smem_raw + 4096)`, and the copy's address
`smem + 4096 + i`), a read of the region the copy fills counts too, through a pointer to it or
an `ld.shared` at another index: both must be the buffer plus the same compile-time constant
byte offset (a region whose offset is a pipeline's stage, known only at run time, is never
taken for another). The rule is silent where a wait
sits in a loop around the copy or the read (a multi-stage pipeline, where a later stage's wait
covers the copy), where the copy and the read are in the two arms of one `if`, and where a call
ptxlint cannot read lies between them, or the copy is in an `if` arm or a loop of a helper. A
wait of the same helper call, after the copy, covers it. A wait no run that takes the copy
reaches covers nothing: one in the other arm of its `if`, or in the arm of another `if` that
tests the same variable for another constant (warp roles: `if (warp == 0) {copy}` then
`if (warp == 1) {wait}`), where that variable keeps one value (a parameter, or a local
initialised once outside the loops around both, never written, and never passed to a call or
its address taken unless declared `const`). Nor does an mbarrier wait, where no
`cp.async.mbarrier.arrive` (or a call that may issue one) has an mbarrier track the copy.

It also flags a read whose only waits are `cp.async.wait_group N` that leave the copy's group
pending: fewer than N groups were committed after the one the copy joined (a pipeline's
prologue with one commit left out, two stages sharing a group). N must be known (an immediate,
or a constant passed to a helper's parameter or template argument: `cp_async_wait<1>()`,
`__pipeline_wait_prior(1)`), and every commit between the copy and the wait counted: none in a
loop the copy is not in, nor in an `if` arm or loop of a helper, nor a call that may commit;
and no other copy to the same place, one the wait completes, may be what the read reads (two
stages of one buffer, `&s[0][i]` and `&s[1][i]`, are two places). This rule is in preview.

And it flags a read whose only waits come before the copy's `cp.async.commit_group` (`copy;
wait_group 0; commit_group; read`): such a wait finds the copy in no group and does not wait
for it, whatever its N. No commit (nor a call that may commit) may lie between the copy and
the wait, nor in a loop around the wait, and neither may be in an `if` arm or a loop of a
helper. Where no commit follows before the read either, PTX602 reports the wait instead.
And it flags a multistage pipeline with its wait left out: a copy in a loop fills a stage of a
buffer of stages picked by an index that comes back round (`&s[(k + S - 1) % S][i]`,
`analysis/rings.py`), the loop reads a stage of the same buffer whose index is the copy's or
cycles through the same places (`s[k % S][i]`: the same remainder, or a constant size that
matches), and no wait (nor a call that may take one) lies anywhere in the outermost loop the
ring stays one in: over the turns, each stage is read after a copy that fills it, with nothing
waited for. A wait in the loop is the pipeline's and is not counted against the ring; an index
that only grows names a new buffer each turn; a loop that counts to a constant no greater than
the ring's size never comes back round.

A bulk copy into shared memory that completes on an mbarrier
(`cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes`, the tensor form alike) is in
no async-group: only an mbarrier wait (`mbarrier.try_wait`/`test_wait`) completes it. The rule
flags the first read of its buffer (a C++ read, an `ld.shared`, or a bulk store that copies the
buffer out) with no mbarrier wait between, and names a `cp.async.bulk.wait_group` or
`cp.async.wait_group` found there, which returns without waiting for the copy (uccl's ukernel
shipped that: the store read the tile while the load was in flight, and crashed). Silent where
an mbarrier wait sits in a loop around the copy or the read, where a call ptxlint cannot read
lies between them, or the copy is in an `if` arm or a loop of a helper. A helper defined twice,
its real body under an `#if` and an empty stub in the other branch (`#if __CUDA_ARCH__ >= 900`
... `#else` `{}`), is read as its real body: the build that compiles the stub takes no step of
it.

A file without asm statements of its own is checked too, where it calls an asm helper of a
project header it includes.
""" + UNREADABLE_STEPS + ALIAS_CALLS + """

## Why is this bad?
The copy has only been issued. PTX ISA 9.7.9.25.3.3: "Writes performed by cp.async
operations are made visible to the executing thread only after: the completion of
cp.async.wait_all, or the completion of cp.async.wait_group on the cp.async-group in which the
cp.async belongs to, or mbarrier.test_wait returns True on an mbarrier object which is
tracking the completion of the cp.async operation." Before that, the read sees whatever the
buffer held: a race that compute-sanitizer's racecheck reports (a read-after-write hazard on
the read). On an H200 (`benchmarks/protocol_evidence.py`), 93% of the words read so were still
the sentinel the tile held before the copy. And `cp.async.wait_group N` "will cause executing
thread to wait till only N or fewer of the most recent cp.async-groups are pending": the N
most recent groups, the copy's among them, may still be in flight when it returns.

## Example
```cuda
asm volatile("cp.async.ca.shared.global [%0], [%1], 4;"
             :: "r"((unsigned)__cvta_generic_to_shared(&tile[threadIdx.x])), "l"(src));
asm volatile("cp.async.commit_group;" ::: "memory");
float x = tile[threadIdx.x];
```

## Use instead
```cuda
asm volatile("cp.async.ca.shared.global [%0], [%1], 4;"
             :: "r"((unsigned)__cvta_generic_to_shared(&tile[threadIdx.x])), "l"(src));
asm volatile("cp.async.commit_group;" ::: "memory");
asm volatile("cp.async.wait_group 0;" ::: "memory");
float x = tile[threadIdx.x];
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        for flow, step in steps_of_kind(context, statement, COPY):
            first = next(unwaited_reads(flow, step), None)
            if first is None:
                yield from self._ring_finding(statement, flow, step)
                continue
            start, read, wait = first
            span, how = _read_at(flow, step, start, read)
            between = "with no cp.async wait in between"
            pending = left_pending(flow, step, wait) if wait is not None else None
            if wait is not None and uncommitted_at(flow, step, wait):
                between = (f"and the `{wait.instruction.mnemonic}` at {where(flow, wait)} "
                           f"comes before the copy's cp.async.commit_group: it waits only for "
                           f"committed groups")
            elif wait is not None and pending is not None:
                count, younger = pending
                between = (f"but the `cp.async.wait_group {count}` at {where(flow, wait)} "
                           f"lets the {count} most recent group(s) stay pending, and only "
                           f"{younger} was committed after the copy's")
            yield self.finding(
                statement, span,
                f"{how} at line {line_of(flow, start)} reads the shared memory that the "
                f"cp.async at {where(flow, step)} fills, {between}")

        for flow, step in steps_of_kind(context, statement, BULK_LOAD):
            found = unwaited_bulk_read(flow, step)
            if found is None:
                continue
            start, read, wrong = found
            span, how = _read_at(flow, step, start, read)
            if wrong is not None:
                between = (f"and the `{wrong.instruction.mnemonic}` at {where(flow, wrong)} "
                           "waits only for async-groups: the copy completes on its mbarrier "
                           "(.mbarrier::complete_tx::bytes) and is in no group; wait on the "
                           "mbarrier (mbarrier.try_wait) instead")
            else:
                between = "with no mbarrier wait in between"
            yield self.finding(
                statement, span,
                f"{how} at line {line_of(flow, start)} reads the shared memory that the "
                f"`{step.instruction.mnemonic}` at {where(flow, step)} fills, {between}")

    def _ring_finding(self, statement: AsmStatement, flow: FunctionFlow,
                      step: Step) -> Iterator[Finding]:
        found = ring_reads(flow, step)
        if found is None:
            return
        start, read, ring = found
        span, how = _read_at(flow, step, start, read)
        yield self.finding(
            statement, span,
            f"{how} at line {line_of(flow, start)} reads a stage of the ring buffer that the "
            f"cp.async at {where(flow, step)} fills in the loop's turns (`{ring.name}` comes "
            f"back round to each stage), with no cp.async wait anywhere in the loop")
