"""The class whose member function a call names, read off the calling function's tree.

A method is found by its name and its class: ``bars[s]->wait(phase)`` calls ``wait`` of the
class ``bars`` is declared with ([class.member.lookup]: the lookup is in the scope of the
object expression's class), ``NamedBarrier::sync(n, id)`` ``sync`` of ``NamedBarrier``. The
protocol flows (:mod:`.function_flow`) take that class to pick, among the definitions of the
name they find, those of that class: a library summary of a member function
(:mod:`.library_helpers`) applies only at a call whose class is known to be the summary's,
and of a project's overloads in several classes the one of the object's class is followed.

What is read, in the calling function only (its parameters and body, never another scope):

* a qualified call: the part before the function's name (``cute::SM90_TMA_STORE_2D::copy``:
  ``SM90_TMA_STORE_2D``), through an alias the function declares (a name it aliases twice,
  as the two arms of an ``if constexpr`` do, through neither); a namespace reads the same,
  and matches no class's method;
* a member call: the object expression's class: a variable's declared type (a pointer, a
  reference, an array or an element of one: ``Barrier* full[4]``, ``full[s]->wait()``), an
  ``auto`` variable's initializer's, a temporary's (``NamedBarrier(128).sync()``), ``this``
  the calling method's own class; through the aliases the function declares (``using Barrier
  = cutlass::arch::ClusterTransactionBarrier;``, ``typedef``).

A type's class is its last ``::`` part without template arguments (``cute::Tensor<E, L>``:
``Tensor``). "" where none is read (a data member's type, a call's result, a template
parameter): the flows then look the name up as before, by its name alone.
"""

from __future__ import annotations

import tree_sitter

from ptxlint.analysis.flow_syntax import declared, function_name, scope_name
from ptxlint.frontends.syntax_tree import ParsedSource

__all__ = ["CallClasses"]

Node = tree_sitter.Node

_DECLARES = frozenset({"declaration", "parameter_declaration", "optional_parameter_declaration"})
_ALIASES = frozenset({"alias_declaration", "type_definition"})
_MAX_HOPS = 4  # aliases and ``auto`` initializers followed, at most


