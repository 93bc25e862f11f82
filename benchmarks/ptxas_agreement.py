"""Does ptxlint's instruction grammar agree with ptxas, form by form and target by target?

Generates every valid form of every family the grammar covers (``ptxlint/ptx/grammar_data.py``)
and systematic mutants of each (a modifier dropped, swapped for a sibling's, another type,
another immediate (past the form's range, or inside it where a stride may hide), an immediate
for a register read, one operand more or less, another register
class, another state space, a C cast in an operand, a missing comma, an opcode that is not PTX,
the sink ``_`` for a result or a vector element, a 32-bit or a float register as an address, an
immediate for a label),
asks ptxlint for a verdict (the same ``grammar.check`` the rules PTX204/206/207/401 read) and
assembles each with ptxas for sm_75, sm_80, sm_90, sm_90a, sm_100a, sm_100f (the family target),
sm_103a, sm_110a, sm_120a and sm_121a.

Many instructions go into one .ptx per target, one per line; ptxas's line-numbered errors are
mapped back. A syntax error is fatal to the whole file, so that line is recorded and the rest
assembled again; the accepted set is only final once it assembles with no error at all (a
check ptxas makes late cannot hide behind an earlier error). Verdicts are cached by content
hash (ptxas version, target, instruction text) under ``~/.cache/ptxlint-tests/ptxas-agreement``.

    python benchmarks/ptxas_agreement.py            # the full matrix
    python benchmarks/ptxas_agreement.py --sample 300 --family cp,add
    python benchmarks/ptxas_agreement.py --family st --grep 'async' --kind valid,literal-class
    python benchmarks/ptxas_agreement.py --typed --target sm_100a

``--typed`` asks instead of the mutants with registers declared with a type (``.u32``, ``.s32``,
``.f32``, ``.f16x2``, their 16- and 64-bit kin) where the valid instances have bit or float
ones: a scalar operand, a whole vector, its first element alone, a vector of ``.u`` and ``.s``
registers (what a template's own ``.reg`` declarations give, where inline asm's constraint
letters never do).

Printed: verdicts, agreement per family and per mutation kind, every false alarm (ptxlint says
error, ptxas accepts) and every miss in full, and the abstention rate. The verdicts are ptxas
13.0's (the one on PATH); forms of a newer toolkit (``toolkit=13.1``) are proven against that
toolkit's ptxas by tests/test_isa_versions.py (``benchmarks/toolkits.py`` fetches them).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from ptxlint.model import PtxInstruction, PtxOperand  # noqa: E402
from ptxlint.ptx import grammar  # noqa: E402
from ptxlint.ptx.grammar import Form, OperandClass, OperandSpec, immediate_class  # noqa: E402
from ptxlint.ptx.judge import special_register_class  # noqa: E402
from ptxlint.ptx.parser import parse_template  # noqa: E402

TARGETS: tuple[tuple[int, str], ...] = ((75, ""), (80, ""), (90, ""), (90, "a"), (100, "a"),
                                        (100, "f"), (103, "a"), (110, "a"), (120, "a"),
                                        (121, "a"))
HEADER = """.version 9.0
.target {target}
.address_size 64
.entry agreement() {{
.reg .b16 %h<16>; .reg .b32 %r<64>; .reg .b64 %rd<16>; .reg .f32 %f<64>;
.reg .f64 %fd<16>; .reg .pred %p<8>; .reg .b128 %q<4>; .reg .b8 %c<16>;
"""
# --typed: registers declared with a signed, unsigned, float or packed type beside the bit ones
TYPED_DECLARATIONS = (".reg .u16 %us<16>; .reg .s16 %ss<16>; .reg .f16 %hf<16>; "
                      ".reg .u32 %u<16>; .reg .s32 %s<16>; .reg .f16x2 %hx<16>; "
                      ".reg .u64 %ul<16>; .reg .s64 %sl<16>;\n")
FOOTER = "L1:\nret;\n}\n"  # the label the branch forms jump to
_HEADER_LINES = HEADER.count("\n")
MAX_PER_FORM = 24  # valid modifier combinations taken from one form (evenly spread)
MUTATED_PER_FORM = 3  # valid instances of a form that get mutated
# Literals for the mutations register-as-immediate (a literal of the operand's own class) and
# literal-class (one of the other class: a float for an integer operand, an integer for a
# float one; for bit types both float sizes, of which ptxas takes the one of its size).
_F32_ONE, _F64_ONE = "0f3F800000", "1.0"

# ----------------------------------------------------------------------------- registers

_REG_OF_TYPE = {
    "pred": "%p", "b128": "%q", "f32": "%f", "f64": "%fd",
    "f16": "%h", "bf16": "%h", "b16": "%h", "u16": "%h", "s16": "%h",
    "b8": "%h", "u8": "%h", "s8": "%h",
    "b64": "%rd", "u64": "%rd", "s64": "%rd", "f32x2": "%rd",
    # packed narrow floats (cvt) live in bit registers of their size; .b8 ones in %c
    "e2m1x2": "%c", "e4m3x2": "%h", "e5m2x2": "%h", "e2m3x2": "%h", "e3m2x2": "%h",
    "ue8m0x2": "%h", "ue5m3x2": "%h", "e2m1x4": "%h",
}
_TYPE_OF_PREFIX = (("%us", "u16"), ("%ss", "s16"), ("%hf", "f16"), ("%hx", "f16x2"),
                   ("%ul", "u64"), ("%sl", "s64"),  # the typed ones (--typed), longest first
                   ("%rd", "b64"), ("%fd", "f64"), ("%r", "b32"), ("%h", "b16"),
                   ("%u", "u32"), ("%s", "s32"),
                   ("%f", "f32"), ("%p", "pred"), ("%q", "b128"), ("%c", "b8"))
# The registers of each size a typed case puts in place of a bit one (--typed)
_TYPED_OF_BITS = {"%h": ("%us", "%ss", "%hf"), "%r": ("%u", "%s", "%f", "%hx"),
                  "%f": ("%u", "%s", "%r", "%hx"), "%rd": ("%ul", "%sl", "%fd"),
                  "%fd": ("%ul", "%sl", "%rd")}
_OTHER_CLASS = {"%r": "%f", "%f": "%rd", "%rd": "%r", "%h": "%r", "%fd": "%rd", "%p": "%r",
                "%q": "%rd", "%c": "%h"}


def register(type_: str, index: int) -> str:
    if type_ == "b128":
        index %= 4  # HEADER declares %q0..%q3
    if type_ == "pred":
        index %= 8  # the header declares %p0..%p7 only
    return f"{_REG_OF_TYPE.get(type_, '%r')}{index}"


def resolve(operand: PtxOperand) -> OperandClass:
    """What a benchmark operand is: its register class from the name prefix."""
    if operand.kind == "immediate":
        return immediate_class(operand.text)
    if operand.kind == "special":
        return special_register_class(operand)
    if operand.kind == "register":
        for prefix, type_ in _TYPE_OF_PREFIX:
            if operand.text.startswith(prefix) and operand.text[len(prefix):].isdigit():
                return OperandClass("reg", type_)
    return OperandClass("unknown")


# ----------------------------------------------------------------------------- generation


@dataclass(frozen=True)
class Case:
    text: str  # the instruction, without ';'
    family: str  # the opcode
    kind: str  # "valid" or the mutation kind
    origin: str  # the form's spec


def _spread(items: list[tuple[str | None, ...]], limit: int) -> list[tuple[str | None, ...]]:
    if len(items) <= limit:
        return items
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


def _choices(form: Form) -> list[tuple[str | None, ...]]:
    per_slot: list[list[str | None]] = []
    for slot in form.slots:
        words: list[str | None] = [v.word for v in slot.values]
        absent: list[str | None] = [None] if slot.optional else []
        per_slot.append(absent + words)
    total = 1
    for options in per_slot:
        total *= len(options)
    if total <= 4 * MAX_PER_FORM:
        return _spread(list(itertools.product(*per_slot)), MAX_PER_FORM)
    # Too many: cover every value of every slot at least once, cycling the others.
    out = []
    width = max(len(o) for o in per_slot)
    for i in range(width):
        out.append(tuple(options[i % len(options)] for options in per_slot))
    return out[:MAX_PER_FORM]


def _operand_text(spec: OperandSpec, binding: dict[str, str], index: int, full: bool,
                  strict: bool = False) -> str:
    """The operand ``spec`` spelled with the registers of its classes; ``strict``: the form
    takes registers of exactly its operands' sizes (``Form.strict``), so an 8-bit operand gets
    an 8-bit register, as an exact one (``d:b8!``) does."""
    if spec.kind == "addr":
        if spec.type:
            return f"[{register(spec.type, index % 16)}]"
        if spec.element is not None:  # a tensor address: [map, {coordinates}]
            coordinates = _operand_text(spec.element, binding, index, full, strict)
            return f"[%rd{index % 8}, {coordinates}]"
        if spec.parts:  # an address of several parts, each its own operand
            return "[" + ", ".join(
                f"%rd{(index + k) % 8}" if part.kind == "base"
                else _operand_text(part, binding, index * 8 + k, full, strict)
                for k, part in enumerate(spec.parts)) + "]"
        return f"[%rd{index % 8}]"
    if spec.kind == "imm":
        return str(_valid_immediate(spec))
    if spec.kind == "sink":
        return "_"
    if spec.kind == "label":
        return "L1"
    if spec.kind == "vec":
        assert spec.element is not None
        count = grammar.vector_count(spec.count, binding) or 0
        return "{" + ", ".join(
            _operand_text(spec.element, binding, index * 8 + k, full, strict) for k in range(count)
        ) + "}"
    if spec.kind == "pair":
        assert spec.element is not None
        data = _operand_text(spec.element, binding, index, full, strict)
        return f"{data}|%p{index % 8}" if spec.needs_predicate or full else data
    type_ = binding.get(spec.type, spec.type)
    if type_ == "int":
        type_ = "b64"
    if (spec.exact or strict) and type_ in ("b8", "u8", "s8"):
        return f"%c{index % 16}"  # a register of exactly 8 bits
    return register(type_, index % 16)


def _valid_immediate(spec: OperandSpec) -> int:
    values = spec.values
    if values.choices:
        return max(values.choices)
    if values.low is not None:
        return values.low
    return values.step  # 1, or the first multiple


def _invalid_immediates(spec: OperandSpec) -> list[int]:
    values = spec.values
    if values.choices:
        return [v for v in (3, 32, 0) if v not in values.choices][:2]
    out = []
    if values.high is not None:
        out.append(values.high + 1)
    if values.low is not None and values.low > 0:
        out.append(values.low - 1)
    if values.step > 1:
        out.append((values.low or 0) + 1)
    return out


def _inner_immediates(spec: OperandSpec) -> list[int]:
    """Values inside a range the form gives no stride for: a stride ptxas keeps and the
    grammar lacks (setmaxnreg's count, a multiple of 8 in [24..256]) shows as an odd value
    rejected there."""
    values = spec.values
    if values.choices or values.step > 1 or values.low is None or values.high is None \
            or values.high - values.low < 2:
        return []
    middle = (values.low + values.high) // 2 | 1
    return sorted({values.low + 1, min(middle, values.high - 1)})


@dataclass
class _Instance:
    form: Form
    words: list[str]
    binding: dict[str, str]
    operands: list[str]

    def text(self, words: Sequence[str] | None = None, operands: Sequence[str] | None = None,
             opcode: str | None = None) -> str:
        w = self.words if words is None else words
        o = self.operands if operands is None else operands
        mnemonic = ".".join([opcode or self.form.opcode, *w])
        return f"{mnemonic} {', '.join(o)}" if o else mnemonic


def instances(form: Form) -> list[_Instance]:
    out = []
    for choice in _choices(form):
        words = [w for w in choice if w is not None]
        binding = {s.var: w for s, w in zip(form.slots, choice, strict=False)
                   if s.var and w is not None}
        required = [_operand_text(s, binding, i + 1, False, form.strict)
                    for i, s in enumerate(form.operands) if not s.optional]
        out.append(_Instance(form, words, binding, required))
        if any(s.optional for s in form.operands):
            full = [_operand_text(s, binding, i + 1, True, form.strict)
                    for i, s in enumerate(form.operands)]
            out.append(_Instance(form, words, binding, full))
    return out


_TYPE_WORDS = ("u32", "s32", "u64", "f32", "f64", "b32", "b64", "f16", "bf16", "u16", "s16",
               "pred", "b16", "u8", "s8")
_SPACES = ("global", "shared", "shared::cta", "shared::cluster", "local", "const", "param")


def mutants(inst: _Instance) -> Iterable[tuple[str, str]]:
    """(kind, text) pairs: systematic changes of one valid instance."""
    form, words, ops = inst.form, inst.words, inst.operands
    vocabulary = sorted(grammar.family_vocabulary(form.opcode))
    for i in range(len(words)):
        yield "drop-modifier", inst.text(words=words[:i] + words[i + 1:])
    for i, word in enumerate(words):
        siblings = [v for v in vocabulary if v != word and v not in words]
        if siblings:
            pick = siblings[int(hashlib.md5(f"{inst.text()}{i}".encode()).hexdigest(), 16)
                            % len(siblings)]
            yield "sibling-modifier", inst.text(words=words[:i] + [pick] + words[i + 1:])
        if word in _TYPE_WORDS:
            for other in _TYPE_WORDS:
                if other != word and other not in words:
                    yield "other-type", inst.text(words=words[:i] + [other] + words[i + 1:])
                    break
            for other in ("u32", "f32", "b64"):
                if other != word and other not in words:
                    yield "other-type", inst.text(words=words[:i] + [other] + words[i + 1:])
        if word in _SPACES:
            for other in _SPACES:
                if other != word:
                    yield "other-space", inst.text(words=words[:i] + [other] + words[i + 1:])
    if form.positional:
        # the type words rotated (d, a, b -> a, b, d): ptxas reads them by position
        spots = [i for i, w in enumerate(words) if w in grammar.POSITIONAL_TYPES]
        typed = [words[i] for i in spots]
        if len(set(typed)) > 1:
            rotated = list(words)
            for i, w in zip(spots, typed[1:] + typed[:1], strict=True):
                rotated[i] = w
            yield "type-order", inst.text(words=rotated)
    if ops:
        yield "operand-less", inst.text(operands=ops[:-1])
    yield "operand-more", inst.text(operands=[*ops, _extra(ops)])
    for i, (spec, text) in enumerate(zip(form.operands, ops, strict=False)):
        if spec.kind == "imm" or (spec.kind == "regimm" and spec.values.spec != "*"):
            for value in _invalid_immediates(spec):
                yield "other-immediate", inst.text(operands=[*ops[:i], str(value), *ops[i + 1:]])
            for value in _inner_immediates(spec):
                yield "inner-immediate", inst.text(operands=[*ops[:i], str(value), *ops[i + 1:]])
        if spec.kind == "imm":
            yield "immediate-as-register", inst.text(operands=[*ops[:i], "%r9", *ops[i + 1:]])
            yield "c-cast", inst.text(operands=[*ops[:i], f"(int64_t){text}", *ops[i + 1:]])
        if spec.kind == "imm":
            yield "literal-class", inst.text(operands=[*ops[:i], _F64_ONE, *ops[i + 1:]])
        if spec.kind in ("reg", "regimm") and not spec.written and text.startswith("%"):
            # a register read whose form says register-only (``r:``) or register-or-immediate
            # (``a:``): does ptxas agree? (tcgen05.mma.ws's `..., p, 0`, tilelang)
            type_ = inst.binding.get(spec.type, spec.type)
            own, others = _literals(spec, type_)
            yield "register-as-immediate", inst.text(operands=[*ops[:i], own, *ops[i + 1:]])
            for other in others:
                yield "literal-class", inst.text(operands=[*ops[:i], other, *ops[i + 1:]])
        if spec.kind == "addr" and not spec.type and spec.element is None \
                and text.startswith("[%rd"):
            # a 32-bit and a float register as the address (a "r"-bound pointer, a float)
            for other in ("%r", "%f"):
                yield "address-register", inst.text(
                    operands=[*ops[:i], f"[{other}{text[4:]}", *ops[i + 1:]])
        if spec.kind == "addr" and spec.type and text.startswith("[%r"):
            swapped = "[%rd" + text[3:] if not text.startswith("[%rd") else "[%r" + text[4:]
            yield "register-class", inst.text(operands=[*ops[:i], swapped, *ops[i + 1:]])
        if spec.kind in ("reg", "regimm") and text[:2] in ("%r", "%f", "%h", "%p", "%q", "%c"):
            prefix = re.match(r"%[a-z]+", text)
            assert prefix is not None
            other_class = _OTHER_CLASS.get(prefix.group())
            if other_class:
                yield "register-class", inst.text(
                    operands=[*ops[:i], f"{other_class}{text[len(prefix.group()):]}", *ops[i + 1:]])
            if prefix.group() == "%rd":  # a 64-bit float register for a 64-bit integer
                yield "register-class", inst.text(operands=[*ops[:i], f"%fd{text[3:]}",
                                                            *ops[i + 1:]])
    for i, (spec, text) in enumerate(zip(form.operands, ops, strict=False)):
        # the sink for a result: ptxas takes it in some places only (setp, lop3, atom, the
        # 256-bit stores' elements), and a form says where (``d_:``, ``a_:``)
        if spec.written and spec.kind in ("reg", "pair") and text.startswith("%"):
            half = text.split("|", 1)
            sunk = "_" if len(half) == 1 else f"_|{half[1]}"
            yield "sink", inst.text(operands=[*ops[:i], sunk, *ops[i + 1:]])
        if spec.kind == "vec" and text.startswith("{%") and "," in text:
            yield "sink", inst.text(operands=[*ops[:i], "{_," + text.split(",", 1)[1],
                                              *ops[i + 1:]])
        if spec.kind == "label":
            yield "label-as-immediate", inst.text(operands=[*ops[:i], "1", *ops[i + 1:]])
    if len(ops) >= 2:
        joined = [*ops[:-2], f"{ops[-2]} {ops[-1]}"]
        yield "missing-comma", inst.text(operands=joined)
    yield "not-ptx-opcode", inst.text(opcode=form.opcode.upper())


_REGISTER = re.compile(r"%(rd|fd|r|h|f)(\d+)\b")


def typed_mutants(inst: _Instance) -> Iterable[tuple[str, str]]:
    """(kind, text) pairs with typed registers where the instance has bit or float ones: a
    scalar operand replaced by each register of its size ("typed-register"), every element of
    a vector by one of them ("typed-vector"), its first element alone ("typed-element"), and
    a vector of a .u and an .s register mixed ("typed-mix")."""
    ops = inst.operands
    for i, (spec, text) in enumerate(zip(inst.form.operands, ops, strict=False)):
        if spec.kind in ("reg", "regimm", "pair"):
            m = _REGISTER.match(text)
            if m is None:
                continue
            for other in _TYPED_OF_BITS[f"%{m.group(1)}"]:
                swapped = f"{other}{m.group(2)}{text[m.end():]}"
                yield "typed-register", inst.text(operands=[*ops[:i], swapped, *ops[i + 1:]])
        elif spec.kind == "vec" and text.startswith("{"):
            elements = [e.strip() for e in text[1:-1].split(",")]
            found = [_REGISTER.fullmatch(e) for e in elements]
            if not all(found):
                continue
            prefixes = {f"%{m.group(1)}" for m in found if m}
            if len(prefixes) != 1:
                continue
            [prefix] = prefixes
            numbers = [m.group(2) for m in found if m]
            for other in _TYPED_OF_BITS[prefix]:
                whole = "{" + ", ".join(f"{other}{n}" for n in numbers) + "}"
                yield "typed-vector", inst.text(operands=[*ops[:i], whole, *ops[i + 1:]])
                if len(elements) > 1:
                    first = "{" + ", ".join([f"{other}{numbers[0]}", *elements[1:]]) + "}"
                    yield "typed-element", inst.text(operands=[*ops[:i], first, *ops[i + 1:]])
            if len(elements) > 1:
                unsigned, signed = _TYPED_OF_BITS[prefix][:2]
                mixed = "{" + ", ".join(f"{unsigned if k == 0 else signed}{n}"
                                        for k, n in enumerate(numbers)) + "}"
                yield "typed-mix", inst.text(operands=[*ops[:i], mixed, *ops[i + 1:]])


def _literals(spec: OperandSpec, type_: str) -> tuple[str, list[str]]:
    """A literal of the class of an operand of type ``type_``, and literals of the others."""
    if type_ in ("f32", "f64", "f16", "bf16", "f16x2", "bf16x2", "f32x2", "tf32"):
        return (_F64_ONE if type_ == "f64" else _F32_ONE), ["1"]
    own = str(_valid_immediate(spec)) if spec.kind == "regimm" else "1"
    if type_.startswith("b") and type_ in ("b32", "b64"):
        return own, [_F32_ONE, _F64_ONE]
    return own, [_F64_ONE]


def _extra(ops: Sequence[str]) -> str:
    return "%r7" if not ops or not ops[-1].startswith("[") else "%r7"


def generate(families: set[str] | None = None, typed: bool = False) -> list[Case]:
    seen: set[str] = set()
    cases: list[Case] = []

    def add(text: str, family: str, kind: str, origin: str) -> None:
        if text not in seen:
            seen.add(text)
            cases.append(Case(text, family, kind, origin))

    for form in grammar.forms():
        if families and form.opcode not in families:
            continue
        made = instances(form)
        for inst in made if not typed else ():  # (the typed cases' valid forms are these)
            add(inst.text(), form.opcode, "valid", form.spec)
        for inst in made[:MUTATED_PER_FORM]:
            for kind, text in (typed_mutants(inst) if typed else mutants(inst)):
                add(text, form.opcode, kind, form.spec)
    return cases


# ----------------------------------------------------------------------------- ptxlint's side


@dataclass(frozen=True)
class Prediction:
    status: str  # "accept" | "reject" | "abstain"
    reason: str = ""
    need: grammar.Need = grammar.Need()


def predict(text: str) -> Prediction:
    template = parse_template(text + ";", extended=False)
    if len(template.instructions) != 1:
        return Prediction("abstain", "not one instruction")
    instruction: PtxInstruction = template.instructions[0]
    problems = [p.message for p in template.problems]
    if problems:
        return Prediction("reject", f"PTX207: {problems[0]}")
    if not grammar.covered(instruction.opcode):
        if instruction.opcode.lower() != instruction.opcode or not instruction.opcode.isalnum():
            return Prediction("reject", "PTX204: not a PTX opcode")
        return Prediction("abstain", "family not covered")
    verdict = grammar.check(instruction, resolve)
    if verdict.status == "abstain":
        return Prediction("abstain", "grammar abstains")
    if verdict.form is not None and verdict.form.rejected:
        return Prediction("reject", f"warning: {verdict.form.rejected}")
    # an issue ptxas assembles all the same (it moves other data than the operands say) is the
    # program's defect, not the assembly's: ptxas's verdict is accept
    errors = [i for i in verdict.issues if i.severity == "error" and not i.ptxas_takes]
    if errors:
        return Prediction("reject", f"{errors[0].kind}: {errors[0].message}")
    return Prediction("accept", need=verdict.need)


def predicted(prediction: Prediction, sm: int, suffix: str) -> str:
    if prediction.status != "accept":
        return prediction.status
    return "accept" if prediction.need.admits(sm, suffix) else "reject"


# ----------------------------------------------------------------------------- ptxas's side

PTXAS = shutil.which("ptxas")
_LINE_ERROR = re.compile(r"line (\d+); (error|fatal)\s*:\s*(.*)")


def _ptxas_version() -> str:
    if PTXAS is None:
        return ""
    return subprocess.run([PTXAS, "--version"], capture_output=True, text=True).stdout


def cache_path() -> str:
    root = os.environ.get("PTXLINT_TEST_CACHE") or os.path.expanduser("~/.cache/ptxlint-tests")
    return os.path.join(root, "ptxas-agreement", "verdicts.json")


class Oracle:
    """ptxas verdicts (``""`` accepted, else the first error) per (target, text), cached."""

    def __init__(self, declarations: str = "") -> None:
        self.version = hashlib.sha256(_ptxas_version().encode()).hexdigest()[:16]
        # registers declared beyond HEADER's (--typed): part of each key they apply to
        self.declarations = declarations
        self.path = cache_path()
        self.cache: dict[str, str] = {}
        if os.path.exists(self.path):
            with open(self.path) as f:
                self.cache = json.load(f)
        self.runs = 0

    def key(self, target: str, text: str) -> str:
        extra = f"\0{self.declarations}" if self.declarations else ""
        return hashlib.sha256(
            f"v4\0{self.version}\0{target}\0{text}{extra}".encode()).hexdigest()[:24]

    def save(self) -> None:
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        # another run (another worktree) may have saved since this one loaded: keep its verdicts
        if os.path.exists(self.path):
            try:
                with open(self.path) as f:
                    on_disk = json.load(f)
            except (OSError, ValueError):
                on_disk = {}
            self.cache = {**on_disk, **self.cache}
        tmp = self.path + f".{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump(self.cache, f)
        os.replace(tmp, self.path)

    def verdicts(self, target: str, texts: Sequence[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        todo = []
        for text in texts:
            cached = self.cache.get(self.key(target, text))
            if cached is None:
                todo.append(text)
            else:
                out[text] = cached
        for start in range(0, len(todo), 1500):
            chunk = todo[start:start + 1500]
            for text, verdict in self._assemble(target, chunk).items():
                out[text] = verdict
                self.cache[self.key(target, text)] = verdict
        return out

    def _assemble(self, target: str, texts: list[str], depth: int = 0) -> dict[str, str]:
        verdict: dict[str, str] = {}
        pending = list(texts)
        suspect: list[str] = []
        while pending:
            errors, fatal_unplaced, rc = self._run(target, pending)
            if rc == 0:
                verdict.update({t: "" for t in pending})
                break
            if errors:
                for index, message in errors.items():
                    if _trusted(pending[index], message) or len(pending) == 1:
                        verdict[pending[index]] = message
                    else:
                        suspect.append(pending[index])
                pending = [t for i, t in enumerate(pending) if i not in errors]
                continue
            # An error ptxas did not place on a line: one at a time.
            if len(pending) == 1:
                verdict[pending[0]] = fatal_unplaced or "error"
                break
            for text in pending:
                verdict.update(self._assemble(target, [text], depth + 1))
            break
        # Errors blamed on a line about another instruction (ptxas expands div, rem... into
        # internal code that reports against the wrong line once the file has errors): these
        # lines are judged again among themselves, and alone when that does not settle them.
        if suspect:
            if depth == 0 and len(suspect) > 8:
                verdict.update(self._assemble(target, suspect, depth + 1))
            else:
                for text in suspect:
                    verdict.update(self._assemble(target, [text], depth + 1))
        return verdict

    def _run(self, target: str, texts: list[str]) -> tuple[dict[int, str], str, int]:
        assert PTXAS is not None
        # (the declarations go on HEADER's last line: the line numbers stay HEADER's)
        header = HEADER.format(target=target)[:-1] + " " + self.declarations
        body = header.rstrip("\n") + "\n" + "".join(f"{t};\n" for t in texts) + FOOTER
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "agreement.ptx")
            with open(path, "w") as f:
                f.write(body)
            proc = subprocess.run([PTXAS, f"-arch={target}", path, "-o", os.devnull],
                                  capture_output=True, text=True)
        self.runs += 1
        errors: dict[int, str] = {}
        unplaced = ""
        for line in proc.stderr.splitlines():
            m = _LINE_ERROR.search(line)
            if m is None:
                if "fatal" in line and "aborted due to errors" not in line:
                    unplaced = line
                continue
            index = int(m.group(1)) - _HEADER_LINES - 1
            if 0 <= index < len(texts):
                errors.setdefault(index, m.group(3).strip())
            else:
                unplaced = line
        if proc.returncode < 0:  # a crash (ld.global.v8.b16: SIGSEGV) is no verdict
            unplaced = f"{CRASHED} (signal {-proc.returncode})"
        return errors, unplaced, proc.returncode


CRASHED = "ptxas crashed"
_NAMED = re.compile(r"instruction '([A-Za-z0-9_]+)")


def _trusted(text: str, message: str) -> bool:
    """Whether an error ptxas placed on the line of ``text`` is about that instruction."""
    m = _NAMED.search(message)
    if m is not None and m.group(1) != text.split(".", 1)[0].split(" ", 1)[0]:
        return False
    if "__cuda" in message:  # ptxas's own helper functions, pulled in by another line
        return False
    # ptxas 13.0 sometimes places a vector error of another line on the third line of the
    # file ("Result vector expected" on mul.hi.s32, on a store; "Vector type too large" on a
    # prmt.b32 that assembles alone): a vector message needs a vector here, a result-vector
    # one a vector modifier and a scalar destination
    if (re.search(r"result vector|vector operand|vector size|vector type", message, re.I)
            and ".v" not in text and "{" not in text):
        return False
    # and "Vector type too large" on a vector line as well (`mov.v4.b32` of four .b32, 128
    # bits, which assembles alone): judged again, alone where it persists
    if "vector type too large" in message.lower():
        return False
    # and "Illegal Addressing Mode in instruction 'setp'" on a setp of registers in a cold
    # run's batch (it assembles alone, on every target): an addressing error needs an address
    if "addressing mode" in message.lower() and "[" not in text:
        return False
    operands = text.split(" ", 1)[1] if " " in text else ""
    if "result vector" in message.lower() and (".v" not in text or operands[:1] in "{["):
        return False
    for word in re.findall(r"'(\.[\w:]+)'", message):
        if word not in text and "Unknown" not in message:
            return False
    # and "Illegal modifier 'dimension' for instruction 'setp'" on setp lines of a cold run's
    # batch that holds texture instructions (each assembles alone): a modifier ptxas names by
    # its own word, not one the line spells, is judged again, alone where it persists
    for word in re.findall(r"modifier '(\w+)'", message):
        if word not in text:
            return False
    return not re.search(r"'[A-Z][a-z]+'", message)  # internal names: 'Clamp', 'Permute'


# ----------------------------------------------------------------------------- the report


@dataclass
class Row:
    case: Case
    target: str
    ptxlint: str  # accept | reject | abstain
    ptxas: str  # accept | reject | crash
    reason: str
    ptxas_message: str


def evaluate(cases: Sequence[Case], oracle: Oracle,
             targets: Sequence[tuple[int, str]] = TARGETS) -> list[Row]:
    predictions = {c.text: predict(c.text) for c in cases}
    texts = [c.text for c in cases]
    names = [f"sm_{sm}{suffix}" for sm, suffix in targets]
    # one target's batches after another's wait on ptxas alone: the targets are assembled side
    # by side, a thread each (each waits on its own ptxas process), up to a core each
    with ThreadPoolExecutor(max_workers=max(1, min(len(names), os.cpu_count() or 1))) as pool:
        by_target = list(pool.map(lambda target: oracle.verdicts(target, texts), names))
    rows: list[Row] = []
    for (sm, suffix), target, verdicts in zip(targets, names, by_target, strict=True):
        for case in cases:
            p = predictions[case.text]
            message = verdicts[case.text]
            verdict = "crash" if message.startswith(CRASHED) else "reject" if message else "accept"
            rows.append(Row(case, target, predicted(p, sm, suffix), verdict, p.reason, message))
    oracle.save()
    return rows


def summarize(rows: Sequence[Row], out: object = sys.stdout) -> dict[str, object]:
    def line(text: str = "") -> None:
        print(text, file=out)  # type: ignore[call-overload]

    crashed = [r for r in rows if r.ptxas == "crash"]  # no verdict: outside the agreement
    rows = [r for r in rows if r.ptxas != "crash"]
    spoken = [r for r in rows if r.ptxlint != "abstain"]
    agree = [r for r in spoken if r.ptxlint == r.ptxas]
    false_alarms = [r for r in spoken if r.ptxlint == "reject" and r.ptxas == "accept"]
    misses = [r for r in spoken if r.ptxlint == "accept" and r.ptxas == "reject"]
    forms = {r.case.text for r in rows}
    abstained = {r.case.text for r in rows if r.ptxlint == "abstain"}
    families = {r.case.family for r in rows}
    valid = {r.case.text for r in rows if r.case.kind == "valid"}
    line(f"forms: {len(forms)} ({len(valid)} valid, {len(forms) - len(valid)} mutants) in "
         f"{len(families)} families; (form, target) verdicts: {len(rows)}")
    pct = 100.0 * len(agree) / len(spoken) if spoken else 100.0
    line(f"ptxlint speaks on {len(spoken)} verdicts; agreement {len(agree)}/{len(spoken)} "
         f"({pct:.2f}%); false alarms {len(false_alarms)}; misses {len(misses)}")
    line(f"abstention: {len(abstained)}/{len(forms)} forms "
         f"({100.0 * len(abstained) / max(1, len(forms)):.2f}%)")
    if crashed:
        silent = sum(1 for r in crashed if r.ptxlint == "abstain")
        shown = sorted({f"[{r.target}] {r.case.text}" for r in crashed})[:5]
        line(f"ptxas crashed on {len(crashed)} verdicts (not counted; ptxlint abstains on "
             f"{silent}): " + ", ".join(shown))
    for title, key in (("family", lambda r: r.case.family), ("mutation", lambda r: r.case.kind)):
        line(f"\nagreement per {title}:")
        groups: dict[str, list[Row]] = defaultdict(list)
        for r in rows:
            groups[key(r)].append(r)
        for name in sorted(groups):
            g = groups[name]
            s = [r for r in g if r.ptxlint != "abstain"]
            a = sum(1 for r in s if r.ptxlint == r.ptxas)
            rejected = sum(1 for r in g if r.ptxas == "reject")
            line(f"  {name:24} verdicts {len(g):6}  speaks {len(s):6}  agree {a:6} "
                 f"({100.0 * a / max(1, len(s)):6.2f}%)  ptxas rejects {rejected:6}")
    line(f"\nfalse alarms ({len(false_alarms)}):")
    for r in false_alarms:
        line(f"  [{r.target}] {r.case.text};  ptxlint: {r.reason}  ({r.case.kind}; "
             f"{r.case.origin})")
    line(f"\nmisses ({len(misses)}):")
    for r in misses:
        line(f"  [{r.target}] {r.case.text};  ptxas: {r.ptxas_message}  ({r.case.kind})")
    kinds = Counter(r.case.kind for r in rows)
    return {"verdicts": len(rows), "spoken": len(spoken), "agree": len(agree),
            "false_alarms": len(false_alarms), "misses": len(misses), "forms": len(forms),
            "abstained": len(abstained), "families": len(families), "kinds": dict(kinds),
            "crashed": len(crashed)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--family", help="comma-separated opcodes (default: all covered)")
    parser.add_argument("--kind", help="comma-separated case kinds (valid, mutation kinds)")
    parser.add_argument("--grep", help="only the cases whose instruction text matches this regex")
    parser.add_argument("--sample", type=int, default=0, help="take every Nth case only")
    parser.add_argument("--json", help="write the summary here")
    parser.add_argument("--typed", action="store_true",
                        help="instead of the mutants, typed registers (.u32, .s32, .f32, .f16x2 "
                             "...) in place of the bit and float ones, alone and in vectors")
    parser.add_argument("--target", help="comma-separated targets (sm_100a,...; default: all)")
    args = parser.parse_args(argv)
    if PTXAS is None:
        print("ptxas not found on PATH", file=sys.stderr)
        return 2
    families = set(args.family.split(",")) if args.family else None
    cases = generate(families, typed=args.typed)
    if args.kind:
        kinds = set(args.kind.split(","))
        cases = [c for c in cases if c.kind in kinds]
    if args.grep:
        pattern = re.compile(args.grep)
        cases = [c for c in cases if pattern.search(c.text)]
    if args.sample:
        step = max(1, len(cases) // args.sample)
        cases = cases[::step]
    oracle = Oracle(TYPED_DECLARATIONS.strip() if args.typed else "")
    targets = TARGETS
    if args.target:
        wanted = set(args.target.split(","))
        targets = tuple(t for t in TARGETS if f"sm_{t[0]}{t[1]}" in wanted)
    rows = evaluate(cases, oracle, targets)
    summary = summarize(rows)
    print(f"\nptxas runs: {oracle.runs}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    return 0 if summary["false_alarms"] == 0 and summary["misses"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
