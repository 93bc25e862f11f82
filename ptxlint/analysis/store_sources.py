"""Where the shared memory a bulk store reads is written again before the store has read it.

A ``cp.async.bulk``, ``cp.async.bulk.tensor`` or ``cp.reduce.async.bulk`` copy from the CTA's
shared memory to global memory whose completion mechanism is ``.bulk_group`` (a TMA store)
reads its source in the async proxy after the instruction was issued. PTX ISA 9.7.9.27.2.2
(``cp.async.bulk.wait_group``): the wait makes the thread wait "until only N or fewer of the
most recent bulk async-groups are pending and all the prior bulk async-groups committed by the
executing threads are complete"; "the optional .read modifier indicates that the waiting has
to be done until all the bulk async operations in the specified bulk async-group have
completed ... reading from their source locations". Until then the source is the store's: a
write to it (``st.shared``, ``stmatrix``, a copy into it, a C++ store through its variable)
races with the store's read, and the store may send the new data.

:func:`overwrites` finds those writes for one store step of a function's flow
(:mod:`.function_flow`): in the same turn, after the store with no wait between that
completes the store's group, and in a loop's next turn, written before the store in the
loop's body with no wait on the way round. It keeps to what is certain: the write is to the
same place as the store's source (:meth:`.FunctionFlow.place`; a multi-dimensional buffer's
first index the same), no variable the source's address is computed from changes between the
two (in the next turn: anywhere in the loop, which would make it another stage's buffer each
turn), the wait's count and the commits between are known (:func:`.group_counts.left_pending`,
:func:`.cp_async_groups.uncommitted_at`), and no call ptxlint cannot read, which may commit or
wait, lies between.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import NamedTuple

from ptxlint.analysis.buffer_regions import indexed_past
from ptxlint.analysis.cp_async_groups import uncommitted_at
from ptxlint.analysis.divergence import Guard, divergent_guard
from ptxlint.analysis.flow_syntax import compact, subscripts_at
from ptxlint.analysis.function_flow import FileFlows, FunctionFlow, Step
from ptxlint.analysis.group_counts import left_pending
from ptxlint.analysis.rings import comes_round
from ptxlint.analysis.stage_links import computed_from
from ptxlint.analysis.thread_sync import may_order_between
from ptxlint.ptx.protocols import (
    BULK_COMMIT,
    BULK_LOAD,
    BULK_STORE,
    BULK_WAIT,
    COPY,
    SHARED_WRITE,
)

__all__ = ["Overwrite", "overwrites", "overwritten_by_others", "waits_for_groups", "writes_into"]

# the asm steps that write shared memory: a generic-proxy store, a copy into it
_WRITES = frozenset({SHARED_WRITE, BULK_LOAD, COPY})
_GROUPS = frozenset({BULK_COMMIT, BULK_WAIT})
_CHANGES = frozenset({"write", "readwrite", "declare", "initialise"})


class Overwrite(NamedTuple):
    """A write of a store's source before a wait completes the store's read: ``at``, its byte;
    ``write``, its asm step (``None`` for a C++ write); ``wait``, the last wait between, which
    does not complete the store's group, if any: ``pending``, the count it leaves pending and
    the groups committed after the store's (:func:`.group_counts.left_pending`), or None
    where it comes before the store's commit; ``next_turn``, reached through the back edge of
    a loop around both; ``ring``, where that loop picks the buffer with an index that comes
    back round (:mod:`.rings`), that index: the write is of a later turn's, when it has."""

    at: int
    write: Step | None
    wait: Step | None
    next_turn: bool
    pending: tuple[int, int] | None = None
    ring: str | None = None


def waits_for_groups(store: Step) -> bool:
    """``store`` is a bulk copy whose completion is counted in bulk async-groups
    (``.bulk_group``): a ``cp.async.bulk.wait_group`` is what completes it."""
    return store.kind == BULK_STORE and "bulk_group" in store.instruction.modifiers


