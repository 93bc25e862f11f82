"""Which conditions of a function split a warp: a small divergence analysis over its C++.

A value is classified as

* ``UNIFORM``: the same in every lane of a warp: literals, template parameters, ``blockIdx``,
  ``blockDim``, a kernel's parameters, ``threadIdx.x / 32`` (and ``>> 5``), ``__shfl_sync``
  of a uniform source lane, ``__ballot_sync``/``__all_sync``/``__any_sync``, and the warp
  indices of CUTLASS/CuTe/ThunderKittens helpers;
* ``TID``: ``threadIdx.x``-like: the 32 lanes of a warp hold 32 consecutive values starting at
  a multiple of 32 (``threadIdx.x``, ``threadIdx.x % 128``, ``%tid.x``);
* ``LANE``: the lane index 0..31 (``threadIdx.x % 32``, ``& 31``, ``%laneid``, lane helpers);
* ``BITS``: the lane's low bits (``threadIdx.x % 4``, ``lane & 1``): each warp holds every value;
* ``VARYING``: differs between threads in a way the analysis does not follow (a per-thread
  load ``x[threadIdx.x]``, ``threadIdx.y``, ``threadIdx.x * 2``);
* ``UNKNOWN``: anything else (a ``__device__`` function's parameter, an unknown call).

A condition *splits* a warp (``DIVERGENT``) only where that is certain for full warps of a
one-dimensional block: a ``TID``/``LANE`` value compared with a constant that does not fall on
a warp boundary (``lane == 0``, ``threadIdx.x < 16``, ``threadIdx.x % 32 >= 8``), a ``BITS``
value compared with one of its values or tested alone (``threadIdx.x % 2 == 0``, ``t & 1``), the
``elect.sync`` predicate (``elect_one_sync()``), or such a condition combined with uniform
ones. ``threadIdx.x < 128`` and ``warp_idx == 0`` are uniform; ``tid < n`` and
``data[tid] > 0`` are unknown, and the rules stay silent on them.

Values are followed through the function's locals defined once, and one call level into a
same-file helper whose body returns one expression. The conditions on the way to a
point (its ``if`` arms, earlier early returns, the left side of a ``&&``/``||`` it lies on the
right of) are facts there, read through their uniform comparisons: a split they rule out
is none (``_Facts``). The answers are kept per function, by what decides them.

For the member masks of ``.sync`` collectives: ``member_mask`` reads a mask where it is
certain (``lane_sets.py`` says which lanes reach a point of a kernel).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum

import tree_sitter

from ptxlint import file_memos
from ptxlint.analysis.flow_syntax import function_name
from ptxlint.analysis.function_flow import FileFlows, FunctionFlow, base_name
from ptxlint.frontends.split_conditionals import closes_before
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.model import AsmStatement, PtxOperand
from ptxlint.ptx.effects import special_register
from ptxlint.value_class import value_class

__all__ = ["FULL_MASK", "LANE_CALLS", "Classifier", "Guard", "Kind", "arm_in_doubt",
           "conditions_before", "divergent_guard", "may_split", "member_mask", "whole_warps"]

Node = tree_sitter.Node


class Kind(str, Enum):
    UNIFORM = "uniform"
    TID = "tid"
    LANE = "lane"
    # the lane's low bits: ``threadIdx.x % m``, ``& (m - 1)`` for m dividing 32 (2 to 16);
    # each warp holds every one of the m values
    BITS = "bits"
    VARYING = "varying"
    UNKNOWN = "unknown"
    DIVERGENT = "divergent"  # a condition: true in some lanes of a warp, false in others


@value_class(slots=False)
class Guard:
    """A condition that splits the warp around a position: the node, and how it guards
    (``if``, ``else``, or ``return``: an earlier early return)."""

    node: Node
    how: str
    text: str


# Helpers of the libraries ptxlint is used on, known by name (their bodies live in other files).
_UNIFORM_CALLS = frozenset(
    "__ballot_sync __all_sync __any_sync __reduce_add_sync __reduce_min_sync __reduce_max_sync "
    "__reduce_and_sync __reduce_or_sync __reduce_xor_sync __activemask canonical_warp_idx_sync "
    "canonical_warp_idx canonical_warp_group_idx warp_idx_sync warpgroup_idx warp_id warpid "
    "get_warp_id warp_idx __syncthreads_count __syncthreads_and __syncthreads_or".split())
LANE_CALLS = frozenset("lane_id laneid get_lane_id canonical_lane_idx LaneId __lane_id "
                        "lane_idx get_lane_idx".split())
_ELECT_CALLS = frozenset("elect_one_sync elect_one elect_sync".split())
# every helper above whose value is the running thread's: known only at run time
THREAD_CALLS = _UNIFORM_CALLS | _ELECT_CALLS
_COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">="})
# Every value that can make a condition split a warp comes from one of these words: the
# thread index (``threadIdx.x``, an asm's ``%tid.x``), the lane index (``%laneid``, the lane
# helpers) and the elect helpers; the helpers and locals followed are the file's own.
_SPLIT_NAMES = {"threadIdx", "tid.x", "laneid"} | LANE_CALLS | _ELECT_CALLS
# (a word another holds need not be looked for: `lane_id` finds `get_lane_id`)
_SPLIT_WORDS = tuple(sorted(w.encode() for w in _SPLIT_NAMES
                            if not any(o != w and o in w for o in _SPLIT_NAMES)))
_DEPTH = 6


class Classifier:
    """Whether a C++ condition of ``flow`` is the same in every lane of a warp, splits it, or
    is unknown (``condition``), and the lane-varying facts it reads: what asm outputs and
    same-file helpers return (``asm_output``, ``helper_return``)."""

    def __init__(self, flows: FileFlows, flow: FunctionFlow, call_depth: int = 0) -> None:
        self.flows = flows
        self.flow = flow
        self.call_depth = call_depth
        self._memo: dict[str, Kind] = {}
        # what the path to the point asked about holds of stable values (see _Facts)
        self.facts = _Facts(self)


    # ------------------------------------------------------------------ values

    def assume(self, name: str, kind: Kind) -> None:
        """Read the local ``name`` as ``kind`` (a loop's counter the caller has shown to be
        the same in every lane), whatever its definitions say."""
        self._memo[name] = kind

    def value(self, node: Node | None, depth: int = 0) -> Kind:
        if node is None or depth > _DEPTH:
            return Kind.UNKNOWN
        kind = node.type
        text = self.flow.text(node)
        if kind in ("number_literal", "true", "false", "sizeof_expression", "char_literal",
                    "null", "nullptr"):
            return Kind.UNIFORM
        if kind in ("parenthesized_expression", "cast_expression", "condition_clause"):
            inner = node.child_by_field_name("value") or (
                node.named_children[-1] if node.named_children else None)
            return self.value(inner, depth + 1)
        if kind == "field_expression":
            return _builtin(text)
        if kind in ("identifier", "qualified_identifier"):
            return self.name(text.split("::")[-1], depth)
        if kind == "binary_expression":
            return self.binary(node, depth)
        if kind == "call_expression":
            return self.call(node, depth)
        if kind == "subscript_expression":
            index = node.child_by_field_name("indices") or node.child_by_field_name("index")
            where = self.value(index, depth + 1) if index is not None else Kind.UNKNOWN
            if where in (Kind.TID, Kind.LANE, Kind.BITS, Kind.VARYING):
                return Kind.VARYING  # a per-thread load
            return Kind.UNKNOWN
        if kind == "subscript_argument_list":
            return _join([self.value(c, depth + 1) for c in node.named_children])
        if kind in ("unary_expression", "conditional_expression"):
            condition = self.condition(node, depth)
            if condition is Kind.DIVERGENT:
                return Kind.VARYING
            return condition
        return Kind.UNKNOWN

    def name(self, name: str, depth: int) -> Kind:
        flow = self.flow
        if name in flow.template_parameters or name == "warpSize":
            return Kind.UNIFORM
        if name in flow.parameters:
            return Kind.UNIFORM if flow.kernel else Kind.UNKNOWN
        if name in self._memo:
            return self._memo[name]
        self._memo[name] = Kind.UNKNOWN  # a cycle through the definitions: unknown
        values = self.flow.values_of(name)
        result = Kind.UNKNOWN
        if values:
            kinds = [self.value(v, depth + 1) if v is not None else self.asm_output(name)
                     for v in values]
            result = kinds[0] if all(k is kinds[0] for k in kinds) else Kind.UNKNOWN
        self._memo[name] = result
        return result

    def asm_output(self, name: str) -> Kind:
        """A variable written by an asm statement: the lane or thread index when the template
        moves ``%laneid`` / ``%tid.x`` into it."""
        for statement in self.flow.statements:
            for operand in statement.outputs:
                if base_name(operand.expression) != name:
                    continue
                for instruction in statement.ptx.instructions:
                    if instruction.opcode not in ("mov", "cvt") or len(instruction.operands) < 2:
                        continue
                    destination, source = instruction.operands[0], instruction.operands[-1]
                    if destination.ref != operand.index or source.kind != "special":
                        continue
                    register = special_register(source.text)[0]
                    if register == "laneid":
                        return Kind.LANE
                    if register == "tid" and source.text.endswith(".x"):
                        return Kind.TID
        return Kind.UNKNOWN

    def binary(self, node: Node, depth: int) -> Kind:
        operator = node.child_by_field_name("operator")
        op = operator.type if operator is not None else ""
        if op in _COMPARISONS or op in ("&&", "||"):
            condition = self.condition(node, depth)
            return Kind.VARYING if condition is Kind.DIVERGENT else condition
        left = self.value(node.child_by_field_name("left"), depth + 1)
        right_node = node.child_by_field_name("right")
        right = self.value(right_node, depth + 1)
        constant = self.constant(right_node)
        if left in (Kind.TID, Kind.LANE) and right is Kind.UNIFORM:
            if op == "/" and constant is not None and constant > 0:
                if left is Kind.TID and constant % 32 == 0:
                    return Kind.UNIFORM
                return Kind.UNIFORM if left is Kind.LANE and constant >= 32 else Kind.VARYING
            if op == ">>" and constant is not None:
                if left is Kind.TID and constant >= 5:
                    return Kind.UNIFORM
                return Kind.UNIFORM if left is Kind.LANE and constant >= 5 else Kind.VARYING
            if op in ("%", "&") and self.modulus(node) is not None:
                return Kind.BITS  # t % 4, lane & 1: the lane's low bits
            if op == "%" and constant is not None and constant > 0 and left is Kind.TID:
                if constant == 32:
                    return Kind.LANE
                return Kind.TID if constant % 32 == 0 else Kind.VARYING
            if op == "&" and constant is not None and left is Kind.TID:
                if constant == 31:
                    return Kind.LANE
                if constant + 1 >= 32 and (constant + 1) & constant == 0:
                    return Kind.TID
                return Kind.VARYING
            if op in ("+", "-") and constant is not None and constant % 32 == 0 \
                    and left is Kind.TID:
                return Kind.TID
            return Kind.VARYING
        if left is Kind.UNIFORM and right is Kind.UNIFORM:
            return Kind.UNIFORM
        if Kind.UNKNOWN in (left, right):
            return Kind.UNKNOWN
        return Kind.VARYING

    def call(self, node: Node, depth: int) -> Kind:
        function = node.child_by_field_name("function")
        name = function_name(self.flow.text(function)) if function else ""
        arguments = node.child_by_field_name("arguments")
        args = arguments.named_children if arguments is not None else []
        if name in _ELECT_CALLS:
            return Kind.VARYING
        if name in _UNIFORM_CALLS:
            return Kind.UNIFORM
        if name in LANE_CALLS:
            return Kind.LANE
        if name == "__shfl_sync":
            return Kind.UNIFORM if len(args) >= 3 and self.value(args[2], depth + 1) is \
                Kind.UNIFORM else Kind.UNKNOWN
        returned = self.helper_return(name)
        if returned is not None:
            helper, expression = returned
            return type(self)(self.flows, helper, self.call_depth + 1).value(expression, depth)
        return Kind.UNKNOWN

    def helper_return(self, name: str) -> tuple[FunctionFlow, Node] | None:
        """A same-file helper ``name`` whose body returns one expression (one call level)."""
        if self.call_depth >= 1:
            return None
        helpers = [f for f in self.flows.functions_named(name) if f is not self.flow]
        if len(helpers) != 1:
            return None
        helper = self.flows.structured(helpers[0])
        values = [r.named_children[0] for r in helper.returns if r.named_children]
        if len(values) != 1 or len(helper.returns) != 1:
            return None
        return helper, values[0]

    def constant(self, node: Node | None) -> int | None:
        if node is None:
            return None
        return self.flow.constant(self.flow.text(node))

    def modulus(self, node: Node | None, depth: int = 0) -> int | None:
        """How many values a ``BITS`` value takes (``t % 4``, ``t & 3``: 4), through
        parentheses, casts and locals defined once."""
        if node is None or depth > _DEPTH:
            return None
        if node.type in ("parenthesized_expression", "cast_expression"):
            inner = node.child_by_field_name("value") or (
                node.named_children[-1] if node.named_children else None)
            return self.modulus(inner, depth + 1)
        if node.type == "identifier":
            values = self.flow.values_of(self.flow.text(node))
            if values and len(values) == 1 and values[0] is not None:
                return self.modulus(values[0], depth + 1)
            return None
        if node.type == "binary_expression":
            operator = node.child_by_field_name("operator")
            constant = self.constant(node.child_by_field_name("right"))
            if operator is None or constant is None:
                return None
            if operator.type == "%" and _lane_bits(constant):
                return constant
            if operator.type == "&" and _lane_bits(constant + 1):
                return constant + 1
        return None

    # ------------------------------------------------------------------ conditions

    def condition(self, node: Node | None, depth: int = 0) -> Kind:
        """``UNIFORM``, ``DIVERGENT`` or ``UNKNOWN`` for a condition."""
        if node is None or depth > _DEPTH:
            return Kind.UNKNOWN
        kind = node.type
        if kind in ("parenthesized_expression", "condition_clause"):
            inner = node.child_by_field_name("value") or (
                node.named_children[-1] if node.named_children else None)
            return self.condition(inner, depth + 1)
        if kind == "unary_expression":
            operator = node.child_by_field_name("operator")
            if operator is not None and operator.type == "!":
                return self.condition(node.child_by_field_name("argument"), depth + 1)
            return _as_condition(self.value(node, depth + 1))
        if self.facts.decided(node) is not None:
            return Kind.UNIFORM  # the path already settled it, in every lane alike
        if kind == "binary_expression":
            operator = node.child_by_field_name("operator")
            op = operator.type if operator is not None else ""
            left_node = node.child_by_field_name("left")
            right_node = node.child_by_field_name("right")
            if op in ("&&", "||"):
                # a side the path settled (it cannot be the one that decides: that would
                # have settled the whole) leaves the other side's kind
                sides = [s for s in (left_node, right_node) if self.facts.decided(s) is None]
                if len(sides) == 1:
                    return self.condition(sides[0], depth + 1)
                kinds = [self.condition(left_node, depth + 1),
                         self.condition(right_node, depth + 1)]
                if all(k is Kind.UNIFORM for k in kinds):
                    return Kind.UNIFORM
                if sorted(kinds) == sorted([Kind.DIVERGENT, Kind.UNIFORM]):
                    return Kind.DIVERGENT
                return Kind.UNKNOWN
            if op in _COMPARISONS:
                return self.comparison(op, left_node, right_node, depth)
        if kind == "call_expression":
            function = node.child_by_field_name("function")
            name = function_name(self.flow.text(function)) \
                if function else ""
            if name in _ELECT_CALLS:
                return Kind.DIVERGENT
            returned = self.helper_return(name)
            if returned is not None:
                helper, expression = returned
                return type(self)(self.flows, helper, self.call_depth + 1).condition(
                    expression, depth + 1)
        if kind == "identifier":
            values = self.flow.values_of(self.flow.text(node))
            if values and len(values) == 1 and values[0] is not None:
                return self.condition(values[0], depth + 1)
        return _as_condition(self.value(node, depth + 1))

    def comparison(self, op: str, left: Node | None, right: Node | None, depth: int) -> Kind:
        lk, rk = self.value(left, depth + 1), self.value(right, depth + 1)
        if lk is Kind.UNIFORM and rk is Kind.UNIFORM:
            return Kind.UNIFORM
        if rk in (Kind.TID, Kind.LANE) and lk is Kind.UNIFORM:
            lk, rk, left, right = rk, lk, right, left
            op = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}.get(op, op)
        if lk not in (Kind.TID, Kind.LANE, Kind.BITS) or rk is not Kind.UNIFORM:
            return Kind.UNKNOWN
        constant = self.constant(right)
        if constant is None:
            return Kind.UNKNOWN
        if op in ("<=", ">"):
            constant += 1  # x <= c is x < c + 1; x > c is not (x < c + 1)
        if lk is Kind.BITS:
            modulus = self.modulus(left)
            if modulus is None:
                return Kind.UNKNOWN
            if op in ("==", "!="):
                return Kind.DIVERGENT if 0 <= constant < modulus else Kind.UNIFORM
            return Kind.DIVERGENT if 0 < constant < modulus else Kind.UNIFORM
        if op in ("==", "!="):
            return Kind.DIVERGENT if constant >= 0 and (lk is Kind.TID or constant < 32) \
                else Kind.UNKNOWN
        # x < c: a warp of consecutive values splits unless c is on a warp boundary
        if lk is Kind.LANE:
            return Kind.DIVERGENT if 0 < constant < 32 else Kind.UNIFORM
        return Kind.UNIFORM if constant % 32 == 0 else (Kind.DIVERGENT if constant > 0
                                                          else Kind.UNKNOWN)


_NEGATED = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
_MIRRORED = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}


@dataclass
class _Span:
    """What the path knows of one integer value: the bounds it lies within and the values it
    is not."""

    low: int | None = None
    high: int | None = None
    not_values: frozenset[int] = frozenset()

    def narrowed(self, op: str, constant: int) -> _Span:
        low, high, out = self.low, self.high, self.not_values
        if op == "!=":
            return _Span(low, high, out | {constant})
        if op in ("==", ">", ">="):
            bound = constant + 1 if op == ">" else constant
            low = bound if low is None else max(low, bound)
        if op in ("==", "<", "<="):
            bound = constant - 1 if op == "<" else constant
            high = bound if high is None else min(high, bound)
        return _Span(low, high, out)

    def holds(self, op: str, constant: int) -> bool | None:
        """Whether ``value op constant`` holds for every value the span admits (True), for
        none (False), or for some only (None)."""
        if op in ("!=", ">=", ">"):
            answer = self.holds(_NEGATED[op], constant)
            return None if answer is None else not answer
        if op == "<=":
            return self.holds("<", constant + 1)
        if op == "<":
            if self.high is not None and self.high < constant:
                return True
            return False if self.low is not None and self.low >= constant else None
        if self.low == self.high == constant:
            return True
        outside = (constant in self.not_values or (self.low is not None and constant < self.low)
                   or (self.high is not None and constant > self.high))
        return False if outside else None


class _Facts:
    """What the conditions on the way to a point say, through their uniform comparisons, of
    values that cannot change on the way (a thread- or warp-index, a local defined once from
    one, ``threadIdx.x``): each ``if`` arm around it (its condition held, or failed in an
    ``else`` arm or past an early return), and the left side of a ``&&`` or ``||`` (or a
    ``?:``'s condition) the point lies on the right of, which C++ evaluates first. Only
    comparisons with a constant are read, joined by ``!``, ``&&`` and ``||``; a condition they
    decide is taken by every lane alike, as C++ says: the else arm of
    ``warp == 0 && elect_one_sync()`` is no split in warp 1, and the arm of an
    ``else if (warp == 1 && ready)`` under it holds warp 1 whole, whatever ``ready`` is."""

    def __init__(self, classifier: Classifier) -> None:
        # the classifier owns its facts: a strong reference back would make a cycle that
        # keeps the file's flows and tree for the collector (tests/test_collector.py)
        self.classifier: Classifier = weakref.proxy(classifier)
        self.spans: dict[str, _Span] = {}

    def learn_path(self, taught: list[tuple[Node | None, bool]]) -> None:
        """Learn what the conditions on the way to a point (``_taught``) say through their
        uniform comparisons. A comparison that splits the warp (``lane == 0``) teaches
        nothing: it holds in the lanes it lets through, so it would settle itself, or another
        such comparison, and hide the split."""
        facts = [(atom, truth) for condition, held in taught
                 for atom, truth in _held(condition, held)]
        uniform = [(self.atom(a), t) for a, t in facts
                   if self.classifier.condition(a) is Kind.UNIFORM]  # before any is learned
        for atom, truth in uniform:
            if atom is not None:
                key, op, constant = atom
                self.spans[key] = self.spans.get(key, _Span()).narrowed(
                    op if truth else _NEGATED[op], constant)
        for key, span in list(self.spans.items()):
            # `warp == 1` for `warp = tid / 32` puts tid in 32..63: the else arm of an
            # earlier `if (tid == 0)` holds warp 1 whole
            thread = self._thread_of_warp(key)
            if thread is not None and (span.low is not None or span.high is not None):
                threads = self.spans.get(thread, _Span())
                if span.low is not None:
                    threads = threads.narrowed(">=", 32 * span.low)
                if span.high is not None:
                    threads = threads.narrowed("<=", 32 * span.high + 31)
                self.spans[thread] = threads

    def _thread_of_warp(self, key: str) -> str | None:
        """The thread index (as :meth:`atom` spells it) of which the local ``key`` is the warp
        index, defined once as ``tid / 32`` or ``tid >> 5``; None otherwise."""
        classifier = self.classifier
        values = classifier.flow.values_of(key) if key.isidentifier() else None
        if not values or len(values) != 1 or values[0] is None:
            return None
        value = _unwrapped(values[0])
        operator = value.child_by_field_name("operator")
        left, right = value.child_by_field_name("left"), value.child_by_field_name("right")
        if value.type != "binary_expression" or operator is None or left is None \
                or (operator.type, classifier.constant(right)) not in (("/", 32), (">>", 5)):
            return None
        left = _unwrapped(left)
        if classifier.value(left) is not Kind.TID or not self._defined_once(left):
            return None
        return "".join(classifier.flow.text(left).split())

    def decided(self, node: Node | None, depth: int = 0) -> bool | None:
        """The value the path's facts give ``node`` in every lane, or None."""
        if node is None or depth > _DEPTH or not self.spans:
            return None
        inner = _unwrapped(node)
        if inner is not node:
            return self.decided(inner, depth + 1)
        operator = node.child_by_field_name("operator")
        op = operator.type if operator is not None else ""
        if node.type == "unary_expression" and op == "!":
            answer = self.decided(node.child_by_field_name("argument"), depth + 1)
            return None if answer is None else not answer
        if node.type == "binary_expression" and op in ("&&", "||"):
            sides = [self.decided(node.child_by_field_name(f), depth + 1)
                     for f in ("left", "right")]
            absorbing = op == "||"  # the value of one side that decides the whole
            if absorbing in sides:
                return absorbing
            return None if None in sides else not absorbing
        atom = self.atom(node)
        if atom is None or atom[0] not in self.spans:
            return None
        return self.spans[atom[0]].holds(atom[1], atom[2])

    def atom(self, node: Node) -> tuple[str, str, int] | None:
        """``value op constant`` (either way round) of a value that stays the same on the
        way: a thread or warp index, built from locals defined once."""
        if node.type != "binary_expression":
            return None
        operator = node.child_by_field_name("operator")
        if operator is None or operator.type not in _COMPARISONS:
            return None
        op = operator.type
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        classifier = self.classifier
        constant = classifier.constant(right)
        if constant is None:
            constant, left, op = classifier.constant(left), right, _MIRRORED[op]
        if constant is None or left is None or classifier.constant(left) is not None:
            return None
        if classifier.value(left) not in (Kind.UNIFORM, Kind.TID, Kind.LANE, Kind.BITS):
            return None
        if not self._defined_once(left):
            return None
        return "".join(classifier.flow.text(left).split()), op, constant

    def _defined_once(self, node: Node) -> bool:
        """No local ``node`` reads is written twice: its value stays the same on the way."""
        flow = self.classifier.flow
        return all(len(flow.values_of(flow.text(i)) or ()) <= 1 for i in _identifiers(node))


def _taught(flow: FunctionFlow, byte: int,
            conditions: list[_Condition]) -> list[tuple[Node | None, bool]]:
    """What holds on the way to ``byte``: each condition of ``conditions`` (``conditions_before``)
    that says something of the threads, as it held there, and the left side of a ``&&`` or
    ``||`` (or a ``?:``'s condition) the point lies on the right of, which C++ evaluates first."""
    taught: list[tuple[Node | None, bool]] = [
        (condition, how == "if") for _, condition, how, exempt in conditions if not exempt]
    node: Node | None = flow.node.descendant_for_byte_range(byte, byte)
    while node is not None and node.parent is not None and node != flow.node:
        parent = node.parent
        if parent.type == "binary_expression" and node == parent.child_by_field_name("right"):
            operator = parent.child_by_field_name("operator")
            if operator is not None and operator.type in ("&&", "||"):
                taught.append((parent.child_by_field_name("left"), operator.type == "&&"))
        elif parent.type == "conditional_expression":
            if node == parent.child_by_field_name("consequence"):
                taught.append((parent.child_by_field_name("condition"), True))
            elif node == parent.child_by_field_name("alternative"):
                taught.append((parent.child_by_field_name("condition"), False))
        node = parent
    return taught


def _held(node: Node | None, truth: bool, depth: int = 0) -> Iterator[tuple[Node, bool]]:
    """The comparisons whose values follow from ``node`` having evaluated to ``truth``: each
    side of a ``&&`` that held and of a ``||`` that failed, through ``!`` and parentheses."""
    if node is None or depth > _DEPTH:
        return
    node = _unwrapped(node)
    operator = node.child_by_field_name("operator")
    op = operator.type if operator is not None else ""
    if node.type == "unary_expression" and op == "!":
        yield from _held(node.child_by_field_name("argument"), not truth, depth + 1)
    elif node.type == "binary_expression" and (op, truth) in (("&&", True), ("||", False)):
        yield from _held(node.child_by_field_name("left"), truth, depth + 1)
        yield from _held(node.child_by_field_name("right"), truth, depth + 1)
    elif node.type == "binary_expression" and op in _COMPARISONS:
        yield node, truth


def _unwrapped(node: Node) -> Node:
    """``node`` without the parentheses (or condition clause) around it."""
    while node.type in ("parenthesized_expression", "condition_clause"):
        inner = node.child_by_field_name("value") or (
            node.named_children[-1] if node.named_children else None)
        if inner is None:
            break
        node = inner
    return node


def _identifiers(node: Node) -> Iterator[Node]:
    if node.type == "identifier":
        yield node
    for child in node.named_children:
        yield from _identifiers(child)


def _as_condition(kind: Kind) -> Kind:
    if kind is Kind.BITS:
        return Kind.DIVERGENT  # non-zero in some of a warp's lanes, zero in lane 0
    return Kind.UNIFORM if kind is Kind.UNIFORM else Kind.UNKNOWN


def _lane_bits(m: int) -> bool:
    """``m`` values of the lane's low bits: m divides 32, from 2 to 16."""
    return m in (2, 4, 8, 16)


def _join(kinds: list[Kind]) -> Kind:
    if not kinds:
        return Kind.UNKNOWN
    if all(k is Kind.UNIFORM for k in kinds):
        return Kind.UNIFORM
    if any(k in (Kind.TID, Kind.LANE, Kind.BITS, Kind.VARYING) for k in kinds):
        return Kind.VARYING
    return Kind.UNKNOWN


def _builtin(text: str) -> Kind:
    compact = text.replace(" ", "")
    if compact == "threadIdx.x":
        return Kind.TID
    if compact in ("threadIdx.y", "threadIdx.z"):
        return Kind.VARYING
    if compact.split(".")[0] in ("blockIdx", "blockDim", "gridDim", "clusterIdx", "clusterDim"):
        return Kind.UNIFORM
    return Kind.UNKNOWN


def _early_returns(flow: FunctionFlow, block: Node) -> list[Node]:
    """The ``if``s among ``block``'s children that always return, found once per block (a
    kernel's points each climb through its body)."""
    known = _RETURNS.setdefault(flow, {})
    found = known.get(block.id)
    if found is None:
        found = known[block.id] = [
            child for child in block.named_children if child.type == "if_statement"
            and _always_returns(child.child_by_field_name("consequence"))]
    return found


# each function's blocks' early returns, by the block's node id, while the function lives
_RETURNS: weakref.WeakKeyDictionary[FunctionFlow, dict[int, list[Node]]] = \
    weakref.WeakKeyDictionary()


def _always_returns(node: Node | None) -> bool:
    if node is None:
        return False
    if node.type == "return_statement":
        return True
    if node.type == "compound_statement":
        children = [c for c in node.named_children if c.type != "comment"]
        return bool(children) and children[-1].type == "return_statement"
    return False


def may_split(parsed: object) -> bool:
    """Some condition of the file (a rule context's ``parsed``; False without a tree) may
    split a warp: it spells a word such a value comes from. CUTLASS's GMMA headers spell none
    (22 of the 50 files of its ``include/`` that hold a warp collective, 8 of their 10 MB),
    and their statements are not climbed from."""
    if not isinstance(parsed, ParsedSource):
        return False
    if _SPLITS and _SPLITS[0][0] is parsed:
        return _SPLITS[0][1]
    data = parsed.data
    answer = any(word in data for word in _SPLIT_WORDS)
    _SPLITS[:] = [(parsed, answer)]
    return answer


# the last file asked about (the engine asks of a file's statements in turn)
_SPLITS: list[tuple[ParsedSource, bool]] = []
file_memos.register(_SPLITS.clear)


FULL_MASK = 0xFFFFFFFF
# the spellings of a full mask whose value the C constant reader does not take
_FULL_SPELLINGS = frozenset({"-1", "~0", "(unsigned)-1", "0xffffffff"})


def member_mask(statement: AsmStatement, mask: PtxOperand | None,
                flow: FunctionFlow | None = None) -> int | None:
    """The 32 lanes a collective's member mask names: an immediate, or an operand bound to a
    C++ constant (a literal, a local defined once from one, read in ``flow``); ``None`` where
    that is not known."""
    if mask is None:
        return None
    if mask.kind == "immediate":
        try:
            return int(mask.text.rstrip("uU"), 0) & FULL_MASK
        except ValueError:
            return None
    if mask.kind != "ref" or mask.ref is None or mask.ref >= len(statement.operands):
        return None
    text = statement.operands[mask.ref].expression
    if "".join(text.split()).rstrip("uUlL").lower() in _FULL_SPELLINGS:
        return FULL_MASK
    if flow is None:
        return None
    value = flow.constant(text)
    return None if value is None else value & FULL_MASK


def divergent_guard(flows: FileFlows, flow: FunctionFlow, byte: int,
                    early_returns: bool = True) -> Guard | None:
    """The first condition that certainly splits a warp before it reaches ``byte`` of
    ``flow``: an enclosing ``if`` arm or loop, or (``early_returns``) an earlier ``if`` that
    returns. ``None`` where every such condition is uniform or unknown."""
    conditions = list(conditions_before(flow, byte))
    on_way = conditions if early_returns else [c for c in conditions if c[2] != "return"]
    if not on_way:
        return None
    taught = _taught(flow, byte, conditions)
    # the points of a block share their way there: a kernel's statements ask it again
    key = (early_returns, tuple((c[0].start_byte, c[2], c[3]) for c in conditions),
           tuple((n.start_byte if n is not None else -1, held) for n, held in taught))
    known = _GUARDS.setdefault(flow, {})
    if key in known:
        return known[key]
    classifier = Classifier(flows, flow)
    classifier.facts.learn_path(taught)
    found = None
    for node, condition, how, exempt in on_way:
        if exempt and how != "return":
            continue
        if classifier.condition(condition) is Kind.DIVERGENT and not arm_in_doubt(
                flow, node, how, byte):
            found = Guard(node, how, flow.text(condition) if condition else "")
            break
    known[key] = found
    return found


def arm_in_doubt(flow: FunctionFlow, node: Node, how: str, byte: int) -> bool:
    """The ``if`` arm the tree puts ``byte`` in may close before it in some configuration: a
    brace of an ``#if`` branch ends it (:func:`.split_conditionals.closes_before`), so neither
    its condition nor the lanes it admits (``lane_sets``) is known to hold at ``byte``. A
    generated flashinfer kernel closes ``if (elect_sync()) {`` inside ``#if !X`` and opens
    the warp's reduction block after it; the tree nests the reduction's ``shfl.sync`` in the
    ``if``."""
    if how == "return":
        return False
    arm = node.child_by_field_name("consequence" if how == "if" else "alternative")
    if arm is not None and arm.type == "else_clause":
        arm = arm.named_children[-1] if arm.named_children else None
    if arm is None or arm.type != "compound_statement":
        return False
    return closes_before(flow.parsed.data, arm.start_byte, byte)


# each function's answers by the way to a point (what decides them), while the function lives
_GUARDS: weakref.WeakKeyDictionary[FunctionFlow, dict[tuple[object, ...], Guard | None]] = \
    weakref.WeakKeyDictionary()


def whole_warps(flows: FileFlows, flow: FunctionFlow, byte: int) -> bool:
    """Every lane of a warp reaches ``byte`` of ``flow`` with the others: each ``if`` arm around
    it, and each earlier early return of its block, has a uniform condition (``constexpr``
    ones aside). An unknown condition (``tid < n``) answers False: it may pick one thread."""
    conditions = list(conditions_before(flow, byte))
    classifier = Classifier(flows, flow)
    classifier.facts.learn_path(_taught(flow, byte, conditions))
    return all(exempt or classifier.condition(condition) is Kind.UNIFORM
               for _, condition, _, exempt in conditions)


# (the if, its condition, how it guards: "if", "else" or "return", exempt)
_Condition = tuple[Node, "Node | None", str, bool]


def conditions_before(flow: FunctionFlow, byte: int) -> Iterator[_Condition]:
    """The ``if``s a thread passes on its way to ``byte``, in source order: each arm around it
    (``how``: "if" or "else") and each earlier ``if`` of a block around it that always returns
    ("return"); ``exempt`` where the condition says nothing of the threads (an
    ``if constexpr``, or one across a lambda's boundary). Read by climbing from ``byte``: the
    rest of the body is never walked."""
    found: list[tuple[Node, str]] = []
    lambdas: list[Node] = []
    node: Node | None = flow.node.descendant_for_byte_range(byte, byte + 1)
    while node is not None and node != flow.node:
        parent = node.parent
        if parent is None:
            break
        if parent.type == "lambda_expression":
            lambdas.append(parent)
        elif parent.type == "if_statement" and parent.child_by_field_name("consequence"):
            if node == parent.child_by_field_name("consequence"):
                found.append((parent, "if"))
            elif node == parent.child_by_field_name("alternative"):
                found.append((parent, "else"))
        found.extend((early, "return") for early in _early_returns(flow, parent)
                     if early.end_byte <= byte)
        node = parent

    def in_lambda(at: int) -> bool:
        return any(s.start_byte <= at < s.end_byte for s in lambdas)

    inside = bool(lambdas)
    for node, how in sorted(found, key=lambda f: f[0].start_byte):
        exempt = (any(c.type == "constexpr" for c in node.children)
                  or in_lambda(node.start_byte) != inside)
        yield node, node.child_by_field_name("condition"), how, exempt
