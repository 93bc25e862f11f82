"""Whether an instruction's operands fit the form its modifiers matched: the operand count,
each operand's kind (register, immediate, address, vector, pair, label, sink) and its register
type or immediate value, as ``ptxlint.ptx.grammar.check`` asks for each form it tries.

The operands' classes come from a resolver (:class:`RefClasses` for a statement's ``%N``, read
from its constraints); a form's variables (``T`` bound to ``.f32``) come from the modifier
match as a binding.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from ptxlint.lazy_regex import on_first_use
from ptxlint.model import PtxInstruction, PtxOperand
from ptxlint.ptx.forms import Form, OperandSpec
from ptxlint.ptx.operand_classes import (
    TYPE_BITS,
    Issue,
    OperandClass,
    Resolver,
    float_literal_value,
    literal_beside_float,
    literal_fits,
    type_fits,
    vector_type,
)
from ptxlint.ptx.special_registers import SPECIAL_REGISTERS, VECTOR_SPECIAL_REGISTERS

__all__ = [
    "Checked",
    "RefClasses",
    "c_operand_issue",
    "check_operands",
    "looks_like_c",
    "vector_count",
    "vector_literal_issue",
]


# What ``_check_one`` said of the operand at each position, with the spec, binding and
# relaxedness it was asked under: the forms of one spelling that ``check`` tries in turn share
# most operand specs (wgmma's two forms differ only in how A is passed: both take the same
# 128-register accumulator), and an operand checked under an equal question is not checked again
# (one entry per operand position, kept for one ``check``; the figure is ``RefClasses``').
Checked = dict[int, tuple[OperandSpec, dict[str, str], bool, "list[Issue] | None"]]


def check_operands(
    instruction: PtxInstruction, form: Form, binding: dict[str, str], resolve: Resolver,
    relaxed: bool, checked: Checked | None = None,
) -> tuple[list[Issue], bool]:
    """The operand issues of ``instruction`` under ``form``, its variables bound by
    ``binding``; ``True`` second when an operand cannot be judged (a macro hole, an operand
    spliced in by a "C" constraint). ``checked`` keeps each operand's answer for the next form
    ``check`` tries."""
    operands = instruction.operands
    specs = form.operands
    issues: list[Issue] = []
    for operand in operands:
        if operand.kind == "opaque":
            return [], True
    for operand in operands:
        if operand.kind == "other" and looks_like_c(operand.text):
            return [_c_issue(instruction, operand)], False
    if form.lax_vectors:
        lax = [(position, o, s) for position, (o, s) in enumerate(zip(operands, specs,
                                                                     strict=False))
               if o.kind == "vector" and s.kind in ("reg", "regimm")]
        for position, operand, spec in lax:
            # whatever ptxas's rules for a vector in a scalar's place, a value read is no sink
            # (ptxas 13.0, st.async ... {%1, _}: "Sink '_' not allowed as a source operand")
            for part in operand.parts:
                if part.text == "_" and not spec.written:
                    return [Issue("operand", f"'_' cannot be an element of "
                                  f"{_where(instruction, position)}: a sink is no source",
                                  part.start, part.end)], False
        if lax:
            return [], True
    count = len(operands)
    if count < form.required_operands or count > len(specs):
        low, high = form.required_operands, len(specs)
        expected = f"{low}" if low == high else f"{low} to {high}"
        start = operands[0].start if operands else instruction.opcode_end
        end = operands[-1].end if operands else instruction.opcode_end
        issues.append(Issue("operand", f"'{instruction.mnemonic}' takes {expected} operand"
                            f"{'s' if high != 1 else ''}, not {count}", start, end))
        return issues, False
    classes = resolve.classes if type(resolve) is RefClasses else None
    listed = len(classes) if classes is not None else 0
    for position, (operand, spec) in enumerate(zip(operands, specs, strict=False)):
        kind = operand.kind
        if kind in _LEAF_KINDS and spec.kind in _LEAF_SPECS:
            # what _check_one does with a register or immediate under a register or immediate
            # spec, without its dispatch (most operands): a %N's class read from the list as
            # RefClasses would, no answer kept for the next form (reading it again costs less).
            # With _scaled: judging every instruction of CUTLASS's sparse GMMA header and the
            # CUDA headers' generated ld.h (cold verdicts, typed and bits) 270 -> 249 M
            # instructions a round (cachegrind)
            if classes is not None and kind == "ref" and not operand.parts:
                ref = operand.ref
                cls = classes[ref] if ref is not None and ref < listed else _UNKNOWN_CLASS
            else:
                cls = resolve(operand)
            if kind == "special" and not _reads_special_registers(instruction):
                found = _special_operand(instruction, operand)
            else:
                found = _check_leaf(instruction, operand, spec, binding, relaxed, position, cls)
            if found:
                issues.extend(found)
            continue
        known = checked.get(position) if checked is not None else None
        if (known is not None and known[0] is spec and known[2] == relaxed
                and known[1] == binding):
            result = known[3]
        else:
            result = _check_one(instruction, operand, spec, binding, resolve, relaxed, position)
            if checked is not None:
                checked[position] = (spec, binding, relaxed, result)
        if result is None:
            return [], True
        issues.extend(result)
    if not issues and form.bounded:
        issues.extend(_exceeded(instruction, specs, resolve))
    return issues, False


def _exceeded(instruction: PtxInstruction, specs: tuple[OperandSpec, ...],
              resolve: Resolver) -> list[Issue]:
    """An operand whose constant value is above the one of the operand its spec bounds it by
    (``a:u32:<=#2``): cp.async's src-size above its cp-size, which ptxas 13.0 answers with
    "Argument 3 of instruction 'cp.async': value '8' out of range"."""
    operands = instruction.operands
    for position, (operand, spec) in enumerate(zip(operands, specs, strict=False)):
        if spec.at_most is None or spec.at_most >= len(operands):
            continue
        value, bound = resolve(operand).value, resolve(operands[spec.at_most]).value
        if value is not None and bound is not None and value > bound:
            return [Issue("operand", f"{_where(instruction, position)} is {value}, above "
                          f"{_ordinal(spec.at_most)} ({bound}), its bound", operand.start,
                          operand.end)]
    return []


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
                          operand.start, operand.end, misplaced=True)]
        if instruction.opcode in _HANDLES and operand.parts:
            handle = _surface_handle_issue(instruction, operand.parts[0], position, resolve)
            if handle is not None:
                return [handle]
        if spec.parts:
            return _parts_issues(instruction, operand, spec, binding, resolve, relaxed,
                                 position)
        if spec.element is None and operand.parts:
            shape = _address_shape_issue(instruction, operand, position, resolve)
            if shape is not None:
                return [shape]
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
                      operand.start, operand.end, misplaced=True)]
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
            if vector_count(spec.count, binding) == 1 and kind in ("ref", "register"):
                return [Issue("operand", f"'{operand.text}' should be a vector of one, "
                              f"'{{{operand.text}}}' ({_where(instruction, position)})",
                              operand.start, operand.end, one_element_vector=True)]
            if _surface_data(instruction, position, "sust"):
                return [Issue("operand", f"'{operand.text}' should be a vector '{{...}}' ("
                              f"{_where(instruction, position)}): ptxas takes a scalar and "
                              "reads the registers after it as the other elements",
                              operand.start, operand.end, ptxas_takes=True)]
            return [Issue("operand", f"'{operand.text}' should be a vector '{{...}}' ("
                                     f"{_where(instruction, position)})",
                          operand.start, operand.end)]
        size = vector_count(spec.count, binding)
        if size is not None and len(operand.parts) != size:
            return [Issue("operand", f"'{operand.text}' has {len(operand.parts)} element"
                          f"{'s' if len(operand.parts) != 1 else ''}, "
                          f"{_where(instruction, position)} takes {size}",
                          operand.start, operand.end,
                          short_by=max(0, size - len(operand.parts)))]
        if operand.parts and all(part.text == "_" for part in operand.parts):
            # ptxas 13.0, whatever the instruction: "Unable to infer type of vector elements
            # (assuming .b8)"
            return [Issue("operand", f"every element of '{operand.text}' ("
                          f"{_where(instruction, position)}) is the sink: ptxas cannot tell "
                          "the vector's type; keep a register in it", operand.start,
                          operand.end)]
        element = spec.element
        assert element is not None
        return _check_elements(instruction, operand, element, binding, resolve, relaxed,
                               position)
    if kind == "vector":
        if (len(operand.parts) == 1 and spec.kind in ("reg", "regimm")
                and _takes_one_element_vector(instruction, position)):
            # ptxas reads a one-element vector as the scalar (Triton writes `{$0}`)
            return _check_one(instruction, operand.parts[0], spec, binding, resolve, relaxed,
                              position)
        if _surface_data(instruction, position, "suld", "sust") and len(operand.parts) in (2, 4):
            # (of two or four: a vector of three ptxas rejects, "Illegal vector size: 3")
            return [Issue("operand", f"'{operand.text}' is a vector, but "
                          f"{_where(instruction, position)} is not: ptxas takes it and moves "
                          "the first element only; write .v2 or .v4 for the whole vector",
                          operand.start, operand.end, ptxas_takes=True)]
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
            sinks = [part.text == "_" for part in operand.parts]
            if len(sinks) == 2 and all(sinks):
                # ptxas 13.0: "Parsing error near '_': syntax error", for every pair
                return [Issue("operand", f"'{operand.text}' discards both halves of "
                              f"{_where(instruction, position)}: ptxas cannot read it; keep "
                              "one of them", operand.start, operand.end)]
            if spec.needs_predicate and len(sinks) == 2 and sinks[1]:
                # ptxas 13.0: "Predicate output expected for instruction 'elect'" ('lop3')
                return [Issue("operand", f"the second half of {_where(instruction, position)}"
                              f" must be a predicate, not the sink '_' ('{operand.text}')",
                              operand.parts[1].start, operand.parts[1].end)]
            found = _check_one(instruction, operand.parts[0], spec.element, binding, resolve,
                               relaxed, position)
            second = _predicate_half(instruction, operand, resolve)
            return found if second is None else [*(found or ()), second]
        return _check_one(instruction, operand, spec.element, binding, resolve, relaxed,
                          position)
    if kind == "pair":
        return [Issue("operand", f"'{operand.text}' is a register pair, but "
                                 f"{_where(instruction, position)} is not",
                      operand.start, operand.end)]
    if kind == "other":
        if operand.text == "_" and spec.written and in_vector and instruction.opcode == "tcgen05":
            # every tcgen05.ld (and .ld.red) result vector: "Result discard mode is not allowed
            # for instruction 'ld'" (ptxas 13.0; a one-element {_}: "Unable to infer type")
            return [Issue("operand", f"'_' cannot be an element of "
                          f"{_where(instruction, position)}: tcgen05.ld takes no sink in its "
                          "result vector (ptxas: \"Result discard mode is not allowed\")",
                          operand.start, operand.end)]
        if operand.text == "_" and spec.written and in_vector and (
                instruction.opcode in _SINK_BY_FORM
                or (instruction.opcode == "wmma" and "mma" in instruction.modifiers)
                or (instruction.opcode == "tex" and "f16x2" in instruction.modifiers)):
            return None  # the form (or the target) decides: not judged
        if operand.text == "_" and (spec.sink or (spec.written and in_vector)):
            return []  # ptxas takes the sink for an element of a written vector (ld's)
        if operand.text == "_":
            return [Issue("operand", f"'_' cannot be {_where(instruction, position)}",
                          operand.start, operand.end)]
        return None  # sums and the like: say nothing
    if kind == "label":
        return None
    if operand.kind == "special" and not _reads_special_registers(instruction):
        return _special_operand(instruction, operand)
    return _check_leaf(instruction, operand, spec, binding, relaxed, position, resolve(operand))


def _predicate_half(instruction: PtxInstruction, operand: PtxOperand, resolve: Resolver
                    ) -> Issue | None:
    """The second half of a pair ``d|p`` is a predicate wherever the ISA has one: ptxas 13.0
    says "Predicate output expected" (``shfl``, ``elect``) or "Arguments mismatch" (``setp``)
    for any other register there."""
    if len(operand.parts) != 2:
        return None
    return not_a_predicate(operand.parts[1], resolve,
                           f"the second half of '{instruction.mnemonic}'s pair")


def not_a_predicate(operand: PtxOperand, resolve: Resolver, where: str) -> Issue | None:
    """An operand in a place that takes a predicate register only (``where``: a guard, a
    pair's second half) that is known to be another register: a ``%N`` of a register letter
    (nvcc has no predicate letter), a register the template declares with another type."""
    if operand.kind not in ("ref", "register", "special"):
        return None
    cls = resolve(operand)
    if cls.kind != "reg" or cls.type is None or cls.type == "pred":
        return None
    return Issue("type", f"'{operand.text}' is a .{cls.type} register, but {where} must be a "
                 ".pred register", operand.start, operand.end)


class RefClasses:
    """A resolver that reads a ``%N``'s class from a list by operand index (``classes``: what
    each asm operand's constraint declares) and asks ``other`` of any other register or
    immediate; an aggregate (address, vector, pair) is unknown. :func:`ptxlint.ptx.judge.judge`
    resolves with one, and the checker reads a vector's ``%N`` elements from the list in its
    own loop instead of a call per element (``_check_elements``). With ``Checked``, judging
    the 2,115 instructions of CUTLASS's GMMA headers: 379 M -> 275 M instructions (valgrind)."""

    __slots__ = ("classes", "other")

    def __init__(self, classes: Sequence[OperandClass], other: Resolver) -> None:
        self.classes = classes
        self.other = other

    def __call__(self, operand: PtxOperand) -> OperandClass:
        if operand.parts:
            return _UNKNOWN_CLASS
        if operand.kind == "ref":
            ref, classes = operand.ref, self.classes
            return classes[ref] if ref is not None and ref < len(classes) else _UNKNOWN_CLASS
        return self.other(operand)


_UNKNOWN_CLASS = OperandClass("unknown")


def _check_elements(
    instruction: PtxInstruction,
    operand: PtxOperand,
    element: OperandSpec,
    binding: dict[str, str],
    resolve: Resolver,
    relaxed: bool,
    position: int,
) -> list[Issue] | None:
    """The vector branch of ``_check_one``: each element against ``element``. A register or
    immediate element is checked here, without ``_check_one``'s dispatch (a wgmma's
    accumulator is 128 of them), a plain ``%N``'s class read from ``RefClasses.classes`` in
    the loop (what ``resolve`` would answer, without a call each). Whether ``_check_leaf``
    finds an issue depends on the class alone (the operand's text is only quoted in the
    message), and the resolvers share their class objects: an element of the class that
    passed just before passes too. ptxas judges the registers' types as one (``vector_type``):
    where the vector fits, no element's type is reported; where it does not, each element
    that does not fit on its own is; a mix ptxas rejects is reported on the vector where no
    element is."""
    leaf = element.kind in _LEAF_SPECS
    classes = resolve.classes if leaf and type(resolve) is RefClasses else None
    count = len(classes) if classes is not None else 0
    # each element's class, None for one that _check_one judges (a sink, a nested operand)
    found: list[OperandClass | None] = []
    for part in operand.parts:
        kind = part.kind
        if classes is not None and kind == "ref" and not part.parts:
            ref = part.ref
            found.append(classes[ref] if ref is not None and ref < count else _UNKNOWN_CLASS)
        elif leaf and kind in _LEAF_KINDS:
            found.append(resolve(part))
        else:
            found.append(None)
    fits, clash = _vector_fits(instruction, element, binding, relaxed, found) if leaf else (
        False, "")
    out: list[Issue] = []
    passed: OperandClass | None = None  # the class of the last element that passed
    for part, cls in zip(operand.parts, found, strict=True):
        if cls is None:
            sub = _check_one(instruction, part, element, binding, resolve, relaxed, position,
                             in_vector=True)
            if sub is None:
                return None
            out.extend(sub)
            continue
        if cls is passed:
            continue
        issues = _check_leaf(instruction, part, element, binding, relaxed, position, cls,
                             in_vector=True, type_judged=fits)
        if issues:
            out.extend(issues)
        else:
            passed = cls
    if clash and not any(issue.kind == "type" for issue in out):
        mixed = (f"registers of {clash}" if clash != "sizes"
                 else "registers of different sizes")
        out.append(Issue("type", f"'{operand.text}' ({_where(instruction, position)}) holds "
                         f"{mixed}: ptxas types a vector by its registers, which must be of one "
                         "size, and of one type but for untyped .b ones and a .u beside an .s",
                         operand.start, operand.end))
    if not out:
        literal = _literal_mix(instruction, operand, position,
                               [cls for cls in found if cls is not None])
        if literal is not None:
            out.append(literal)
    return out


def _literal_mix(instruction: PtxInstruction, operand: PtxOperand, position: int,
                 classes: Sequence[OperandClass]) -> Issue | None:
    """An integer literal beside a float register in the vector ``operand`` (ptxas 13.0:
    "Vector with elements of different types are not allowed", ``literal_beside_float``)."""
    mixed = literal_beside_float(classes)
    if mixed is None:
        return None
    hint = {"f32": ": write it as a float bit pattern ('0f3F800000' is 1.0f)",
            "f64": ": write it as a float bit pattern ('0d3FF0000000000000' is 1.0)"}
    return Issue("operand", f"'{operand.text}' ({_where(instruction, position)}) holds an "
                 f"integer literal beside a .{mixed} register, and ptxas takes no vector whose "
                 f"elements differ in type{hint.get(mixed, '')}", operand.start, operand.end,
                 typed_floats=True)


def vector_literal_issue(instruction: PtxInstruction, resolve: Resolver) -> Issue | None:
    """``_literal_mix`` for an instruction no form judges (tex, tld4): its vectors, also one
    inside an address ('[%4, {%5, %6}]'), looked at alone."""
    for position, operand in enumerate(instruction.operands):
        for vector in (operand, *operand.parts):
            if vector.kind == "vector":
                issue = _literal_mix(instruction, vector, position, [
                    resolve(part) for part in vector.parts if part.kind in _LEAF_KINDS])
                if issue is not None:
                    return issue
    return None


def _vector_fits(
    instruction: PtxInstruction, element: OperandSpec, binding: dict[str, str], relaxed: bool,
    found: Sequence[OperandClass | None],
) -> tuple[bool, str]:
    """Whether a vector's registers fit ``element``'s type as one (``vector_type``; a
    register of unknown type may be a bit one, which fits: not judged), and the mix ptxas
    rejects ("sizes", or the two types side by side)."""
    want = _type_of(element, binding)
    types = [cls.type if cls.kind == "reg" else None for cls in found
             if cls is not None and cls.kind != "imm"]
    whole = vector_type(types)
    if whole.clash == "kinds":
        named = sorted({f".{t}" for t in types if t and TYPE_BITS.get(t, "b")[0] != "b"})
        return False, " and ".join(named[:2])
    if whole.clash:
        return False, whole.clash
    if not want or want == "int":
        return False, ""
    if whole.type is None:
        return True, ""
    if type_fits(whole.type, want, relaxed, element.exact, element.untyped, element.typed):
        return True, ""
    # a vector of .u/.s registers for a float vector (.f16, .f32, .f64; not .bf16, which red
    # and atom refuse them for, nor a packed one: '.v2.f16x2 {%u0, %u1}' is "Arguments
    # mismatch" in atom, red and multimem) of a '.v2'/'.v4' instruction (ld, st, mov, atom,
    # red, multimem, tex: ptxas 13.0), where one such register alone is "Arguments mismatch";
    # not for the vectors of mma, whose count the shape sets. (An .f16 vector is no .bf16 one:
    # atom, red and multimem.red refuse it, multimem.ld_reduce and multimem.st read .bf16 as
    # untyped .b16 data.)
    mine, theirs = TYPE_BITS.get(whole.type), TYPE_BITS.get(want)
    vectored = any(m in _VECTOR_WORDS for m in instruction.modifiers)
    return (vectored and mine is not None and theirs is not None and mine[1] == theirs[1]
            and mine[0] in "us" and theirs[0] == "f" and want != "bf16"), ""


_VECTOR_WORDS = frozenset({"v2", "v4", "v8"})


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




def _parts_issues(
    instruction: PtxInstruction, operand: PtxOperand, spec: OperandSpec,
    binding: dict[str, str], resolve: Resolver, relaxed: bool, position: int,
) -> list[Issue] | None:
    """An address of several comma-separated parts (``spec.parts``): as many parts as the form
    has, each what its spec says; None (say nothing) where a part is a macro piece or the
    count differs around one."""
    parts = operand.parts
    if len(parts) != len(spec.parts):
        if any(p.kind in ("opaque", "other") for p in parts):
            return None
        return [Issue("operand", f"'{operand.text}' should be an address of {len(spec.parts)} "
                      f"comma-separated parts ({_where(instruction, position)})",
                      operand.start, operand.end)]
    issues: list[Issue] = []
    for part, part_spec in zip(parts, spec.parts, strict=True):
        if part_spec.kind == "base":
            continue  # a tensor map: a register or a parameter's name
        found = _check_one(instruction, part, part_spec, binding, resolve, relaxed, position)
        if found is None:
            return None
        issues.extend(found)
    return issues


def _address_shape_issue(
    instruction: PtxInstruction, operand: PtxOperand, position: int, resolve: Resolver
) -> Issue | None:
    """An address ptxas 13.0 cannot read: two registers (`[a+b]`, `[a+-b]`), a register after
    an immediate (`[4+a]`), or a subtraction (`[a-4]`: the ISA's offset is `+` an immediate,
    negative or not, `[a+-4]`): "Parsing error" each; and an immediate address outside .local
    (`ld.shared.u32 r, [16]`: "Immediate addresses allowed only for .local state space"). A
    `%N` counts as what its constraint makes it ("n": an immediate)."""
    kinds: list[str] = []
    subtracted = False  # `a-4`: a '-' right after the register (after an immediate, `a+8-4`,
    # it is a constant expression's, which ptxas takes)
    for part in operand.parts:
        if part.kind == "other" and part.text.startswith("-") and len(part.parts) == 1:
            part = part.parts[0]  # `-b`
        if part.kind == "immediate":
            kinds.append("imm")
        elif part.kind in ("ref", "register"):
            cls = resolve(part)
            if cls.kind not in ("reg", "imm"):
                return None
            kinds.append(cls.kind)
            if cls.kind == "reg":
                after = operand.text[part.end - operand.start:].lstrip()
                subtracted = subtracted or after.startswith("-")
        else:
            return None  # an expression, a macro piece: read no further
    registers = kinds.count("reg")
    where = _where(instruction, position)
    if registers > 1 or (registers and kinds[0] == "imm"):
        return Issue("operand", f"'{operand.text}' is no address ptxas reads ({where}): an "
                     "address is one register or symbol plus immediate offsets, '[a+16]' "
                     "(ptxas: \"Parsing error\")", operand.start, operand.end)
    if subtracted:
        return Issue("operand", f"'{operand.text}' is no address ptxas reads ({where}): a "
                     "negative offset is added, '[a+-4]' (ptxas: \"Parsing error near '-'\")",
                     operand.start, operand.end)
    if (not registers and all(p.kind == "immediate" for p in operand.parts)
            and instruction.opcode in _WIDE_ADDRESS and "local" not in instruction.modifiers):
        return Issue("operand", f"'{operand.text}' is an immediate address, which ptxas takes "
                     f"in the .local state space only ({where}; ptxas: \"Immediate addresses "
                     "allowed only for .local state space\")", operand.start, operand.end)
    return None


def _surface_handle_issue(
    instruction: PtxInstruction, base: PtxOperand, position: int, resolve: Resolver,
) -> Issue | None:
    """A surface or texture named by a register that is no 64-bit integer: the ISA's surface is a
    .surfref name or a .u64 handle (a texture: a .texref or a .u64), and ptxas 13.0 rejects a
    32-bit or a float register ("Arguments mismatch for instruction 'sust.b'", 'tex')."""
    if base.kind not in ("ref", "register"):
        return None
    cls = resolve(base)
    if cls.kind != "reg" or cls.type is None:
        return None
    bits = TYPE_BITS.get(cls.type, ("", 0))
    if bits[1] == 64 and bits[0] in "bus":
        return None
    what = f"the {_HANDLES[instruction.opcode]} of {_where(instruction, position)}"
    return Issue("type", f"'{base.text}' is a .{cls.type} register, but {what} is a 64-bit "
                 "handle (.u64)", base.start, base.end)


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
            or TYPE_BITS.get(cls.type, ("", 0))[1] != 32
            or any(m in _WINDOWED for m in instruction.modifiers)):
        return None
    space = ".global" if "global" in instruction.modifiers else "generic"
    return Issue("type", f"'{base.text}' is a 32-bit .{cls.type} register, but the {space} "
                 f"address of {_where(instruction, position)} takes a 64-bit one (ptxas: "
                 "32-bit addressing is not supported)", base.start, base.end)


# Families whose result vectors take a sink element in some forms and not in others (ptxas
# 13.0: mma.m8n8k4 takes it; the fp8, f64 and sparse mma and wgmma's accumulator give "Result
# discard mode is not allowed" or "Sink '_' not allowed as a source operand"; wmma.mma takes it
# from sm_80 on, not on sm_75; tex in .v4 results, not in .v2.f16x2 ones): an instruction with
# one is not judged. (tcgen05.ld takes it in none of its forms: an error, above.)
_SINK_BY_FORM = frozenset({"mma", "wgmma"})

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
    in_vector: bool = False,
    type_judged: bool = False,
) -> list[Issue]:
    """A register or immediate operand against a register/immediate spec (an operand of the
    instruction itself, or an element of a vector operand: ``in_vector``; ``type_judged``: a
    register of a vector whose registers fit as one, ``_vector_fits``)."""
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
            if spec.interval is not None:
                real = float_literal_value(operand.text)
                if real is not None and not spec.interval.admits(real):
                    shown = f"'{operand.text}'"
                    if operand.text[:2].lower() in ("0f", "0d"):  # a bit pattern: its value
                        shown += f" ({real:g})"
                    return [Issue("operand", f"unexpected value {shown} for "
                                  f"{_where(instruction, position)}: expected "
                                  f"{spec.interval.describe()}", operand.start, operand.end)]
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
    if (operand.kind == "register" and cls.type is None
            and (numbered := _NUMBERED_SPECIAL().fullmatch(operand.text))):
        name, number, wide = numbered.groups()
        if int(number) >= _NUMBERED_COUNT[name] or (wide and name != "pm"):
            # ptxas 13.0: 'mov.u32 %0, %%envreg32;' is "Arguments mismatch for instruction
            # 'mov'" (no such register; the parser reads it as an undeclared one)
            return [Issue("operand", f"'{operand.text}' is no special register: there are "
                          f"%{name}0 to %{name}{_NUMBERED_COUNT[name] - 1}",
                          operand.start, operand.end)]
    if cls.type is None:
        if operand.kind == "special" and "." in operand.text:
            return _narrow_component_issue(instruction, operand, spec, binding, position)
        if (operand.kind == "special" and operand.text.lstrip("%") in VECTOR_SPECIAL_REGISTERS
                and not (instruction.opcode == "mov" and "v4" in instruction.modifiers)):
            # ptxas 13.0: 'mov.u32 %0, %%tid;' is "Argument vector size mismatch" (.v2 too),
            # a cvt of it "Vector operand is not allowed"; mov.v4 moves all four
            return [Issue("operand", f"'{operand.text}' is a vector of four .u32: read one "
                          f"element ('{operand.text}.x'), or all four with mov.v4",
                          operand.start, operand.end)]
        return []
    want = _type_of(spec, binding)
    if want == "int":  # an integer register of any size (isspacep's address)
        if cls.type in ("f32", "f64", "pred"):
            return [Issue("type", f"'{operand.text}' is a .{cls.type} register, but "
                                  f"{_where(instruction, position)} "
                          "takes an integer address", operand.start, operand.end)]
        return []
    if want and not type_judged and not type_fits(
            cls.type, want, relaxed, spec.exact, spec.untyped, spec.typed,
            # (asked of a packed register only, the one class it decides for)
            fixed=(TYPE_BITS.get(cls.type, _NO_BITS)[0] == "x"
                   and _fixed_type(instruction, spec, want, binding))):
        special = " special" if operand.kind == "special" else ""
        wanted = (f"an untyped .{want} register" if spec.untyped
                  else f"a .{want} register declared with a type" if spec.typed
                  else f".{want}")
        return [Issue("type", f"'{operand.text}' is a .{cls.type}{special} register, but "
                              f"{_where(instruction, position)} takes "
                      f"{wanted}", operand.start, operand.end)]
    return []


