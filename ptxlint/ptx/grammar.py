"""The per-form PTX instruction grammar: which modifier combinations and operand lists exist.

The forms are data (:mod:`ptxlint.ptx.grammar_data`), written in a notation close to the
syntax blocks of the PTX ISA manual; this module compiles them once and matches instructions
against them. :func:`check` is the one entry point the rules (PTX204, PTX206, PTX207, PTX401),
hover, the data-flow rules and ``benchmarks/ptxas_agreement.py`` read.

Form notation (one string per form)::

    cp.async.(.ca).<S:.shared|.shared::cta>.global{.L2::64B|.L2::128B@80}  [A], [A], i:4|8|16

* the mnemonic: the opcode, then slots. ``.word`` is a required fixed modifier, ``(.a|.b)`` a
  required choice, ``{.a|.b}`` an optional choice, ``<T:.a|.b>`` a required choice that binds
  the variable ``T`` (operand types refer to it), ``<T?:...>`` an optional one. A value may carry
  its own minimum target: ``.bf16@90`` (sm_90), ``@90a`` (the sm_90a feature target), ``@100f``
  (the sm_100 family), ``@100a-103`` (the sm_100 feature, not on sm_103a). ptxas reads modifiers
  in any order (``ld.f32.global`` assembles), so a slot is filled by any modifier it lists,
  wherever that modifier sits.
* operands, comma-separated: ``d:T`` a written register of type ``T`` (a variable or a PTX
  type), ``d_:T`` the same or the sink ``_``; ``r:T`` a register read; ``a:T`` a register or an
  immediate; ``i:VALUES`` an immediate only (``16``, ``4|8|16``, ``0..15``, ``..%32``, ``*``);
  ``ai:T:VALUES`` a register of ``T`` or an integer immediate within VALUES (``ai:u64``: any
  integer, no floating-point literal); ``af:T`` a register or a floating-point bit pattern
  (never an integer); ``[A]`` an address;
  ``[A:b32]`` an address whose base register is of that type (tensor memory);
  ``{d:T*N}`` a vector of N (a number, or a variable bound to ``.v2``/``.v4``/``.v8``),
  ``{d:T*N}_`` the same or the sink ``_`` for all of it;
  ``d:T|p`` a register with a predicate half; ``a_:T`` a value read or the sink ``_`` (an
  element of a 256-bit store's vector); ``L`` a label; ``?`` before an operand makes it (and
  everything after it) optional.

Form-level keys after ``;``: ``sm=90a`` (the target the whole form needs), ``ptx=80``,
``toolkit=13.1`` (ptxas from CUDA 13.1 on takes the form, older ones do not),
``undocumented`` (ptxas accepts it, the ISA does not say so: at most a warning),
``strict`` (operand types by exact size, even in ld/st/cvt: st.async), ``lax_vectors`` (a
vector where the form has a scalar abstains: ptxas's st.async reads some), ``positional`` (ptxas
reads the type words, the layouts ``.row/.col`` and the bit operations ``.and/.xor/.popc`` by
position within their kind, in the order the form lists their slots:
``mma...f32.bf16.bf16.f32`` is d, a, b, c, so ``.bf16.bf16.f32.f32`` is an error).
A vector's length may follow a bound word: ``{d:f32*S/2}`` is n/2 registers for the shape
``S`` bound to ``.m64nNk16``; ``{d:b32*N*2}`` twice the ``.xN`` bound to ``N``.

A family (an opcode) is *covered* when the grammar lists its forms; then every spelling of it
that no form admits is an error (or, for undocumented forms, a warning). Families not covered
return ``Verdict.abstain``: the rules fall back to the generous vocabulary in
:mod:`ptxlint.ptx.isa_table` and never guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache

from ptxlint.model import PtxInstruction, PtxOperand

__all__ = [
    "Need",
    "Form",
    "OperandSpec",
    "OperandClass",
    "Issue",
    "Verdict",
    "covered",
    "undescribed",
    "check",
    "forms",
    "family_vocabulary",
    "parse_immediate",
    "immediate_class",
    "literal_fits",
    "written_positions",
    "vector_count",
]


# ----------------------------------------------------------------------------- targets

# The sm_ numbers an architecture- or family-specific feature exists on. ptxas 13.0: sm_90a
# features (wgmma, setmaxnreg) are on sm_90a only; the sm_100a ones (tcgen05) on the sm_10x
# datacenter parts and not on sm_120a.
_SPECIFIC: dict[str, tuple[int, ...]] = {
    "90a": (90,),
    "100a": (100, 101, 103, 110),
    "100f": (100, 101, 103, 110),
    "101a": (101, 110),
    "103a": (103,),
    "110a": (110,),
    "120a": (120, 121),
    "120f": (120, 121),
}


@dataclass(frozen=True, order=True)
class Need:
    """A minimum target: ``sm`` (90 for sm_90), ``suffix`` ("a"/"f": the feature target), the
    sm_ numbers a specific feature exists on, the PTX ISA version (x10), and ``family``: the
    sm_ numbers of ``only`` where the family target (sm_100f) suffices, the others needing
    the architecture target (sm_90a). A form "sm=90a,100f" needs sm_90a, or sm_100f/sm_100a."""

    sm: int = 0
    suffix: str = ""
    only: tuple[int, ...] = ()
    ptx: int = 0
    removed: int = 0  # the form is gone for sm_<removed> and newer (shfl without .sync)
    family: tuple[int, ...] = ()

    @staticmethod
    def parse(text: str) -> Need:
        """``90``, ``90a``, ``100f``; ``100a-103-110``: a specific feature the listed members
        of its family lack (ptxas 13.0: tcgen05's .kind::i8 is not on sm_103a)."""
        m = re.fullmatch(r"(?:sm_)?([0-9]+)([af]?)((?:-[0-9]+)*)", text)
        if m is None:
            raise ValueError(f"bad target {text!r}")
        sm, suffix = int(m.group(1)), m.group(2)
        only = _SPECIFIC.get(f"{sm}{suffix}", (sm,)) if suffix else ()
        lacking = {int(n) for n in m.group(3).split("-")[1:]}
        only = tuple(n for n in only if n not in lacking)
        return Need(sm, suffix, only, family=only if suffix == "f" else ())

    def join(self, other: Need) -> Need:
        """The stronger of two needs (both must hold)."""
        only: tuple[int, ...]
        if self.only and other.only:
            only = tuple(sm for sm in self.only if sm in other.only) or self.only
        else:
            only = self.only or other.only
        suffix = self.suffix if self.suffix == "a" else other.suffix or self.suffix
        # the family target suffices where it suffices for both
        if self.suffix and other.suffix:
            family = tuple(sm for sm in self.family if sm in other.family)
        else:
            family = self.family if self.suffix else other.family
        removed = min(r for r in (self.removed, other.removed, 10**6) if r)
        return Need(max(self.sm, other.sm), suffix, only, max(self.ptx, other.ptx),
                    removed if removed < 10**6 else 0, family)

    def admits(self, sm: int, suffix: str) -> bool:
        """Whether a target sm_<sm><suffix> has this feature."""
        if sm < self.sm or (self.removed and sm >= self.removed):
            return False
        if not self.suffix:
            return True
        if sm not in self.only:
            return False
        if sm in self.family:
            return suffix in ("a", "f")
        return suffix == "a"

    @property
    def target(self) -> str:
        return f"sm_{self.sm}{self.suffix}" if self.sm else "any target"


# Documented forms that ptxas 13.0 rejects all the same, and why.
REJECTED: dict[str, str] = {
    "address32": "a .u32 address conversion needs 32-bit addressing, which ptxas 13.0 no "
    "longer supports ('32-Bit ABI ... is not supported'); use .u64",
}

# ----------------------------------------------------------------------------- compiled forms


@dataclass(frozen=True)
class Value:
    """One word a slot admits, with the target that word needs beyond its form's (``.bf16@90``)."""

    word: str
    need: Need | None = None


@dataclass(frozen=True)
class Slot:
    """One modifier position of a form: the words it admits, whether it may be left out, and the
    variable it binds for the operand types (``<T:...>``)."""

    values: tuple[Value, ...]
    optional: bool
    var: str = ""

    def find(self, word: str) -> Value | None:
        return self._by_word.get(word)

    @cached_property
    def _by_word(self) -> dict[str, Value]:
        # matching runs once per form per instruction: a dict, not a scan of 32 shapes
        out: dict[str, Value] = {}
        for value in self.values:
            out.setdefault(value.word, value)
        return out


@dataclass(frozen=True)
class Values:
    """Allowed immediate values: a set, a range (``0..15``, ``0..``; ``..%32`` any multiple of
    32), or anything (``*``)."""

    choices: frozenset[int] = frozenset()
    low: int | None = None
    high: int | None = None
    spec: str = "*"
    step: int = 1

    def admits(self, value: int) -> bool:
        if self.choices:
            return value in self.choices
        if self.low is not None and value < self.low:
            return False
        if value % self.step:
            return False
        return self.high is None or value <= self.high

    def describe(self) -> str:
        if self.choices:
            ordered = sorted(self.choices)
            if len(ordered) == 1:
                return f"{ordered[0]}"
            return ", ".join(str(v) for v in ordered[:-1]) + f" or {ordered[-1]}"
        multiple = f", a multiple of {self.step}" if self.step > 1 else ""
        if self.low is not None and self.high is not None:
            return f"in range [{self.low}..{self.high}]{multiple}"
        if self.low is not None:
            return f"at least {self.low}{multiple}"
        return f"a multiple of {self.step}" if self.step > 1 else "any value"


@dataclass(frozen=True)
class OperandSpec:
    """What a form takes as one operand: a register, an immediate, an address, a vector or a pair,
    of which type, and whether the instruction writes it."""

    kind: str  # "reg" | "regimm" | "imm" | "addr" | "vec" | "pair" | "sink" | "label"
    type: str = ""  # a PTX type word, or a slot variable
    written: bool = False
    sink: bool = False
    values: Values = Values()
    count: str = ""  # vector length: digits, or a slot variable bound to .v2/.v4/.v8
    optional: bool = False
    element: OperandSpec | None = None  # the element of a vector, the data half of a pair
    needs_predicate: bool = False  # a pair whose predicate half must be written (elect.sync)
    exact: bool = False  # ``d:b32!``: a register of exactly this size, never a wider one
    # which literals an immediate may be: "" as the type says (``literal_fits``), "int" an
    # integer only (``ai:``: descriptors, cache policies), "float" a floating-point bit
    # pattern only (``af:``: mma.sp's metadata, where ptxas takes 0f3F800000 but not 1)
    literal: str = ""


@dataclass(frozen=True)
class Form:
    """One form of the instruction grammar, compiled from its line in ``grammar_data``: the modifier
    slots and operands it admits and the target it needs."""

    opcode: str
    slots: tuple[Slot, ...]
    operands: tuple[OperandSpec, ...]
    need: Need
    undocumented: bool
    spec: str
    ordered: bool = False  # ptxas reads these modifiers in this order only (bar, barrier)
    head: int = 0  # the first `head` slots are the sub-instruction: they come first, in order
    rejected: str = ""  # ptxas rejects the documented form anyway: why (REJECTED's key)
    # ptxas reads the type words (and the layouts, the bit operations) of this form by
    # position among their kind: `.f32.bf16.bf16.f32` is d, a, b, c (mma, wgmma, tcgen05)
    positional: bool = False
    # ptxas reads this form's operands by their exact type size even though its opcode takes
    # wider registers elsewhere (st.async, unlike st)
    strict: bool = False
    # ptxas reads a vector in a scalar operand's place by rules not written down: abstain
    lax_vectors: bool = False
    # the first CUDA toolkit whose ptxas takes this form (``toolkit=13.1``): older ones reject
    # it, so for them an instruction only this form admits is an error that names the version
    toolkit: tuple[int, int] | None = None

    @property
    def required_operands(self) -> int:
        return sum(1 for o in self.operands if not o.optional)

    @cached_property
    def required_words(self) -> frozenset[str]:
        """The words every spelling of this form has (required one-value slots)."""
        return frozenset(s.values[0].word for s in self.slots
                         if not s.optional and len(s.values) == 1)

    @cached_property
    def words(self) -> frozenset[str]:
        return frozenset(v.word for s in self.slots for v in s.values)


_SLOT_TOKEN = re.compile(r"\.?\{[^}]*\}|\.?\([^)]*\)|\.?<[^>]*>|\.[^.{(<\s]+")


def _values(text: str) -> tuple[Value, ...]:
    out = []
    for alt in text.split("|"):
        alt = alt.strip()
        word, _, need = alt.partition("@")
        if "." in word.lstrip("."):
            raise ValueError(f"one modifier per slot value, not {word!r}")
        out.append(Value(word.lstrip("."), Need.parse(need) if need else None))
    return tuple(out)


def _parse_immediates(text: str) -> Values:
    if text == "*":
        return Values()
    if ".." in text:
        bounds, _, step = text.partition("%")
        low, high = bounds.split("..")
        return Values(low=int(low, 0) if low else None, high=int(high, 0) if high else None,
                      spec=text,
                      step=int(step, 0) if step else 1)
    return Values(choices=frozenset(int(v, 0) for v in text.split("|")), spec=text)


def _split_top(text: str, sep: str = ",") -> list[str]:
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "[{(":
            depth += 1
        elif c in "]})":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _operand(text: str, optional: bool) -> OperandSpec:
    if text.startswith("[") and text.endswith("]"):
        parts = _split_top(text[1:-1])
        if len(parts) == 2:  # a tensor address: [tensorMap, {coordinates}]
            return OperandSpec("addr", optional=optional, element=_operand(parts[1], False))
        # `[A:b32]`: an address whose base register has that type (tensor memory)
        _, _, base = text[1:-1].partition(":")
        return OperandSpec("addr", base, optional=optional)
    if text.startswith("{") and text.endswith("}_"):  # the vector, or the sink for all of it
        vector = _operand(text[:-1], optional)
        return OperandSpec("vec", vector.type, vector.written, True, count=vector.count,
                           optional=optional, element=vector.element)
    if text.startswith("{") and text.endswith("}"):
        inner, _, count = text[1:-1].partition("*")  # the count may hold '*' (N*2)
        element = _operand(inner, False)
        return OperandSpec("vec", element.type, element.written, count=count, optional=optional,
                           element=element)
    if "|" in text and not text.startswith("i:") and not text.startswith("ai:"):
        first, second = text.split("|", 1)
        half = _operand(first, False)
        return OperandSpec("pair", half.type, half.written, optional=optional, element=half,
                           needs_predicate=second.endswith("!"))
    if text == "_":
        return OperandSpec("sink", written=True, optional=optional)
    if text == "L":
        return OperandSpec("label", optional=optional)
    head, _, rest = text.partition(":")
    if head in ("d", "d_", "r", "a") and rest.endswith("!"):
        spec = _operand(f"{head}:{rest[:-1]}", optional)
        return OperandSpec(spec.kind, spec.type, spec.written, spec.sink, spec.values,
                           optional=optional, exact=True)
    if head in ("d", "d_"):
        return OperandSpec("reg", rest, written=True, sink=head == "d_", optional=optional)
    if head == "a_":  # a value read, or the sink: an element of a 256-bit store's vector
        return OperandSpec("regimm", rest, sink=True, optional=optional)
    if head == "r":
        return OperandSpec("reg", rest, optional=optional)
    if head == "a":
        return OperandSpec("regimm", rest, optional=optional)
    if head == "i":
        return OperandSpec("imm", values=_parse_immediates(rest), optional=optional)
    if head == "ai":
        type_, _, values = rest.partition(":")
        return OperandSpec("regimm", type_.rstrip("!"), values=_parse_immediates(values or "*"),
                           optional=optional, exact=type_.endswith("!"), literal="int")
    if head == "af":
        return OperandSpec("regimm", rest, optional=optional, literal="float")
    raise ValueError(f"bad operand spec {text!r}")


def compile_form(spec: str) -> Form:
    body, _, keys = spec.partition(";")
    body = body.strip()
    mnemonic, _, operand_text = body.partition(" ")
    opcode_match = re.match(r"[a-z0-9_]+", mnemonic)
    if opcode_match is None:
        raise ValueError(f"bad form {spec!r}")
    opcode = opcode_match.group()
    slots: list[Slot] = []
    pos = opcode_match.end()
    for m in _SLOT_TOKEN.finditer(mnemonic, pos):
        if m.start() != pos:
            raise ValueError(f"bad slot in {spec!r} at {mnemonic[pos:]!r}")
        pos = m.end()
        token = m.group()
        if token[:2] in (".{", ".(", ".<"):
            token = token[1:]
        if token[0] == ".":
            slots.append(Slot(_values(token), optional=False))
        elif token[0] == "{":
            slots.append(Slot(_values(token[1:-1]), optional=True))
        elif token[0] == "(":
            slots.append(Slot(_values(token[1:-1]), optional=False))
        else:
            var, _, alts = token[1:-1].partition(":")
            optional = var.endswith("?")
            slots.append(Slot(_values(alts), optional=optional, var=var.rstrip("?")))
    if pos != len(mnemonic):
        raise ValueError(f"bad mnemonic in {spec!r} at {mnemonic[pos:]!r}")
    operands: list[OperandSpec] = []
    optional = False
    for part in _split_top(operand_text):
        if part.startswith("?"):
            optional = True
            part = part[1:].strip()
        operands.append(_operand(part, optional))
    need = Need()
    undocumented = ordered = positional = strict = lax_vectors = False
    head = 0
    rejected = ""
    toolkit: tuple[int, int] | None = None
    for key in keys.replace(";", " ").split():
        name, _, value = key.partition("=")
        if name == "sm":
            alternatives = [Need.parse(v) for v in value.split(",")]
            first = alternatives[0]
            only = tuple(sorted({sm for a in alternatives for sm in a.only}))
            family = tuple(sorted({sm for a in alternatives for sm in a.family}))
            need = need.join(Need(first.sm, first.suffix, only, family=family))
        elif name == "ptx":
            need = Need(need.sm, need.suffix, need.only, int(value), need.removed, need.family)
        elif name == "removed":
            need = Need(need.sm, need.suffix, need.only, need.ptx, int(value), need.family)
        elif name == "undocumented":
            undocumented = True
        elif name == "ordered":
            ordered = True
        elif name == "positional":
            positional = True
        elif name == "strict":
            strict = True
        elif name == "lax_vectors":
            lax_vectors = True
        elif name == "rejected":
            rejected = REJECTED[value]
        elif name == "toolkit":
            from ptxlint.ptx.versions import ptx_for_cuda

            major, _, minor = value.partition(".")
            toolkit = (int(major), int(minor or 0))
            # a form new in that toolkit's ptxas needs its PTX ISA (PTX403 reads it)
            isa = ptx_for_cuda(toolkit) or 0
            if isa > need.ptx:
                need = Need(need.sm, need.suffix, need.only, isa, need.removed, need.family)
        elif name == "head":
            head = int(value)
            if any(slot.optional or len(slot.values) != 1 for slot in slots[:head]):
                raise ValueError(f"head={head} covers a slot with choices in {spec!r}")
        else:
            raise ValueError(f"bad key {key!r} in {spec!r}")
    return Form(opcode, tuple(slots), tuple(operands), need, undocumented, spec, ordered, head,
                rejected, positional, strict, lax_vectors, toolkit)


# ----------------------------------------------------------------------------- the model


_OPCODE = re.compile(r"[a-z0-9_]+")  # a form's opcode, as compile_form reads it


@lru_cache(maxsize=1)
def _specs() -> dict[str, tuple[str, ...]]:
    """The forms' specs by opcode, in table order. Each opcode's forms are compiled the first
    time an instruction of it is judged (``_family``): compiling them all up front was most
    of the CPU time of linting one small file."""
    from ptxlint.ptx.grammar_data import FORMS

    table: dict[str, list[str]] = {}
    for spec in FORMS:
        found = _OPCODE.match(spec.strip())
        if found is None:
            raise ValueError(f"bad form {spec!r}")
        table.setdefault(found.group(), []).append(spec)
    return {opcode: tuple(specs) for opcode, specs in table.items()}


@cache
def _family(opcode: str) -> tuple[Form, ...]:
    return tuple(compile_form(spec) for spec in _specs().get(opcode, ()))


@cache
def _word_masks(opcode: str) -> dict[str, int]:
    """Each word of the family's vocabulary: the forms that have it, as bit ``i`` for the
    ``i``-th form of ``_family(opcode)``."""
    masks: dict[str, int] = {}
    for i, form in enumerate(_family(opcode)):
        for word in form.words:
            masks[word] = masks.get(word, 0) | 1 << i
    return masks


def covered(opcode: str) -> bool:
    """Whether the grammar lists forms of ``opcode`` (some sub-families may still abstain)."""
    return opcode in _specs()


def undescribed() -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """What the grammar abstains on: the PTX ISA's opcodes with no form at all, and per covered
    opcode the modifiers (or ``+``-joined combinations) whose forms are not written down."""
    from ptxlint.ptx.grammar_data import PARTIAL
    from ptxlint.ptx.isa_table import FAMILIES

    missing = tuple(sorted(op for op in FAMILIES if not covered(op)))
    partial = {op: tuple(sorted(words)) for op, words in sorted(PARTIAL.items()) if words}
    return missing, partial


@lru_cache(maxsize=16384)
def _judged(opcode: str, modifiers: tuple[str, ...]) -> bool:
    """Memoised like ``_modifier_matches``: every rule asks of every instruction in turn."""
    from ptxlint.ptx.grammar_data import PARTIAL

    partial = PARTIAL.get(opcode)
    if partial is None:
        return True
    if partial.intersection(modifiers):
        return False
    # "v8+b16": a combination of words not written down (each word alone is)
    return not any("+" in entry and set(entry.split("+")) <= set(modifiers) for entry in partial)


def judged(opcode: str, modifiers: tuple[str, ...]) -> bool:
    """Whether the grammar decides instructions spelled ``opcode.modifiers``."""
    return covered(opcode) and _judged(opcode, modifiers)


def forms(opcode: str | None = None) -> tuple[Form, ...]:
    if opcode is not None:
        return _family(opcode)
    return tuple(f for each in _specs() for f in _family(each))


@lru_cache(maxsize=256)
def family_vocabulary(opcode: str) -> frozenset[str]:
    return frozenset(v.word for f in forms(opcode) for s in f.slots for v in s.values)


# ----------------------------------------------------------------------------- operand classes


@dataclass(frozen=True)
class OperandClass:
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
_INT = re.compile(r"-?(?:0[xX][0-9A-Fa-f]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)[uU]?\Z")


# Floating-point literals: ``0f`` + 8 hex digits is a .f32 bit pattern, ``0d`` + 16 a .f64 one;
# a decimal with a point or an exponent is a .f64 value (PTX ISA "Floating-Point Constants").
_F32_LITERAL = re.compile(r"0[fF][0-9A-Fa-f]{8}\Z")
_F64_LITERAL = re.compile(r"0[dD][0-9A-Fa-f]{16}\Z|-?[0-9]+(?:\.[0-9]*(?:[eE][+-]?[0-9]+)?"
                          r"|[eE][+-]?[0-9]+)\Z")


def immediate_class(text: str) -> OperandClass:
    """The class of a literal operand: an integer (with its value), a .f32 or .f64
    floating-point literal, or an immediate of unknown kind."""
    value = parse_immediate(text)
    if value is not None:
        return OperandClass("imm", "int", value)
    if _F32_LITERAL.match(text):
        return OperandClass("imm", "f32")
    if _F64_LITERAL.match(text):
        return OperandClass("imm", "f64")
    return OperandClass("imm")


def literal_fits(literal: str, operand: str) -> bool:
    """Whether ptxas 13.0 takes a literal of class ``literal`` ("int", "f32", "f64") for an
    operand of type ``.operand`` (measured, "Arguments mismatch" otherwise): an integer for
    integer, bit and predicate types; a floating-point literal for .f32/.f64 (either size)
    and for the bit type of its own size (``mov.b32 %r, 0f3F800000``; ``1.0`` is 64-bit); none
    for .f16/.bf16 or the packed types (``add.f16x2 d, a, 1``: Arguments mismatch)."""
    if operand == "int":  # an integer register of any size (isspacep's address)
        return literal == "int"
    bits = _TYPE_BITS.get(operand)
    if bits is None:
        return True
    kind, size = bits
    if literal == "int":
        return kind in "busp"
    if kind == "f":
        return size >= 32
    return kind == "b" and size == (32 if literal == "f32" else 64)


def parse_immediate(text: str) -> int | None:
    if not _INT.match(text):
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


# ----------------------------------------------------------------------------- verdicts


@dataclass(frozen=True)
class Issue:
    """One thing the grammar finds wrong with an instruction, at template offsets."""

    kind: str  # "opcode" | "modifier" | "combination" | "operand" | "type"
    message: str
    start: int  # template offsets
    end: int
    severity: str = "error"  # "error" | "warning"
    # the CUDA toolkit (major, minor) whose ptxas and newer accept the instruction all the same:
    # an error only for older ones (the rules compare it with cuda-version)
    toolkit: tuple[int, int] | None = None


@dataclass(frozen=True)
class Verdict:
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


ABSTAIN = Verdict("abstain")

# Type words ptxas treats as the same register class when checking operands.
_TYPE_BITS: dict[str, tuple[str, int]] = {}
for _n in (8, 16, 32, 64):
    for _k in "bus":
        _TYPE_BITS[f"{_k}{_n}"] = (_k, _n)
_TYPE_BITS.update(
    b128=("b", 128), f16=("f", 16), bf16=("f", 16), f32=("f", 32), f64=("f", 64),
    f16x2=("x", 32), bf16x2=("x", 32), f32x2=("x", 64), tf32=("x", 32), pred=("p", 1),
    u16x2=("x", 32), s16x2=("x", 32), u8x4=("x", 32), s8x4=("x", 32),
    # packed narrow floats (cvt): held in bit registers of exactly their size
    e4m3x2=("x", 16), e5m2x2=("x", 16), e2m3x2=("x", 16), e3m2x2=("x", 16),
    ue8m0x2=("x", 16), e2m1x2=("x", 8), e2m1x4=("x", 16), e4m3x4=("x", 32),
    e5m2x4=("x", 32), e2m3x4=("x", 32), e3m2x4=("x", 32),
)

# Operand types for which ptxas 13.0 takes no wider register even in ld/st/cvt ("cvt.rn.bf16.f32
# %r1, %f2": Arguments mismatch, where .f16 takes a .b32 register).
_NO_WIDENING = frozenset({"bf16", "bf16x2", "tf32", "e4m3x2", "e5m2x2", "e2m3x2", "e3m2x2",
                          "ue8m0x2", "e2m1x2", "e2m1x4", "e4m3x4", "e5m2x4", "e2m3x4",
                          "e3m2x4"})


def type_fits(register: str, operand: str, relaxed: bool, exact: bool = False) -> bool:
    """Whether a register declared ``.register`` may be an operand of type ``.operand``
    (ptxas 13.0, "Arguments mismatch"): bit registers fit any type of their size, float
    registers float and bit types of their size, integer registers integer and bit types of
    their size; ``relaxed`` (ld/st/cvt) also takes wider non-float registers, except for the
    types in ``_NO_WIDENING``; ``exact`` takes a register of the operand's size only, and a
    float register only for a float operand (ptxas rejects a .f32 register for a tf32
    destination or cvt.rs's random bits)."""
    r = _TYPE_BITS.get(register)
    o = _TYPE_BITS.get(operand)
    if r is None or o is None:
        return True
    if exact:
        return r[1] == o[1] and r[0] != "p" and (r[0] != "f" or o[0] == "f") and o[0] != "p"
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


@dataclass
class _Match:
    """How one form fits an instruction's modifiers: the variables bound, the target needed, and
    what is left over (``cost``: 0 for a form that spells the instruction)."""

    form: Form
    binding: dict[str, str] = field(default_factory=dict)
    need: Need = Need()
    unused: list[int] = field(default_factory=list)  # modifier indices no slot took
    missing: list[Slot] = field(default_factory=list)  # required slots left empty
    misordered: list[int] = field(default_factory=list)  # modifier indices out of position

    @property
    def cost(self) -> int:
        return len(self.unused) + len(self.missing) + len(self.misordered)


# The kinds of words ptxas reads by position in a `positional` form.
POSITIONAL_TYPES = frozenset(_TYPE_BITS) | {"b1", "b4", "b6", "s4", "u4", "e4m3", "e5m2",
                                            "e2m1", "e2m3", "e3m2", "ue8m0", "ue4m3",
                                            "u2", "s2"}
_POSITIONAL_KINDS: tuple[frozenset[str], ...] = (
    POSITIONAL_TYPES,
    frozenset({"row", "col"}),
    frozenset({"and", "xor", "popc"}),
    # the destination's state space first, then the source's (cp.async.bulk, cvt's sibling
    # cp.async): cp.async.bulk.global.shared::cta is the store, not the load
    frozenset({"global", "shared", "shared::cta", "shared::cluster", "local", "const"}),
)


def _misordered(taken: list[tuple[int, str]]) -> list[int]:
    """Modifier indices that break the slot order within a kind; ``taken`` lists, in slot
    order, the index of the modifier each slot took and its word."""
    out: list[int] = []
    for kind in _POSITIONAL_KINDS:
        last = -1
        for index, word in taken:
            if word not in kind:
                continue
            if index < last:
                out.append(index)
            last = max(last, index)
    return out


def _match_modifiers(form: Form, modifiers: tuple[str, ...]) -> _Match:
    match = _Match(form, need=form.need)
    taken = [False] * len(modifiers)
    last = -1
    for k in range(form.head):
        if k >= len(modifiers) or modifiers[k] != form.slots[k].values[0].word:
            match.missing.append(form.slots[k])
            match.unused = list(range(len(modifiers)))
            return match
        taken[k] = True
        last = k
    took: list[tuple[int, str]] = []
    for slot in form.slots[form.head:]:
        found = False
        for i, word in enumerate(modifiers):
            if taken[i] or (form.ordered and i < last):
                continue
            value = slot.find(word)
            if value is None:
                continue
            taken[i] = True
            found = True
            last = i
            took.append((i, word))
            if slot.var:
                match.binding[slot.var] = word
            if value.need is not None:
                match.need = match.need.join(value.need)
            break
        if not found and not slot.optional:
            match.missing.append(slot)
    match.unused = [i for i, t in enumerate(taken) if not t]
    if form.positional:
        match.misordered = _misordered(took)
    return match


@lru_cache(maxsize=16384)
def _modifier_matches(
    opcode: str, modifiers: tuple[str, ...]
) -> tuple[int | None, tuple[_Match, ...], _Match | None]:
    """For ``opcode.modifiers``: the first modifier no form of the opcode has (else None); the
    forms that spell it exactly, in table order; and when none does, the closest form (for
    the message). A pure function of its key, memoised: matching is O(forms x slots x
    modifiers) and generated headers spell the same mnemonic hundreds of times. The matches
    are never mutated after this."""
    vocabulary = family_vocabulary(opcode)
    for i, word in enumerate(modifiers):
        if word not in vocabulary:
            return i, (), None
    family = _family(opcode)
    # Only a form that has every word of the spelling and lacks none of its own fixed words
    # can match exactly: try those first; the closest match (for the message) needs them all.
    # The forms that have every word are the bits set in each word's mask (_word_masks), in
    # table order: a spelling seen the first time no longer compares sets with each of the
    # family's forms (151 for multimem).
    words = frozenset(modifiers)
    having = (1 << len(family)) - 1
    masks = _word_masks(opcode)
    for word in words:
        having &= masks[word]  # every word is in the vocabulary (above)
    candidates = []
    while having:
        low = having & -having
        form = family[low.bit_length() - 1]
        if form.required_words <= words:
            candidates.append(form)
        having ^= low
    exact = tuple(m for m in (_match_modifiers(f, modifiers) for f in candidates) if m.cost == 0)
    if exact:
        return None, exact, None
    matches = sorted((_match_modifiers(f, modifiers) for f in family), key=lambda m: m.cost)
    return None, (), matches[0]


def check(
    instruction: PtxInstruction, resolve: Resolver, relaxed_types: bool | None = None
) -> Verdict:
    """Match ``instruction`` against its family's forms. ``resolve`` says what each operand
    is (the constraint of a ``%N``, a declared register...). Never raises."""
    if instruction.opaque:
        return ABSTAIN
    if not covered(instruction.opcode) or not _judged(instruction.opcode, instruction.modifiers):
        return ABSTAIN
    modifiers = instruction.modifiers
    unknown, exact, closest = _modifier_matches(instruction.opcode, modifiers)
    if unknown is not None:
        start, end = _modifier_span(instruction, unknown)
        word = modifiers[unknown]
        what = f"'.{word}'" if word else "an empty modifier ('..')"
        return Verdict("error", (Issue(
            "modifier", f"unknown modifier {what} in '{instruction.mnemonic}': no form of "
            f"'{instruction.opcode}' has it", start, end),))
    if not exact:
        assert closest is not None
        return Verdict("error", (_combination_issue(instruction, closest),))
    # Operands: the first form whose operands fit decides; otherwise report against the
    # closest one.
    relaxed = relaxed_types if relaxed_types is not None else instruction.opcode in _RELAXED
    # the closest form: fewest errors, then one whose operand count fits
    best: tuple[tuple[int, bool], list[Issue], _Match] | None = None
    gated = [m for m in exact if m.form.toolkit is not None]
    if gated:  # the forms every toolkit takes first: a newer one's is the fallback
        exact = tuple(m for m in exact if m.form.toolkit is None)
        if not exact:
            return _newer_only(instruction, gated, resolve, relaxed)
    for m in exact:
        issues, abstain = _check_operands(instruction, m, resolve, relaxed and not m.form.strict)
        if m.form.rejected and not abstain and not any(i.severity == "error" for i in issues):
            return _accept(m)
        if abstain:
            return Verdict("abstain", form=m.form, need=m.need, written=_written(m.form))
        if not issues:
            return _accept(m)
        errors = [i for i in issues if i.severity == "error"]
        if not errors:
            return Verdict("ok", tuple(issues), m.form, m.need, _written(m.form))
        count = len(instruction.operands)
        rank = (len(errors), not m.form.required_operands <= count <= len(m.form.operands))
        if best is None or rank < best[0]:
            best = (rank, issues, m)
    for m in gated:
        issues, abstain = _check_operands(instruction, m, resolve, relaxed and not m.form.strict)
        if abstain or any(i.severity == "error" for i in issues) or best is None:
            continue
        # what the older toolkits say, marked as theirs: cuda-version decides
        assert m.form.toolkit is not None
        newer = f"{m.form.toolkit[0]}.{m.form.toolkit[1]}"
        marked = tuple(Issue(i.kind, f"{i.message} (ptxas before {newer}; {newer} and newer "
                             "accept it)",
                             i.start, i.end, i.severity, m.form.toolkit)
                       for i in best[1])
        return Verdict("error", marked, m.form, m.need, _written(m.form))
    if best is None:
        return ABSTAIN  # only a newer toolkit's forms spell it, and they do not fit either
    return Verdict("error", tuple(best[1]), best[2].form, best[2].need, _written(best[2].form))


_RELAXED = frozenset({"ld", "ldu", "st", "cvt", "ld_global_nc"})


def _newer_only(
    instruction: PtxInstruction, gated: list[_Match], resolve: Resolver, relaxed: bool | None
) -> Verdict:
    """An instruction only forms of a newer toolkit's ptxas spell (``toolkit=``): an error for
    the older ones, which the issue says (the rules compare its toolkit with cuda-version);
    operand errors are errors for every toolkit."""
    best: tuple[list[Issue], _Match] | None = None
    for m in gated:
        issues, abstain = _check_operands(instruction, m, resolve,
                                          bool(relaxed) and not m.form.strict)
        if abstain:
            return Verdict("abstain", form=m.form, need=m.need, written=_written(m.form))
        errors = [i for i in issues if i.severity == "error"]
        if not errors:
            assert m.form.toolkit is not None
            newer = f"{m.form.toolkit[0]}.{m.form.toolkit[1]}"
            issue = Issue("combination", f"'{instruction.mnemonic}' is new in ptxas {newer}: "
                          f"older ones reject it (form '{m.form.spec.split(' ')[0]}')",
                          instruction.opcode_start, instruction.opcode_end, "error",
                          m.form.toolkit)
            return Verdict("error", (issue,), m.form, m.need, _written(m.form))
        if best is None or len(errors) < len(best[0]):
            best = (errors, m)
    assert best is not None
    return Verdict("error", tuple(best[0]), best[1].form, best[1].need, _written(best[1].form))


def _accept(m: _Match) -> Verdict:
    if m.form.rejected:
        # a warning: such forms sit in branches only a 32-bit build compiles, and nvcc 13
        # builds none
        issue = Issue("combination", m.form.rejected, 0, 0, "warning")
        return Verdict("ok", (issue,), m.form, m.need, _written(m.form))
    if m.form.undocumented:
        issue = Issue("combination", "ptxas 13.0 accepts this form, but the PTX ISA does not "
                      f"document it (form '{m.form.spec.split(' ')[0]}')", 0, 0, "warning")
        return Verdict("ok", (issue,), m.form, m.need, _written(m.form))
    return Verdict("ok", (), m.form, m.need, _written(m.form))


def _written(form: Form) -> tuple[int, ...]:
    return tuple(i for i, o in enumerate(form.operands) if o.written)


def _modifier_span(instruction: PtxInstruction, index: int) -> tuple[int, int]:
    offset = instruction.opcode_start + len(instruction.opcode)
    for modifier in instruction.modifiers[:index]:
        offset += 1 + len(modifier)
    return offset, offset + 1 + len(instruction.modifiers[index])


def _slot_words(slot: Slot) -> str:
    words = [f"'.{v.word}'" for v in slot.values]
    if len(words) == 1:
        return words[0]
    return "one of " + ", ".join(words[:6]) + (", ..." if len(words) > 6 else "")


def _combination_issue(instruction: PtxInstruction, match: _Match) -> Issue:
    mnemonic = instruction.mnemonic
    if match.misordered and not match.unused and not match.missing:
        i = match.misordered[0]
        start, end = _modifier_span(instruction, i)
        return Issue("combination", f"'.{instruction.modifiers[i]}' is out of place: ptxas "
                     f"reads the types (and layouts) of '{instruction.opcode}' by position, in "
                     f"the order of the form '{match.form.spec.split(' ')[0]}'", start, end)
    if match.unused:
        i = match.unused[0]
        start, end = _modifier_span(instruction, i)
        word = instruction.modifiers[i]
        others = [w for j, w in enumerate(instruction.modifiers) if j != i]
        partner = _conflicting(instruction.opcode, word, others)
        tail = f" to '.{partner}'" if partner else " in this combination"
        return Issue("combination", f"'.{word}' does not apply{tail}: no form of "
                     f"'{instruction.opcode}' spells '{mnemonic}'", start, end)
    slot = match.missing[0]
    end = instruction.opcode_end
    return Issue("combination", f"'{mnemonic}' lacks {_slot_words(slot)}: no form of "
                 f"'{instruction.opcode}' goes without it", instruction.opcode_start, end)


def _conflicting(opcode: str, word: str, others: list[str]) -> str | None:
    """The other modifier that no form combines with ``word``, preferring a type word."""
    with_word = [f for f in forms(opcode) if any(s.find(word) for s in f.slots)]
    candidates = []
    for other in others:
        if not any(any(s.find(other) for s in f.slots) for f in with_word):
            candidates.append(other)
    for other in candidates:
        if other in _TYPE_BITS or other in ("b1", "s4", "u4"):
            return other
    return candidates[0] if candidates else None


@lru_cache(maxsize=4096)
def lightest(opcode: str, modifiers: tuple[str, ...]) -> tuple[Form, Need] | None:
    """The form with the weakest need among those that spell ``opcode.modifiers`` exactly
    (operands aside), with that need; ``None`` when none does."""
    matches = [m for m in (_match_modifiers(f, modifiers) for f in forms(opcode)) if m.cost == 0]
    if not matches:
        return None
    best = min(matches, key=lambda m: (m.need.sm, m.need.suffix != "", len(m.need.only) == 0))
    return best.form, best.need


def modifier_need(opcode: str, modifiers: tuple[str, ...]) -> Need | None:
    """The weakest need among the forms that spell ``opcode.modifiers`` exactly (operands
    aside); ``None`` when none does."""
    found = lightest(opcode, modifiers)
    return found[1] if found is not None else None


def form_of(opcode: str, modifiers: tuple[str, ...]) -> Form | None:
    """The first form that spells ``opcode.modifiers`` exactly (operands aside)."""
    if not judged(opcode, modifiers):
        return None
    for form in forms(opcode):
        if _match_modifiers(form, modifiers).cost == 0:
            return form
    return None


# ----------------------------------------------------------------------------- operands


def _check_operands(
    instruction: PtxInstruction, m: _Match, resolve: Resolver, relaxed: bool
) -> tuple[list[Issue], bool]:
    """The operand issues of ``instruction`` under form ``m``; ``True`` second when an
    operand cannot be judged (a macro hole, an operand spliced in by a "C" constraint)."""
    operands = instruction.operands
    specs = m.form.operands
    issues: list[Issue] = []
    for operand in operands:
        if operand.kind == "opaque":
            return [], True
    for operand in operands:
        if operand.kind == "other" and looks_like_c(operand.text):
            return [_c_issue(instruction, operand)], False
    if m.form.lax_vectors and any(
            o.kind == "vector" and s.kind in ("reg", "regimm")
            for o, s in zip(operands, specs, strict=False)):
        return [], True
    count = len(operands)
    if count < m.form.required_operands or count > len(specs):
        low, high = m.form.required_operands, len(specs)
        expected = f"{low}" if low == high else f"{low} to {high}"
        start = operands[0].start if operands else instruction.opcode_end
        end = operands[-1].end if operands else instruction.opcode_end
        issues.append(Issue("operand", f"'{instruction.mnemonic}' takes {expected} operand"
                            f"{'s' if high != 1 else ''}, not {count}", start, end))
        return issues, False
    for position, (operand, spec) in enumerate(zip(operands, specs, strict=False)):
        result = _check_one(instruction, operand, spec, m.binding, resolve, relaxed, position)
        if result is None:
            return [], True
        issues.extend(result)
    return issues, False


def _type_of(spec: OperandSpec, binding: dict[str, str]) -> str:
    return binding.get(spec.type, spec.type)


def _ordinal(position: int) -> str:
    return f"operand {position + 1}"


def _where(instruction: PtxInstruction, position: int) -> str:
    return f"{_ordinal(position)} of '{instruction.mnemonic}'"


def _check_one(
    instruction: PtxInstruction,
    operand: PtxOperand,
    spec: OperandSpec,
    binding: dict[str, str],
    resolve: Resolver,
    relaxed: bool,
    position: int,
    in_vector: bool = False,
) -> list[Issue] | None:
    # Called for every operand and vector element (a wgmma has 130): the words of a message
    # ("operand 3 of 'wgmma...'") are only put together for an issue.
    kind = operand.kind
    if spec.kind == "addr":
        if kind != "address":
            return [Issue("operand", f"'{operand.text}' should be an address '[...]' ("
                                     f"{_where(instruction, position)})",
                          operand.start, operand.end)]
        if (spec.element is None and operand.parts
                and operand.parts[0].kind in ("ref", "register")):
            wrong = _address_base_issue(instruction, operand.parts[0], spec, position,
                                        resolve(operand.parts[0]))
            if wrong is not None:
                return [wrong]
        if spec.type and operand.parts and operand.parts[0].kind in ("ref", "register"):
            base = resolve(operand.parts[0])
            if base.kind == "reg" and base.type and not type_fits(base.type, spec.type, False):
                return [Issue("type", f"'{operand.parts[0].text}' is a .{base.type} register, "
                              f"but the address of "
                              f"{_where(instruction, position)} takes a .{spec.type} one",
                              operand.parts[0].start, operand.parts[0].end)]
        if spec.element is not None:
            parts = operand.parts
            if len(parts) != 2 or parts[1].kind != "vector":
                if any(p.kind in ("opaque", "other") for p in parts):
                    return None
                return [Issue("operand", f"'{operand.text}' should be a tensor address "
                              f"'[tensorMap, {{coordinates}}]' ("
                              f"{_where(instruction, position)})", operand.start,
                              operand.end)]
            return _check_one(instruction, parts[1], spec.element, binding, resolve, relaxed,
                              position)
        return []
    if spec.kind == "label":
        if kind in ("label", "register"):
            return []
        if kind in ("immediate", "address", "vector", "pair"):
            return [Issue("operand", f"'{operand.text}' should be a label ("
                          f"{_where(instruction, position)})", operand.start, operand.end)]
        return None  # a %N, a macro: say nothing
    if kind == "address":
        return [Issue("operand", f"'{operand.text}' is an address, but "
                                 f"{_where(instruction, position)} is not",
                      operand.start, operand.end)]
    if spec.kind == "vec":
        if kind == "other" and operand.text == "_" and spec.sink:
            return []  # the whole vector dropped (``{d:T*V}_``: atom's result)
        if kind != "vector":
            declared = _vector_variable(operand, resolve)
            if declared is not None:  # `.reg .v4 .f32 v;` stands for the vector (ptxas takes it)
                size = vector_count(spec.count, binding)
                if size is None or declared == size:
                    return []
                return [Issue("operand", f"'{operand.text}' is a vector of {declared}, "
                              f"{_where(instruction, position)}"
                              f" takes {size}", operand.start, operand.end)]
            return [Issue("operand", f"'{operand.text}' should be a vector '{{...}}' ("
                                     f"{_where(instruction, position)})",
                          operand.start, operand.end)]
        size = vector_count(spec.count, binding)
        if size is not None and len(operand.parts) != size:
            return [Issue("operand", f"'{operand.text}' has {len(operand.parts)} element"
                          f"{'s' if len(operand.parts) != 1 else ''}, "
                          f"{_where(instruction, position)} takes {size}",
                          operand.start, operand.end)]
        element = spec.element
        assert element is not None
        out: list[Issue] = []
        leaf = element.kind in _LEAF_SPECS
        passed: OperandClass | None = None  # the class of the last element that passed
        for part in operand.parts:
            if leaf and part.kind in _LEAF_KINDS:
                # what _check_one reaches for such a part, without its dispatch (a wgmma's
                # accumulator is 128 of them). Whether _check_leaf finds an issue depends on
                # the class alone (the operand's text is only quoted in the message), and the
                # resolvers share their class objects: an element of the class that passed
                # just before passes too.
                cls = resolve(part)
                if cls is passed:
                    continue
                found = _check_leaf(instruction, part, element, binding, relaxed, position, cls)
                if found:
                    out.extend(found)
                else:
                    passed = cls
                continue
            sub = _check_one(instruction, part, element, binding, resolve, relaxed, position,
                             in_vector=True)
            if sub is None:
                return None
            out.extend(sub)
        return out
    if kind == "vector":
        if (len(operand.parts) == 1 and spec.kind in ("reg", "regimm")
                and instruction.opcode not in _NO_ONE_ELEMENT_VECTORS):
            # ptxas reads a one-element vector as the scalar (Triton writes `{$0}`)
            return _check_one(instruction, operand.parts[0], spec, binding, resolve, relaxed,
                              position)
        return [Issue("operand", f"'{operand.text}' is a vector, but "
                                 f"{_where(instruction, position)} is not",
                      operand.start, operand.end)]
    if spec.kind == "sink":
        if operand.text != "_":
            return [Issue("operand", f"{_where(instruction, position)}"
                                     f" must be the sink '_', not '{operand.text}'",
                          operand.start, operand.end)]
        return []
    if spec.kind == "pair":
        assert spec.element is not None
        if spec.needs_predicate and kind != "pair":
            return [Issue("operand", f"{_where(instruction, position)}"
                                     f" must be a pair 'd|p' with a predicate, not "
                          f"'{operand.text}'", operand.start, operand.end)]
        if kind == "pair":
            return _check_one(instruction, operand.parts[0], spec.element, binding, resolve,
                              relaxed, position)
        return _check_one(instruction, operand, spec.element, binding, resolve, relaxed,
                          position)
    if kind == "pair":
        return [Issue("operand", f"'{operand.text}' is a register pair, but "
                                 f"{_where(instruction, position)} is not",
                      operand.start, operand.end)]
    if kind == "other":
        if operand.text == "_" and spec.written and in_vector and (
                instruction.opcode in _SINK_BY_FORM
                or (instruction.opcode == "wmma" and "mma" in instruction.modifiers)):
            return None  # the form (or the target) decides: not judged
        if operand.text == "_" and (spec.sink or (spec.written and in_vector)):
            return []  # ptxas takes the sink for an element of a written vector (ld's)
        if operand.text == "_":
            return [Issue("operand", f"'_' cannot be {_where(instruction, position)}",
                          operand.start, operand.end)]
        return None  # sums and the like: say nothing
    if kind == "label":
        return None
    return _check_leaf(instruction, operand, spec, binding, relaxed, position, resolve(operand))


# Instructions whose generic or .global address ptxas 13.0 takes from a 64-bit register only:
# a 32-bit one is "32-bit addressing", which it no longer supports for any target ("Program
# uses 32-bit address ... conflicting with .address_size 64"). Measured per family: cp.async,
# the bulk copies, st.bulk, st.async, red.async, prefetch.tensormap, tensormap,
# createpolicy.range and clusterlaunchcontrol take one.
_WIDE_ADDRESS = frozenset({"ld", "ldu", "st", "atom", "red", "prefetch", "prefetchu",
                           "discard", "applypriority", "multimem", "mbarrier"})
_NARROW_SUBFAMILIES = frozenset({"bulk", "async", "tensormap"})
# The state spaces whose addresses are not generic or .global (32-bit offsets there are fine).
_WINDOWED = frozenset({"shared", "shared::cta", "shared::cluster", "local", "const", "param",
                       "param::entry", "param::func"})
# Register types ptxas never takes as an address ("Illegal to use symbol ... of type .f32 as
# address operand. Use integer or bit only.")
_NOT_ADDRESS = frozenset({"f16", "bf16", "f32", "f64", "pred"})


def _address_base_issue(
    instruction: PtxInstruction,
    base: PtxOperand,
    spec: OperandSpec,
    position: int,
    cls: OperandClass,
) -> Issue | None:
    """A register of the wrong kind or width as the base of an address."""
    if cls.kind != "reg" or cls.type is None:
        return None
    # (ptxas 13.0 takes any register for fence.proxy.tensormap's address, a .f32 one too)
    if cls.type in _NOT_ADDRESS and instruction.opcode != "fence":
        return Issue("type", f"'{base.text}' is a .{cls.type} register, but the address of "
                     f"{_where(instruction, position)} takes an integer or bit register",
                     base.start, base.end)
    if (spec.type or instruction.opcode not in _WIDE_ADDRESS
            or _NARROW_SUBFAMILIES.intersection(instruction.modifiers)
            or _TYPE_BITS.get(cls.type, ("", 0))[1] != 32
            or any(m in _WINDOWED for m in instruction.modifiers)):
        return None
    space = ".global" if "global" in instruction.modifiers else "generic"
    return Issue("type", f"'{base.text}' is a 32-bit .{cls.type} register, but the {space} "
                 f"address of {_where(instruction, position)} takes a 64-bit one (ptxas: "
                 "32-bit addressing is not supported)", base.start, base.end)


# Families whose result vectors take a sink element in some forms and not in others (ptxas
# 13.0: mma.m8n8k4 takes it; the fp8, f64 and sparse mma, tcgen05.ld and wgmma's accumulator
# give "Result discard mode is not allowed" or "Sink '_' not allowed as a source operand"; wmma.mma
# takes it from sm_80 on, not on sm_75): an instruction with one is not judged
_SINK_BY_FORM = frozenset({"mma", "wgmma", "tcgen05"})

# Operands and specs for which _check_one goes straight to _check_leaf.
_LEAF_KINDS = frozenset({"ref", "register", "special", "immediate"})
_LEAF_SPECS = frozenset({"reg", "regimm", "imm"})


def _check_leaf(
    instruction: PtxInstruction,
    operand: PtxOperand,
    spec: OperandSpec,
    binding: dict[str, str],
    relaxed: bool,
    position: int,
    cls: OperandClass,
) -> list[Issue]:
    """A register or immediate operand against a register/immediate spec."""
    if cls.kind == "unknown":
        return []
    if cls.kind == "imm":
        if spec.kind == "reg":
            return [Issue("operand", f"'{operand.text}' is an immediate, but "
                                     f"{_where(instruction, position)} must be a "
                          "register", operand.start, operand.end)]
        if cls.type in ("f32", "f64"):
            want = "" if spec.kind == "imm" or spec.literal == "int" else _type_of(spec, binding)
            if not want or not literal_fits(cls.type, want):
                takes = f"a .{want} operand" if want else "an integer immediate"
                return [Issue("operand", f"'{operand.text}' is a .{cls.type} floating-point "
                              f"literal, but {_where(instruction, position)} takes {takes}",
                              operand.start, operand.end)]
            return []
        if cls.type == "int" and spec.literal == "float":
            return [Issue("operand", f"'{operand.text}' is an integer literal, but "
                          f"{_where(instruction, position)} takes a register (or a "
                          "floating-point bit pattern such as 0f00000000)", operand.start,
                          operand.end)]
        if cls.type == "int" and spec.kind == "regimm" and not spec.literal:
            want = _type_of(spec, binding)
            if want and not literal_fits("int", want):
                hint = ("write a floating-point literal ('0f3F800000' is 1.0f)"
                        if want in ("f32", "f64") else "it takes no immediate")
                return [Issue("operand", f"'{operand.text}' is an integer literal, but "
                              f"{_where(instruction, position)} is .{want}: {hint}",
                              operand.start, operand.end)]
        if cls.value is not None and not spec.values.admits(cls.value):
            shown = f"'{operand.text}'"
            if operand.text.lstrip("-").lstrip("%")[:1].isdigit() and operand.text[0] == "%":
                shown = f"{cls.value} ('{operand.text}')"
            return [Issue("operand", f"unexpected value {shown} for "
                                     f"{_where(instruction, position)}: expected "
                          f"{spec.values.describe()}", operand.start, operand.end)]
        return []
    # a register
    if spec.kind == "imm":
        values = "" if spec.values.spec == "*" else f" ({spec.values.describe()})"
        return [Issue("operand", f"'{operand.text}' is a register, but "
                                 f"{_where(instruction, position)} must be an "
                      f"immediate{values}", operand.start, operand.end)]
    if cls.type is None:
        return []
    want = _type_of(spec, binding)
    if want == "int":  # an integer register of any size (isspacep's address)
        if cls.type in ("f32", "f64", "pred"):
            return [Issue("type", f"'{operand.text}' is a .{cls.type} register, but "
                                  f"{_where(instruction, position)} "
                          "takes an integer address", operand.start, operand.end)]
        return []
    if want and not type_fits(cls.type, want, relaxed, spec.exact):
        return [Issue("type", f"'{operand.text}' is a .{cls.type} register, but "
                              f"{_where(instruction, position)} takes "
                      f".{want}", operand.start, operand.end)]
    return []


def _vector_size(word: str) -> int | None:
    if re.fullmatch(r"[vx][0-9]+", word):
        return int(word[1:])
    shape = re.fullmatch(r"m[0-9]+n([0-9]+)k[0-9]+", word)
    if shape is not None:  # a warpgroup shape: the accumulator grows with n
        return int(shape.group(1))
    if re.fullmatch(r"[0-9]d", word):  # a tensor's dimensions: .2d takes two coordinates
        return int(word[0])
    return None


_COUNT = re.compile(r"([A-Za-z_]\w*)(?:([*/])([0-9]+))?\Z")


# ptxas 13.0 takes no one-element vector for a scalar in these ("cp.async.ca.shared.global
# [%r1], [%rd2], 16, {%r3}": Arguments mismatch)
_NO_ONE_ELEMENT_VECTORS = frozenset({"cp"})


def _vector_variable(operand: PtxOperand, resolve: Resolver) -> int | None:
    """The length of a vector variable (``.reg .v4 .f32 v;``) named by ``operand``, or None."""
    if operand.kind != "register":
        return None
    cls = resolve(operand)
    if cls.kind == "reg" and cls.type is not None and re.fullmatch(r"v[248]", cls.type):
        return int(cls.type[1:])
    return None


def vector_count(count: str, binding: dict[str, str]) -> int | None:
    """The length of a vector operand: ``4``; ``V`` (bound to ``.v4``/``.x4``: 4); ``S/2``
    (bound to the shape ``.m64n64k16``: n/2 = 32); ``N*2``. ``None`` when unbound."""
    if count.isdigit():
        return int(count)
    m = _COUNT.match(count)
    if m is None:
        return None
    base = _vector_size(binding.get(m.group(1), ""))
    if base is None or not m.group(2):
        return base
    factor = int(m.group(3))
    if m.group(2) == "*":
        return base * factor
    return base // factor if base % factor == 0 else None


_C_EXPRESSION = re.compile(r"\(\s*[A-Za-z_][\w:\s]*\**\s*\)|\b(?:sizeof|static_cast)\b|[?]|->")


def looks_like_c(text: str) -> bool:
    """Whether an operand's text is C++ rather than PTX (a cast, ``sizeof``, ``->``)."""
    return bool(_C_EXPRESSION.search(text))


def _c_issue(instruction: PtxInstruction, operand: PtxOperand) -> Issue:
    return Issue("operand", f"'{operand.text}' in '{instruction.mnemonic}' is not PTX: a C "
                 "cast or expression left inside the template (ptxas: syntax error)",
                 operand.start, operand.end)


def c_operand_issue(instruction: PtxInstruction) -> Issue | None:
    for operand in instruction.operands:
        if operand.kind == "other" and looks_like_c(operand.text):
            return _c_issue(instruction, operand)
    return None


def written_positions(instruction: PtxInstruction, resolve: Resolver) -> tuple[int, ...] | None:
    """The operand positions the matched form writes, or ``None`` when no form matches.

    ``check`` answers with a form exactly when the spelling is judged and some form spells it
    (``_modifier_matches``'s exact matches), and then the form is one of those; so when they
    all write the same positions (every spelling in CUDA's and CUTLASS's headers), the answer
    depends on ``opcode.modifiers`` alone and no operand is looked at
    (``_written_by_spelling``). Only a spelling whose forms disagree runs the full check."""
    if instruction.opaque:
        return None
    decided, positions = _written_by_spelling(instruction.opcode, instruction.modifiers)
    if decided:
        return positions
    verdict = check(instruction, resolve)
    if verdict.form is None:
        return None
    return verdict.written


@lru_cache(maxsize=16384)
def _written_by_spelling(
    opcode: str, modifiers: tuple[str, ...]
) -> tuple[bool, tuple[int, ...] | None]:
    """``(True, positions)`` when ``written_positions`` of a non-opaque instruction spelled
    ``opcode.modifiers`` is ``positions`` whatever its operands; ``(False, None)`` when the
    forms that spell it write different positions and the operands decide."""
    if not covered(opcode) or not _judged(opcode, modifiers):
        return True, None  # check abstains without a form
    unknown, exact, _ = _modifier_matches(opcode, modifiers)
    if unknown is not None or not exact:
        return True, None  # an unknown modifier or no form that spells it: no form
    written = {_written(m.form) for m in exact}
    if len(written) == 1:
        return True, written.pop()
    return False, None


def issues_of(verdict: Verdict, kinds: Iterable[str]) -> list[Issue]:
    wanted = set(kinds)
    return [i for i in verdict.issues if i.kind in wanted]
