"""A function definition as value flow (``value_flow``) reads it: its name, its parameters
(which are pointers, which references) read off its own declarator, and the per-name facts value
flow fills on first use (what each variable is given, what it declares, its ``return``
expressions)."""

from __future__ import annotations

import tree_sitter

from ptxlint.analysis.value_syntax import name_of_declarator
from ptxlint.frontends.syntax_tree import ParsedSource, own_function_declarator

__all__ = ["Assigned", "Function", "describe"]

# What an assignment gives a variable: an expression node, or one of value flow's markers.
Assigned = tree_sitter.Node | str


class Function:
    """A function definition, indexed on first use: what each variable is given (per name,
    once). (A plain class: a data class costs about 0.3 ms of CPU to create at every start, and
    nothing compares or prints this one.)"""

    __slots__ = (
        "node", "name", "params", "assigned", "returns", "param_index", "declared",
        "declared_references", "array_ranks",
    )

    def __init__(
        self, node: tree_sitter.Node, name: str | None, params: list[tuple[str | None, bool]]
    ) -> None:
        self.node = node
        self.name = name
        self.params = params  # (name, declared as a pointer)
        self.assigned: dict[str, tuple[list[Assigned], bool]] = {}
        self.returns: list[tree_sitter.Node] | None = None
        # parameter name -> its position (the first, should two share a name)
        self.param_index: dict[str, int] = {}
        self.declared: set[str] = set()  # names it declares itself (value flow's assignments)
        self.declared_references: set[str] = set()  # ... as references, parameters included
        self.array_ranks: dict[str, int] = {}  # ... as arrays: their fewest dimensions
        for i, (param, _) in enumerate(params):
            if param is not None:
                self.param_index.setdefault(param, i)


def describe(parsed: ParsedSource, node: tree_sitter.Node) -> Function:
    """Function definition ``node``, its name and parameters read."""
    parsed.reads(node.start_byte, node.end_byte)  # its parameters and returns
    # the function's own declarator: through a returned reference, and not the list of a
    # returned function pointer (`void (*f(int a))(float)`: `a` is f's)
    declarator = own_function_declarator(node.child_by_field_name("declarator"))
    name = None
    params: list[tuple[str | None, bool]] = []
    references: set[str] = set()
    if declarator is not None:
        inner = declarator.child_by_field_name("declarator")
        while inner is not None and inner.type in ("qualified_identifier", "template_function"):
            inner = inner.child_by_field_name("name")
        if inner is not None and inner.type in ("identifier", "field_identifier"):
            name = parsed.node_text(inner)
        plist = declarator.child_by_field_name("parameters")
        for param in plist.named_children if plist is not None else ():
            if param.type not in ("parameter_declaration", "optional_parameter_declaration"):
                continue
            pname, pointer, array = name_of_declarator(
                parsed, param.child_by_field_name("declarator")
            )
            params.append((pname, pointer or array))
            if pname is not None and "reference_declarator" in _declarator_kinds(
                param.child_by_field_name("declarator")
            ):
                references.add(pname)
    fn = Function(node, name, params)
    fn.declared_references.update(references)
    return fn


def _declarator_kinds(node: tree_sitter.Node | None) -> set[str]:
    """The kinds of the declarators nested in ``node`` down to its name."""
    kinds = set()
    while node is not None and node.type.endswith("declarator"):
        kinds.add(node.type)
        node = node.child_by_field_name("declarator") or next(
            (c for c in node.named_children if c.type.endswith("declarator")), None
        )
    return kinds
