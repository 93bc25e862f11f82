"""What an operand of an instruction is, as the grammar judges it: its class (register of a type,
immediate, address, label, vector), whether a literal or a register type fits an operand's
type, and the verdict and issues the checker returns."""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from typing import NamedTuple

from ptxlint.lazy_regex import on_first_use
from ptxlint.model import PtxOperand
from ptxlint.ptx.forms import Form, Need


class OperandClass(NamedTuple):
    """What an operand is, as far as the caller knows: a register of a PTX type (``type`` None
    when unknown), an immediate (``value`` None when unknown; ``type`` the literal's class:
    "int", "f32" for ``0f`` bit patterns, "f64" for ``0d`` ones and decimal floats, None when
    unknown), or unknown altogether."""

    kind: str  # "reg" | "imm" | "unknown"
    type: str | None = None
    value: int | None = None


Resolver = Callable[[PtxOperand], OperandClass]


# PTX integer literals (PTX ISA "Constants"): hexadecimal, binary, octal (a leading 0, digits 0-7
# only: "08" is no literal at all) and decimal, optionally unsigned.
_INT = on_first_use(r"-?(?:0[xX][0-9A-Fa-f]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)[uU]?\Z")


# Floating-point literals: ``0f`` + 8 hex digits is a .f32 bit pattern, ``0d`` + 16 a .f64 one;
# a decimal with a point or an exponent is a .f64 value (PTX ISA "Floating-Point Constants").
_F32_LITERAL = on_first_use(r"0[fF][0-9A-Fa-f]{8}\Z")


_F64_LITERAL = on_first_use(r"0[dD][0-9A-Fa-f]{16}\Z|-?[0-9]+(?:\.[0-9]*(?:[eE][+-]?[0-9]+)?"
                          r"|[eE][+-]?[0-9]+)\Z")


def immediate_class(text: str) -> OperandClass:
    """The class of a literal operand: an integer (with its value), a .f32 or .f64
    floating-point literal, or an immediate of unknown kind."""
    value = parse_immediate(text)
    if value is not None:
        return OperandClass("imm", "int", value)
    if _F32_LITERAL().match(text):
        return OperandClass("imm", "f32")
    if _F64_LITERAL().match(text):
        return OperandClass("imm", "f64")
    return OperandClass("imm")


def float_literal_value(text: str) -> float | None:
    """The real value of a floating-point literal (``0f3F800000``, ``0d3FF0000000000000``,
    ``1.5``, ``1e0``), or None for any other text."""
    if _F32_LITERAL().match(text):
        return float(struct.unpack(">f", bytes.fromhex(text[2:]))[0])
    if text[:2] in ("0d", "0D") and _F64_LITERAL().match(text):
        return float(struct.unpack(">d", bytes.fromhex(text[2:]))[0])
    if _F64_LITERAL().match(text):
        return float(text)
    return None


def literal_fits(literal: str, operand: str) -> bool:
    """Whether ptxas 13.0 takes a literal of class ``literal`` ("int", "f32", "f64") for an
    operand of type ``.operand`` (measured, "Arguments mismatch" otherwise): an integer for
    integer, bit and predicate types; a floating-point literal for .f32/.f64 (either size)
    and for the bit type of its own size (``mov.b32 %r, 0f3F800000``; ``1.0`` is 64-bit); none
    for .f16/.bf16 or the packed types (``add.f16x2 d, a, 1``: Arguments mismatch)."""
    if operand == "int":  # an integer register of any size (isspacep's address)
        return literal == "int"
    bits = TYPE_BITS.get(operand)
    if bits is None:
        return True
    kind, size = bits
    if literal == "int":
        return kind in "busp"
    if kind == "f":
        return size >= 32
    return kind == "b" and size == (32 if literal == "f32" else 64)


def parse_immediate(text: str) -> int | None:
    if not _INT().match(text):
        return None
    body = text.rstrip("uU")
    negative = body.startswith("-")
    body = body.lstrip("-")
    if body[:2] in ("0x", "0X"):
        value = int(body, 16)
    elif body[:2] in ("0b", "0B"):
        value = int(body[2:], 2)
    elif len(body) > 1 and body[0] == "0":
        value = int(body, 8)
    else:
        value = int(body, 10)
    return -value if negative else value


