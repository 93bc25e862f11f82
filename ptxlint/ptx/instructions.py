"""The PTX instruction table: which spellings exist, what targets they need, operand types.

Built once from the raw data in :mod:`ptxlint.ptx.isa_table`. Public lookups:

* :func:`family` — the :class:`Family` of an opcode word, or ``None`` for a word PTX lacks.
* :func:`is_opcode` — whether a word is the first word of any PTX instruction.
* :func:`unknown_modifier` — index of the first modifier no slot of the family accepts.
* :func:`requirement` — the minimum :class:`Requirement` (sm, PTX ISA, ``a`` suffix).
* :func:`deprecation` — the :class:`Deprecation` an instruction falls under, if any.
* :func:`operand_types` — the PTX type each operand position takes, for type checks.
* :func:`register_fits` — whether a constraint's register class may be such an operand.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from ptxlint.model import AsmStatement, PtxInstruction
from ptxlint.ptx import grammar
from ptxlint.ptx.effects import special_register
from ptxlint.ptx.isa_table import ADVISED, DEPRECATED, FAMILIES, GROUPS, ONLY_ON, REQUIREMENTS
from ptxlint.ptx.judge import judge

__all__ = [
    "Advice",
    "Deprecation",
    "Family",
    "Requirement",
    "TypeInfo",
    "REGISTER_CLASSES",
    "deprecation",
    "advice",
    "family",
    "form_of",
    "instruction_requirement",
    "is_opcode",
    "operand_types",
    "instruction_ptx_requirement",
    "ptx_requirement",
    "register_fits",
    "requirement",
    "type_info",
    "unknown_modifier",
]


def _expand(vocabulary: str) -> frozenset[str]:
    words: set[str] = set()
    for word in vocabulary.split():
        if word.startswith("{") and word.endswith("}"):
            words.update(GROUPS[word[1:-1]].split())
        else:
            words.add(word)
    return frozenset(words)


# Family, Deprecation and OperandTypes are plain classes (docs/architecture.md, "Plain classes"):
# never compared, hashed or printed.
class Family:
    """An opcode of the instruction table and every modifier word any of its forms may carry."""

    __slots__ = ("opcode", "modifiers")

    def __init__(self, opcode: str, modifiers: frozenset[str]) -> None:
        self.opcode = opcode
        self.modifiers = modifiers

    def accepts(self, modifier: str) -> bool:
        return modifier in self.modifiers


# Each opcode's family is made when first asked for: making all 135 at import took 0.4 ms of CPU
# at every start, where a file's statements name a few.
_FAMILIES: dict[str, Family] = {}


def family(opcode: str) -> Family | None:
    found = _FAMILIES.get(opcode)
    if found is None:
        vocabulary = FAMILIES.get(opcode)
        if vocabulary is None:
            return None
        found = _FAMILIES[opcode] = Family(opcode, _expand(vocabulary))
    return found


def is_opcode(word: str) -> bool:
    return word in FAMILIES


def unknown_modifier(opcode: str, modifiers: tuple[str, ...]) -> int | None:
    """Index of the first modifier the family has no slot for; ``None`` when all fit or the
    opcode is unknown (ask :func:`is_opcode` for that)."""
    fam = family(opcode)
    if fam is None:
        return None
    judged = grammar.judged(opcode, modifiers)
    vocabulary = grammar.family_vocabulary(opcode) if judged else fam.modifiers
    for i, modifier in enumerate(modifiers):
        if modifier not in vocabulary:
            return i
    return None


# ----------------------------------------------------------------------------- targets


class Requirement(NamedTuple):
    """The minimum target an instruction spelling needs (sm_, ``a`` suffix, PTX ISA version) and the
    feature that imposes it."""

    sm: int = 0  # e.g. 90 for sm_90
    ptx: int = 0  # PTX ISA version * 10, e.g. 80 for 8.0
    suffix: str = ""  # "a": needs the architecture-specific target (sm_90a)
    feature: str = ""  # what imposes it, e.g. "cp.async" or ".shared::cluster"
    only: tuple[int, ...] = ()  # the feature exists on these sm_ only (wgmma: sm_90a)
    # where the family target (sm_100f) has an "a" feature; None: not known (the table's
    # requirements), so a family target counts as having it
    family: tuple[int, ...] | None = None

    @property
    def target(self) -> str:
        return f"sm_{self.sm}{self.suffix}"

    def suffix_on(self, sm: int) -> str:
        """The feature suffix target sm_<sm> needs: "f" where the family target has the
        feature, else the need's own."""
        if self.suffix == "f" or (self.family and sm in self.family):
            return "f"
        return self.suffix

    @property
    def targets_named(self) -> str:
        """The targets that have it, as a message names them: ``sm_80 or newer``, ``sm_90a``,
        ``sm_100f or sm_103f``."""
        if self.only:
            return " or ".join(f"sm_{sm}{self.suffix_on(sm)}" for sm in self.only)
        return self.target + ("" if self.suffix else " or newer")


