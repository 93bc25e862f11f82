#!/usr/bin/env python3
"""How often ptxlint notices a defect put into real Python-DSL asm statements (Triton's
``inline_asm_elementwise``, CuTe DSL's ``llvm.inline_asm`` and ``inline_ptx``, llvmlite): the
LLVM-syntax sibling of ``benchmarks/defect_reach.py``, which mutates C++ statements only.

A sibling rather than more classes there: these statements are read by another front end
(``ptxlint/frontends/python``), are written in another syntax (``$N``, one constraint string
``"=r,r,l"`` beside an argument list, a purity flag instead of ``volatile`` and ``"memory"``),
and several C++ classes have no LLVM counterpart (there is no ``+``, no ``#if``, and LLVM's
``~{memory}`` orders nothing: MLIR and LLVM model an inline asm call as touching memory unless
it is declared pure, so dropping the clobber is no defect, and PTX102 leaves LLVM syntax to
PTX505). The classes whose mutation reads only the template (a type widened, a ``;`` deleted)
are ``defect_reach``'s own functions, applied to Python statements; the file walk, the
sampling and the report are the same.

Each mutation is a defect whatever the code around it is:

* ``index-shift``: the last mention of the highest ``$N`` of a template that names its last
  operand renumbered to the next index, past the last operand: LLVM stops with "invalid
  operand in inline asm" (PTX001).
* ``drop-entry``: the last input entry of the constraint string removed (its comma with it):
  the string lists one operand fewer than the call binds, which LLVM's verifier (or Triton's
  and MLIR's lowering) rejects (PTX501).
* ``add-entry``: one more input entry, a copy of the last input's (or ``r`` where there is
  none), appended to the operand entries: one operand more than the call binds (PTX501).
* ``make-pure``: a literal ``is_pure=False`` made ``True`` (``has_side_effects=True``,
  ``side_effect=True`` made ``False``) where the template has a side effect (a store, an
  atomic, a barrier, a fence, an async copy, an mbarrier step): the optimizer deletes,
  merges or moves the call (PTX505).
* ``r-to-l``: the ``r`` of the first ``$N`` of an instruction typed ``.u32``/``.s32``/``.b32``
  whose ``$N`` operands are all bound ``r``, made ``l``: a 64-bit register in a 32-bit place,
  which ptxas rejects ("Arguments mismatch for instruction"); where the front end knows the
  value is 32-bit, LLVM binds it widened (PTX004 owns an LLVM width misfit,
  ``StatementAnalysis.llvm_width_misfits``; PTX206 where the value's type is not known).
* ``widen-type``, ``drop-separator``, ``unbrace``, ``narrow-vector``, ``drop-carry``,
  ``drop-write``, ``drop-sync``, ``drop-early-clobber``, ``drop-vector-element``,
  ``wrong-space``, ``l-to-r``: ``defect_reach``'s classes of the same names, which read and
  edit the template or one constraint letter only (``drop-sync`` only where the member mask is
  an immediate or named elsewhere too: a ``$N`` left unnamed is a second edit to the call;
  ``drop-write`` not where what is left is a template for a side effect that names no output,
  LLVM's dummy result: ``{ bar.sync 1, 64; mov.u32 $0, 0; }`` without its ``mov`` is
  Triton's ``bar.sync 1, 64;`` with the ``"=r"`` it must have, whose value nobody reads).

Where the front end does not know an operand's value type (``address.ir_value()``), what
ptxas reports is the register's misfit with its place in the template, so PTX206's finding
names the defect of ``r-to-l``, ``l-to-r`` and ``wrong-space`` too; the report says which of
the rules spoke.

Only statements whose template (and, for the constraint classes, constraint string) sits in
plain string literals of the file are mutated (no f-string, no helper's return value; a name
bound to a literal is followed to it, but not a template read once per branch of an ``if``,
whose other reading may share the edited literal), and every line stays where it was.
*Noticed*, *another rule only* and *more than one rule* mean what they do in
``defect_reach``.

Usage: ``python benchmarks/defect_reach_python.py TREE... [--per-class N] [--seed S]
[--jsonl FILE] [--only CLASS]``. Nothing in the trees is written or executed. Not part of CI.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import defect_reach as cxx  # noqa: E402
from defect_reach import Edit, Site  # noqa: E402

from ptxlint.analysis.statement import analysis_of  # noqa: E402
from ptxlint.model import AsmStatement, Template  # noqa: E402
from ptxlint.rule import Rule  # noqa: E402

EXPECTED = {
    "index-shift": "PTX001",
    "drop-entry": "PTX501",
    "add-entry": "PTX501",
    "make-pure": "PTX505",
    "r-to-l": "PTX004",
    "widen-type": "PTX206",
    "drop-separator": "PTX205",
    "unbrace": "PTX201",
    "narrow-vector": "PTX207",
    "drop-carry": "PTX209",
    "drop-write": "PTX104",
    "drop-sync": "PTX402",
    "drop-early-clobber": "PTX108",
    "drop-vector-element": "PTX207",
    "wrong-space": "PTX301",
    "l-to-r": "PTX004",
}
# the rules that report the class's defect: either names it. Where the front end does not know
# the value's type (``address.ir_value()``), the register's misfit with its place in the
# template is what ptxas reports: r-to-l's 64-bit register in a 32-bit place, l-to-r's and
# wrong-space's 32-bit register as a .global address (PTX206); where it knows a 64-bit value
# went under "r", or a shared-window offset, PTX004 or PTX301 names the root.
_ALSO = {**cxx._ALSO, "r-to-l": ("PTX206",), "l-to-r": ("PTX206",), "wrong-space": ("PTX206",)}


def _literal(template: Template | None) -> bool:
    """The text is one or more plain Python string literals: each character has its place."""
    return (template is not None and not template.has_holes and bool(template.pieces)
            and all(piece.kind == "pystring" for piece in template.pieces))


def _plain(statement: AsmStatement) -> bool:
    # (not a reading of one branch of an ``if`` that binds the template: a literal of the
    # other branch's reading may hold part of the edit, which would then make two defects)
    return (statement.syntax == "llvm" and statement.llvm is not None
            and statement.context.expansion is None and not statement.context.branch
            and _literal(statement.template))


def _constraints_plain(statement: AsmStatement) -> bool:
    """The call's constraint string is a literal whose every entry is known, and no operand's
    constraint a hole (``inline_ptx`` has none: its operands come from its argument lists)."""
    call = statement.llvm
    return (call is not None and call.api != "cute-ptx" and _literal(call.constraints)
            and not any(e.opaque for e in call.entries)
            and not any(o.constraint.opaque for o in statement.operands))


def index_shift(statement: AsmStatement, text: str) -> Iterator[Edit]:
    if _constraints_plain(statement):
        yield from cxx.index_shift(statement, text)


def _operand_entries(statement: AsmStatement) -> list[tuple[int, int, str, str]]:
    """(start, end, text, role) of each output and input entry, in the string's order."""
    call = statement.llvm
    assert call is not None
    return [(e.span.start, e.span.end, e.text, e.role) for e in call.entries
            if e.role in ("output", "input")]


