"""Outputs a template writes before it has read all its inputs: PTX108's fact.

GCC's extended asm (and LLVM's inline asm, which nvcc's NVVM and Triton lower through) lets the
compiler assume that an asm reads every input before it writes any output, so an output
without the early-clobber modifier ``&`` may share its register with an input. NVPTX registers
are virtual, but the register coalescer still merges an output with an input whose value dies
at the asm when a copy joins them, as a loop-carried value does. Measured with nvcc 13.0
(``-arch=sm_90 -O3``): ``x = f(x)`` in a loop, with ``asm("mov.u32 %0, 7; add.u32 %0, %0, %1;"
: "=r"(y) : "r"(x))``, is emitted as ``mov.u32 %r34, 7; add.u32 %r34, %r34, %r34;``; with
``"=&r"`` the registers stay apart. The same happens to CUDA 13's own ``__vibmax_s16x2`` in a
running-max loop (``crt/device_functions.hpp``): its ``max.s16x2 %0, %3, %4`` is followed by a
read of ``%3``, which then compares the maximum with itself.

A register is shared only within one register class, so an output and an input clash only
where their constraint letters are the same (``r`` with ``r``, ``l`` with ``l``). An input read
in the same instruction that writes the output is read first. A write that copies the input
itself (``mov.b64 %0, %1;``) leaves a shared register holding the input's value. A write under
``@p`` and a read under ``@!p`` of the same predicate, with nothing writing the predicate
between them, never happen in one run. Where the output's own value is read before it is
written (PTX106), the output is tied to an input or its binding is itself a defect, or the
template has a ``mov`` written the wrong way round or names a ``%N`` past the last operand (its
order of writes and reads is not the one meant), that is the one finding.

A template with a part ptxlint cannot read (a hole) is judged only where the output is written
on every path before the first hole and an input of its class is read nowhere in the text
around it: the hole, after the write, is then the only place that input can be read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from ptxlint.analysis.operand_access import Access, reads_of, register_operand, writes_of
from ptxlint.model import HOLE, AsmStatement, Operand, PtxOperand
from ptxlint.ptx.flow import ends_straight_line, reached_after, template_writes

if TYPE_CHECKING:
    from ptxlint.analysis.statement import StatementAnalysis

__all__ = ["EarlyClobber", "early_clobbers"]


class EarlyClobber(NamedTuple):
    """An output written (``write``) before a read of an input of its register class
    (``read``) that a path through the template runs to after the write; or, where the
    template has a part ptxlint cannot read (a hole), before that part, with the input read
    nowhere else: ``read`` is then None and ``hole`` the part's template offsets."""

    output: Operand
    input: Operand
    write: Access
    read: Access | None
    hole: tuple[int, int] = (-1, -1)

    @property
    def read_span(self) -> tuple[int, int]:
        """The template offsets where the input is read: its ``%N`` token, or the hole that
        must read it."""
        return (self.read.operand.start, self.read.operand.end) if self.read is not None \
            else self.hole


def early_clobbers(statement: AsmStatement, analysis: StatementAnalysis) -> dict[int, EarlyClobber]:
    """By output index, in output order: the first write of each write-only register output
    without ``&`` that a read of an input of its class follows."""
    found: dict[int, EarlyClobber] = {}
    if (
        not statement.extended
        or statement.opaque_sections
        or len(statement.ptx.instructions) < (1 if statement.template.has_holes else 2)
        or (statement.syntax == "llvm"
            # CuTe DSL's inline_ptx writes the constraints itself: nothing for its user to mend
            and (statement.llvm is None or statement.llvm.api == "cute-ptx"))
    ):
        return found
    inputs: dict[str, list[Operand]] = {}
    for operand in statement.inputs:
        if register_operand(operand) and len(operand.constraint.letters) == 1:
            inputs.setdefault(operand.constraint.letters, []).append(operand)
    if not inputs:
        return found
    later: tuple[frozenset[int], ...] | None = None
    for output in statement.outputs:
        modifiers = output.constraint.modifiers
        if "=" not in modifiers or "+" in modifiers or "&" in modifiers \
                or not register_operand(output):
            continue
        rivals = inputs.get(output.constraint.letters)
        if not rivals:
            continue
        writes = writes_of(statement, output.index)
        if not writes:
            continue
        if statement.template.has_holes:
            if analysis.reversed_movs or analysis.stray_refs:
                return {}  # (as below: the data flow is not the one meant)
            before = _before_hole(statement, output, writes[0], rivals)
            if before is not None and not _root_elsewhere(analysis, output, before.input):
                found[output.index] = before
            continue
        reads = [(rival, read) for rival in rivals for read in reads_of(statement, rival.index)]
        if not any(read.position > writes[0].position for _, read in reads) \
                and not _loops(statement):
            continue  # every read comes first in text order and no path leads back
        if later is None:
            if analysis.reversed_movs or analysis.stray_refs:
                # the template's data flow is not what was meant: a mov runs backwards
                # (PTX105/PTX106), or a %N past the last operand puts the numbering off (PTX001)
                return {}
            later = reached_after(statement.ptx, statement.template.text)
            if later is None:
                return {}
        clash = _first_clash(statement, writes, reads, later)
        if clash is None or _root_elsewhere(analysis, output, clash[0]):
            continue
        rival, write, read = clash
        found[output.index] = EarlyClobber(output, rival, write, read)
    return found