_NO_BITS = ("", 0)


def _fixed_type(instruction: PtxInstruction, spec: OperandSpec, want: str,
                binding: dict[str, str]) -> bool:
    """Whether an operand's type is one the instruction fixes rather than its type modifier
    (PTX ISA "Type Information for Instructions and Operands": operands of the instruction
    type, or of a type derived from it, beside ones of a type of their own): its type is
    written in the form, and no type word of the instruction is of its kind (popc.b32's .u32
    result, shl's .u32 shift amount, bar.sync's .u32 barrier; not mul.wide.u16's .u32 result).
    Measured with .f16x2 registers in every scalar operand (ptxas 13.0); bfe.u32's .u32
    position and length are fixed too, which this does not see (no error where ptxas gives
    one)."""
    if spec.type in binding:
        return False
    kind = want[:1]
    return not any(m[:1] == kind and m[1:].isdigit() for m in instruction.modifiers)


# The components of %tid, %ntid, %ctaid and %nctaid: .u32 in the ISA, which ptxas 13.0 moves
# into a 16-bit register too (legacy code; effects.SPECIAL_REGISTERS leaves them untyped) but
# not into a 64-bit one: 'mov.u64 %rd1, %tid.x' is "Arguments mismatch for instruction 'mov'"
# (cvt reads them as its source type, 'cvt.u64.u32 %rd1, %tid.x')
_NARROW_COMPONENTS = frozenset({"tid", "ntid", "ctaid", "nctaid"})