def writes_into(flow: FunctionFlow, write: Step, place: tuple[str, str]) -> bool:
    """``write`` (an ``st.shared``, ``stmatrix``, a copy into shared memory) writes where a
    store whose source is ``place`` reads: the same place, or that place plus a run-time index
    (``out + lane * 16``, as ``out[i] = v`` is a write of ``out`` whatever ``i``:
    :func:`.buffer_regions.indexed_past`)."""
    trail: list[str] = []
    there = flow.place(write, write.event.memory, trail)
    return there is not None and there[0] == place[0] and (
        there == place or indexed_past(flow, trail, place[1]))


Counted = Callable[[Step], "int | None"]
# (the last wait that does not cover the store, its pending count, through the back edge,
# the ring index that brings the buffer back round)
_Missed = tuple["Step | None", "tuple[int, int] | None", bool, "str | None"]


def overwrites(flow: FunctionFlow, store: Step, counted: Counted | None = None
               ) -> Iterator[Overwrite]:
    """The writes of the shared memory ``store`` reads, before a wait completes its read (the
    module's docstring), in order; nothing where the source cannot be named. ``counted``: how
    a wait's count is read, where not by ``flow.count``.

    A store in a loop or an ``if`` arm of the helper whose call reaches it is asked of the
    helper's own flow, the counts of its waits read through the call (``tma_copy<...>()`` whose
    loop waits ``kNumStages - 1``, a template parameter the call leaves to its default): what
    the helper finds only so is the call's finding, at the call."""
    if not waits_for_groups(store):
        return
    if not flow.once(store):
        yield from _through_call(flow, store)
        return
    source = _source(flow, store)
    if source is None:
        return
    place, inputs, writes = source
    for at, write in writes:
        if write is not None and _helpers_own(write):
            continue
        order = write.order if write is not None else -1
        if (store.start, store.order) < (at, order):
            if _changed(flow, inputs, store.start, at):
                continue  # the same text names another buffer by then (`stage ^= 1`)
            if any(waits_for_groups(s) and (store.start, store.order) < (s.start, s.order)
                   < (at, order) and flow.place(s, s.event.memory) == place
                   for s in flow.steps):
                continue  # a later store of the same source: the write is its finding
            found = _same_turn(flow, store, at, order, counted)
        else:
            found = _next_turn(flow, store, at, order, write, inputs, counted)
        if found is not None:
            yield Overwrite(at, write, found[0], found[2], found[1], found[3])


def overwritten_by_others(flows: FileFlows, flow: FunctionFlow, store: Step
                          ) -> Iterator[tuple[int, Step | None, Guard]]:
    """The writes of ``store``'s source after it (in one run through the code, or in the
    next turn of a loop around both), by threads that did not issue it, with nothing between
    that may order them (``thread_sync``): the store is issued under a condition that splits
    the warp (``if (threadIdx.x == 0)``), and the write is under none. A wait completes only
    "the prior bulk async-groups committed by the executing threads": in the other threads it
    returns at once, so they need a barrier after the issuing thread's wait. Each as (its
    byte, its asm step or None, the store's guard)."""
    if not waits_for_groups(store) or not flow.once(store):
        return
    guard = divergent_guard(flows, flow, store.start)
    source = _source(flow, store) if guard is not None else None
    if guard is None or source is None:
        return
    _, inputs, writes = source
    for at, write in writes:
        order = write.order if write is not None else -1
        if divergent_guard(flows, flow, at):
            continue
        if (store.start, store.order) < (at, order):
            ways = [(store.start, at)]
        else:  # in the loop's next turn: from the store round to the write
            loop = next((loop for loop in reversed(flow.loops_at(store.start))
                         if loop[0] <= at < loop[1]), None)
            if loop is None or _changed(flow, inputs, *loop):
                continue
            ways = [(store.start, loop[1]), (loop[0], at)]
        if any(_changed(flow, inputs, *way) or may_order_between(flow, *way) for way in ways):
            continue
        yield at, write, guard


