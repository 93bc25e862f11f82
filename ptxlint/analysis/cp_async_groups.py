"""Whether a ``cp.async.wait_group N`` completes the cp.async-group a copy joined.

PTX ISA 9.7.9.25.3.3 (``cp.async.wait_group``): the instruction "will cause executing thread to
wait till only N or fewer of the most recent cp.async-groups are pending and all the prior
cp.async-groups committed by the executing threads are complete". A copy joins the group the
first ``cp.async.commit_group`` after it commits; a ``wait_group N`` completes that group only
when at least N groups were committed after it. A pipeline's prologue commits one group per
stage and waits ``N = stages - 1`` (or 2) to use the oldest; with a commit left out, two
stages' copies share one group, and the wait that should have made the oldest visible leaves
it pending.

:func:`left_pending` answers from the per-function flows (:mod:`.function_flow`), the wait's
count read by :meth:`.FunctionFlow.count` (an immediate, or a constant bound through helpers'
parameters and template arguments). It answers yes only where the commits between the copy and
the wait are all counted: none in a loop the copy is not in, none in an ``if`` arm or a loop of
a helper, no call that may commit between them, the count known. Counting a commit that does
not run (the two arms of an ``if``) only makes a group look completed: silence, never a wrong
finding.

:func:`uncommitted_at` answers the other question a wait raises: whether it finds a copy in no
group at all (no ``cp.async.commit_group`` between them). The wait completes "all the prior
cp.async-groups committed by the executing threads", and a copy not yet committed belongs to
none: whatever its N, the wait does not wait for the copy, and covers none of its data. PTX602
reports the wait where nothing commits the copy before its data is read, PTX603 the read where
a commit after the wait does.
"""

from __future__ import annotations

from ptxlint.analysis.function_flow import FunctionFlow, Step
from ptxlint.ptx.protocols import COMMIT, WAIT

__all__ = ["left_pending", "uncommitted_at"]

_COMMITS = frozenset({COMMIT})


def left_pending(flow: FunctionFlow, copy: Step, wait: Step) -> tuple[int, int] | None:
    """``wait`` (after ``copy``) certainly leaves the group ``copy`` joined pending: (the
    wait's N, the groups committed after the copy's before the wait). ``None`` where the wait
    completes the group, where the copy has no commit before the wait (a wait never covers an
    uncommitted copy: PTX602's question), or where the count is not certain."""
    if wait.kind != WAIT or "wait_all" in wait.instruction.modifiers:
        return None
    count = flow.count(wait)
    if not count:
        return None
    first, last = (copy.start, copy.order), (wait.start, wait.order)
    commits = [s for s in flow.steps
               if s.kind == COMMIT and first < (s.start, s.order) < last]
    if not commits or len(commits) - 1 >= count:
        return None
    loops = flow.loops_at(copy.start)
    for step in [*commits, wait]:
        if flow.loops_at(step.start) != loops or not flow.once(step) or \
                flow.lambda_at(step.start) != flow.lambda_at(copy.start):
            return None  # taken an unknown number of times, or in an order unknown here
    if flow.opaque_between(copy.start, wait.start, _COMMITS):
        return None
    return count, len(commits) - 1


def uncommitted_at(flow: FunctionFlow, copy: Step, wait: Step) -> bool:
    """``wait`` (a ``cp.async.wait_group`` after ``copy``, on a run that takes both) certainly
    finds ``copy`` in no cp.async-group: no ``cp.async.commit_group`` a run taking the copy may
    reach lies between them (a commit of a followed helper counts), nor a call that may commit,
    nor a commit in a loop around the wait (a later turn commits before it waits again).
    ``cp.async.wait_all`` commits first; a copy or wait in an ``if`` arm or a loop of a helper,
    or in another lambda, has an order unknown here."""
    if wait.kind != WAIT or "wait_all" in wait.instruction.modifiers:
        return False
    if (copy.start, copy.order) >= (wait.start, wait.order) or not flow.once(copy) or \
            not flow.once(wait) or flow.exclusive(copy.start, wait.start) or \
            flow.lambda_at(copy.start) != flow.lambda_at(wait.start):
        return False
    loops = flow.loops_at(wait.start)
    if loops and any(s.kind == COMMIT and loops[0][0] <= s.start < loops[0][1]
                     and not flow.exclusive(wait.start, s.start) for s in flow.steps):
        return False
    if any(not flow.exclusive(copy.start, s.start)
           for s in flow.steps_between(copy, wait, _COMMITS)):
        return False
    return not flow.opaque_between(copy.start, wait.start, _COMMITS)