def _narrow_component_issue(
    instruction: PtxInstruction, operand: PtxOperand, spec: OperandSpec,
    binding: dict[str, str], position: int,
) -> list[Issue]:
    name, _, component = operand.text.lstrip("%").partition(".")
    if name in SPECIAL_REGISTERS and name not in VECTOR_SPECIAL_REGISTERS:
        # ptxas 13.0: 'mov.u32 %0, %%laneid.x;' is "Unknown field '.x'"
        return [Issue("operand", f"'{operand.text}' reads element .{component} of %{name}, "
                      f"which is no vector: write '{operand.text.partition('.')[0]}'",
                      operand.start, operand.end)]
    if name not in _NARROW_COMPONENTS:
        return []
    want = _type_of(spec, binding)
    if instruction.opcode != "mov" or TYPE_BITS.get(want or "", ("", 0))[1] != 64:
        return []
    return [Issue("type", f"'{operand.text}' is a .u32 special register (a 16-bit register "
                  f"takes it too), but {_where(instruction, position)} takes .{want}",
                  operand.start, operand.end)]


# The numbered special registers: %envreg0..%envreg31, %pm0..%pm7 (and %pm0_64..%pm7_64)
_NUMBERED_SPECIAL = on_first_use(r"%%?(envreg|pm)([0-9]+)(_64)?")
_NUMBERED_COUNT = {"envreg": 32, "pm": 8}


