"""The instruction forms of the grammar, compiled from their ISA spellings (``grammar_data*``):
each form's opcode, modifier slots, operands, the target and PTX ISA version it needs, and the
look-ups by opcode that the checker, hover, completion and the generator read. The notation is
:mod:`ptxlint.ptx.grammar`'s (its docstring)."""

from __future__ import annotations

import re
from functools import cache, cached_property, lru_cache
from typing import NamedTuple

from ptxlint.value_class import value_class

# The sm_ numbers an architecture- or family-specific feature exists on. ptxas 13.0: sm_90a
# features (wgmma, setmaxnreg) are on sm_90a only; the sm_100a ones (tcgen05) on the sm_10x
# datacenter parts and not on sm_120a. ptxas 13.4/13.5: sm_107a and sm_107f have every sm_100f
# feature and the sm_100a ones (tcgen05.shift, cvt.rs, .scale_vec::2X), and sm_103f's
# tcgen05.ld.red: sm_107 is of their family (`.target sm_100f` and `.target sm_103f` assemble for
# sm_107, as for sm_103; not for sm_110, "a different SM-family").
_SPECIFIC: dict[str, tuple[int, ...]] = {
    "90a": (90,),
    "100a": (100, 101, 103, 107, 110),
    "100f": (100, 101, 103, 107, 110),
    "101a": (101, 110),
    "103a": (103,),
    "103f": (103, 107),
    "107a": (107,),
    "107f": (107,),
    "110a": (110,),
    "120a": (120, 121),
    "120f": (120, 121),
}


class Need(NamedTuple):
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

    def meets(self, other: Need) -> bool:
        """Whether some target has both features: where both exist on listed sm_ numbers only,
        the lists share one (tcgen05's .kind::i8 is on sm_100a/110a, the plain B collector on
        sm_107a/f: no target takes the two together, and ptxas 13.5 rejects the pair on each)."""
        return not (self.only and other.only) or any(sm in other.only for sm in self.only)

    def join(self, other: Need) -> Need:
        """The stronger of two needs (both must hold): of two that do not ``meet``, the
        first's targets (the matcher asks ``meets`` before it joins a word's need)."""
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


# Value, Slot, Values and OperandSpec are plain classes (docs/architecture.md, "Plain classes"):
# never compared, hashed or printed.
class Value:
    """One word a slot admits, with the target that word needs beyond its form's (``.bf16@90``)."""

    __slots__ = ("word", "need")

    def __init__(self, word: str, need: Need | None = None) -> None:
        self.word = word
        self.need = need


class Slot:
    """One modifier position of a form: the words it admits, whether it may be left out, and the
    variable it binds for the operand types (``<T:...>``)."""

    __slots__ = ("values", "optional", "var", "by_word")

    def __init__(self, values: tuple[Value, ...], optional: bool, var: str = "") -> None:
        self.values = values
        self.optional = optional
        self.var = var
        # the slot's values by word (the first of each): matching runs once per form per
        # spelling, and reads the table in its loop
        by_word: dict[str, Value] = {}
        for value in values:
            by_word.setdefault(value.word, value)
        self.by_word = by_word

    def find(self, word: str) -> Value | None:
        return self.by_word.get(word)


class Values:
    """Allowed immediate values: a set, a range (``0..15``, ``0..``; ``..%32`` any multiple of
    32), or anything (``*``); ``~V`` after a range leaves V out (``..%32~0``: a multiple of 32
    other than 0)."""

    __slots__ = ("choices", "low", "high", "spec", "step", "excluded")

    def __init__(
        self, choices: frozenset[int] = frozenset(), low: int | None = None,
        high: int | None = None, spec: str = "*", step: int = 1,
        excluded: frozenset[int] = frozenset(),
    ) -> None:
        self.choices = choices
        self.low = low
        self.high = high
        self.spec = spec
        self.step = step
        self.excluded = excluded

    def admits(self, value: int) -> bool:
        if self.choices:
            return value in self.choices
        if value in self.excluded:
            return False
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
        return self._range() + "".join(f" other than {v}" for v in sorted(self.excluded))

    def _range(self) -> str:
        multiple = f", a multiple of {self.step}" if self.step > 1 else ""
        if self.low is not None and self.high is not None:
            return f"in range [{self.low}..{self.high}]{multiple}"
        if self.low is not None:
            return f"at least {self.low}{multiple}"
        return f"a multiple of {self.step}" if self.step > 1 else "any value"


