"""A ``mov`` written the wrong way round: the root cause of PTX105 and PTX106 where a template
packs or unpacks its operands through a register of its own.

A store that packs two inputs into a template register and stores it must ``mov`` the inputs
into the register; a load must ``mov`` the loaded register out into its outputs. CCCL 3.0.1
(CUDA 13.0, ``cuda/std/__atomic/functions/cuda_ptx_generated.h``) has both backwards:

- ``.reg .b128 _v; mov.b128 {%1, %2}, _v; st.release.cta.b128 [%0], _v;`` with ``%1``, ``%2``
  inputs: the ``mov`` writes the inputs (PTX105) from ``_v``, which nothing wrote, and the store
  writes that undefined ``_v`` (nvcc 13.0 assembles it: a silent miscompile);
- ``mov.b128 _d, {%0, %1};`` after the load, with ``%0``, ``%1`` write-only outputs: the ``mov``
  reads the outputs before anything writes them (PTX106), into ``_d``, which nothing reads.

A ``mov`` between two asm operands can run backwards too: ``mov.u32 %1, %0;`` with ``%1`` an
input and ``%0`` a write-only output that nothing wrote before reads the undefined output
(PTX106) into the input (PTX105), where ``mov.u32 %0, %1;`` copies the input out: PTX106's one
finding, as the read comes first.

Either way the operands swapped make the template consistent, and that swap is the repair; the
per-operand findings ("make it an output", "declare it '+'") would compile and keep the bug.
The ``mov`` is judged reversed only where the template runs straight (no label, no branch, no
guard on the ``mov``), one side is nothing but ``%N`` of the misused role and the other is a
register the template declares that the swap puts to use: for the store, one no instruction
wrote before the ``mov`` and one read after it; for the load, one an instruction before it
names (its value) and none reads after it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from ptxlint.model import AsmStatement, Operand, PtxInstruction, PtxOperand
from ptxlint.ptx.flow import template_writes
from ptxlint.ptx.operand_roles import leaves, sources

__all__ = ["ReversedMov", "reversed_movs"]


class ReversedMov(NamedTuple):
    """A backwards ``mov``: the ``%N`` it misuses (inputs it writes, or outputs it reads before
    they are written) and its two operands as the template spells them."""

    position: int  # index of the instruction in the template
    instruction: PtxInstruction
    refs: tuple[int, ...]  # in the order the mov names them
    register: str  # the template's own register on the other side, or the inputs it writes
    writes_inputs: bool  # True: a store's packing (PTX105's); False: a load's unpacking (PTX106's)
    # the inputs a mov that reads outputs writes (``mov.u32 %1, %0``: the copy of an input into
    # an output, backwards; PTX106's); () where the other side is a register
    inputs: tuple[int, ...] = ()

    @property
    def destination(self) -> PtxOperand:
        return self.instruction.operands[0]

    @property
    def source(self) -> PtxOperand:
        return self.instruction.operands[1]


def reversed_movs(
    statement: AsmStatement, tied: Callable[[int], object]
) -> tuple[ReversedMov, ...]:
    """Every backwards ``mov`` of the statement's template, in text order. ``tied(i)``: the
    input tied to output ``i``, if any (``StatementAnalysis.tied_input``): its value comes in,
    so reading it is no mistake."""
    ptx = statement.ptx
    # LLVM syntax (Triton, CuTe DSL) has the copy between two operands too; the template
    # registers of the other two cases are CCCL's, in C++
    gnu = statement.syntax == "gnu"
    if statement.syntax not in ("gnu", "llvm") or ptx.labels \
            or not any(i.opcode == "mov" for i in ptx.instructions):
        return ()
    instructions = ptx.instructions
    if any(i.opcode == "bra" or i.opaque for i in instructions):
        return ()
    # each instruction's two sides, once (the destinations are the template's own, memoised)
    written = template_writes(ptx).destinations
    read = [sources(i) for i in instructions]
    declared = {name for d in ptx.directives if d.name == ".reg" for name in d.declared}
    operands = {o.index: o for o in statement.operands}
    found: list[ReversedMov] = []
    for position, instruction in enumerate(instructions):
        if instruction.opcode != "mov" or len(instruction.operands) != 2 \
                or instruction.predicate is not None:
            continue
        destination, source = instruction.operands
        before, after = slice(0, position), slice(position + 1, None)
        inputs = _refs(destination, operands, "input")
        if gnu and inputs and _register(source, declared) \
                and not _touched(written[before], _named_as(source.text)) \
                and _touched(read[after], _named_as(source.text), unknown=False):
            found.append(ReversedMov(position, instruction, inputs, source.text, True))
            continue
        outputs = _refs(source, operands, "output")
        unread = bool(outputs) and all(
            _write_only(operands[i]) and tied(i) is None for i in outputs
        ) and not _touched(written[before], _one_of(outputs))
        if inputs and unread and len(inputs) == len(outputs):
            found.append(
                ReversedMov(position, instruction, outputs, destination.text, False, inputs)
            )
            continue
        if gnu and unread and _register(destination, declared) \
                and _named(instructions[before], destination.text) \
                and not _touched(read[after], _named_as(destination.text)):
            found.append(ReversedMov(position, instruction, outputs, destination.text, False))
    return tuple(found)


def _refs(operand: PtxOperand, operands: dict[int, Operand], role: str) -> tuple[int, ...]:
    """The ``%N`` that ``operand`` consists of, each of ``role``; () where it holds anything
    else."""
    parts = list(leaves(operand))
    refs = tuple(p.ref for p in parts if p.kind == "ref" and p.ref is not None)
    if not refs or len(refs) != len(parts):
        return ()
    if any(i not in operands or operands[i].role != role for i in refs):
        return ()
    return refs


def _register(operand: PtxOperand, declared: set[str]) -> bool:
    return operand.kind == "register" and operand.text in declared


def _write_only(operand: Operand) -> bool:
    """An ``=`` output: its old value does not come in (unless an input is tied to it)."""
    modifiers = operand.constraint.modifiers
    return "+" not in modifiers and "=" in modifiers and not operand.constraint.opaque


def _named_as(register: str) -> Callable[[PtxOperand], bool]:
    return lambda o: o.text == register


def _one_of(refs: tuple[int, ...]) -> Callable[[PtxOperand], bool]:
    return lambda o: o.kind == "ref" and o.ref in refs


def _touched(
    sides: Sequence[Sequence[PtxOperand] | None],
    hit: Callable[[PtxOperand], bool],
    unknown: bool = True,
) -> bool:
    """Whether one instruction's operands on a side (its destinations or its sources) hold one
    that ``hit`` names; an instruction whose operands are not known (None) counts as
    ``unknown`` says (True where the answer rules the mov out, False where it would rule it
    in)."""
    for operands in sides:
        if operands is None:
            if unknown:
                return True
        elif any(hit(o) for o in operands):
            return True
    return False


def _named(instructions: Sequence[PtxInstruction], register: str) -> bool:
    """Whether an instruction names ``register``: it holds a value the template made (CCCL's
    load names it in an ``ld`` whose operands are themselves swapped, PTX207's finding)."""
    return any(leaf.text == register for instruction in instructions
               for operand in instruction.operands for leaf in leaves(operand))
