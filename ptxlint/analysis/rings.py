"""Whether a buffer's address comes back round in a loop: a ring of stages.

A pipeline that stages data through several copies of a buffer picks one per turn with an
index that wraps (``stage = k % STAGES``, ``slot = (slot + 1) % N``, ``phase ^= 1``, ``if
(++s == S) s = 0``). The copy a turn uses is used again ``STAGES`` turns later, so whatever an
asynchronous reader of it needs completed must be completed by then. An address moved by a
counter that only grows (``k``, ``ptr += TILE``) names a new place each turn and is never
used again.

:func:`ring_index` says whether the expressions an address is written with (in the terms of
the function: ``stage_links.Inputs.spelled``) change in a loop and come back round: every part
of them takes finitely many values over its turns, and one of their variables at least
changes. Finitely many is enough: over more turns than values, some value, and so some
buffer, comes again. A part takes finitely many where it is a remainder or a mask by a value
the loop does not change (``buf[next % S]``, whatever ``next`` is), a literal, a variable
the loop does not change, or arithmetic, a choice, a cast, a subscript or a call of a function
of such (not a method call, whose object may move on); and a variable that changes in the
loop, where every change of it in the loop's turns (its condition and step included, not the
``for`` initializer, which runs once) is

- a remainder or a mask by a value the loop does not change (``s = k % S``, ``s = (s + 1) &
  3``, ``s %= S``), whatever it is taken of;
- a toggle (``phase ^= 1``, ``phase = phase ^ 1``), or a choice with a literal arm (``s = s ==
  S - 1 ? 0 : s + 1``);
- a literal, with steps beside it (``if (++s == S) s = 0``; the ``i = 0`` of a loop nested in
  this one, which starts again each turn);
- or a value computed only from such variables and ones the loop does not change (``buf =
  smem + stage * TILE``), a few definitions deep.

A step with no reset beside it (``++k``, ``ptr += TILE``) moves on for good.

A variable's changes are read from the function's syntax tree (``FunctionFlow.uses_of``'s
places); an expression the flows hold as text (an argument at a call) is parsed on its own
(``syntax_tree.parse_expression``), so parentheses, casts and comments are the grammar's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import tree_sitter

from ptxlint.analysis.flow_syntax import compact
from ptxlint.analysis.function_flow import FunctionFlow
from ptxlint.frontends.cxx.c_types import CASTS
from ptxlint.frontends.cxx.lexer import identifiers
from ptxlint.frontends.syntax_tree import expression_text as _text
from ptxlint.frontends.syntax_tree import nodes_of_kinds, parse_expression

__all__ = ["Ring", "comes_round", "ring_index", "turns_at_most"]

Node = tree_sitter.Node

_CHANGES = frozenset({"write", "readwrite", "initialise"})
_WRAPPING_ASSIGNMENTS = frozenset({"%=", "&=", "^="})
_STEPS = frozenset({"+=", "-="})
_INITIALISING = frozenset({"init_declarator", "assignment_expression"})
# how many definitions deep a value's variables are followed
_DEPTH = 4


class Ring(NamedTuple):
    """``name``: what comes back round, as the message says it: the remainder written where
    the address is (``next % S``), else the variable that wraps (``stage``); ``size``: the
    number of places it cycles through where a wrap says so with a constant (``% 4``, ``^ 1``),
    else None; ``modulus``, the remainder's or mask's right side as written (``S``), where the
    address's own expression takes one: two rings of one modulus cycle through the same
    places."""

    name: str
    size: int | None
    modulus: str | None = None


def ring_index(flow: FunctionFlow, spelled: Sequence[str], loop: tuple[int, int]) -> Ring | None:
    """The ring the expressions ``spelled`` (those an address is written with, in ``flow``'s
    terms: ``Inputs.spelled``) make in ``loop``: None where one of them takes more than
    finitely many values over its turns, or none changes there."""
    nodes = [parse_expression(text) for text in spelled]
    if not nodes or any(node is None for node in nodes):
        return None
    changing = sorted({name for text in spelled for name in identifiers(text)
                       if _changes(flow, name, loop)})
    if not changing:
        return None
    sizes: dict[str, int | None] = {}
    wraps: list[Node] = []
    if not all(node is not None and _bounded(flow, node, "", loop, 0, sizes, wraps=wraps)
               for node in nodes):
        return None
    if wraps:
        right = wraps[0].child_by_field_name("right")
        return Ring(" ".join(_text(wraps[0]).split()), sizes.get(""),
                    compact(_text(right)) if right is not None else None)
    name = next((name for name in [*changing, *sorted(sizes)] if name in sizes), changing[0])
    return Ring(name, sizes.get(name))


def comes_round(flow: FunctionFlow, spelled: Sequence[str],
                loops: list[tuple[int, int]]) -> tuple[Ring, tuple[int, int]] | None:
    """The ring ``spelled`` make in ``loops`` (those around two places, outermost first), and
    the outermost loop it stays one in, from the innermost loop that makes one out: the loop
    whose turns bring the buffer back (an inner loop whose counter moves the address, a copy
    per piece of the stage, starts again each turn of the one around it). None where no loop
    makes one, or where that loop counts to a constant no greater than the ring's size
    (:func:`turns_at_most`: the index never comes back round)."""
    ring: Ring | None = None
    outer: tuple[int, int] | None = None
    for loop in reversed(loops):
        found = ring_index(flow, spelled, loop)
        if found is None:
            if ring is None:
                continue
            break
        ring, outer = found, loop
    if ring is None or outer is None:
        return None
    turns = turns_at_most(flow, outer)
    if turns is not None and (ring.size is None or turns <= ring.size):
        return None
    return ring, outer


def turns_at_most(flow: FunctionFlow, loop: tuple[int, int]) -> int | None:
    """How many turns ``loop`` takes at most, where it is a ``for`` counting up from a constant
    to a constant bound (``for (int s = 0; s < 4; ++s)``); None where that is not known."""
    node = _loop_node(flow, loop)
    if node is None or node.type != "for_statement":
        return None
    condition = node.child_by_field_name("condition")
    start = _initial_value(flow, node)
    if condition is None or condition.type != "binary_expression" or start is None:
        return None
    operator = condition.child_by_field_name("operator")
    bound = condition.child_by_field_name("right")
    if operator is None or bound is None or operator.type not in ("<", "<=", "!="):
        return None
    last = flow.constant(flow.text(bound))
    if last is None:
        return None
    return max(0, last - start + (1 if operator.type == "<=" else 0))


def _initial_value(flow: FunctionFlow, node: Node) -> int | None:
    initializer = node.child_by_field_name("initializer")
    if initializer is None:
        return None
    values = [n for found in nodes_of_kinds(initializer, _INITIALISING).values() for n in found]
    if len(values) != 1:
        return None
    value = values[0].child_by_field_name("value" if values[0].type == "init_declarator"
                                           else "right")
    return flow.constant(flow.text(value)) if value is not None else None


def _loop_node(flow: FunctionFlow, loop: tuple[int, int]) -> Node | None:
    node = flow.node.descendant_for_byte_range(loop[0], loop[1])
    while node is not None and (node.start_byte, node.end_byte) != loop:
        node = node.parent
    return node


def _changes(flow: FunctionFlow, name: str, loop: tuple[int, int]) -> list[Node]:
    """The identifier nodes where ``name`` changes in ``loop``'s turns (not in a ``for``
    initializer of the loop itself, which runs before its first turn)."""
    found: list[Node] = []
    once = _initializer_range(flow, loop)
    word = len(name.encode())
    for byte, how, element in flow.uses_of(name):
        if element or how not in _CHANGES or not loop[0] <= byte < loop[1]:
            continue
        if once is not None and once[0] <= byte < once[1]:
            continue
        node = flow.node.descendant_for_byte_range(byte, byte + word)
        if node is not None:
            found.append(node)
    return found


def _initializer_range(flow: FunctionFlow, loop: tuple[int, int]) -> tuple[int, int] | None:
    node = _loop_node(flow, loop)
    initializer = node.child_by_field_name("initializer") \
        if node is not None and node.type == "for_statement" else None
    return (initializer.start_byte, initializer.end_byte) if initializer is not None else None


def _periodic(flow: FunctionFlow, name: str, loop: tuple[int, int], depth: int,
              sizes: dict[str, int | None]) -> bool:
    """``name`` takes finitely many values over the turns of ``loop`` (the module's
    docstring); one that wraps is entered in ``sizes`` with the size its wrap names."""
    changes = _changes(flow, name, loop)
    if not changes:
        return True
    if depth >= _DEPTH:
        return False
    kinds = [_kind(flow, node) for node in changes]
    labels = {kind for kind, _ in kinds}
    if "step" in labels and "reset" not in labels:
        return False  # a counter that only moves on
    bounded = True
    for node, (kind, size) in zip(changes, kinds, strict=True):
        if kind in ("wrap", "toggle"):
            sizes.setdefault(name, size)
        elif kind == "value":
            value = _assigned(node)
            if value is None or not _bounded(flow, value, name, loop, depth, sizes):
                bounded = False
    return bounded


def _bounded(flow: FunctionFlow, node: Node, own: str, loop: tuple[int, int], depth: int,
             sizes: dict[str, int | None], own_ok: bool = False,
             wraps: list[Node] | None = None) -> bool:
    """The expression ``node``, assigned to ``own``, takes finitely many values over the turns
    of ``loop``: a remainder or a mask by a value the loop does not change (``k % STAGES``,
    ``k & 3``), whatever it is taken of; a literal; a variable that takes finitely many;
    ``own`` itself only toggled (``s ^ 1``) or in a choice whose other arm is a literal (``s ==
    S - 1 ? 0 : s + 1``); and arithmetic, choices, casts and subscripts of such."""
    kind = node.type
    if kind in ("number_literal", "sizeof_expression", "true", "false", "type_descriptor"):
        return True
    if kind == "identifier":
        name = _text(node)
        return own_ok if name == own else _periodic(flow, name, loop, depth + 1, sizes)
    if kind == "binary_expression":
        operator = node.child_by_field_name("operator")
        spelled = operator.type if operator is not None else ""
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return False
        if spelled in ("%", "&") and _bounded(flow, right, own, loop, depth, sizes):
            sizes.setdefault(own, _size(flow, spelled, right))
            if wraps is not None:
                wraps.append(node)
            return True
        if spelled == "^" and own in (_text(left), _text(right)):
            other = right if _text(left) == own else left
            sizes.setdefault(own, _size(flow, "^", other))
            return _bounded(flow, other, own, loop, depth, sizes)
        return _bounded(flow, left, own, loop, depth, sizes, own_ok, wraps) and \
            _bounded(flow, right, own, loop, depth, sizes, own_ok, wraps)
    if kind == "conditional_expression":
        arms = [node.child_by_field_name("consequence"), node.child_by_field_name("alternative")]
        reset = any(arm is not None and arm.type == "number_literal" for arm in arms)
        return all(arm is not None and _bounded(flow, arm, own, loop, depth, sizes,
                                                own_ok or reset, wraps) for arm in arms)
    if kind == "call_expression":
        # a cast, or a function of its arguments (``smem_u32(p)``, ``__cvta_generic_to_shared``):
        # not a method, whose object may move on (``pipeline.next()``)
        function = node.child_by_field_name("function")
        values = _arguments(node)
        return function is not None and (_is_cast(node) and len(values) == 1 or function.type in (
            "identifier", "qualified_identifier", "template_function")) and all(
            _bounded(flow, value, own, loop, depth, sizes, own_ok, wraps) for value in values)
    parts = {"parenthesized_expression": None, "cast_expression": "value",
             "unary_expression": "argument", "subscript_expression": None,
             "pointer_expression": "argument", "field_expression": "argument"}
    if kind not in parts:
        return False
    field = parts[kind]
    children = [node.child_by_field_name(field)] if field else [
        c for c in node.named_children if c.type != "comment"]
    return bool(children) and all(
        c is not None and (c.type in ("subscript_argument_list", "type_descriptor") and all(
            _bounded(flow, i, own, loop, depth, sizes, own_ok, wraps) for i in c.named_children)
            or _bounded(flow, c, own, loop, depth, sizes, own_ok, wraps)) for c in children)


def _is_cast(call: Node) -> bool:
    function = call.child_by_field_name("function")
    name = function.child_by_field_name("name") if function is not None and \
        function.type == "template_function" else None
    return name is not None and _text(name) in CASTS


def _arguments(call: Node) -> list[Node]:
    arguments = call.child_by_field_name("arguments")
    return [c for c in arguments.named_children if c.type != "comment"] \
        if arguments is not None else []


def _kind(flow: FunctionFlow, identifier: Node) -> tuple[str, int | None]:
    """How a change of a variable at ``identifier`` changes it: ``wrap`` (``%=``, ``&=``,
    with the size its operand names, where constant), ``toggle`` (``^=``), ``reset`` (to a
    literal), ``step`` (``++``, ``+=``) or ``value`` (any other value, :func:`_bounded`)."""
    parent = identifier.parent
    if parent is None:
        return "value", None
    if parent.type == "update_expression":
        return "step", None
    if parent.type == "assignment_expression":
        operator = parent.child_by_field_name("operator")
        spelled = operator.type if operator is not None else ""
        right = parent.child_by_field_name("right")
        if spelled == "^=":
            return "toggle", _size(flow, "^", right)
        if spelled in _WRAPPING_ASSIGNMENTS:
            return "wrap", _size(flow, spelled[0], right)
        if spelled in _STEPS:
            return "step", None
        if spelled != "=":
            return "value", None
    value = _assigned(identifier)
    if value is not None and value.type == "number_literal":
        return "reset", None
    return "value", None


def _assigned(identifier: Node) -> Node | None:
    """The value a plain ``=`` or a declaration's initializer gives at ``identifier``."""
    parent = identifier.parent
    if parent is not None and parent.type == "assignment_expression":
        return parent.child_by_field_name("right")
    return _initializer(identifier)


def _size(flow: FunctionFlow, operator: str, right: Node | None) -> int | None:
    """How many places ``x % right``, ``x & right`` or ``x ^ right`` cycles through, where
    ``right`` is a constant (a mask one less than a power of two, a toggle of one bit)."""
    value = flow.constant(_text(right)) if right is not None else None
    if value is None or value <= 0:
        return None
    if operator == "%":
        return value
    if operator == "&":
        return value + 1 if value & (value + 1) == 0 else None
    return 2 if value & (value - 1) == 0 else None


def _initializer(identifier: Node) -> Node | None:
    holder = identifier.parent
    while holder is not None and holder.type.endswith("declarator") \
            and holder.type != "init_declarator":
        holder = holder.parent
    if holder is None or holder.type != "init_declarator":
        return None
    return holder.child_by_field_name("value")