# The instructions a special register may be a scalar operand of (ptxas 13.0, measured over
# arithmetic, logic, comparison, selection, shuffle, bit-field and conversion families:
# "Special register argument not allowed for instruction 'add'"). A vector element is not
# such an operand: `st.global.v2.u32 [a], {%laneid, %r1}` compiles.
_READS_SPECIAL_REGISTERS = frozenset({"mov", "cvt"})


def _reads_special_registers(instruction: PtxInstruction) -> bool:
    """Whether ``instruction`` may read a special register: a ``mov``, and a ``cvt`` from one
    integer type to another (ptxas 13.0 takes 'cvt.u64.u32', 'cvt.u16.u32', 'cvt.u32.u64' of
    one; 'cvt.rn.f32.u32', 'cvt.rn.f16.u32', 'cvt.rzi.u32.f32' are "Special register argument
    not allowed for instruction 'cvt'")."""
    opcode = instruction.opcode
    if opcode not in _READS_SPECIAL_REGISTERS:
        return False
    return opcode == "mov" or all(TYPE_BITS.get(word, _BITS)[0] in "bus"
                                  for word in instruction.modifiers)


_BITS = ("b", 0)


def _special_operand(instruction: PtxInstruction, operand: PtxOperand) -> list[Issue]:
    """A special register as an operand of an instruction that reads none."""
    if instruction.opcode == "cvt":
        return [Issue("operand", f"'{operand.text}' is a special register, which 'cvt' reads "
                      "between integer types only: copy it into a register with 'mov' first "
                      "(ptxas: \"Special register argument not allowed for instruction "
                      "'cvt'\")", operand.start, operand.end)]
    return [Issue("operand", f"'{operand.text}' is a special register, which only 'mov' and "
                  "'cvt' read: copy it into a register first (ptxas: \"Special register "
                  f"argument not allowed for instruction '{instruction.opcode}'\")",
                  operand.start, operand.end)]


