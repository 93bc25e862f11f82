"""The ``if constexpr`` arms that hold a statement: arms a build may discard.

An instantiation keeps one arm of each ``if constexpr`` and discards the other unread; a
discarded arm's asm never reaches ptxas ([stmt.if]/2: "the discarded statement is not
instantiated"). Which arm a build keeps depends on the template arguments (``if constexpr
(std::is_same_v<T, half>)``) or on a constant ptxlint does not evaluate (``if constexpr
(kArch >= 800)``), so each such ``if`` is read as a choice the build makes, like an
undecided ``#if``: the arm holding the statement answers ``constexpr@N``, its ``else``
``!(constexpr@N)``, ``N`` the ``if``'s byte. Keying each by its own ``if`` keeps two
functions that test the same words apart: their template arguments may differ.

An arm is an alternative only where it holds code: an arm of only ``static_assert``s (``else {
static_assert(N >= 1 && N <= 5); }`` after the arms for 1 to 5) is the template's way to refuse
the arguments that reach it, and an empty or missing ``else`` offers the build nothing in place
of the asm, which the template then exists to emit. Such arms are
:attr:`ConstexprArms.refusing`: a reader judging whether every build fails counts them as
failing, so the arm with the asm is judged as if it stood alone.

A statement in a macro's body, or in a function ptxlint could only recover from the text,
has no arms here: nothing says where it lands.
"""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

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
    # each arm of the function that offers no alternative (empty, missing or of only
    # static_asserts): the condition its ``if`` asks, and the conditions that keep the arm
    refusing: tuple[tuple[str, tuple[str, ...]], ...] = ()


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
    # here, not at the top: PTX401 imports this module on every run, and the flows' modules
    # are 7 ms of a small file's start-up that only a build target's shortfall needs
    from ptxlint.analysis.function_flow import flows_of

    flows = flows_of(context)
    function = flows.function_holding(statement) if flows is not None else None
    if flows is None or function is None or function.recovered:
        return _UNREAD
    ifs = [(node, then, other) for node, _, then, other in flows.structured(function).ifs
           if is_constexpr_if(node)]
    refusing = [(_answer(node, True), _conditions_at(ifs, arm.start_byte))
                for node, _, _ in ifs for arm in _arms(node) if _no_alternative(arm)]
    refusing += [(_answer(node, True), (*_conditions_at(ifs, node.start_byte),
                                        _answer(node, False)))
                 for node, _, other in ifs if other is None]
    return ConstexprArms(function.start,
                         _conditions_at(ifs, flows.parsed.to_byte(statement.span.start)),
                         tuple(refusing))


def _conditions_at(ifs: list[tuple[Node, tuple[int, int], tuple[int, int] | None]],
                   byte: int) -> tuple[str, ...]:
    """The conditions of the ``if constexpr`` arms around ``byte``, outermost first."""
    arms: list[tuple[int, str]] = []
    for node, then, other in ifs:
        if then[0] <= byte < then[1]:
            arms.append((node.start_byte, _answer(node, True)))
        elif other is not None and other[0] <= byte < other[1]:
            arms.append((node.start_byte, _answer(node, False)))
    return tuple(arm for _, arm in sorted(arms))


def _answer(node: Node, kept: bool) -> str:
    """The condition that keeps the ``if``'s arm (``kept``) or its ``else``, as a guard reads."""
    return f"constexpr@{node.start_byte}" if kept else f"!(constexpr@{node.start_byte})"


def _arms(node: Node) -> list[Node]:
    """An ``if``'s consequence, and its ``else``'s statement."""
    found = [node.child_by_field_name("consequence")]
    other = node.child_by_field_name("alternative")
    if other is not None:
        found.append(other.named_children[-1] if other.type == "else_clause"
                     and other.named_children else other)
    return [arm for arm in found if arm is not None]


def _no_alternative(arm: Node) -> bool:
    """``arm`` is empty or holds only ``static_assert``s."""
    body = arm.named_children if arm.type == "compound_statement" else [arm]
    return all(n.type in ("static_assert_declaration", "comment", "expression_statement")
               and (n.type != "expression_statement" or not n.named_children) for n in body)
