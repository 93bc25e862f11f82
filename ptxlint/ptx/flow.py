"""Which ``%N`` operands a template writes, and which it writes on every path.

A small must-analysis over the template's instructions: a control-flow graph from ``bra`` and
labels, and a forward "definitely written" set with intersection at joins. A write under a
guard ``@p`` counts only together with a write under ``@!p`` of the same predicate (the
``@p mov %0, 1; @!p mov %0, 0;`` idiom), and only until ``p`` is written again. Paths that end
in ``ret``/``exit``/``trap`` never reach the C++ code after the asm, so they do not count.

``analyze`` returns ``None`` whenever it cannot be sure: an opaque instruction or a hole, an
instruction whose destinations are not known (``call``), an indirect branch, a branch to a
label that is not in the template.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from typing import cast

from ptxlint.model import HOLE, PtxInstruction, PtxOperand, PtxTemplate
from ptxlint.ptx.operand_roles import destinations
from ptxlint.ptx.template_memo import TemplateMemo

__all__ = ["WriteAnalysis", "analyze"]

_Fact = int | tuple[int, str, bool]  # %N written, or %N written under (predicate, negated)
_ENDS_THREAD = frozenset({"ret", "exit", "trap"})


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
        written: list[tuple[PtxOperand, ...]],
        successors: list[list[int]],
    ) -> None:
        # %N -> the instructions that write it, text order
        self.writes: Mapping[int, list[PtxInstruction]]
        self._written: AbstractSet[int]
        if sum(map(len, written)) > _FEW_DESTINATIONS:
            lazy = _Writes(instructions, written)
            self.writes, self._written = lazy, lazy.refs
        else:
            lists = _writers(instructions, written)
            self.writes, self._written = lists, lists.keys()
        self._graph: tuple[tuple[PtxInstruction, ...], list[tuple[PtxOperand, ...]],
                           list[list[int]]] | None = (instructions, written, successors)
        self._definite: frozenset[int] = frozenset()
        self._entry: tuple[frozenset[_Fact] | None, ...] = ()

    def _follow(self) -> None:
        if self._graph is not None:
            instructions, written, successors = self._graph
            definite, self._entry = _definitely_written(instructions, _facts(written),
                                                        successors)
            # No path reaches the end (every one leaves the thread): no output value is lost.
            self._definite = frozenset(self._written) if definite is None else definite
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

    def written_before(self, position: int, index: int, guard: tuple[str, bool] | None) -> bool:
        """Whether ``%index`` is written on every path to instruction ``position`` (or, for a
        read under ``@guard``, on every path where the guard holds). An unreachable
        instruction counts as written: nothing reads there."""
        facts = self.entry[position] if position < len(self.entry) else None
        if facts is None:
            return True
        return index in facts or (guard is not None and (index, *guard) in facts)


def _writers(
    instructions: tuple[PtxInstruction, ...], written: list[tuple[PtxOperand, ...]]
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
    all is a set made in one comprehension over the destinations; the lists are made the first
    time one is read. PTX104 asks only whether each output is written, and PTX103 reads the
    writers of ``=`` outputs alone, which a wgmma (128 ``+f`` outputs) has none of: a
    dictionary of 128 one-element lists per GMMA template went unread. ``analyze`` over the
    templates of CUTLASS's include/ (their destinations known): 41-43 ms -> 26-28 ms of CPU."""

    __slots__ = ("refs", "_instructions", "_written", "_lists")

    def __init__(
        self, instructions: tuple[PtxInstruction, ...], written: list[tuple[PtxOperand, ...]]
    ) -> None:
        refs: set[int | None] = {o.ref for operands in written for o in operands
                                 if o.kind == "ref"}
        refs.discard(None)
        self.refs = cast(set[int], refs)  # every %N written
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


_MEMO: TemplateMemo[WriteAnalysis | None] = TemplateMemo(4096)


def analyze(ptx: PtxTemplate, template_text: str) -> WriteAnalysis | None:
    """Write facts for a parsed template, or ``None`` when the template cannot be followed.
    Memoised per template: PTX103, PTX104, PTX105 and PTX106 all ask about one statement."""
    return _MEMO.of(ptx, lambda: _analyze(ptx, template_text), template_text)


def _analyze(ptx: PtxTemplate, template_text: str) -> WriteAnalysis | None:
    if HOLE in template_text:
        return None
    instructions = ptx.instructions
    written: list[tuple[PtxOperand, ...]] = []  # per instruction: its destinations
    for instruction in instructions:
        if instruction.opaque or instruction.opcode == "brx":
            return None
        operands = destinations(instruction)
        if operands is None:
            return None
        written.append(operands)
    successors = _successors(ptx)
    if successors is None:
        return None
    return WriteAnalysis(instructions, written, successors)


def _facts(written: list[tuple[PtxOperand, ...]]) -> list[list[tuple[int | None, str]]]:
    """Per instruction, what each destination writes: ``%N`` (its index) or a register (its
    name). Made only when the paths are followed (22 of CUTLASS's 2,693 templates)."""
    return [[(o.ref if o.kind == "ref" else None, o.text) for o in operands]
            for operands in written]


def _successors(ptx: PtxTemplate) -> list[list[int]] | None:
    """Successor indices per instruction; index ``len(instructions)`` is the template's end."""
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