# The data of a surface load (its result, operand 0) or store (operand 1): ptxas 13.0 takes a
# vector there where no .v2/.v4 is written and moves its first element only, and a scalar under
# sust's .v2/.v4 with the registers after it (sm_90 SASS: grammar_data.py, "surfaces"); a scalar
# result under suld's it rejects ("Result vector expected")
_SURFACE_DATA = {"suld": 0, "sust": 1}
_HANDLES = {"suld": "surface", "sust": "surface", "tex": "texture", "tld4": "texture"}


def _surface_data(instruction: PtxInstruction, position: int, *opcodes: str) -> bool:
    """Whether operand ``position`` is the data of a surface instruction among ``opcodes``."""
    return instruction.opcode in opcodes and _SURFACE_DATA[instruction.opcode] == position


_VECTOR_WORD = on_first_use(r"[vx]([0-9]+)")
_SHAPE = on_first_use(r"m[0-9]+n([0-9]+)k[0-9]+")
_DIMENSIONS = on_first_use(r"([0-9])d")


def _vector_size(word: str) -> int | None:
    """The length a bound word gives a vector: ``v4``, ``x2`` (4, 2); a warpgroup shape's n
    (the accumulator grows with it); ``2d`` (a tensor's two coordinates)."""
    m = _VECTOR_WORD().fullmatch(word) or _SHAPE().fullmatch(word) or _DIMENSIONS().fullmatch(word)
    return int(m.group(1)) if m is not None else None


