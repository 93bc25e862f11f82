"""Where a value an asm statement outputs is used as a number the program counts with.

PTX613 asks it of a ``mov`` of ``%warpid``: the register is a warp's physical slot, which a
program may log but must not index or compare with as if it were the warp's rank in the block.
The question is answered from the file's flows (:mod:`.function_flow`): the output's variable
is followed through its uses after the statement, in the statement's function; where the
function returns it (a getter, ``int warpid() { ... return w; }``), through the calls of that
function in the file; and through one local that copies either (``int w = warpid();``).

A use counts where the value is an operand of arithmetic or of a comparison (``w >> 2``,
``warpid() < NUM_WARPS``), the index of a subscript (``smem[w]``), or the condition of a
``switch``, through parentheses and casts. Anything else (an argument to ``printf`` or to
another function, a store to memory, a member, a value that a macro or template builds) is no
such use: a profiler that records the slot says nothing. Only a local variable named by the
output operand itself (``"=r"(w)``) is followed; an element, a member or a dereference is
memory, whose later readers are not known.
"""

from __future__ import annotations

import tree_sitter

from ptxlint.analysis.address_masks import CASTS
from ptxlint.analysis.function_flow import FileFlows, FunctionFlow
from ptxlint.analysis.value_syntax import callee
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.model import AsmStatement
from ptxlint.value_class import value_class

__all__ = ["IndexUse", "index_uses"]

Node = tree_sitter.Node

# Operators whose operands are counted with (``&&``/``||`` test truth, not a number).
_COUNTING = frozenset(
    "+ - * / % << >> & | ^ < <= > >= == != <=>".split()
)
# Wrappers a value passes through unchanged as a number.
_THROUGH = frozenset({"parenthesized_expression", "cast_expression"})
# How many copies (a getter's return, a local it initializes) a use may lie behind.
_DEPTH = 2


@value_class(slots=False)
class IndexUse:
    """A use of the value as a number: the expression that uses it and where it starts, and
    the bytes of the whole arithmetic around it (``extent``: the outermost expression of
    counting operators, parentheses and casts that holds it), which says what the value is
    combined with."""

    expression: str
    byte: int
    extent: tuple[int, int]


def index_uses(flows: FileFlows, flow: FunctionFlow, statement: AsmStatement,
               output: int) -> list[IndexUse]:
    """The uses as a number (see the module's docstring) of output operand ``output`` of
    ``statement``, which lies in ``flow``, in source order."""
    operand = statement.operands[output] if output < len(statement.operands) else None
    if operand is None or not operand.expression.isidentifier():
        return []
    parsed = flows.parsed
    after = parsed.to_byte(statement.span.end)
    found: dict[int, IndexUse] = {}
    _variable_uses(flows, flow, operand.expression, after, 0, found, set())
    return [found[b] for b in sorted(found)]


def _variable_uses(flows: FileFlows, flow: FunctionFlow, name: str, after: int, depth: int,
                   found: dict[int, IndexUse], seen: set[int]) -> None:
    """The uses of local ``name`` of ``flow`` that begin after byte ``after``."""
    flows.structured(flow)
    root = flows.parsed.tree.root_node
    for byte, how, element in flow.uses_of(name):
        if byte < after or element or how not in ("read", "argument"):
            continue
        node = root.descendant_for_byte_range(byte, byte + len(name))
        if node is not None and node.type == "identifier":
            _value_use(flows, flow, node, depth, found, seen)


def _value_use(flows: FileFlows, flow: FunctionFlow, node: Node, depth: int,
               found: dict[int, IndexUse], seen: set[int]) -> None:
    """Judge the expression ``node``, whose value is the output's: a use as a number is
    added to ``found``; a return or a local's initializer is followed ``_DEPTH`` deep."""
    child, parent = _outermost(flows.parsed, node)
    if parent is None:
        return
    text = flows.parsed.node_text
    kind = parent.type
    if kind == "binary_expression":
        operator = parent.child_by_field_name("operator")
        if operator is not None and operator.type in _COUNTING:
            found.setdefault(parent.start_byte, IndexUse(text(parent), parent.start_byte,
                                                         _arithmetic(parent)))
    elif kind == "subscript_argument_list":
        subscript = parent.parent
        if subscript is not None:
            found.setdefault(subscript.start_byte,
                             IndexUse(text(subscript), subscript.start_byte,
                                      (child.start_byte, child.end_byte)))
    elif kind == "condition_clause" and parent.parent is not None \
            and parent.parent.type == "switch_statement":
        found.setdefault(parent.parent.start_byte,
                         IndexUse("switch (" + text(child) + ")", parent.parent.start_byte,
                                  (child.start_byte, child.end_byte)))
    elif depth >= _DEPTH:
        return
    elif kind == "return_statement":
        if id(flow) in seen:
            return
        seen.add(id(flow))
        for caller, start, end in flows.callers(flow, follow=False):
            call = flows.parsed.tree.root_node.descendant_for_byte_range(start, end)
            while call is not None and call.type != "call_expression":
                call = call.parent
            if call is not None and call.start_byte == start:
                _value_use(flows, caller, call, depth + 1, found, seen)
    elif kind == "init_declarator" and parent.child_by_field_name("value") == child:
        declarator = parent.child_by_field_name("declarator")
        if declarator is not None and declarator.type == "identifier":
            _variable_uses(flows, flow, text(declarator), parent.end_byte, depth + 1, found,
                           seen)


def _arithmetic(node: Node) -> tuple[int, int]:
    """The bytes of the outermost expression of counting operators (through parentheses and
    casts) that holds the binary expression ``node``."""
    outer, up = node, node.parent
    while up is not None:
        if up.type in _THROUGH:
            up = up.parent
            continue
        operator = up.child_by_field_name("operator") if up.type == "binary_expression" \
            else None
        if operator is None or operator.type not in _COUNTING:
            break
        outer, up = up, up.parent
    return outer.start_byte, outer.end_byte


def _outermost(parsed: ParsedSource, node: Node) -> tuple[Node, Node | None]:
    """``node`` climbed through parentheses and casts, and the node around that."""
    child, parent = node, node.parent
    while parent is not None:
        if parent.type in _THROUGH:
            child, parent = parent, parent.parent
        elif parent.type == "argument_list" and parent.named_child_count == 1 \
                and parent.parent is not None and parent.parent.type == "call_expression" \
                and callee(parsed, parent.parent)[0] in CASTS:  # static_cast<T>(x)
            child = parent.parent
            parent = child.parent
        else:
            break
    return child, parent
