"""Which CUDA built-in variable (``threadIdx``, ``blockDim``, ``warpSize``...) an operand
expression reads when it runs: its value is known only then, so an immediate (``"n"``) cannot
take it (PTX010).

Read on the expression's tree (``syntax_tree.parse_expression``, kept per text): a member
(``cfg.blockDim``, ``p->threadIdx``) or another scope's name (``ns::threadIdx``) is not the
built-in, and an operand of ``sizeof``, ``alignof``, ``decltype``, ``noexcept`` or ``typeid``
is never evaluated (``sizeof(threadIdx.x)`` is a constant), while the rest of the expression
is (``threadIdx.x + sizeof(T)`` reads ``threadIdx``). The text is read only where it does not
parse."""

from __future__ import annotations

from functools import lru_cache

import tree_sitter

from ptxlint.frontends.cxx.c_types import BUILTIN_VARIABLES
from ptxlint.frontends.syntax_tree import expression_text, parse_expression
from ptxlint.lazy_regex import on_first_use

__all__ = ["runtime_builtin"]

Node = tree_sitter.Node

# subtrees never evaluated: the unevaluated operators' operands, types, literals, comments
_UNEVALUATED = frozenset({"sizeof_expression", "alignof_expression", "decltype",
                          "type_descriptor", "comment", "string_literal", "raw_string_literal",
                          "concatenated_string", "char_literal", "number_literal"})
# the unevaluated operators the grammar reads as calls (``noexcept(e)``, ``typeid(e)``)
_UNEVALUATED_CALLS = frozenset({"noexcept", "typeid"})
_BUILTIN = on_first_use(rf"(?<![\w.>:])({'|'.join(BUILTIN_VARIABLES)})\b")
_UNEVALUATED_WORD = on_first_use(
    r"\b(sizeof|alignof|_Alignof|__alignof__|decltype|noexcept|typeid)\b")


@lru_cache(maxsize=4096)
def runtime_builtin(expression: str) -> str | None:
    """The first CUDA built-in variable ``expression`` evaluates, in the order it is written;
    ``None`` where it evaluates none."""
    # every built-in's name holds one of these: most expressions have none, and then none is
    # parsed (4,825 "n" operands over CUTLASS's include/)
    if "Idx" not in expression and "Dim" not in expression and "warpSize" not in expression:
        return None
    node = parse_expression(expression)
    if node is None:
        return _in_text(expression)
    stack = [node]
    while stack:
        current = stack.pop()
        kind = current.type
        if kind in _UNEVALUATED or kind == "call_expression" and _unevaluated_call(current):
            continue
        if kind == "identifier" and expression_text(current) in BUILTIN_VARIABLES and \
                _unqualified(current):
            return expression_text(current)
        stack.extend(reversed(current.named_children))
    return None


def _unevaluated_call(call: Node) -> bool:
    function = call.child_by_field_name("function")
    return function is not None and function.type == "identifier" and \
        expression_text(function) in _UNEVALUATED_CALLS


def _unqualified(identifier: Node) -> bool:
    """Not a name of another scope (``ns::threadIdx``); the global one's (``::threadIdx``) is
    the built-in."""
    parent = identifier.parent
    return parent is None or parent.type != "qualified_identifier" or \
        parent.child_by_field_name("scope") is None



def _in_text(expression: str) -> str | None:
    """:func:`runtime_builtin` of a text that does not parse: a built-in's name not after a
    ``.``, ``->`` or ``::``, in a text without an unevaluated operator."""
    if _UNEVALUATED_WORD().search(expression):
        return None
    found = _BUILTIN().search(expression)
    return found.group(1) if found else None