_COUNT = on_first_use(r"([A-Za-z_]\w*)(?:([*/])([0-9]+))?\Z")


# Where ptxas 13.0 reads a one-element vector as the scalar: the data of ld, ldu and st
# (st.async's too; Triton writes `ld.global.b32 {$0}, [$1]`), either operand of mov of a .bN
# type (its pack and unpack forms), and the data of multimem.ld_reduce and .st of a
# floating-point type (their .v2-.v8 forms). Elsewhere it rejects it, measured on sm_90a:
# "Vector operand is not allowed for instruction 'add'" (every ALU instruction, cvt, cvta,
# setp, selp, prmt, shfl, match, mapa, getctarank, tensormap.replace, the integer multimem
# forms), "Vector is not expected for argument 1 of instruction 'red'" (atom, red,
# multimem.red), "Argument vector size mismatch for instruction 'mov'" (mov.u32), "Arguments
# mismatch" (ld's cache policy, st.bulk, bar, vote, redux, elect, mbarrier, cp, setmaxnreg,
# isspacep, nanosleep, fence.proxy, tcgen05.alloc). The families whose operands are mostly
# vectors keep it unjudged (mma takes `{%r6}` for its scale data).
_ONE_ELEMENT_DATA = {"ld": 0, "ldu": 0, "st": 1}  # the data operand's position
# (not tex, tld4: their forms say where a one-element vector goes, .1d's coordinate only)
_VECTOR_FAMILIES = frozenset({"mma", "wgmma", "tcgen05", "suld", "sust", "sured", "ldmatrix",
                              "stmatrix", "movmatrix"})