class Issue(NamedTuple):
    """One thing the grammar finds wrong with an instruction, at template offsets."""

    kind: str  # "opcode" | "modifier" | "combination" | "operand" | "type"
    # | "order" (a warning: the vector qualifier not right before the type)
    message: str
    start: int  # template offsets
    end: int
    severity: str = "error"  # "error" | "warning"
    # the CUDA toolkit (major, minor) whose ptxas and newer accept the instruction all the same:
    # an error only for older ones (the rules compare it with cuda-version)
    toolkit: tuple[int, int] | None = None
    # the word an unknown-modifier issue (kind "modifier") names, without its '.': what the
    # rules offer a near spelling for, so that none reads it back out of the message
    word: str | None = None
    # the known modifier word (without its '.') a "combination" issue is about: one out of
    # place, or one that applies to no form with the others (None where a word is missing):
    # where it is a state space, which space an address is read in is the misspelling itself
    about: str | None = None
    # a lone register where the form takes a vector of exactly one ('ldmatrix .x1'): ptxas
    # asks for it in braces ("Vector of size 1 is expected"), a fix PTX207 offers
    one_element_vector: bool = False
    # ptxas assembles the instruction all the same, and moves other data than its operands say
    # (a surface store's vector with no .v2/.v4: the first element alone): a defect of the
    # program, not of its assembly (benchmarks/ptxas_agreement.py does not count it as a reject)
    ptxas_takes: bool = False
    # a vector with fewer elements than the form takes: how many it lacks (the operands no %N
    # names beside it are those elements: ptxlint.analysis.roots, "short-vector")
    short_by: int = 0
    # an issue of the registers' types where "f"/"d" are read as .f32/.f64: nvcc declares them
    # so below sm_100 only (.b32/.b64 from sm_100 on), so a statement built for sm_100+ only is
    # judged again with them as bits (an integer literal beside an "f" register, which ptxas
    # 13.0 takes in 'mov.b64 %rd1, {%f1, 16}' where nvcc declared %f1 .b32)
    typed_floats: bool = False
    # an address where the form takes none, or none where it takes one: the operands are out
    # of the form's order (an ``stmatrix`` written in ``ldmatrix``'s shape, ``ld [%1], %0``),
    # so which of them the instruction reads and which it writes is a guess
    misplaced: bool = False


class Verdict(NamedTuple):
    """The grammar's judgement of one instruction: ok, error (with its issues) or abstain, and the
    form it matched with the target that form needs."""

    status: str  # "ok" | "error" | "abstain"
    issues: tuple[Issue, ...] = ()
    form: Form | None = None
    need: Need = Need()
    written: tuple[int, ...] = ()  # operand positions the form writes

    @property
    def speaks(self) -> bool:
        return self.status != "abstain"

    @property
    def no_form_spells(self) -> bool:
        """The spelling is an error for every toolkit: not a form ptxas takes though the ISA
        does not document it (a warning), nor one only a newer ptxas takes."""
        return self.status == "error" and any(
            issue.kind in ("modifier", "combination") and issue.severity == "error"
            and issue.toolkit is None
            for issue in self.issues)

    @property
    def misplaced(self) -> bool:
        """The operands are out of the form's order (:attr:`Issue.misplaced`)."""
        return self.status == "error" and any(issue.misplaced for issue in self.issues)


ABSTAIN = Verdict("abstain")


# Type words ptxas treats as the same register class when checking operands.
TYPE_BITS: dict[str, tuple[str, int]] = {}


for _n in (8, 16, 32, 64):
    for _k in "bus":
        TYPE_BITS[f"{_k}{_n}"] = (_k, _n)


