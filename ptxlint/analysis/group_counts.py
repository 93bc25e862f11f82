"""Whether a ``wait_group N`` completes the group a step joined, for each kind of group a
count waits on.

PTX ISA 9.7.9.25.3.3 (``cp.async.wait_group``), 9.7.15.7 (``wgmma.wait_group``) and 9.7.9.27.2.2
(``cp.async.bulk.wait_group``) give the three one meaning: the wait makes the executing thread
wait till only N or fewer of the most recent groups (cp.async-groups, wgmma-groups, bulk async-
groups) are pending "and all the prior" groups "committed by the executing threads are
complete". A ``cp.async``, a ``wgmma.mma_async`` or a ``.bulk_group`` copy joins the group the
first commit of its kind after it (``cp.async.commit_group``, ``wgmma.commit_group``,
``cp.async.bulk.commit_group``) makes; a ``wait_group N`` completes that group only when at
least N groups were committed after it. A pipeline's prologue commits one group per stage and
waits ``N = stages - 1`` to use the oldest; with a commit left out, two stages share one group,
and the wait that should have completed the oldest leaves it pending. A GEMM that issues the
next ``wgmma`` before waiting ``wgmma.wait_group 1`` may read the accumulators of the older
group only.

:func:`left_pending` answers from the per-function flows (:mod:`.function_flow`), the wait's
count read by :meth:`.FunctionFlow.count` (an immediate, or a constant bound through helpers'
parameters and template arguments). It answers yes only where the commits between the step and
the wait are all counted: none in a loop the step is not in (a later turn's commits count for
the next wait), none in an ``if`` arm or a loop of a helper, no call that may commit between
them, the count known. Counting a commit that does not run (the two arms of an ``if``) only
makes a group look completed: silence, never a wrong finding.
"""

from __future__ import annotations

from collections.abc import Callable

from ptxlint.analysis.function_flow import FunctionFlow, Step
from ptxlint.ptx.protocols import BULK_COMMIT, BULK_WAIT, COMMIT, WAIT, WG_COMMIT, WG_WAIT

__all__ = ["left_pending"]

# the commit that makes the groups each kind of wait counts
_COMMIT_OF = {WAIT: COMMIT, WG_WAIT: WG_COMMIT, BULK_WAIT: BULK_COMMIT}


def left_pending(flow: FunctionFlow, member: Step, wait: Step,
                 counted: Callable[[Step], int | None] | None = None) -> tuple[int, int] | None:
    """``wait`` (after ``member``, a ``cp.async``, ``wgmma.mma_async`` or bulk copy) certainly
    leaves the group ``member`` joined pending: (the wait's N, the groups committed after the
    member's before the wait). ``None`` where the wait completes the group, where the member has no
    commit before the wait (a wait never covers an uncommitted member), or where the count is
    not certain. ``counted``: how the wait's count is read, where not by ``flow.count`` (a
    helper's flow whose waits' counts only its call binds)."""
    commit = _COMMIT_OF.get(wait.kind)
    if commit is None or "wait_all" in wait.instruction.modifiers:
        return None
    count = (counted or flow.count)(wait)
    if not count:
        return None
    first, last = (member.start, member.order), (wait.start, wait.order)
    commits = [s for s in flow.steps
               if s.kind == commit and first < (s.start, s.order) < last]
    if not commits or len(commits) - 1 >= count:
        return None
    loops = flow.loops_at(member.start)
    for step in [*commits, wait]:
        if flow.loops_at(step.start) != loops or not flow.once(step) or \
                flow.lambda_at(step.start) != flow.lambda_at(member.start):
            return None  # taken an unknown number of times, or in an order unknown here
    if flow.opaque_between(member.start, wait.start, frozenset({commit})):
        return None
    return count, len(commits) - 1
