"""Derive one inline-asm statement from a grammar form: template, constraints, effects.

This is PTX.jl's idea (an instruction written as one string; the template, the constraint
letters and the side effects follow from the opcode's parts and the argument types) applied to
ptxlint's grammar, which already knows each form's operands, types, state spaces and targets:

* a register operand of PTX type ``.T`` becomes a C++ value of the type nvcc binds to the
  letter of that size and class (``.u32`` -> ``uint32_t`` "r", ``.u64`` -> "l", ``.f32`` -> "f",
  ``.f64`` -> "d", the 16-bit types -> "h", ``.b128`` -> "q"); written operands are outputs;
* a predicate has no constraint letter: a ``.reg .pred`` declared inside braces carries it,
  set from a 32-bit value with ``setp.ne.u32`` or read back with ``selp.u32``;
* a vector or brace list is a C++ array, one asm operand per element;
* an immediate-only operand is a template parameter bound with "n" (and checked by a
  ``static_assert`` against the values the form admits);
* an address is taken in the state space the instruction names (``ptxlint.ptx.spaces``): a
  ``.shared`` one from a generic pointer through ``__cvta_generic_to_shared``, 32 bits, "r";
  a ``.global`` one through ``__cvta_generic_to_global``; a generic one as the pointer itself;
* ``volatile`` and the ``"memory"`` clobber come from ``ptxlint.ptx.effects``.

What a statement cannot say raises :class:`NotExpressible` naming what is missing: a vector
whose length depends on a modifier the string does not fix, a register of exactly 8 bits (no
constraint letter binds one), an address in a space a C++ pointer does not reach.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ptxlint.model import PtxInstruction, PtxOperand
from ptxlint.ptx import effects as isa_effects
from ptxlint.ptx import grammar
from ptxlint.ptx.grammar import OperandClass, OperandSpec, Values
from ptxlint.ptx.parser import parse_template
from ptxlint.ptx.spaces import SHARED_SPACES, address_uses
from ptxlint.value_class import value_class

from .select import Selected

__all__ = ["AsmOperand", "Derived", "NotExpressible", "Parameter", "derive"]


class NotExpressible(ValueError):
    """The form has an operand no inline-asm wrapper can bind; the message says which."""


# PTX type -> (C++ type, constraint letter). The 16-bit types (and the 8-bit ones, which PTX
# reads from 16-bit registers in the forms that take them) use "h"; packed pairs and quads of
# narrow values travel as their bits ("r" for 32, "l" for 64).
_SCALARS: dict[str, tuple[str, str]] = {
    **{t: ("uint16_t", "h") for t in ("b16", "u16", "f16", "bf16", "b8", "u8", "e2m1x2", "e4m3x2",
                                      "e5m2x2", "e2m3x2", "e3m2x2", "ue8m0x2", "e2m1x4")},
    **{t: ("int16_t", "h") for t in ("s16", "s8")},
    **{t: ("uint32_t", "r") for t in ("b32", "u32", "f16x2", "bf16x2", "tf32", "u16x2",
                                      "s16x2", "u8x4", "s8x4", "e4m3x4", "e5m2x4", "e2m3x4",
                                      "e3m2x4")},
    "s32": ("int32_t", "r"),
    "f32": ("float", "f"),
    **{t: ("uint64_t", "l") for t in ("b64", "u64", "f32x2", "int")},
    "s64": ("int64_t", "l"),
    "f64": ("double", "d"),
    "b128": ("unsigned __int128", "q"),
}
# A wider letter for the 8-bit types, tried when the form takes no 16-bit register for them.
_WIDER = {"b8": ("uint32_t", "r"), "u8": ("uint32_t", "r"), "s8": ("int32_t", "r")}
# 8-bit types: an operand of exactly 8 bits (``d:u8!``, the packed .e2m1x2) needs a .b8 register,
# which no constraint letter declares (ptxas 13.0 takes `cvt.u16.u8 %h, %c` to move it).
_BYTES = frozenset({"b8", "u8", "s8", "e2m1x2"})
_DECLARATION = re.compile(r"\.reg \.(\w+) (\w+);")
_DECLARED = {"h": "b16", "r": "b32", "l": "b64", "q": "b128", "f": "f32", "d": "f64"}


@value_class(slots=False)
class AsmOperand:
    """One operand of the asm statement: its constraint, the C++ expression bound to it, and
    the wrapper parameter (and array element, -1 for a scalar) it carries."""

    constraint: str  # "=r", "r", "n", ...
    expression: str
    param: str = ""
    element: int = -1

    @property
    def letter(self) -> str:
        return self.constraint.lstrip("=+&")


@value_class(slots=False)
class Parameter:
    """One parameter of the wrapper. ``kind``: "out" (written by the instruction), "in" (a
    value read), "inout" (an accumulator, read and written), "imm" (a template parameter),
    "addr" (a pointer in ``space``)."""

    name: str
    kind: str
    cxx: str  # the scalar C++ type ("uint32_t", "bool", "void*")
    ptx_type: str = ""  # the PTX type of the value, "" for addresses and immediates
    count: int = 0  # an array of this many, 0 for a scalar
    letter: str = ""
    values: Values | None = None  # what an immediate may be
    space: str = ""  # an address's state space ("generic", "shared", "global", ...)
    example: int = 0  # a value an immediate may take (the kernel instantiates with it)


@value_class(slots=False)
class Derived:
    """The derived statement: parameters, asm operands (outputs first), the template's PTX
    lines (operands as ``%N``), whether it needs braces, ``volatile`` and ``"memory"``, and the
    C++ statements before and after the asm (the predicate bits)."""

    selected: Selected
    params: tuple[Parameter, ...]
    outputs: tuple[AsmOperand, ...]
    inputs: tuple[AsmOperand, ...]
    lines: tuple[str, ...]
    braces: bool
    volatile: bool
    memory: bool
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()

    @property
    def template(self) -> str:
        if not self.braces:
            return self.lines[0]
        return "{\n" + "".join(f"  {line}\n" for line in self.lines) + "}"

    @property
    def constraints(self) -> tuple[str, ...]:
        return tuple(o.constraint for o in (*self.outputs, *self.inputs))


@dataclass
class _Builder:
    selected: Selected
    narrow: str  # how 8-bit types bind: "h" or "r"
    params: list[Parameter] = field(default_factory=list)
    outputs: list[AsmOperand] = field(default_factory=list)
    inputs: list[AsmOperand] = field(default_factory=list)
    declarations: list[str] = field(default_factory=list)
    pre: list[str] = field(default_factory=list)  # PTX before the instruction
    post: list[str] = field(default_factory=list)  # PTX after it
    before: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)
    names: set[str] = field(default_factory=set)

    def name(self, base: str) -> str:
        name, n = base, 1
        while name in self.names:
            name, n = f"{base}{n}", n + 1
        self.names.add(name)
        return name

    def next_input(self) -> str:
        taken = sum(p.kind == "in" for p in self.params)
        return _INPUT_NAMES[taken % len(_INPUT_NAMES)]

    def output(self, constraint: str, expression: str, param: str, element: int = -1) -> str:
        self.outputs.append(AsmOperand(constraint, expression, param, element))
        return f"\x01o{len(self.outputs) - 1}\x02"

    def input(self, constraint: str, expression: str, param: str, element: int = -1) -> str:
        self.inputs.append(AsmOperand(constraint, expression, param, element))
        return f"\x01i{len(self.inputs) - 1}\x02"

    def scalar_type(self, ptx_type: str, where: str) -> tuple[str, str]:
        if self.narrow == "r" and ptx_type in _WIDER:
            return _WIDER[ptx_type]
        found = _SCALARS.get(ptx_type)
        if found is None:
            raise NotExpressible(f"{where} is of type .{ptx_type}, which no constraint letter "
                                 "binds (a register of exactly that size)")
        return found

    def value(self, ptx_type: str, written: bool | str, param: str, where: str,
              element: int = -1, exact: bool = False) -> str:
        """The operand text of one register value bound to ``param`` (or its ``element``); a
        predicate goes through a ``.reg .pred`` of the braces, a register of exactly 8 bits
        through a ``.reg .b8`` converted from or to the 16-bit "h" value."""
        expression = param if element < 0 else f"{param}[{element}]"
        if ptx_type in _BYTES and (exact or ptx_type not in _WIDER):
            temp = f"c{len(self.declarations)}"
            self.declarations.append(f".reg .b8 {temp};")
            _, letter = self.scalar_type(ptx_type, where)  # "h", or "r" where narrow is
            wide = "u16" if letter == "h" else "u32"
            if written:
                out = self.output(f"={letter}", expression, param, element)
                self.post.append(f"cvt.{wide}.u8 {out}, {temp};")
            else:
                ref = self.input(letter, expression, param, element)
                self.pre.append(f"cvt.u8.{wide} {temp}, {ref};")
            return temp
        if ptx_type == "pred":
            temp = f"p{len(self.declarations)}"
            self.declarations.append(f".reg .pred {temp};")
            bits = expression.replace("[", "_").replace("]", "") + "_bits"
            if written:
                self.before.append(f"uint32_t {bits};")
                out = self.output("=r", bits, param, element)
                self.post.append(f"selp.u32 {out}, 1, 0, {temp};")
                self.after.append(f"{expression} = {bits} != 0;")
            else:
                ref = self.input("r", f"static_cast<uint32_t>({expression})", param, element)
                self.pre.append(f"setp.ne.u32 {temp}, {ref}, 0;")
            return temp
        _, letter = self.scalar_type(ptx_type, where)
        if written == "inout":
            return self.output(f"+{letter}", expression, param, element)
        if written:
            return self.output(f"={letter}", expression, param, element)
        return self.input(letter, expression, param, element)


def _type(spec: OperandSpec, binding: dict[str, str]) -> str:
    return binding.get(spec.type, spec.type)


def _cxx(b: _Builder, ptx_type: str, where: str) -> tuple[str, str]:
    if ptx_type == "pred":
        return "bool", ""
    return b.scalar_type(ptx_type, where)


def _example(values: Values) -> int:
    if values.choices:
        return max(values.choices)
    if values.low is not None:
        return values.low
    return values.step


def _operand(b: _Builder, spec: OperandSpec, position: int, space: str) -> str:
    binding = b.selected.binding
    where = f"operand {position + 1} of '{b.selected.mnemonic}'"
    if spec.kind == "sink":
        return "_"
    if spec.kind == "label":
        return _LABEL
    if spec.kind == "imm":
        name = b.name("N")
        example = _example(spec.values)
        # a value past int's range (fabric's 0xffffffff member mask) is an unsigned one
        cxx = "unsigned" if example > 0x7FFFFFFF else "int"
        b.params.append(Parameter(name, "imm", cxx, values=spec.values, example=example))
        return b.input("n", name, name)
    if spec.kind == "addr":
        return _address(b, spec, position, space, where)
    if spec.kind == "vec":
        assert spec.element is not None
        count = grammar.vector_count(spec.count, binding)
        if count is None:
            raise NotExpressible(f"{where} is a vector whose length depends on "
                                 f"'{spec.count}', which the opcode string does not fix")
        return "{" + ", ".join(_vector(b, spec.element, count, where)) + "}"
    if spec.kind == "pair":
        assert spec.element is not None
        data = _operand(b, spec.element, position, space)
        if not spec.needs_predicate:
            return data
        flag = b.name("pred")
        b.params.append(Parameter(flag, "out", "bool", "pred"))
        return f"{data}|{b.value('pred', True, flag, where)}"
    # a register, or a register-or-immediate: the wrapper passes a register
    ptx_type = _type(spec, binding)
    cxx, letter = _cxx(b, ptx_type, where)
    if spec.written:
        name = b.name("d")
        b.params.append(Parameter(name, "out", cxx, ptx_type, letter=letter))
    else:
        name = b.name(b.next_input())
        b.params.append(Parameter(name, "in", cxx, ptx_type, letter=letter))
    # a `strict` form (st.async) reads every operand by its exact size, as `d:T!` does
    return b.value(ptx_type, spec.written, name, where, exact=spec.exact or b.selected.form.strict)


# A label the template defines after the instruction. Braces scope it (PTX labels are local to
# their block), so every inlined copy has its own, as they scope the temporaries; GCC's ``%=``
# (nvcc expands it to a number of each statement's own) would do for the label alone.
_LABEL = "Lptxlint_next"

_INPUT_NAMES = ("a", "b", "c", "e", "g", "h", "k", "m")


# Forms whose first (vector) operand is an accumulator, read as well as written: wgmma's D
# (PTX ISA 9.7.15.5.2 "wgmma.mma_async": D = A*B+D unless scale-d is false).
_ACCUMULATORS = frozenset({("wgmma", "mma_async")})


def _accumulates(selected: Selected) -> bool:
    return bool(selected.modifiers) and (selected.opcode, selected.modifiers[0]) in _ACCUMULATORS


def _vector(b: _Builder, element: OperandSpec, count: int, where: str,
            base: str = "") -> list[str]:
    ptx_type = _type(element, b.selected.binding)
    cxx, letter = _cxx(b, ptx_type, where)
    written: bool | str = element.written
    if written and _accumulates(b.selected) and not any(p.kind == "out" for p in b.params):
        written = "inout"
    kind = "inout" if written == "inout" else "out" if written else "in"
    name = b.name(base or ("d" if written else b.next_input()))
    b.params.append(Parameter(name, kind, cxx, ptx_type, count, letter))
    exact = element.exact or b.selected.form.strict
    return [b.value(ptx_type, written, name, where, k, exact) for k in range(count)]


# the instructions whose bracketed operand starts with a surface, not an address
_SURFACE_OPCODES = frozenset({"suld", "sust", "sured", "suq"})


def _address(b: _Builder, spec: OperandSpec, position: int, space: str, where: str) -> str:
    if spec.type:  # [A:b32]: tensor memory, addressed by a 32-bit register
        name = b.name("taddr")
        b.params.append(Parameter(name, "in", "uint32_t", spec.type, letter="r"))
        return f"[{b.input('r', name, name)}]"
    surface = b.selected.opcode in _SURFACE_OPCODES
    if spec.element is not None and surface:  # [surface, {coordinates}]
        base = _surface(b)
    elif spec.element is not None:  # [tensorMap, {coordinates}]: the map's generic address
        name = b.name("tmap")
        b.params.append(Parameter(name, "addr", "void", space="generic", letter="l"))
        base = b.input("l", f"reinterpret_cast<uint64_t>({name})", name)
    if spec.element is not None:
        coordinates = spec.element
        count = grammar.vector_count(coordinates.count, b.selected.binding)
        if coordinates.kind != "vec" or coordinates.element is None or count is None:
            raise NotExpressible(f"{where}: the tensor coordinates' count is not fixed")
        texts = _vector(b, coordinates.element, count, where, "coords")
        return f"[{base}, {{{', '.join(texts)}}}]"
    if spec.parts:  # [r:u32, a:u64]: each part an operand of its own, a base a pointer
        texts = [(_surface(b) if surface else _base(b, position, space, where))
                 if part.kind == "base" else _operand(b, part, position, space)
                 for part in spec.parts]
        return f"[{', '.join(texts)}]"
    return f"[{_base(b, position, space, where)}]"


def _surface(b: _Builder) -> str:
    """A surface: a value, cudaSurfaceObject_t's 64 bits, not an address (ISA suld, sust: the
    first element of the brackets is a .surfref or a .u64 handle)."""
    name = b.name("surf")
    b.params.append(Parameter(name, "in", "uint64_t", "u64", letter="l"))
    return b.input("l", name, name)


def _base(b: _Builder, position: int, space: str, where: str) -> str:
    """An address's base: a pointer parameter, converted to the instruction's state space."""
    name = b.name(_address_name(b.selected, position))
    b.params.append(Parameter(name, "addr", "void", space=space, letter=_space_letter(space)))
    return b.input(_space_letter(space), _address_expression(name, space, where), name)


def _address_name(selected: Selected, position: int) -> str:
    """``dst``/``src`` for a copy's two addresses (destination first, as the ISA writes them),
    ``mbar`` for the mbarrier a copy completes, ``addr`` otherwise."""
    addresses = [i for i, o in enumerate(selected.form.operands) if o.kind == "addr"]
    if len(addresses) < 2:
        return "addr"
    rank = addresses.index(position)
    if rank >= 2 and any(m.startswith("mbarrier") for m in selected.modifiers):
        return "mbar"
    return ("dst", "src")[rank] if rank < 2 else "addr"


def _space_letter(space: str) -> str:
    return "r" if space in SHARED_SPACES else "l"


def _address_expression(name: str, space: str, where: str) -> str:
    if space in SHARED_SPACES:
        return f"static_cast<uint32_t>(__cvta_generic_to_shared({name}))"
    if space == "global":
        return f"static_cast<uint64_t>(__cvta_generic_to_global({name}))"
    if space == "local":
        return f"static_cast<uint64_t>(__cvta_generic_to_local({name}))"
    if space == "const":
        return f"static_cast<uint64_t>(__cvta_generic_to_constant({name}))"
    if space in ("generic", ""):
        return f"reinterpret_cast<uint64_t>({name})"
    raise NotExpressible(f"{where} is a .{space} address, which no C++ pointer reaches")


def _spaces(selected: Selected, operands: tuple[OperandSpec, ...]) -> dict[int, str]:
    """The state space of each address operand (by position), read the way the rules read it
    (``ptxlint.ptx.spaces``) from a stand-in instruction of the same spelling."""
    texts = ["[%rd1, {%r1}]" if s.kind == "addr" and s.element is not None
             else "[%rd1]" if s.kind == "addr" else "%r1" for s in operands]
    stand_in = f"{selected.mnemonic} {', '.join(texts)};"
    parsed = parse_template(stand_in, extended=False).instructions
    if len(parsed) != 1:
        return {}
    instruction = parsed[0]
    spaces = {id(u.operand): u.space for u in address_uses(instruction)}
    return {i: spaces.get(id(o), "generic") for i, o in enumerate(instruction.operands)
            if o.kind == "address"}


def derive(selected: Selected) -> Derived:
    """The statement for ``selected``: with the form's required operands first, then with
    every operand, and (for 8-bit types) with a 32-bit register where a 16-bit one does not
    fit; the first that the grammar accepts as written (:func:`grammar.check`)."""
    form = selected.form
    required = tuple(o for o in form.operands if not o.optional)
    tried: list[tuple[tuple[OperandSpec, ...], str]] = [(required, "h"), (required, "r")]
    if len(required) != len(form.operands):
        tried += [(form.operands, "h"), (form.operands, "r")]
    problem = ""
    for operands, narrow in tried:
        derived = _build(selected, operands, narrow)
        problem = _grammar_problem(derived)
        if not problem:
            return derived
    raise NotExpressible(f"the grammar rejects every statement derived for "
                         f"'{selected.mnemonic}': {problem}")


def _build(selected: Selected, operands: tuple[OperandSpec, ...], narrow: str) -> Derived:
    b = _Builder(selected, narrow)
    spaces = _spaces(selected, operands)
    texts = [_operand(b, spec, i, spaces.get(i, "generic")) for i, spec in enumerate(operands)]
    _carry(b)
    outputs = len(b.outputs)

    def number(text: str) -> str:
        for k in range(len(b.outputs)):
            text = text.replace(f"\x01o{k}\x02", f"%{k}")
        for k in range(len(b.inputs)):
            text = text.replace(f"\x01i{k}\x02", f"%{outputs + k}")
        return text

    instruction = selected.mnemonic + (" " + ", ".join(texts) if texts else "") + ";"
    lines = [*b.declarations, *b.pre, instruction, *b.post]
    labelled = any(s.kind == "label" for s in operands)
    if labelled:
        lines.append(f"{_LABEL}:")
    lines = [number(line) for line in lines]
    found = isa_effects.lookup(selected.opcode, selected.modifiers)
    # unknown effects: the conservative statement (volatile, "memory"), never a missing one
    volatile = (found is None or not found.pure or found.collective or not b.outputs)
    memory = found is None or bool(found.memory or found.orders_memory or found.asynchronous)
    return Derived(selected, tuple(b.params), tuple(b.outputs), tuple(b.inputs), tuple(lines),
                   len(lines) > 1, volatile, memory, tuple(b.before), tuple(b.after))


# The carry flag (CC.CF) lives only within one asm statement (PTX107): a wrapper of a `.cc`
# form returns it as a 32-bit 0/1 read back with `addc.u32 c, 0, 0`, and a wrapper of a form
# that reads it (addc, subc, madc) takes it as a value, set into CC.CF by `add.cc.u32` of the
# value and 0xffffffff (a carry out exactly when the value is not 0). PTX ISA 9.7.2
# "Extended-Precision Integer Arithmetic Instructions"; ptxas 13.0 takes both sequences.
_CARRY_READERS = frozenset({"addc", "subc", "madc"})


def _carry(b: _Builder) -> None:
    selected = b.selected
    where = f"the carry flag of '{selected.mnemonic}'"
    if selected.opcode in _CARRY_READERS:
        name = b.name("carry_in")
        b.params.append(Parameter(name, "in", "uint32_t", "u32", letter="r"))
        temp = f"k{len(b.declarations)}"
        b.declarations.append(f".reg .b32 {temp};")
        b.pre.append(f"add.cc.u32 {temp}, {b.value('u32', False, name, where)}, 0xffffffff;")
    if "cc" in selected.modifiers:
        name = b.name("carry")
        b.params.append(Parameter(name, "out", "uint32_t", "u32", letter="r"))
        b.post.append(f"addc.u32 {b.value('u32', True, name, where)}, 0, 0;")


def _grammar_problem(derived: Derived) -> str:
    """The grammar's first error on the derived instruction, with each ``%N`` of the register
    class nvcc declares for its letter; "" when it accepts it."""
    constraints = derived.constraints
    temps = {m.group(2): m.group(1) for line in derived.lines
             if (m := _DECLARATION.match(line)) is not None}
    immediates = iter(p.example for p in derived.params if p.kind == "imm")
    examples = {i: next(immediates) for i, c in enumerate(constraints) if c == "n"}

    def resolve(operand: PtxOperand) -> OperandClass:
        if operand.kind == "ref" and operand.ref is not None and operand.ref < len(constraints):
            letter = constraints[operand.ref].lstrip("=+&")
            if letter == "n":
                return grammar.immediate_class(str(examples[operand.ref]))
            return OperandClass("reg", _DECLARED.get(letter))
        if operand.kind == "register" and operand.text in temps:
            return OperandClass("reg", temps[operand.text])
        if operand.kind == "immediate":
            return grammar.immediate_class(operand.text)
        return OperandClass("unknown")

    template = parse_template(derived.template, extended=True)
    main = _main_instruction(template.instructions, derived.selected)
    if main is None:
        return "the derived template does not parse as one instruction"
    verdict = grammar.check(main, resolve)
    # an issue that only older toolkits have (a form new in ptxas 13.2) is the guard's to keep
    # out: its version test admits the toolkits that take the form
    errors = [i for i in verdict.issues if i.severity == "error" and i.toolkit is None]
    if verdict.status == "abstain":
        return ""
    return errors[0].message if errors else ""


def _main_instruction(instructions: tuple[PtxInstruction, ...],
                      selected: Selected) -> PtxInstruction | None:
    for instruction in instructions:
        if instruction.mnemonic == selected.mnemonic:
            return instruction
    return None
