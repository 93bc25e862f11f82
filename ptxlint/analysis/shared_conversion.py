"""The conversion a generic pointer needs where a template reads it as a ``.shared`` address:
the width of the shared-window address every place of the template takes (PTX301's fix), and
whether a 64-bit pointer's 32-bit uses are the same missing conversion (PTX206 stays silent).

``"l"(p)`` with ``add.u32 t, %0, 4; st.shared.u32 [t], %1;`` is one mistake: the template was
written for the 32-bit shared-window offset, and ``"r"(static_cast<unsigned>(
__cvta_generic_to_shared(p)))`` mends both the generic address in the shared access (PTX301)
and the 64-bit register in the ``.u32`` place (PTX206), so PTX301 speaks for both."""

from __future__ import annotations

from collections.abc import Callable

from ptxlint.analysis import operand_use
from ptxlint.analysis.statement import analysis_of
from ptxlint.analysis.template_refs import refs_of
from ptxlint.analysis.value_flow import Value
from ptxlint.model import AsmStatement, Operand
from ptxlint.ptx.address_bases import address_bases
from ptxlint.ptx.address_values import is_generic_pointer, is_shared_offset
from ptxlint.ptx.spaces import SHARED_SPACES

__all__ = ["OFFSET_CLAIM", "converted_width", "needs_offset"]

# PTX301's words where the missing conversion stops ptxas too (``needs_offset``): what
# ``--verify`` confirms with ptxas's "Arguments mismatch" at the 32-bit place
OFFSET_CLAIM = "ptxas rejects the 64-bit register there"


def converted_width(statement: AsmStatement, operand: Operand, shared_bases: int) -> int | None:
    """The register width (32 or 64) the shared-window address must have for every place the
    template names the operand: a shared access's address takes either, so the width comes from
    the instructions that read it as a value (``mov.b64 a, %1`` wants 64 bits, and ptxas rejects
    a 32-bit register there: 'Arguments mismatch'). None when no width fits them all, an
    instruction names no type to judge by (``isspacep.shared p, %1`` reads a generic address),
    or a reference sits where no base of a shared access was found (``[%0+%1]``).
    ``shared_bases``: how many ``%N`` of the operand are the base of a shared access."""
    index = operand.index
    named = len(refs_of(statement).tokens_of(index))
    value_widths: list[set[int]] = []
    addresses = 0
    for use in operand_use.uses(statement, index):
        if use.in_address:
            addresses += 1
            continue
        widths = {_type_bits(t) for t in operand_use.value_types(use.instruction)}
        if not widths:
            return None
        value_widths.append(widths)
    if addresses != shared_bases or shared_bases + len(value_widths) != named:
        return None
    # the constraint's own width first: the smallest change that compiles
    for width in (32, 64) if operand.constraint.letters == "r" or not value_widths else (64, 32):
        if all(width in widths for widths in value_widths):
            return width
    return None


def needs_offset(
    statement: AsmStatement, operand: Operand, held: Callable[[], Value | None]
) -> bool:
    """``operand`` is a 64-bit generic pointer (``"l"``) that the template takes as the base of
    ``.shared`` accesses only (directly or through a register copy) and reads elsewhere as a
    32-bit value only (``add.u32 t, %0, 4``): the template was written for the 32-bit
    shared-window offset, which the conversion PTX301 offers gives (``"r"(static_cast<unsigned>(
    __cvta_generic_to_shared(p)))``), so a 32-bit place's refusal of the 64-bit register
    (PTX206) is PTX301's defect, not a second one. False where that is not shown: another
    state space, a reference the address bases do not explain, a ``.shared::cluster`` access
    (whose conversion may be another), a place that reads 64 bits, or a value the flow shows
    is already a shared-window address (``held()``: value flow's answer, as PTX301 asks it;
    asked last)."""
    if operand.role != "input" or operand.constraint.letters != "l" \
            or not is_generic_pointer(operand) or is_shared_offset(operand):
        return False
    analysis = analysis_of(statement)
    based, shared_refs = False, 0
    for use, index, where in address_bases(statement.ptx):
        if index != operand.index:
            continue
        based = True
        if use.space not in SHARED_SPACES or use.space == "shared::cluster" \
                or analysis.space_unknown(use.instruction):
            # converted, the value would break the other space's access; or PTX204 reports
            # the space itself, and PTX301 is silent
            return False
        if where.kind == "ref":
            shared_refs += 1
    return based and converted_width(statement, operand, shared_refs) == 32 \
        and held() not in (Value.SHARED, Value.MAYBE_SHARED, Value.TRUNCATED)


def _type_bits(ptx_type: str) -> int:
    """``f16x2`` -> 32, ``u64`` -> 64."""
    digits = "".join(ch for ch in ptx_type.split("x")[0] if ch.isdigit())
    lanes = int(ptx_type.split("x")[1]) if "x" in ptx_type else 1
    return int(digits or 0) * lanes
