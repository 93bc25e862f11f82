"""Per function: the ordered asm steps of its asynchronous protocols, and the C++ around them.

The cross-statement rules (PTX6xx) read one :class:`FunctionFlow` per C++ function, computed
once per file on the first ask (:func:`flows_of`) from the tree-sitter tree the extractor
already built and the file's asm statements:

* ``steps``: every protocol event (:func:`ptxlint.ptx.protocols.events`) of the function's asm
  statements in source order, and those of the helpers it calls (same file, its project
  headers, else the library summaries of :mod:`.library_helpers`), placed at the call; a
  helper's own calls too, :data:`FOLLOW_DEPTH` calls deep, each function's steps composed
  once per depth. A helper's step names the call it is reached through and the step as the
  helper sees it (``inner``), so its operands are read in the caller's terms (``key``; a
  template parameter bound to the call's argument: ``cp_async_wait<2>()``'s N). A call not
  followed (no definition, differing overloads, past the depth, a recursion) is opaque:
  ``opaque_between`` names it, and the rules stay silent around it.
* the C++ structure a verdict needs: loops, ``if`` branches (two steps in the two arms of one
  ``if`` never follow each other), early returns, local definitions, and where each name is
  read or written.

A step is *about* (``key``) the base variable of the expression bound to its operand
(``__cvta_generic_to_shared(&full_bar[stage])``: ``full_bar``), a helper's parameter replaced by
the caller's argument, a local once-defined by its initializer; else ``None``, and the rules
stay silent. It imports the model, ``ptxlint.ptx``, the front end's tree and function recovery."""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass, field

import tree_sitter

from ptxlint import file_memos
from ptxlint.analysis.buffer_regions import memory_region, region_reads
from ptxlint.analysis.call_classes import CallClasses
from ptxlint.analysis.call_lookup import definitions
from ptxlint.analysis.exclusive_arms import disjoint_arms, left_by_return
from ptxlint.analysis.flow_binding import bound_expression, operand_expression
from ptxlint.analysis.flow_constants import MAX_CHAIN, constant_of
from ptxlint.analysis.flow_opaque import Opaque, constructor_may_take, may_take, unreadable
from ptxlint.analysis.flow_syntax import (
    base_name,
    compact,
    definitions_spelled,
    function_name,
    one_argument_call,
    parameter_arity,
    parameter_names,
    pointer_arithmetic,
    pointer_variables,
    subscripts,
    subscripts_at,
    usage,
)
from ptxlint.analysis.function_index import FunctionIndex
from ptxlint.analysis.function_shapes import FunctionShape, ShapeIndex, names_matcher, shapes_of
from ptxlint.analysis.included_helpers import included_headers
from ptxlint.analysis.library_helpers import library_header
from ptxlint.analysis.stub_definitions import stepped_definition
from ptxlint.analysis.toolkit_calls import toolkit_read
from ptxlint.frontends.cxx.declaration_index import DeclarationIndex
from ptxlint.frontends.cxx.function_recovery import RecoveredFunction, recovered_kernel
from ptxlint.frontends.split_conditionals import pairs_up
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.model import AsmStatement, PtxInstruction, PtxOperand
from ptxlint.ptx.protocols import SHARED_READ, Event, statement_events
from ptxlint.value_class import value_class

__all__ = ["FOLLOW_DEPTH", "CallSite", "FileFlows", "FunctionFlow", "Opaque", "Step",
           "base_name", "flows_of"]

Node = tree_sitter.Node

# how many calls deep a function's steps are followed (the kernel's own call the first): a
# kernel calls CUTLASS's collective, which calls warpgroup_arrive(), which holds the fence
FOLLOW_DEPTH = 3
CallerSite = tuple["FunctionFlow", int, int]  # a call of a helper: (caller, start, end)
_MEMBER = "this:"  # a place's offset: the member of an object a method's step is about


@value_class(slots=False)
class CallSite:
    """A call of a same-file helper: where it is, and its argument texts."""

    start: int  # byte offsets of the call expression
    end: int
    name: str
    arguments: tuple[str, ...]
    helper: FunctionFlow
    # the explicit template arguments (``wait<kStages - 2>()``): what the helper's template
    # parameters are bound to at this call, in order
    template_arguments: tuple[str, ...] = ()
    receiver: str = ""  # a member call's object expression: ``this`` in the helper


@value_class(slots=False)
class Step:
    """One protocol event of the function, at byte ``start`` (the asm statement, or the call
    that reaches it); ``order`` breaks ties between the steps of one call."""

    start: int
    order: int
    event: Event
    statement: AsmStatement
    instruction: PtxInstruction
    call: CallSite | None = None
    # the same step as the called helper sees it (itself reached through a call, a level
    # deeper, or its own statement's): how an operand is read back up the call chain
    inner: Step | None = None

    @property
    def kind(self) -> str:
        return self.event.kind


