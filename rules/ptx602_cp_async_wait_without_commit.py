"""PTX602 cp-async-wait-without-commit."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.cp_async_groups import uncommitted_at
from ptxlint.analysis.function_flow import FunctionFlow, Step, steps_of_kind
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.ptx.protocols import COMMIT, COPY, TRACKED, WAIT
from ptxlint.rule import Rule, RuleContext

from ._protocol import ALIAS_CALLS, UNREADABLE_STEPS, line_of, step_span, where

_COMMITS = frozenset({COMMIT, TRACKED})


def uncommitted_copy(flow: FunctionFlow, wait: Step) -> tuple[Step, int] | None:
    """A ``cp.async`` before ``wait`` (a ``cp.async.wait_group``) that no
    ``cp.async.commit_group`` between them put in a group, whose data the function then reads
    after the wait, as if the wait had covered it: (the copy, the read's byte). Not where a
    commit follows in a loop around the wait (a later iteration's wait covers the copy), where
    the copies are tracked by an mbarrier instead, or where a call between the copy and the
    read may commit. A copy the function leaves pending on purpose, waiting only for older
    groups, is not read before its commit, and is not flagged."""
    for copy in flow.steps:
        # wait_all commits first; a commit no run that takes the copy reaches puts it in no
        # group; one later in a loop around the wait commits before a later turn waits
        if copy.kind != COPY or not uncommitted_at(flow, copy, wait) or any(
                not flow.exclusive(copy.start, s.start)
                for s in flow.steps_between(copy, wait, _COMMITS)):
            continue
        for at, _ in flow.reads_of(copy, copy.event.memory):
            if at <= wait.start or flow.exclusive(wait.start, at):
                continue
            if any(s.kind in _COMMITS and (copy.start, copy.order) < (s.start, s.order)
                   and s.start < at and not flow.exclusive(copy.start, s.start)
                   for s in flow.steps) or \
                    flow.opaque_between(copy.start, at, _COMMITS):
                break
            return copy, at
    return None


class CpAsyncWaitWithoutCommit(Rule):
    id = "PTX602"
    name = "cp-async-wait-without-commit"
    preview = True
    severity = Severity.ERROR
    needs = ("instructions", "helper-calls")
    summary = "cp.async.wait_group with no cp.async.commit_group after the copies it should cover"
    tags = ("correctness", "async")
    docs = """\
## What it does
Flags a `cp.async.wait_group N` that follows `cp.async` copies no `cp.async.commit_group` put
in a group, when the function then reads the data of those copies after the wait, as if the
wait covered them (the copies, the commits and the reads in the function and its same-file or
included-project helpers, up to three calls deep; a read through a pointer to the region of a
raw buffer the copy fills, where both are the buffer plus one constant byte offset, as
PTX603 reads it). `cp.async.wait_all` is not flagged (it
commits first), nor copies an mbarrier tracks (`cp.async.mbarrier.arrive`), nor a wait with a
commit later in a loop around it, nor one where a call that may commit lies between the copy
and the read, nor a copy or wait in an `if` arm or a loop of a helper (its order with the
others is not known at the call). A function that issues the next stage's copies and waits only
for older groups, committing later, does not read the new data before its commit, and is not
flagged. A commit no run that takes the copy reaches commits nothing of it: one in the other arm
of its `if`, or in the arm of another `if` that tests the same unchanging variable for another
constant (warp roles, as PTX603 reads them). This rule is in preview.
A file without asm statements of its own is checked too, where it calls an asm helper of a
project header it includes.
""" + UNREADABLE_STEPS + ALIAS_CALLS + """
## Why is this bad?
The wait does not wait for those copies. PTX ISA 9.7.9.25.3.3 (`cp.async.wait_group`):
"`cp.async.wait_group` instruction will cause executing thread to wait till only N or fewer
of the most recent cp.async-groups are pending and all the prior cp.async-groups committed by
the executing threads are complete", and "Writes performed by cp.async operations are made
visible to the executing thread only after [...] the completion of cp.async.wait_group on the
cp.async-group in which the cp.async belongs to". A copy never committed belongs to no group:
the wait returns at once, and the shared memory read after it may still hold old data. On an
H200 (`benchmarks/protocol_evidence.py`), 94% of the words read after such a wait were still
the sentinel the tile held before the copy.

## Example
```cuda
asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(src));
asm volatile("cp.async.wait_group 0;" ::: "memory");
__syncthreads();
float x = tile[threadIdx.x];
```

## Use instead
```cuda
asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(src));
asm volatile("cp.async.commit_group;" ::: "memory");
asm volatile("cp.async.wait_group 0;" ::: "memory");
__syncthreads();
float x = tile[threadIdx.x];
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        for flow, step in steps_of_kind(context, statement, WAIT):
            found = uncommitted_copy(flow, step)
            if found is None:
                continue
            copy, read = found
            yield self.finding(
                statement, step_span(flow, step),
                f"`{step.instruction.mnemonic}` waits only for committed groups, but the "
                f"cp.async at {where(flow, copy)} was never committed, and line "
                f"{line_of(flow, read)} reads its data after this wait")
