"""Which asm operand is the base of each address a template reads or writes.

An address ``[%1]`` names its base; ``mov.b64 rd, %1; ld.shared.u32 %0, [rd];`` names it through
a copy (``mov``, ``add``, ``sub``: the copy keeps the operand's state space). PTX301 asks, per
base, whether the operand's value fits the state space the address is read in; PTX004 asks
whether a pointer under ``"r"`` is such a base of a ``.shared`` address (then the one defect is
the missing conversion to the shared window, with one finding). One reading of the template
answers both.

A function of the parsed template alone, so a template that repeats (4.5 times across
flashinfer) is read once (``TemplateMemo``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from ptxlint.model import PtxOperand, PtxTemplate
from ptxlint.ptx.operand_roles import leaves
from ptxlint.ptx.spaces import AddressUse, address_uses
from ptxlint.ptx.template_memo import TemplateMemo

__all__ = ["AddressBase", "address_bases"]


class AddressBase(NamedTuple):
    """An address use whose base is asm operand ``ref``, named at ``where`` (the ``%N``, or the
    register that holds its copy)."""

    use: AddressUse
    ref: int
    where: PtxOperand


# Instructions that copy an address into a register and keep its state space.
_COPYING = frozenset({"mov", "add", "sub"})


def _refs(operand: PtxOperand) -> Iterator[PtxOperand]:
    if operand.kind == "ref":
        yield operand
    for part in operand.parts:
        yield from _refs(part)


def _register_origins(ptx: PtxTemplate, uses_of: list[list[AddressUse]]) -> dict[int, int]:
    """For each address operand (by template offset) that names a register holding a copy of an
    operand (``mov.b64 rd, %1`` or ``add.u64 rd, %1, 16`` earlier), that operand's index.
    ``uses_of`` holds each instruction's address uses, in order.

    A register written by anything else (``cvta.to.shared.u64 rd, %1``, ``cvt``, a load) holds
    some other value: it is forgotten, so a converted address is never flagged.
    """
    origin: dict[str, int] = {}
    found: dict[int, int] = {}
    for instruction, uses in zip(ptx.instructions, uses_of, strict=True):
        for use in uses:
            for word in leaves(use.operand):
                if word.kind == "register" and word.text in origin:
                    found[word.start] = origin[word.text]
        if not instruction.operands or instruction.operands[0].kind != "register":
            continue
        destination = instruction.operands[0].text
        sources: set[int] = set()
        for operand in instruction.operands[1:]:
            for word in leaves(operand):
                if word.kind == "ref" and word.ref is not None:
                    sources.add(word.ref)
                elif word.kind == "register" and word.text in origin:
                    sources.add(origin[word.text])
        if instruction.opcode in _COPYING and len(sources) == 1 and instruction.predicate is None:
            origin[destination] = sources.pop()
        else:
            origin.pop(destination, None)
    return found


def _converted_in_template(ptx: PtxTemplate) -> set[int]:
    """Operands the template itself passes through ``cvta``: the author handles their space."""
    converted: set[int] = set()
    for instruction in ptx.instructions:
        if instruction.opcode == "cvta":
            for operand in instruction.operands:
                converted.update(r.ref for r in _refs(operand) if r.ref is not None)
    return converted


def _leaves(operand: PtxOperand) -> list[PtxOperand]:
    """``leaves(operand)`` as one list: the plan reads each address's words once (an address is
    mostly one ``%N``, where a generator per part cost a Python frame per word)."""
    parts = operand.parts
    if not parts:
        return [operand]
    if len(parts) == 1 and not parts[0].parts:
        return [parts[0]]  # ``[%1]``: most addresses
    return list(leaves(operand))


def _address_operand(
    words: list[PtxOperand], origins: dict[int, int]
) -> tuple[int, PtxOperand] | None:
    """The asm operand index that supplies the base of an address whose words are ``words``
    (``_leaves``), and where it is named."""
    refs = [w for w in words if w.kind == "ref" and w.ref is not None]
    registers = (
        [w for w in words if w.kind == "register" and w.start in origins] if origins else []
    )
    if len(refs) + len(registers) != 1:
        return None
    if refs:
        assert refs[0].ref is not None
        return refs[0].ref, refs[0]
    return origins[registers[0].start], registers[0]


_PLANS: TemplateMemo[tuple[AddressBase, ...]] = TemplateMemo(4096)


def address_bases(ptx: PtxTemplate) -> tuple[AddressBase, ...]:
    """The address uses of ``ptx`` whose base is one asm operand that the template does not
    convert itself (``cvta``: the author handles its space), in instruction order."""
    return _PLANS.of(ptx, lambda: _plan(ptx))


def _plan(ptx: PtxTemplate) -> tuple[AddressBase, ...]:
    uses_of = [address_uses(i) for i in ptx.instructions]
    if not any(uses_of):  # most statements (mma, cvt, fences...) address no memory
        return ()
    # each address's words, read once for the two questions below (CUDA 13 headers: 2,719
    # templates, every one distinct, so each plan is made once; 16.8 -> 11.6 ms of CPU)
    words_of = [(use, _leaves(use.operand)) for found in uses_of for use in found]
    # the copies of operands into registers matter only to an address that names a register
    # (``[rd]`` after ``mov.b64 rd, %1``); most name a %N itself (``[%1]``)
    origins = (
        _register_origins(ptx, uses_of)
        if any(w.kind == "register" for _, words in words_of for w in words)
        else {}
    )
    converted = _converted_in_template(ptx)
    plan = []
    for use, words in words_of:
        found = _address_operand(words, origins)
        if found is not None and found[0] not in converted:
            plan.append(AddressBase(use, found[0], found[1]))
    return tuple(plan)
