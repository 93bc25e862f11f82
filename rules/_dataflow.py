"""Shared by PTX105-PTX106: the fix that turns an input into an output (where the template
writes and reads each operand is the analysis's: :mod:`ptxlint.analysis.operand_access`; whether
the expression may be written is :func:`ptxlint.analysis.output_lvalues.writable`). Not a rule
module (rules/__init__ collects ``ptx*`` only)."""

from __future__ import annotations

from typing import cast

from ptxlint.analysis.cxx_facts import FunctionFacts
from ptxlint.analysis.output_lvalues import writable
from ptxlint.analysis.reversed_mov import ReversedMov
from ptxlint.analysis.template_refs import refs_of
from ptxlint.model import AsmStatement, Edit, Finding, Fix, Operand, Span
from ptxlint.rule import Rule


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
        or refs_of(statement).named
        or len(statement.colons) < 2
        or not _written_in_order(statement)
        or not writable(operand, facts)  # a const object or an rvalue cannot become an output
    ):
        return None
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
    for token in refs_of(statement).refs:  # every %N with a number, in text order
        index = cast(int, token.index)
        if index == operand.index:
            number = new_index
        elif new_index <= index < operand.index:
            number = index + 1
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


def reversed_mov_finding(rule: Rule, statement: AsmStatement, mov: ReversedMov) -> Finding:
    """The one finding for a backwards ``mov`` (PTX105's where it writes inputs, PTX106's where
    it reads outputs), with the swap of its operands as the fix. Unsafe: the fix changes what
    the template computes (to what it was meant to)."""
    instruction, destination, source = mov.instruction, mov.destination, mov.source
    if statement.syntax == "llvm":
        # as the source spells it: CuTe DSL's inline_ptx writes `{$r0}` where the lowered
        # template has `$1`
        def spelled(start: int, end: int) -> str:
            span = statement.template.source_span(start, end)
            return statement.source.text[span.start : span.end]
    else:
        def spelled(start: int, end: int) -> str:
            return statement.template.text[start:end]
    written = spelled(instruction.opcode_start, source.end)
    swapped = (f"{spelled(source.start, source.end)}{spelled(destination.end, source.start)}"
               f"{spelled(destination.start, destination.end)}")
    mnemonic = instruction.mnemonic
    prefix = statement.ref_prefix
    refs = ", ".join(f"{prefix}{i}" for i in mov.refs)
    plural = "s" if len(mov.refs) > 1 else ""
    if mov.inputs:
        into = ", ".join(f"{prefix}{i}" for i in mov.inputs)
        if statement.syntax == "llvm":  # one operand each side, named as the source names it
            refs, into = spelled(source.start, source.end), spelled(destination.start,
                                                                    destination.end)
            kept = (f"whose register{plural} still hold{'' if plural else 's'} the tensor for "
                    "later uses")
        else:
            kept = ("which the compiler assumes "
                    f"{'keep their values' if plural else 'keeps its value'}")
        what = (f"it reads write-only output{plural} {refs} before anything writes "
                f"{'them' if plural else 'it'}, into input{plural} {into}, {kept}")
        meant = f"copy the input{plural} into the output{plural}"
    elif mov.writes_inputs:
        what = (f"it writes input{plural} {refs} from '{mov.register}', which the template never "
                f"wrote: the compiler assumes an input keeps its value, and '{mov.register}' "
                "holds garbage")
        meant = f"pack the input{plural} into '{mov.register}'"
    else:
        what = (f"it reads write-only output{plural} {refs} before anything writes them, into "
                f"'{mov.register}', which nothing reads after")
        meant = f"unpack '{mov.register}' into the output{plural}"
    edit = rule.template_edit(statement, destination.start, source.end, swapped)
    fix = Fix(f"Swap the operands of '{mnemonic}'", (edit,), safe=False) \
        if edit is not None else None
    return rule.finding(
        statement,
        rule.template_span(statement, instruction.opcode_start, source.end),
        f"'{written}' copies the wrong way: {what}; '{mnemonic} {swapped}' would {meant}",
        fix=fix,
    )
