"""Which names of an operand expression a C++ look-up is asked about: the evaluated names of
an immediate (``"n"``) operand, which ``cxx_facts.FunctionFacts.non_constant`` looks up
(PTX010), and the variable an output operand's lvalue is made from, whose prior value
``FunctionFacts.prior_value`` judges (PTX103).

Both read the expression's tree (``syntax_tree.parse_expression``, kept per text), where the
words of its text were read with patterns that took a hex literal's digits, a literal's suffix,
a type in a cast or a comment's words for names; the words are read only where the text does
not parse."""

from __future__ import annotations

from functools import lru_cache

import tree_sitter

from ptxlint.frontends.syntax_tree import expression_text, parse_expression
from ptxlint.lazy_regex import on_first_use

__all__ = ["INTEGRAL_TYPEDEFS", "INTEGRAL_WORDS", "evaluated_names", "lvalue_base",
           "names_variables"]

Node = tree_sitter.Node

INTEGRAL_WORDS = frozenset(
    "char short int long signed unsigned bool wchar_t char16_t char32_t char8_t __int128".split()
)
INTEGRAL_TYPEDEFS = frozenset(
    f"{p}{t}"
    for p in ("", "std::", "::")
    for t in (
        "size_t ptrdiff_t intptr_t uintptr_t ssize_t int8_t int16_t int32_t int64_t uint8_t "
        "uint16_t uint32_t uint64_t uint unsigned_int"
    ).split()
)
_UNEVALUATED = on_first_use(r"\b(?:sizeof|alignof|_Alignof|__alignof__|decltype|noexcept|typeid)\b")
_IDENTIFIER = on_first_use(r"[A-Za-z_]\w*")
_BASE = on_first_use(r"\s*(?:\(\s*)*([A-Za-z_]\w*)\s*(?:\)\s*)*(\[|\.(?!\.)|->|$)")
# Words that never name a variable: literals, the casts, the built-in type keywords, and the
# operators whose operand is unevaluated (their operand is blanked, the word itself is not).
_KEYWORDS = INTEGRAL_WORDS | frozenset(
    "true false nullptr this static_cast reinterpret_cast const_cast dynamic_cast float double "
    "void auto sizeof alignof _Alignof __alignof__ decltype noexcept typeid".split()
)


def names_variables(expression: str) -> bool:
    """Whether ``expression`` has an evaluated name ``non_constant`` would look up: without
    one (``"n"(16)``, ``"n"(sizeof(T))``) there is no need to read the function's facts."""
    return bool(evaluated_names(expression))


# subtrees of an expression that hold no evaluated variable: the unevaluated operators'
# operands, types, template arguments (constants, or types), another scope's names
# (``Cfg::kTile``, ``ns::x``), members, literals, comments and lambdas
_NO_EVALUATED_NAMES = frozenset({
    "sizeof_expression", "alignof_expression", "decltype", "type_descriptor",
    "template_argument_list", "qualified_identifier", "field_identifier", "comment",
    "string_literal", "raw_string_literal", "concatenated_string", "char_literal",
    "lambda_expression"})
# the unevaluated operators the grammar reads as calls (``noexcept(e)``, ``typeid(e)``)
_UNEVALUATED_CALLS = frozenset({"noexcept", "typeid"})
# a call of a function by its name (the name is no variable); other callees are objects
_NAMED_CALLEES = frozenset({"identifier", "qualified_identifier", "template_function",
                            "primitive_type"})