def drop_entry(statement: AsmStatement, text: str) -> Iterator[Edit]:
    if not _constraints_plain(statement):
        return
    entries = _operand_entries(statement)
    inputs = [k for k, e in enumerate(entries) if e[3] == "input"]
    if not inputs or len(entries) < 2:
        return
    start, end, written, _ = entries[inputs[-1]]
    if text[start:end] != written:
        return
    # the comma before it with it (after it where it is the first entry)
    comma = text.rfind(",", 0, start)
    if inputs[-1] > 0 and comma >= 0 and text[comma + 1:start].strip() == "":
        yield Edit(comma, end, "")
        return
    after = text.find(",", end)
    if after >= 0 and text[end:after].strip() == "":
        yield Edit(start, after + 1, "")


def add_entry(statement: AsmStatement, text: str) -> Iterator[Edit]:
    if not _constraints_plain(statement):
        return
    entries = _operand_entries(statement)
    if not entries:
        return
    start, end, written, _ = entries[-1]
    inputs = [e for e in entries if e[3] == "input"]
    letter = inputs[-1][2] if inputs else "r"
    if text[start:end] != written or not letter.isalpha():
        return
    yield Edit(end, end, "," + letter)


def make_pure(statement: AsmStatement, text: str) -> Iterator[Edit]:
    call = statement.llvm
    if call is None or call.side_effects is not True or call.side_effects_span is None:
        return
    if not any(cxx._side_effect(i) for i in statement.ptx.instructions if not i.opaque):
        return
    span = call.side_effects_span
    literal = text[span.start:span.end]
    if call.side_effects_name == "is_pure" and literal == "False":
        yield Edit(span.start, span.end, "True")
    elif call.side_effects_name != "is_pure" and literal == "True":
        yield Edit(span.start, span.end, "False")


