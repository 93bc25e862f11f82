"""Which asm operands the value of an operand of one instruction is computed from, inside its
template.

An operand names asm operands directly (``[%1]``, ``%2``) or through registers the template
wrote before it: ``mapa.shared::cluster.u32 r, %0, %1; mbarrier.arrive... [r]`` computes the
barrier's address from ``%0`` and ``%1``. Every instruction counts (``mapa``, ``cvta``, ``add``,
``mov``, a load), unlike :mod:`.address_bases`, which follows only the copies that keep an
address's state space: the question here is what a value depends on, not what it points into.
A register written under a guard keeps what it held before too; one written by an instruction
whose destinations are not known is forgotten (its sources are not known either).
"""

from __future__ import annotations

from ptxlint.model import PtxInstruction, PtxOperand, PtxTemplate
from ptxlint.ptx.operand_roles import destinations, leaves, sources

__all__ = ["operand_inputs"]


def _inputs(words: list[PtxOperand], held: dict[str, frozenset[int]]) -> set[int]:
    found: set[int] = set()
    for word in words:
        if word.kind == "ref" and word.ref is not None:
            found.add(word.ref)
        elif word.kind == "register":
            found |= held.get(word.text, frozenset())
    return found


def operand_inputs(ptx: PtxTemplate, instruction: PtxInstruction,
                   operand: PtxOperand) -> frozenset[int]:
    """The asm operand indices ``operand`` of ``instruction`` (one of ``ptx``'s) is computed
    from: those it names, and those the registers it names were computed from by the
    instructions before it in the template, in order."""
    held: dict[str, frozenset[int]] = {}
    for earlier in ptx.instructions:
        if earlier is instruction:
            break
        written = destinations(earlier)
        read = sources(earlier)
        if written is None or read is None:
            for operand_written in earlier.operands[:1]:
                for word in leaves(operand_written):
                    held.pop(word.text, None)
            continue
        value = frozenset(_inputs(read, held))
        for destination in written:
            for word in leaves(destination):
                if word.kind != "register":
                    continue
                kept = held.get(word.text, frozenset()) if earlier.predicate is not None \
                    else frozenset()
                held[word.text] = value | kept
    return frozenset(_inputs(list(leaves(operand)), held))
