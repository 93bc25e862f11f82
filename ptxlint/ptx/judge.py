"""The grammar's verdict on an instruction of an asm statement, as the rules see it.

:func:`judge` resolves each operand the way nvcc will declare it (a constraint letter's register
class, an ``"n"`` immediate's value, a ``.reg`` declared in the template) and asks
:func:`ptxlint.ptx.grammar.check`. PTX204, PTX206, PTX207, PTX401 and hover all call it, so they
agree on one model.

A verdict depends on the instruction (part of the template's parse, which the engine shares
between every statement that spells the same template), on the template's ``.reg``
declarations, and on what each asm operand's constraint says (its letter; an ``"n"`` operand's
expression). Generated code repeats a few hundred templates over tens of thousands of
statements, so a verdict is memoised on (the instruction object, those constraint facts): a
repeat costs one pass over the statement's operands, not an operand class per PTX operand and
a grammar match. The memo holds the instructions it is keyed by (so their ids stay theirs) and
is bounded (``_VERDICTS_MAX``). A first verdict classes a ``%N`` by a list of the asm operands'
classes, shared by the statements that spell the same constraints (no hash of the instruction:
every template of CUTLASS's GMMA header is distinct, each with 130 operands), and the classes
it hands out are shared objects.

nvcc declares ``"f"``/``"d"`` operands as ``.f32``/``.f64`` registers below sm_100 and as
untyped ``.b32``/``.b64`` from sm_100 on (nvcc 13.0, measured), so a verdict depends on the
target: ``float_registers`` says which declaration to assume.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ptxlint import file_memos
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import AsmStatement, PtxInstruction, PtxOperand
from ptxlint.ptx.effects import special_register_type
from ptxlint.ptx.grammar import OperandClass, RefClasses, Verdict, check, immediate_class
from ptxlint.ptx.versions import NEWEST_KNOWN, ptx_for_cuda

__all__ = ["DECLARED", "judge", "judge_renamed", "operand_class", "float_letters_typed"]

# What nvcc declares for each constraint letter below sm_100; from sm_100 "f"/"d" are bits.
DECLARED: dict[str, str] = {"h": "b16", "r": "b32", "l": "b64", "q": "b128", "f": "f32",
                            "d": "f64"}
_UNTYPED_FLOAT = {"f": "b32", "d": "b64"}
_REG_DECL = on_first_use(r"\.reg\s+\.(\w+)\s+(.*)", re.S)
_CONST_INT = on_first_use(r"\s*\(?\s*(-?(?:0[xX][0-9A-Fa-f]+|[0-9]+))[uUlL]*\s*\)?\s*\Z")


def float_letters_typed(sm: int | None) -> bool:
    """Whether nvcc declares "f"/"d" operands as .f32/.f64 for this target (below sm_100)."""
    return sm is None or sm < 100


def _declared_registers(statement: AsmStatement) -> dict[str, str]:
    out: dict[str, str] = {}
    for directive in statement.ptx.directives:
        if directive.name != ".reg":
            continue
        m = _REG_DECL().match(directive.text)
        if m is None:
            continue
        for name in directive.declared:
            base = name.split("<", 1)[0]
            out[base] = m.group(1)
    return out


# The classes operand_class gives, made once: a wgmma asks for 128 register operands, and a
# shared class lets the grammar skip an element that is the same as the one before it.
_UNKNOWN = OperandClass("unknown")
_UNTYPED = OperandClass("reg", None)
_TYPED_CLASS = {letter: OperandClass("reg", type_) for letter, type_ in DECLARED.items()}
_BITS_CLASS = {letter: OperandClass("reg", type_) for letter, type_ in _UNTYPED_FLOAT.items()}


def _immediate(expression: str | None) -> OperandClass:
    """The class of an ``"n"`` operand: an integer immediate, of the value its expression
    spells where it is a literal."""
    m = _CONST_INT().match(expression or "")
    return OperandClass("imm", "int", int(m.group(1), 0) if m else None)


def operand_class(
    statement: AsmStatement, operand: PtxOperand, typed_floats: bool,
    registers: dict[str, str] | None = None,
) -> OperandClass:
    kind = operand.kind
    if kind == "ref":
        ref = operand.ref
        if ref is None or ref >= len(statement.operands):
            return _UNKNOWN
        asm_operand = statement.operands[ref]
        constraint = asm_operand.constraint
        letters = constraint.letters
        if constraint.opaque or len(letters) != 1:
            return _UNKNOWN
        if letters == "n":
            return _immediate(asm_operand.expression)
        if not typed_floats and letters in _BITS_CLASS:
            return _BITS_CLASS[letters]
        return _TYPED_CLASS.get(letters, _UNKNOWN)
    if kind == "immediate":
        return immediate_class(operand.text)
    if kind == "register":
        if registers is None:
            registers = _declared_registers(statement)
        name = operand.text.lstrip("%")
        for key in (operand.text, name, "%" + name):
            if key in registers:
                return OperandClass("reg", registers[key])
        return _UNTYPED
    if kind == "special":
        return special_register_class(operand)
    return _UNKNOWN


def special_register_class(operand: PtxOperand) -> OperandClass:
    """The class of a special-register operand: a register of the type a ``mov`` of it must
    have (``ptxlint.ptx.effects.special_register_type``), untyped where that is not one."""
    found = _SPECIAL_CLASSES.get(operand.text)
    if found is None:
        type_ = special_register_type(operand.text)
        found = _SPECIAL_CLASSES[operand.text] = (
            OperandClass("reg", type_) if type_ is not None else _UNTYPED)
    return found


# A special register's class by its spelling (a few dozen spellings in all).
_SPECIAL_CLASSES: dict[str, OperandClass] = {}


# The PTX ISA version (x10, as CCCL's __cccl_ptx_isa writes it) whose forms the grammar covers,
# the newest known toolkit's; code guarded by a newer one (`__cccl_ptx_isa >= 940`) is written
# for a newer toolkit, whose forms the grammar may not have, and is not judged.
KNOWN_PTX_ISA = (ptx_for_cuda(NEWEST_KNOWN) or 0) * 10
_PTX_ISA_GUARD = on_first_use(r"__cccl_ptx_isa\s*(>=|>)\s*(\d+)")


def newer_ptx_isa(statement: AsmStatement) -> bool:
    """Some guard of the statement requires a PTX ISA newer than the grammar's."""
    return _newer_ptx_isa(statement.context.guards)


