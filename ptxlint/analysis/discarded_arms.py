"""The ``if constexpr`` arms that hold a statement: arms a build may discard.

An instantiation keeps one arm of each ``if constexpr`` and discards the other unread; a
discarded arm's asm never reaches ptxas ([stmt.if]/2: "the discarded statement is not
instantiated"). Which arm a build keeps depends on the template arguments (``if constexpr
(std::is_same_v<T, half>)``) or on a constant ptxlint does not evaluate (``if constexpr
(kArch >= 800)``), so each such ``if`` is read as a choice the build makes, like an
undecided ``#if``: the arm holding the statement answers ``constexpr@N``, its ``else``
``!(constexpr@N)``, ``N`` the ``if``'s byte. Keying each by its own ``if`` keeps two
functions that test the same words apart: their template arguments may differ.

An arm that holds only ``static_assert``s (``else { static_assert(N >= 1 && N <= 5); }`` after
the arms for 1 to 5) is the template's way to refuse the arguments that reach it: no build that
takes it compiles (:attr:`ConstexprArms.refusing`).

A statement in a macro's body, or in a function ptxlint could only recover from the text,
has no arms here: nothing says where it lands.
"""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from ptxlint.analysis.function_flow import flows_of
from ptxlint.model import AsmStatement

__all__ = ["ConstexprArms", "constexpr_arms", "is_constexpr_if"]


@dataclass(frozen=True)
class ConstexprArms:
    """Where a statement stands among its function's ``if constexpr`` arms."""

    # the holding function's first byte: only arms of one function are one choice (two
    # templates' arms are kept by their own instantiations); None where it is not read
    function: int | None
    # the conditions a build answers to keep the statement, outermost first
    conditions: tuple[str, ...]
    # the conditions of each arm of the function that holds only static_asserts
    refusing: tuple[tuple[str, ...], ...] = ()


_UNREAD = ConstexprArms(None, ())
Node = tree_sitter.Node


def is_constexpr_if(node: Node) -> bool:
    """``node`` (an ``if_statement``) is an ``if constexpr``."""
    return any(child.type == "constexpr" for child in node.children)


def constexpr_arms(statement: AsmStatement, context: object) -> ConstexprArms:
    """The ``if constexpr`` arms around ``statement`` in its function, outermost first, each
    as the condition a build answers to keep it (module docstring); none where the
    statement's place is not read."""
    if statement.syntax != "gnu" or statement.context.macro is not None:
        return _UNREAD
    flows = flows_of(context)
    function = flows.function_holding(statement) if flows is not None else None
    if flows is None or function is None or function.recovered:
        return _UNREAD
    ifs = [(node, then, other) for node, _, then, other in flows.structured(function).ifs
           if is_constexpr_if(node)]
    refusing = tuple(_conditions_at(ifs, arm.start_byte)
                     for node, _, _ in ifs for arm in _arms(node) if _only_static_asserts(arm))
    return ConstexprArms(function.start,
                         _conditions_at(ifs, flows.parsed.to_byte(statement.span.start)),
                         refusing)


def _conditions_at(ifs: list[tuple[Node, tuple[int, int], tuple[int, int] | None]],
                   byte: int) -> tuple[str, ...]:
    """The conditions of the ``if constexpr`` arms around ``byte``, outermost first."""
    arms: list[tuple[int, str]] = []
    for node, then, other in ifs:
        if then[0] <= byte < then[1]:
            arms.append((node.start_byte, f"constexpr@{node.start_byte}"))
        elif other is not None and other[0] <= byte < other[1]:
            arms.append((node.start_byte, f"!(constexpr@{node.start_byte})"))
    return tuple(arm for _, arm in sorted(arms))


def _arms(node: Node) -> list[Node]:
    """An ``if``'s consequence, and its ``else``'s statement."""
    found = [node.child_by_field_name("consequence")]
    other = node.child_by_field_name("alternative")
    if other is not None:
        found.append(other.named_children[-1] if other.type == "else_clause"
                     and other.named_children else other)
    return [arm for arm in found if arm is not None]


def _only_static_asserts(arm: Node) -> bool:
    body = arm.named_children if arm.type == "compound_statement" else [arm]
    body = [n for n in body if n.type != "comment"]
    return bool(body) and all(n.type == "static_assert_declaration" for n in body)