@dataclass(eq=False)  # one flow per function: compared by identity
class FunctionFlow:
    """One C++ function's protocol steps and the structure around them (byte offsets)."""

    parsed: ParsedSource = field(repr=False)
    node: Node = field(repr=False)
    name: str
    start: int
    end: int
    kernel: bool  # __global__
    template_parameters: frozenset[str]
    # a method: defined in a class body, or out of line under a qualified name (T::f)
    member: bool = False
    scope_class: str = ""  # the class it is a method of (``FunctionShape.scope_class``)
    statements: list[AsmStatement] = field(default_factory=list, repr=False)
    steps: list[Step] = field(default_factory=list)
    loops: list[tuple[int, int]] = field(default_factory=list)
    # (if start, condition node, consequence range, alternative range or None)
    ifs: list[tuple[Node, Node | None, tuple[int, int], tuple[int, int] | None]] = field(
        default_factory=list, repr=False)
    returns: list[Node] = field(default_factory=list, repr=False)
    # name -> the value nodes it receives (an initializer, the right side of an assignment,
    # None for a write whose value is unknown: ++, a compound assignment, an asm output)
    definitions: dict[str, list[Node | None]] = field(default_factory=dict, repr=False)
    # name -> (byte, how, through an element) for every identifier use outside asm statements
    uses: dict[str, list[tuple[int, str, bool]]] = field(default_factory=dict, repr=False)
    # (start, end, name, followed): followed when the call is of a helper whose steps are
    # placed at the call (the others are asked about with ``opaque_between``)
    calls: list[tuple[int, int, str, bool]] = field(default_factory=list, repr=False)
    # calls a followed helper makes (a few calls down) and ptxlint does not follow, at the
    # call of this function that reaches them: (byte, those calls)
    hidden: list[tuple[int, Opaque]] = field(default_factory=list, repr=False)
    # where its own asm statements ptxlint cannot read lie, and the objects it declares
    # (byte, class): steps no call shows (:mod:`.flow_opaque`)
    unreadable: list[int] = field(default_factory=list, repr=False)
    constructions: list[tuple[int, str]] = field(default_factory=list, repr=False)
    # the function's own asm steps, and its calls with their argument texts (byte order)
    own_steps: list[Step] = field(default_factory=list, repr=False)
    raw_calls: list[tuple[int, int, str, tuple[str, ...], str]] = field(default_factory=list)
    asm_ranges: list[tuple[int, int]] = field(default_factory=list, repr=False)
    lambdas: list[tuple[int, int]] = field(default_factory=list, repr=False)
    gotos: list[int] = field(default_factory=list, repr=False)  # their bytes
    # the template parameters in their order (a name may be "" where none is written), and
    # the explicit template arguments of the function's calls, by the call's first byte
    template_order: tuple[str, ...] = field(default=(), repr=False)
    template_defaults: tuple[str | None, ...] = field(default=(), repr=False)  # (FunctionShape)
    template_arguments: dict[int, tuple[str, ...]] = field(default_factory=dict, repr=False)
    _read: bool = field(default=False, repr=False)
    _parameters: tuple[str, ...] | None = field(default=None, repr=False)
    _arity: tuple[int, int | None] | None = field(default=None, repr=False)
    body_read: bool = field(default=False, repr=False)  # ifs, locals, steps, calls: ``_read``
    _values: dict[str, list[Node | None] | None] = field(default_factory=dict, repr=False)
    # read from the text where the tree shows no definition (``node`` is then its body)
    recovered: bool = field(default=False, repr=False)
    _identifiers: list[Node] | None = field(default=None, repr=False)  # uses not read yet
    _pointers: frozenset[str] | None = field(default=None, repr=False)
    _keys: dict[tuple[int, int], frozenset[str] | None] = field(default_factory=dict, repr=False)
    # the file's flows, for the same-file conversion helpers an operand goes through
    owner: FileFlows | None = field(default=None, repr=False)
    _classes: CallClasses | None = field(default=None, repr=False)
    _whole: bool | None = field(default=None, repr=False)

    def call_class(self, start: int, end: int, form: str, receiver: bool = False) -> str:
        """The class whose method the call at ``[start, end)`` names (:mod:`.call_classes`);
        with ``receiver``, its object expression instead."""
        if self._classes is None:
            self._classes = CallClasses(self.parsed, self.node, self.scope_class,
                                        self.owner.class_definitions if self.owner else None)
        if receiver:
            return self._classes.receiver(start, end) if form == "member" else ""
        return self._classes.of_call(start, end, form)

    def text(self, node: Node) -> str:
        return self.parsed.node_text(node)

    def values_of(self, name: str) -> list[Node | None] | None:
        """``definitions.get(name)``; where the body is not read, from the places that spell
        the name (a divergence question names a local or two of a large kernel)."""
        if self.body_read:
            return self.definitions.get(name)
        if name not in self._values:
            body = self.node if self.recovered else self.node.child_by_field_name("body")
            found = [] if body is None else definitions_spelled(self.parsed, body, name)
            found += [None for s in self.statements for o in s.outputs
                      if base_name(o.expression) == name]
            self._values[name] = found or None
        return self._values[name]

    @property
    def whole(self) -> bool:
        """No parse error in the function, and its body's braces, counted in every ``#if``
        branch, pair up as the tree's do: an asm statement split across ``#if`` branches, or
        a body with two ``#if`` heads, can end a generated kernel hundreds of lines early."""
        if self._whole is None:
            body = self.node if self.recovered else self.node.child_by_field_name("body")
            self._whole = body is not None and not self.node.has_error and pairs_up(
                self.parsed.data, body.start_byte, body.end_byte)
        return self._whole

    @property
    def parameters(self) -> tuple[str, ...]:
        """The parameters' names, in order ("" for an unnamed one), read on first ask: a
        CUTLASS file's wrappers hold thousands (a GMMA ``fma`` has 128), and most of its
        functions are never asked (0.6 s of PTX601's 2.8 s on CUTLASS ``include/``)."""
        if self._parameters is None:
            self._parameters = parameter_names(self.parsed, self.node)
        return self._parameters

    def accepts(self, count: int) -> bool:
        """A call with ``count`` arguments may call this function ([over.match.viable]: no
        fewer than its parameters without a default, no more unless a pack or ``...`` ends
        them); true where its parameters cannot be read (a function recovered from the text)."""
        if self._arity is None:
            read = None if self.recovered else parameter_arity(self.node)
            self._arity = read if read is not None else (0, None)
        fewest, most = self._arity
        return fewest <= count and (most is None or count <= most)

    # ------------------------------------------------------------------ structure questions

    def loops_at(self, byte: int) -> list[tuple[int, int]]:
        """The loops around ``byte``, outermost first."""
        return [loop for loop in self.loops if loop[0] <= byte < loop[1]]

    def exclusive(self, a: int, b: int) -> bool:
        """``a`` and ``b`` lie in the two arms of one ``if``, or in those of two that test one
        variable for two constants (:func:`.exclusive_arms.disjoint_arms`): no run reaches
        both."""
        for _, _, then, other in self.ifs:
            if other is None:
                continue
            if (then[0] <= a < then[1] and other[0] <= b < other[1]) or (
                    then[0] <= b < then[1] and other[0] <= a < other[1]):
                return True
        return disjoint_arms(self, a, b) or left_by_return(self, a, b)

    def arms_at(self, byte: int) -> set[tuple[int, bool]]:
        """The ``if`` arms around ``byte``: (the ``if``'s byte, in its ``else`` arm)."""
        found: set[tuple[int, bool]] = set()
        for node, _, then, other in self.ifs:
            if then[0] <= byte < then[1]:
                found.add((node.start_byte, False))
            elif other is not None and other[0] <= byte < other[1]:
                found.add((node.start_byte, True))
        return found

    @staticmethod
    def once(step: Step) -> bool:
        """Every helper on the way down to ``step`` takes it exactly once whenever it is
        called: it lies in no ``if`` arm and no loop of theirs (a helper's steps are placed at
        its call once each, in source order, both arms of its ``if`` among them)."""
        while step.call is not None and step.inner is not None:
            helper = step.call.helper
            if helper.arms_at(step.inner.start) or helper.loops_at(step.inner.start):
                return False
            step = step.inner
        return True

    def lambda_at(self, byte: int) -> tuple[int, int] | None:
        """The innermost lambda around ``byte`` (its span), or None: two places are in program
        order only in the same one (a lambda's body runs where it is called, not defined)."""
        return max(((s, e) for s, e in self.lambdas if s <= byte < e), default=None)

    def between(self, a: int, b: int, kinds: frozenset[str] | set[str]) -> list[Step]:
        """The steps of ``kinds`` strictly after byte ``a`` and before byte ``b``."""
        return [s for s in self.steps if a < s.start < b and s.kind in kinds]

    def steps_between(self, a: Step, b: Step, kinds: frozenset[str] | set[str]) -> list[Step]:
        """The steps of ``kinds`` after step ``a`` and before step ``b`` in program order
        (the steps of one statement or one call are ordered by ``order``)."""
        first, last = (a.start, a.order), (b.start, b.order)
        return [s for s in self.steps if first < (s.start, s.order) < last and s.kind in kinds]

    def opaque_between(self, a: int, b: int, kinds: frozenset[str]) -> list[str]:
        """The calls after byte ``a`` and before ``b`` that may take a step of ``kinds``
        ptxlint does not see: a function it cannot read, or one whose body (or a callee's, a
        few calls deep) holds such a step; an asm statement it cannot read (``"asm"``), and
        a declaration whose class's constructor may take one (the class). Where one lies,
        the rules stay silent."""
        owner = self.owner
        forms = {(start, end): form for start, end, _, _, form in self.raw_calls}
        found = [name for start, end, name, followed in self.calls
                 if not followed and a < start < b and (owner is None or may_take(
                     owner, name, kinds, self, form=forms.get((start, end)),
                     klass=owner.class_of(self, name, start, end, forms.get((start, end)))))]
        found.extend("asm" for at in self.unreadable if a < at < b)
        found.extend(klass for at, klass in self.constructions if a < at < b and owner
                     is not None and constructor_may_take(owner, klass, kinds))
        for start, opaque in self.hidden:
            if a < start < b:
                name = opaque.first(kinds)
                if name is not None:
                    found.append(name)
        return found

    def uses_of(self, name: str) -> list[tuple[int, str, bool]]:
        """Where ``name`` is used in the function's C++ (not inside an asm statement), in
        order: ``read``, ``write``, ``readwrite``, ``address`` (``&name``), ``argument`` (passed
        to a call), ``declare``, ``initialise`` (declared with an initializer); and whether
        through an element (``x[i]``, ``*x``, ``x.f``), the memory behind a pointer."""
        return self.all_uses().get(name, [])

    def all_uses(self) -> dict[str, list[tuple[int, str, bool]]]:
        """Every name's uses (:meth:`uses_of`), read on the first ask."""
        if self._identifiers is not None:
            self._read_uses()
        return self.uses

    def name_used_at(self, byte: int) -> str | None:
        """The variable whose use (:meth:`uses_of`) begins at ``byte``; None where none does."""
        return next((name for name, uses in self.all_uses().items()
                     if any(at == byte for at, _, _ in uses)), None)

    def declared_pointer(self, name: str) -> bool:
        """``name`` is declared in the function only as a pointer variable
        (``flow_syntax.pointer_variables``, read once per function)."""
        if self._pointers is None:
            self._pointers = pointer_variables(self.node, self.parsed)
        return name in self._pointers

    def _read_uses(self) -> None:
        """Where each name is used, read on the first ask: most functions the flows read are
        helpers followed for their steps, never asked about their uses (flashinfer: a third
        of the functions read)."""
        identifiers, self._identifiers = self._identifiers or [], None
        asm = sorted(self.asm_ranges)
        asm_starts = [start for start, _ in asm]
        for node in identifiers:
            byte = node.start_byte
            k = bisect.bisect_right(asm_starts, byte) - 1
            if k >= 0 and byte < asm[k][1]:
                continue  # an asm statement's operand: its steps speak for it
            how, element = usage(node)
            self.uses.setdefault(self.parsed.node_text(node), []).append((byte, how, element))

    # ------------------------------------------------------------------ operand keys

    def key(self, step: Step, operand: PtxOperand | None) -> str | None:
        """The variable of this function that ``operand`` of ``step`` is about, or ``None``:
        ``place``'s variable, without the offset it also works out (a wgmma's 128
        accumulators are keyed each, ``keys``)."""
        expression = operand_expression(step.statement, operand)
        return self._name_of(step, expression, []) if expression is not None else None

    def place(self, step: Step, operand: PtxOperand | None,
              trail: list[str] | None = None) -> tuple[str, str] | None:
        """Where ``operand`` of ``step`` points: (the variable of this function, the offset
        into it). The offset is "" for the variable itself or an element of it (``&bar``,
        ``&tile[i]``: one buffer, whatever the index), and the pointer arithmetic that led
        there otherwise (``smem + 1024``), so that two regions of one raw buffer are told
        apart; ``None`` where the chain cannot be followed."""
        expression = operand_expression(step.statement, operand)
        if expression is None:
            return None
        trail = [] if trail is None else trail
        if operand is not None and operand.kind == "address":
            trail.extend(p.text for p in operand.parts if p.kind == "immediate")
        name = self._name_of(step, expression, trail)
        if name is None:
            return None
        offsets = [t for t in trail if pointer_arithmetic(t) or t.startswith(_MEMBER)]
        return name, "|".join("".join(t.split()) for t in offsets)

    def stage(self, step: Step, operand: PtxOperand | None) -> str | None:
        """The first index (compacted) of the many-dimensional buffer ``operand`` of ``step``
        points into (``&tile[stage][i]``: a pipeline's stage), or None."""
        trail: list[str] = []
        place = self.place(step, operand, trail)
        return _first_index(trail, place[0]) if place is not None else None

    def _name_of(self, step: Step, expression: str, trail: list[str]) -> str | None:
        """The variable of this function an operand expression of ``step`` names: through
        each call down to the statement, a helper's parameter replaced by the argument."""
        if step.call is None:
            return self.resolve(expression, trail=trail)
        helper = step.call.helper
        inner = helper._name_of(step.inner, expression, trail) if step.inner is not None \
            else helper.resolve(expression, trail=trail)
        if inner == "this" and step.call.receiver:
            # the object the method is called on; a member of it (`&this->full_`), an offset
            named = compact(trail[-1]) if trail else ""
            name = self.resolve(step.call.receiver, trail=trail)
            if "->" in named or "." in named:
                trail.append(_MEMBER + named)
            return name
        if inner is None or inner not in helper.parameters:
            return None  # a helper's own variable: not one of the caller's
        index = helper.parameters.index(inner)
        if index >= len(step.call.arguments):
            return None
        return self.resolve(step.call.arguments[index], trail=trail)

    def expression_at(self, step: Step, expression: str) -> str | None:
        """An operand expression of ``step``'s statement as this function writes it: the
        expression itself for an own step; through a call, the argument bound to the helper's
        parameter it names (down the chain of calls); ``None`` where it is not a parameter."""
        if step.call is None:
            return expression
        helper = step.call.helper
        text = helper.expression_at(step.inner, expression) if step.inner is not None \
            else expression
        name = text.strip() if text is not None else None
        if name is None:
            return None
        if name not in helper.parameters:
            # a template parameter (``"n"(N)`` in ``wait<N>()``): the call's template argument
            if not name or name not in helper.template_order:
                return None
            index = helper.template_order.index(name)
            given = step.call.template_arguments  # then the defaults of those it leaves out
            bound = (*given, *helper.template_defaults[len(given):])
            return bound[index] if index < len(bound) else None
        index = helper.parameters.index(name)
        return step.call.arguments[index] if index < len(step.call.arguments) else None

    def constant_of(self, step: Step, expression: str) -> int | None:
        """The constant value of an operand expression of ``step``: in the function whose
        statement it is, or in a caller's terms through the parameters it is bound to."""
        if step.call is None:
            return self.constant(expression)
        helper = step.call.helper
        value = helper.constant_of(step.inner, expression) if step.inner is not None \
            else helper.constant(expression)
        if value is not None:
            return value
        text = bound_expression(step, expression)  # `N - 1`: an expression of parameters
        return self.constant(text) if text is not None else None

    def count(self, step: Step) -> int | None:
        """A step's count (a ``cp.async.wait_group``'s or ``wgmma.wait_group``'s N, an
        expect-tx's bytes): the immediate, else the constant its operand is bound to in this
        function's terms, through the helpers' parameters and template parameters down the
        call (``cp_async_wait<2>()`` whose body waits ``"n"(N)``); ``None`` where unknown."""
        event = step.event
        if event.count is not None:
            return event.count
        operand = event.count_operand
        if operand is None or operand.ref is None or operand.ref >= len(step.statement.operands):
            return None
        return self.constant_of(step, step.statement.operands[operand.ref].expression)

    def keys(self, step: Step, operands: tuple[PtxOperand, ...]) -> frozenset[str] | None:
        """The variables of this function the register operands are bound to (a wgmma's
        accumulators), or ``None`` when one of them cannot be named; kept per step, which
        PTX606 and PTX607 both ask of each wgmma (CUTLASS include/: 128 operands each)."""
        at = (id(step), id(operands))  # both live as long as the flow (its steps, their events)
        if at in self._keys:
            return self._keys[at]
        found: set[str] = set()
        for operand in operands:
            name = self.key(step, operand)
            if name is None:
                self._keys[at] = None
                return None
            found.add(name)
        self._keys[at] = answer = frozenset(found)
        return answer

    def resolve(self, expression: str, depth: int = 0,
                trail: list[str] | None = None) -> str | None:
        """The base variable of ``expression``, through locals defined once and same-file
        helpers that return a conversion of their one argument (``smem_u32(&bar)``).
        ``trail`` collects the expressions followed."""
        if trail is not None:
            trail.append(expression)
        call = one_argument_call(expression)
        if call is not None and self.owner is not None and depth < MAX_CHAIN \
                and self.owner.conversion(call[0]) is not None:
            return self.resolve(call[1], depth + 1, trail)
        name = base_name(expression)
        if name is None or depth >= MAX_CHAIN or name in self.parameters:
            return name
        values = self.definitions.get(name)
        if values is None or len(values) != 1 or values[0] is None:
            return name
        value = values[0]
        if value.type in ("initializer_list", "number_literal"):
            return name
        inner = self.resolve(self.text(value), depth + 1, trail)
        return inner if inner is not None else name

    def reads_of(self, step: Step, operand: PtxOperand | None) -> list[tuple[int, Step | None]]:
        """The reads, after ``step``, of the shared memory ``operand`` of ``step`` points to:
        C++ element reads of its variable (byte, None) and ``ld.shared``/``ldmatrix`` asm on
        the same place (byte, the step), in order, in the same lambda or outside of one, not
        in the other arm of an ``if``. Where ``operand`` points into a raw buffer at an offset
        (``smem + 1024``), asm reads of that same place count, and reads of the same region
        where ``buffer_regions`` makes it certain. Empty where the place cannot be named."""
        trail: list[str] = []
        place = self.place(step, operand, trail)
        if place is None:
            return []
        variable, offset = place
        stage = _first_index(trail, variable)
        word = len(variable.encode())

        def reachable(at: int) -> bool:
            return not self.exclusive(step.start, at) and \
                self.lambda_at(at) == self.lambda_at(step.start)

        def same_stage(at: int) -> bool:
            # tile[stage][i]: another first index is another stage of a pipeline's buffer
            if stage is None:
                return True
            node = self.node.descendant_for_byte_range(at, at + word)
            subs = subscripts_at(node, self.text) if node is not None else ()
            return len(subs) < 2 or compact(subs[0]) == stage

        def read(byte: int, how: str, element: bool) -> bool:
            if element and how in ("read", "readwrite"):
                return True  # else passed to a toolkit function that reads it (`wmma::` load)
            node = self.node.descendant_for_byte_range(byte, byte + word)
            return how in ("argument", "address", "read") and node is not None and \
                toolkit_read(self.parsed, node)

        found: list[tuple[int, Step | None]] = [
            (byte, None) for byte, how, element in self.uses_of(variable)
            if not offset and byte > step.start and read(byte, how, element)
            and reachable(byte) and same_stage(byte)]
        region = memory_region(self, step, operand)  # of a raw buffer: reads through aliases
        found.extend((s.start, s) for s in self.steps
                     if s.kind == SHARED_READ and s.start > step.start and reachable(s.start)
                     and (self.place(s, s.event.memory) == place or region is not None
                          and memory_region(self, s, s.event.memory) == region))
        seen = {byte for byte, _ in found}
        found.extend((byte, None) for byte in region_reads(self, region)
                     if byte > step.start and byte not in seen and reachable(byte))
        return sorted(found, key=lambda f: f[0])

    def constant(self, expression: str, depth: int = 0) -> int | None:
        """The value of an integer expression made of literals, ``sizeof`` of a built-in type,
        and locals defined once by such an expression; ``None`` otherwise."""
        return constant_of(self, expression, depth)


