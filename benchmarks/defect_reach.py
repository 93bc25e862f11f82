#!/usr/bin/env python3
"""How often ptxlint notices a defect put into real asm statements: mutate one statement of a
real file at a time, in ways the PTX ISA or the C++ asm rules make a defect by construction,
and ask whether a new finding appears.

The fixtures show each rule flags its defect in the code it was written for; they do not show
how often the facts a rule needs (operand types, instruction effects, register classes) are
there in real code: a 64-bit pointer bound with ``"r"`` is only PTX004's when the front end
knows the expression's type. Each mutation below is a defect whatever the code around it is:

* ``drop-memory``: the ``"memory"`` clobber removed from a statement whose template stores to
  memory (``st``, ``atom``, ``red``, ``stmatrix``; not ``st.async``/``red.async``, whose write
  C++ reads only after an mbarrier wait): the compiler may keep a value of that memory in a
  register across the statement (PTX102).
* ``drop-volatile``: ``volatile`` removed from a statement with outputs whose template has a
  side effect (a store, an atomic, a barrier, a fence, an async copy, an mbarrier step): GCC's
  rules let the compiler delete or merge it when its outputs are unused or equal (PTX101).
* ``l-to-r``: an input bound with ``"l"`` that the template uses as an address (``[%N]``) bound
  with ``"r"`` instead: a 64-bit value under a 32-bit letter, which nvcc rejects, or an
  address cut to 32 bits (PTX004).
* ``widen-type``: the type of an instruction whose ``%N`` operands are all bound with ``"r"``
  (``.u32``, ``.s32``, ``.b32``) or ``"f"`` (``.f32``) made 64-bit: ptxas rejects the 32-bit
  registers ("Arguments mismatch for instruction", PTX206).
* ``drop-separator``: the ``;`` after the first of several instructions deleted: ptxas reads
  the two as one (PTX205).
* ``generic-shared``: a ``.shared`` address bound as ``"r"(__cvta_generic_to_shared(p))`` (or
  CUTLASS's ``cast_smem_ptr_to_uint``, and the like; or as ``"r"(v)`` where ``v`` was last
  given such a conversion before the statement) bound as ``"l"(p)``: the generic pointer is no
  offset in the shared window (PTX301).
* ``narrow-vector``: the ``.v4`` of an instruction with a vector of four registers made
  ``.v2``: ptxas wants a vector of two ("Arguments mismatch for instruction", PTX207).
* ``drop-carry``: the ``.cc`` of an ``add.cc``/``sub.cc``/``mad*.cc`` removed where a later
  instruction reads the carry (``addc``, ``subc``, ``madc``): it reads a carry flag nothing
  in the statement set (PTX209 where one it sets is lost, PTX107 where none is).
* ``plus-to-eq``: the ``+`` of a read-write register output made ``=`` where the template
  reads it before any write (its first use is a source of an arithmetic, logic or move
  instruction): it reads an undefined register (PTX106).
* ``drop-write``: the one instruction that writes a write-only output deleted (a move,
  arithmetic or logic instruction whose destination it is) from a template of several: the
  output is never written (PTX104; PTX009 where no other instruction names it either;
  PTX208 where it was the ``selp`` that moved the template's one predicate into the output).
* ``unbrace``: the ``{ }`` around a template that declares a register or defines a label
  removed: a function that inlines the statement twice declares it twice (PTX201, PTX202).
* ``index-shift``: the last mention of the highest ``%N`` of a template that names its last
  operand renumbered to the next index, past the last operand: nvcc stops with an internal
  error (PTX001).
* ``drop-sync``: the ``.sync`` of a ``shfl.sync``/``vote.sync`` and its member mask (the last
  operand) removed, the pre-Volta form: ptxas rejects it for sm_70 and newer from PTX ISA 6.4,
  every target CUDA 13 builds (PTX402; not in a branch under ``__CUDA_ARCH__ <``). A mask the
  template names only there goes from the operand list too, as old code passes none (where it
  is the last operand; elsewhere the site is left alone).
* ``float-letter``: an operand bound with ``"f"``, ``"h"`` or ``"d"`` bound with ``"r"``,
  ``"r"`` or ``"l"`` instead: nvcc accepts ``"f"`` only for a ``float``, ``"h"`` only for a
  16-bit and ``"d"`` only for a ``double`` operand, and rejects each under the other letter
  ("asm operand type size(N) does not match type/size implied by constraint", PTX004).
* ``wrong-space``: the ``.shared`` of an ``ld.shared``/``st.shared`` whose address is one
  operand bound with ``"r"`` (a 32-bit shared-window offset) made ``.global``: the offset is no
  global address, and ptxas stops on a 32-bit address for sm_90 (PTX301).
* ``drop-early-clobber``: the ``&`` of an ``=&`` output removed where, in a template without
  branches or predicates, an instruction first writes it (its scalar destination, not a copy
  of the input) and a later one reads an input of the same letter: GCC's rules let the output
  share that input's register, and the later read sees the output (PTX108).
* ``drop-vector-element``: the last ``%N`` of a vector operand of ``%N`` elements
  (``{%0, %1, %2, %3}``) removed: every vector operand's length is fixed by its instruction's
  form, and ptxas rejects the shorter one (PTX207).
* ``input-as-output``: the one output of a statement, ``%0``, bound ``"=r"`` (or another
  register letter) and written by an instruction of the template (its first operand: a
  move, arithmetic, a load, an atomic's old value), moved to the input list as ``"r"``: the
  numbering stays, the template writes an input, which GCC's rules forbid (the compiler
  assumes the input unchanged and may share its register), and the variable never receives
  the result (PTX105).
* ``lower-guard``: the ``N`` of ``#if __CUDA_ARCH__ >= N`` (or ``#elif``), the innermost of the
  statement's own branches that spells one, where ``N`` is the lowest target its guards admit
  and an instruction of the statement needs that target, lowered to the newest target nvcc 13
  builds below what the instruction needs (``>= 900`` around a ``wgmma`` made ``>= 890``):
  ptxas refuses the instruction for the targets the guard now admits (PTX401).
* ``diverge``: ``if (threadIdx.x % 32 == 0) `` (or another condition that splits every warp:
  ``(threadIdx.x & 31) < 16``, ``threadIdx.x % 2 == 0``, ``threadIdx.x == 0``) put before an
  asm statement of a function that holds a warp collective (an ``.aligned`` form, ``bar.sync``):
  part of the warp reaches it, which the ISA leaves undefined (PTX601).

Only statements whose words sit in this file's string literals are mutated (not a macro's
expansion, not Python). A site is *noticed* when some finding appears that the unmutated file
does not have; the report names the rule each class was meant for, how often another rule
spoke instead and how often more than one rule spoke (one defect, two findings), and lists
every site with the rules that spoke (``--jsonl``), to find the facts the rules lack.

Usage: ``python benchmarks/defect_reach.py TREE... [--per-class N] [--seed S] [--jsonl FILE]
[--preview]`` (``--preview``: also the classes whose rule is in preview, judged with it)
(``--per-class``: at most N sites of each class, sampled with ``random.Random(S)``). Nothing in
the trees is written or executed. Not part of CI.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from ptxlint.analysis.statement import analysis_of  # noqa: E402
from ptxlint.engine import instantiate, lint_source  # noqa: E402
from ptxlint.model import AsmStatement, PtxInstruction, SourceFile  # noqa: E402
from ptxlint.ptx.address_values import _closing as closing_paren  # noqa: E402
from ptxlint.ptx.instructions import instruction_requirement  # noqa: E402
from ptxlint.registry import load_rules, preview_ids  # noqa: E402
from ptxlint.rule import Rule, RuleContext  # noqa: E402

SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".hxx", ".inl", ".cc", ".cpp")
EXPECTED = {
    "drop-memory": "PTX102",
    "drop-volatile": "PTX101",
    "l-to-r": "PTX004",
    "widen-type": "PTX206",
    "drop-separator": "PTX205",
    "unbrace": "PTX201",
    "generic-shared": "PTX301",
    "narrow-vector": "PTX207",
    "drop-carry": "PTX209",
    "plus-to-eq": "PTX106",
    "drop-write": "PTX104",
    "index-shift": "PTX001",
    "drop-sync": "PTX402",
    "float-letter": "PTX004",
    "wrong-space": "PTX301",
    "drop-early-clobber": "PTX108",
    "drop-vector-element": "PTX207",
    "input-as-output": "PTX105",
    "lower-guard": "PTX401",
    "diverge": "PTX601",
}
# the rules that report the class's defect: either names it
# (drop-write: PTX208 where the deleted instruction moved a predicate into the output, and
# names the selp it lacks)
_ALSO = {"unbrace": ("PTX202",), "drop-carry": ("PTX107",), "drop-write": ("PTX009", "PTX208")}
_STORES = {"st", "atom", "red", "stmatrix"}
_SIDE_EFFECTS = _STORES | {
    "bar", "barrier", "membar", "fence", "cp", "mbarrier", "griddepcontrol", "trap",
    "nanosleep", "tcgen05", "wgmma",
}
_WIDER = {"u32": "u64", "s32": "s64", "b32": "b64", "f32": "f64"}
_LETTER_OF = {"u32": "r", "s32": "r", "b32": "r", "f32": "f"}


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Site:
    path: str
    kind: str
    line: int
    edit: Edit
    statement: str


def _source_range(statement: AsmStatement, start: int, end: int) -> tuple[int, int] | None:
    """Source offsets of template characters ``start:end``, where they are one run of a
    string literal in the file (no escape, no piece boundary between them)."""
    template = statement.template
    if end <= start or end > len(template.text):
        return None
    first, last = template.char_starts[start], template.char_ends[end - 1]
    if last - first != end - start:
        return None
    return first, last


def _plain(statement: AsmStatement) -> bool:
    return (statement.context.expansion is None and statement.syntax == "gnu"
            and not statement.opaque_sections and bool(statement.template.pieces)
            and all(piece.kind == "string" for piece in statement.template.pieces))


def _stores(instruction: PtxInstruction) -> bool:
    # (``st.async``/``red.async`` only issue a write of the asynchronous proxy: C++ reads it
    # after an mbarrier wait, which is the statement that needs the clobber)
    return instruction.opcode in _STORES and "async" not in instruction.modifiers


def _side_effect(instruction: PtxInstruction) -> bool:
    # (``multimem.ld_reduce`` only loads: its value is its effect)
    return instruction.opcode in _SIDE_EFFECTS or (
        instruction.opcode == "multimem" and instruction.modifiers[:1] in (("st",), ("red",)))


def drop_memory(statement: AsmStatement, text: str) -> Iterator[Edit]:
    memory = [c for c in statement.clobbers if c.name == "memory"]
    if len(memory) != 1 or not any(_stores(i) for i in statement.ptx.instructions):
        return
    span = memory[0].span
    start = span.start
    before = text.rfind(",", statement.colons[-1] if statement.colons else start, start)
    if before >= 0:
        start = before
    yield Edit(start, span.end, "")


def drop_volatile(statement: AsmStatement, text: str) -> Iterator[Edit]:
    volatile = [q for q in statement.qualifiers if "volatile" in q.name]
    outputs = [o for o in statement.operands if o.role == "output"]
    if len(volatile) != 1 or not outputs:
        return
    if any(_side_effect(i) for i in statement.ptx.instructions):
        yield Edit(volatile[0].span.start, volatile[0].span.end, "")


def l_to_r(statement: AsmStatement, text: str) -> Iterator[Edit]:
    addressed: set[int] = set()
    for instruction in statement.ptx.instructions:
        for written in instruction.operands:
            if written.kind == "address":
                addressed.update(p.ref for p in written.parts if p.ref is not None)
    for operand in statement.operands:
        constraint = operand.constraint
        if (operand.role == "input" and constraint.letters == "l" and not constraint.opaque
                and operand.index in addressed):
            at = text.find("l", constraint.span.start, constraint.span.end)
            if at >= 0:
                yield Edit(at, at + 1, "r")
                return


def widen_type(statement: AsmStatement, text: str) -> Iterator[Edit]:
    letters = {o.index: o.constraint.letters.lstrip("=+&") for o in statement.operands}
    for instruction in statement.ptx.instructions:
        if instruction.opaque or not instruction.modifiers:
            continue
        kind = instruction.modifiers[-1]
        if kind not in _WIDER or instruction.opcode in ("cvt", "cvta", "mov", "ld", "st"):
            continue
        refs = [o.ref for o in instruction.operands]
        if not refs or any(ref is None or letters.get(ref) != _LETTER_OF[kind] for ref in refs):
            continue
        end = instruction.opcode_end
        found = _source_range(statement, end - len(kind), end)
        if found is not None:
            yield Edit(found[0], found[1], _WIDER[kind])
            return


def drop_separator(statement: AsmStatement, text: str) -> Iterator[Edit]:
    instructions = [i for i in statement.ptx.instructions if not i.opaque]
    if len(statement.ptx.instructions) < 2 or len(instructions) < 2:
        return
    first = statement.ptx.instructions[0]
    if not first.terminated:
        return
    found = _source_range(statement, first.end - 1, first.end)
    if found is not None and text[found[0]:found[1]] == ";":
        yield Edit(found[0], found[1], "")


_CONVERSION = (
    r"\s*(?:static_cast\s*<[^<>()]*>\s*\(\s*|\(\s*(?:unsigned|uint32_t|int)\s*\)\s*)?"
    r"(?:\w+::)*(?:__cvta_generic_to_shared|cvta_to_shared\w*|cast_smem_ptr_to_uint|"
    r"smem_ptr_to_uint|__nvvm_get_smem_pointer|get_smem_pointer|to_smem_addr\w*)"
    r"\s*\((?P<pointer>[^;]*)\)\s*\)?\s*")
_TO_SHARED = re.compile(_CONVERSION + r"\Z")
_NAME = re.compile(r"[A-Za-z_]\w*\Z")
_LOOK_BACK = 4000  # characters before the statement searched for a converted variable


def _converted(statement: AsmStatement, text: str, expression: str) -> str | None:
    """The generic pointer ``expression`` is the shared-window offset of: the argument of the
    conversion it is, or, for a variable, of the one it was last given before the statement
    (``uint32_t addr = cast_smem_ptr_to_uint(&buf[i]);``)."""
    m = _TO_SHARED.match(expression)
    if m is None and _NAME.match(expression.strip()):
        name = re.escape(expression.strip())
        before = text[max(0, statement.span.start - _LOOK_BACK):statement.span.start]
        # not past the end of an earlier definition: the variable may be a parameter here
        ended = max(before.rfind("\n}"), before.rfind("\n  }\n"))
        before = before[ended + 1:]
        found = list(re.finditer(rf"\b{name}\s*=(?!=)(?P<value>{_CONVERSION});", before))
        m = found[-1] if found else None
    if m is None:
        return None
    start = m.start("pointer")
    close = closing_paren(m.string, start - 1)  # the call's '(' is just before the argument
    pointer = m.string[start:close].strip() if close >= 0 else ""
    return pointer if pointer and ";" not in pointer else None


def generic_shared(statement: AsmStatement, text: str) -> Iterator[Edit]:
    shared: set[int] = set()
    for instruction in statement.ptx.instructions:
        if any(m == "shared" or m.startswith("shared::") for m in instruction.modifiers):
            for written in instruction.operands:
                if written.kind == "address":
                    shared.update(p.ref for p in written.parts if p.ref is not None)
    for operand in statement.operands:
        constraint = operand.constraint
        if (operand.role != "input" or constraint.letters != "r" or constraint.opaque
                or operand.index not in shared):
            continue
        pointer = _converted(statement, text, operand.expression)
        if pointer is None:
            continue
        at = text.find("r", constraint.span.start, constraint.span.end)
        span = operand.expression_span
        if at < 0 or text[span.start:span.end] != operand.expression:
            continue
        # one edit from the letter to the expression's end: the letter and the pointer (the
        # expression's line breaks kept, so that every finding stays on its line)
        yield Edit(at, span.end, "l" + text[at + 1:span.start] + pointer
                   + _lines(text[span.start:span.end]))
        return


def narrow_vector(statement: AsmStatement, text: str) -> Iterator[Edit]:
    for instruction in statement.ptx.instructions:
        if instruction.opaque or "v4" not in instruction.modifiers:
            continue
        if not any(o.kind == "vector" and len(o.parts) == 4 for o in instruction.operands):
            continue
        template = statement.template.text
        at = template.find(".v4", instruction.opcode_start, instruction.opcode_end)
        found = _source_range(statement, at + 1, at + 3) if at >= 0 else None
        if found is not None:
            yield Edit(found[0], found[1], "v2")
            return


_CARRY_READERS = {"addc", "subc", "madc"}


def drop_carry(statement: AsmStatement, text: str) -> Iterator[Edit]:
    instructions = statement.ptx.instructions
    for k, instruction in enumerate(instructions):
        if (instruction.opaque or instruction.opcode not in ("add", "sub", "mad")
                or "cc" not in instruction.modifiers):
            continue
        if not any(i.opcode in _CARRY_READERS for i in instructions[k + 1:]):
            return
        template = statement.template.text
        at = template.find(".cc", instruction.opcode_start, instruction.opcode_end)
        found = _source_range(statement, at, at + 3) if at >= 0 else None
        if found is not None:
            yield Edit(found[0], found[1], "")
        return


# Instructions whose first operand is their one destination and the rest sources: the roles
# the two data-flow classes read, from the ISA and not from ptxlint's own tables
_ARITHMETIC = {"add", "sub", "mul", "mad", "fma", "and", "or", "xor", "not", "shl", "shr",
               "max", "min", "selp", "mov", "cvt", "neg", "abs", "prmt", "lop3", "shf", "bfe",
               "bfi", "popc", "clz", "brev", "div", "rem", "cvta"}


def _mentions(instruction: PtxInstruction) -> list[tuple[int, int]]:
    """(position, operand index) of each %N operand of ``instruction``, scalar ones only."""
    return [(k, o.ref) for k, o in enumerate(instruction.operands)
            if o.kind == "ref" and o.ref is not None]


def plus_to_eq(statement: AsmStatement, text: str) -> Iterator[Edit]:
    for operand in statement.outputs:
        constraint = operand.constraint
        if constraint.text.lstrip("+&") not in ("r", "l", "h", "f", "d") or \
                not constraint.text.startswith("+") or constraint.opaque:
            continue
        first = None
        for instruction in statement.ptx.instructions:
            uses = [k for k, index in _mentions(instruction) if index == operand.index]
            if uses or any(operand.index in {p.ref for p in o.parts} for o in
                           instruction.operands):
                first = (instruction, uses)
                break
        if first is None:
            continue
        instruction, uses = first
        # a source of the first instruction that names it: read before (or as) it is written
        if (instruction.opcode in _ARITHMETIC and instruction.predicate is None
                and any(k >= 1 for k in uses)):
            at = text.find("+", constraint.span.start, constraint.span.end)
            if at >= 0:
                yield Edit(at, at + 1, "=")
                return


def drop_write(statement: AsmStatement, text: str) -> Iterator[Edit]:
    instructions = statement.ptx.instructions
    if len(instructions) < 2:
        return  # (an empty template is another idiom: a compiler barrier)
    for operand in statement.outputs:
        if not operand.constraint.text.startswith("=") or operand.constraint.opaque:
            continue
        writers = [i for i in instructions
                   if i.opcode in _ARITHMETIC and (0, operand.index) in _mentions(i)]
        named = [i for i in instructions if any(
            operand.index in {p.ref for p in o.parts} | {o.ref} for o in i.operands)]
        if len(writers) != 1 or len(named) != 1 or not writers[0].terminated:
            continue
        found = _source_range(statement, writers[0].start, writers[0].end)
        if found is not None:
            yield Edit(found[0], found[1], "")
            return


def unbrace(statement: AsmStatement, text: str) -> Iterator[Edit]:
    ptx = statement.ptx
    template = statement.template.text
    if len(ptx.braces) != 2 or not (
            any(d.name == ".reg" and d.depth == 1 for d in ptx.directives) or ptx.labels):
        return
    opening, closing = ptx.braces
    if template[:opening.offset].strip() or template[closing.offset + 1:].strip():
        return  # the braces are not the whole template's
    first = _source_range(statement, opening.offset, opening.offset + 1)
    last = _source_range(statement, closing.offset, closing.offset + 1)
    if first is not None and last is not None:
        # one edit: the text between the braces kept, the braces dropped
        yield Edit(first[0], last[1], text[first[1]:last[0]])


def index_shift(statement: AsmStatement, text: str) -> Iterator[Edit]:
    refs = [p for p in statement.ptx.percents
            if p.kind == "ref" and p.index is not None and not p.modifier]
    count = len(statement.operands)
    if not refs or any(p.index is None or p.index >= count for p in refs):
        return
    last = max(refs, key=lambda p: (p.index or 0, p.start))
    if last.index != count - 1:
        return  # (the last operand only spliced or unused: its neighbour is no off-by-one)
    found = _source_range(statement, last.start, last.end)
    prefix = statement.ref_prefix  # % in C++, $ in LLVM syntax (defect_reach_python)
    if found is not None and text[found[0]:found[1]] == f"{prefix}{last.index}":
        yield Edit(found[0], found[1], f"{prefix}{count}")


def drop_sync(statement: AsmStatement, text: str) -> Iterator[Edit]:
    if any("__CUDA_ARCH__" in guard and "<" in guard for guard in statement.context.guards):
        return  # (a branch only compiled below sm_70 may spell the old form)
    template = statement.template.text
    for instruction in statement.ptx.instructions:
        if (instruction.opaque or instruction.opcode not in ("shfl", "vote")
                or instruction.modifiers[:1] != ("sync",) or len(instruction.operands) < 3):
            continue
        at = template.find(".sync", instruction.opcode_start, instruction.opcode_end)
        mask, previous = instruction.operands[-1], instruction.operands[-2]
        found = _source_range(statement, at, mask.end) if at >= 0 else None
        if found is None:
            continue
        # '.sync' and the member mask (with its comma) dropped, the rest kept
        kept = template[at + len(".sync"):previous.end]
        if mask.ref is None or sum(p.index == mask.ref for p in statement.ptx.percents) > 1:
            yield Edit(found[0], found[1], kept)
            return
        # a mask named only here: the old code passes no mask, so its operand goes too (else
        # an operand nothing reads is a second defect); where it is the last operand
        operand = statement.operands[-1]
        if operand.index != mask.ref or operand.role != "input" or operand.constraint.opaque:
            continue
        cut = statement.operands[-2].span.end if len(statement.inputs) > 1 else \
            statement.colons[1] + 1 if len(statement.colons) > 1 else -1
        if cut < found[1] or text[cut:operand.span.start].strip(" \t\n,") != "":
            continue
        # (the lines the operand took kept, so that every finding stays on its line)
        gone = text[cut:operand.span.end]
        yield Edit(found[0], operand.span.end, kept + text[found[1]:cut] + _lines(gone))
        return


def _lines(removed: str) -> str:
    return "\n" * removed.count("\n")


_OTHER_LETTER = {"f": "r", "h": "r", "d": "l"}


def float_letter(statement: AsmStatement, text: str) -> Iterator[Edit]:
    for operand in statement.operands:
        constraint = operand.constraint
        if constraint.opaque or constraint.letters not in _OTHER_LETTER:
            continue
        literal = text[constraint.span.start:constraint.span.end]
        if literal != f'"{constraint.text}"':
            continue
        at = constraint.span.start + literal.index(constraint.letters)
        yield Edit(at, at + 1, _OTHER_LETTER[constraint.letters])
        return


def wrong_space(statement: AsmStatement, text: str) -> Iterator[Edit]:
    letters = {o.index: o.constraint.letters for o in statement.operands
               if not o.constraint.opaque}
    template = statement.template.text
    for instruction in statement.ptx.instructions:
        if (instruction.opaque or instruction.opcode not in ("ld", "st")
                or "shared" not in instruction.modifiers):
            continue
        refs = [p.ref for o in instruction.operands if o.kind == "address"
                for p in o.parts if p.ref is not None]
        if len(refs) != 1 or letters.get(refs[0]) != "r":
            continue
        at = template.find(".shared", instruction.opcode_start, instruction.opcode_end)
        found = _source_range(statement, at + 1, at + len(".shared")) if at >= 0 else None
        if found is not None and template[at + len(".shared")] == ".":
            yield Edit(found[0], found[1], "global")
            return


_UNBRANCHED = ("bra", "ret", "exit", "call", "brx")


def _named(instruction: PtxInstruction) -> set[int]:
    return {p.ref for o in instruction.operands for p in (o, *o.parts) if p.ref is not None}


def drop_early_clobber(statement: AsmStatement, text: str) -> Iterator[Edit]:
    instructions = statement.ptx.instructions
    if statement.ptx.labels or any(
            i.opaque or i.predicate is not None or i.opcode in _UNBRANCHED for i in instructions):
        return  # (straight-line code only: every instruction runs, in text order)
    letters = {o.index: o.constraint.letters for o in statement.operands}
    inputs = {o.index for o in statement.inputs if not o.constraint.opaque}
    for operand in statement.outputs:
        constraint = operand.constraint
        if (constraint.opaque or not constraint.text.startswith("=")
                or "&" not in constraint.modifiers or constraint.letters not in "rlhfd"):
            continue
        same = {i for i in inputs if letters[i] == constraint.letters}
        first = next((k for k, i in enumerate(instructions) if operand.index in _named(i)), None)
        if first is None or not same:
            continue
        writer = instructions[first]
        mentions = _mentions(writer)
        # its first mention writes it and reads nothing of it: a scalar destination
        if (writer.opcode not in _ARITHMETIC or mentions[:1] != [(0, operand.index)]
                or [m for m in mentions if m[1] == operand.index] != mentions[:1]
                or any(operand.index in {p.ref for p in o.parts} for o in writer.operands)):
            continue
        if writer.opcode == "mov":
            same -= {index for _, index in mentions}  # (a copy: a shared register holds it)
        if any(_named(i) & same for i in instructions[first + 1:]):
            at = text.find("&", constraint.span.start, constraint.span.end)
            if at >= 0:
                yield Edit(at, at + 1, "")
                return


def drop_vector_element(statement: AsmStatement, text: str) -> Iterator[Edit]:
    for instruction in statement.ptx.instructions:
        if instruction.opaque:
            continue
        for operand in instruction.operands:
            parts = operand.parts
            if (operand.kind != "vector" or len(parts) < 2
                    or any(p.kind != "ref" for p in parts)):
                continue
            found = _source_range(statement, parts[-2].end, parts[-1].end)
            if found is not None:
                yield Edit(found[0], found[1], "")
                return


_WRITERS = _ARITHMETIC | {"ld", "ldu", "atom"}


def input_as_output(statement: AsmStatement, text: str) -> Iterator[Edit]:
    outputs = statement.outputs
    if len(outputs) != 1 or len(statement.colons) < 1 or statement.missing_commas:
        return
    (output,) = outputs
    constraint = output.constraint
    if (output.index != 0 or constraint.opaque or output.symbolic_name is not None
            or constraint.text.lstrip("=&") not in ("r", "l", "h", "f", "d")
            or not constraint.text.startswith("=")):
        return
    # an instruction writes it: its first operand, or an element of its first (vector) one
    if not any(i.opcode in _WRITERS and i.operands and 0 in _named_first(i)
               for i in statement.ptx.instructions):
        return
    literal = text[constraint.span.start:constraint.span.end]
    spelled = text[output.span.start:output.span.end]
    if literal != f'"{constraint.text}"' or not spelled.startswith(literal):
        return
    moved = f'"{constraint.letters}"' + spelled[len(literal):]
    first = statement.colons[0]
    if text[first + 1:output.span.start].strip() or (
            len(statement.colons) > 1 and text[output.span.end:statement.colons[1]].strip()):
        return  # (a comment or a stray comma beside it)
    # the text around it kept (its line breaks: every finding stays on its line)
    before = text[first + 1:output.span.start]
    if len(statement.colons) > 1:
        after = text[output.span.end:statement.colons[1]]
        comma = "," if statement.inputs else ""
        yield Edit(first, statement.colons[1] + 1, f"::{before}{moved}{comma}{after}")
    else:
        yield Edit(first, output.span.end, f"::{before}{moved}")


_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b(.*)$", re.M)
_ARCH_AT_LEAST = re.compile(r"__CUDA_ARCH__\s*>=\s*(\d{3,4})\b")
# the targets nvcc 13 builds (the first is its oldest), as __CUDA_ARCH__ values
_IS_DEVICE = re.compile(r"defined\s*\(?\s*__CUDA_ARCH__\s*\)?")
_ARCHES = (750, 800, 860, 870, 880, 890, 900, 1000, 1030, 1100, 1200, 1210)


def _own_branches(text: str, at: int) -> Iterator[re.Match[str]]:
    """The ``#if``/``#elif`` directives whose branch holds offset ``at``, innermost first: a
    walk back over the directives before it, skipping closed blocks and the sibling branches
    before each one's own."""
    depth = 0
    own = True  # the next directive at this depth opens the branch that holds ``at``
    for m in reversed(list(_DIRECTIVE.finditer(text, 0, at))):
        word = m.group(1)
        if word == "endif":
            depth += 1
        elif word in ("if", "ifdef", "ifndef"):
            if depth:
                depth -= 1
                continue
            if own:
                yield m
            own = True  # the block's own opener: the next one out opens the enclosing branch
        elif not depth:  # elif / else of the chain that holds ``at``
            if own and word == "elif":
                yield m
            own = False