def _before_hole(statement: AsmStatement, output: Operand, write: Access,
                 rivals: Sequence[Operand]) -> EarlyClobber | None:
    """The output's first write runs on every path before the template's first hole, and an
    input of its class is read nowhere in the text around the hole: if the input is read at
    all, the hole reads it, after the write (a loop's body built when the program runs, after
    outputs zeroed). Nothing before the write may branch or be guarded past it."""
    text = statement.template.text
    hole = text.find(HOLE)
    if write.instruction.end > hole or write.instruction.predicate is not None:
        return None
    for instruction in statement.ptx.instructions:
        if instruction.start >= write.instruction.start:
            break
        if instruction.opaque or ends_straight_line(instruction):
            return None
    for rival in rivals:
        if not reads_of(statement, rival.index):
            end = hole
            while end < len(text) and text[end] == HOLE:
                end += 1
            return EarlyClobber(output, rival, write, None, (hole, end))
    return None


def _first_clash(
    statement: AsmStatement,
    writes: Sequence[Access],
    reads: Sequence[tuple[Operand, Access]],
    later: tuple[frozenset[int], ...],
) -> tuple[Operand, Access, Access] | None:
    # a write no path from the template's start reaches (code an unconditional 'bra' jumps
    # over) never runs, so it clobbers nothing
    runs = later[0] | {0}
    for write in writes:
        if write.position not in runs:
            continue
        after = later[write.position]
        for rival, read in reads:
            if read.position in after and not _copies(write, rival.index) \
                    and not _exclusive(statement, write, read):
                return rival, write, read
    return None


def _copies(write: Access, index: int) -> bool:
    """``mov %k, %index``: the write leaves a shared register holding the input's value."""
    instruction = write.instruction
    if instruction.opcode != "mov" or len(instruction.operands) != 2:
        return False
    destination, source = instruction.operands
    return destination.start == write.operand.start and source.kind == "ref" and source.ref == index


def _exclusive(statement: AsmStatement, write: Access, read: Access) -> bool:
    """The write runs under ``@p`` and the read under ``@!p`` (or the reverse), and nothing
    writes ``p`` from the one to the other: never both in one run."""
    first, second = write.instruction.predicate, read.instruction.predicate
    if first is None or second is None or first.negated == second.negated:
        return False
    name = first.register.text
    if second.register.text != name or read.position <= write.position:
        return False
    between = template_writes(statement.ptx).destinations[write.position + 1 : read.position]
    return all(operands is not None and not _names(operands, name) for operands in between)


def _names(operands: Sequence[PtxOperand], name: str) -> bool:
    return any(o.text == name for o in operands)


def _loops(statement: AsmStatement) -> bool:
    """A branch in the template: a read before the write in text order may still follow it."""
    return any(i.opcode in ("bra", "brx") for i in statement.ptx.instructions)


def _root_elsewhere(analysis: StatementAnalysis, output: Operand, rival: Operand) -> bool:
    """Another finding names this defect's root: the output read before it is written
    (PTX106, whose '+' also keeps the registers apart), an output tied to an input, or an
    operand whose binding is the defect: its constraint or type (``operand_root``), or a
    value its letter does not take (PTX004: a pointer in ``"r"``, whose letter ``"l"`` names
    a register class the ``"r"`` output can never share)."""
    return (
        output.index in analysis.undefined_reads
        or analysis.tied_input(output.index) is not None
        or analysis.operand_root(output.index) is not None
        or analysis.operand_root(rival.index) is not None
        or analysis.size_misfit(output.index) is not None
        or analysis.size_misfit(rival.index) is not None
    )
