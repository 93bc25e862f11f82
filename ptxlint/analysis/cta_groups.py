"""Which ``.cta_group`` values of ``tcgen05`` one function compiles together.

ptxas 13.0 and later reject a function, and the kernel it is inlined into, whose ``tcgen05``
instructions name both ``.cta_group::1`` and ``.cta_group::2`` ("Function 'k' uses single
CTA(.cta_group::1) and CTA pair granularity(.cta_group::2) and that is not allowed"), measured
with ptxas 13.0, 13.1 and 13.5 for sm_100a; ptxas 12.8 and 12.9 accept the same PTX. The check
is on the code ptxas is given, not on what a run reaches: two instructions in the two arms of
an ``if (warp_idx == 0)``, or in two helpers the kernel calls, are rejected alike.

So the question here is what the compiler keeps. An instruction in an arm that the C++
compiler may drop before ptxas sees it (``if constexpr``, a test of a template parameter, a
helper's parameter that a caller's constant decides once inlined) is another instantiation's,
not this one's: two steps are *together* only where every ``if``, ``?:`` or ``switch`` arm
that holds one and not the other tests a value known only at run time (the thread's or
block's index, a lane or warp helper, ``elect_one_sync()``, a kernel's parameter, an asm
output, a local made of those) or is the arm a constant takes, once the calls down to it bind
the helpers' parameters and template parameters (``alloc<2>()`` into
``if constexpr (G == 1)``), and their ``#if`` guards can hold in one build. Two steps of
one call of a helper are that helper's own question (its flow answers it), so each defect is
found once, in the innermost function that holds both.
"""

from __future__ import annotations

import weakref

import tree_sitter

from ptxlint.analysis.divergence import LANE_CALLS, THREAD_CALLS
from ptxlint.analysis.flow_binding import bound_expression
from ptxlint.analysis.flow_syntax import function_name
from ptxlint.analysis.function_flow import CallSite, FunctionFlow, Step
from ptxlint.frontends.cxx.branches import contradicts
from ptxlint.frontends.cxx.guards import guards_of
from ptxlint.value_class import value_class

__all__ = ["GroupClash", "group_clash"]

Node = tree_sitter.Node

# The step pairs of one function looked at: a generated wrapper file's function holds a few
# dozen tcgen05 steps at most; past this many the answer is "none found"
_MOST_PAIRS = 4096
# How far a local's definitions are followed to a run-time source
_DEPTH = 6
# Values only a run knows: the thread's and block's place (``threadIdx.x``, ``blockIdx``,
# ``%laneid`` read into a local is an asm output), and the helpers that return them
_RUNTIME_FIELDS = frozenset({"threadIdx", "blockIdx", "blockDim", "gridDim", "clusterIdx",
                             "clusterDim"})
_RUNTIME_CALLS = LANE_CALLS | THREAD_CALLS
_KEPT: weakref.WeakKeyDictionary[FunctionFlow, GroupClash | None] = weakref.WeakKeyDictionary()


@value_class(slots=False)
class GroupClash:
    """Two steps of one function that ptxas compiles together, ``first`` (in program order)
    naming one ``.cta_group`` and ``second`` the other."""

    first: Step
    second: Step


def group_clash(flow: FunctionFlow) -> GroupClash | None:
    """The first pair of ``flow``'s steps, in program order, that name two ``.cta_group``
    values and that the compiler keeps together (see the module's docstring)."""
    if flow in _KEPT:
        return _KEPT[flow]
    found = _first_clash(flow)
    _KEPT[flow] = found
    return found


def _first_clash(flow: FunctionFlow) -> GroupClash | None:
    grouped = sorted((s for s in flow.steps if s.event.group), key=lambda s: (s.start, s.order))
    if len({s.event.group for s in grouped}) < 2:
        return None
    places = [_Places(flow, step) for step in grouped]
    asked = 0
    for j, second in enumerate(grouped):
        for i in range(j):
            first = grouped[i]
            if first.event.group == second.event.group or _one_call(first, second):
                continue
            asked += 1
            if asked > _MOST_PAIRS:
                return None
            if places[i].together(places[j]):
                return GroupClash(first, second)
    return None


def _one_call(a: Step, b: Step) -> bool:
    return a.call is not None and b.call is not None and \
        (a.call.start, a.call.end) == (b.call.start, b.call.end)


