"""Which state space each address operand (``[...]``) of a PTX instruction lives in.

Facts from the PTX ISA (9.x), chapter 9:

* ``ld``/``st``/``atom``/``red``/``ldu``/``prefetch`` take one address in the state space their
  modifier names; without one they use *generic* addressing.
* ``ldmatrix``/``stmatrix`` take ``{.shared, .shared::cta}`` or, without it, a generic address
  that must point into shared memory. ``mbarrier.*`` likewise: ``.shared``/``.shared::cta``/
  ``.shared::cluster`` or generic.
* Copies name the destination space first, then the source (``cp.async.ca.shared.global
  [dst], [src], 16``; ``cp.async.bulk.global.shared::cta [dst], [src], size``); a trailing
  ``[mbar]`` (``.mbarrier::complete_tx::bytes``) is an mbarrier in the destination's shared
  window (``.shared::cluster`` or ``.shared::cta``). In
  ``cp.async.bulk.tensor`` the global side is ``[tensorMap, coords]``: the tensor map is
  addressed generically (or in ``.param``/``.const``), so that side is left unknown here.
* An instruction with one state space and several addresses (``st.async.shared::cluster
  [addr], v, [mbar]``) has all of them in that space.

Anything else (textures, surfaces, ``fence.proxy.tensormap``...) is unknown: ``None``.
"""

from __future__ import annotations

from typing import NamedTuple

from ptxlint.model import PtxInstruction, PtxOperand

__all__ = ["NARROW_GENERIC_SHARED", "AddressUse", "SHARED_SPACES", "STATE_SPACES", "address_uses"]

SHARED_SPACES = frozenset({"shared", "shared::cta", "shared::cluster"})
# the state-space modifiers an instruction's addresses are read in
STATE_SPACES = SHARED_SPACES | {"global", "local", "const", "param", "param::entry",
                                "param::func"}
# Instructions whose addresses are generic when no state space is named.
_GENERIC_WITHOUT_SPACE = frozenset(
    {"ld", "st", "atom", "red", "ldu", "ldmatrix", "stmatrix", "mbarrier", "prefetch", "prefetchu"}
)
_SPACE_BASES = frozenset(m.partition("::")[0] for m in STATE_SPACES)
# Instructions whose generic address must point into shared memory and which ptxas 13.0 takes
# from a 32-bit register without a word, where ld, st, mbarrier and the like stop at "32-bit
# address ... conflicting with .address_size 64": on sm_90 `ldmatrix` without `.shared` given
# a 32-bit register compiles to LDSM on the register as a shared-window offset.
NARROW_GENERIC_SHARED = frozenset({"ldmatrix", "stmatrix"})
_COPIES = frozenset({"cp", "tensormap"})  # cp.async*, cp.reduce.async.bulk*, tensormap.cp_*


class AddressUse(NamedTuple):
    """An address operand of an instruction and the state space it is read in."""

    instruction: PtxInstruction
    operand: PtxOperand  # kind "address"
    space: str  # "shared", "shared::cta", "global", ..., or "generic"


def _space_of(modifier: str) -> str | None:
    if modifier in STATE_SPACES:
        return modifier
    return None


def address_uses(instruction: PtxInstruction) -> list[AddressUse]:
    """Every address operand of ``instruction`` whose state space is known."""
    addresses = [o for o in instruction.operands if o.kind == "address"]
    if not addresses or instruction.opaque:
        return []
    spaces = [s for m in instruction.modifiers if (s := _space_of(m)) is not None]
    opcode = instruction.opcode
    if not spaces:
        if any(m.partition("::")[0] in _SPACE_BASES for m in instruction.modifiers):
            # a space no instruction has ('ld.shared::gpu': ptxas 13.0 "Unknown modifier
            # '.shared::gpu'", PTX204's error): unknown, not generic
            return []
        if opcode in _GENERIC_WITHOUT_SPACE:
            return [AddressUse(instruction, a, "generic") for a in addresses]
        return []
    if len(spaces) == 1:
        return [AddressUse(instruction, a, spaces[0]) for a in addresses]
    if len(spaces) != 2 or opcode not in _COPIES:
        return []
    tensor = "tensor" in instruction.modifiers
    uses: list[AddressUse] = []
    for position, address in enumerate(addresses):
        if position < 2:
            space = spaces[position]
            if tensor and space not in SHARED_SPACES:
                continue  # [tensorMap, coords]: the map itself is a generic/param address
        elif any(m.startswith("mbarrier") for m in instruction.modifiers):
            # in the destination's window: `.shared::cluster` for a copy into the cluster's
            # (the barrier of the CTA the data lands in, another one with .cta_group::2)
            space = spaces[0] if spaces[0] in SHARED_SPACES else "shared"
        else:
            continue
        uses.append(AddressUse(instruction, address, space))
    return uses