_ANY = Values()  # every OperandSpec's values where its line gives none

# The vector qualifiers (ISA: ``.vec = { .v2, .v4, .v8 }``).
VECTOR_WORDS = frozenset({"v2", "v4", "v8"})


class Interval:
    """The real values a floating-point literal may take, written as in mathematics:
    ``(0..1]`` is above 0 and at most 1 (createpolicy.fractional's fraction)."""

    __slots__ = ("low", "high", "low_open", "high_open", "spec")

    def __init__(self, spec: str) -> None:
        low, _, high = spec[1:-1].partition("..")
        self.low, self.high = float(low), float(high)
        self.low_open, self.high_open = spec[0] == "(", spec[-1] == ")"
        self.spec = spec

    def admits(self, value: float) -> bool:
        if value < self.low or (self.low_open and value == self.low):
            return False
        return not (value > self.high or (self.high_open and value == self.high))

    def describe(self) -> str:
        return f"in range {self.spec.replace('..', ', ')}"


class OperandSpec:
    """What a form takes as one operand: a register, an immediate, an address, a vector or a pair,
    of which type, and whether the instruction writes it."""

    __slots__ = (
        "kind", "type", "written", "sink", "values", "count", "optional", "element",
        "needs_predicate", "exact", "literal", "interval", "at_most", "parts", "untyped",
        "typed",
    )

    def __init__(
        self, kind: str, type: str = "", written: bool = False, sink: bool = False,
        values: Values = _ANY, count: str = "", optional: bool = False,
        element: OperandSpec | None = None, needs_predicate: bool = False, exact: bool = False,
        literal: str = "", interval: Interval | None = None, at_most: int | None = None,
        parts: tuple[OperandSpec, ...] = (),
        untyped: bool = False, typed: bool = False,
    ) -> None:
        self.kind = kind  # "reg" | "regimm" | "imm" | "addr" | "vec" | "pair" | "sink" | "label"
        self.type = type  # a PTX type word, or a slot variable
        self.written = written
        self.sink = sink
        self.values = values
        self.count = count  # vector length: digits, or a slot variable bound to .v2/.v4/.v8
        self.optional = optional
        self.element = element  # the element of a vector, the data half of a pair
        # a pair whose predicate half must be written (elect.sync)
        self.needs_predicate = needs_predicate
        self.exact = exact  # ``d:b32!``: a register of exactly this size, never a wider one
        # ``r:b32!!``: an untyped register of exactly this size, no .u32/.s32/.f32 one
        self.untyped = untyped
        # ``r:u32!t``: a register declared with a type of exactly this size, no untyped .b32
        # one (st.bulk's 32-bit size in ptxas 13.0, which fails on a .b32 register)
        self.typed = typed
        # which literals an immediate may be: "" as the type says (``literal_fits``), "int" an
        # integer only (``ai:``: descriptors, cache policies), "float" a floating-point bit
        # pattern only (``af:``: mma.sp's metadata, where ptxas takes 0f3F800000 but not 1)
        self.literal = literal
        # the real values a floating-point literal may take (``a:f32:(0..1]``)
        self.interval = interval
        # the position of the operand whose constant value this one's may not exceed
        # (``a:u32:<=#2``: cp.async's src-size, at most its cp-size)
        self.at_most = at_most
        # an address of several parts, each with its own spec, the base first (``[r:u32,
        # a:u64]``: fabric's endpoint and offset; ``[A, a:u64, {a:b32*D}]``: a tensor map, the
        # global address that overrides its own, the coordinates); a part ``A`` is any base
        self.parts = parts