def _source(flow: FunctionFlow, store: Step
            ) -> tuple[tuple[str, str], frozenset[str], list[tuple[int, Step | None]]] | None:
    """The store's source as a place, the names its address is computed from, and the writes
    of that place that one run may reach with the store (not in the other arm of an ``if``,
    nor in another lambda); None where the source cannot be named."""
    memory = store.event.memory
    place = flow.place(store, memory)
    if place is None:
        return None
    variable, offset = place
    inputs = computed_from(flow, store, memory).every | {variable}
    writes = [(at, write) for at, write in _writes(flow, store, variable, offset,
                                                    flow.stage(store, memory))
              if not flow.exclusive(store.start, at)
              and flow.lambda_at(at) == flow.lambda_at(store.start)]
    return place, inputs, writes


def _through_call(flow: FunctionFlow, store: Step) -> Iterator[Overwrite]:
    """:func:`overwrites` of a store the call reaching it may take more than once, from the
    helper's flow with its waits counted through the call; those the helper's own counts find
    are its finding."""
    call, inner = store.call, store.inner
    if call is None or inner is None:
        return
    # the call's steps by the helper's (the same step, as each flow sees it)
    outer = {(s.inner.start, s.inner.order): s for s in flow.steps
             if s.call is not None and s.call.start == call.start and s.inner is not None}

    def counted(wait: Step) -> int | None:
        step = outer.get((wait.start, wait.order))
        return flow.count(step) if step is not None else None

    def key(step: Step | None) -> tuple[int, int] | None:
        return (step.start, step.order) if step is not None else None

    own = {key(found.write) for found in overwrites(call.helper, inner)}
    for found in overwrites(call.helper, inner, counted):
        at = key(found.write)
        write = outer.get(at) if at is not None else None
        if write is None or at in own:
            continue  # a C++ write of the helper, or the helper's own finding
        wait = outer.get((found.wait.start, found.wait.order)) if found.wait is not None else None
        yield Overwrite(call.start, write, wait, found.next_turn, found.pending, found.ring)


def _helpers_own(write: Step) -> bool:
    """``write`` comes through a helper call whose own flow flags it, after a store of its own:
    the helper's finding, one defect, not the caller's too (nor again for the caller's other
    stores before the call). Where the helper cannot tell (the count of its wait is a
    template parameter only the call binds, to a default), the caller's is kept."""
    call, inner = write.call, write.inner
    if call is None or inner is None:
        return False
    helper = call.helper
    at = (inner.start, inner.order)  # the same step, as the helper's flow has it
    return any(found.write is not None and (found.write.start, found.write.order) == at
               for store in helper.steps if waits_for_groups(store)
               for found in overwrites(helper, store))


def _writes(flow: FunctionFlow, store: Step, variable: str, offset: str,
            stage: str | None) -> list[tuple[int, Step | None]]:
    """Every write of the store's source in the function, in byte order: asm steps that write
    the same place, and C++ stores through an element of its variable (where the source is
    the variable or an element of it, at the same first index of a multi-dimensional one)."""
    place = (variable, offset)
    found: list[tuple[int, Step | None]] = [
        (s.start, s) for s in flow.steps
        if s.kind in _WRITES and s is not store and writes_into(flow, s, place)
        and flow.stage(s, s.event.memory) == stage]
    if not offset:
        word = len(variable.encode())
        for byte, how, element in flow.uses_of(variable):
            if not element or how not in ("write", "readwrite"):
                continue
            if stage is not None:
                node = flow.node.descendant_for_byte_range(byte, byte + word)
                subs = subscripts_at(node, flow.text) if node is not None else ()
                if len(subs) > 1 and compact(subs[0]) != stage:
                    continue
            found.append((byte, None))
    return sorted(found, key=lambda f: (f[0], f[1].order if f[1] is not None else -1))