@lru_cache(maxsize=1024)
def _newer_ptx_isa(guards: tuple[str, ...]) -> bool:
    """Kept per chain of guards, which the statements of a function share: each instruction
    judged asks (a regular expression over every guard: 5,680 times over the CUDA headers)."""
    for guard in guards:
        for op, number in _PTX_ISA_GUARD().findall(guard):
            if int(number) + (1 if op == ">" else 0) > KNOWN_PTX_ISA:
                return True
    return False


def judge(statement: AsmStatement, instruction: PtxInstruction, typed_floats: bool = True
          ) -> Verdict:
    """The grammar's verdict on ``instruction`` of ``statement``, ``"f"``/``"d"`` read as
    float registers (``typed_floats``, below sm_100) or as bits. A statement guarded by a PTX
    ISA newer than the grammar's (``__cccl_ptx_isa >= 920``) abstains."""
    key = (id(statement), id(instruction), typed_floats)
    seen = _RECENT.get(key)
    if seen is not None and seen[0] is statement and seen[1] is instruction:
        return seen[2]  # PTX204, PTX206 and PTX207 ask of the same instruction in turn
    if newer_ptx_isa(statement):
        verdict = Verdict("abstain")
    else:
        refs = _ref_classes(statement)
        if not typed_floats and not refs.floats:
            # no "f"/"d" operand: nvcc's declarations, and so the verdict, are the same either
            # way (PTX206 asks sm_100+ code as bits: 1,430 of the CUDA headers' instructions)
            typed_floats = True
        registers, declared = (_registers_of(statement) if statement.ptx.directives
                               else _NO_REGISTERS)
        # the statements that spell the same constraints share one _RefClasses (_BY_KEY): its
        # identity stands for its key, which a wgmma's 130 operands made costly to hash twice
        memo_key = (id(instruction), typed_floats, id(refs), declared)
        known = _VERDICTS.get(memo_key)
        if known is not None and known[0] is instruction and known[1] is refs:
            verdict = known[2]
        else:
            classes = refs.typed if typed_floats else refs.bits()
            floats = typed_floats

            def other(operand: PtxOperand) -> OperandClass:
                return operand_class(statement, operand, floats, registers)

            # an aggregate (address, vector, pair, sum) is no register or immediate itself
            verdict = check(instruction, RefClasses(classes, other))
            if len(_VERDICTS) >= _VERDICTS_MAX:
                _VERDICTS.clear()
            _VERDICTS[memo_key] = (instruction, refs, verdict)
    if len(_RECENT) >= 64:
        _RECENT.clear()
    _RECENT[key] = (statement, instruction, verdict)  # held, so the ids stay theirs
    return verdict


def judge_renamed(
    statement: AsmStatement, instruction: PtxInstruction, typed_floats: bool, token: PtxOperand,
    instead: int,
) -> Verdict:
    """:func:`judge`'s verdict on ``instruction`` were its ``%N`` ``token`` (one place, not
    every ``%N`` of the same number) to name asm operand ``instead``: whether that operand's
    register fits the place by the grammar's own test (a ``%N`` of the wrong register type
    that one unnamed operand would fit: ``ptxlint.analysis.register_types``). Not memoised:
    asked only of a statement with both a type issue and an operand no ``%N`` names."""
    refs = _ref_classes(statement)
    if not typed_floats and not refs.floats:
        typed_floats = True  # as judge: no "f"/"d" operand reads the same either way
    classes = refs.typed if typed_floats else refs.bits()
    registers = _registers_of(statement)[0] if statement.ptx.directives else {}
    named = classes[instead] if instead < len(classes) else _UNKNOWN
    base = RefClasses(classes, lambda o: operand_class(statement, o, typed_floats, registers))

    def resolve(operand: PtxOperand) -> OperandClass:
        # the place itself, by its offsets (the grammar hands the parse's own objects)
        if operand.kind == "ref" and (operand.start, operand.end) == (token.start, token.end):
            return named
        return base(operand)

    # a plain function, not RefClasses: the checker asks it of every vector element too
    return check(instruction, resolve)