class FileFlows:
    """The flows of one file's functions, each built on first ask."""

    def __init__(self, parsed: ParsedSource, statements: tuple[AsmStatement, ...],
                 path: str | None = None, root: FileFlows | None = None,
                 shapes: ShapeIndex | None = None, library: bool = False) -> None:
        """``path``: the file's, to find the project headers it includes (their helpers are
        followed too); ``None`` for a header itself, whose includes are not read: ``root``,
        the linted file's flows, finds a header helper's callees among its headers;
        ``shapes``: its functions' shapes, where a header keeps them (``shapes_of``);
        ``library``: the library summaries, whose methods a call reaches only where its class
        is the summary's."""
        self.parsed = parsed
        self.path = path
        self.root = root
        self.library = library
        self._methods: frozenset[str] | None = None
        self._included: list[FileFlows] | None = None
        if shapes is None:
            shapes = ShapeIndex(parsed, [s for s in statements if s.context.macro is None
                                         and s.source.text is parsed.text])
        self._index = FunctionIndex(shapes, self._function, self._recovered_function)
        self._flows: list[FunctionFlow] | None = None
        self._by_statement: dict[int, list[tuple[FunctionFlow, Step]]] | None = None
        self._composed: dict[tuple[int, int], tuple[list[Step], Opaque]] = {}
        self._composing: set[int] = set()
        self._helpers: dict[tuple[str, int, str | None, bool, int | None, str],
                            tuple[FunctionFlow, list[Step], Opaque] | None] = {}
        self._converts: dict[str, FunctionFlow | None] = {}
        self.may_take_known: dict[tuple[str, frozenset[str], int, str | None, bool, str],
                                  bool] = {}  # (flow_opaque.may_take)
        self._calls_by_name: dict[str, list[tuple[FunctionFlow, int, int]]] | None = None
        self._naming: dict[int, list[CallerSite]] = {}
        self.carrier: AsmStatement | None = None  # of the header helpers' steps (carry)
        self._declarations: DeclarationIndex | None = None  # (class_definitions)

    def _function(self, shape: FunctionShape) -> FunctionFlow:
        return FunctionFlow(self.parsed, shape.node, shape.name, shape.start, shape.end,
                            shape.kernel, shape.template_parameters, shape.member,
                            shape.scope_class, template_order=shape.template_order,
                            template_defaults=shape.template_defaults, owner=self)

    def _recovered_function(self, fn: RecoveredFunction, body: Node) -> FunctionFlow:
        """A function the text shows where the tree has none: its name as spelled, its block;
        its parameters and template parameters are not read (a condition on one is unknown)."""
        name = function_name(fn.name)
        return FunctionFlow(self.parsed, body, name, fn.start_byte, body.end_byte,
                            recovered_kernel(self.parsed, fn), frozenset(), "::" in fn.name,
                            owner=self,
                            recovered=True, _parameters=())

    def function_at(self, byte: int, follow: bool = True) -> FunctionFlow | None:
        """The innermost function around ``byte``, its body read and its calls followed; not
        ``follow``: as found, its body unread (:meth:`structured` reads it). PTX601 climbs from
        the statement instead: reading each body cost it 1.8 s on CUTLASS ``include/``."""
        flow = self._index.around(byte)
        if flow is not None and not follow:
            return flow
        return self._ready(flow) if flow is not None else None

    def conversion(self, name: str) -> FunctionFlow | None:
        """The one function ``name`` names, of the file or a project header it includes, where
        its every ``return`` gives a conversion of its first parameter (``return
        (uint32_t)__cvta_generic_to_shared(p);``); else ``None``."""
        if name not in self._converts:
            defined = self._defined(name)
            helper = defined[0] if len(defined) == 1 and defined[0].parameters else None
            if helper is not None:
                (helper.owner or self)._structure(helper)
                values = [r.named_children[0] for r in helper.returns if r.named_children]
                if not values or len(values) != len(helper.returns) or any(
                        base_name(helper.text(v)) != helper.parameters[0] for v in values):
                    helper = None
            self._converts[name] = helper
        return self._converts[name]

    def class_of(self, caller: FunctionFlow, name: str, start: int, end: int,
                 form: str | None) -> str:
        """The class of ``caller``'s call at ``[start, end)`` (:meth:`FunctionFlow.call_class`)
        where it may change which definition is reached: ``name`` is a method of two classes
        here and in the headers, or of a library summary's."""
        if form is None or form == "plain" or name not in self.methods():
            return ""
        return caller.call_class(start, end, form)

    def methods(self) -> frozenset[str]:
        if self.root is not None:
            return self.root.methods()
        if self._methods is None:
            classes: dict[str, set[str]] = {}
            for files in [self, *self.included()]:
                for shape in files._index.shapes.all:
                    if shape.scope_class:  # a summary's counts as a second class
                        found = classes.setdefault(shape.name, set())
                        found.update((shape.scope_class, "") if files.library else
                                     (shape.scope_class,))
            self._methods = frozenset(name for name, c in classes.items() if len(c) > 1)
        return self._methods

    def destructors_taking(self, kinds: frozenset[str]) -> list[str]:
        """The destructors (``~T``) of the file and the headers it includes that take, or may
        take, a step of ``kinds``: a step no call in a function's body shows (an object's
        destructor runs where its scope ends)."""
        found: list[str] = []
        for files in [self, *self.included()]:
            for shape in files._index.shapes.all:
                if not shape.name.startswith("~"):
                    continue
                flow = files._index.of(shape)
                files._structure(flow)
                if flow.unreadable or any(s.kind in kinds for s in flow.own_steps) or any(
                        may_take(files, callee, kinds, flow, form=form,
                                 klass=files.class_of(flow, callee, at, end, form))
                        for at, end, callee, _, form in flow.raw_calls):
                    found.append(flow.name)
        return found

    def class_definitions(self, name: str) -> list[tuple[ParsedSource, Node]]:
        """The class specifiers defining or specializing ``name`` in the linted file and the
        project headers it includes (the C++ typer's index of each file's declarations)."""
        if self.root is not None:
            return self.root.class_definitions(name)
        found: list[tuple[ParsedSource, Node]] = []
        for files in [self, *self.included()]:
            if not files.library:
                if files._declarations is None:
                    parsed = files.parsed
                    files._declarations = DeclarationIndex(parsed.text, parsed.tree, parsed.data)
                found.extend((files.parsed, n)
                             for n in files._declarations.class_definitions(name))
        return found

    def function_holding(self, statement: AsmStatement) -> FunctionFlow | None:
        """The innermost function around ``statement``, as found (its body unread)."""
        return self.function_at(self.parsed.to_byte(statement.span.start), follow=False)

    def functions_named(self, name: str) -> list[FunctionFlow]:
        """The file's function definitions called ``name`` (overloads, specialisations)."""
        return self._index.named(name)

    def ready(self, flow: FunctionFlow) -> FunctionFlow:
        """``flow`` with its body read and its calls followed."""
        return self._ready(flow)

    def structured(self, flow: FunctionFlow) -> FunctionFlow:
        """``flow`` with its body read (its ifs, locals, returns, own steps), no call followed."""
        (flow.owner or self)._structure(flow)
        return flow

    def callers(self, helper: FunctionFlow, follow: bool = True) -> list[CallerSite]:
        """The calls of ``helper`` in the file's other functions (caller, start, end), where its
        name names no other definition; not ``follow``: only the functions naming it, as read."""
        if not follow:
            known = self._naming.get(id(helper))
            if known is None:
                known = self._naming[id(helper)] = self._index.calls_of(helper)
            return known
        if len(self._index.named(helper.name)) != 1:
            return []
        if self._calls_by_name is None:
            self._calls_by_name = {}
            for flow in self.flows():
                for start, end, name, _ in flow.calls:
                    self._calls_by_name.setdefault(name, []).append((flow, start, end))
        return [c for c in self._calls_by_name.get(helper.name, ()) if c[0] is not helper]

    def _ready(self, flow: FunctionFlow) -> FunctionFlow:
        if not flow._read:
            flow._read = True
            self._structure(flow)
            self._follow(flow)
        return flow

    def flows(self) -> list[FunctionFlow]:
        """The functions that hold asm statements or call a same-file helper that does."""
        if self._flows is None:
            everywhere = [(files._index.shapes, shape) for files in [self, *self.included()]
                          for shape in files._index.shapes.all if shape.name]
            names = {shape.name for shapes, shape in everywhere if shapes.holds_statements(shape)}
            # a function that calls one that does, up to the calls the flows follow
            new = set(names)
            for _ in range(FOLLOW_DEPTH - 1):
                if not new:
                    break
                words, odd = names_matcher(new)  # a caller of one found last round
                new = {shape.name for shapes, shape in everywhere
                       if shape.name not in names and shapes.spells(shape, words, odd)}
                names |= new
            words, odd = names_matcher(names)
            index = self._index
            self._flows = [
                self._ready(index.of(shape)) for shape in index.shapes.all
                if index.shapes.holds_statements(shape) or (
                    names and index.shapes.spells(shape, words, odd))]
        return self._flows

    def steps_of(self, statement: AsmStatement) -> list[tuple[FunctionFlow, Step]]:
        """Every step ``statement`` takes, in every function that reaches it: its own, and
        each caller in the file (through that caller's call); for the file's ``carrier``, the
        steps of included headers' helpers its functions call."""
        if self._by_statement is None:
            self._by_statement = {}
            for flow in self.flows():
                for step in flow.steps:
                    own = step.statement.source.text is self.parsed.text
                    holder = step.statement if own else self.carrier
                    if holder is not None:
                        self._by_statement.setdefault(id(holder), []).append((flow, step))
        return self._by_statement.get(id(statement), [])

    def steps_reaching(self, statement: AsmStatement) -> list[tuple[FunctionFlow, Step]]:
        """:meth:`steps_of` a file's own statement, building the flows of the function around
        it and of the functions that call it, :data:`FOLLOW_DEPTH` calls up, only (not a
        header's function that calls back into the file). PTX614 asks of a few statements of
        files with thousands of functions, which :meth:`flows` builds all of: 6% of a default
        run's CPU on CUTLASS ``include/``, of which ``copy_sm100.hpp`` is most."""
        holder = None if self._by_statement is not None or statement is self.carrier or \
            statement.context.macro is not None or statement.source.text is not \
            self.parsed.text else self.function_holding(statement)
        if holder is None or holder.recovered:
            return self.steps_of(statement)
        reached, names, new = {holder.start: holder}, set(), {holder.name}
        for _ in range(FOLLOW_DEPTH):  # as flows() closes its names over the calls
            names |= new
            found = self._index.calling(new)
            reached.update((flow.start, flow) for flow in found)
            new = {flow.name for flow in found} - names
            if not new:
                break
        return [(flow, step) for _, flow in sorted(reached.items())
                for step in self._ready(flow).steps if step.statement is statement]

    def carry(self, statement: AsmStatement) -> None:
        """``statement`` carries the findings about the steps of included headers' helpers
        (:mod:`.helper_carrier`): no statement of the file does, whose lines, guards and
        expansion would be the finding's (a suppression on the helper call's line would not
        reach it). The steps by statement, read while the rules were asked about the file's
        own statements, are read again."""
        self.carrier = statement
        self._by_statement = None

    def included(self) -> list[FileFlows]:
        """The flows of the project headers the file includes (:mod:`.included_helpers`),
        then those of the library summaries (:mod:`.library_helpers`): looked in last, so a
        definition of the project's own always wins."""
        if self._included is None:
            self._included = []
            if self.path is not None:
                library = library_header()
                for header in [*included_headers(self.path, self.parsed.text),
                               *([library] if library is not None else [])]:
                    self._included.append(FileFlows(header.parsed, header.statements,
                                                    root=self, shapes=shapes_of(header),
                                                    library=header is library))
        return self._included

    def _defined(self, name: str, caller: FunctionFlow | None = None,
                 form: str | None = None, count: int | None = None,
                 klass: str = "") -> list[FunctionFlow]:
        """The definitions a call of ``name`` may reach (:func:`.call_lookup.definitions`)."""
        return definitions(self, name, caller, form, count, klass)

    def _helper(self, name: str, caller: FunctionFlow, depth: int, form: str | None = None,
                arguments: tuple[str, ...] = (), klass: str = ""
                ) -> tuple[FunctionFlow, list[Step], Opaque] | None:
        """The definition a call of ``name`` with ``arguments`` reaches, with its steps and
        unfollowed calls followed ``depth`` calls further; ``None`` where none is found, or
        the overloads a call with that many arguments may reach differ in the steps they take
        (which one is called is not known here)."""
        # a pack expansion (``d[I]...``) passes a number of arguments not known here
        count = None if any(a.endswith("...") for a in arguments) else len(arguments)
        candidates = self._defined(name, caller, form, count, klass)
        if not candidates:
            return None
        key = (name, depth, form, caller.member, count, klass)
        if key in self._helpers:  # the same definitions, wherever the call is
            return self._helpers[key]
        every: list[tuple[list[Step], Opaque]] = []
        for helper in candidates:
            composed = (helper.owner or self)._compose(helper, depth)
            if composed is None:
                return None  # a recursion: not followed
            every.append(composed)
        result: tuple[FunctionFlow, list[Step], Opaque] | None = None
        if len({tuple(s.kind for s in steps) for steps, _ in every}) == 1:
            inner = [o for _, o in every]
            result = candidates[0], every[0][0], inner[0] if len(inner) == 1 else Opaque([], inner)
        elif (keep := stepped_definition([c.node for c in candidates], every)) is not None:
            result = (candidates[keep], *every[keep])  # the real body beside #if stubs
        if caller not in self._index.named(name):
            self._helpers[key] = result
        return result

    def _compose(self, flow: FunctionFlow, depth: int) -> tuple[list[Step], Opaque] | None:
        """``flow``'s steps with those of the helpers it calls placed at each call, followed
        ``depth`` calls deep, and the calls it (or a followed helper) makes that are not
        followed; memoised per function and depth; ``None`` for a function already being
        followed (a recursion)."""
        key = (id(flow), depth)
        known = self._composed.get(key)
        if known is not None:
            return known
        if id(flow) in self._composing:
            return None
        self._structure(flow)
        self._composing.add(id(flow))
        try:
            steps = list(flow.own_steps)
            opaque = Opaque([], [], bool(flow.unreadable),
                            [(klass, self) for _, klass in flow.constructions])
            for start, end, name, arguments, form in flow.raw_calls:
                klass = self.class_of(flow, name, start, end, form)
                followed = self._helper(name, flow, depth - 1, form, arguments, klass) \
                    if depth > 0 else None
                if followed is None:
                    opaque.calls.append((name, form, klass, self, flow))
                    continue
                helper, inner_steps, inner_opaque = followed
                site = CallSite(start, end, name, arguments, helper,
                                flow.template_arguments.get(start, ()),
                                flow.call_class(start, end, form, receiver=True))
                for order, step in enumerate(inner_steps):
                    steps.append(Step(start, order, step.event, step.statement,
                                      step.instruction, site, step))
                if not inner_opaque.empty:
                    opaque.inner.append(inner_opaque)
            steps.sort(key=lambda s: (s.start, s.order))
        finally:
            self._composing.discard(id(flow))
        self._composed[key] = (steps, opaque)
        return steps, opaque

    def _follow(self, flow: FunctionFlow) -> None:
        """The function's steps and calls, its helpers followed :data:`FOLLOW_DEPTH` calls
        deep."""
        flow.calls = []
        flow.steps = list(flow.own_steps)
        for start, end, name, arguments, form in flow.raw_calls:
            self._composing.add(id(flow))
            try:
                followed = self._helper(name, flow, FOLLOW_DEPTH - 1, form, arguments,
                                        self.class_of(flow, name, start, end, form))
            finally:
                self._composing.discard(id(flow))
            flow.calls.append((start, end, name, followed is not None))
            if followed is None:
                continue
            helper, inner_steps, inner_opaque = followed
            site = CallSite(start, end, name, arguments, helper,
                            flow.template_arguments.get(start, ()),
                            flow.call_class(start, end, form, receiver=True))
            for order, step in enumerate(inner_steps):
                flow.steps.append(Step(start, order, step.event, step.statement,
                                       step.instruction, site, step))
            if not inner_opaque.empty:
                flow.hidden.append((start, inner_opaque))
        flow.calls.sort()
        flow.steps.sort(key=lambda s: (s.start, s.order))

    def _structure(self, flow: FunctionFlow) -> None:
        """The function's C++ structure, own steps and calls (no call followed)."""
        if not flow.body_read:
            self._read(flow)

    def _read(self, flow: FunctionFlow) -> None:
        flow.body_read = True
        body = self._index.shapes.body(flow.node, flow.recovered)
        if body is None:
            return
        # the shape's lists, shared by every flow of the function (never changed)
        flow.asm_ranges = body.asm_ranges
        flow.lambdas = body.lambdas
        flow.loops = body.loops
        flow.gotos = body.gotos
        flow.ifs = body.ifs
        flow.returns = body.returns
        flow._identifiers = body.identifiers
        flow.definitions = body.definitions
        flow.raw_calls = body.raw_calls
        flow.template_arguments = body.template_arguments
        flow.constructions = body.constructions
        parsed = self.parsed
        for statement in sorted(flow.statements, key=lambda s: s.span.start):
            start = parsed.to_byte(statement.span.start)
            if unreadable(statement):
                flow.unreadable.append(start)
            for order, (instruction, event) in enumerate(statement_events(statement)):
                flow.own_steps.append(Step(start, order, event, statement, instruction))