_BIT_TYPES = frozenset({"b16", "b32", "b64", "b128"})
_INTEGER_TYPES = frozenset({"b32", "b64", "u32", "u64", "s32", "s64"})
# Nor in an instruction of a vector width, whose vectors are of that size even where a scalar
# stands for the vector ("st.async...v2.s64 [%r1], {%rd1}, [%r2]": Argument vector size
# mismatch; "[%r1], %rd1, [%r2]" passes)
_VECTOR_WIDTHS = frozenset({"v2", "v4", "v8"})


def _takes_one_element_vector(instruction: PtxInstruction, position: int) -> bool:
    """Whether ptxas reads ``{%r1}`` as ``%r1`` as operand ``position`` (from 0) of
    ``instruction``, where its form takes a scalar."""
    opcode = instruction.opcode
    if opcode in _SURFACE_DATA:
        # the coordinates' vector is the geometry's: ptxas reads '{x}' as no '.2d' scalar
        # ("Operand vector size doesn't match geometry")
        return _SURFACE_DATA[opcode] == position
    if opcode in _VECTOR_FAMILIES:
        return True
    modifiers = instruction.modifiers
    if not modifiers or _VECTOR_WIDTHS.intersection(modifiers):
        return False
    data = _ONE_ELEMENT_DATA.get(opcode)
    if data is not None:
        return position == data and "bulk" not in modifiers  # st.bulk's size: no
    if opcode == "mov":
        return modifiers[-1] in _BIT_TYPES
    if opcode == "multimem":  # the type is the last word
        return (modifiers[-1] not in _INTEGER_TYPES
                and position == {"ld_reduce": 0, "st": 1}.get(modifiers[0], -1))
    return False


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
    variable, scale = _count_of(count)
    return _scaled(binding.get(variable, ""), scale) if variable else None


