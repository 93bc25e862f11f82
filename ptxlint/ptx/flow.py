"""Which ``%N`` operands a template writes, and which it writes on every path.

A small must-analysis over the template's instructions: a control-flow graph from ``bra`` and
labels, and a forward "definitely written" set with intersection at joins. A write under a
guard ``@p`` counts only together with a write under ``@!p`` of the same predicate (the
``@p mov %0, 1; @!p mov %0, 0;`` idiom), and only until ``p`` is written again. Paths that end
in ``ret``/``exit``/``trap`` never reach the C++ code after the asm, so they do not count.

``analyze`` returns ``None`` whenever it cannot be sure: an opaque instruction or a hole, an
instruction whose destinations are not known (``call``), an indirect branch, a branch to a
label that is not in the template.

The destinations themselves, the set of ``%N`` they name and the writes of each ``%N`` are
found once per template (:func:`template_writes`): ``WriteAnalysis`` reads them, and so does
:mod:`ptxlint.analysis.operand_access` (``writes_of``, ``written_indices``), which answers for
any template (an instruction whose destinations are not known writes nothing there).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import NamedTuple, cast

from ptxlint.model import HOLE, PtxInstruction, PtxOperand, PtxTemplate
from ptxlint.ptx.operand_roles import destinations
from ptxlint.ptx.template_memo import TemplateMemo

__all__ = [
    "Access", "TemplateWrites", "WriteAnalysis", "accesses", "analyze", "ends_straight_line",
    "reached_after", "template_writes",
]

_Fact = int | tuple[int, str, bool]  # %N written, or %N written under (predicate, negated)
_ENDS_THREAD = frozenset({"ret", "exit", "trap"})
# a branch, a call or the thread's end: what may keep the next instruction from running next
_LEAVES = frozenset({"bra", "brx", "call", *_ENDS_THREAD})


def ends_straight_line(instruction: PtxInstruction) -> bool:
    """Whether the instruction may keep the one after it from running next."""
    return instruction.opcode in _LEAVES


class WriteAnalysis:
    """Where a template writes its ``%N`` operands: by which instructions (``writes``), which on
    every path to its end (``definite``), and which are written on entry to each instruction
    (``entry``).

    The paths are followed the first time ``definite`` or ``entry`` is read: PTX104 reads only
    ``writes``, and PTX103, PTX105 and PTX106 ask about paths only of a template that may skip
    an instruction, reads an output or writes an input. Paths followed: CUTLASS's include/
    2,693 -> 22 templates (many of them a wgmma's 128 outputs), the CUDA headers 2,102 -> 76."""

    def __init__(
        self,
        instructions: tuple[PtxInstruction, ...],
        written: Sequence[tuple[PtxOperand, ...]],
        successors: list[list[int]],
        template: TemplateWrites,
    ) -> None:
        # %N -> the instructions that write it, text order
        self.writes: Mapping[int, list[PtxInstruction]]
        self._written: AbstractSet[int]
        if sum(map(len, written)) > _FEW_DESTINATIONS:
            refs = template.refs
            if None in refs:  # a named operand (%[out]): flow follows numbered ones
                refs = refs - {None}
            lazy = _Writes(instructions, written, cast(AbstractSet[int], refs))
            self.writes, self._written = lazy, lazy.refs
        else:
            lists = _writers(instructions, written)
            self.writes, self._written = lists, lists.keys()
        self._graph: tuple[tuple[PtxInstruction, ...], Sequence[tuple[PtxOperand, ...]],
                           list[list[int]]] | None = (instructions, written, successors)
        self._definite: frozenset[int] = frozenset()
        self._entry: tuple[frozenset[_Fact] | None, ...] = ()
        self._facts: list[list[tuple[int | None, str]]] = []
        self._successors: list[list[int]] = []

    def _follow(self) -> None:
        if self._graph is not None:
            instructions, written, successors = self._graph
            self._facts = _facts(written)
            definite, self._entry = _definitely_written(instructions, self._facts, successors)
            # No path reaches the end (every one leaves the thread): no output value is lost.
            self._definite = frozenset(self._written) if definite is None else definite
            self._successors = successors
            self._graph = None

    @property
    def definite(self) -> frozenset[int]:
        """%N written on every path that reaches the end of the template."""
        self._follow()
        return self._definite

    @property
    def entry(self) -> tuple[frozenset[_Fact] | None, ...]:
        """Per instruction: the facts on entry (None: no path reaches it), for reads before
        writes."""
        self._follow()
        return self._entry

    def unwritten_paths(self, index: int) -> str:
        """How the paths from the template's start to its end miss the writes of ``%index``,
        which some instruction writes and not every such path (``definite``): "some" where a
        path passes a write of it (under its guard, or past a branch), "unreached" where no
        path from the start reaches any of them (a ``bra.uni`` jumps over each), "leaving"
        where every path through one leaves the thread (``exit``, ``ret``, ``trap``) before
        the end."""
        self._follow()
        reached = [i for i, facts in enumerate(self._facts)
                   if self._entry[i] is not None and any(ref == index for ref, _ in facts)]
        if not reached:
            return "unreached"
        to_end = _reaching_end(self._successors)  # (asked of the few templates PTX103 flags)
        return "some" if any(i in to_end for i in reached) else "leaving"

    def written_before(self, position: int, index: int, guard: tuple[str, bool] | None) -> bool:
        """Whether ``%index`` is written on every path to instruction ``position`` (or, for a
        read under ``@guard``, on every path where the guard holds). An unreachable
        instruction counts as written: nothing reads there."""
        facts = self.entry[position] if position < len(self.entry) else None
        if facts is None:
            return True
        return index in facts or (guard is not None and (index, *guard) in facts)


def _writers(
    instructions: tuple[PtxInstruction, ...], written: Sequence[tuple[PtxOperand, ...]]
) -> dict[int, list[PtxInstruction]]:
    """``%N`` -> the instructions whose destinations name it, in text order."""
    lists: dict[int, list[PtxInstruction]] = {}
    for instruction, operands in zip(instructions, written, strict=True):
        for o in operands:
            if o.kind == "ref" and o.ref is not None:
                lists.setdefault(o.ref, []).append(instruction)
    return lists


# A template that writes more destinations than this gets its writers' lists made when first
# read (``_Writes``); a smaller one gets the dictionary, which costs less than the lazy mapping
# for a few (the CUDA headers' templates).
_FEW_DESTINATIONS = 32


class _Writes(Mapping[int, list[PtxInstruction]]):
    """``%N`` -> the instructions that write it, in text order. Whether a ``%N`` is written at
    all is the template's set of written ``%N`` (``TemplateWrites.refs``); the lists are made
    the first time one is read. PTX104 asks only whether each output is written, and PTX103
    reads the writers of ``=`` outputs alone, which a wgmma (128 ``+f`` outputs) has none of: a
    dictionary of 128 one-element lists per GMMA template went unread. ``analyze`` over the
    templates of CUTLASS's include/ (their destinations known): 41-43 ms -> 26-28 ms of CPU."""

    __slots__ = ("refs", "_instructions", "_written", "_lists")

    def __init__(
        self, instructions: tuple[PtxInstruction, ...], written: Sequence[tuple[PtxOperand, ...]],
        refs: AbstractSet[int],
    ) -> None:
        self.refs = refs  # every %N written
        self._instructions = instructions
        self._written = written
        self._lists: dict[int, list[PtxInstruction]] | None = None

    def _made(self) -> dict[int, list[PtxInstruction]]:
        if self._lists is None:
            self._lists = _writers(self._instructions, self._written)
        return self._lists

    def __contains__(self, key: object) -> bool:
        return key in self.refs

    def __getitem__(self, key: int) -> list[PtxInstruction]:
        if key not in self.refs:
            raise KeyError(key)
        return self._made()[key]

    def __iter__(self) -> Iterator[int]:
        return iter(self._made())

    def __len__(self) -> int:
        return len(self.refs)


class Access(NamedTuple):
    """One read or write of a ``%N`` operand (a tuple: a wgmma's template makes 130)."""

    position: int  # index of the instruction in the template
    instruction: PtxInstruction
    operand: PtxOperand  # the %N token


# ``Access(...)`` goes through NamedTuple's Python-level ``__new__``; the tuple's own makes
# the same object for less
_new_access = tuple.__new__


def accesses(
    instructions: Sequence[PtxInstruction],
    touched: Sequence[Sequence[PtxOperand] | None],
    index: int,
) -> list[Access]:
    """Where ``%index`` is among ``touched`` (per instruction, the operands it writes or reads;
    None: not known, none), in text order."""
    return [_new_access(Access, (position, instruction, operand))
            for position, (instruction, operands) in enumerate(zip(instructions, touched,
                                                                   strict=True))
            if operands
            for operand in operands if operand.ref == index and operand.kind == "ref"]


class TemplateWrites:
    """What each instruction of a template writes and every ``%N`` that names, found once per
    template: the one source of ``WriteAnalysis.writes`` and of the written side of
    :mod:`ptxlint.analysis.operand_access` (PTX104 reads the one, PTX105 and PTX106 the other;
    each walked the destinations on its own, and both gathered the written ``%N`` of a large
    template). It also holds the template's ``WriteAnalysis``, so one memo (``_MEMO``, 4,096
    templates) keeps both. Asking ``analyze`` and ``written_indices`` of every statement (the
    memos cold, the collector off): the CUDA 13 headers 14.7-16.2 -> 12.8-13.7 ms, CUTLASS's
    include/ 26.0-27.6 -> 19.1-19.9 ms."""

    __slots__ = ("_instructions", "destinations", "_refs", "_accesses", "analysis", "later")

    def __init__(self, ptx: PtxTemplate) -> None:
        self._instructions = ptx.instructions
        # per instruction: the operands it writes (vector and pair elements one by one), or None
        # where that is not known (``call``, an opaque instruction)
        self.destinations: tuple[tuple[PtxOperand, ...] | None, ...] = tuple(
            map(destinations, ptx.instructions))
        self._refs: AbstractSet[int | None] | None = None
        self._accesses: dict[int, list[Access]] | None = None
        # (the template's text, analyze's answer for it), once asked
        self.analysis: tuple[str, WriteAnalysis | None] | None = None
        # (the template's text, reached_after's answer for it), once asked
        self.later: tuple[str, tuple[frozenset[int], ...] | None] | None = None

    @property
    def refs(self) -> AbstractSet[int | None]:
        """Every ``%N`` some instruction writes (a named operand, ``%[out]``, counts as None);
        gathered when first read: flow reads it only for a template of many destinations."""
        if self._refs is None:
            self._refs = {o.ref for operands in self.destinations if operands
                          for o in operands if o.kind == "ref"}
        return self._refs

    def of(self, index: int) -> list[Access]:
        """Every destination ``%index`` of the instructions whose destinations are known, in
        text order; made when first asked (the rules ask of a few operands per statement, and
        most answers are empty, while a GMMA's template writes 128 operands)."""
        if index not in self.refs:
            return []
        made = self._accesses
        if made is None:
            made = self._accesses = {}
        found = made.get(index)
        if found is None:
            found = made[index] = accesses(self._instructions, self.destinations, index)
        return found


_MEMO: TemplateMemo[TemplateWrites] = TemplateMemo(4096)


def template_writes(ptx: PtxTemplate) -> TemplateWrites:
    """The destinations of each instruction of ``ptx`` and the ``%N`` they name, found once per
    template."""
    return _MEMO.of(ptx, lambda: TemplateWrites(ptx))


def analyze(ptx: PtxTemplate, template_text: str) -> WriteAnalysis | None:
    """Write facts for a parsed template, or ``None`` when the template cannot be followed.
    Kept with the template's destinations (for its last text, the one that parses to
    ``ptx``): PTX103, PTX104, PTX105 and PTX106 all ask about one statement."""
    if HOLE in template_text:
        return None  # before the destinations are looked for: none is asked of such a template
    writes = template_writes(ptx)
    known = writes.analysis
    if known is not None and known[0] == template_text:
        return known[1]
    found = _followed(ptx, writes)
    writes.analysis = (template_text, found)
    return found


def reached_after(ptx: PtxTemplate, template_text: str) -> tuple[frozenset[int], ...] | None:
    """Per instruction, the instructions some path through the template runs to after it (the
    instruction itself only where a loop leads back to it); ``None`` where the paths are not
    known (a macro piece, an indirect or outside branch). Kept with the template's destinations,
    like ``analyze``: PTX108 asks it of the few templates that read an input after writing an
    output in text order, or that loop."""
    if HOLE in template_text:
        return None
    writes = template_writes(ptx)
    known = writes.later
    if known is not None and known[0] == template_text:
        return known[1]
    successors = _successors(ptx)
    found = None if successors is None else _reached(successors)
    writes.later = (template_text, found)
    return found


def _reached(successors: list[list[int]]) -> tuple[frozenset[int], ...]:
    n = len(successors)
    reached: list[frozenset[int]] = [frozenset()] * (n + 1)  # index n: the template's end
    changed = True
    while changed:  # once in reverse text order settles a template without a backward branch
        changed = False
        for i in range(n - 1, -1, -1):
            new = frozenset().union(*(reached[j] | {j} for j in successors[i] if j < n))
            if new != reached[i]:
                reached[i] = new
                changed = True
    return tuple(reached[:n])


def _reaching_end(successors: list[list[int]]) -> frozenset[int]:
    """The instructions from which some path runs to the template's end (index
    ``len(successors)``)."""
    n = len(successors)
    predecessors: list[list[int]] = [[] for _ in range(n + 1)]
    for i, succ in enumerate(successors):
        for j in succ:
            predecessors[j].append(i)
    found: set[int] = set()
    todo = [n]
    while todo:
        for i in predecessors[todo.pop()]:
            if i not in found:
                found.add(i)
                todo.append(i)
    return frozenset(found)


def _analyze(ptx: PtxTemplate, template_text: str) -> WriteAnalysis | None:
    """``analyze`` without its memo."""
    if HOLE in template_text:
        return None
    return _followed(ptx, TemplateWrites(ptx))


def _followed(ptx: PtxTemplate, writes: TemplateWrites) -> WriteAnalysis | None:
    written = writes.destinations
    if None in written:
        return None  # an instruction whose destinations are not known, an opaque one among them
    successors = _successors(ptx)
    if successors is None:
        return None
    return WriteAnalysis(ptx.instructions, cast(_Known, written), successors, writes)


_Known = tuple[tuple[PtxOperand, ...], ...]  # every instruction's destinations known


def _facts(written: Sequence[tuple[PtxOperand, ...]]) -> list[list[tuple[int | None, str]]]:
    """Per instruction, what each destination writes: ``%N`` (its index) or a register (its
    name). Made only when the paths are followed (22 of CUTLASS's 2,693 templates)."""
    return [[(o.ref if o.kind == "ref" else None, o.text) for o in operands]
            for operands in written]


def _successors(ptx: PtxTemplate) -> list[list[int]] | None:
    """Successor indices per instruction; index ``len(instructions)`` is the template's end.
    ``None`` when they are not known: an indirect branch (``brx.idx``), a branch to a label
    that is not in the template."""
    instructions = ptx.instructions
    targets: dict[str, int] = {}
    # The first instruction starting at or after each label: a bisect over the starts, which the
    # parser's one left-to-right scan gives in text order (a scan per label made a template of
    # many labels quadratic).
    starts = [ins.start for ins in instructions]
    for label in ptx.labels:
        targets[label.name] = bisect_left(starts, label.end)
    result: list[list[int]] = []
    for i, ins in enumerate(instructions):
        if ins.opcode == "bra":
            if not ins.operands or ins.operands[0].text not in targets:
                return None
            target = targets[ins.operands[0].text]
            result.append([i + 1, target] if ins.predicate is not None else [target])
        elif ins.opcode == "brx":
            return None
        elif ins.opcode in _ENDS_THREAD:
            result.append([i + 1] if ins.predicate is not None else [])
        else:
            result.append([i + 1])
    return result


def _transfer(
    state: frozenset[_Fact], instruction: PtxInstruction, written: Iterable[tuple[int | None, str]]
) -> frozenset[_Fact]:
    facts = set(state)
    predicate = instruction.predicate
    for ref, name in written:
        if ref is None:
            # A register is written: guards on it no longer mean what they meant.
            facts = {f for f in facts if not (isinstance(f, tuple) and f[1] == name)}
            continue
        if predicate is None:
            facts.add(ref)
            continue
        guard = predicate.register.text
        facts.add((ref, guard, predicate.negated))
        if (ref, guard, not predicate.negated) in facts:
            facts.add(ref)
    return frozenset(facts)


def _definitely_written(
    instructions: tuple[PtxInstruction, ...],
    written: list[list[tuple[int | None, str]]],
    successors: list[list[int]],
) -> tuple[frozenset[int] | None, tuple[frozenset[_Fact] | None, ...]]:
    n = len(instructions)
    predecessors: list[list[int]] = [[] for _ in range(n + 1)]
    for i, succ in enumerate(successors):
        for j in succ:
            predecessors[j].append(i)
    out: list[frozenset[_Fact] | None] = [None] * n  # None: not reached yet (the top element)

    def entry(j: int) -> frozenset[_Fact] | None:
        incoming = [out[p] for p in predecessors[j]]
        known = [s for s in incoming if s is not None]
        if j == 0:
            known.append(frozenset())
        if not known:
            return None
        result = known[0]
        for s in known[1:]:
            result &= s
        return result

    # Without a backward edge (no loop: most templates), one pass in text order meets every
    # instruction after all its predecessors, so the second pass would change nothing.
    forward = all(j > i for i, succ in enumerate(successors) for j in succ)
    changed = True
    while changed:
        changed = False
        for i in range(n):
            state = entry(i)
            if state is None:
                continue
            new = _transfer(state, instructions[i], written[i])
            if new != out[i]:
                out[i] = new
                changed = True
        if forward:
            break
    entries = tuple(entry(i) for i in range(n))
    end = entry(n)
    if end is None:
        return None, entries
    return frozenset(f for f in end if isinstance(f, int)), entries