# The verdicts of the last few (statement, instruction) pairs, by identity: the rules run
# statement by statement, each asking the same question.
_RECENT: dict[tuple[int, int, bool], tuple[AsmStatement, PtxInstruction, Verdict]] = {}
file_memos.register(_RECENT.clear)

# What ``operand_class`` reads of each asm operand, one item per operand: its letters, or
# ("n", its expression) for an "n" immediate, or None for an opaque constraint (``_RefClasses``).
_Facts = tuple[str | tuple[str, str | None] | None, ...]

# The registers a template declares, as a dict and as the key of the verdicts memo (the parser
# hands templates that spell the same instruction at the same place one instruction object,
# and a register operand's class is what its own template declares).
_Registers = tuple[dict[str, str], tuple[tuple[str, str], ...]]
_NO_REGISTERS: _Registers = ({}, ())

# Verdicts by (instruction identity, typed floats, the identity of the statement's constraint
# classes, the template's declared registers); the instruction and the classes are held, so
# their ids stay theirs.
_VERDICTS: dict[tuple[int, bool, int, tuple[tuple[str, str], ...]],
                tuple[PtxInstruction, _RefClasses, Verdict]] = {}
_VERDICTS_MAX = 4096


def _registers_of(statement: AsmStatement) -> _Registers:
    """``_declared_registers``, kept for the last template parse: each of its instructions asks,
    and reading every directive again for each made a long template quadratic."""
    ptx = statement.ptx
    for last in _LAST_REGISTERS[:1]:  # one read (threads share it): the entry, or none
        if last[0] is ptx:
            return last[1]
    registers = _declared_registers(statement)
    found = (registers, tuple(registers.items()))
    _LAST_REGISTERS[:] = [(ptx, found)]
    return found


_LAST_REGISTERS: list[tuple[object, _Registers]] = []
file_memos.register(_LAST_REGISTERS.clear)


class _RefClasses:
    """``operand_class`` of a ``%N`` naming each asm operand of a statement, with the key of the
    verdicts memo (``key``: what decides the classes, one item per operand: its letters, ("n",
    its expression) for an immediate, None for an opaque constraint) and whether some operand is
    "f"/"d" (``floats``: only then do the bits reading's classes differ). A function of the key,
    so statements that spell the same constraints share one (``_BY_KEY``).

    The key is read in one pass over the operands and the classes are made once per key, where
    a tuple of facts, a list of classes from it and a search for a float letter were three
    passes per statement: CUTLASS's include/ spells 730 keys over 3,212 judged statements, and
    judging every instruction its rules ask about (cold memos) went from 190-198 ms to 162-166
    ms of CPU (the CUDA headers: 103-105 ms to 87-96 ms)."""

    __slots__ = ("key", "typed", "floats", "_bits")

    def __init__(self, key: _Facts) -> None:
        typed: list[OperandClass] = []
        floats = False
        for item in key:
            if item is None:
                typed.append(_UNKNOWN)
            elif isinstance(item, tuple):
                typed.append(_immediate(item[1]))
            else:
                typed.append(_TYPED_CLASS.get(item, _UNKNOWN))
                if item in _BITS_CLASS:
                    floats = True
        self.key = key
        self.typed = typed
        self.floats = floats
        self._bits: list[OperandClass] | None = None

    def bits(self) -> list[OperandClass]:
        """The classes where "f"/"d" operands are declared as bits (sm_100 on)."""
        if self._bits is None:
            self._bits = [_BITS_CLASS.get(item, cls) if isinstance(item, str) else cls
                          for item, cls in zip(self.key, self.typed, strict=True)]
        return self._bits


def _ref_classes(statement: AsmStatement) -> _RefClasses:
    """The statement's ``_RefClasses``: its key read in one pass over the operands, the classes
    by that key. Kept for the last statement: each of its instructions asks."""
    for last in _LAST_CLASSES[:1]:  # one read (threads share it): the entry, or none
        if last[0] is statement:
            return last[1]
    key: _Facts = tuple([
        None if c.opaque else ("n", o.expression) if c.letters == "n" else c.letters
        for o in statement.operands for c in (o.constraint,)
    ])
    found = _BY_KEY.get(key)
    if found is None:
        if len(_BY_KEY) >= _BY_KEY_MAX:
            _BY_KEY.clear()
        found = _BY_KEY[key] = _RefClasses(key)
    _LAST_CLASSES[:] = [(statement, found)]
    return found


# The classes by constraint key (``_RefClasses``): CUTLASS's GMMA statements spell a few
# constraint lists of 130 operands each. Bounded: cleared when full.
_BY_KEY: dict[_Facts, _RefClasses] = {}
_BY_KEY_MAX = 1024
_LAST_CLASSES: list[tuple[AsmStatement, _RefClasses]] = []
file_memos.register(_LAST_CLASSES.clear)