@lru_cache(maxsize=4096)
def evaluated_names(expression: str) -> tuple[str, ...]:
    """Identifiers of ``expression`` that are evaluated and could name a variable, in the
    order written, read on its tree (``syntax_tree.parse_expression``): not members, not
    another scope's names, not the names of called functions, not keywords, not types (a
    cast's, ``uint32_t{k}``'s), not inside ``sizeof``/``decltype``/template arguments... .
    The text is read where it does not parse. Kept per expression: PTX010 asks
    ``names_variables`` and then ``non_constant`` of each "n" operand, and CUTLASS's wgmma
    wrappers spell the same few scale operands in 1,871 statements (9,623 readings of 4,822
    operands)."""
    node = parse_expression(expression)
    if node is None:
        return evaluated_names_in_text(expression)
    names: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        kind = current.type
        if kind in _NO_EVALUATED_NAMES:
            continue
        if kind == "identifier":
            name = expression_text(current)
            if name not in _KEYWORDS:
                names.append(name)
            continue
        if kind == "call_expression":
            function = current.child_by_field_name("function")
            while function is not None and function.type == "parenthesized_expression":
                function = function.named_children[0] if function.named_children else None
            if function is not None and function.type == "identifier" and \
                    expression_text(function) in _UNEVALUATED_CALLS:
                continue
            arguments = current.child_by_field_name("arguments")
            stack.extend(reversed([c for c in (function, arguments) if c is not None
                                   and c.type not in _NAMED_CALLEES]))
            continue
        stack.extend(reversed(current.named_children))
    return tuple(names)



def evaluated_names_in_text(expression: str) -> tuple[str, ...]:
    """:func:`evaluated_names` of a text that does not parse: its words, less those after
    ``.``, ``->``, ``::``, before ``::`` or ``(``, keywords, a fixed-width type in a cast and
    what the unevaluated operators hold."""
    text = _blank_unevaluated(expression)
    names: list[str] = []
    for m in _IDENTIFIER().finditer(text):
        name = m.group()
        if name in _KEYWORDS:
            continue
        before = text[: m.start()].rstrip()
        after = text[m.end() :].lstrip()
        if before.endswith((".", "->", "::")) or after.startswith(("::", "(")):
            continue
        if name in INTEGRAL_TYPEDEFS and (
            after.startswith("{") or before.endswith("(") and after.startswith(")")
        ):
            continue  # `(int32_t)k`, `uint32_t{k}`: a type there (a variable would not parse)
        if before.endswith("<") and not before.endswith("<<"):
            continue  # a template argument, or `a < b`: not worth the guess
        names.append(name)
    return tuple(names)


def _blank_unevaluated(text: str) -> str:
    """``text`` with the parenthesised operand of every unevaluated operator blanked."""
    out = list(text)
    for m in _UNEVALUATED().finditer(text):
        i = m.end()
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text) or text[i] != "(":
            # `sizeof x`: the next word is unevaluated
            word = _IDENTIFIER().match(text, i)
            if word:
                out[word.start() : word.end()] = " " * (word.end() - word.start())
            continue
        depth = 0
        for j in range(i, len(text)):
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            out[j] = " "
            if depth == 0:
                break
    return "".join(out)


@lru_cache(maxsize=4096)
def lvalue_base(expression: str) -> tuple[str, str] | None:
    """The variable an output operand's lvalue is made from, and the access applied to it:
    ``"["``, ``"."``, ``"->"``, or ``""`` for the variable itself (``acc[i].x``: ``("acc",
    "[")``), through parentheses and method calls (``frag.reg(0)``: ``("frag", ".")``);
    ``("", "*")`` for memory reached through a pointer on the way (``*p``, ``(*p).x``);
    ``None`` for anything else (``x + 1``, a call of a function). Read on the expression's
    tree; the text where it does not parse."""
    node = parse_expression(expression)
    if node is None:
        if expression.lstrip("( ").startswith("*"):
            return "", "*"
        match = _BASE().match(expression)
        return (match.group(1), match.group(2)) if match is not None else None
    tail = ""
    while node is not None:
        kind = node.type
        if kind == "parenthesized_expression":
            node = next((c for c in node.named_children if c.type != "comment"), None)
        elif kind == "subscript_expression":
            tail, node = "[", node.child_by_field_name("argument")
        elif kind == "field_expression":
            operator = node.child_by_field_name("operator")
            tail = operator.type if operator is not None else "."
            node = node.child_by_field_name("argument")
        elif kind == "call_expression" and (function := node.child_by_field_name(
                "function")) is not None and function.type == "field_expression":
            node = function  # `frag.reg(0)`: a method's reference into frag, as a member
        elif kind == "pointer_expression" and node.children[0].type == "*":
            return "", "*"
        elif kind == "identifier":
            return expression_text(node), tail
        else:
            return None
    return None
