"""Which operands of an instruction it writes and which it reads: the one door the data-flow
rules (PTX103-PTX107) and ``flow`` go through.

Destinations come from ``effects.written_operands`` today; when the per-form instruction grammar
carries destination facts, only ``destinations`` changes.
"""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.lazy_regex import on_first_use
from ptxlint.model import PtxInstruction, PtxOperand
from ptxlint.ptx.effects import written_tuple

__all__ = ["destinations", "leaves", "sources"]


def destinations(instruction: PtxInstruction) -> tuple[PtxOperand, ...] | None:
    """The register operands ``instruction`` writes (vector and pair elements one by one), or
    ``None`` when that is not known (``call``, an unknown opcode, an opaque instruction). The
    tuple is the one every reader of the instruction gets (flow, and each side of
    ``analysis.operand_access``, walk a wgmma's 128 destinations; each copied them first).

    A destination with a video selector (``vadd.u32.u32.u32 %0.b0, %1, %2, %3``: the result
    goes to the selected byte, the others come from ``c``) writes the whole register of its
    ``%N``: it stands as that ``%N`` here (nvdiffrast's byte-wise adds were "never written")."""
    written = written_tuple(instruction)
    if written is None:
        return None
    # whether a destination may have a selector, asked once per tuple (``written_tuple``'s
    # own, kept per instruction): the data-flow readers ask four times a statement, and each
    # looked at a wgmma's 128 destinations again (an ask after the first: 5.0 -> 0.15 us)
    known = _PLAIN.get(id(written))
    if known is None or known[0] is not written:
        if len(_PLAIN) >= _PLAIN_MAX:
            _PLAIN.clear()
        known = _PLAIN[id(written)] = (written, not any(o.kind == "other" for o in written))
    if known[1]:
        return written
    return tuple(_selected(o) for o in written)


# Whether no destination of a ``written_tuple`` is of kind "other" (one with a selector may
# be), by the tuple's identity; the tuple is held, so its id stays its own. Bounded.
_PLAIN: dict[int, tuple[tuple[PtxOperand, ...], bool]] = {}
_PLAIN_MAX = 4096


# a register with a video sub-word selector: `%0.b0`, `%1.b10`, `%2.h1`
_SELECTED = on_first_use(r"%([0-9]+)\.(?:b[0-3]{1,4}|h[01]{1,2})\Z")


def _selected(operand: PtxOperand) -> PtxOperand:
    m = _SELECTED().match(operand.text) if operand.kind == "other" else None
    if m is None:
        return operand
    return PtxOperand("ref", f"%{m.group(1)}", operand.start,
                      operand.start + 1 + len(m.group(1)), ref=int(m.group(1)))


def leaves(operand: PtxOperand) -> Iterator[PtxOperand]:
    """``operand`` itself, or the elements of a vector, pair or address, recursively."""
    if operand.parts:
        for part in operand.parts:
            yield from leaves(part)
    else:
        yield operand


def sources(instruction: PtxInstruction) -> list[PtxOperand] | None:
    """Everything ``instruction`` reads: the guard predicate, every operand that is not a
    destination (an address's registers included) but a SIMD video merge's ``c`` that no
    element of ``d`` takes, in text order; ``None`` when the destinations are not known."""
    written = destinations(instruction)
    if written is None:
        return None
    # the destinations are the instruction's own operand objects (or their parts), so the
    # same objects stand for them among its leaves
    taken = {id(o) for o in written}
    if instruction.opcode in _SIMD_MERGE:
        unread = _merged_over(instruction)
        if unread is not None:
            taken.add(id(unread))
    out: list[PtxOperand] = []
    if instruction.predicate is not None:
        out.append(instruction.predicate.register)
    for operand in instruction.operands:
        _add_leaves(operand, taken, out)
    return out


# The SIMD video instructions: `vmax4.s32.s32.s32 d{.mask}, a, b, c` merges, each element of d
# the result where the mask selects it and c's where it does not; `.add` accumulates into c.
_SIMD_MERGE = frozenset(
    f"{op}{n}" for op in ("vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax", "vset")
    for n in "24")
# the mask of d that selects every element (also the default)
_FULL_MASK = {"2": ("", "h10"), "4": ("", "b3210")}


def _merged_over(instruction: PtxInstruction) -> PtxOperand | None:
    """``c`` of a SIMD video instruction that merges (no ``.add``) into every element of ``d``:
    none of its elements reaches ``d``, so it is not read (Anakin's ``vmax4.s32.s32.s32 %0, %1,
    %2, %0`` with ``"=r"`` output %0 reads nothing of it)."""
    operands = instruction.operands
    if "add" in instruction.modifiers or len(operands) != 4:
        return None
    mask = operands[0].text.partition(".")[2]
    return operands[3] if mask in _FULL_MASK[instruction.opcode[-1]] else None


def _add_leaves(operand: PtxOperand, taken: set[int], out: list[PtxOperand]) -> None:
    """``leaves(operand)`` whose ids are not in ``taken``, appended to ``out``; a plain element
    (a wgmma's 128) is appended in its vector's loop, without a call or a generator of its
    own."""
    if not operand.parts:
        if id(operand) not in taken:
            out.append(operand)
        return
    for part in operand.parts:
        if part.parts:
            _add_leaves(part, taken, out)
        elif id(part) not in taken:
            out.append(part)
