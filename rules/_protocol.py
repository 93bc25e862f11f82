"""Shared by PTX601-PTX608: where a cross-statement finding is placed, read off the per-function
flows of :mod:`ptxlint.analysis.function_flow`. Not a rule module (rules/__init__ collects
``ptx*`` only)."""

from __future__ import annotations

from ptxlint.analysis.function_flow import FunctionFlow, Step
from ptxlint.model import AsmStatement, Span


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