# One file's flows at a time, by its tree's identity (a file's statements are linted in turn)
_LAST: list[tuple[ParsedSource, FileFlows]] = []


def _first_index(trail: list[str], variable: str) -> str | None:
    """The first of two or more subscripts of ``variable`` an address's expressions (``trail``)
    spell, compacted."""
    return next((compact(subs[0]) for t in trail if len(subs := subscripts(t, variable)) > 1),
                None)


def flows_of(context: object, path: str | None = None) -> FileFlows | None:
    """The file's flows, from a rule context's tree and statements (``path``: the file's, where
    it has none); ``None`` without a tree."""
    parsed = getattr(context, "parsed", None)
    if not isinstance(parsed, ParsedSource):
        return None
    if _LAST and _LAST[0][0] is parsed:
        return _LAST[0][1]
    statements = tuple(getattr(context, "file_statements", ()))
    flows = FileFlows(parsed, statements, statements[0].source.path if statements else path)
    _LAST[:] = [(parsed, flows)]
    return flows


def steps_of_kind(
    context: object, statement: AsmStatement, kind: str
) -> Iterator[tuple[FunctionFlow, Step]]:
    """The steps of ``kind`` that ``statement`` takes (``FileFlows.steps_of``), in every
    function that reaches it; none without the file's tree. What each PTX6xx rule walks."""
    flows = flows_of(context)
    if flows is None:
        return
    for flow, step in flows.steps_of(statement):
        if step.kind == kind:
            yield flow, step


def _let_go() -> None:
    """Empty the flows of the file done, its headers' and their functions': they refer to each
    other (a function to its file's flows, a call to its callee), cycles that kept each file's
    tree alive until a collection (CUTLASS include/ with --preview: 1.04 million objects,
    0.6 s of collections). Nothing reads them after ``file_memos.release``: a new question
    builds the flows again."""
    done = [flows for _, flows in _LAST]
    _LAST.clear()
    while done:
        flows = done.pop()
        done.extend(flows._included or ())
        for function in flows._index.made():
            function.__dict__.clear()
        flows.__dict__.clear()


file_memos.register(_let_go)