TYPE_BITS.update(
    b128=("b", 128), f16=("f", 16), bf16=("f", 16), f32=("f", 32), f64=("f", 64),
    f16x2=("x", 32), bf16x2=("x", 32), f32x2=("x", 64), tf32=("x", 32), pred=("p", 1),
    u16x2=("x", 32), s16x2=("x", 32), u8x4=("x", 32), s8x4=("x", 32),
    # packed narrow floats (cvt): held in bit registers of exactly their size
    e4m3x2=("x", 16), e5m2x2=("x", 16), e2m3x2=("x", 16), e3m2x2=("x", 16),
    ue8m0x2=("x", 16), e2m1x2=("x", 8), e2m1x4=("x", 16), e4m3x4=("x", 32),
    e5m2x4=("x", 32), e2m3x4=("x", 32), e3m2x4=("x", 32), ue5m3x2=("x", 16),
)


# The packs of integers: ptxas 13.0 takes a packed register of their size (.f16x2) for them,
# as for a plain integer operand, though no .u32/.s32 one.
_INTEGER_PACKS = frozenset({"u16x2", "s16x2", "u8x4", "s8x4"})


# Operand types for which ptxas 13.0 takes no wider register even in ld/st/cvt ("cvt.rn.bf16.f32
# %r1, %f2": Arguments mismatch, where .f16 takes a .b32 register).
_NO_WIDENING = frozenset({"bf16", "bf16x2", "tf32", "e4m3x2", "e5m2x2", "e2m3x2", "e3m2x2",
                          "ue8m0x2", "e2m1x2", "e2m1x4", "e4m3x4", "e5m2x4", "e2m3x4",
                          "e3m2x4", "ue5m3x2"})


def type_fits(register: str, operand: str, relaxed: bool, exact: bool = False,
              untyped: bool = False, typed: bool = False, fixed: bool = False) -> bool:
    """Whether a register declared ``.register`` may be an operand of type ``.operand``
    (ptxas 13.0, "Arguments mismatch"): bit registers fit any type of their size, float
    registers float and bit types of their size, integer registers integer and bit types of
    their size; ``relaxed`` (ld/st/cvt) also takes wider non-float registers, except for the
    types in ``_NO_WIDENING``; ``exact`` takes a register of the operand's size only, and a
    float register only for a float operand (ptxas rejects a .f32 register for a tf32
    destination), and a packed register (.f16x2) for a packed or bit operand only (mma's .s32
    accumulators take no .f16x2 register, cvt.pack's .b32 result does). ``untyped`` takes a
    bit register of the operand's size only (cvt.rs's random bits: a .u32 or .f32 register
    there is "Arguments mismatch"); ``typed`` the converse, no bit register (ptxas 13.0 takes
    st.bulk's 32-bit size from a .u32 or .s32 register and fails on a .b32 one, which 13.1
    takes). ``fixed``: an integer operand whose type the instruction fixes, not its type
    modifier, takes no packed register ('popc.b32 %hx1, a', 'shl.b32 d, a, %hx3', 'bar.sync
    %hx1': Arguments mismatch), where one of the instruction's type does ('add.u32 %hx1, a,
    b'). A packed type (and .bf16) takes a bit register or one of its own type only; a
    packed register is no float operand ('add.f32 d, %hx1, b', 'st.global.f32', 'setp.eq.f32':
    Arguments mismatch, as ptxas 13.0 says). (A vector's registers are judged as one register
    of ``vector_type``.)"""
    r = TYPE_BITS.get(register)
    o = TYPE_BITS.get(operand)
    if r is None or o is None:
        return True
    if untyped:
        return r[0] == "b" and r[1] == o[1]
    if typed and r[0] == "b":
        return False
    if fixed and r[0] == "x" and o[0] in "us":
        return False
    if r[0] == "x" and o[0] == "f":
        return False
    if r[0] == "x" and operand in _INTEGER_PACKS:
        return r[1] == o[1]  # 'add.u16x2 d, a, %hx': an .f16x2 register holds the halves
    if (o[0] == "x" or operand == "bf16") and r[0] != "b" and register != operand:
        # a packed operand (or .tf32, .bf16) takes a bit register or one of its own type:
        # ptxas 13.0 to 13.5 reject a .u32/.s32 one ('add.f16x2', 'cvt.rna.tf32.f32', the PTX
        # ISA 9.4 'mul.e4m3x4.e4m3x4.e4m3x4'), an .f16x2 one for .bf16x2 or .e4m3x4, and a
        # .u16/.s16/.f16 one for .bf16 ('setp.eq.bf16', 'cvt.rn.bf16.f32')
        return False
    if exact:  # (an integer register for a float operand, as below: 'cvt.f32.f16 f, %us1')
        return (r[1] == o[1] and r[0] != "p" and o[0] != "p" and (r[0] != "f" or o[0] == "f")
                and (r[0] not in "us" or o[0] != "f") and (r[0] != "x" or o[0] in "xb"))
    if operand in _NO_WIDENING:
        relaxed = False
    if r[0] == "p" or o[0] == "p":
        return r[0] == o[0]
    if r[0] == "f" and o[0] not in ("f", "b"):
        return False
    if r[0] in "us" and o[0] == "f":
        return False
    if relaxed and (r[0] == "b" or o[0] == "b" or (r[0] in "us" and o[0] in "us")):
        return r[1] >= o[1]
    return r[1] == o[1]


