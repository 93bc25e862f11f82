"""Whether the address an asm operand binds is the same in every lane of a warp.

The divergence classifier (``divergence.Classifier``) says of a C++ value whether the lanes of
a warp hold the same one (``UNIFORM``), the thread or lane index, or something else. Read as
an address it needs three more facts, each one that holds in every lane alike:

* a ``__shared__`` variable declared in the function or at namespace scope has one address
  in the block: an array's name (``tile``, which decays to its address) and ``&x`` of any such
  variable are ``UNIFORM``; ``&a[i]`` is its base's kind joined with its index's (a lane-
  varying index gives a lane-varying address);
* a conversion of a value (``__cvta_generic_to_shared``, ``static_cast``, CuTe's
  ``cast_smem_ptr_to_uint``) has that value's kind;
* a local counts as ``UNIFORM`` only where it is defined once (its initializer or one
  assignment), at a point every lane of a warp reaches together (``divergence.whole_warps``):
  ``int off = 0; if (lane < 8) off = 64;`` differs from lane to lane though both values are
  constants, and a local stepped in a loop is the loop's business;
* a parameter the function assigns to (``p += threadIdx.x * 8``) is unknown; a
  ``__device__`` function's parameter is ``UNIFORM`` where the file calls the function and
  every call passes a value the caller reads as ``UNIFORM`` (one call level up, through
  ``FileFlows.callers``: a name that names one definition); a function no call of the file
  reaches keeps its parameter unknown.

Anything else keeps the classifier's answer.

Read by PTX612 (``ldmatrix``/``stmatrix`` row addresses).
"""

from __future__ import annotations

import tree_sitter

from ptxlint.analysis.divergence import Classifier, Kind, whole_warps
from ptxlint.analysis.flow_syntax import function_name
from ptxlint.analysis.function_flow import FileFlows, FunctionFlow
from ptxlint.model import Operand

__all__ = ["AddressClassifier", "operand_kind", "shared_local"]

Node = tree_sitter.Node

# calls whose result is their (first) argument converted: the same in every lane where it is
_CONVERSIONS = frozenset(
    "__cvta_generic_to_shared __cvta_shared_to_generic __cvta_generic_to_global cvta_to_shared "
    "static_cast reinterpret_cast const_cast cast_smem_ptr_to_uint smem_ptr_to_uint "
    "uint32_t uint64_t unsigned uintptr_t size_t".split())
_DECLARATORS = frozenset({"array_declarator", "parenthesized_declarator", "pointer_declarator",
                          "init_declarator", "reference_declarator"})


class AddressClassifier(Classifier):
    """The divergence classifier, reading addresses: ``__shared__`` variables, ``&``,
    conversions, and locals only where defined once by whole warps (module docstring)."""

    def __init__(self, flows: FileFlows, flow: FunctionFlow, call_depth: int = 0) -> None:
        super().__init__(flows, flow, call_depth)
        self._names: dict[str, Kind] = {}
        # the parameters read as UNIFORM through the function's calls (``_passed``)
        self.passed: list[str] = []

    def value(self, node: Node | None, depth: int = 0) -> Kind:
        if node is not None and node.type == "pointer_expression":
            operator = node.child_by_field_name("operator")
            if operator is not None and operator.type == "&":
                return self.address(node.child_by_field_name("argument"), depth)
            return Kind.UNKNOWN  # `*p`: what memory holds
        if node is not None and node.type == "subscript_expression":
            base: Node | None = node
            subscripts = 0
            while base is not None and base.type == "subscript_expression":
                base, subscripts = base.child_by_field_name("argument"), subscripts + 1
            if base is not None and base.type == "identifier" and \
                    self._shared_rank(self.flow.text(base)) > subscripts:
                return self.address(node, depth)  # `tile[w]` of `tile[4][64]`: a row's address
        return super().value(node, depth)

    def address(self, node: Node | None, depth: int) -> Kind:
        """The kind of ``&node``: a ``__shared__`` variable's address, an element's of an
        array or pointer (its base's kind joined with its index's), else unknown."""
        if node is None or depth > 6:
            return Kind.UNKNOWN
        if node.type == "parenthesized_expression" and node.named_children:
            return self.address(node.named_children[0], depth + 1)
        if node.type == "identifier":
            return Kind.UNIFORM if self._shared_rank(self.flow.text(node)) >= 0 \
                else Kind.UNKNOWN
        if node.type == "subscript_expression":
            base = node.child_by_field_name("argument")
            index = node.child_by_field_name("indices") or node.child_by_field_name("index")
            if base is None or index is None:
                return Kind.UNKNOWN
            # `a[i][j]`: the row's address; `p[i]`: the pointer's value
            base_kind = self.address(base, depth + 1) if base.type == "subscript_expression" \
                else self.value(base, depth + 1)
            kinds = [base_kind] + [self.value(i, depth + 1) for i in index.named_children]
            if any(k in (Kind.TID, Kind.LANE, Kind.BITS, Kind.VARYING) for k in kinds):
                return Kind.VARYING
            return Kind.UNIFORM if all(k is Kind.UNIFORM for k in kinds) else Kind.UNKNOWN
        return Kind.UNKNOWN

    def name(self, name: str, depth: int) -> Kind:
        flow = self.flow
        if name in flow.parameters and name not in flow.template_parameters:
            if flow.values_of(name):
                return Kind.UNKNOWN  # `p += threadIdx.x * 8`: no longer what was passed
            if not flow.kernel:
                return self._passed(name)
        if name in flow.template_parameters or name in flow.parameters or name == "warpSize":
            return super().name(name, depth)
        known = self._names.get(name)
        if known is not None:
            return known
        self._names[name] = Kind.UNKNOWN  # a cycle: unknown
        values = flow.values_of(name)
        if not values:
            result = Kind.UNIFORM if self._shared_rank(name) > 0 else super().name(name, 0)
        else:
            # each name read afresh (the memo holds one answer a name, whatever the depth)
            result = super().name(name, 0)
            if result is Kind.UNIFORM and (len(values) != 1 or values[0] is None
                                           or not whole_warps(self.flows, flow,
                                                              values[0].start_byte)):
                result = Kind.UNKNOWN
        self._names[name] = result
        return result

    def _passed(self, name: str) -> Kind:
        """A ``__device__`` function's parameter: ``UNIFORM`` where the file calls the function
        and every call passes a value its caller reads as ``UNIFORM`` (one call level up: the
        caller's own parameters count only where it is a kernel); unknown otherwise."""
        known = self._names.get(name)
        if known is not None:
            return known
        result = self._names[name] = Kind.UNKNOWN
        flow = self.flow
        if self.call_depth == 0:
            index = flow.parameters.index(name)
            sites = self.flows.callers(flow)
            kinds = [_argument_kind(self.flows, caller, start, end, index,
                                    len(flow.parameters))
                     for caller, start, end in sites]
            if kinds and all(k is Kind.UNIFORM for k in kinds):
                result = self._names[name] = Kind.UNIFORM
                self.passed.append(name)
        return result

    def call(self, node: Node, depth: int) -> Kind:
        kind = super().call(node, depth)
        if kind is not Kind.UNKNOWN:
            return kind
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        args = arguments.named_children if arguments is not None else []
        if function is None or len(args) != 1:
            return kind
        if function_name(self.flow.text(function)) in _CONVERSIONS:
            return self.value(args[0], depth)
        return kind

    def _shared_rank(self, name: str) -> int:
        """How many array dimensions ``name`` has where it is a ``__shared__`` variable
        declared in this function, or, where the function declares no ``name``, at namespace
        scope (every declaration of it there one, of one rank); -1 for anything else."""
        flow = self.flow
        declarations = _declarations(flow.parsed.data, flow.node, name, inside=True)
        if not declarations:
            root = flow.node
            while root.parent is not None:
                root = root.parent
            declarations = _declarations(flow.parsed.data, root, name, inside=False)
        ranks = {rank for shared, rank in declarations if shared}
        return ranks.pop() if len(ranks) == 1 and all(s for s, _ in declarations) else -1


