"""Two ``if`` statements whose conditions no run of a function meets both true.

Warp-specialised kernels give each role its own ``if``: ``if (warp == 0) {...}`` then
``if (warp == 1) {...}``, one after the other, not an ``else`` chain. The then-arms of two
such statements are as exclusive as the two arms of one ``if`` (``FunctionFlow.exclusive``):
a thread that runs one never runs the other, so a wait in the second does not cover a copy
in the first. That holds where C++ makes it certain: each condition is ``v == c`` (either
way round) on the same variable ``v`` and two different compile-time constants
(``flow_constants``), and ``v`` keeps one value while the function runs: a parameter, or a
local initialised once outside every loop around either ``if``, that nothing writes, takes
the address of or passes to a call, unless declared ``const``. Anything else is not
exclusive. This module reads the function's flow (its ``if`` arms, loops, definitions and
uses) and the tree only."""

from __future__ import annotations

import weakref
from typing import Protocol

import tree_sitter

from ptxlint.frontends.syntax_tree import ParsedSource

__all__ = ["disjoint_arms"]

Node = tree_sitter.Node
IfArms = tuple[Node, Node | None, tuple[int, int], tuple[int, int] | None]

# a use of the variable that may change it: the value tested would not be one
_CHANGES = frozenset({"write", "readwrite", "address", "argument"})
_CONST = frozenset({"const", "constexpr"})
# per flow, by the ``if``'s first byte: what its condition tests (``exclusive`` is asked of
# every pair of steps a rule compares, and each asks of every ``if`` around them)
_TESTS: weakref.WeakKeyDictionary[object, dict[int, tuple[str, int] | None]] = \
    weakref.WeakKeyDictionary()


class Flow(Protocol):
    """What a function's flow (``FunctionFlow``) tells of its structure and names."""

    @property
    def parsed(self) -> ParsedSource: ...
    @property
    def ifs(self) -> list[IfArms]: ...
    @property
    def loops(self) -> list[tuple[int, int]]: ...
    @property
    def definitions(self) -> dict[str, list[Node | None]]: ...
    @property
    def parameters(self) -> tuple[str, ...]: ...
    def uses_of(self, name: str) -> list[tuple[int, str, bool]]: ...
    def constant(self, expression: str, depth: int = 0) -> int | None: ...


def disjoint_arms(flow: Flow, a: int, b: int) -> bool:
    """``a`` and ``b`` lie in the then-arms of two ``if`` statements that test one variable
    that keeps its value for two different constants: no run reaches both."""
    tests = _TESTS.setdefault(flow, {})

    def tested_by(arms: IfArms) -> tuple[str, int] | None:
        at = arms[0].start_byte
        if at not in tests:
            tests[at] = _equality(flow, arms[1])
        return tests[at]

    # an arm around both points separates nothing: with ``#if``/``#else`` halves that each
    # open a role's ``if``, the tree nests ``if (warp == 10)`` inside ``if (warp == 9)``, and
    # a point in both was found exclusive with itself (PTX608 then lost its own step)
    around_a = [arms for arms in flow.ifs if arms[2][0] <= a < arms[2][1]
                and not arms[2][0] <= b < arms[2][1]]
    if not around_a:
        return False
    around_b = [arms for arms in flow.ifs if arms[2][0] <= b < arms[2][1]
                and not arms[2][0] <= a < arms[2][1]]
    for first in around_a:
        tested = tested_by(first)
        if tested is None:
            continue
        for second in around_b:
            if second[0] == first[0]:
                continue
            other = tested_by(second)
            if other is not None and other[0] == tested[0] and other[1] != tested[1] and \
                    _fixed(flow, tested[0], (first[0], second[0])):
                return True
    return False


def left_by_return(flow: Flow, a: int, b: int) -> bool:
    """One of ``a`` and ``b`` lies in an ``if`` arm whose last statement leaves the function
    (``return``, ``throw``), and the other after that ``if``, with no loop around both: no run
    reaches both (uccl's small-copy path, `if (small) { ...; store; return; }`, then the
    chunked loop's loads)."""
    for node, _, then, _ in flow.ifs:
        inside, after = (a, b) if then[0] <= a < then[1] else (b, a)
        if not then[0] <= inside < then[1] or after < node.end_byte:
            continue
        arm = node.child_by_field_name("consequence")
        last = arm.named_children[-1] if arm is not None and arm.type == "compound_statement" \
            and arm.named_children else arm  # `if (c) return x;` is its own last statement
        if last is None or last.type not in ("return_statement", "throw_statement"):
            continue
        if not any(start <= min(a, b) and max(a, b) < end for start, end in flow.loops):
            return True
    return False


def _equality(flow: Flow, condition: Node | None) -> tuple[str, int] | None:
    """The variable and constant of a condition ``(v == c)`` or ``(c == v)``."""
    if condition is None or condition.type != "condition_clause":
        return None
    values = [c for c in condition.named_children if c.type != "comment"]
    if len(values) != 1:
        return None  # an init-statement, or a declaration as the condition
    test = values[0]
    while test.type == "parenthesized_expression" and test.named_child_count == 1:
        test = test.named_children[0]
    operator = test.child_by_field_name("operator")
    if test.type != "binary_expression" or operator is None or operator.type != "==":
        return None
    left, right = test.child_by_field_name("left"), test.child_by_field_name("right")
    if left is None or right is None:
        return None
    for name, value in ((left, right), (right, left)):
        if name.type == "identifier":
            constant = flow.constant(flow.parsed.node_text(value))
            if constant is not None:
                return flow.parsed.node_text(name), constant
    return None


def _fixed(flow: Flow, name: str, ifs: tuple[Node, Node]) -> bool:
    """``name`` holds one value wherever the two ``if`` statements test it."""
    uses = flow.uses_of(name)
    declared = [(byte, how) for byte, how, _ in uses if how in ("declare", "initialise")]
    values = flow.definitions.get(name) or []
    if name in flow.parameters:
        if declared or values:
            return False  # shadowed by a local, or written
        return not any(how in _CHANGES for _, how, _ in uses)
    if len(declared) != 1 or declared[0][1] != "initialise" or len(values) != 1 or \
            values[0] is None:
        return False
    at = declared[0][0]
    starts = [node.start_byte for node in ifs]
    # initialised again in each turn of a loop around an ``if``: one value per turn only
    if at >= min(starts) or any(start <= at < end and any(start <= s < end for s in starts)
                                for start, end in flow.loops):
        return False
    changes = any(how in _CHANGES for _, how, _ in uses)
    return not changes or _declared_const(flow.parsed, at)


def _declared_const(parsed: ParsedSource, at: int) -> bool:
    """The declaration of the local whose name starts at byte ``at`` says ``const``."""
    node = parsed.tree.root_node.descendant_for_byte_range(at, at + 1)
    while node is not None and node.type != "declaration":
        node = node.parent
    return node is not None and any(
        child.type == "type_qualifier" and parsed.node_text(child) in _CONST
        for child in node.children)