class _Places:
    """Where a step lies, level by level down its helper calls: the function and byte of
    each level (the call, then the statement), with the arms and ``#if`` conditions around."""

    def __init__(self, flow: FunctionFlow, step: Step) -> None:
        self.levels: list[tuple[FunctionFlow, int]] = [(flow, step.start)]
        self.calls: list[CallSite] = []  # the call that reaches each level below the first
        inner: Step | None = step
        while inner is not None and inner.call is not None and inner.inner is not None:
            self.levels.append((inner.call.helper, inner.inner.start))
            self.calls.append(inner.call)
            inner = inner.inner
        self._arms: list[dict[tuple[int, int], Node | None]] | None = None
        self._guards: tuple[str, ...] | None = None
        self._chains: list[_Link] | None = None

    @property
    def arms(self) -> list[dict[tuple[int, int], Node | None]]:
        if self._arms is None:
            self._arms = [_arms(flow, byte) for flow, byte in self.levels]
        return self._arms

    @property
    def guards(self) -> tuple[str, ...]:
        if self._guards is None:
            found: tuple[str, ...] = ()
            for flow, byte in self.levels:
                parsed = flow.parsed
                found += guards_of(parsed.text).conditions_at(parsed.to_char(byte))
            self._guards = found
        return self._guards

    def together(self, other: _Places) -> bool:
        """Both steps are in every instantiation and build that holds either: each arm
        around one and not the other tests a run-time value or is taken, its condition a
        constant in the outer function's terms, and their guards can hold at once. The
        outermost level is the function both lie in; below it each step's helpers are its
        own."""
        mine, theirs = self.arms, other.arms
        for key in mine[0].keys() ^ theirs[0].keys():
            places = self if key in mine[0] else other
            if not places.kept(0, key, mine[0].get(key, theirs[0].get(key))):
                return False
        for places in (self, other):
            for level, arms in enumerate(places.arms[1:], 1):
                if not all(places.kept(level, key, condition)
                           for key, condition in arms.items()):
                    return False
        return not contradicts(self.guards + other.guards)

    def kept(self, level: int, arm: tuple[int, int], condition: Node | None) -> bool:
        """Whether the compiler keeps the ``arm`` around this step at ``level``: it tests a
        run-time value, or its condition is a constant once the calls down to that level
        bind the helpers' parameters and template parameters (``alloc<2>()`` into
        ``if constexpr (G == 1)``), and the arm is the one that constant takes."""
        flow = self.levels[level][0]
        if _runtime(flow, condition):
            return True
        if condition is None or condition.parent is not None and \
                condition.parent.type == "switch_statement":
            return False  # a case's label is not read: a switch on a constant stays unknown
        text = bound_expression(self.chains[level], flow.text(condition))
        value = self.levels[0][0].constant(text) if text is not None else None
        return value is not None and (value != 0) == (arm[1] == 0)

    @property
    def chains(self) -> list[_Link]:
        """For each level, the chain of calls from the outer function down to it."""
        if self._chains is None:
            chains = []
            for depth in range(len(self.levels)):
                link = _Link(None, None)
                for call in reversed(self.calls[:depth]):
                    link = _Link(call, link)
                chains.append(link)
            self._chains = chains
        return self._chains


@value_class(slots=False)
class _Link:
    """One call of a chain that ``bound_expression`` reads (as a step's ``call``/``inner``)."""

    call: CallSite | None
    inner: _Link | None


def _arms(flow: FunctionFlow, byte: int) -> dict[tuple[int, int], Node | None]:
    """The arms around ``byte`` in ``flow``'s body, keyed by (the branching node's first
    byte, which arm), each with the condition that chooses it: an ``if``'s two arms, a
    conditional expression's two, a ``switch``'s cases (the switch's condition)."""
    found: dict[tuple[int, int], Node | None] = {}
    node: Node | None = flow.node.descendant_for_byte_range(byte, byte)
    child = node
    while node is not None and node.start_byte >= flow.start:
        kind = node.type
        if kind in ("if_statement", "conditional_expression") and child is not None:
            condition = node.child_by_field_name("condition")
            if child != condition:
                found[(node.start_byte, 0 if child == node.child_by_field_name(
                    "consequence") else 1)] = condition
        elif kind == "case_statement":
            switch = node.parent.parent if node.parent is not None else None
            condition = switch.child_by_field_name("condition") \
                if switch is not None and switch.type == "switch_statement" else None
            found[(node.start_byte, 0)] = condition
        if node.start_byte == flow.start and node.end_byte == flow.end:
            break
        child, node = node, node.parent
    return found


def _runtime(flow: FunctionFlow, node: Node | None, depth: int = 0) -> bool:
    """Whether condition or value ``node`` of ``flow`` is known only at run time, so no
    instantiation or inlining makes it a constant the compiler folds: each side of a ``&&``
    or ``||`` is (a constant side could decide the whole), one operand of any other operator
    is."""
    if node is None or depth > _DEPTH:
        return False
    kind = node.type
    if kind in ("parenthesized_expression", "condition_clause", "cast_expression"):
        inner = node.child_by_field_name("value") or (
            node.named_children[-1] if node.named_children else None)
        return _runtime(flow, inner, depth + 1)
    if kind == "unary_expression":
        return _runtime(flow, node.child_by_field_name("argument"), depth + 1)
    if kind == "binary_expression":
        operator = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if operator is not None and operator.type in ("&&", "||"):
            return _runtime(flow, left, depth + 1) and _runtime(flow, right, depth + 1)
        return _runtime(flow, left, depth + 1) or _runtime(flow, right, depth + 1)
    if kind == "field_expression":
        base = node.child_by_field_name("argument")
        if base is not None and base.type == "identifier" and \
                flow.text(base) in _RUNTIME_FIELDS:
            return True
        return _runtime(flow, base, depth + 1)
    if kind == "call_expression":
        function = node.child_by_field_name("function")
        return function is not None and function_name(flow.text(function)) in _RUNTIME_CALLS
    if kind == "identifier":
        return _runtime_name(flow, flow.text(node), depth)
    return False


def _runtime_name(flow: FunctionFlow, name: str, depth: int) -> bool:
    if name in flow.template_parameters:
        return False
    if name in flow.parameters:
        return flow.kernel  # a device function's parameter may be a caller's constant
    if any(name == output.expression.strip() for statement in flow.statements
           for output in statement.outputs):
        return True  # an asm output: no compiler folds it
    values = flow.values_of(name)
    # a local each of whose values is a run-time one (a write of unknown value, ``++i``,
    # may be a constant after unrolling)
    return values is not None and bool(values) and \
        all(v is not None and _runtime(flow, v, depth + 1) for v in values)