def shared_local(flow: FunctionFlow, name: str) -> bool:
    """``name`` is a ``__shared__`` variable the function itself declares, and nothing else
    of that name is declared in it (a parameter, a local): an object that holds no value when
    the kernel starts, which nothing outside the function can reach before it runs."""
    declarations = _declarations(flow.parsed.data, flow.node, name, inside=True)
    return bool(declarations) and all(shared for shared, _ in declarations)


def _argument_kind(flows: FileFlows, caller: FunctionFlow, start: int, end: int, index: int,
                   count: int) -> Kind:
    """The kind of argument ``index`` of the call at ``start``..``end`` of ``caller``, read one
    call level up; unknown where the call does not pass ``count`` arguments (a default)."""
    node: Node | None = caller.node.descendant_for_byte_range(start, end)
    while node is not None and node.type != "call_expression" and node.start_byte >= start:
        node = node.parent
    if node is None or node.type != "call_expression":
        return Kind.UNKNOWN
    arguments = node.child_by_field_name("arguments")
    args = [a for a in arguments.named_children if a.type != "comment"] \
        if arguments is not None else []
    if len(args) != count:
        return Kind.UNKNOWN
    return AddressClassifier(flows, caller, call_depth=1).value(args[index])


def _declarations(data: bytes, within: Node, name: str,
                  inside: bool) -> list[tuple[bool, int]]:
    """Each declaration of ``name`` in ``within`` (``inside``: in its body; otherwise outside
    every function): whether it is ``__shared__`` and its array rank (0: no array). A
    parameter or any other declarator counts, as not shared."""
    found: list[tuple[bool, int]] = []
    word = name.encode()
    at = data.find(word, within.start_byte, within.end_byte)
    while at >= 0:
        node = within.descendant_for_byte_range(at, at + len(word))
        if node is not None and node.type == "identifier" and node.start_byte == at \
                and node.end_byte == at + len(word):
            holder, rank = node.parent, 0
            while holder is not None and holder.type in _DECLARATORS:
                rank += holder.type == "array_declarator"
                holder = holder.parent
            if holder is not None and holder.type in ("declaration", "parameter_declaration",
                                                      "field_declaration") \
                    and (inside or not _in_function(holder)):
                shared = holder.type == "declaration" and any(
                    c.type == "type_qualifier" and data[c.start_byte:c.end_byte] == b"__shared__"
                    for c in holder.children)
                found.append((shared, rank))
        at = data.find(word, at + len(word), within.end_byte)
    return found


def _in_function(node: Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type in ("function_definition", "lambda_expression"):
            return True
        parent = parent.parent
    return False


def operand_kind(flows: FileFlows, flow: FunctionFlow,
                 operand: Operand) -> tuple[Kind, tuple[str, ...]]:
    """The kind of the value ``operand`` binds, in ``flow`` (``UNKNOWN`` where its expression
    is not one node of the function's tree: a macro's argument, a recovered function), and
    the parameters of ``flow`` it was read through, as every call of ``flow`` passes them."""
    parsed = flows.parsed
    start = parsed.to_byte(operand.expression_span.start)
    end = parsed.to_byte(operand.expression_span.end)
    node = flow.node.descendant_for_byte_range(start, end)
    if node is None or node.start_byte != start or node.end_byte != end:
        return Kind.UNKNOWN, ()
    classifier = AddressClassifier(flows, flow)
    return classifier.value(node), tuple(classifier.passed)
