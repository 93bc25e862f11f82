"""PTX602 cp-async-wait-without-commit."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.function_flow import FunctionFlow, Step, flows_of
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.ptx.protocols import COMMIT, COPY, TRACKED, WAIT
from ptxlint.rule import Rule, RuleContext

from ._protocol import step_span, where


def uncommitted_copy(flow: FunctionFlow, wait: Step) -> Step | None:
    """The function's first ``cp.async`` before ``wait`` (a ``cp.async.wait_group``), where
    no ``cp.async.commit_group`` can have run before the wait: none earlier in the function,
    none later in a loop around the wait, no ``cp.async.mbarrier.arrive`` tracking the copies
    instead, and no call before it that ptxlint cannot read."""
    if "wait_all" in wait.instruction.modifiers:
        return None  # wait_all commits first (cp.async.wait_all = commit_group; wait_group 0)
    before = [s for s in flow.steps if (s.start, s.order) < (wait.start, wait.order)]
    if any(s.kind in (COMMIT, TRACKED) for s in before):
        return None
    loops = flow.loops_at(wait.start)
    if loops:
        outer = loops[0]
        if any(s.kind == COMMIT and outer[0] <= s.start < outer[1] for s in flow.steps):
            return None  # a later iteration commits before it waits
    if flow.opaque_between(flow.start, wait.start, frozenset({COMMIT, TRACKED})):
        return None
    copies = [s for s in before if s.kind == COPY and not flow.exclusive(s.start, wait.start)]
    return copies[0] if copies else None


class CpAsyncWaitWithoutCommit(Rule):
    id = "PTX602"
    name = "cp-async-wait-without-commit"
    preview = True
    severity = Severity.ERROR
    needs = ("instructions",)
    summary = "cp.async.wait_group with no cp.async.commit_group after the copies it should cover"
    tags = ("correctness", "async")
    docs = """\
## What it does
Flags a `cp.async.wait_group N` when the function issued `cp.async` copies before it and no
`cp.async.commit_group` can have run before the wait: none earlier in the function (its
same-file helpers included, one call level deep), none later in a loop around the wait.
`cp.async.wait_all` is not flagged (it commits first), nor is a function whose copies an
mbarrier tracks (`cp.async.mbarrier.arrive`), nor one that calls, before the wait, a
function ptxlint cannot read (the commit may be there). This rule is in preview.

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
        flows = flows_of(context)
        if flows is None:
            return
        for flow, step in flows.steps_of(statement):
            if step.kind != WAIT:
                continue
            copy = uncommitted_copy(flow, step)
            if copy is None:
                continue
            yield self.finding(
                statement, step_span(flow, step),
                f"`{step.instruction.mnemonic}` waits only for committed groups, but the "
                f"cp.async at {where(flow, copy)} was never committed "
                f"(no cp.async.commit_group before this wait)")