def _changed(flow: FunctionFlow, names: set[str] | frozenset[str], start: int, end: int) -> bool:
    """A variable of ``names`` is written, or declared again, between bytes ``start`` and
    ``end`` (itself: a store through an element of it writes the memory, not the variable)."""
    return any(start < byte < end for name in names
               for byte, how, element in flow.uses_of(name) if how in _CHANGES and not element)


def _same_turn(flow: FunctionFlow, store: Step, at: int, order: int,
               counted: Counted | None) -> _Missed | None:
    """(the wait that does not cover the store, its pending count, False) where no wait
    between the store and the write at ``at`` completes the store's group; None where one
    does or may."""
    first, last = (store.start, store.order), (at, order)
    if flow.opaque_between(store.start, at, _GROUPS):
        return None
    waits = [s for s in flow.steps if s.kind == BULK_WAIT and first < (s.start, s.order) < last
             and not flow.exclusive(store.start, s.start)]
    missed = [(w, left_pending(flow, store, w, counted)) for w in waits]
    missed = [(w, p) for w, p in missed if p is not None or uncommitted_at(flow, store, w)]
    if len(missed) < len(waits):
        return None
    return missed[-1] + (False, None) if missed else (None, None, False, None)


def _next_turn(flow: FunctionFlow, store: Step, at: int, order: int, write: Step | None,
               inputs: set[str] | frozenset[str],
               counted: Counted | None) -> _Missed | None:
    """(the wait after the store that leaves its group pending, its count, True) where the
    write, before the store in the innermost loop around both, is reached in the loop's next
    turn with no wait on the way that completes the store's group; None otherwise. The source
    must be the same buffer in every turn: nothing its address is computed from changes in the
    loop."""
    loops = [loop for loop in flow.loops_at(store.start) if loop[0] <= at < loop[1]]
    if not loops:
        return None
    loop = loops[-1]
    names = set(inputs)
    if write is not None:
        names |= computed_from(flow, write, write.event.memory).every
    if _changed(flow, names, loop[0] - 1, loop[1]):
        return _ring_turn(flow, store, loops)
    if flow.opaque_between(store.start, loop[1], _GROUPS) or \
            flow.opaque_between(loop[0], at, _GROUPS):
        return None
    first, last = (store.start, store.order), (at, order)
    if any(s.kind == BULK_WAIT and loop[0] <= s.start and (s.start, s.order) < last
           and not flow.exclusive(s.start, at) for s in flow.steps):
        return None  # a wait at the top of the turn: whose group it completes is not counted
    after = [s for s in flow.steps if s.kind == BULK_WAIT and first < (s.start, s.order)
             and s.start < loop[1] and not flow.exclusive(store.start, s.start)]
    counts = [left_pending(flow, store, w, counted) for w in after]
    if any(count is None for count in counts):
        return None
    return (after[-1], counts[-1], True, None) if after else (None, None, True, None)


def _ring_turn(flow: FunctionFlow, store: Step, loops: list[tuple[int, int]]) -> _Missed | None:
    """(no wait, True, the ring's index) where the store's source is one buffer of a ring
    (:func:`.rings.comes_round` of the expressions the store's address is written with, in the
    loops around the store and the write, from the innermost out while it stays one), and no
    ``cp.async.bulk.wait_group`` lies anywhere in the outermost of those loops, nor a call
    that may wait: the write reaches the buffer again when the index comes back round, the
    store still pending. Silent where that loop counts to a constant no greater than the ring's
    size (the index never comes back round)."""
    memory = store.event.memory
    place = flow.place(store, memory)
    if place is None:
        return None
    found = comes_round(flow, computed_from(flow, store, memory).spelled, loops)
    if found is None:
        return None
    ring, outer = found
    if any(s.kind == BULK_WAIT and outer[0] <= s.start < outer[1] for s in flow.steps) or \
            flow.opaque_between(outer[0], outer[1], _GROUPS):
        return None
    return None, None, True, ring.name
