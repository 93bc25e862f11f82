"""Where a template writes and reads each of its ``%N`` operands, by operand (PTX103-PTX106
ask per operand; the template is walked once per side, and once per template).

Built from the grammar's operand roles (:mod:`ptxlint.ptx.operand_roles`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from typing import NamedTuple

from ptxlint.model import AsmStatement, Operand, PtxInstruction, PtxOperand, PtxTemplate
from ptxlint.ptx.operand_roles import destinations, sources
from ptxlint.ptx.template_memo import TemplateMemo

__all__ = [
    "REGISTER_LETTERS", "Access", "reads_of", "register_operand", "written_indices", "writes_of",
]


class Access(NamedTuple):
    """One read or write of a ``%N`` operand (a tuple: a wgmma's template makes 130)."""

    position: int  # index of the instruction in the template
    instruction: PtxInstruction
    operand: PtxOperand  # the %N token


class _Side:
    """One side of a template's index (its writes or its reads): which ``%N`` it touches at
    all, and the accesses of each ``%N`` made when that one is asked for. The rules ask of a
    few operands per statement (PTX105 of the inputs, PTX106 of the ``=`` outputs) and most
    answers are empty, while a GMMA's template writes 128 operands and reads 130."""

    __slots__ = ("_operands", "_refs", "_accesses")

    def __init__(
        self, ptx: PtxTemplate,
        operands_of: Callable[[PtxInstruction], Sequence[PtxOperand] | None],
    ) -> None:
        self._operands = [(position, instruction, operands_of(instruction) or ())
                          for position, instruction in enumerate(ptx.instructions)]
        self._refs = {o.ref for _, _, operands in self._operands for o in operands
                      if o.kind == "ref"}
        self._accesses: dict[int, list[Access]] = {}

    @property
    def refs(self) -> AbstractSet[int | None]:
        """Every ``%N`` this side touches: ``of`` is empty for any other."""
        return self._refs

    def of(self, index: int) -> list[Access]:
        if index not in self._refs:
            return []
        found = self._accesses.get(index)
        if found is None:
            found = [_new_access(Access, (position, instruction, operand))
                     for position, instruction, operands in self._operands
                     for operand in operands if operand.ref == index and operand.kind == "ref"]
            self._accesses[index] = found
        return found


class _Index:
    """Every write and read of a template's ``%N`` operands, by operand index. Each side is
    built the first time it is asked for: PTX105 asks for the writes of a statement's inputs,
    and for its reads only when an input is written; PTX106 asks for the reads of its ``=``
    outputs. A GMMA, whose 128 outputs are ``+``, never needs its 130 reads."""

    __slots__ = ("_ptx", "_writes", "_reads")

    def __init__(self, ptx: PtxTemplate) -> None:
        self._ptx = ptx
        self._writes: _Side | None = None
        self._reads: _Side | None = None

    @property
    def writes(self) -> _Side:
        if self._writes is None:
            self._writes = _Side(self._ptx, destinations)
        return self._writes

    @property
    def reads(self) -> _Side:
        if self._reads is None:
            self._reads = _Side(self._ptx, sources)
        return self._reads


_INDEX: TemplateMemo[_Index] = TemplateMemo(4096)


def _index(statement: AsmStatement) -> _Index:
    """Every ``%N`` write and read of the template, by operand, built once per template (the
    rules ask per operand; the template is walked once per side)."""
    ptx = statement.ptx
    return _INDEX.of(ptx, lambda: _Index(ptx))


# ``Access(...)`` goes through NamedTuple's Python-level ``__new__``; the tuple's own makes
# the same object for less
_new_access = tuple.__new__


def writes_of(statement: AsmStatement, index: int) -> list[Access]:
    """Every destination ``%index`` of the template's instructions whose destinations are
    known, in text order."""
    return _index(statement).writes.of(index)


def written_indices(statement: AsmStatement) -> AbstractSet[int | None]:
    """Every ``%N`` some instruction of the template writes (``writes_of`` is empty for any
    other): asked once per statement by a rule that would otherwise ask ``writes_of`` of each
    operand in turn. PTX105 asks it of every statement with inputs (3,584 of the CUDA 13
    headers'), where it asked ``writes_of`` of each of their 10,514 inputs; few inputs are
    written."""
    return _index(statement).writes.refs


def reads_of(statement: AsmStatement, index: int) -> list[Access]:
    """Every place an instruction reads ``%index`` (a source, an address register, a guard)."""
    return _index(statement).reads.of(index)


# The NVPTX register classes: only these bind an operand to a register a PTX instruction can
# write or read (not "n"/"C" immediates, not a memory "m" that only host dialects have).
REGISTER_LETTERS = frozenset("hrlqfd")
_REGISTER_CHARS = "".join(sorted(REGISTER_LETTERS))


def register_operand(operand: Operand) -> bool:
    letters = operand.constraint.letters
    # every letter one of REGISTER_LETTERS: nothing left once they are stripped (asked of
    # each of a GMMA's 135 operands)
    return not operand.constraint.opaque and bool(letters) and not letters.strip(_REGISTER_CHARS)
