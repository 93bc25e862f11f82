"""Whether a function's local variable lives in its thread's own memory (automatic storage).

``__cvta_generic_to_shared(&x)`` is a shared-window address only where ``x`` is in shared
memory. An automatic local (``uint64_t bar;`` in a function body, no ``__shared__``) lives in
registers or local memory: the PTX ISA leaves ``cvta.to.shared`` undefined for an address
outside the shared window, so an mbarrier or ``ld.shared`` on the result uses an address that
is no shared memory of the CTA (uccl's ``ukernel`` kept an mbarrier on the stack this way).

Only a declaration that plainly says so counts: its specifiers are a type and ``const``,
``volatile`` or ``alignas``, nothing the parse left out sits on its line (a specifier macro
such as ``SMEM uint64_t bar;`` may expand to ``__shared__``), and the tree has no error in it.
Anything else (``static``, ``extern``, ``__shared__``, ``__constant__``, an attribute, a word
the grammar did not read as a type, a pointer or reference declarator) is not known to be
automatic.
"""

from __future__ import annotations

import tree_sitter

from ptxlint.frontends.syntax_tree import ParsedSource

# the declaration's children that say nothing about where the variable lives
_TYPES = frozenset({
    "primitive_type", "sized_type_specifier", "type_identifier", "qualified_identifier",
    "template_type",
})
_DECLARATORS = frozenset({"identifier", "init_declarator", "array_declarator"})


def _declared_name(declarator: tree_sitter.Node) -> tree_sitter.Node | None:
    """The identifier a declarator of a declaration declares through initializers and array
    bounds only; None through a pointer, reference or function declarator."""
    node: tree_sitter.Node | None = declarator
    while node is not None and node.type in ("init_declarator", "array_declarator"):
        node = node.child_by_field_name("declarator")
    return node if node is not None and node.type == "identifier" else None


def automatic_declaration(parsed: ParsedSource, declaration: tree_sitter.Node) -> bool:
    """``declaration`` (a ``declaration`` node inside a function body) declares automatic
    variables only, by what it spells (see the module)."""
    if declaration.type != "declaration" or declaration.has_error:
        return False
    types = 0
    for child in declaration.children:
        kind = child.type
        if kind in _TYPES:
            types += 1
        elif kind == "type_qualifier":
            word = parsed.node_text(child)
            if word not in ("const", "volatile") and not word.startswith("alignas"):
                return False  # __shared__, __constant__, __restrict__...
        elif kind in _DECLARATORS:
            if _declared_name(child) is None:
                return False  # a pointer or a reference: what it points at or names lives on
        elif kind not in (",", ";"):
            return False  # a storage class, an attribute
    if types != 1:
        return False
    data = parsed.data
    line = data.rfind(b"\n", 0, declaration.start_byte) + 1
    return not any(start < declaration.end_byte and end > line for start, end in parsed.skipped)