def requirement(opcode: str, modifiers: tuple[str, ...]) -> Requirement:
    """The minimum target of ``opcode.modifiers``: the weakest need among the grammar's forms
    that spell it, for a family the grammar judges; otherwise the strongest requirement among
    the table entries this instruction matches."""
    if grammar.judged(opcode, modifiers):
        form_need = grammar.modifier_need(opcode, modifiers)
        if form_need is not None:
            return _from_need(form_need, ".".join((opcode, *modifiers)))
    need = _requirement(opcode, frozenset(modifiers))
    only = ONLY_ON.get(opcode)
    if only:
        need = Requirement(need.sm, need.ptx, need.suffix, need.feature, only)
    return need


def form_of(opcode: str, modifiers: tuple[str, ...]) -> str | None:
    """The instruction grammar's form for ``opcode.modifiers``, as written in
    :mod:`ptxlint.ptx.grammar_data` (modifier slots, then operands); ``None`` when the grammar
    does not judge it or no form spells it."""
    form = grammar.form_of(opcode, modifiers)
    return form.spec.split(";")[0].strip() if form is not None else None


def instruction_requirement(statement: AsmStatement, instruction: PtxInstruction) -> Requirement:
    """The minimum target of ``instruction`` as written, operands included (an
    ``mbarrier.arrive`` with a count needs sm_90, without one sm_80)."""
    opcode, modifiers = instruction.opcode, instruction.modifiers
    if grammar.judged(opcode, modifiers):
        verdict = judge(statement, instruction)
        if verdict.form is not None:
            return _with_special_registers(instruction, _of_need(verdict.need, opcode, modifiers))
        if any(issue.kind in ("modifier", "combination") for issue in verdict.issues):
            # no form of any target spells it (PTX204's): what the spelling's words would need
            # on their own (ldmatrix's .b8 on sm_100a, beside .m8n8 that never takes it) says
            # nothing of what was meant
            return _NOTHING
    return _with_special_registers(instruction, _spelled(opcode, modifiers))


def _with_special_registers(instruction: PtxInstruction, need: Requirement) -> Requirement:
    """``need`` raised to what a special register among the operands needs (``mov.u32 %0,
    %cluster_ctarank`` needs sm_90 though ``mov`` needs nothing)."""
    for operand in instruction.operands:
        if operand.kind != "special":
            continue
        name, register = special_register(operand.text)
        if register is not None and register.sm > need.sm:
            need = Requirement(sm=register.sm, ptx=max(need.ptx, register.ptx),
                               feature=f"the special register %{name}")
    return need


_NOTHING = Requirement()


def _of_need(need: grammar.Need, opcode: str, modifiers: tuple[str, ...]) -> Requirement:
    """``_from_need(need, mnemonic)``, made once per need and spelling: a function of them, and
    the grammar hands every instruction that matches one form under one binding the same
    ``Need`` (``_modifier_matches``). PTX401 asks of every instruction, and each answer was a
    new frozen dataclass and a joined mnemonic: ``instruction_requirement`` of every
    instruction of CUTLASS's include/ (verdicts given, best of 9, three runs) 12.3-13.7 ->
    8.5-9.2 ms of CPU, the CUDA 13 headers' 7.7-9.0 -> 3.8-7.2 ms. Bounded, holding each need
    so that its id stays its own."""
    key = (id(need), opcode, modifiers)
    known = _BY_NEED.get(key)
    if known is not None and known[0] is need:
        return known[1]
    made = _from_need(need, ".".join((opcode, *modifiers)))
    if len(_BY_NEED) >= _BY_NEED_MAX:
        _BY_NEED.clear()
    _BY_NEED[key] = (need, made)
    return made


_BY_NEED: dict[tuple[int, str, tuple[str, ...]], tuple[grammar.Need, Requirement]] = {}
_BY_NEED_MAX = 4096


@lru_cache(maxsize=4096)
def _spelled(opcode: str, modifiers: tuple[str, ...]) -> Requirement:
    """``requirement``, kept per spelling for ``instruction_requirement``: the instructions the
    grammar does not judge ask it each time."""
    return requirement(opcode, modifiers)


