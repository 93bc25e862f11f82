"""Shared by PTX105-PTX106: where a template writes and reads its ``%N`` operands, and the fix
that turns an input into an output. Not a rule module (rules/__init__ collects ``ptx*`` only)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from ptxlint.cxx_facts import FunctionFacts
from ptxlint.model import (
    AsmStatement,
    Edit,
    Fix,
    Operand,
    PtxInstruction,
    PtxOperand,
    PtxTemplate,
    Span,
)
from ptxlint.ptx.operand_roles import destinations, sources
from ptxlint.ptx.template_memo import TemplateMemo
from ptxlint.rule import Rule

# An lvalue ptxlint can see is one: `x`, `*p`, `a.b`, `p->c`, `v[i]`, `s.a[2].x`
_LVALUE = re.compile(
    r"\s*(?:\*\s*)?\(*\s*[A-Za-z_]\w*\s*\)*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*|\s*\[[^\[\]]*\])*\s*"
)


class Access(NamedTuple):
    """One read or write of a ``%N`` operand (a tuple: a wgmma's template makes 130)."""

    position: int  # index of the instruction in the template
    instruction: PtxInstruction
    operand: PtxOperand  # the %N token


class _Side:
    """One side of a template's index (its writes or its reads): which ``%N`` it touches at
    all, and the accesses of each ``%N`` made when that one is asked for. The rules ask of a
    few operands per statement (PTX105 of the inputs, PTX106 of the ``=`` outputs) and most
    answers are empty, while a GMMA's template writes 128 operands and reads 130."""

    __slots__ = ("_operands", "_refs", "_accesses")

    def __init__(
        self, ptx: PtxTemplate, operands_of: Callable[[PtxInstruction], list[PtxOperand] | None]
    ) -> None:
        self._operands = [(position, instruction, operands_of(instruction) or [])
                          for position, instruction in enumerate(ptx.instructions)]
        self._refs = {o.ref for _, _, operands in self._operands for o in operands
                      if o.kind == "ref"}
        self._accesses: dict[int, list[Access]] = {}

    def of(self, index: int) -> list[Access]:
        if index not in self._refs:
            return []
        found = self._accesses.get(index)
        if found is None:
            found = [_new_access(Access, (position, instruction, operand))
                     for position, instruction, operands in self._operands
                     for operand in operands if operand.ref == index and operand.kind == "ref"]
            self._accesses[index] = found
        return found


class _Index:
    """Every write and read of a template's ``%N`` operands, by operand index. Each side is
    built the first time it is asked for: PTX105 asks for the writes of a statement's inputs,
    and for its reads only when an input is written; PTX106 asks for the reads of its ``=``
    outputs. A GMMA, whose 128 outputs are ``+``, never needs its 130 reads."""

    __slots__ = ("_ptx", "_writes", "_reads")

    def __init__(self, ptx: PtxTemplate) -> None:
        self._ptx = ptx
        self._writes: _Side | None = None
        self._reads: _Side | None = None

    @property
    def writes(self) -> _Side:
        if self._writes is None:
            self._writes = _Side(self._ptx, destinations)
        return self._writes

    @property
    def reads(self) -> _Side:
        if self._reads is None:
            self._reads = _Side(self._ptx, sources)
        return self._reads


_INDEX: TemplateMemo[_Index] = TemplateMemo(4096)


def _index(statement: AsmStatement) -> _Index:
    """Every ``%N`` write and read of the template, by operand, built once per template (the
    rules ask per operand; the template is walked once per side)."""
    ptx = statement.ptx
    return _INDEX.of(ptx, lambda: _Index(ptx))


# ``Access(...)`` goes through NamedTuple's Python-level ``__new__``; the tuple's own makes
# the same object for less
_new_access = tuple.__new__


def writes_of(statement: AsmStatement, index: int) -> list[Access]:
    """Every destination ``%index`` of the template's instructions whose destinations are
    known, in text order."""
    return _index(statement).writes.of(index)


def reads_of(statement: AsmStatement, index: int) -> list[Access]:
    """Every place an instruction reads ``%index`` (a source, an address register, a guard)."""
    return _index(statement).reads.of(index)


# The NVPTX register classes: only these bind an operand to a register a PTX instruction can
# write or read (not "n"/"C" immediates, not a memory "m" that only host dialects have).
REGISTER_LETTERS = frozenset("hrlqfd")
_REGISTER_CHARS = "".join(sorted(REGISTER_LETTERS))


def register_operand(operand: Operand) -> bool:
    letters = operand.constraint.letters
    # every letter one of REGISTER_LETTERS: nothing left once they are stripped (asked of
    # each of a GMMA's 135 operands)
    return not operand.constraint.opaque and bool(letters) and not letters.strip(_REGISTER_CHARS)


def is_lvalue(expression: str) -> bool:
    return _LVALUE.fullmatch(expression) is not None


def _written_in_order(statement: AsmStatement) -> bool:
    """The operands stand in the source one after another, as the edits below assume; not so
    when a macro's body supplies some and its invocation others (a fuzzed file: an inverted
    span)."""
    ends = [o.span for o in statement.operands]
    return all(a.end <= b.start for a, b in zip(ends, ends[1:], strict=False))


def input_to_output(
    rule: Rule,
    statement: AsmStatement,
    operand: Operand,
    modifier: str,
    facts: FunctionFacts | None,
) -> Fix | None:
    """Move input ``operand`` to the end of the outputs with ``modifier`` (``+`` or ``=``) and
    renumber every ``%N`` the move shifts; ``None`` where that cannot be written exactly."""
    text = statement.source.text
    if (
        statement.goto_labels
        or statement.opaque_sections
        or statement.template.has_holes
        or any(o.symbolic_name or o.constraint.opaque for o in statement.operands)
        or any(t.kind == "named" for t in statement.ptx.percents)
        or len(statement.colons) < 2
        or not is_lvalue(operand.expression)
        or not _written_in_order(statement)
    ):
        return None
    if facts is not None:
        name = re.match(r"\W*(\w+)", operand.expression)
        decl = facts.resolve(name.group(1), 0) if name else None
        if decl is not None and decl.const and not decl.indirect:
            return None  # a const variable cannot become an output
    literal = text[operand.constraint.span.start : operand.constraint.span.end]
    if not literal.startswith('"'):
        return None
    moved = f'"{modifier}{literal[1:]}' + text[operand.constraint.span.end : operand.span.end]
    outputs, inputs = statement.outputs, statement.inputs
    edits: list[Edit] = []
    # take it out of the inputs, with the comma that separates it from a neighbour
    at = inputs.index(operand)
    if at > 0:
        edits.append(Edit(Span(inputs[at - 1].span.end, operand.span.end), ""))
    elif at + 1 < len(inputs):
        edits.append(Edit(Span(operand.span.start, inputs[at + 1].span.start), ""))
    else:
        edits.append(Edit(operand.span, ""))
    # and append it to the outputs
    if outputs:
        edits.append(Edit(Span(outputs[-1].span.end, outputs[-1].span.end), f", {moved}"))
    else:
        first_colon = statement.colons[0] + 1
        edits.append(Edit(Span(first_colon, first_colon), f" {moved} "))
    new_index = len(outputs)
    for token in statement.ptx.percents:
        if token.kind != "ref" or token.index is None:
            continue
        if token.index == operand.index:
            number = new_index
        elif new_index <= token.index < operand.index:
            number = token.index + 1
        else:
            continue
        edit = rule.template_edit(statement, token.start, token.end, f"%{token.modifier}{number}")
        if edit is None:
            return None
        edits.append(edit)
    what = "read-write ('+')" if modifier == "+" else "write-only ('=')"
    return Fix(
        f"Make operand %{operand.index} ({operand.expression.strip()}) an output, {what}, "
        f"as %{new_index}",
        tuple(edits),
        safe=False,
    )