@value_class(slots=False)
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

    @cached_property
    def required_operands(self) -> int:
        return sum(1 for o in self.operands if not o.optional)

    @cached_property
    def bounded(self) -> bool:
        """An operand of the form is bounded by another's value (``a:u32:<=#2``)."""
        return any(o.at_most is not None for o in self.operands)

    @cached_property
    def written_positions(self) -> tuple[int, ...]:
        """The positions of the operands the form writes: asked by every verdict (a wgmma's
        form has 130 operands), worked out once per form."""
        return tuple(i for i, o in enumerate(self.operands) if o.written)

    @cached_property
    def required_words(self) -> frozenset[str]:
        """The words every spelling of this form has (required one-value slots)."""
        return frozenset(s.values[0].word for s in self.slots
                         if not s.optional and len(s.values) == 1)

    @cached_property
    def words(self) -> frozenset[str]:
        return frozenset(v.word for s in self.slots for v in s.values)

    @cached_property
    def vector_slot(self) -> int | None:
        """The index of the slot of the vector qualifier (every word of it one of
        ``VECTOR_WORDS``), or None where the form has none. The ISA writes it right before the
        type, whose slot is the next one (``ld{.weak}{.ss}...{.vec}.type``; every form of the
        grammar so, tests/test_vector_order.py)."""
        return next((k for k, slot in enumerate(self.slots)
                     if all(v.word in VECTOR_WORDS for v in slot.values)), None)


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
        kept, _, left_out = text.partition("~")
        bounds, _, step = kept.partition("%")
        low, high = bounds.split("..")
        return Values(low=int(low, 0) if low else None, high=int(high, 0) if high else None,
                      spec=text,
                      step=int(step, 0) if step else 1,
                      excluded=frozenset(int(v, 0) for v in left_out.split("|") if v))
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
        if len(parts) == 2 and parts[1].startswith("{"):  # [tensorMap, {coordinates}]
            return OperandSpec("addr", optional=optional, element=_operand(parts[1], False))
        if len(parts) > 1:
            return OperandSpec("addr", optional=optional, parts=tuple(
                OperandSpec("base") if part == "A" else _operand(part, False) for part in parts))
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
    if head in ("d", "d_", "r", "a") and rest.endswith("!!"):
        spec = _operand(f"{head}:{rest[:-2]}", optional)
        return OperandSpec(spec.kind, spec.type, spec.written, spec.sink, spec.values,
                           optional=optional, exact=True, untyped=True)
    if head in ("d", "d_", "r", "a") and rest.endswith("!t"):
        spec = _operand(f"{head}:{rest[:-2]}", optional)
        return OperandSpec(spec.kind, spec.type, spec.written, spec.sink, spec.values,
                           optional=optional, exact=True, typed=True)
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
        type_, _, bound = rest.partition(":")
        if bound.startswith("<=#"):
            return OperandSpec("regimm", type_, optional=optional, at_most=int(bound[3:]))
        return OperandSpec("regimm", type_, optional=optional,
                           interval=Interval(bound) if bound else None)
    if head == "i":
        return OperandSpec("imm", values=_parse_immediates(rest), optional=optional)
    if head == "ai":
        type_, _, values = rest.partition(":")
        return OperandSpec("regimm", type_.rstrip("!"), values=_parse_immediates(values or "*"),
                           optional=optional, exact=type_.endswith("!"), literal="int")
    if head == "af":
        return OperandSpec("regimm", rest, optional=optional, literal="float")
    raise ValueError(f"bad operand spec {text!r}")


# Slots and operands are compiled once per spelling, and the forms that spell one share it
# (immutable): the grammar's 7,234 slots are 474 spellings and its 4,302 operands 191, so a
# family's first use compiles a few new ones (compiling all 1,331 forms: 0.062 s before), and
# a shared slot builds its word table (``Slot.by_word``) once for every form that has it.
# Bounded: the grammar's own spellings fit many times over.
@lru_cache(maxsize=4096)
def _slot(token: str) -> Slot:
    """The slot a mnemonic's token spells: ``.word``, ``{.a|.b}``, ``(.a|.b)``, ``<T?:...>``."""
    if token[:2] in (".{", ".(", ".<"):
        token = token[1:]
    if token[0] == ".":
        return Slot(_values(token), optional=False)
    if token[0] == "{":
        return Slot(_values(token[1:-1]), optional=True)
    if token[0] == "(":
        return Slot(_values(token[1:-1]), optional=False)
    var, _, alts = token[1:-1].partition(":")
    optional = var.endswith("?")
    return Slot(_values(alts), optional=optional, var=var.rstrip("?"))