class CallClasses:
    """The classes of one function's calls; its declarations read on the first member call
    asked about."""

    __slots__ = ("_aliases", "_function", "_own", "_parsed", "_types")

    def __init__(self, parsed: ParsedSource, function: Node, own_class: str) -> None:
        """``function``: the definition (or the block of one recovered from the text);
        ``own_class``: the class it is a method of, "" for a free function."""
        self._parsed = parsed
        self._function = function
        self._own = own_class
        self._types: dict[str, Node | None] | None = None
        self._aliases: dict[str, Node | None] = {}  # None: a name aliased twice

    def of_call(self, start: int, end: int, form: str) -> str:
        """The class of the call at bytes ``[start, end)`` of ``form``
        (:func:`.flow_syntax.call_form`); "" where it is not read."""
        if form == "plain":
            return ""
        function = self._callee(start, end)
        if function is None:
            return ""
        if form == "qualified":  # `Store::copy()` with `using Store = cute::SM90_TMA_STORE_2D;`
            return self._class_named(scope_name(self._parsed.node_text(function)), 0)
        target = self._receiver(function)
        return self._object_class(target, 0) if target is not None else ""

    def receiver(self, start: int, end: int) -> str:
        """The object expression of the member call at ``[start, end)`` (``full[s]`` of
        ``full[s]->wait(p)``): what ``this`` is in the method it calls; "" for another call."""
        function = self._callee(start, end)
        target = self._receiver(function) if function is not None else None
        return self._parsed.node_text(target) if target is not None else ""

    def _callee(self, start: int, end: int) -> Node | None:
        call = self._function.descendant_for_byte_range(start, end)
        while call is not None and not (call.type == "call_expression"
                                        and call.start_byte == start and call.end_byte == end):
            call = call.parent
        return call.child_by_field_name("function") if call is not None else None

    @staticmethod
    def _receiver(function: Node) -> Node | None:
        if function.type == "template_function":
            name = function.child_by_field_name("name")
            if name is None:
                return None
            function = name
        return function.child_by_field_name("argument") \
            if function.type == "field_expression" else None

    def _object_class(self, node: Node, hops: int) -> str:
        kind = node.type
        while kind in ("subscript_expression", "pointer_expression",
                       "parenthesized_expression"):
            inner = node.child_by_field_name("argument") if kind != "parenthesized_expression" \
                else (node.named_children[0] if node.named_children else None)
            if inner is None:
                return ""
            node, kind = inner, inner.type
        if kind == "this":
            return self._own
        if kind == "call_expression":  # a temporary: `NamedBarrier(n).sync()`
            function = node.child_by_field_name("function")
            return self._class_named(function_name(self._parsed.node_text(function)), hops) \
                if function is not None and function.type in (
                    "identifier", "qualified_identifier", "template_function") else ""
        if kind != "identifier" or hops >= _MAX_HOPS:
            return ""
        if self._types is None:
            self._read_declarations()
        assert self._types is not None
        declaration = self._types.get(self._parsed.node_text(node))
        if declaration is None:
            return ""
        type_node = declaration.child_by_field_name("type")
        if type_node is not None and type_node.type == "placeholder_type_specifier":
            value = _initializer(declaration)  # `auto& fb = *full[s];`: the value's class
            return self._object_class(value, hops + 1) if value is not None else ""
        return self._class_of_type(type_node, hops)

    def _class_of_type(self, type_node: Node | None, hops: int) -> str:
        while type_node is not None and type_node.type == "type_descriptor":
            type_node = type_node.child_by_field_name("type")
        if type_node is None or type_node.type not in (
                "type_identifier", "qualified_identifier", "template_type"):
            return ""
        return self._class_named(function_name(self._parsed.node_text(type_node)), hops)

    def _class_named(self, name: str, hops: int) -> str:
        if self._types is None:
            self._read_declarations()
        if name not in self._aliases or hops >= _MAX_HOPS:
            return name
        alias = self._aliases[name]
        if alias is None:
            return ""  # aliased in two scopes (`if constexpr` arms): which one applies is not read
        return self._class_of_type(alias.child_by_field_name("type") if alias.type ==
                                   "alias_declaration" else _typedef_type(alias), hops + 1)

    def _read_declarations(self) -> None:
        """Each name's one declaration in the function (a name declared twice: none), and the
        aliases it declares (one declared twice: none, as a variable), by one walk that skips
        asm statements."""
        types: dict[str, Node | None] = {}
        stack = [self._function]
        while stack:
            node = stack.pop()
            kind = node.type
            if kind == "gnu_asm_expression":
                continue
            if kind in _ALIASES:
                name = _alias_name(node)
                if name is not None:
                    text = self._parsed.node_text(name)
                    self._aliases[text] = None if text in self._aliases else node
                continue
            if kind in _DECLARES:
                for declarator in node.children_by_field_name("declarator"):
                    ident = declared(declarator)
                    if ident is not None:
                        text = self._parsed.node_text(ident)
                        types[text] = None if text in types else node
            stack.extend(node.named_children)
        self._types = types


def _initializer(declaration: Node) -> Node | None:
    for declarator in declaration.children_by_field_name("declarator"):
        if declarator.type == "init_declarator":
            return declarator.child_by_field_name("value")
    return None


def _alias_name(node: Node) -> Node | None:
    if node.type == "alias_declaration":
        return node.child_by_field_name("name")
    declarators = node.children_by_field_name("declarator")
    return declarators[0] if len(declarators) == 1 and \
        declarators[0].type == "type_identifier" else None


def _typedef_type(node: Node) -> Node | None:
    return node.child_by_field_name("type")
