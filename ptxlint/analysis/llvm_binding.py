"""What an LLVM-syntax call (Triton, Pallas, helion, CuTe DSL, llvmlite) binds against what its
constraint string lists: PTX501's fact, and the root of the numbering findings it makes.

Where the constraint string lists more or fewer operands than the call binds registers for,
the operand list ptxlint reads from the string is not the one the template is numbered against:
a ``$2`` past the string's operands (PTX001) or an entry no ``$N`` names (PTX009) is the same
defect, and PTX501 alone reports it.

CuTe DSL's ``inline_ptx`` has a numbering of its own: its ``{$rN}`` placeholders are numbered
again by the lowering (:func:`misnumbered_placeholders`, PTX510's fact), and what the template
does with an argument a misnumbered placeholder binds instead is that defect too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ptxlint.model import AsmStatement

if TYPE_CHECKING:  # annotations only: a C++ file's check never loads them (ptxlint.model)
    from ptxlint.model import ConstraintEntry, LlvmCall
    from ptxlint.model_llvm import PtxPlaceholder

__all__ = ["TRITON_FAMILY", "BindingMismatch", "binding_mismatch", "count", "known_call",
           "known_entries", "llvm_call", "misnumbered_placeholders", "WrongPlaceholder"]

TRITON_FAMILY = ("triton", "helion", "pallas", "torch")


def llvm_call(statement: AsmStatement) -> LlvmCall | None:
    return statement.llvm if statement.syntax == "llvm" else None


def known_entries(call: LlvmCall) -> tuple[ConstraintEntry, ...] | None:
    """The constraint entries, when the whole string is known."""
    return call.entries if call.constraints_known else None


def known_call(statement: AsmStatement) -> tuple[LlvmCall, tuple[ConstraintEntry, ...]] | None:
    """An LLVM-syntax statement's call and its constraint entries, when the whole constraint
    string is known: what every PTX5xx constraint rule starts from."""
    call = llvm_call(statement)
    if call is None:
        return None
    entries = known_entries(call)
    return None if entries is None else (call, entries)


def count(entries: tuple[ConstraintEntry, ...], role: str) -> int:
    return sum(1 for e in entries if e.role == role)


class BindingMismatch(NamedTuple):
    """A constraint string whose outputs or inputs are not as many as the call binds."""

    call: LlvmCall
    outputs: int  # the string's outputs
    inputs: int  # and inputs
    # Triton's family: the registers the call binds for its results and for its arguments,
    # each where the string's count lies outside them (else None)
    output_registers: tuple[int, int] | None = None
    input_registers: tuple[int, int] | None = None
    # MLIR llvm.inline_asm (CuTe DSL): the operands it passes, where they are not the inputs
    operands: int | None = None


def binding_mismatch(statement: AsmStatement) -> BindingMismatch | None:
    """Where the constraint string and the call disagree on how many operands there are: for
    Triton's family, ``pack`` registers per result of 32 or 64 bits and ``pack / min(pack, 32 /
    bits)`` for narrower ones, then the same per argument (a range where an element type is not
    knowable); for MLIR's ``llvm.inline_asm``, one input per operand. None where they agree or
    the string is not wholly known."""
    known = known_call(statement)
    if known is None or known[0].constraints is None:
        return None
    call, entries = known
    outputs = count(entries, "output")
    inputs = count(entries, "input")
    if call.api in TRITON_FAMILY:
        wrong_out = wrong_in = None
        if outputs and call.output_registers is not None:
            low, high = call.output_registers
            if not low <= outputs <= high:
                wrong_out = call.output_registers
        if outputs and call.input_registers is not None:
            low, high = call.input_registers
            if not low <= inputs <= high:
                wrong_in = call.input_registers
        if wrong_out is None and wrong_in is None:
            return None
        return BindingMismatch(call, outputs, inputs, wrong_out, wrong_in)
    if call.api == "cute" and call.args is not None and inputs != len(call.args):
        return BindingMismatch(call, outputs, inputs, operands=len(call.args))
    return None


class WrongPlaceholder(NamedTuple):
    placeholder: PtxPlaceholder
    past_end: bool  # its number is past its list's end; else the lowering numbers it again


def misnumbered_placeholders(statement: AsmStatement) -> tuple[WrongPlaceholder, ...]:
    """The ``inline_ptx`` placeholders (the first of each kind and number, in the template's
    order) whose number does not name the argument the lowering binds: one past the end of its
    list, or, where the whole template is known, one the lowering numbers again because the
    template skips a number before it (``{$r1}`` with no ``{$r0}`` binds ``read_only_args[0]``).
    Empty for every other call."""
    call = llvm_call(statement)
    if call is None or call.api != "cute-ptx" or not call.placeholders:
        return ()
    counts = dict(call.role_counts)
    holes = statement.template.has_holes  # a part built at run time may use the numbers skipped
    wrong: list[WrongPlaceholder] = []
    seen: set[tuple[str, int]] = set()
    for p in call.placeholders:
        key = (p.kind, p.number)
        if key in seen:
            continue
        seen.add(key)
        count = counts.get(p.kind)
        past_end = count is not None and p.number >= count
        rebound = bool(p.bound_kind) and (p.bound_kind, p.bound_index) != key and not holes
        if past_end or rebound:
            wrong.append(WrongPlaceholder(p, past_end))
    return tuple(wrong)
