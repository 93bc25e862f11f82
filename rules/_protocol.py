"""Shared by the PTX6xx rules: where a cross-statement finding is placed, read off the per-function
flows of :mod:`ptxlint.analysis.function_flow`. Not a rule module (rules/__init__ collects
``ptx*`` only)."""

from __future__ import annotations

from ptxlint.analysis.function_flow import FunctionFlow, Step
from ptxlint.model import AsmStatement, Span

# What every protocol rule's docs say of the steps ptxlint cannot read and of the calls it follows
# through type aliases (the function flows' behaviour, one text for the rules that share it).
UNREADABLE_STEPS = """\
An asm statement whose template ptxlint cannot read (a hole, such as a macro it does
not know, or an instruction no form spells) may be any step, and so may the declaration
of an object whose class's constructor takes or may take one: either silences the rule
as a call ptxlint cannot read does.
"""
ALIAS_CALLS = """\
A helper called through a type alias is followed too (`using WGMMA = typename
Selector<N>::type; WGMMA::wgmma(...)`, `conditional_t<B, T, F>`, an alias of the function,
its class or its namespace): where the alias may name several classes (the primary
template's and each specialization's member type, both sides of `conditional_t`), only
where every one's method takes the same steps; the call is one ptxlint cannot read otherwise.
"""


def byte_span(flow: FunctionFlow, start: int, end: int) -> Span:
    """The source span of bytes ``[start, end)`` of the flow's file."""
    return Span(flow.parsed.to_char(start), flow.parsed.to_char(end))


def step_span(flow: FunctionFlow, step: Step) -> Span:
    """Where a step is reported: the helper call that reaches it, or its opcode."""
    if step.call is not None:
        return byte_span(flow, step.call.start, step.call.end)
    instruction = step.instruction
    return step.statement.template.source_span(instruction.opcode_start, instruction.opcode_end)


def reaches_registers(flow: FunctionFlow, name: str, element: bool) -> bool:
    """Whether a use of ``name`` (``FunctionFlow.uses_of``: through an element or not)
    reaches the registers an asm statement binds to it: not one that moves a pointer they are
    elements behind (``accum = accum_base + m * 64;``)."""
    return element or not flow.declared_pointer(name)


def line_of(flow: FunctionFlow, byte: int) -> int:
    """The 1-based line of byte ``byte``."""
    return flow.parsed.data.count(b"\n", 0, byte) + 1


def where(flow: FunctionFlow, step: Step) -> str:
    """How a message names a step: its line, and the helper call it comes through."""
    line = line_of(flow, step.start)
    if step.call is not None:
        return f"line {line} (through {step.call.name}())"
    return f"line {line}"


def first_byte(flow: FunctionFlow, statement: AsmStatement) -> int:
    return flow.parsed.to_byte(statement.span.start)