def form_feature(statement: AsmStatement, instruction: PtxInstruction, need: Requirement) -> str:
    """What makes ``instruction`` need ``need``, in words for a message: the modifier whose
    value carries it (``.shared::cluster``); the operands, where the same modifiers with other
    operands spell a lighter form (``mbarrier.arrive`` with a count needs sm_90, without one
    sm_80); else ``need.feature``. Asked only for a finding: it matches the family's forms
    once more."""
    if not grammar.judged(instruction.opcode, instruction.modifiers):
        return need.feature
    form = judge(statement, instruction).form
    if form is None:
        return need.feature
    key = (need.sm, need.suffix)
    if key > (form.need.sm, form.need.suffix):  # a modifier's value raised the form's need
        for slot in form.slots:
            for value in slot.values:
                if (value.need is not None and value.word in instruction.modifiers
                        and (value.need.sm, value.need.suffix) == key):
                    return f"the modifier .{value.word}"
    found = grammar.lightest(instruction.opcode, instruction.modifiers)
    if found is None or found[0] is form or (found[1].sm, found[1].suffix) >= key:
        return need.feature
    lighter, lighter_need = found
    count = len(instruction.operands)
    low, high = lighter.required_operands, len(lighter.operands)
    if low <= count <= high:
        return f"the form its operands select; other operands need only {lighter_need.target}"
    other = f"{low}" if low == high else f"{low} to {high}"
    return (f"the form with {count} operand{'s' if count != 1 else ''}; with {other} it needs "
            f"only {lighter_need.target}")


def _from_need(need: grammar.Need, feature: str) -> Requirement:
    if not need.suffix:
        return Requirement(need.sm, need.ptx, "", feature)
    return Requirement(need.sm, need.ptx, need.suffix, feature, need.only, need.family)


_Entry = tuple[str, tuple[str, ...], int, int, str]
_ENTRIES: dict[str, tuple[_Entry, ...]] | None = None


def _entries(opcode: str) -> tuple[_Entry, ...]:
    """``REQUIREMENTS``' entries for ``opcode`` and those for every opcode (``*``), in the
    table's order, listed once for all opcodes on first use: each instruction spelling's first
    look-up read all 330 entries (the CUDA 13 headers' 1,411 spellings, ``ptx_requirement``
    cold: 28.7 ms -> 4.6 ms, the listing included)."""
    global _ENTRIES
    index = _ENTRIES
    if index is None:  # made whole before it is shared: another thread sees none or all
        index = {op: tuple(e for e in REQUIREMENTS if e[0] in (op, "*"))
                 for op in {"*", *(entry[0] for entry in REQUIREMENTS)}}
        _ENTRIES = index
    return index.get(opcode) or index["*"]


@lru_cache(maxsize=4096)
def _requirement(opcode: str, modifiers: frozenset[str]) -> Requirement:
    best = Requirement()
    for op, needed, sm, ptx, suffix in _entries(opcode):
        if not modifiers.issuperset(needed):
            continue
        if (sm, suffix) > (best.sm, best.suffix):
            feature = ".".join((opcode, *needed)) if op != "*" else "." + ".".join(needed)
            best = Requirement(sm, max(ptx, best.ptx), suffix, feature)
        elif sm == best.sm and ptx > best.ptx:
            best = Requirement(best.sm, ptx, best.suffix, best.feature)
    return best


@lru_cache(maxsize=4096)
def ptx_requirement(opcode: str, modifiers: tuple[str, ...]) -> tuple[int, str]:
    """The PTX ISA version (x10) ``opcode.modifiers`` needs at least, from the "PTX ISA Notes"
    of the ISA (``REQUIREMENTS``, and a form's own ``ptx=``), with the spelling that imposes it;
    ``(0, "")`` when nothing known does. Every matching entry counts, not just the one with the
    highest target: ``mbarrier.try_wait.relaxed`` needs PTX ISA 8.6 for ``.relaxed``."""
    best, feature = 0, ""
    words = frozenset(modifiers)
    for op, needed, _sm, ptx, _suffix in _entries(opcode):
        if ptx <= best or not words.issuperset(needed):
            continue
        best = ptx
        feature = ".".join((opcode, *needed)) if op != "*" else "." + ".".join(needed)
    if grammar.judged(opcode, modifiers):
        need = grammar.modifier_need(opcode, modifiers)
        if need is not None and need.ptx > best:
            best, feature = need.ptx, ".".join((opcode, *modifiers))
    return best, feature


