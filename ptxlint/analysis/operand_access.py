"""Where a template writes and reads each of its ``%N`` operands, by operand (PTX103-PTX106
ask per operand).

The writes are read from ``template_writes`` (:mod:`ptxlint.ptx.flow`), found there once per
template for flow's ``WriteAnalysis`` and for these answers; the reads come from the grammar's
operand roles (:mod:`ptxlint.ptx.operand_roles`), indexed once per template.
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from ptxlint.model import AsmStatement, Operand, PtxOperand, PtxTemplate
from ptxlint.ptx.flow import Access, accesses, template_writes
from ptxlint.ptx.operand_roles import sources
from ptxlint.ptx.template_memo import TemplateMemo

__all__ = [
    "REGISTER_LETTERS", "Access", "reads_of", "register_operand", "written_indices", "writes_of",
]


class _Reads:
    """The reads of a template's ``%N`` operands: which ``%N`` it reads at all, and the
    accesses of each ``%N`` made when that one is asked for. PTX105 asks for the reads of an
    input only when the input is written, PTX106 of its ``=`` outputs: a GMMA, whose 128
    outputs are ``+``, never needs its 130 reads."""

    __slots__ = ("_instructions", "_operands", "refs", "_accesses")

    def __init__(self, ptx: PtxTemplate) -> None:
        self._instructions = ptx.instructions
        self._operands: Sequence[Sequence[PtxOperand] | None] = [
            sources(instruction) for instruction in ptx.instructions]
        self.refs: AbstractSet[int | None] = {
            o.ref for touched in self._operands if touched for o in touched if o.kind == "ref"}
        self._accesses: dict[int, list[Access]] = {}

    def of(self, index: int) -> list[Access]:
        if index not in self.refs:
            return []
        found = self._accesses.get(index)
        if found is None:
            found = self._accesses[index] = accesses(self._instructions, self._operands, index)
        return found


_INDEX: TemplateMemo[_Reads] = TemplateMemo(4096)


def writes_of(statement: AsmStatement, index: int) -> list[Access]:
    """Every destination ``%index`` of the template's instructions whose destinations are
    known, in text order."""
    return template_writes(statement.ptx).of(index)


def written_indices(statement: AsmStatement) -> AbstractSet[int | None]:
    """Every ``%N`` some instruction of the template writes (``writes_of`` is empty for any
    other): asked once per statement by a rule that would otherwise ask ``writes_of`` of each
    operand in turn. PTX105 asks it of every statement with inputs (3,584 of the CUDA 13
    headers'), where it asked ``writes_of`` of each of their 10,514 inputs; few inputs are
    written."""
    return template_writes(statement.ptx).refs


def reads_of(statement: AsmStatement, index: int) -> list[Access]:
    """Every place an instruction reads ``%index`` (a source, an address register, a guard)."""
    ptx = statement.ptx
    return _INDEX.of(ptx, lambda: _Reads(ptx)).of(index)


# The NVPTX register classes: only these bind an operand to a register a PTX instruction can
# write or read (not "n"/"C" immediates, not a memory "m" that only host dialects have).
REGISTER_LETTERS = frozenset("hrlqfd")
_REGISTER_CHARS = "".join(sorted(REGISTER_LETTERS))


def register_operand(operand: Operand) -> bool:
    letters = operand.constraint.letters
    # every letter one of REGISTER_LETTERS: nothing left once they are stripped (asked of
    # each of a GMMA's 135 operands)
    return not operand.constraint.opaque and bool(letters) and not letters.strip(_REGISTER_CHARS)