@lru_cache(maxsize=256)
def _count_of(count: str) -> tuple[str, str]:
    """A vector length's variable and what scales it (``S/2``: ``("S", "/2")``); ``("", "")``
    where it is no such spelling. The grammar spells a few dozen."""
    m = _COUNT().match(count)
    if m is None:
        return "", ""
    return m.group(1), (m.group(2) or "") + (m.group(3) or "")


@lru_cache(maxsize=4096)
def _scaled(word: str, scale: str) -> int | None:
    """The length a bound ``word`` gives a vector, scaled (``*2``, ``/2``): a function of the
    two, asked for every vector operand of every form a verdict tries, where three patterns
    were tried on the word each time (the figure is ``check_operands``' leaf path's, with
    this). Bounded; CUTLASS's and the CUDA headers' spellings bind a few hundred words."""
    base = _vector_size(word)
    if base is None or not scale:
        return base
    factor = int(scale[1:])
    if scale[0] == "*":
        return base * factor
    return base // factor if base % factor == 0 else None


_C_EXPRESSION = on_first_use(r"\(\s*[A-Za-z_][\w:\s]*\**\s*\)|\b(?:sizeof|static_cast)\b|[?]|->")


def looks_like_c(text: str) -> bool:
    """Whether an operand's text is C++ rather than PTX (a cast, ``sizeof``, ``->``)."""
    return bool(_C_EXPRESSION().search(text))


def _c_issue(instruction: PtxInstruction, operand: PtxOperand) -> Issue:
    return Issue("operand", f"'{operand.text}' in '{instruction.mnemonic}' is not PTX: a C "
                 "cast or expression left inside the template (ptxas: syntax error)",
                 operand.start, operand.end)


def c_operand_issue(instruction: PtxInstruction) -> Issue | None:
    for operand in instruction.operands:
        if operand.kind == "other" and looks_like_c(operand.text):
            return _c_issue(instruction, operand)
    return None