class VectorType(NamedTuple):
    """What ptxas makes of a vector's registers: the type it judges the vector as (None where
    an element's type is unknown), or the clash it rejects them for."""

    type: str | None
    clash: str = ""  # "sizes" | "kinds"


def vector_type(types: Sequence[str | None]) -> VectorType:
    """The type ptxas 13.0 gives a vector of registers of ``types`` (None: a register of
    unknown type) before it checks it as one operand (measured with typed registers on ld, st,
    mov, red, mma): registers of different sizes are "Incompatible elements of vector
    expression"; a bit register (.b32) takes the type of nothing and makes the vector a bit
    vector ('{%u0, %r1}' fits .f16x2, where '{%u0, %u1}' does not); a .u beside an .s register
    of its size makes one too; two other types side by side ('{%f0, %u1}', '{%u0, %hx1}', and
    beside a bit register as well) are "Vector with elements of different types are not
    allowed".

    A function of the distinct types alone: each is looked at once, where every register was
    (CUTLASS's include/ judges 4,907 vectors of 130,000 registers; a wgmma's accumulator of
    128 .f32 registers: 14.0 -> 1.4 us a call, timeit)."""
    sizes: set[int] = set()
    kinds: set[str] = set()
    bits = unknown = False
    for type_ in set(types):
        found = TYPE_BITS.get(type_) if type_ is not None else None
        if type_ is None or found is None:
            unknown = True
            continue
        sizes.add(found[1])
        if found[0] == "b":
            bits = True
        else:
            kinds.add(type_)
    if len(sizes) > 1:
        return VectorType(None, "sizes")
    signs = {TYPE_BITS[k][0] for k in kinds}
    if len(kinds) > 1 and not (len(kinds) == 2 and signs == {"u", "s"}):
        return VectorType(None, "kinds")
    if unknown or not sizes:
        return VectorType(None)
    [size] = sizes
    if bits or len(kinds) != 1:
        return VectorType(f"b{size}")
    [only] = kinds
    return VectorType(only)


# Register types ptxas 13.0 refuses an integer literal beside in one vector ("Vector with
# elements of different types are not allowed"), whatever the instruction's type: measured on
# mov.b64, st.v2/.v4 (.f32, .b32, .u32, .b16, .b64) and tex.grad with '{%f, 16}', '{%fd, 16}',
# a declared .f16 and .f16x2 register, hexadecimal and negative literals alike. A bit or
# integer register takes one ('{%r, 16}', '{%h, 16}'), and a bit register a float literal
# ('{%r, 0f41800000}').
_NO_INTEGER_BESIDE = frozenset({"f16", "f32", "f64", "f16x2"})


def literal_beside_float(classes: Sequence[OperandClass]) -> str | None:
    """The float type of a register in a vector of elements of ``classes`` that also holds an
    integer literal (ptxas rejects the vector), or None."""
    if not any(cls.kind == "imm" and cls.type == "int" for cls in classes):
        return None
    for cls in classes:
        if cls.kind == "reg" and cls.type in _NO_INTEGER_BESIDE:
            return cls.type
    return None
