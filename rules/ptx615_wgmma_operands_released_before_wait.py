"""PTX615 wgmma-operands-released-before-wait."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.function_flow import FunctionFlow, Step, steps_of_kind
from ptxlint.analysis.stage_links import Inputs, computed_from, joined, same_stage
from ptxlint.model import AsmStatement, Finding, PtxOperand, Severity
from ptxlint.ptx.protocols import MBAR_ARRIVE, WG_COMMIT, WG_MMA, WG_WAIT
from ptxlint.rule import Rule, RuleContext

from ._protocol import ALIAS_CALLS, UNREADABLE_STEPS, step_span, where

_RETIRE = frozenset({WG_COMMIT, WG_WAIT})


def _reaches(flow: FunctionFlow, first: Step, later: Step) -> bool:
    """``later`` follows ``first`` in program order on some run: after it, in the same lambda,
    not in the other arm of an ``if`` that holds it."""
    return ((first.start, first.order) < (later.start, later.order)
            and flow.lambda_at(first.start) == flow.lambda_at(later.start)
            and not flow.exclusive(first.start, later.start))


def _commits(flow: FunctionFlow, mma: Step, arrive: Step) -> list[Step]:
    """The ``wgmma.commit_group`` steps a run takes after ``mma`` and before ``arrive``."""
    return [s for s in flow.steps_between(mma, arrive, {WG_COMMIT}) if _reaches(flow, mma, s)]


def _retired(flow: FunctionFlow, mma: Step, arrive: Step, commits: list[Step]) -> bool:
    """A ``wgmma.wait_group`` after the first of ``commits`` (:func:`_commits`) lies before
    ``arrive``: the wait may be the one that completes the wgmma's group (whatever its N:
    ``wait_group 1`` leaves the newest group pending, and the arrive may release the previous
    stage's buffers, which that wait completed)."""
    return bool(commits) and any(
        _reaches(flow, mma, s) for s in flow.steps_between(commits[0], arrive, {WG_WAIT}))


def _matrices(mma: Step) -> tuple[PtxOperand, ...]:
    """The operands of a ``wgmma.mma_async`` that address shared memory: its A descriptor
    (unless A is a vector of registers) and its B descriptor (``d, a, b, ...``, the sparse
    form's too)."""
    operands = mma.instruction.operands[1:3]
    return tuple(o for o in operands if o.kind != "vector")


def _next_turn(flow: FunctionFlow, mma: Step, arrive: Step) -> tuple[int, int] | None:
    """The innermost loop around both ``mma`` and an ``arrive`` written before it, whose next
    turn reaches the arrive after the wgmma (through the back edge); None for another pair."""
    if (arrive.start, arrive.order) >= (mma.start, mma.order) or \
            flow.lambda_at(mma.start) != flow.lambda_at(arrive.start) or \
            flow.exclusive(arrive.start, mma.start):
        return None
    loops = [loop for loop in flow.loops_at(mma.start) if loop[0] <= arrive.start < loop[1]]
    return loops[-1] if loops else None


def _around(flow: FunctionFlow, mma: Step, arrive: Step, loop: tuple[int, int],
            kinds: frozenset[str]) -> list[Step]:
    """The steps of ``kinds`` from ``mma`` to the end of the turn and from the start of the
    next one to ``arrive``, not in an arm that excludes the one they follow or precede."""
    return [s for s in flow.steps if s.kind in kinds and (
        ((mma.start, mma.order) < (s.start, s.order) and s.start < loop[1]
         and not flow.exclusive(mma.start, s.start))
        or (loop[0] <= s.start and (s.start, s.order) < (arrive.start, arrive.order)
            and not flow.exclusive(s.start, arrive.start)))]


