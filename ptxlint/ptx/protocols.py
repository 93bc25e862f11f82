"""What a PTX instruction means to the asynchronous protocols and to warp convergence.

The cross-statement rules (PTX6xx) ask of a parsed instruction two questions: which step of an
asynchronous protocol it is (``events``), and whether the whole warp must reach it together
(``collective``). Both are read off the parsed mnemonic (opcode and modifiers, as
:mod:`ptxlint.ptx.parser` splits them) and the operand positions the PTX ISA gives each form;
nothing here matches template text.

The ISA sections (PTX ISA 9.x; titles rather than numbers, which move between releases):

* cp.async (9.7.9.25.3 "Data Movement and Conversion Instructions: cp.async", ``cp.async``,
  ``cp.async.commit_group``, ``cp.async.wait_group`` / ``cp.async.wait_all``): "Writes
  performed by cp.async operations are made visible to the executing thread only after the
  completion of cp.async.wait_all, or the completion of cp.async.wait_group on the
  cp.async-group in which the cp.async belongs to, or mbarrier.test_wait returns True on an
  mbarrier object which is tracking the completion of the cp.async operation."
* mbarrier (9.7.13.15 "Parallel Synchronization and Communication Instructions: mbarrier"):
  ``mbarrier.init``, the *expect-tx* operation (``mbarrier.arrive.expect_tx``,
  ``mbarrier.expect_tx``), ``mbarrier.test_wait`` / ``try_wait``.
* bulk copies (9.7.9.25.4 "cp.async.bulk", 9.7.9.25.5 "cp.async.bulk.tensor",
  ``cp.reduce.async.bulk``): the first state space named is the destination, the second the
  source; a copy into shared memory completes on the mbarrier operand (``complete-tx``).
* proxies (9.7.9.25.2 "Async Proxy": "Accessing the same memory location across multiple
  proxies needs a cross-proxy fence. For the async proxy, fence.proxy.async should be used");
  the bulk copies access their mbarrier operand "using generic-proxy", so an mbarrier needs no
  proxy fence; ``fence.mbarrier_init`` (9.7.13.4 "membar / fence") orders prior
  ``mbarrier.init`` at cluster scope, for other CTAs.
* wgmma (9.7.15 "Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions":
  ``wgmma.fence``, ``wgmma.mma_async``, ``wgmma.commit_group``, ``wgmma.wait_group``).
* convergence: every ``.aligned`` instruction ("all threads in the warp must execute the same
  instruction. In conditionally executed code, [it] should only be used if it is known that all
  threads in the warp evaluate the condition identically, otherwise behavior is undefined";
  ``mma``, ``ldmatrix``, ``stmatrix``, ``wgmma.*``, ``bar.sync``...), and the ``.sync`` warp
  collectives with a member mask (``shfl.sync``, ``vote.sync``, ``match.sync``,
  ``redux.sync``, ``bar.warp.sync``, ``elect.sync``), which wait for every lane the mask
  names.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from ptxlint.model import AsmStatement, PtxInstruction, PtxOperand
from ptxlint.value_class import value_class

__all__ = [
    "BULK_COMMIT",
    "BULK_LOAD",
    "BULK_STORE",
    "BULK_WAIT",
    "CLUSTER_RELEASE",
    "COMMIT",
    "COPY",
    "EXPECT_TX",
    "FENCE_INIT",
    "FENCE_PROXY",
    "MBAR_ARRIVE",
    "MBAR_INIT",
    "MBAR_WAIT",
    "NC_LOAD",
    "RELEASE",
    "SHARED_READ",
    "SHARED_WRITE",
    "TC_ALLOC",
    "TC_DEALLOC",
    "TC_GROUPED",
    "TC_RELINQUISH",
    "TRACKED",
    "WAIT",
    "WG_COMMIT",
    "WG_FENCE",
    "WG_MMA",
    "WG_WAIT",
    "Collective",
    "Event",
    "collective",
    "events",
]

# Event kinds: one step of an asynchronous protocol.
COPY = "cp.async"  # cp.async.ca/.cg: shared destination (operand 0), not yet visible
COMMIT = "cp.async.commit_group"
WAIT = "cp.async.wait"  # wait_group N (count N) or wait_all (count 0, and commits first)
TRACKED = "cp.async.mbarrier.arrive"  # the copies are tracked by an mbarrier instead
MBAR_INIT = "mbarrier.init"
EXPECT_TX = "mbarrier.expect_tx"  # barrier operand, count operand
MBAR_WAIT = "mbarrier.wait"  # test_wait / try_wait
MBAR_ARRIVE = "mbarrier.arrive"  # arrive / arrive_drop without expect_tx: barrier operand
FENCE_INIT = "fence.mbarrier_init"
FENCE_PROXY = "fence.proxy.async"  # one that covers the CTA's shared memory
# a release at cluster scope: barrier.cluster.arrive (not .relaxed), fence.{sc,acq_rel,release}
# .cluster; with fence.mbarrier_init, what makes an mbarrier.init visible to the other CTAs
CLUSTER_RELEASE = "cluster.release"
BULK_LOAD = "bulk.load"  # async proxy writes shared memory, completes on an mbarrier
BULK_STORE = "bulk.store"  # async proxy reads the CTA's shared memory (TMA store, reduce)
# cp.async.bulk.commit_group / cp.async.bulk.wait_group{.read} N (9.7.9.27.2 "Bulk and Tensor
# copy completion instructions"): the bulk async-groups of the copies whose completion
# mechanism is .bulk_group (a store's, a reduction's), counted like cp.async-groups
BULK_COMMIT = "cp.async.bulk.commit_group"
BULK_WAIT = "cp.async.bulk.wait_group"
WG_FENCE = "wgmma.fence"
WG_MMA = "wgmma.mma_async"
WG_COMMIT = "wgmma.commit_group"
WG_WAIT = "wgmma.wait_group"
# Tensor Memory ("Tensor Memory Allocation and Management Instructions"):
# tcgen05.alloc [dst], nCols; tcgen05.dealloc taddr, nCols; tcgen05.relinquish_alloc_permit;
# ``count``/``count_operand``: nCols; ``group``: the .cta_group::N modifier
TC_ALLOC = "tcgen05.alloc"
TC_DEALLOC = "tcgen05.dealloc"
TC_RELINQUISH = "tcgen05.relinquish_alloc_permit"
# The other tcgen05 instructions that name a .cta_group (9.7.16 "TensorCore 5th Generation
# Family Instructions": ``tcgen05.mma``, ``.cp``, ``.shift``, ``.commit``): a step for the one
# fact every kernel's tcgen05 instructions must share, their ``group``
TC_GROUPED = "tcgen05.cta_group"
# Generic-proxy accesses of shared memory (9.7.9.8 "ld", 9.7.9.9 "st", 9.7.9.15 "ldmatrix",
# 9.7.9.16 "stmatrix"): what a copy's wait or a proxy fence must come before.
# ld.global.nc / ldu: a load through the read-only path, for data the kernel never changes
NC_LOAD = "ld.nc"
# st/red/atom with release semantics (.release, .acq_rel): publishes what the executing thread
# wrote before it, and what it has observed of other threads' writes ("Memory Consistency
# Model": release patterns, cumulativity); memory is the flag or counter operand
RELEASE = "release"
SHARED_READ = "shared.read"
SHARED_WRITE = "shared.write"
# What a template that takes a step other than those accesses spells (``events``): its opcode
# and the dot after it (barrier's with its first modifier); unless a macro or a string-piece
# boundary splits the word, a text without them holds no such step.
STEP_WORDS = ("cp.", "mbarrier.", "barrier.cluster", "fence.", "wgmma.", "tcgen05.", ".nc.", "ldu.",
              ".release", ".acq_rel")


@value_class(slots=False)
class Event:
    """One protocol step of an instruction, with the operands the protocol is about.

    ``memory``: the operand naming the shared memory (or the mbarrier) the step is about;
    ``barrier``: a bulk copy's mbarrier operand; ``count``: a wait's group count or an
    expect-tx byte count, when an immediate; ``count_operand``: the operand that holds the
    count (a wait's, an expect-tx's, a Tensor Memory column count); ``size_operand``: a
    non-tensor bulk copy's byte count; ``registers``: register operands the step reads or
    writes asynchronously (a wgmma's accumulator and A fragment)."""

    kind: str
    memory: PtxOperand | None = None
    barrier: PtxOperand | None = None
    count: int | None = None
    count_operand: PtxOperand | None = None
    size_operand: PtxOperand | None = None
    tensor: bool = False
    multicast: bool = False  # .multicast::cluster: the mbarrier signal reaches other CTAs
    registers: tuple[PtxOperand, ...] = ()
    group: str = ""  # tcgen05: the .cta_group::N modifier


def _immediate(operand: PtxOperand | None) -> int | None:
    if operand is None or operand.kind != "immediate":
        return None
    try:
        return int(operand.text.rstrip("uU"), 0)
    except ValueError:
        return None


def _operand(instruction: PtxInstruction, index: int) -> PtxOperand | None:
    operands = instruction.operands
    return operands[index] if 0 <= index < len(operands) else None


def _spaces(modifiers: tuple[str, ...]) -> list[str]:
    return [m for m in modifiers if m in ("global", "shared", "shared::cta", "shared::cluster")]


def _flat(operand: PtxOperand | None) -> tuple[PtxOperand, ...]:
    if operand is None:
        return ()
    if operand.kind == "vector":
        return tuple(p for p in operand.parts if p.kind in ("ref", "register"))
    return (operand,) if operand.kind in ("ref", "register") else ()


def _bulk(instruction: PtxInstruction) -> tuple[Event, ...]:
    modifiers = instruction.modifiers
    if "prefetch" in modifiers or any(m.endswith("wait_group") or m.endswith("commit_group")
                                      for m in modifiers):
        return ()
    spaces = _spaces(modifiers)
    if len(spaces) < 2:
        return ()
    destination, source = spaces[0], spaces[1]
    tensor = "tensor" in modifiers
    found: list[Event] = []
    if source in ("shared::cta", "shared"):
        found.append(Event(BULK_STORE, memory=_operand(instruction, 1), tensor=tensor))
    if destination.startswith("shared") and any(m.startswith("mbarrier::") for m in modifiers):
        barrier = _operand(instruction, 2 if tensor else 3)
        size = None if tensor else _operand(instruction, 2)
        found.append(Event(BULK_LOAD, memory=_operand(instruction, 0), barrier=barrier,
                           size_operand=size, tensor=tensor,
                           multicast=any(m.startswith("multicast") for m in modifiers)))
    return tuple(found)


def events(instruction: PtxInstruction) -> tuple[Event, ...]:
    """The protocol steps ``instruction`` takes (most instructions: none)."""
    opcode, modifiers = instruction.opcode, instruction.modifiers
    first = modifiers[0] if modifiers else ""
    if opcode == "cp":
        if first == "async" and len(modifiers) > 1:
            second = modifiers[1]
            if second in ("ca", "cg"):
                return (Event(COPY, memory=_operand(instruction, 0)),)
            if second == "commit_group":
                return (Event(COMMIT),)
            if second == "wait_group":
                count = _operand(instruction, 0)
                return (Event(WAIT, count=_immediate(count), count_operand=count),)
            if second == "wait_all":
                return (Event(WAIT, count=0),)
            if second == "mbarrier":
                return (Event(TRACKED, memory=_operand(instruction, 0)),)
            if second == "bulk":
                third = modifiers[2] if len(modifiers) > 2 else ""
                if third == "commit_group":
                    return (Event(BULK_COMMIT),)
                if third == "wait_group":
                    count = _operand(instruction, 0)
                    return (Event(BULK_WAIT, count=_immediate(count), count_operand=count),)
                return _bulk(instruction)
        if first == "reduce" and "bulk" in modifiers:
            return _bulk(instruction)
        return ()
    if opcode == "mbarrier":
        if first == "init":
            return (Event(MBAR_INIT, memory=_operand(instruction, 0)),)
        if "expect_tx" in modifiers:
            # mbarrier.arrive{.drop}.expect_tx state, [addr], txCount;
            # mbarrier.expect_tx [addr], txCount
            address = 0 if first == "expect_tx" else 1
            count = _operand(instruction, address + 1)
            return (Event(EXPECT_TX, memory=_operand(instruction, address),
                          count=_immediate(count), count_operand=count),)
        if first in ("test_wait", "try_wait"):
            return (Event(MBAR_WAIT, memory=_operand(instruction, 1)),)
        if first in ("arrive", "arrive_drop"):
            # mbarrier.arrive{...}.b64 state, [addr]{, count}; the state may be the sink
            return (Event(MBAR_ARRIVE, memory=_operand(instruction, 1)),)
        return ()
    if opcode == "barrier" and modifiers[:2] == ("cluster", "arrive") \
            and "relaxed" not in modifiers:
        return (Event(CLUSTER_RELEASE),)  # .release is its default semantics
    if opcode == "fence":
        if first == "mbarrier_init":
            return (Event(FENCE_INIT),)
        if first in ("sc", "acq_rel", "release") and "cluster" in modifiers:
            return (Event(CLUSTER_RELEASE),)
        if first == "proxy" and len(modifiers) > 1 and modifiers[1] == "async":
            rest = modifiers[2:]
            if not rest or any(m.startswith("shared") for m in rest):
                return (Event(FENCE_PROXY),)
        return ()
    if opcode == "wgmma":
        if first == "fence":
            return (Event(WG_FENCE),)
        if first == "commit_group":
            return (Event(WG_COMMIT),)
        if first == "wait_group":
            count = _operand(instruction, 0)
            return (Event(WG_WAIT, count=_immediate(count), count_operand=count),)
        if first == "mma_async":
            # d is operand 0; a is operand 1 (a descriptor, or a vector of A-fragment registers)
            registers = _flat(_operand(instruction, 0))
            a = _operand(instruction, 1)
            if a is not None and a.kind == "vector":
                registers += _flat(a)
            return (Event(WG_MMA, registers=registers),)
        return ()
    if opcode in ("st", "red", "atom") and ("release" in modifiers or "acq_rel" in modifiers) \
            and "async" not in modifiers:
        # st.release [a], v; red.release.op [a], v; atom.release.op d, [a], b
        return (Event(RELEASE, memory=_operand(instruction, 1 if opcode == "atom" else 0)),)
    if (opcode == "ld" and "nc" in modifiers) or (opcode == "ldu" and "shared" not in modifiers):
        return (Event(NC_LOAD, memory=_operand(instruction, 1)),)
    if opcode in ("ld", "ldu", "st", "ldmatrix", "stmatrix") and "async" not in modifiers and any(
            m in ("shared", "shared::cta") for m in modifiers):
        # ld.shared [a]; st.shared [a], v; ldmatrix d, [a]; stmatrix [a], r
        write = opcode in ("st", "stmatrix")
        where = _operand(instruction, 0 if write else 1)
        return (Event(SHARED_WRITE if write else SHARED_READ, memory=where),)
    if opcode == "tcgen05":
        group = next((m for m in modifiers if m.startswith("cta_group")), "")
        if first not in ("alloc", "dealloc", "relinquish_alloc_permit"):
            return (Event(TC_GROUPED, group=group),) if group else ()
        if first == "relinquish_alloc_permit":
            return (Event(TC_RELINQUISH, group=group),)
        columns = _operand(instruction, 1)
        return (Event(TC_ALLOC if first == "alloc" else TC_DEALLOC,
                      memory=_operand(instruction, 0), count=_immediate(columns),
                      count_operand=columns, group=group),)
    return ()


class Collective(NamedTuple):
    """An instruction the whole warp must reach together. ``aligned``: a ``.aligned`` form
    (undefined in conditionally executed code unless every lane evaluates the condition
    identically, and when a lane has exited); otherwise a ``.sync`` collective whose member
    mask is ``mask`` (an operand the caller resolves: only a full mask makes every lane
    necessary). ``data``: the source whose per-lane values the instruction exchanges,
    compares or reduces (``a`` of ``shfl.sync``, ``match.sync`` and ``redux.sync``)."""

    aligned: bool
    mask: PtxOperand | None = None
    data: PtxOperand | None = None


_MASKED = {"shfl": -1, "vote": -1, "match": -1, "redux": -1, "elect": -1}
# shfl.sync d[|p], a, b, c, membermask; match.sync d[|p], a, membermask; redux.sync d, a,
# membermask: the source ``a`` follows the destination
_DATA = {"shfl": 1, "match": 1, "redux": 1}


def collective(instruction: PtxInstruction) -> Collective | None:
    """Whether the warp must reach ``instruction`` together, and how."""
    opcode, modifiers = instruction.opcode, instruction.modifiers
    if "aligned" in modifiers:
        return Collective(aligned=True)
    if opcode in ("bar", "barrier") and modifiers[:1] in (("sync",), ("arrive",), ("red",)):
        # bar.sync / bar.arrive / bar.red are barrier.*.aligned (9.7.13.1 "bar, barrier")
        return Collective(aligned=True) if opcode == "bar" else None
    if "sync" not in modifiers:
        return None
    if opcode == "bar" and modifiers[:2] == ("warp", "sync"):
        return Collective(aligned=False, mask=_operand(instruction, 0))
    index = _MASKED.get(opcode)
    if index is None or not instruction.operands:
        return None
    data = _operand(instruction, _DATA[opcode]) if opcode in _DATA else None
    return Collective(aligned=False, mask=instruction.operands[index], data=data)


def statement_events(statement: AsmStatement) -> Iterator[tuple[PtxInstruction, Event]]:
    """The steps of ``statement``'s instructions in order, each with its instruction; none
    where the template has a hole (a macro's text unknown), nor of an opaque instruction."""
    if statement.template.has_holes:
        return
    for instruction in statement.ptx.instructions:
        if instruction.opaque:
            continue
        for event in events(instruction):
            yield instruction, event