_NARROW = ("u32", "s32", "b32")


def r_to_l(statement: AsmStatement, text: str) -> Iterator[Edit]:
    if not _constraints_plain(statement):
        return
    by_index = {o.index: o for o in statement.operands}
    for instruction in statement.ptx.instructions:
        if instruction.opaque or not instruction.modifiers:
            continue
        if instruction.modifiers[-1] not in _NARROW or instruction.opcode in (
                "cvt", "cvta", "mov", "ld", "st", "ldu", "atom", "red"):
            continue  # (cvt and memory instructions take a register wider than their type)
        refs = [o.ref for o in instruction.operands]
        named = [by_index[ref] for ref in refs if ref is not None and ref in by_index]
        if not refs or len(named) != len(refs) or any(
                o.constraint.letters != "r" for o in named):
            continue
        constraint = named[0].constraint
        at = text.find("r", constraint.span.start, constraint.span.end)
        if at >= 0:
            yield Edit(at, at + 1, "l")
            return


def _drop_sync(statement: AsmStatement, text: str) -> Iterator[Edit]:
    # defect_reach's: a mask named only there would be cut from a C++ operand list, which an
    # LLVM statement has not (no colons), so only the template edit is made
    for edit in cxx.drop_sync(statement, text):
        if edit.end <= statement.template.char_ends[-1]:
            yield edit


def _drop_write(statement: AsmStatement, text: str) -> Iterator[Edit]:
    # defect_reach's, except where what is left is LLVM's dummy-result idiom: a template for a
    # side effect that names no output (``{ bar.sync 1, 64; mov.u32 $0, 0; }`` without its
    # mov): the API wants a result the caller ignores, so nothing undefined is read
    if not _constraints_plain(statement):
        return
    instructions = statement.ptx.instructions
    for edit in cxx.drop_write(statement, text):
        gone = next((k for k, i in enumerate(instructions)
                     if statement.template.char_starts[i.start] == edit.start), None)
        if gone is None:
            continue
        named = {o.index for o in statement.outputs} & {
            index for k, i in enumerate(instructions) if k != gone for index in cxx._named(i)}
        effects = [e for e in analysis_of(statement).side_effects if e.position != gone]
        if named or not effects:
            yield edit


def _constraint_letter(mutate: Callable[[AsmStatement, str], Iterator[Edit]]
                       ) -> Callable[[AsmStatement, str], Iterator[Edit]]:
    """A ``defect_reach`` class that edits a constraint letter, where the letters are known."""
    def mutated(statement: AsmStatement, text: str) -> Iterator[Edit]:
        if _constraints_plain(statement):
            yield from mutate(statement, text)
    return mutated


MUTATIONS: dict[str, Callable[[AsmStatement, str], Iterator[Edit]]] = {
    "index-shift": index_shift,
    "drop-entry": drop_entry,
    "add-entry": add_entry,
    "make-pure": make_pure,
    "r-to-l": r_to_l,
    "widen-type": cxx.widen_type,
    "drop-separator": cxx.drop_separator,
    "unbrace": cxx.unbrace,
    "narrow-vector": cxx.narrow_vector,
    "drop-carry": cxx.drop_carry,
    "drop-write": _drop_write,
    "drop-sync": _drop_sync,
    "drop-early-clobber": _constraint_letter(cxx.drop_early_clobber),
    "drop-vector-element": cxx.drop_vector_element,
    "wrong-space": _constraint_letter(cxx.wrong_space),
    "l-to-r": _constraint_letter(cxx.l_to_r),
}


PYTHON = cxx.Corpus((".py",), ("inline_asm", "inline_ptx"), _plain, MUTATIONS, EXPECTED, _ALSO)


def sites(trees: Sequence[str], rules: list[Rule]) -> Iterator[Site]:
    return cxx.corpus_sites(trees, rules, PYTHON)


def main() -> int:
    return cxx.run(PYTHON, __doc__ or "")


if __name__ == "__main__":
    raise SystemExit(main())