def _early(flow: FunctionFlow, mma: Step, arrive: Step) -> tuple[bool, bool] | None:
    """Whether ``arrive`` is reached after ``mma`` before a commit and a wait retire it, and
    no later wgmma comes between: (through the loop's next turn, a commit lies between);
    None where it is not."""
    if _reaches(flow, mma, arrive):
        if any(_reaches(flow, s, arrive) for s in flow.steps_between(mma, arrive, {WG_MMA})):
            return None  # the later wgmma is the arrive's finding
        commits = _commits(flow, mma, arrive)
        if _retired(flow, mma, arrive, commits) or \
                flow.opaque_between(mma.start, arrive.start, _RETIRE):
            return None
        return False, bool(commits)
    loop = _next_turn(flow, mma, arrive)
    if loop is None or _around(flow, mma, arrive, loop, frozenset({WG_MMA, WG_WAIT})) or \
            flow.opaque_between(mma.start, loop[1], _RETIRE) or \
            flow.opaque_between(loop[0], arrive.start, _RETIRE):
        return None  # (any wait on the way silences it, as after a commit in one turn)
    return True, bool(_around(flow, mma, arrive, loop, frozenset({WG_COMMIT})))


def released_early(flow: FunctionFlow, mma: Step) -> Iterator[tuple[Step, str, bool, bool]]:
    """Each ``mbarrier.arrive`` on the stage ``mma`` reads (:func:`.same_stage`: the
    barrier's address and a descriptor of the wgmma are computed from one index that changes
    each turn of a loop around both) that a run reaches after ``mma``, in the same turn or in
    the loop's next one, with no ``wgmma.commit_group`` and ``wgmma.wait_group`` in between,
    and no later ``wgmma.mma_async`` before it (that one is the arrive's finding): with the
    index, whether the arrive is the next turn's, and whether a commit lies between. Silent
    where a call ptxlint cannot read, which may commit or wait, lies between, and for two
    steps of one helper call (the helper's own finding)."""
    read: Inputs | None = None
    for arrive in flow.steps:
        if arrive.kind != MBAR_ARRIVE:
            continue
        if mma.call is not None and arrive.call is not None and \
                mma.call.start == arrive.call.start:
            continue
        early = _early(flow, mma, arrive)
        if early is None:
            continue
        if read is None:
            read = joined([computed_from(flow, mma, o) for o in _matrices(mma)])
        barrier = computed_from(flow, arrive, arrive.event.memory)
        stage = same_stage(flow, read, barrier, (min(mma.start, arrive.start),
                                                 max(mma.start, arrive.start)))
        if stage is not None:
            yield arrive, stage, early[0], early[1]