def instruction_ptx_requirement(instruction: PtxInstruction) -> tuple[int, str]:
    """``ptx_requirement`` of ``instruction`` as written, raised to what its forms of as many
    operands need (``grammar.arity_need``: three-input ``max.f32``) and to what a special
    register among its operands needs (``mov.u32 %0, %%aggr_smem_size`` needs PTX ISA 8.1:
    ptxas 13.0 under ``.version 8.0`` answers "Feature '%aggr_smem_size' requires PTX ISA
    .version 8.1"), with the spelling (``%aggr_smem_size``) that imposes it."""
    opcode, modifiers = instruction.opcode, instruction.modifiers
    best, feature = ptx_requirement(opcode, modifiers)
    if grammar.judged(opcode, modifiers):
        count = len(instruction.operands)
        need = grammar.arity_need(opcode, modifiers, count)
        if need is not None and need.ptx > best:
            best, feature = need.ptx, f"{'.'.join((opcode, *modifiers))} with {count} operands"
    for operand in instruction.operands:
        if operand.kind != "special":
            continue
        name, register = special_register(operand.text)
        if register is not None and register.ptx > best:
            best, feature = register.ptx, f"%{name}"
    return best, feature


class Deprecation:
    """An instruction spelling PTX deprecates (``shfl`` without ``.sync``): the modifier that makes
    it current and the targets it is removed from."""

    __slots__ = ("opcode", "current", "message", "removed_sm", "removed_ptx")

    def __init__(
        self, opcode: str, current: str, message: str, removed_sm: int, removed_ptx: int,
    ) -> None:
        self.opcode = opcode
        self.current = current  # the modifier whose presence makes the form current ("sync")
        self.message = message
        self.removed_sm = removed_sm  # removed for targets sm >= this ...
        self.removed_ptx = removed_ptx  # ... from this PTX ISA version


def deprecation(opcode: str, modifiers: tuple[str, ...]) -> Deprecation | None:
    for op, current, message, sm, ptx in DEPRECATED:
        if op == opcode and current not in modifiers:
            return Deprecation(op, current, message, sm, ptx)
    return None


class Advice(NamedTuple):
    """A form ptxas takes but advises against (``mma.sp``): the modifier it names instead, why,
    and the PTX ISA version (x10) that modifier needs."""

    opcode: str
    modifier: str
    advised: str
    why: str
    ptx: int


def advice(opcode: str, modifiers: tuple[str, ...]) -> Advice | None:
    for entry in ADVISED:
        if entry[0] == opcode and entry[1] in modifiers:
            return Advice(*entry)
    return None


# ----------------------------------------------------------------------------- operand types


class TypeInfo(NamedTuple):
    """A PTX type or register class: ``kind`` b (bits), u/s (integer), f (float), x (packed:
    f16x2, bf16x2, f32x2, tf32, SIMD integers; only bit registers hold them)."""

    kind: str
    bits: int


# What nvcc declares for each constraint letter (`nvcc -ptx`: h .b16, r .b32, l .b64, f .f32,
# d .f64).
REGISTER_CLASSES: dict[str, TypeInfo] = {
    "h": TypeInfo("b", 16),
    "r": TypeInfo("b", 32),
    "l": TypeInfo("b", 64),
    "q": TypeInfo("b", 128),
    "f": TypeInfo("f", 32),
    "d": TypeInfo("f", 64),
}

_TYPES: dict[str, TypeInfo] = {}
for _n in (8, 16, 32, 64):
    for _k in "bus":
        _TYPES[f"{_k}{_n}"] = TypeInfo(_k, _n)
_TYPES["b128"] = TypeInfo("b", 128)
_TYPES.update(
    f16=TypeInfo("f", 16),
    bf16=TypeInfo("f", 16),
    f32=TypeInfo("f", 32),
    f64=TypeInfo("f", 64),
    f16x2=TypeInfo("x", 32),
    bf16x2=TypeInfo("x", 32),
    f32x2=TypeInfo("x", 64),
    tf32=TypeInfo("x", 32),
    s16x2=TypeInfo("x", 32),
    u16x2=TypeInfo("x", 32),
    s8x4=TypeInfo("x", 32),
    u8x4=TypeInfo("x", 32),
)
del _n, _k

# Words that name a type but are not in _TYPES: an instruction carrying one is not checked.
_OTHER_TYPES = _expand("{fp8} pred b1 s4 u4 s2 u2")


def type_info(name: str) -> TypeInfo | None:
    return _TYPES.get(name)


def register_fits(register: TypeInfo, operand: TypeInfo, relaxed: bool) -> bool:
    """Whether a register of class ``register`` may be an operand of type ``operand``.

    Measured against ptxas 13.0 ("Arguments mismatch for instruction"): a bit-typed register
    fits any type of its size; a float register fits float and bit types of its size only.
    ``ld``/``st``/``cvt`` (``relaxed``) also take registers wider than the type, except that a
    float register must still match a float type exactly.
    """
    if register.kind == "f" and operand.kind not in ("f", "b"):
        return False
    if relaxed and (register.kind == "b" or operand.kind == "b"):
        return register.bits >= operand.bits
    return register.bits == operand.bits