def lower_guard(statement: AsmStatement, text: str) -> Iterator[Edit]:
    """The bound of the innermost ``#if``/``#elif`` of the statement's own branches that reads
    ``__CUDA_ARCH__ >= N``, where N is the lowest target the guards admit and an instruction
    needs it, lowered to the newest target below that need: ptxas refuses the instruction for
    the targets the guard now admits (PTX401)."""
    facts = analysis_of(statement)
    lowest = facts.lowest_target
    if lowest is None or facts.no_device_build:
        return
    needs = [instruction_requirement(statement, i) for i in statement.ptx.instructions
             if not i.opaque]
    needed = max((need.sm for need in needs), default=0)
    below = [a for a in _ARCHES if a < needed * 10]
    if not below or needed > lowest.sm or any(facts.lacking(need) for need in needs):
        return  # no target CUDA 13 builds lacks it, or PTX401's finding already (sm_100a)
    for m in _own_branches(text, statement.span.start):
        condition = m.group(2)
        bound = _ARCH_AT_LEAST.search(condition)
        if bound is None or "\\" in condition:
            continue
        # Another word of the target in this condition or another guard (an architecture
        # feature macro, a second bound, a project's SM90_ENABLED) may keep the lowered
        # bound's targets out: no defect by construction.
        others = [_IS_DEVICE.sub("", g) for g in statement.context.guards]
        if (int(bound.group(1)) // 10 != lowest.sm
                or "ARCH" in _IS_DEVICE.sub("", condition[:bound.start()] + condition[bound.end():])
                or sum("ARCH" in g for g in others) != 1):
            return
        yield Edit(m.start(2) + bound.start(1), m.start(2) + bound.end(1), str(below[-1]))
        return