class WgmmaOperandsReleasedBeforeWait(Rule):
    id = "PTX615"
    name = "wgmma-operands-released-before-wait"
    preview = True
    severity = Severity.WARNING
    needs = ("instructions", "helper-calls")
    summary = "mbarrier.arrive after a wgmma.mma_async with no commit_group and wait_group between"
    tags = ("correctness", "async", "wgmma")
    docs = """\
## What it does
Flags an `mbarrier.arrive` (or `arrive_drop`) on the pipeline stage a `wgmma.mma_async`
reads, reached after the wgmma with no `wgmma.commit_group` followed by a `wgmma.wait_group`
between them. A `wgmma.mma_async` reads its B matrix, and its A matrix when A is a
descriptor, from shared memory while it runs; arriving on a stage's "empty" mbarrier is how a
consumer tells the producer (a TMA warp, another warpgroup) that the stage may be refilled.
Arriving before the wait lets the producer overwrite the stage while the tensor cores still
read it.

The arrive is on the wgmma's stage where one index picks both: the barrier's address names a
variable that the wgmma's A or B descriptor is computed from (through locals, helper
parameters and the template's own registers, such as a `mapa` of the address), or the other
way round, and that variable changes in a loop around both (`stage = k % STAGES`, `++qidx`):
`mbar_arrive(empty[stage])` after a wgmma on `smem_a + stage * TILE`. An arrive on another
barrier (a scheduler's, a "tile ready" signal, another buffer's slot) is not flagged, nor one
on a stage picked by another index, even one computed from the same counter (`slot = it %
SLOTS` against `stage = it % STAGES`), nor any arrive where no loop picks a stage.

The steps are those of the function and of the same-file and project-header helpers it calls
(a few calls deep). Any wait after a commit silences the rule, whatever its N: after
`wgmma.wait_group 1` the newest group may still be running, but a pipeline releases the
previous stage there (`wait_group 1; arrive(empty[k - 1])`), and which turn's stage an index
holds is a run-time fact. A wgmma and an arrive in the two arms of one `if` (a producer and a
consumer warpgroup), or in two lambdas, are not in program order. Where two
`wgmma.mma_async` come before the arrive, the later one is reported; where a wgmma and an
arrive are two steps of one helper call, the helper's own flow reports them. A `bar.arrive`
or `bar.sync` (a named barrier, such as FlashAttention-3's warp scheduler barrier) is no
mbarrier and is not flagged. An arrive written before the wgmma in a loop's body is reached
after it in the loop's next turn (`if (k > 0) arrive(&empty[prev]);` at the top of the turn):
it is flagged where no `wgmma.wait_group`, nor a call that may hold one, lies from the wgmma
to the end of the turn or from the start of the turn to the arrive.
""" + UNREADABLE_STEPS + ALIAS_CALLS + """This rule is in preview.

## Why is this bad?
PTX ISA 9.7.15 ("Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions") lists
the protocol: "The `wgmma.mma_async` operation is performed in the async proxy", then commit
the outstanding operations into a wgmma-group with `wgmma.commit_group`, then wait for the
group, and "Once the wgmma-group completes, all the `wgmma.mma_async` operations have been
performed and completed." Nothing before that completion says the async proxy is done reading
the matrices in shared memory. An `mbarrier.arrive` releases the thread's own prior memory
accesses (generic proxy), not the wgmma's. The producer that waits on the barrier then
overwrites the stage with the next tile while the tensor cores may still read it: a result
mixed from two tiles, depending on timing, which no compile shows (akeley98/spork fixed this
twice, 43af803 and 9b3ffd1). Measured on an H100 (`benchmarks/protocol_evidence.py`, the
`release` experiment): a warpgroup issues 64 `m64n64k16` wgmmas on tiles of 1.0 and arrives on
the stage's mbarrier, a producer warp waits on it and zeroes the tiles; with the arrive before
`commit_group`/`wait_group 0`, 158,784-163,376 of the 4,194,304 accumulators of 1,024 blocks
missed part of their sum in four runs, and none with the arrive after the wait.

## Example
```cuda
for (int k = 0; k < k_tiles; ++k) {
  mbar_wait(full[k % STAGES], (k / STAGES) & 1);
  wgmma_fence();
  wgmma_m64n128k8(acc, desc_a(k), desc_b(k));
  mbar_arrive(empty[k % STAGES]);  // the wgmma may still read this stage
}
wgmma_commit_group();
wgmma_wait_group<0>();
```

## Use instead
```cuda
for (int k = 0; k < k_tiles; ++k) {
  mbar_wait(full[k % STAGES], (k / STAGES) & 1);
  wgmma_fence();
  wgmma_m64n128k8(acc, desc_a(k), desc_b(k));
  wgmma_commit_group();
  wgmma_wait_group<0>();  // or wait_group<1> and release stage k - 1
  mbar_arrive(empty[k % STAGES]);
}
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        for flow, mma in steps_of_kind(context, statement, WG_MMA):
            for arrive, stage, next_turn, committed in released_early(flow, mma):
                missing = ("a wgmma.wait_group" if committed
                           else "a wgmma.commit_group and a wgmma.wait_group")
                when = " of the previous turn" if next_turn else ""
                yield self.finding(
                    statement, step_span(flow, arrive),
                    f"mbarrier.arrive here releases the stage `{stage}` picks while the "
                    f"wgmma.mma_async at {where(flow, mma)}{when} may still be reading it: "
                    f"{missing} must come between")
