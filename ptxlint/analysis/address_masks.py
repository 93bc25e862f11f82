"""Which integer masks keep an address in its window, read from C++ syntax and its rules.

Code aligns an address down by masking its integer value: ``reinterpret_cast<uintptr_t>(p) &
-uintptr_t(4)``, ``addr & ~15``. The result points into the same window as ``p`` (shared,
generic, global) only when the mask keeps every high bit of the 64-bit value, and that depends
on the mask's C++ type: the usual arithmetic conversions sign-extend a signed ``int`` (``~15``
is ``-16``, all ones above) but zero-extend an ``unsigned int`` (``~15u`` is ``0xFFFFFFF0``,
which clears the high half, truncating the address). A mask whose type is not written where it
is used is not judged. ``value_flow`` reads this, with the type names it shares from here.
"""

from __future__ import annotations

import tree_sitter

from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.lazy_regex import on_first_use

__all__ = ["CASTS", "INT64", "clears_only_low_bits"]

CASTS = frozenset({"static_cast", "reinterpret_cast", "const_cast"})
# Integer types 64 bits wide on the LP64 hosts nvcc builds for.
INT64 = on_first_use(
    r"^(?:const\s+)?(?:uintptr_t|intptr_t|size_t|ptrdiff_t|uint64_t|int64_t|u64|long|long\s+long"
    r"|unsigned\s+long(?:\s+long)?|std::uintptr_t|std::size_t|std::uint64_t|unsigned\s+long\s+int"
    r"|long\s+int|unsigned\s+long\s+long\s+int)$"
)
_LITERAL = on_first_use(r"(0x[0-9a-f]+|0b[01]+|[0-9]+)([ul]*)")


def _unparenthesized(node: tree_sitter.Node) -> tree_sitter.Node:
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    return node


def clears_only_low_bits(parsed: ParsedSource, node: tree_sitter.Node) -> bool:
    """Whether ``node`` is an align-down mask that keeps the high 32 bits of a 64-bit address:
    ``-N`` or ``~M`` of a 64-bit type (``-uintptr_t(4)``, ``~(size_t)15``, ``~15ull``), or of
    a signed literal (``~15``, ``-16``). ``~15u``, ``-4u`` and masks of unknown type: no."""
    node = _unparenthesized(node)
    if node.type == "number_literal":  # tree-sitter reads `-16` as one literal
        text = parsed.node_text(node)
        return text.startswith("-") and _small_signed_or_wide(text)
    if node.type != "unary_expression":
        return False
    op = node.child_by_field_name("operator")
    argument = node.child_by_field_name("argument")
    if op is None or op.type not in ("-", "~") or argument is None:
        return False
    argument = _unparenthesized(argument)
    if argument.type == "number_literal":
        return _small_signed_or_wide(parsed.node_text(argument))
    if argument.type == "cast_expression":  # `(uintptr_t)15`
        type_node = argument.child_by_field_name("type")
        return type_node is not None and bool(INT64().match(parsed.node_text(type_node)))
    if argument.type == "call_expression":  # `uintptr_t(4)`, `static_cast<size_t>(15)`
        return _casts_to_int64(parsed, argument)
    return False


def _casts_to_int64(parsed: ParsedSource, call: tree_sitter.Node) -> bool:
    function = call.child_by_field_name("function")
    if function is None:
        return False
    if function.type == "template_function":
        name = function.child_by_field_name("name")
        targs = function.child_by_field_name("arguments")
        return (
            name is not None
            and targs is not None
            and parsed.node_text(name) in CASTS
            and bool(INT64().match(parsed.node_text(targs)[1:-1].strip()))
        )
    return function.type in ("primitive_type", "type_identifier", "identifier") and bool(
        INT64().match(parsed.node_text(function))
    )


def _small_signed_or_wide(text: str) -> bool:
    """A literal below 2**32 whose type is signed or 64 bits wide. Without a suffix a decimal
    literal is signed; a hexadecimal, binary or octal one is ``unsigned int`` when it fits that
    and not ``int``. A ``u`` suffix makes it unsigned, 32 bits wide without an ``l``."""
    match = _LITERAL().fullmatch(text.lstrip("-").replace("'", "").lower())
    if match is None:
        return False
    digits, suffix = match.groups()
    if digits.startswith(("0x", "0b")):
        value = int(digits[2:], 16 if digits[1] == "x" else 2)
    elif digits.startswith("0") and len(digits) > 1:
        if not set(digits) <= set("01234567"):
            return False
        value = int(digits, 8)
    else:
        value = int(digits)
    if not 0 < value < 1 << 32:
        return False
    if "l" in suffix:
        return True
    if "u" in suffix:
        return False
    decimal = digits.isdigit() and not digits.startswith("0")
    return decimal or value <= 0x7FFFFFFF
