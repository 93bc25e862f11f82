"""The pieces of C++ syntax value flow (``value_flow``) reads off a tree-sitter tree: the name a
declarator declares (and whether it declares a pointer or an array), the declarator that
declares a name, the simple name a call calls with its template arguments, and a call's
arguments."""

from __future__ import annotations

import tree_sitter

from ptxlint.analysis.address_masks import CASTS, INT64
from ptxlint.frontends.syntax_tree import ParsedSource

__all__ = [
    "arguments", "array_rank", "callee", "declaring_declarator", "member_callee",
    "name_of_declarator", "offsets_itself",
]


def name_of_declarator(
    parsed: ParsedSource, node: tree_sitter.Node | None
) -> tuple[str | None, bool, bool]:
    """(name, is_pointer, is_array) of a declarator. Its text is read through ``parsed``: a
    node's own ``text`` is unknown on a tree edited but not parsed again (``positions``)."""
    pointer = array = False
    while node is not None:
        if node.type in ("identifier", "field_identifier"):
            return parsed.node_text(node) or None, pointer, array
        if node.type == "pointer_declarator":
            pointer = True
        elif node.type == "array_declarator":
            array = True
        elif node.type not in (
            "reference_declarator",
            "init_declarator",
            "parenthesized_declarator",
            "type_qualifier",
        ):
            return None, pointer, array
        inner = node.child_by_field_name("declarator")
        if inner is None:  # reference_declarator keeps its declarator as a plain child
            inner = next(
                (
                    c
                    for c in node.named_children
                    if "declarator" in c.type or c.type == "identifier"
                ),
                None,
            )
        node = inner
    return None, pointer, array


def declaring_declarator(node: tree_sitter.Node) -> tuple[tree_sitter.Node | None, bool, bool]:
    """The declarator that declares identifier ``node`` (its init_declarator when it has a
    value) and whether it declares a pointer or an array; None when ``node`` is a use, not
    the declared name."""
    pointer = array = False
    current = node
    while current.parent is not None:
        parent = current.parent
        if parent.type == "declaration":
            return current, pointer, array
        if parent.type == "init_declarator":
            if parent.child_by_field_name("declarator") != current:
                return None, False, False
            return parent, pointer, array
        if parent.type == "pointer_declarator":
            pointer = True
        elif parent.type == "array_declarator":
            if parent.child_by_field_name("declarator") != current:
                return None, False, False
            array = True
        elif parent.type not in ("reference_declarator", "parenthesized_declarator"):
            return None, False, False
        current = parent
    return None, False, False


def array_rank(node: tree_sitter.Node) -> int:
    """How many array dimensions the declarator around identifier ``node`` gives it before any
    pointer: ``T a[2][64]`` 2, ``T *p[4]`` 1 (an array of pointers), ``T (*p)[4]`` 0 (a
    pointer to an array)."""
    rank = 0
    current = node
    parent = current.parent
    while (
        parent is not None
        and parent.type == "array_declarator"
        and parent.child_by_field_name("declarator") == current
    ):
        rank += 1
        current, parent = parent, parent.parent
    return rank


def callee(
    parsed: ParsedSource, node: tree_sitter.Node
) -> tuple[str | None, tree_sitter.Node | None]:
    """The simple name a call_expression calls, and its template arguments when written."""
    function = node.child_by_field_name("function")
    targs = None
    while function is not None:
        if function.type in ("identifier", "primitive_type", "type_identifier"):
            return parsed.node_text(function) or None, targs
        if function.type == "template_function":
            targs = function.child_by_field_name("arguments")
            function = function.child_by_field_name("name")
            continue
        if function.type == "qualified_identifier":
            function = function.child_by_field_name("name")
            continue
        return None, None
    return None, None


def member_callee(parsed: ParsedSource, node: tree_sitter.Node) -> str | None:
    """The member a call calls through an object: ``f`` of ``o.f(x)``, ``p->f(x)``,
    ``this->f<N>(x)``, ``o.template f<N>(x)``; None for another call."""
    function = node.child_by_field_name("function")
    field = function.child_by_field_name("field") if function is not None and (
        function.type == "field_expression"
    ) else None
    if field is not None and field.type == "dependent_name":
        field = next(iter(field.named_children), None)
    if field is not None and field.type == "template_method":
        field = field.child_by_field_name("name")
    if field is None or field.type != "field_identifier":
        return None
    return parsed.node_text(field) or None


def arguments(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    args = node.child_by_field_name("arguments")
    return list(args.named_children) if args is not None else []


def offsets_itself(parsed: ParsedSource, node: tree_sitter.Node, name: str) -> bool:
    """Expression ``node`` is variable ``name`` plus an offset: ``p + i``, ``i + p``, ``p - i``,
    ``&p[i]``, through parentheses, pointer casts and casts to a 64-bit integer
    (``(T*)((char*)p + n)``, ``reinterpret_cast<uintptr_t>(p) + n``), none of which moves an
    address out of its window; not through a 32-bit cast, which truncates it."""
    while True:
        kind = node.type
        inner: tree_sitter.Node | None = None
        if kind == "identifier":
            return parsed.node_text(node) == name
        if kind == "parenthesized_expression" and node.named_child_count == 1:
            inner = node.named_children[0]
        elif kind == "cast_expression":
            type_node = node.child_by_field_name("type")
            spelling = " ".join(parsed.node_text(type_node).split()) if type_node else ""
            if spelling.endswith("*") or INT64().match(spelling):
                inner = node.child_by_field_name("value")
        elif kind == "call_expression":
            function, targs = callee(parsed, node)
            args = arguments(node)
            spelling = " ".join(parsed.node_text(targs)[1:-1].split()) if targs else ""
            if function in CASTS and len(args) == 1 and (
                spelling.endswith("*") or INT64().match(spelling)
            ):
                inner = args[0]
        elif kind == "binary_expression":
            op = node.child_by_field_name("operator")
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            if op is None or left is None or right is None or op.type not in ("+", "-"):
                return False
            if op.type == "+" and offsets_itself(parsed, right, name):
                return True
            inner = left
        elif kind == "pointer_expression":
            op = node.child_by_field_name("operator")
            argument = node.child_by_field_name("argument")
            if op is not None and op.type == "&" and argument is not None and (
                argument.type == "subscript_expression"
            ):
                inner = argument.child_by_field_name("argument")
        if inner is None:
            return False
        node = inner


def same_node(a: tree_sitter.Node, b: tree_sitter.Node) -> bool:
    """``a`` and ``b`` are one node of the text: by where they are and what, not by ``id``. The
    language server's re-lint reads a tree edited, not parsed again (``ParsedSource.positions``):
    one node of it may be reached as two of distinct ids, one of them the unedited copy's (a
    function whose declarations then seemed another's lost what they gave it)."""
    return a.start_byte == b.start_byte and a.end_byte == b.end_byte and a.type == b.type