@lru_cache(maxsize=4096)
def _operand_spec(text: str, optional: bool) -> OperandSpec:
    """``_operand``, once per spelling (see ``_slot``)."""
    return _operand(text, optional)


def compile_form(spec: str) -> Form:
    body, _, keys = spec.partition(";")
    body = body.strip()
    mnemonic, _, operand_text = body.partition(" ")
    opcode_match = re.match(r"[a-z0-9_]+", mnemonic)
    if opcode_match is None:
        raise ValueError(f"bad form {spec!r}")
    opcode = opcode_match.group()
    slots = _slots(mnemonic, opcode_match.end(), spec)
    (need, undocumented, ordered, positional, strict, lax_vectors, rejected, toolkit,
     head) = _form_keys(keys)
    if any(slot.optional or len(slot.values) != 1 for slot in slots[:head]):
        raise ValueError(f"head={head} covers a slot with choices in {spec!r}")
    return Form(opcode, slots, _operand_list(operand_text), need, undocumented, spec,
                ordered, head, rejected, positional, strict, lax_vectors, toolkit)


def _slots(mnemonic: str, pos: int, spec: str) -> tuple[Slot, ...]:
    """The slots of a form's mnemonic after its opcode (which ends at ``pos``): one tuple per
    mnemonic, shared by the forms that spell it (``_SLOT_TUPLES``), so the matcher knows them
    for one question (wgmma's register-A and descriptor forms, ld's and st's operand
    variants)."""
    known = _SLOT_TUPLES.get(mnemonic)
    if known is not None:
        return known
    slots: list[Slot] = []
    for m in _SLOT_TOKEN.finditer(mnemonic, pos):
        if m.start() != pos:
            raise ValueError(f"bad slot in {spec!r} at {mnemonic[pos:]!r}")
        pos = m.end()
        slots.append(_slot(m.group()))
    if pos != len(mnemonic):
        raise ValueError(f"bad mnemonic in {spec!r} at {mnemonic[pos:]!r}")
    if len(_SLOT_TUPLES) >= 4096:
        _SLOT_TUPLES.clear()
    made = _SLOT_TUPLES[mnemonic] = tuple(slots)
    return made


# The slots by mnemonic: the grammar's 1,331 forms spell 1,224 mnemonics. Bounded (cleared
# when full) for callers that compile forms of their own.
_SLOT_TUPLES: dict[str, tuple[Slot, ...]] = {}


# The operand lists and the keys of the forms, compiled once per spelling as the slots are: the
# grammar's 1,331 forms spell 434 operand lists and 83 key lists. Compiling them all went from
# 26 ms to 13.5 ms of CPU; the families the CUDA headers' instructions use (986 forms, with
# their word tables) from 23 ms to 14.5 ms, paid once per process.
@lru_cache(maxsize=2048)
def _operand_list(operand_text: str) -> tuple[OperandSpec, ...]:
    operands: list[OperandSpec] = []
    optional = False
    for part in _split_top(operand_text):
        if part.startswith("?"):
            optional = True
            part = part[1:].strip()
        operands.append(_operand_spec(part, optional))
    return tuple(operands)


_Keys = tuple[Need, bool, bool, bool, bool, bool, str, tuple[int, int] | None, int]


