"""What a ``call`` instruction's target does, where the target's name says it.

A ``call`` runs a function ptxlint cannot read, so ``effects.EFFECTS`` gives it every effect
(it may read and write memory). One family of targets is known by name: the OptiX device API
(``optix_device.h``: ``optixGetWorldRayOrigin``, ``optixGetLaunchIndex``...) reaches the OptiX
compiler as inline-asm ``call``s to ``_optix_*`` intrinsics, which that compiler replaces with
the value it keeps for the running program. The getters return state of the launch, the ray,
the hit, the instance transforms, the shader binding table record or the exception, and
``_optix_call_direct_callable``/``_optix_call_continuation_callable`` return the address of
a callable program of the table (``optixDirectCall`` then calls it from C++); they access no
memory the program's own C++ code writes, and calling one has no effect, so a
non-volatile asm without a ``"memory"`` clobber is how the OptiX SDK's own headers spell them
(it spells the intrinsics that change state, ``_optix_trace_*``, ``_optix_set_payload_*``,
``_optix_report_intersection_*``, ``_optix_terminate_ray``..., ``asm volatile``).

Not getters, whatever their names: ``_optix_get_payload_*`` reads a value the program itself
changes with ``_optix_set_payload_*`` (the SDK reads it with ``asm volatile``), and the
``hitobject`` intrinsics read a hit object that ``_optix_hitobject_trace_*`` and its kin
replace.

The payload intrinsics touch no memory, though: a ray's payload is up to 32 32-bit values that
``optixTrace`` passes in and returns (copy-in, copy-out), kept in registers, which the programs
it runs read and write with ``optixGetPayload_N``/``optixSetPayload_N`` (``_optix_get_payload``
and ``_optix_set_payload``; ``_optix_get_payload_N`` and ``_optix_set_payload_N`` in the first
OptiX 7 releases) and whose layout ``optixSetPayloadTypes`` (``_optix_set_payload_types``)
declares. A payload value may be a pointer the program packed into two slots, but the intrinsic
moves the value, never what it points to. So they keep their effect (volatile orders a read
after the write it must see) and need no ``"memory"`` clobber (``keeps_to_payload``). The
intrinsics that run other programs (``_optix_trace_*``, ``_optix_report_intersection_*``,
``_optix_throw_exception_*``) or end this one (``_optix_terminate_ray``,
``_optix_ignore_intersection``), which may read what this one stored, and
``_optix_tex_footprint_*``, which writes its result through pointers, are not among them.
"""

from __future__ import annotations

from ptxlint.lazy_regex import on_first_use
from ptxlint.model import PtxInstruction

__all__ = ["callee", "keeps_to_payload", "reads_program_state"]

# compiled at the first `call` (ptxlint.lazy_regex): most runs meet none
_STATE_READ = on_first_use(
    r"_optix_(?:get_(?!payload|hitobject)\w+|read_\w+|undef_value"
    r"|call_(?:direct|continuation)_callable)"
)
_NAME = on_first_use(r"[A-Za-z_$][\w$]*")
_PAYLOAD = on_first_use(r"_optix_(?:[gs]et_payload(?:_[0-9]+)?|set_payload_types)")


def callee(instruction: PtxInstruction) -> str | None:
    """The name a direct ``call`` calls (``call (%r), f, (%a);`` calls ``f``); ``None`` for
    any other instruction, and for an indirect call through a register."""
    if instruction.opcode != "call":
        return None
    for operand in instruction.operands:
        if operand.text.startswith("("):
            continue  # the return-value list before the target
        name = operand.text
        return name if _NAME().fullmatch(name) else None
    return None


def reads_program_state(instruction: PtxInstruction) -> bool:
    """The instruction is a ``call`` of an OptiX intrinsic that reads the state the OptiX
    runtime keeps for the running program: no memory access, no effect (module docstring)."""
    name = callee(instruction)
    return name is not None and _STATE_READ().fullmatch(name) is not None


def keeps_to_payload(instruction: PtxInstruction) -> bool:
    """The instruction is a ``call`` of an OptiX intrinsic that reads or writes the ray's
    payload values, or declares their types: an effect, but no memory access (module
    docstring)."""
    name = callee(instruction)
    return name is not None and _PAYLOAD().fullmatch(name) is not None
