"""Which lanes of a warp reach a point of a kernel, where that is known exactly.

The member mask of a ``.sync`` collective must name the lanes that execute it: a lane that
executes it outside the mask is undefined behaviour (PTX611), and a lane the mask names that
never arrives leaves the others waiting for it (PTX601). Both need the set of lanes that reach
the instruction, the same in every warp, which :func:`reaching_lanes` gives as a 32-bit mask,
or ``None`` where it is not certain.

It starts from every lane (a kernel's entry, full warps of a one-dimensional block, as the
divergence analysis assumes) and walks the ``if`` arms around the point and the earlier early
returns (``divergence.conditions_before``), keeping the lanes each condition admits. A
condition is read only where it is a function of the lane alone, the same in every warp:
comparisons with a constant of the lane index (``threadIdx.x % 32``, ``threadIdx.x & 31``,
``%laneid``, the lane helpers the divergence classifier knows, a same-file helper returning
one), of its low bits (``threadIdx.x % 4``, ``lane & 1``) and of arithmetic on them with
constants, joined by ``!``, ``&&``, ``||`` and ``?:``, through locals defined once. A
comparison of ``threadIdx.x`` itself (``threadIdx.x < 16``: lanes 0-15 of warp 0, no lane of
the others) or of the warp index is no one set for every warp, and data, parameters and
unknown calls are not the lane's: any of these on the way, a loop whose condition may differ
between lanes or whose body may leave it early (``_uniform_loop``), a ``switch``, lambda or
label around the point, or a way out before it other than those early returns (a ``goto``, asm
``ret``/``exit``/``trap``, a ``return`` under another condition) answers ``None``. A linter
that cries wolf is switched off: where in doubt, the answer is unknown.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

import tree_sitter

from ptxlint.analysis.divergence import (
    FULL_MASK,
    LANE_CALLS,
    Classifier,
    Kind,
    arm_in_doubt,
    conditions_before,
)
from ptxlint.analysis.flow_syntax import function_name
from ptxlint.analysis.function_flow import FileFlows, FunctionFlow
from ptxlint.frontends.syntax_tree import nodes_of_kinds
from ptxlint.lazy_regex import on_first_use
from ptxlint.value_class import value_class

__all__ = ["LaneSets", "lane_ranges", "reaching_lanes", "whole_block_reaches"]

Node = tree_sitter.Node

# One value per lane, the same in every warp (a constant holds 32 equal values)
_Values = tuple[int, ...]
# ``threadIdx.x``-like: 32 * warp + lane, the warp unknown (the divergence classifier's TID)
_TID = "tid"
_LANES: _Values = tuple(range(32))
# How deep an expression is read, through parentheses, operators and locals: a condition such
# as `!((threadIdx.x & 31) < 8) && (lane & 1)` is eight levels; a cycle of locals ends here
_DEPTH = 24

# What may end a thread's run of the kernel or move it elsewhere, as whole words: `ret` finds
# an asm return, not `reinterpret_cast`; `assert` is not `static_assert`.
_LEAVES = on_first_use(rb"\b(?:return|goto|ret|exit|_exit|trap|__trap|longjmp|throw|abort|"
                       rb"assert|__assertfail)\b")
_GOTO = on_first_use(rb"\bgoto\b")
_SKIPS = on_first_use(rb"\b(?:break|continue)\b")
# What a point may lie in and still be reached along the conditions read: plain blocks, an
# ``if`` arm, a preprocessor block (it chooses at compile time, for every thread alike)
_PLAIN = frozenset({"compound_statement", "expression_statement", "gnu_asm_expression",
                    "else_clause", "preproc_if", "preproc_ifdef", "preproc_else",
                    "preproc_elif", "preproc_elifdef"})
_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
# Arithmetic on lane values: a result that is negative or past 31 bits answers None (signed
# and unsigned C would differ there, and the source does not always say which it is)
_ARITHMETIC: dict[str, Callable[[int, int], int | None]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a // b if b > 0 else None, "%": lambda a, b: a % b if b > 0 else None,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<<": lambda a, b: a << b if b < 31 else None, ">>": lambda a, b: a >> b if b < 31 else None}


@value_class(slots=False)
class LaneSets:
    """The lanes of every warp that reach a point (``reach``), and those that left the kernel
    by an early return on the way (``exited``): a ``.sync`` collective no longer waits for
    them. The other lanes went elsewhere and are alive."""

    reach: int
    exited: int


def lane_ranges(lanes: int) -> str:
    """The lanes of a 32-bit set, as ranges: ``24-31``, ``0, 2-3``."""
    ranges: list[str] = []
    for lane in range(32):
        if not lanes >> lane & 1:
            continue
        if ranges and lane > 0 and lanes >> (lane - 1) & 1:
            ranges[-1] = f"{ranges[-1].split('-')[0]}-{lane}"
        else:
            ranges.append(str(lane))
    return ", ".join(ranges)


def reaching_lanes(flows: FileFlows, flow: FunctionFlow, byte: int) -> LaneSets | None:
    """The lanes that reach ``byte`` of the kernel ``flow``, where the conditions on the way
    are functions of the lane alone (see the module's docstring); ``None`` otherwise, and
    where no lane reaches it."""
    known = _KNOWN.setdefault(flow, {})
    if byte not in known:
        known[byte] = _reaching(flows, flow, byte)
    return known[byte]


# each kernel's answers by the point's byte, while the function lives
_KNOWN: weakref.WeakKeyDictionary[FunctionFlow, dict[int, LaneSets | None]] = \
    weakref.WeakKeyDictionary()


def _reaching(flows: FileFlows, flow: FunctionFlow, byte: int) -> LaneSets | None:
    if not flow.kernel:
        return None  # a helper's callers may run it in part of a warp
    body = flow.node if flow.recovered else flow.node.child_by_field_name("body")
    if body is None or not body.start_byte <= byte < body.end_byte:
        return None
    node: Node | None = body.descendant_for_byte_range(byte, byte + 1)
    while node is not None and node != body:
        parent = node.parent
        if parent is None:
            return None
        if parent.type == "if_statement":
            if node not in (parent.child_by_field_name("consequence"),
                            parent.child_by_field_name("alternative")):
                return None
        elif parent.type in _LOOPS:
            if not _uniform_loop(flows, flow, parent, node):
                return None
        elif parent != body and parent.type not in _PLAIN:
            return None  # a switch, lambda, label, try: who is there is not read
        node = parent
    conditions = list(conditions_before(flow, byte))
    data = flow.parsed.data
    if _GOTO().search(data, body.start_byte, body.end_byte):
        return None  # a jump may bring threads to the point from anywhere
    # the returns of the early returns read below are the ways out those conditions take
    taken = [(c.start_byte, c.end_byte) for if_node, _, how, _ in conditions if how == "return"
             for c in [if_node.child_by_field_name("consequence")] if c is not None]
    for leave in _LEAVES().finditer(data, body.start_byte, byte):
        if leave.group() == b"return" and any(s <= leave.start() < e for s, e in taken):
            continue
        spelled = body.descendant_for_byte_range(leave.start(), leave.end())
        if spelled is None or spelled.type != "comment":
            return None
    lanes = _LaneValues(flows, flow)
    here, exited = FULL_MASK, 0
    for node, condition, how, exempt in conditions:
        if exempt:
            continue  # `if constexpr`: decided at compile time, for every thread alike
        if arm_in_doubt(flow, node, how, byte):
            return None  # an #if branch may close the arm first: who is there is not read
        admitted = lanes.admitted(condition)
        if admitted is None:
            return None
        if how == "if":
            here &= admitted
        elif how == "else":
            here &= ~admitted
        else:
            exited |= here & admitted
            here &= ~admitted
    return LaneSets(here & FULL_MASK, exited & FULL_MASK) if here & FULL_MASK else None


def _uniform_loop(flows: FileFlows, flow: FunctionFlow, loop: Node, part: Node) -> bool:
    """Every lane that enters ``loop`` runs each of its turns' ``part`` (its body) together:
    the loop's condition is the same in every lane (``for (int d = 1; d < 16; d *= 2)``), and
    nothing in the body spells a way out or a skip (``break``, ``continue``, ``return``,
    ``goto``, an asm ``exit``; a word is enough) that could leave some lanes behind."""
    if part != loop.child_by_field_name("body"):
        return False  # the condition or the update: evaluated, not a statement that runs
    condition = loop.child_by_field_name("condition")
    classifier = Classifier(flows, flow)
    for name in _counters(classifier, flow, loop):
        classifier.assume(name, Kind.UNIFORM)
    if condition is None or classifier.condition(condition) is not Kind.UNIFORM:
        return False
    data = flow.parsed.data
    return not (_LEAVES().search(data, part.start_byte, part.end_byte)
                or _SKIPS().search(data, part.start_byte, part.end_byte))


_LOOPS = frozenset({"for_statement", "while_statement", "do_statement"})


def _counters(classifier: Classifier, flow: FunctionFlow, loop: Node) -> list[str]:
    """The counters of a ``for`` loop that every lane holds alike: declared in its
    initializer with a value the same in every lane, and written nowhere but its update
    (``for (int d = 1; d < 16; d *= 2)``), which reads nothing else that varies and calls
    nothing. By induction each turn starts with the same value in every lane."""
    init, update = (loop.child_by_field_name(part) for part in ("initializer", "update"))
    if loop.type != "for_statement" or init is None or init.type != "declaration" \
            or update is None:
        return []
    inside = nodes_of_kinds(update, _UPDATE_KINDS)
    if inside.get("call_expression"):
        return []
    names: list[str] = []
    for declarator in init.children_by_field_name("declarator"):
        spelled, value = declarator.child_by_field_name("declarator"), \
            declarator.child_by_field_name("value")
        if declarator.type != "init_declarator" or spelled is None \
                or spelled.type != "identifier" or classifier.value(value) is not Kind.UNIFORM:
            return []
        names.append(flow.text(spelled))
    read = classifier.flows.structured(flow)  # its uses are read with its body
    for name in names:
        if any(how not in ("read", "declare", "initialise") and not (
                update.start_byte <= at < update.end_byte) for at, how, _ in read.uses_of(name)):
            return []  # written in the body too
    others = [n for n in inside.get("identifier", ()) if flow.text(n) not in names]
    return names if all(classifier.value(n) is Kind.UNIFORM for n in others) else []


_UPDATE_KINDS = frozenset({"call_expression", "identifier"})


def whole_block_reaches(flow: FunctionFlow, block: Node, byte: int) -> bool:
    """Every thread that enters ``block`` (an ``if`` arm) reaches ``byte`` in it: the point
    lies in the block's straight-line code (plain blocks only, no ``if``, loop, ``switch``,
    lambda or label between) and nothing in the block before it spells a way out or a jump
    (a word is enough: a ``return`` in a comment only makes the answer no)."""
    if not block.start_byte <= byte < block.end_byte:
        return False
    node: Node | None = block.descendant_for_byte_range(byte, byte + 1)
    while node is not None and node != block:
        parent = node.parent
        if parent is None or (parent != block and parent.type not in _STRAIGHT):
            return False
        node = parent
    data = flow.parsed.data
    return not (_LEAVES().search(data, block.start_byte, byte)
                or _SKIPS().search(data, block.start_byte, byte))


# What a point may lie in and be reached by every thread that enters the block around it
_STRAIGHT = frozenset({"compound_statement", "expression_statement", "gnu_asm_expression"})


class _LaneValues:
    """Each expression's value in every lane, the same in every warp, or ``None``."""

    def __init__(self, flows: FileFlows, flow: FunctionFlow, call_depth: int = 0) -> None:
        self.flows = flows
        self.flow = flow
        self.call_depth = call_depth
        self.classifier = Classifier(flows, flow, call_depth)
        # each local's value by (spelling, depth): a local's values are read anew where each
        # use is met, so a chain of locals each assigned several times, each from the one
        # before, was read once per path through the chain, exponential in its length (a
        # generated 4 MB flashinfer kernel ran for hours); the depth is part of the key, so
        # every answer is the one the depth-bounded read gives
        self.names: dict[tuple[str, int], _Values | str | None] = {}

    def admitted(self, condition: Node | None) -> int | None:
        """The lanes in which ``condition`` holds."""
        values = self.value(condition)
        if values is None or values == _TID:
            return None
        return sum(1 << lane for lane in range(32) if values[lane])

    def value(self, node: Node | None, depth: int = 0) -> _Values | str | None:
        if node is None or depth > _DEPTH:
            return None
        kind = node.type
        if kind in ("parenthesized_expression", "condition_clause"):
            if node.child_by_field_name("initializer") is not None:
                return None
            inner = node.child_by_field_name("value") or (
                node.named_children[-1] if node.named_children else None)
            return self.value(inner, depth + 1)
        if kind in ("true", "false"):
            return (int(kind == "true"),) * 32
        if kind == "number_literal":
            return self.constant(node)
        if kind == "cast_expression":
            return self.cast(node, depth)
        if kind == "field_expression":
            return _TID if "".join(self.flow.text(node).split()) == "threadIdx.x" else None
        if kind in ("identifier", "qualified_identifier"):
            return self.name(node, depth)
        if kind == "call_expression":
            return self.call(node, depth)
        if kind == "unary_expression":
            return self.unary(node, depth)
        if kind == "binary_expression":
            return self.binary(node, depth)
        if kind == "conditional_expression":
            test = self.value(node.child_by_field_name("condition"), depth + 1)
            then = self.value(node.child_by_field_name("consequence"), depth + 1)
            other = self.value(node.child_by_field_name("alternative"), depth + 1)
            if not isinstance(test, tuple) or not isinstance(then, tuple) \
                    or not isinstance(other, tuple):
                return None
            return tuple(a if t else b for t, a, b in zip(test, then, other, strict=True))
        return None

    def constant(self, node: Node) -> _Values | None:
        value = self.flow.constant(self.flow.text(node))
        return None if value is None or not 0 <= value < 1 << 31 else (value,) * 32

    def cast(self, node: Node, depth: int, value: Node | None = None) -> _Values | str | None:
        """A C cast, or (``value`` given) a ``static_cast`` whose target ``node`` spells."""
        inner = self.value(value or node.child_by_field_name("value"), depth + 1)
        target = node if value is not None else node.child_by_field_name("type")
        written = self.flow.text(target or node)
        if inner is None or any(w in written for w in ("float", "double", "half", "*")):
            return None
        if "bool" in written and isinstance(inner, tuple):
            return tuple(int(v != 0) for v in inner)
        if "char" in written and isinstance(inner, tuple) and max(inner) > 127:
            return None
        return inner

    def name(self, node: Node, depth: int) -> _Values | str | None:
        text = self.flow.text(node)
        key = (text, depth)
        if key not in self.names:
            self.names[key] = self._name(node, text, depth)
        return self.names[key]

    def _name(self, node: Node, text: str, depth: int) -> _Values | str | None:
        flow = self.flow
        name = text.split("::")[-1]
        if name in flow.parameters or name in flow.template_parameters:
            return None  # the same in every lane, but which value is not known
        constant = self.constant(node)
        if constant is not None:
            return constant
        values = flow.values_of(name)
        if not values:
            return None
        found: list[_Values | str | None] = []
        for value in values:
            if value is None:
                # written by an asm statement (``mov.u32 %0, %laneid;``): the classifier's fact
                kind = self.classifier.asm_output(name)
                found.append(_LANES if kind is Kind.LANE else _TID if kind is Kind.TID else None)
            else:
                found.append(self.value(value, depth + 1))
        return found[0] if all(f == found[0] for f in found) else None

    def call(self, node: Node, depth: int) -> _Values | str | None:
        function = node.child_by_field_name("function")
        name = function_name(self.flow.text(function)) if function else ""
        arguments = node.child_by_field_name("arguments")
        args = arguments.named_children if arguments is not None else []
        if name == "static_cast" and len(args) == 1 and function is not None:
            return self.cast(function, depth, args[0])
        returned = self.classifier.helper_return(name)
        if returned is not None:
            helper, expression = returned
            return _LaneValues(self.flows, helper, self.call_depth + 1).value(expression, depth)
        if name in LANE_CALLS and not args:
            return _LANES
        return None

    def unary(self, node: Node, depth: int) -> _Values | str | None:
        operator = node.child_by_field_name("operator")
        op = operator.type if operator is not None else ""
        argument = self.value(node.child_by_field_name("argument"), depth + 1)
        if not isinstance(argument, tuple):
            return None
        if op == "!":
            return tuple(int(not v) for v in argument)
        if op == "+":
            return argument
        return None  # `-lane`, `~lane`: negative, or past 31 bits

    def binary(self, node: Node, depth: int) -> _Values | str | None:
        operator = node.child_by_field_name("operator")
        op = operator.type if operator is not None else ""
        left = self.value(node.child_by_field_name("left"), depth + 1)
        if op == "&&" and isinstance(left, tuple) and not any(left):
            return left  # false in every lane: C++ does not evaluate the right side
        if op == "||" and isinstance(left, tuple) and all(left):
            return tuple(1 for _ in left)
        right = self.value(node.child_by_field_name("right"), depth + 1)
        if left is None or right is None:
            return None
        if _TID in (left, right):
            return _of_thread_index(op, left, right)
        assert isinstance(left, tuple) and isinstance(right, tuple)
        if op in ("&&", "||"):
            join = (lambda a, b: a and b) if op == "&&" else (lambda a, b: a or b)
            return tuple(int(bool(join(a, b))) for a, b in zip(left, right, strict=True))
        if op in _COMPARE:
            compare = _COMPARE[op]
            return tuple(int(compare(a, b)) for a, b in zip(left, right, strict=True))
        arithmetic = _ARITHMETIC.get(op)
        if arithmetic is None:
            return None
        out = [arithmetic(a, b) for a, b in zip(left, right, strict=True)]
        if any(v is None or not 0 <= v < 1 << 31 for v in out):
            return None
        return tuple(v for v in out if v is not None)


def _of_thread_index(op: str, left: _Values | str, right: _Values | str) -> _Values | str | None:
    """``threadIdx.x``-like ``op`` a constant: the lane's bits where the operation keeps only
    them (``% 32``, ``& 31``, ``% 4``), still thread-index-like where it keeps a whole number
    of warps (``% 128``, ``+ 64``), else None: a comparison of it is no one set per warp."""
    if op in ("&", "+") and left != _TID:
        left, right = right, left  # commutative: `31 & threadIdx.x`
    if left != _TID or not isinstance(right, tuple) or len(set(right)) != 1:
        return None
    c = right[0]
    if op == "%" and c > 0:
        if 32 % c == 0:
            return tuple(lane % c for lane in _LANES)
        return _TID if c % 32 == 0 else None
    if op == "&":
        if c < 32:
            return tuple(lane & c for lane in _LANES)
        return _TID if (c + 1) & c == 0 else None  # 2^k - 1 past 31: whole warps kept
    if op == "+" and c % 32 == 0:
        return _TID
    return None