# Conditions true for some lanes of every warp and false for others (PTX601's docs name each
# form), taken in turn so that no one spelling is all the class measures.
_LANE_SPLITS = ("threadIdx.x % 32 == 0", "(threadIdx.x & 31) < 16", "threadIdx.x % 2 == 0",
                "threadIdx.x == 0")
_STATEMENT_BEFORE = re.compile(r"[;{}]\s*$|^\s*$|^\s*#.*\n\s*$")


def _warp_collective(instruction: PtxInstruction) -> bool:
    """An instruction every lane of the warp must execute together: an ``.aligned`` form
    (``mma.sync.aligned``, ``ldmatrix``, ``wgmma``...) or ``bar.sync``/``bar.arrive``, which
    are ``barrier.*.aligned``."""
    return "aligned" in instruction.modifiers or (
        instruction.opcode == "bar" and instruction.modifiers[:1] in (("sync",), ("arrive",)))


def diverge(statement: AsmStatement, text: str) -> Iterator[Edit]:
    """An ``if`` on a condition that splits every warp put before a statement holding a warp
    collective (``if (threadIdx.x % 32 == 0) asm volatile("bar.sync 0;");``), on its line:
    only part of the warp reaches it, which the PTX ISA leaves undefined (PTX601). Only an
    asm statement that is a statement of a function of its own (not in a macro's body, nor an
    expression), after a ``;``, ``{``, ``}`` or a directive line."""
    context = statement.context
    if context.macro is not None or context.function is None:
        return
    if not any(_warp_collective(i) for i in statement.ptx.instructions if not i.opaque):
        return
    start, end = statement.span.start, statement.span.end
    if not text[end:end + 8].lstrip(" \t").startswith(";"):
        return
    line_start = text.rfind("\n", 0, start) + 1
    before = text[max(0, line_start - 200):start]
    if not _STATEMENT_BEFORE.search(before):
        return
    split = _LANE_SPLITS[(start // 7) % len(_LANE_SPLITS)]
    yield Edit(start, start, f"if ({split}) ")


def _named_first(instruction: PtxInstruction) -> set[int]:
    first = instruction.operands[0]
    return {p.ref for p in (first, *first.parts) if p.ref is not None}


MUTATIONS: dict[str, Callable[[AsmStatement, str], Iterator[Edit]]] = {
    "drop-memory": drop_memory,
    "drop-volatile": drop_volatile,
    "l-to-r": l_to_r,
    "widen-type": widen_type,
    "drop-separator": drop_separator,
    "unbrace": unbrace,
    "generic-shared": generic_shared,
    "narrow-vector": narrow_vector,
    "drop-carry": drop_carry,
    "plus-to-eq": plus_to_eq,
    "drop-write": drop_write,
    "index-shift": index_shift,
    "drop-sync": drop_sync,
    "float-letter": float_letter,
    "wrong-space": wrong_space,
    "drop-early-clobber": drop_early_clobber,
    "drop-vector-element": drop_vector_element,
    "input-as-output": input_as_output,
    "lower-guard": lower_guard,
    "diverge": diverge,
}


@dataclass(frozen=True)
class Corpus:
    """What one benchmark mutates: the files it reads (by suffix, and only those spelling one
    of ``words``), the statements it mutates (``plain``) and how, and the rules meant for
    each class (``expected``, and ``also``: the others that name the same defect)."""

    suffixes: tuple[str, ...]
    words: tuple[str, ...]
    plain: Callable[[AsmStatement], bool]
    mutations: dict[str, Callable[[AsmStatement, str], Iterator[Edit]]]
    expected: dict[str, str]
    also: dict[str, tuple[str, ...]]


def read(path: str, words: tuple[str, ...]) -> str | None:
    """The file's text where it spells one of ``words``, else None (unreadable too)."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return None
    return text if any(word in text for word in words) else None


def corpus_sites(trees: Sequence[str], rules: list[Rule], corpus: Corpus) -> Iterator[Site]:
    """Every site of every class in the trees' files, in path and statement order."""
    for tree in trees:
        for folder, dirs, names in os.walk(tree):
            dirs.sort()
            for name in sorted(names):
                if not name.endswith(corpus.suffixes):
                    continue
                path = os.path.join(folder, name)
                text = read(path, corpus.words)
                if text is None:
                    continue
                result = lint_source(SourceFile(path, text), rules, RuleContext())
                for statement in result.statements:
                    if not corpus.plain(statement):
                        continue
                    line = text.count("\n", 0, statement.span.start) + 1
                    shown = " ".join(text[statement.span.start:statement.span.end].split())
                    for kind, mutate in corpus.mutations.items():
                        for edit in mutate(statement, text):
                            yield Site(path, kind, line, edit, shown[:160])


CXX = Corpus(SUFFIXES, ("asm",), _plain, MUTATIONS, EXPECTED, _ALSO)


def sites(trees: Sequence[str], rules: list[Rule]) -> Iterator[Site]:
    return corpus_sites(trees, rules, CXX)


def findings(path: str, text: str, rules: list[Rule]) -> Counter[tuple[str, int]]:
    """The findings as (rule, line): a mutation keeps every line where it was, and a finding
    the file had already whose words change with it (PTX102's on a statement no longer
    volatile) is no new one."""
    result = lint_source(SourceFile(path, text), rules, RuleContext())
    return Counter((f.rule, text.count("\n", 0, f.span.start)) for f in result.findings)


def preview_classes_of(corpus: Corpus, preview: set[str] | frozenset[str]) -> frozenset[str]:
    """The classes whose rule is in preview: measured only with ``--preview``."""
    return frozenset(kind for kind, rule in corpus.expected.items() if rule in preview)


def mutated(site: Site, text: str) -> str:
    """``text`` with ``site``'s edit made."""
    return text[:site.edit.start] + site.edit.text + text[site.edit.end:]


def new_rules(site: Site, text: str, rules: list[Rule],
              before: Counter[tuple[str, int]]) -> set[str]:
    """The rules that speak of ``site``'s mutant of ``text`` where the file (whose findings
    are ``before``) had nothing to say: the ones that noticed the defect."""
    return {rule for rule, _ in findings(site.path, mutated(site, text), rules) - before}


def run(corpus: Corpus, description: str) -> int:
    """The benchmark's command line, over ``corpus``: sample the sites, lint each mutant, print
    the reach per class (which of the class's rules spoke, where several name its defect)."""
    mutations, expected = corpus.mutations, corpus.expected
    parser = argparse.ArgumentParser(description=description.split("\n\n")[0])
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--per-class", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jsonl", help="one JSON line per site")
    parser.add_argument("--only", action="append", choices=sorted(mutations),
                        help="only this class (repeatable)")
    parser.add_argument("--preview", action="store_true",
                        help="also the classes whose rule is in preview, with those rules")
    args = parser.parse_args()
    with_preview = args.preview
    classes = load_rules().rules
    preview = preview_ids(classes)
    preview_classes = preview_classes_of(corpus, preview)
    # (with --preview, only the preview rules a class is meant for: the protocol rules' flows
    # over every mutant of a large header would cost more than all the others together)
    wanted = {expected[kind] for kind in preview_classes} if with_preview else set()
    rules = [r for r in instantiate(classes) if r.id not in preview or r.id in wanted]
    by_kind: dict[str, list[Site]] = defaultdict(list)
    for site in corpus_sites(args.trees, rules, corpus):
        if (not args.only or site.kind in args.only) and (
                with_preview or site.kind not in preview_classes):
            by_kind[site.kind].append(site)
    chosen: list[Site] = []
    for kind in mutations:
        found = by_kind.get(kind, [])
        if args.per_class and len(found) > args.per_class:
            found = random.Random(args.seed).sample(found, args.per_class)
        chosen.extend(found)
    chosen.sort(key=lambda s: (s.path, s.edit.start))
    texts: dict[str, tuple[str, Counter[tuple[str, int]]]] = {}
    rows: list[str] = []
    tally: dict[str, Counter[str]] = defaultdict(Counter)
    for site in chosen:
        if site.path not in texts:
            text = read(site.path, corpus.words) or ""
            texts = {site.path: (text, findings(site.path, text, rules))}
        text, before = texts[site.path]
        new = sorted(new_rules(site, text, rules, before))
        meant = {expected[site.kind], *corpus.also.get(site.kind, ())}
        tally[site.kind]["sites"] += 1
        tally[site.kind]["expected" if meant & set(new) else "other" if new else "missed"] += 1
        tally[site.kind]["echoed"] += len(new) > 1
        for rule in sorted(meant & set(new)):
            tally[site.kind][f"rule {rule}"] += 1
        rows.append(json.dumps({"kind": site.kind, "path": site.path, "line": site.line,
                                "statement": site.statement, "new": new}))
    if args.jsonl:
        with open(args.jsonl, "w") as handle:
            handle.write("".join(row + "\n" for row in rows))
    for kind in args.only or mutations:
        if kind in preview_classes and not with_preview:
            print(f"{kind:19} (its rule, {expected[kind]}, is in preview: run with --preview)")
            continue
        counts = tally.get(kind, Counter())
        n = counts["sites"]
        # which of the rules that name the class's defect spoke (PTX004 or PTX206, ...)
        split = ", ".join(f"{key[5:]} {value}" for key, value in sorted(counts.items())
                          if key.startswith("rule "))
        print(f"{kind:19} {n:5} sites: {counts['expected']:5} by {expected[kind]}"
              f"{f' ({split})' if split and len(split.split(',')) > 1 else ''}, "
              f"{counts['other']:4} by another rule only, {counts['missed']:4} missed "
              f"({100 * (n - counts['missed']) / max(n, 1):.1f}% noticed; "
              f"{counts['echoed']} by more than one rule; {len(by_kind.get(kind, []))} found)")
    return 0


def main() -> int:
    return run(CXX, __doc__ or "")


if __name__ == "__main__":
    raise SystemExit(main())