@lru_cache(maxsize=512)
def _form_keys(keys: str) -> _Keys:
    """What a form's keys (after ``;``) say: its need, undocumented, ordered, positional,
    strict, lax_vectors, rejected, toolkit and head."""
    need = Need()
    undocumented = ordered = positional = strict = lax_vectors = False
    head = 0
    rejected = ""
    toolkit: tuple[int, int] | None = None
    for key in keys.replace(";", " ").split():
        name, _, value = key.partition("=")
        if name == "sm":
            alternatives = [Need.parse(v) for v in value.split(",")]
            # the lowest alternative bounds the form from below ("107f,120f": sm_107f)
            first = min(alternatives, key=lambda a: a.sm)
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
        else:
            raise ValueError(f"bad key {key!r} in {keys!r}")
    return (need, undocumented, ordered, positional, strict, lax_vectors, rejected, toolkit,
            head)


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
def word_masks(opcode: str) -> dict[str, int]:
    """Each word of the family's vocabulary: the forms that have it, as bit ``i`` for the
    ``i``-th form of ``_family(opcode)``. Read slot by slot: the forms share their slots
    (``_slot``), so each distinct slot's forms are gathered first and its words read once, where
    each form's every word was (``Form.words``): the 59 families the CUDA 13 headers spell
    2.2 -> 0.9 ms of CPU, once per process."""
    forms_of: dict[int, int] = {}  # a slot's forms, by the slot's id
    slots: dict[int, Slot] = {}
    for i, form in enumerate(_family(opcode)):
        for slot in form.slots:
            key = id(slot)
            forms_of[key] = forms_of.get(key, 0) | 1 << i
            slots[key] = slot
    masks: dict[str, int] = {}
    for key, slot in slots.items():
        bits = forms_of[key]
        for word in slot.by_word:
            masks[word] = masks.get(word, 0) | bits
    return masks


def forms_listing(opcode: str, modifiers: tuple[str, ...],
                  most_unlisted: int) -> list[tuple[int, int]]:
    """The forms of ``opcode`` that list all but at most ``most_unlisted`` of ``modifiers``
    (each written word counted where it is written), as their index in ``_family(opcode)``
    with how many they do not list: those that list the most first, each count in table
    order. A form spells only words its slots list, so each written word it does not list is
    one it leaves unused, or an edit, whatever it takes: a bound the error path's searches
    (the closest form, the nearest spelling) skip every farther form by, instead of matching
    each of the family's forms (cp's 247). Counted on ``word_masks``, ``at_least[j]`` holding
    the forms that list ``j`` of the written words or more."""
    masks = word_masks(opcode)
    count = len(modifiers)
    at_least = [(1 << len(_family(opcode))) - 1] + [0] * count
    for word in modifiers:
        mask = masks.get(word, 0)
        if mask:
            for j in range(count, 0, -1):
                at_least[j] |= at_least[j - 1] & mask
    out: list[tuple[int, int]] = []
    more = 0  # the forms that list more written words than those of this round
    for listed in range(count, max(0, count - most_unlisted) - 1, -1):
        these = at_least[listed] & ~more
        more = at_least[listed]
        while these:
            low = these & -these
            out.append((low.bit_length() - 1, count - listed))
            these ^= low
    return out


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
    partial = _partial(opcode)
    if partial is None:
        return True
    words, combinations = partial
    if not words.isdisjoint(modifiers):
        return False
    if not combinations:
        return True
    spelled = frozenset(modifiers)
    return not any(combination <= spelled for combination in combinations)


@cache
def _partial(opcode: str) -> tuple[frozenset[str], tuple[frozenset[str], ...]] | None:
    """``PARTIAL``'s entry for ``opcode``, split once into the words not written down and the
    combinations of words not written down ("v8+b16": each word alone is); None where every
    sub-family is. ``_judged`` asked each entry of the 36 of tcgen05 per spelling."""
    from ptxlint.ptx.grammar_data import PARTIAL

    partial = PARTIAL.get(opcode)
    if partial is None:
        return None
    words = frozenset(entry for entry in partial if "+" not in entry)
    combinations = tuple(frozenset(entry.split("+")) for entry in partial if "+" in entry)
    return words, combinations


def judged(opcode: str, modifiers: tuple[str, ...]) -> bool:
    """Whether the grammar decides instructions spelled ``opcode.modifiers``."""
    # ``covered`` read in place: PTX207, PTX401 and the statement analysis ask of every
    # instruction (13,096 times over the CUDA 13 headers)
    return opcode in _specs() and _judged(opcode, modifiers)


def forms(opcode: str | None = None) -> tuple[Form, ...]:
    if opcode is not None:
        return _family(opcode)
    return tuple(f for each in _specs() for f in _family(each))


@lru_cache(maxsize=256)
def family_vocabulary(opcode: str) -> frozenset[str]:
    """Every word some form of the family lists: the words ``word_masks`` maps (each form's
    ``words``), read off them rather than off every slot again."""
    return frozenset(word_masks(opcode))
