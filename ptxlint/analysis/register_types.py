"""Where a ``%N``'s register cannot be the instruction's operand (PTX206's findings), and the one
operand no ``%N`` names that such a ``%N`` was most likely meant to name (the root
``misnumbered-reference``: ``ptxlint.analysis.roots``).

A ``%N``'s register is what nvcc declares for its operand's constraint letter: ``h`` ``.b16``,
``r`` ``.b32``, ``l`` ``.b64``, ``q`` ``.b128``, and ``f``/``d`` ``.f32``/``.f64`` below sm_100,
untyped ``.b32``/``.b64`` from sm_100 on (``float_letters_typed``). Families the grammar judges
are checked by its verdict (``StatementAnalysis.verdict``); the others by their family's
signature (``ptxlint.ptx.instructions.operand_types``) with ``register_fits``.

What the answer depends on beyond the statement is passed in: the target (``arch``, else the
lowest one the statement's guards admit), the toolkit whose ptxas decides where versions
disagree (``cuda_version``), and, for a 32-bit address register only, the file's syntax tree
(``parsed``, read through a callable so that a caller whose answer never needs it does not
read it: a rule outcome that read it is not memoised, ``ptxlint.rule_memo``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ptxlint.analysis.guards import model_dependent
from ptxlint.analysis.operand_access import reads_of, writes_of
from ptxlint.analysis.operand_summary import summary_of
from ptxlint.analysis.value_flow import holds_shared_address
from ptxlint.model import AsmStatement, Operand, PtxInstruction, PtxOperand
from ptxlint.ptx.address_bases import address_bases
from ptxlint.ptx.address_values import is_shared_offset
from ptxlint.ptx.grammar import Issue
from ptxlint.ptx.instructions import (
    REGISTER_CLASSES,
    TypeInfo,
    operand_types,
    register_fits,
    unknown_modifier,
)
from ptxlint.ptx.judge import float_letters_typed, judge_renamed
from ptxlint.ptx.toolkit import toolkit_accepts

if TYPE_CHECKING:
    from ptxlint.analysis.statement import StatementAnalysis

__all__ = [
    "NARROW_GLOBAL_CLAIM",
    "Misnumbered",
    "RegisterMismatch",
    "claimed_elsewhere",
    "floats_typed",
    "misnumbered",
    "register_mismatches",
]

# Register declarations nvcc writes for each letter, for the message.
_DECLARED = {"h": ".b16", "r": ".b32", "l": ".b64", "q": ".b128", "f": ".f32", "d": ".f64"}
# Instructions whose vector operands hold one register per element of the instruction type.
_ELEMENTWISE_VECTORS = frozenset({"ld", "ldu", "st", "atom", "red"})


# Plain classes (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class RegisterMismatch:
    """One place of an instruction whose register the instruction cannot take there: the
    template offsets, the asm operand its ``%N`` names (None: a guard's declared register, a
    special register), the message PTX206 gives, and, for an element of a vector, what makes
    it one with its neighbours (the vector, the letter and the type it misses). ``token`` is
    the ``%N`` where one names an operand; ``expected``/``relaxed`` the signature's type where
    the grammar does not judge the family (``typed`` how the grammar read ``"f"``/``"d"``
    where it does); ``address``: the ``%N`` makes up an address (``claimed_elsewhere``);
    ``runtime``: ptxas takes the register, and the defect shows only when the code runs
    (:data:`NARROW_GLOBAL_CLAIM`)."""

    __slots__ = ("instruction", "index", "token", "start", "end", "message", "vector",
                 "expected", "relaxed", "typed", "address", "runtime")

    def __init__(
        self, instruction: PtxInstruction, index: int | None, token: PtxOperand | None,
        start: int, end: int, message: str, vector: tuple[object, ...] | None = None,
        expected: TypeInfo | None = None, relaxed: bool = False, typed: bool = True,
        address: bool = False, runtime: bool = False,
    ) -> None:
        self.instruction = instruction
        self.index = index
        self.token = token
        self.start = start
        self.end = end
        self.message = message
        self.vector = vector
        self.expected = expected
        self.relaxed = relaxed
        self.typed = typed
        self.address = address
        self.runtime = runtime


class Misnumbered:
    """A ``%N`` that names the wrong operand: every reported mismatch the one unnamed operand
    ``operand`` would fit names asm operand ``index``."""

    __slots__ = ("index", "operand")

    def __init__(self, index: int, operand: Operand) -> None:
        self.index = index
        self.operand = operand


def floats_typed(analysis: StatementAnalysis, arch: int | None) -> bool:
    """Whether nvcc declares "f"/"d" as .f32/.f64 where this statement is compiled: below
    sm_100 (``arch``, else the lowest target its guards allow)."""
    if arch is not None:
        return float_letters_typed(arch)
    lowest = analysis.lowest_target  # PTX401's too: include guard left out
    return float_letters_typed(lowest.sm if lowest is not None else None)


def register_mismatches(
    statement: AsmStatement, analysis: StatementAnalysis, arch: int | None, cuda_version: object,
) -> tuple[RegisterMismatch, ...]:
    """Each place whose register the instruction cannot take, in template order, but for the
    address registers ``claimed_elsewhere`` (the caller asks, with the file's tree): not where
    the ``%N`` or its operand is another rule's defect (``register_type_root``), where a newer
    ptxas than ``cuda_version``'s takes it, or in an instruction that runs into the next one
    (PTX205)."""
    if not statement.extended or statement.opaque_sections:
        return ()
    found: list[RegisterMismatch] = []
    typed: bool | None = None
    # each judged instruction's verdict ("f"/"d" as float registers; None for an opaque
    # instruction or a spelling the grammar does not judge), PTX204's
    verdicts = analysis.verdicts
    for instruction, verdict in zip(statement.ptx.instructions, verdicts, strict=True):
        if instruction.opaque:
            continue
        if instruction.opcode in _NARROW_GLOBAL_FAMILIES:
            _narrow_global_addresses(statement, analysis, instruction, found)
        if verdict is not None:  # judged
            if typed is None:
                # without an "f"/"d" operand nvcc declares the same registers for every
                # target, and the verdicts are the same (``judge``): the guards' lowest
                # target is not asked, and the verdict is the one PTX204 read
                typed = (floats_typed(analysis, arch)
                         if summary_of(statement).float_operands else True)
            if not typed:
                verdict = analysis.verdict(instruction, typed)
            # most verdicts have no issue; an instruction whose operands run into the next
            # one's words (a missing ';' between pieces) is PTX205's defect
            if verdict.issues and not analysis.runs_together(instruction):
                _grammar_mismatches(statement, analysis, instruction, verdict.issues, typed,
                                    cuda_version, found)
            continue
        if unknown_modifier(instruction.opcode, instruction.modifiers) is not None:
            continue  # PTX204's business; the types are anyone's guess
        types = operand_types(instruction.opcode, instruction.modifiers)
        if types is None:
            continue
        for position, operand in enumerate(instruction.operands):
            if position >= len(types.types):
                break
            expected = types.types[position]
            if expected is None:
                continue
            for ref in _refs(operand, instruction.opcode in _ELEMENTWISE_VECTORS):
                mismatch = _signature_mismatch(statement, analysis, instruction, ref, expected,
                                               types.relaxed, types.names[position])
                if mismatch is not None and not analysis.runs_together(instruction):
                    found.append(mismatch)
    return tuple(found)


def _grammar_mismatches(
    statement: AsmStatement, analysis: StatementAnalysis, instruction: PtxInstruction,
    issues: tuple[Issue, ...], typed: bool, cuda_version: object,
    found: list[RegisterMismatch],
) -> None:
    for issue in issues:
        if issue.kind != "type" or toolkit_accepts(issue, cuda_version, analysis.guards):
            continue  # (a newer ptxas than the configured one's verdict: not this one's)
        if analysis.register_type_root(issue.start, issue.end) is not None:
            continue  # the operand or its %N is the defect (PTX001, 002, 004, 005, 007)
        message = issue.message
        index = None
        vector: tuple[object, ...] | None = None
        ref = _ref_at(instruction.operands, issue.start, issue.end)
        if ref is None and instruction.predicate is not None:
            guard = instruction.predicate.register  # "the guard ... must be a .pred"
            if guard.kind == "ref" and (guard.start, guard.end) == (issue.start, issue.end):
                ref = guard
        named = ref is not None and ref.ref is not None and ref.ref < len(statement.operands)
        address = named and ref is not None and _in_address(instruction.operands, ref)
        if named and ref is not None and ref.ref is not None:
            index = ref.ref
            letter = statement.operands[ref.ref].constraint.letters
            declared = _DECLARED.get(letter, "")
            if letter in ("f", "d") and typed:
                declared += " register below sm_100"
            else:
                declared += " register"
            wanted = message.split(' but ', 1)[1]
            message = (f"'{ref.text}' is operand {ref.ref} with constraint '{letter}' (a "
                       f"{declared}), but {wanted}")
            holder = _vector_around(instruction.operands, ref)
            if holder is not None:
                vector = (instruction.opcode_start, holder.start, letter, wanted)
        found.append(RegisterMismatch(
            instruction, index, ref if named else None, issue.start, issue.end, message,
            vector, typed=typed, address=address))


# The families whose .global address ptxas 13.0 takes from a 32-bit register without a word
# (cp.async, the bulk copies and reductions, the bulk prefetch, tensormap.replace), where the
# instructions ld, st, atom and the like stop at "32-bit addressing" (the grammar's verdict).
# A 32-bit register holds no global address's upper half: on an H200, cp.async.ca and
# cp.async.bulk given a cudaMalloc buffer's address in "r" faulted with an illegal memory
# access, where "l" copied every element (CUDA 13.0, sm_90a).
_NARROW_GLOBAL_FAMILIES = frozenset({"cp", "tensormap"})
# Words of PTX206's message for that claim, which ``ptxlint.verify`` reads to know that a clean
# compile does not refute it.
NARROW_GLOBAL_CLAIM = "ptxas takes the 32-bit register, and the address loses its upper half"


def _narrow_global_addresses(
    statement: AsmStatement, analysis: StatementAnalysis, instruction: PtxInstruction,
    found: list[RegisterMismatch],
) -> None:
    """The ``%N`` under a 32-bit letter (``h``, ``r``) that is the base of a ``.global``
    address of ``instruction`` (``[%1]``, ``[%1+16]``): a global address is 64 bits wide, and
    the upper half is lost. Not where the operand is another rule's defect (a pointer in
    ``"r"``: PTX004; its ``%N``: PTX001, PTX007), nor an instruction that runs into the next."""
    if analysis.runs_together(instruction) or analysis.space_unknown(instruction):
        return  # (PTX205's; a state space no form spells, PTX204's: which is global unknown)
    operands = statement.operands
    # the template's address bases (ptx.address_bases, PTX301's too): a %N named in the address
    for use, index, ref in address_bases(statement.ptx):
        if (use.instruction is not instruction or use.space != "global" or ref.kind != "ref"
                or index >= len(operands)):
            continue
        constraint = operands[index].constraint
        if constraint.opaque or constraint.letters not in ("h", "r"):
            continue
        if analysis.register_type_root(ref.start, ref.end) is not None:
            continue
        position = next(i for i, o in enumerate(instruction.operands) if o is use.operand) + 1
        letter = constraint.letters
        found.append(RegisterMismatch(
            instruction, index, ref, ref.start, ref.end,
            f"'{ref.text}' is operand {index} with constraint '{letter}' (a "
            f"{_DECLARED[letter]} register), but the .global address of operand {position} of "
            f"'{instruction.mnemonic}' is 64 bits wide: {NARROW_GLOBAL_CLAIM}, so the access "
            "reaches another address (an H200 faults: illegal memory access); pass the "
            "pointer in 'l'", address=True, runtime=True))


def _signature_mismatch(
    statement: AsmStatement, analysis: StatementAnalysis, instruction: PtxInstruction,
    ref: PtxOperand, expected: TypeInfo, relaxed: bool, type_name: str,
) -> RegisterMismatch | None:
    if ref.ref is None or ref.ref >= len(statement.operands):
        return None
    if analysis.register_type_root(ref.start, ref.end) is not None:
        return None  # the operand or its %N is the defect (PTX001, 002, 004, 005, 007)
    constraint = statement.operands[ref.ref].constraint
    letter = constraint.letters
    if constraint.opaque or len(letter) != 1 or letter not in REGISTER_CLASSES:
        return None
    if register_fits(REGISTER_CLASSES[letter], expected, relaxed):
        return None
    return RegisterMismatch(
        instruction, ref.ref, ref, ref.start, ref.end,
        f"'{ref.text}' is operand {ref.ref} with constraint '{letter}' "
        f"(a {_DECLARED[letter]} register), but '{instruction.mnemonic}' takes .{type_name} here",
        expected=expected, relaxed=relaxed)


def claimed_elsewhere(
    statement: AsmStatement, analysis: StatementAnalysis, mismatch: RegisterMismatch,
    parsed: Callable[[], object | None],
) -> bool:
    """An address register whose C++ value another rule reports as the defect, or may be fine
    in: a pointer where the guards may mean a 32-bit build (PTX004 is silent there too), or a
    shared-window offset used as a generic or global address (PTX301, which follows it through
    the file's functions: asked only where a finding is at stake, so that most outcomes stay
    memoised)."""
    if not mismatch.address or mismatch.index is None:
        return False
    operand = statement.operands[mismatch.index]
    ctype = operand.ctype
    # (a value nvcc refuses under its letter, a pointer in "r", is PTX004's root: asked before)
    if ctype is not None and model_dependent(ctype) and analysis.data_model_guarded:
        return True  # maybe a 32-bit build, where a pointer is a 32-bit address (PTX004's)
    if is_shared_offset(operand):
        return True
    if ctype is not None and ctype.kind != "integer":
        return False
    return holds_shared_address(statement, operand, parsed())


def misnumbered(
    statement: AsmStatement, analysis: StatementAnalysis,
    mismatches: tuple[RegisterMismatch, ...], parsed: Callable[[], object | None],
) -> Misnumbered | None:
    """The ``%N`` that names the wrong operand: where the reported mismatches (``mismatches``
    less those ``claimed_elsewhere``) that an operand PTX009 would report fits, by the same
    test and in the place's role (a place read: an input or a ``+`` output; a place written:
    an output), all belong to one ``%N`` number, and only one such operand fits any of them
    (``add.u32 %0, %1, %1;`` given ``"l"(w), "r"(v)``: ``%2``; ``st.global.u32 [%1], %1;``
    given ``"l"(p), "r"(v)``: ``%0``). None where two numbers or two operands take part."""
    # (a 32-bit global address is no register another operand's letter would fit better)
    named = [m for m in mismatches
             if m.token is not None and m.index is not None and not m.runtime]
    if not named:
        return None
    candidates = _candidates(statement, analysis)
    if not candidates:
        return None
    found: tuple[int, Operand] | None = None
    # the elements of one vector that miss the same way (one letter, one type: a wgmma's 128
    # accumulators) fit an operand alike: judged once
    by_vector: dict[tuple[object, ...], bool] = {}
    for mismatch in named:
        index = mismatch.index
        assert index is not None
        for operand in candidates:
            fits: bool | None
            if mismatch.vector is None:
                fits = _fits(statement, mismatch, operand)
            else:
                key = (*mismatch.vector, operand.index)
                fits = by_vector.get(key)
                if fits is None:
                    fits = by_vector[key] = _fits(statement, mismatch, operand)
            # only now, and only of an address register that takes part, the value flow
            if not fits or claimed_elsewhere(statement, analysis, mismatch, parsed):
                continue
            if found is None:
                found = (index, operand)
            elif found[0] != index or found[1] is not operand:
                return None  # two %N, or two operands: which was meant is not known
    return Misnumbered(*found) if found is not None else None


def _candidates(statement: AsmStatement, analysis: StatementAnalysis) -> list[Operand]:
    """The operands no ``%N`` names that PTX009 would report (no other root claims them),
    under one register letter that is no defect of its own (PTX002, PTX004, PTX005)."""
    if analysis.stray_refs or analysis.binding_mismatch is not None:
        return []  # PTX001's or PTX501's: the numbering itself is off
    meant = [m[1] for m in (analysis.misdirected_write, analysis.misdirected_read) if m]
    found = []
    for operand in analysis.unreferenced_operands:
        c = operand.constraint
        if c.opaque or c.letters not in REGISTER_CLASSES or any(operand is m for m in meant):
            continue
        index = operand.index
        if (index in analysis.vector_lacks or analysis.operand_root(index) is not None
                or analysis.size_misfit(index) is not None
                or index in analysis.llvm_width_misfits):
            continue
        found.append(operand)
    return found


def _fits(statement: AsmStatement, mismatch: RegisterMismatch, operand: Operand) -> bool:
    """Whether ``operand``'s register fits the place of ``mismatch`` in its role and by PTX206's
    own test: the grammar's verdict with that one ``%N`` naming it, or the signature's
    ``register_fits``."""
    token = mismatch.token
    assert token is not None and mismatch.index is not None
    if not _role_fits(statement, mismatch.index, token, operand):
        return False
    if mismatch.expected is not None:
        return register_fits(REGISTER_CLASSES[operand.constraint.letters], mismatch.expected,
                             mismatch.relaxed)
    verdict = judge_renamed(statement, mismatch.instruction, mismatch.typed, token,
                            operand.index)
    return verdict.speaks and not any(
        (i.start, i.end) == (mismatch.start, mismatch.end) for i in verdict.issues)


def _role_fits(statement: AsmStatement, index: int, token: PtxOperand, operand: Operand) -> bool:
    """A place read takes an input or a ``+`` output; a place written, an output."""
    at = (token.start, token.end)
    written = any((a.operand.start, a.operand.end) == at for a in writes_of(statement, index))
    read = any((a.operand.start, a.operand.end) == at for a in reads_of(statement, index))
    modifiers = operand.constraint.modifiers
    if operand.role == "input":
        return read and not written
    if "+" in modifiers:
        return read or written
    return written and not read


def _refs(operand: PtxOperand, elementwise: bool) -> list[PtxOperand]:
    if operand.kind == "ref":
        return [operand] if not operand.negated else []
    if operand.kind == "pair" and operand.parts and operand.parts[0].kind == "ref":
        return [operand.parts[0]]  # `d|p`: the data half
    if operand.kind == "vector" and elementwise:
        return [p for p in operand.parts if p.kind == "ref"]
    return []


def _vector_around(operands: tuple[PtxOperand, ...], ref: PtxOperand) -> PtxOperand | None:
    """The vector operand ``ref`` is an element of, or None."""
    for operand in operands:
        if operand.kind == "vector" and any(part is ref for part in operand.parts):
            return operand
    return None


def _ref_at(operands: tuple[PtxOperand, ...], start: int, end: int) -> PtxOperand | None:
    for operand in operands:
        if operand.start == start and operand.end == end:
            return operand
        found = _ref_at(operand.parts, start, end)
        if found is not None:
            return found
    return None


def _in_address(operands: tuple[PtxOperand, ...], ref: PtxOperand) -> bool:
    """Whether ``ref`` sits inside an address ``[...]`` of the instruction."""
    return any(o.kind == "address" and o.start <= ref.start and ref.end <= o.end
               for o in operands)