# Operand signatures: one code per operand position.
#   T  the instruction type (the last type modifier), T1/T2 the first/second type modifier,
#   W  twice the width of T (mul.wide / mad.wide), u32 b32 a fixed type,
#   A  an address, -  not checked (predicates, immediates, operands with several forms).
_SAME = ("T", "T", "T", "T")
_SIGNATURES: dict[str, tuple[str, ...]] = {
    **{
        op: _SAME
        for op in (
            "add sub addc subc mul mad mul24 mad24 sad div rem abs neg min max fma and or xor "
            "not cnot brev copysign rcp sqrt rsqrt sin cos lg2 ex2 tanh mov cvta"
        ).split()
    },
    "popc": ("u32", "T"),
    "clz": ("u32", "T"),
    "bfind": ("u32", "T"),
    "bfe": ("T", "T", "u32", "u32"),
    "bfi": ("T", "T", "T", "u32", "u32"),
    "shl": ("T", "T", "u32"),
    "shr": ("T", "T", "u32"),
    "testp": ("-", "T"),
    "selp": ("T", "T", "T", "-"),
    "setp": ("-", "T", "T", "-"),
    "set": ("T1", "T2", "T2", "-"),
    "cvt": ("T1", "T2"),
    "ld": ("T", "A"),
    "ldu": ("T", "A"),
    "st": ("A", "T"),
    "atom": ("T", "A", "T", "T"),
    "red": ("A", "T"),
    "shfl": ("T", "T", "b32", "b32", "u32"),
    "prmt": ("b32", "b32", "b32", "b32"),
    "lop3": ("b32", "b32", "b32", "b32"),
    "mapa": ("T", "T", "u32"),
    "getctarank": ("u32", "T"),
    "nanosleep": ("u32",),
    "activemask": ("b32",),
    "redux": ("T", "T", "u32"),
}
_RELAXED = frozenset({"ld", "ldu", "st", "cvt"})
# Modifiers that change operand shapes in ways the signatures above do not describe.
_SKIP_WITH = frozenset({"wide", "cc", "pack", "async", "bulk", "v2", "v4", "v8"})


class OperandTypes:
    """The PTX type each operand position of an instruction takes, for the register-type checks."""

    __slots__ = ("types", "relaxed", "names")

    def __init__(
        self, types: tuple[TypeInfo | None, ...], relaxed: bool, names: tuple[str, ...],
    ) -> None:
        self.types = types  # per operand position; None: not checked
        self.relaxed = relaxed  # ld/st/cvt: registers wider than the type are fine
        self.names = names  # the type's spelling per position ("" when not checked)


def operand_types(opcode: str, modifiers: tuple[str, ...]) -> OperandTypes | None:
    """Types of the operand positions of a well-formed instruction, or ``None`` when the table
    does not describe this form (then say nothing about operand types)."""
    signature = _SIGNATURES.get(opcode)
    if signature is None:
        return None
    type_words = [m for m in modifiers if m in _TYPES or m in _OTHER_TYPES]
    if not type_words or any(w in _OTHER_TYPES for w in type_words):
        return None
    if opcode == "mul" and "wide" in modifiers or opcode == "mad" and "wide" in modifiers:
        base = _TYPES[type_words[-1]]
        wide = TypeInfo(base.kind, base.bits * 2)
        sig = ("W", "T", "T", "W")
        types = tuple(wide if c == "W" else base for c in sig)
        spelled = tuple(f"{base.kind}{wide.bits}" if c == "W" else type_words[-1] for c in sig)
        return OperandTypes(types, False, spelled)
    if any(m in _SKIP_WITH for m in modifiers) and opcode not in ("ld", "ldu", "st", "atom", "red"):
        return None
    if opcode in ("cvt", "set"):
        if len(type_words) != 2:
            return None
        first, second = type_words
    else:
        if len(type_words) != 1:
            return None
        first = second = type_words[0]
    resolved: list[TypeInfo | None] = []
    names: list[str] = []
    for code in signature:
        word = {"T": first, "T1": first, "T2": second}.get(code, code)
        info = _TYPES.get(word) if code not in ("A", "-") else None
        resolved.append(info)
        names.append(word if info is not None else "")
    return OperandTypes(tuple(resolved), opcode in _RELAXED, tuple(names))
