"""An operand expression of a helper's asm, in the terms of a function that calls it.

A helper's asm operand is often an expression of its parameters rather than one of them: the
toolkit's ``__pipeline_wait_prior(prior)`` waits ``min(prior, 8)`` groups, a wrapper waits
``"n"(N - 1)``. :func:`bound_expression` rewrites such an expression call by call, up the
chain of calls that reaches the step (:class:`.function_flow.Step`), each of the helper's
parameters and template parameters replaced by the call's argument, parenthesised; the caller
then evaluates it (``FunctionFlow.constant``). It answers only for an expression made of the
helper's parameters and literals: a helper's local, or a name of its namespace, would be read
as the caller's variable of the same name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ptxlint.lazy_regex import on_first_use

if TYPE_CHECKING:
    from ptxlint.model import AsmStatement, PtxOperand

__all__ = ["bound_expression", "operand_expression"]

_IDENTIFIER = on_first_use(r"(?<![\w.])[A-Za-z_]\w*")
_KEYWORDS = frozenset({"sizeof", "true", "false"})


class _Call(Protocol):
    @property
    def helper(self) -> _Flow: ...
    @property
    def arguments(self) -> tuple[str, ...]: ...
    @property
    def template_arguments(self) -> tuple[str, ...]: ...


class _Step(Protocol):
    @property
    def call(self) -> _Call | None: ...
    @property
    def inner(self) -> _Step | None: ...


class _Flow(Protocol):
    @property
    def parameters(self) -> tuple[str, ...]: ...
    template_order: tuple[str, ...]
    template_defaults: tuple[str | None, ...]


def bound_expression(step: _Step, expression: str) -> str | None:
    """``expression`` (of the statement of ``step``) in the terms of the function whose step
    it is; ``None`` where it names something other than the helpers' parameters."""
    call = step.call
    if call is None:
        return expression
    text = bound_expression(step.inner, expression) if step.inner is not None else expression
    if text is None:
        return None
    helper = call.helper
    # a parameter the call leaves to its default (or to deduction) is bound to nothing, but a
    # template parameter whose default is a literal (``FunctionShape.template_defaults``)
    bound = dict(zip(helper.parameters, call.arguments, strict=False))
    given = len(call.template_arguments)
    bound.update((name, default) for name, default in zip(
        helper.template_order[given:], helper.template_defaults[given:], strict=False)
        if default is not None)
    bound.update(zip(helper.template_order, call.template_arguments, strict=False))
    bound.pop("", None)
    pieces: list[str] = []
    last = 0
    for match in _IDENTIFIER().finditer(text):
        name = match.group()
        if name in _KEYWORDS or text[:match.start()].rstrip().endswith("::"):
            continue
        value = bound.get(name)
        if value is None:
            return None
        pieces.append(text[last:match.start()] + f"({value})")
        last = match.end()
    return "".join(pieces) + text[last:]


def operand_expression(statement: AsmStatement, operand: PtxOperand | None) -> str | None:
    """The C++ expression bound to ``operand`` of ``statement``'s template (an address's one
    ``%N``); ``None`` where there is none."""
    if operand is None:
        return None
    ref = operand.ref
    if ref is None and operand.kind == "address":
        refs = [p.ref for p in operand.parts if p.kind == "ref"]
        ref = refs[0] if len(refs) == 1 else None
    if ref is None or ref >= len(statement.operands):
        return None
    return statement.operands[ref].expression
