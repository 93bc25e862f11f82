"""Whether a ``cp.async.wait_group N`` (or a ``cp.async.bulk.wait_group N``) covers a copy at
all.

Whether the wait completes the cp.async-group the copy joined, counting the groups committed
between them, is :func:`.group_counts.left_pending`'s question, shared with
``wgmma.wait_group``.

:func:`uncommitted_at` answers the other question a wait raises: whether it finds a copy in no
group at all (no ``cp.async.commit_group`` between them). The wait completes "all the prior
cp.async-groups committed by the executing threads", and a copy not yet committed belongs to
none: whatever its N, the wait does not wait for the copy, and covers none of its data. PTX602
reports the wait where nothing commits the copy before its data is read, PTX603 the read where
a commit after the wait does. A bulk copy whose completion mechanism is ``.bulk_group`` (a TMA
store) joins a bulk async-group the same way, made by ``cp.async.bulk.commit_group``.
"""

from __future__ import annotations

from ptxlint.analysis.function_flow import FunctionFlow, Step
from ptxlint.ptx.protocols import BULK_COMMIT, BULK_WAIT, COMMIT, WAIT

__all__ = ["uncommitted_at"]

# the commit that makes the groups each kind of wait counts (a bulk async-group is made and
# waited for the same way: PTX ISA 9.7.9.27.2)
_COMMIT_OF = {WAIT: frozenset({COMMIT}), BULK_WAIT: frozenset({BULK_COMMIT})}


def uncommitted_at(flow: FunctionFlow, copy: Step, wait: Step) -> bool:
    """``wait`` (a ``cp.async.wait_group`` or ``cp.async.bulk.wait_group`` after ``copy``, on a
    run that takes both) certainly finds ``copy`` in no group: no commit of its kind
    (``cp.async.commit_group``, ``cp.async.bulk.commit_group``) a run taking the copy may
    reach lies between them (a commit of a followed helper counts), nor a call that may commit,
    nor a commit in a loop around the wait (a later turn commits before it waits again).
    ``cp.async.wait_all`` commits first; a copy or wait in an ``if`` arm or a loop of a helper,
    or in another lambda, has an order unknown here."""
    commits = _COMMIT_OF.get(wait.kind)
    if commits is None or "wait_all" in wait.instruction.modifiers:
        return False
    if (copy.start, copy.order) >= (wait.start, wait.order) or not flow.once(copy) or \
            not flow.once(wait) or flow.exclusive(copy.start, wait.start) or \
            flow.lambda_at(copy.start) != flow.lambda_at(wait.start):
        return False
    loops = flow.loops_at(wait.start)
    if loops and any(s.kind in commits and loops[0][0] <= s.start < loops[0][1]
                     and not flow.exclusive(wait.start, s.start) for s in flow.steps):
        return False
    if any(not flow.exclusive(copy.start, s.start)
           for s in flow.steps_between(copy, wait, commits)):
        return False
    return not flow.opaque_between(copy.start, wait.start, commits)
